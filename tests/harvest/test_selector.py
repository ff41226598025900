"""The learned chooser of the agent's sentences (brain_core/harvest/selector.py): its shipped weights
fit its signals, it prefers a finding to narration, and refitting on the labelled sessions gives the
weights it ships (so a signal changed without refitting fails here)."""

from __future__ import annotations

import importlib.util
import math

import pytest

from brain_core.harvest import selector
from brain_core.harvest.distill import extractive
from tests.helpers.paths import TESTS

FINDING = ("The migration fails because `ALTER TABLE ... MODIFY` is not supported by SQLite, so "
           "`alembic/env.py` must render batch operations with `render_as_batch=True`.")
NARRATION = "Let me look at the migration file and run the tests again to see what happens."


def session(*replies: str) -> list[tuple[str, str]]:
    turns = [("user", "The migration breaks on my laptop, can you look into it?")]
    for reply in replies:
        turns += [("assistant", reply), ("user", "ok, go on")]
    return turns


def test_the_shipped_weights_fit_the_signals():
    model = selector.fitted()
    n = len(selector.FEATURES)
    assert len(model["weights"]) == len(model["mean"]) == len(model["scale"]) == n
    assert 0 < model["threshold"] < 1 and 1 <= model["keep"] <= 5
    for cand in selector.candidates(session(FINDING, NARRATION)):
        assert len(cand.x) == n and all(math.isfinite(v) for v in cand.x)


def test_a_finding_outranks_narration_and_a_status_report():
    report = "Done: all 12 tests pass now and the branch is pushed."
    picked = selector.select(session(NARRATION, FINDING, report))
    assert picked, "the finding was not chosen"
    assert "SQLite" in picked[0][1] and "render_as_batch" in picked[0][1]
    assert all("Let me look" not in text for _, text in picked)


def test_a_fix_after_a_finding_completes_it():
    cause = "Rockcraft builds inside an LXD container by default, but the CI runners have no LXD configured."
    fix = "The workaround is `--destructive-mode`, which builds on the host."
    texts = [c.text for c in selector.candidates(session(f"{cause} {fix}"))]
    assert any("LXD" in t and "--destructive-mode" in t for t in texts), texts


def test_the_agent_reporting_the_persons_decision_as_done_is_not_a_second_record():
    text = "\n\n".join([
        "[user] The webhook sender loses events on a 503.",
        "[assistant] `handle_event` posts once and re-raises on 503. Options: fixed retries, exponential backoff, a queue.",
        "[user] Go with exponential backoff capped at six attempts, then dead-letter to the webhook_failures table. "
        "Make that the policy for every outbound webhook from now on.",
        "[assistant] Outbound webhooks now retry with exponential backoff, max six attempts, then dead-letter "
        "to `webhook_failures`.",
    ])
    bodies = [r["body"] for r in extractive(text, profile="claude", source="claude:session:x")]
    assert sum("six attempts" in b for b in bodies) == 1, bodies


def test_a_reply_with_no_prose_offers_nothing():
    assert selector.select(session("```\n$ pytest -q\n3 passed\n```")) == []


@pytest.mark.slow
def test_refitting_on_the_labelled_sessions_gives_the_shipped_weights():
    spec = importlib.util.spec_from_file_location("train_selector", TESTS.parent / "benchmarks" / "train_selector.py")
    train = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(train)
    data = train.sessions(train.TRAIN)
    fitted = train.fit(*train.stack(data, "reader"))
    shipped = selector.fitted()
    for name, a, b in zip(selector.FEATURES, fitted["weights"], shipped["weights"]):
        assert abs(a - b) < 1e-3, f"{name}: refitted {a:.4f}, shipped {b:.4f}: run benchmarks/train_selector.py --write"


def test_options_offered_and_announcements_are_no_candidates():
    reply = ("Options: fixed retries, exponential backoff with a cap plus a dead-letter table, or a queue. "
             "I'll add the `tempfile` crate to the dependencies of `Cargo.toml` next. " + FINDING)
    texts = [c.text for c in selector.candidates(session(reply))]
    assert any("render_as_batch" in t for t in texts), texts
    assert not any(t.startswith(("Options", "I'll")) for t in texts), texts


def test_a_dropped_lead_keeps_the_code_that_follows_it():
    reply = 'The error is clear — `migrate --execute` fails with "Database does not exist" when the database was never created.'
    texts = [c.text for c in selector.candidates(session(reply))]
    assert any(t.startswith("`migrate --execute` fails") for t in texts), texts


def test_a_report_of_checks_that_passed_is_no_candidate():
    reply = ("All 373 tests pass, credo clean. `gofmt` clean, `vet` clean, `golangci-lint` reports 0 issues. "
             "The branch is pushed to origin and up as draft PR #52. Full validation passed with 312 tests and both "
             "Wrangler dry runs. The code now passes all quality checks. " + FINDING)
    texts = [c.text for c in selector.candidates(session(reply))]
    assert texts and all("render_as_batch" in t for t in texts), texts


def test_a_fragment_without_a_verb_is_told_from_a_statement():
    fragment = "PubSub wiring into `PaneListLive` for the status column, and a live transcript reload in `SessionLive`."
    cands = {c.text: c.x[selector.FEATURES.index("no_verb")] for c in selector.candidates(session(fragment + " " + FINDING))}
    assert cands.get(fragment) == 1.0 and [v for t, v in cands.items() if "render_as_batch" in t] == [0.0], cands


def test_a_sentence_that_goes_on_to_announce_the_next_step_is_no_candidate():
    for said in ("This looks like an unquoted YAML scalar in the description line, so I'll fix it and verify the file parses.",
                 "First, let me initialize a git repo in the fixture folder and check its status.",
                 "I'm staging only `token-policy-rules.ts` and its test, then I'll commit and push the branch."):
        texts = [c.text for c in selector.candidates(session(said + " " + FINDING))]
        assert texts and all("render_as_batch" in t for t in texts), (said, texts)


def test_a_report_of_the_work_a_guess_or_a_narrated_step_is_no_candidate():
    reply = ("Added a separate `View Diff` detail row while keeping `Changes` clickable. "
             "I've already verified the change builds, vets and passes the full `sts` suite. "
             "Cherry-picked `0fd2317` onto the branch with zero conflicts. "
             "The likely root cause is the cache key in `search_cache.go`, I suspect a stale tree hash. "
             "Now the provider snapshot reads from `HEAD` whenever a valid git tree exists. "
             "Here's what was synced and pushed to the remote branch. " + FINDING)
    texts = [c.text for c in selector.candidates(session(reply))]
    assert texts and all("render_as_batch" in t for t in texts), texts
    # the same words as a statement about the code stay candidates
    for reply in ("The cache key in `search_cache.go` hashes the tree, so an amended commit reuses the snapshot.",
                  "Next.js does not run `middleware.ts` on the edge runtime when `output: export` is set."):
        assert [c.text for c in selector.candidates(session(reply))], reply
