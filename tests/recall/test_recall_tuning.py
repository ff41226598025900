"""What the LoCoMo tuning added to recall, on a real brain: score fusion, the date a question names, the
lift from other matches of the same source, and the settings that switch each off."""

from __future__ import annotations

from datetime import datetime, timezone

import pytest

from brain_core.config import Config
from brain_core.recall.hybrid import RecallParams, fuse
from brain_core.recall.places import with_source_context
from brain_core.text.when import DateSpan, find_dates


def ts(text: str) -> float:
    return datetime.fromisoformat(text).replace(tzinfo=timezone.utc).timestamp()


@pytest.mark.parametrize("question,span", [
    ("What did we decide on October 13, 2023?", DateSpan(2023, 10, 13)),
    ("what happened on 1 February, 2023", DateSpan(2023, 2, 1)),
    ("notes from the 3rd of May 2024", DateSpan(2024, 5, 3)),
    ("the review in December 2023", DateSpan(2023, 12)),
    ("camping in June", DateSpan(None, 6)),
    ("the budget in 2022", DateSpan(2022)),
    ("the incident on 2024-03-01", DateSpan(2024, 3, 1)),
])
def test_dates_a_question_names(question, span):
    spans, rest = find_dates(question)
    assert spans == [span]
    assert not any(ch.isdigit() for ch in rest)


@pytest.mark.parametrize("question", ["May I ask about the retry cap?", "what is the march of progress",
                                      "deploy 2023 servers", "on February 30, 2023", ""])
def test_no_date_where_there_is_none(question):
    assert find_dates(question)[0] == []


def test_a_day_span_allows_for_time_zones_and_a_month_span_any_year():
    assert DateSpan(2023, 10, 13).contains(ts("2023-10-14T08:00:00"))
    assert not DateSpan(2023, 10, 13).contains(ts("2023-10-16T08:00:00"))
    assert DateSpan(None, 6).contains(ts("2019-06-30T23:00:00")) and not DateSpan(None, 6).contains(ts("2019-07-01T01:00:00"))
    assert not DateSpan(2023).contains(0)


def test_score_fusion_keeps_the_margin_that_ranks_lose():
    stages = {1: {"bm25": (1, 12.0), "vector": (3, 0.20)}, 2: {"bm25": (2, 3.0), "vector": (1, 0.40)},
              3: {"vector": (2, 0.30)}}
    fused = fuse(stages, RecallParams(fusion="score", bm25_weight=1.0, vector_weight=0.5))
    assert fused[1] == pytest.approx(1.0) and fused[2] == pytest.approx(0.25 + 0.5) and fused[3] == pytest.approx(0.25)
    rrf = fuse(stages, RecallParams(fusion="rrf", bm25_weight=1.0, vector_weight=0.5, rrf_k=60))
    assert rrf[1] == pytest.approx(1 / 61 + 0.5 / 63)


def test_source_context_lifts_records_whose_source_matches_elsewhere():
    fused = {1: 0.5, 2: 0.5, 3: 0.45, 4: 0.45}
    sources = {1: "meeting:a", 2: "", 3: "meeting:b", 4: "meeting:b"}
    lifted = with_source_context(fused, sources, RecallParams(source_weight=0.3))
    assert lifted[1] == pytest.approx(0.5 * 1.3) and lifted[2] == pytest.approx(0.5 * 1.3)  # alone: own score
    assert lifted[3] == pytest.approx(0.45 + 0.3 * 0.9) and lifted[3] > lifted[1]
    assert with_source_context(fused, sources, RecallParams(source_weight=0.0)) == fused


def _records_on_two_days(brain):
    brain.remember("The harbour crane inspection found a cracked bolt.", key="crane-march", created="2024-03-12T10:00:00Z")
    brain.remember("The harbour crane inspection found worn brake pads.", key="crane-june", created="2024-06-18T10:00:00Z")


def test_a_question_naming_a_date_prefers_records_made_then(brain):
    _records_on_two_days(brain)
    for when, key in (("in March 2024", "crane-march"), ("on June 18, 2024", "crane-june")):
        hits = brain.recall(f"what did the harbour crane inspection find {when}", k=2, explain=True, touch=False)
        assert hits[0].record.key == key and hits[0].explain["dated"] is True
        assert "2024" not in hits[0].explain["fts_query"]


def test_the_date_lift_is_a_setting(brain, tmp_path):
    _records_on_two_days(brain)
    brain.config.set("recall.date_boost", 0)
    hits = brain.recall("what did the harbour crane inspection find in March 2024", k=2, explain=True, touch=False)
    assert all(h.explain["dated"] is False for h in hits)


def test_switching_a_stage_off_through_the_settings(brain):
    brain.remember("The backup job runs at two in the morning.", key="backup-time")
    brain.config.set("recall.vector_weight", 0)
    hit = brain.recall("backup job", k=1, explain=True, touch=False)[0]
    assert hit.explain["vector"] is None and hit.explain["bm25"] is not None
    brain.config.set("recall.vector_weight", 0.5)
    brain.config.set("recall.bm25_weight", 0)
    hit = brain.recall("when do we back up", k=1, explain=True, touch=False)[0]
    assert hit.explain["bm25"] is None and hit.record.key == "backup-time"


def test_the_defaults_are_visible_in_the_settings(tmp_path):
    cfg = Config(path=tmp_path / "c.yaml")
    params = RecallParams.from_config(cfg)
    assert (params.fusion, params.vector_weight, params.source_weight, params.date_boost) == (
        cfg.get("recall.fusion"), cfg.get("recall.vector_weight"), cfg.get("recall.source_weight"),
        cfg.get("recall.date_boost"))
    cfg.set("recall.fusion", "rrf")
    assert RecallParams.from_config(cfg).fusion == "rrf"
