"""Consolidation on a real brain: propose -> judge -> apply, and nothing moves when the judge fails."""

from __future__ import annotations

import json

import pytest

from brain_core.cli import main
from brain_core.errors import BrainError
from brain_core.lifecycle.consolidate import Draft, Settings, consolidate, propose, resolve
from brain_core.lifecycle.judge import RuleJudge, conflicts_between
from tests.helpers.fake_llm_server import FakeLLMServer
from tests.helpers.keyring_memory import memory_keyring  # noqa: F401  (fixture)

RETRY_EVENTS = [
    ("Webhook delivery retries with exponential backoff.", "2026-08-01T10:00:00Z"),
    ("Retries are capped at 6 attempts.", "2026-08-02T10:00:00Z"),
    ("Webhook delivery retries with exponential backoff. The Stripe webhook is not retried after a 410.",
     "2026-08-03T10:00:00Z"),
]


def _events(brain, items, key="retry-policy", profile="codex"):
    recs = brain.remember_many([dict(body=b, type="event", key=key, profile=profile, created=c, tags=["project:hooks"])
                                for b, c in items])
    return [f"events/{profile}/{r.created[:7]}/{r.id}.json" for r in recs]


def _snapshot(brain, paths):
    return {p: (brain.root / p).read_bytes() for p in paths}


def test_passing_judge_merges_and_archives(brain):
    paths = _events(brain, RETRY_EVENTS)
    dry = consolidate(brain, dry_run=True, judge=RuleJudge())
    assert [o.verdict.ok for o in dry.outcomes] == [True] and dry.judge == "rules"
    assert all((brain.root / p).exists() for p in paths)
    assert not (brain.root / "memories/codex/retry-policy.json").exists()

    head = brain.head()
    report = consolidate(brain, judge=RuleJudge())
    (out,) = report.outcomes
    assert out.verdict.ok and out.written == "memories/codex/retry-policy.json"
    rec = brain.get(out.written)
    assert rec.type == "fact" and rec.tags == ["project:hooks"] and rec.source == "aida:consolidate"
    ids = [brain.get(f"archive/{p}").id for p in paths]
    assert sorted(rec.provenance) == sorted(ids)
    assert rec.body == ("Webhook delivery retries with exponential backoff. Retries are capped at 6 attempts. "
                        "The Stripe webhook is not retried after a 410.")
    for p in paths:  # moved, never deleted
        assert not (brain.root / p).exists() and (brain.root / "archive" / p).exists()
    assert brain.head() != head
    hits = brain.recall("how many webhook retry attempts", k=3)
    assert hits[0].path == out.written
    assert all(not h.path.startswith("events/") for h in hits)
    # nothing left to merge: a second pass is a no-op
    assert consolidate(brain, judge=RuleJudge()).outcomes == ()


def test_failing_judge_moves_nothing(brain):
    paths = _events(brain, RETRY_EVENTS)
    before, head = _snapshot(brain, paths), brain.head()
    brain.config.set("consolidate.max_chars", 40)
    report = consolidate(brain)
    (out,) = report.outcomes
    assert not out.verdict.ok and "over consolidate.max_chars" in out.verdict.reasons[0]
    assert out.written is None and out.archived == ()
    assert _snapshot(brain, paths) == before and brain.head() == head
    assert not (brain.root / "memories/codex/retry-policy.json").exists()
    assert not list((brain.root / "archive").rglob("*.json"))


def test_rule_judge_catches_a_lossy_draft(brain):
    paths = _events(brain, RETRY_EVENTS)
    before, head = _snapshot(brain, paths), brain.head()

    def lossy(originals, key, profile):  # keeps only the first event, drops the cap and the negation
        return Draft("fact", key, profile, originals[0].record.body, (), tuple(o.record.id for o in originals))

    (out,) = consolidate(brain, judge=RuleJudge(), drafter=lossy).outcomes
    reasons = " ".join(out.verdict.reasons)
    assert not out.verdict.ok
    assert "6" in reasons and "410" in reasons and "negation" in reasons and "Stripe" in reasons
    assert _snapshot(brain, paths) == before and brain.head() == head

    def inventive(originals, key, profile):  # adds a number and flips a statement
        return Draft("fact", key, profile, " ".join(o.record.body for o in originals)
                     + " Retries are capped at 9 attempts. Webhook delivery never retries.",
                     (), tuple(o.record.id for o in originals))

    (out,) = consolidate(brain, judge=RuleJudge(), drafter=inventive).outcomes
    assert not out.verdict.ok and any("no original has: 9" in r for r in out.verdict.reasons)
    assert any("not what any original says" in r for r in out.verdict.reasons)
    assert _snapshot(brain, paths) == before


def _llm_config(brain, server):
    brain.config.set("llm.provider", "openai-compatible")
    brain.config.set("llm.base_url", server.url + "/v1")
    brain.config.set("llm.retries", 0)
    brain.config.set("llm.timeout", 5)


def test_llm_judge_pass_and_fail(brain, memory_keyring):
    paths = _events(brain, RETRY_EVENTS)
    before = _snapshot(brain, paths)
    with FakeLLMServer(answer='{"verdict": "fail", "reasons": ["the events describe two different webhooks"]}') as s:
        _llm_config(brain, s)
        (out,) = consolidate(brain).outcomes
        assert not out.verdict.ok and out.verdict.judge == "llm:openai-compatible"
        assert out.verdict.reasons == ("the events describe two different webhooks",)
        assert _snapshot(brain, paths) == before
        sent = s.posts()[0]["body"]
        assert sent["response_format"] == {"type": "json_object"}
        prompt = sent["messages"][1]["content"]
        assert all(brain.get(p).id in prompt for p in paths) and "Merged record" in prompt

        s.answer = "I think it is fine"  # not JSON: a fail, never an apply on doubt
        (out,) = consolidate(brain).outcomes
        assert not out.verdict.ok and "not JSON" in out.verdict.reasons[0]
        assert _snapshot(brain, paths) == before

        s.answer = '```json\n{"verdict": "pass", "reasons": []}\n```'
        (out,) = consolidate(brain).outcomes
        assert out.verdict.ok and out.written == "memories/codex/retry-policy.json"
        assert all((brain.root / "archive" / p).exists() for p in paths)


def test_llm_down_is_a_fail(brain, memory_keyring):
    paths = _events(brain, RETRY_EVENTS)
    before = _snapshot(brain, paths)
    with FakeLLMServer() as s:
        _llm_config(brain, s)
        s.script = ["500"]
        (out,) = consolidate(brain).outcomes
    assert not out.verdict.ok and "could not be asked" in out.verdict.reasons[0]
    assert _snapshot(brain, paths) == before


def test_contradictions_are_listed_not_merged(brain):
    paths = _events(brain, [("The retry cap is 6 attempts.", "2026-08-01T10:00:00Z"),
                            ("The retry cap is 8 attempts.", "2026-08-05T10:00:00Z")], key="retry-cap")
    report = consolidate(brain, judge=RuleJudge())
    assert report.outcomes == ()
    (c,) = report.contradictions
    assert c.key == "retry-cap" and sorted(c.paths) == sorted(paths)
    assert "different numbers" in c.details[0]
    assert all((brain.root / p).exists() for p in paths)
    # the user chooses
    out = resolve(brain, paths[1])
    rec = brain.get("memories/codex/retry-cap.json")
    assert rec.body == "The retry cap is 8 attempts." and len(rec.provenance) == 2
    assert all((brain.root / "archive" / p).exists() and not (brain.root / p).exists() for p in paths)
    assert out.verdict.judge == "user"
    with pytest.raises(BrainError):
        resolve(brain, "events/codex/2026-08/nothing.json")


def test_negation_conflict_detected():
    (detail,) = conflicts_between("Staging supports IPv6 traffic.", "Staging does not support IPv6 traffic.")
    assert "one says the opposite" in detail
    assert not conflicts_between("Deploys run on Tuesdays.", "The cafeteria opens at 8.")


def test_near_duplicates_group_and_durable_record_is_kept(brain):
    base = brain.remember("The VPN must be enabled before connecting to the staging database.", type="instruction",
                          key="staging-vpn")
    a = brain.remember("You must enable the VPN before connecting to the staging database.", type="event")
    b = brain.remember("The VPN must be enabled before connecting to the staging database, also from CI runners.",
                       type="event")
    proposals, contradictions = propose(brain, Settings(similarity=0.85))
    assert not contradictions
    (p,) = proposals
    assert p.why.startswith("near-duplicates")
    assert {o.record.id for o in p.events} == {a.id, b.id}
    # the events are near-duplicates of a durable record, so they merge into it (its key, its type)
    assert p.draft.key == "staging-vpn" and p.draft.type == "instruction"
    assert [o.record.id for o in p.originals if o.base] == [base.id]
    assert "CI runners" in p.draft.body
    assert RuleJudge().judge(p).ok
    # below the threshold nothing groups
    assert propose(brain, Settings(similarity=0.99)) == ([], [])


def test_event_joins_existing_durable_record(brain):
    old = brain.remember("Invoices go out on the 1st.", type="fact", key="invoice-day", profile="me")
    ev = brain.remember("Invoices go out on the 1st. Late fees start after 14 days.", type="event", key="invoice-day")
    (out,) = consolidate(brain, judge=RuleJudge()).outcomes
    rec = brain.get("memories/me/invoice-day.json")
    assert out.verdict.ok and rec.supersedes == old.id and set(rec.provenance) == {old.id, ev.id}
    assert rec.body == "Invoices go out on the 1st. Late fees start after 14 days."
    assert rec.type == "fact"


def test_reader_refuses_but_can_dry_run(brain):
    _events(brain, RETRY_EVENTS)
    brain.config.set("machine.role", "reader")
    with pytest.raises(BrainError, match="reader"):
        consolidate(brain, judge=RuleJudge())
    assert consolidate(brain, dry_run=True, judge=RuleJudge()).outcomes


def test_cli_consolidate(brain, monkeypatch, capsys):
    _events(brain, RETRY_EVENTS)
    _events(brain, [("The retry cap is 6 attempts.", "2026-08-01T10:00:00Z"),
                    ("The retry cap is 8 attempts.", "2026-08-05T10:00:00Z")], key="retry-cap")
    monkeypatch.setenv("AIDA_BRAIN", str(brain.root))
    assert main(["brain", "consolidate", "--dry-run", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["dry_run"] and [p["verdict"] for p in out["proposals"]] == ["pass"]
    assert out["contradictions"][0]["key"] == "retry-cap"
    assert main(["brain", "consolidate"]) == 0
    text = capsys.readouterr().out
    assert "[pass] codex/retry-policy" in text and "[contradiction] codex/retry-cap" in text
    assert (brain.root / "memories/codex/retry-policy.json").exists()
