"""The offline distiller on whole real sessions (tests/fixtures/real_sessions/, labelled in
tests/fixtures/distill_labels.json): the agent's findings and the person's rules are kept; orders
for the task at hand, code and tool output are not; code is never a body."""

from __future__ import annotations

import json
import re

import pytest

from brain_core.harvest import selector
from brain_core.harvest.codeish import code_only
from brain_core.harvest.compaction import unfold
from brain_core.harvest.distill import _split_turns
from brain_core.harvest.sources import get
from tests.helpers.distill_labelled import LABELS, REAL, given_text, harvest, load, matches, score


@pytest.fixture(scope="module")
def harvested():
    # The 'blind2' to 'blind8' splits are for benchmarks/bench_distill.py only: no test holds the
    # distiller to them ('unseen' was one too, until its blind figures were reported).
    cases = [c for c in load() if c.split not in ("blind2", "blind3", "blind4", "blind5", "blind6", "blind7", "blind8")]
    for c in cases:
        c.kept = harvest(c)
    return cases


def test_the_labelled_set_is_well_formed():
    spec = json.loads(LABELS.read_text(encoding="utf-8"))
    files = [s["file"] for s in spec["sessions"]]
    assert len(files) == len(set(files)) >= 40
    assert {s["tool"] for s in spec["sessions"]} == {"claude", "codex", "gemini"}
    halves = {sp: [s for s in spec["sessions"] if s["split"] == sp] for sp in ("tune", "held_out")}
    assert all(len(h) >= 20 and sum(len(s["items"]) for s in h) >= 20 for h in halves.values())
    # Collected and labelled after the rules were written, never used to choose them.
    fresh = [s for s in spec["sessions"] if s["split"] == "fresh"]
    assert len(fresh) >= 16 and sum(len(s["items"]) for s in fresh) >= 16
    # Collected from other repositories and labelled blind after the distiller was changed.
    unseen = [s for s in spec["sessions"] if s["split"] == "unseen"]
    assert len(unseen) >= 20 and sum(len(s["items"]) for s in unseen) >= 40
    assert {s["tool"] for s in unseen} >= {"claude", "gemini"} and any(not s["items"] for s in unseen)
    # And a fifth, from five more repositories, once the unseen split had been read.
    blind2 = [s for s in spec["sessions"] if s["split"] == "blind2"]
    assert len(blind2) >= 20 and sum(len(s["items"]) for s in blind2) >= 40
    # And a sixth, from five more, once blind2 had been read (Claude Code and Codex CLI).
    blind3 = [s for s in spec["sessions"] if s["split"] == "blind3"]
    assert len(blind3) >= 20 and sum(len(s["items"]) for s in blind3) >= 40
    assert {s["tool"] for s in blind3} >= {"claude", "codex"}
    # And a seventh, from five more, labelled blind once the distiller's offline records were marked unchecked.
    blind4 = [s for s in spec["sessions"] if s["split"] == "blind4"]
    assert len(blind4) >= 20 and sum(len(s["items"]) for s in blind4) >= 40
    assert {s["tool"] for s in blind4} >= {"claude", "codex"}
    # And an eighth, from five more, labelled blind by another reader (Claude Code only: no usable Codex one found).
    blind5 = [s for s in spec["sessions"] if s["split"] == "blind5"]
    assert len(blind5) >= 20 and sum(len(s["items"]) for s in blind5) >= 40
    # And a ninth, from two more repositories, labelled blind once the agent's findings came from a learned chooser.
    blind6 = [s for s in spec["sessions"] if s["split"] == "blind6"]
    assert len(blind6) >= 20 and sum(len(s["items"]) for s in blind6) >= 40
    assert {s["tool"] for s in blind6} >= {"claude", "codex"}
    # And a tenth, from one more repository (Codex CLI), labelled blind once the chooser was refitted on tune to blind5.
    blind7 = [s for s in spec["sessions"] if s["split"] == "blind7"]
    assert len(blind7) >= 12 and sum(len(s["items"]) for s in blind7) >= 40
    # And an eleventh, from two more repositories, labelled blind once the person's records were filtered anew.
    blind8 = [s for s in spec["sessions"] if s["split"] == "blind8"]
    assert len(blind8) >= 20 and sum(len(s["items"]) for s in blind8) >= 40
    assert {s["split"] for s in spec["sessions"]} == {"tune", "held_out", "fresh", "unseen", "blind2", "blind3",
                                                      "blind4", "blind5", "blind6", "blind7", "blind8"}
    for s in unseen + blind2 + blind3 + blind4 + blind5 + blind6 + blind7 + blind8:  # the harvester reads each one: the person and the agent both speak
        roles = {t.role for t in get(s["tool"]).parse(REAL / s["file"]).turns}
        assert {"user", "assistant"} <= roles, s["file"]
    for s in spec["sessions"]:
        assert (REAL / s["file"]).is_file(), s["file"]
        ids = [i["id"] for i in s["items"]]
        assert len(ids) == len(set(ids))
        assert all(1 <= len(i["all"]) <= 4 and all(k.strip() for k in i["all"]) for i in s["items"])


def test_the_second_reader_wrote_for_labelled_sessions_of_every_split():
    """benchmarks/label_agreement.py scores a second reader's memories against the labels."""
    spec = json.loads((LABELS.parent / "distill_second_reader.json").read_text(encoding="utf-8"))
    labelled = {c.file: c.split for c in load()}
    sessions = spec["sessions"]
    assert len({s["file"] for s in sessions}) == len(sessions) == 24
    assert all(labelled.get(s["file"]) == s["split"] for s in sessions)
    assert {s["split"] for s in sessions} == {"tune", "held_out", "fresh", "unseen", "blind2", "blind3"}
    assert all(len(s["memories"]) <= 5 and all(m.strip() for m in s["memories"]) for s in sessions)


def test_findings_and_rules_are_kept_with_few_wrong(harvested):
    sc = score(harvested)
    assert all(len(c.kept) <= 5 for c in harvested)
    # main's distiller keeps a handful of records from these sessions: recall about 0.05.
    assert sc.recall is not None and sc.recall >= 0.2, sc.missed
    assert sc.precision is not None and sc.precision >= 0.5, sc.noise


def _kept(harvested, name):
    return next(c for c in harvested if c.file.startswith(name)).kept


def test_what_the_agent_found_is_kept(harvested):
    # "The auto-generated migration uses ALTER TABLE ... modify which SQLite doesn't support."
    kept = _kept(harvested, "claude-2.1.39-258c7280")
    assert any(matches({"all": ["ALTER TABLE", "SQLite"]}, r["body"]) for r in kept), [r["body"] for r in kept]
    # "aliases used only inside `rescue` blocks are reported as unused": a reader keeps it; the chooser
    # ranks it among its first ten of the session's 40-odd sentences, under the threshold today.
    case = next(c for c in harvested if c.file.startswith("claude-2.1.39-fa812bfe"))
    ranked = sorted(selector.candidates(unfold(_split_turns(given_text(case)))), key=lambda c: -selector.chance(c.x, selector.fitted()))
    assert any(matches({"all": ["alias", "rescue"]}, c.text) for c in ranked[:10]), [c.text for c in ranked[:10]]


def test_a_terse_rule_without_cue_words_is_kept(harvested):
    # "it's bad idea, since entire converation will be proceed every time. performance is crucial."
    kept = _kept(harvested, "codemie-session-624a4a58")
    assert any(matches({"all": ["performance", "crucial"]}, r["body"]) for r in kept), [r["body"] for r in kept]


_ORDERS = re.compile(r"^(?:continue|push|commit|sync|proceed|resume|do it|create the|show|install|fix)\b", re.I)


def test_orders_code_and_tool_output_are_not_kept(harvested):
    for c in harvested:
        session = get(c.tool).parse(REAL / c.file)
        tool_text = " ".join(t.text for t in session.turns if t.role == "tool")
        for r in c.kept:
            body = r["body"]
            assert not code_only(body), (c.file, body)
            assert "```" not in body and not _ORDERS.match(body), (c.file, body)
            assert len(body) < 80 or body[:80] not in tool_text, (c.file, body)  # not copied from tool output


@pytest.mark.parametrize("text", [
    "TestTrackCommandDetachedDefaultsAgentToAuto",
    "`test_harvest_keeps_findings`",
    "sync_session_by_id/2",
    "Spotter.Services.Tmux.pane_exists?",
    "src/providers/plugins/sso/session-store.ts",
    "Traceback (most recent call last):\n  File \"app.py\", line 3, in <module>\nKeyError: 'x'",
    "** (CompileError) lib/spotter/web.ex:12: undefined function foo/0",
    "-rw-r--r--@ 1 user staff 11525 Jan 14 21:26 metrics.mjs\ndrwxr-xr-x@ 5 user staff 160 Dec 16 _config",
    "ERROR 2026-01-14 connection refused\nWARN retrying in 5s",
    "const x = foo(bar); return x.map((y) => y.id);",
])
def test_code_is_never_a_body(text):
    assert code_only(text)


@pytest.mark.parametrize("text", [
    "The auto-generated migration uses ALTER TABLE modify, which SQLite doesn't support.",
    "Aliases used only inside rescue blocks are reported as unused by the Elixir compiler.",
    "Sync must be incremental, performance is crucial.",
    "Use `:otel_span.hex_trace_id/1` to read the trace id of the current span.",
])
def test_a_statement_in_words_is_a_body(text):
    assert not code_only(text)


def test_the_persons_pick_among_offered_options_is_kept_in_the_options_words():
    from brain_core.harvest.distill import extractive

    text = ("[user] The nightly export is too slow; what can we do?\n\n"
            "[assistant] Two ways:\n\nOption A: keep the cron job and add an index on exported_at.\n"
            "Option B: stream rows to the bucket as they change, through the change feed.\n\n"
            "[user] I like Option B\n\n[assistant] Good, I will set it up.")
    recs = extractive(text, profile="claude", source="claude:session:x")
    assert any(r["type"] == "decision" and "change feed" in r["body"] and "Option B" in r["body"] for r in recs), recs
    # A bare "2" answering "what next?" is an order for the task at hand, not a choice to keep.
    text2 = "[user] Fix the build\n\n[assistant] Done. Next:\n1. Push to GitHub\n2. Clean up temp files\n\n[user] 2"
    assert not [r for r in extractive(text2, profile="claude", source="claude:session:x") if "temp files" in r["body"]]


def test_a_finding_is_a_cause_or_limit_of_something_named_said_as_fact():
    from brain_core.harvest.findings import agent_findings

    def found(reply):
        return [f[2] for f in agent_findings([("user", "Why does the migration break?"), ("assistant", reply)])]

    assert found("The migration fails because SQLite doesn't support `ALTER COLUMN` on a table with rows.")
    # About nothing one could look up: commentary, however causal it sounds.
    assert not found("The other approach doesn't work because the whole thing is missing a piece.")
    # A prediction, a plan, or a change just made is not how the system is.
    assert not found("The migration would fail because SQLite doesn't support `ALTER COLUMN` on a table with rows.")
    assert not found("Since `Tmux.launch` requires a real tmux, I'll test that it mints a token instead.")
    assert not found("BROKEN - Incremental updates to `sessions.json` are not tracked.")
    # "The issue is that ..." names the bug being worked on: only a cause or limit after it counts.
    assert not found("The issue is that I need to make `with_span` work with do blocks.")
    kept = found("The issue is that `load_messages` doesn't include the `agent_id` field.")
    assert kept and not kept[0].lower().startswith("the issue"), kept


def test_a_bug_report_or_a_pasted_terminal_is_not_a_rule():
    from brain_core.harvest.person import person_rules

    def rules(said):
        turns = [("user", "Make the sync faster."), ("assistant", "I changed the loop to batch writes."), ("user", said)]
        return [r[2] for r in person_rules(turns)]

    assert rules("The sync must be incremental, performance is crucial.")
    # What the person saw go wrong describes the present state; it rules nothing.
    assert not rules("The export button is not doing anything. It still doesn't work after the restart.")
    # A turn that carries a terminal session reports; its words are mixed with output.
    assert not rules("The sync must be incremental.\nuser@host app % make test\nFAILED tests/sync/test_sync.py")
