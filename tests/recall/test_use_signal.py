"""The use signal: being shown is not being used; a real use lifts a record, and only a little."""

from __future__ import annotations

import pytest

from brain_core.answer.ask import ask
from brain_core.answer.lessons import record_feedback
from brain_core.errors import InvalidInput
from brain_core.recall.hybrid import RecallParams, decay_factor


@pytest.fixture
def cranes(brain):
    brain.remember("The harbour crane inspection found rust on the boom and a worn hoist cable.",
                   key="crane-inspection", created="2026-03-02T10:00:00Z")
    brain.remember("The crane was painted yellow last spring.", key="crane-paint", created="2026-03-02T10:00:00Z")
    return brain


def test_recall_never_counts_a_shown_record_as_used(cranes):
    for _ in range(5):
        hits = cranes.recall("harbour crane inspection", k=2)
    assert len(hits) == 2
    assert cranes.usage.get([h.path for h in hits]) == {}


def test_a_thousand_uses_do_not_lift_a_record_above_a_better_match(cranes):
    query = "what did the harbour crane inspection find on the boom and hoist cable"
    first = cranes.recall(query, k=2, explain=True)
    assert [h.record.key for h in first] == ["crane-inspection", "crane-paint"]
    weak = first[1].path
    vector = cranes.embedder.embed([query])[0]
    for _ in range(1000):
        cranes.recall(query, k=2, query_vector=vector, catch_up=False)  # shown a thousand times
    for _ in range(1000):
        cranes.usage.bump([weak], why="copied")  # and used a thousand times
    assert cranes.usage.get([weak])[weak][0] == 1000
    after = cranes.recall(query, k=2, explain=True)
    assert [h.record.key for h in after] == ["crane-inspection", "crane-paint"]
    assert after[1].explain["uses"] == 1000
    assert after[1].score <= first[1].score * (1 + RecallParams().use_lift) + 1e-9
    assert after[1].score > first[1].score  # the use did lift it, within the bound


def test_a_use_lifts_a_record_by_its_bounded_share_and_the_setting_switches_it_off(brain):
    for key in ("deploy-notes-a", "deploy-notes-b"):
        brain.remember("The deploy script lives in ops/deploy.sh and needs the VPN.", key=key,
                       created="2026-01-05T10:00:00Z")
    before = {h.path: h.score for h in brain.recall("where is the deploy script", k=2)}
    used = sorted(before)[1]
    assert brain.mark_used([used, used], "opened") == 1  # one use per record per signal
    after = {h.path: h for h in brain.recall("where is the deploy script", k=2, explain=True)}
    lift = RecallParams().use_lift * 0.5  # one use: half the way to the bound
    assert after[used].score / before[used] == pytest.approx(1 + lift, rel=1e-3)
    other = sorted(before)[0]
    assert after[other].score == pytest.approx(before[other], rel=1e-6)
    assert after[used].explain["uses"] == 1 and brain.usage.reasons(used) == {"opened": 1}
    brain.config.set("recall.use_lift", 0)
    off = {h.path: h.score for h in brain.recall("where is the deploy script", k=2)}
    assert off[used] == pytest.approx(before[used], rel=1e-6)


def test_use_lift_is_bounded_and_fades():
    p = RecallParams()
    now = 1_800_000_000.0
    fresh = decay_factor(now, now, None, 0, p)
    assert fresh == pytest.approx(1.0)
    assert decay_factor(now, now, now, 10**6, p) <= 1 + p.use_lift
    old_use = decay_factor(now, now, now - 720 * 86400, 50, p)
    assert 1.0 < old_use < decay_factor(now, now, now, 50, p)
    # using a record no longer makes an old one look new
    year = 365 * 86400
    assert decay_factor(now, now - year, now, 50, p) < 0.8


def test_mark_used_refuses_unknown_reasons_and_paths_outside_the_brain(cranes):
    hit = cranes.recall("crane", k=1)[0]
    with pytest.raises(InvalidInput, match="one of cited"):
        cranes.mark_used([hit.path], "shown")
    with pytest.raises(InvalidInput):
        cranes.mark_used(["../../etc/passwd"], "opened")
    assert cranes.usage.get([hit.path]) == {}


def test_an_answer_marks_its_cited_records_and_a_thumbs_up_marks_them_again(cranes):
    answer = ask(cranes, "What did I say about the harbour crane inspection?", llm=None)
    assert answer.cited
    cited = [h.path for h in answer.hits if h.record.id in answer.cited]
    assert cited and all(cranes.usage.reasons(p) == {"cited": 1} for p in cited)
    shown_only = [h.path for h in answer.hits if h.record.id not in answer.cited]
    assert all(cranes.usage.reasons(p) == {} for p in shown_only)
    record_feedback(cranes, answer.run_id, "up")
    assert cranes.usage.reasons(cited[0]) == {"cited": 1, "thumbs-up": 1}
