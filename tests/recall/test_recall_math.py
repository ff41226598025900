"""Recall's arithmetic on exact values, at the edges the ranking meets in real brains: a bm25 score
of 0, one below 1, a half-life of 0 or under a day, a record with no date, a use with no time, more
than three matches in one place, and the shortlist's size. Each test pins a number a small slip in
the code would change (docs/MUTATION.md lists the mutants these were written against)."""

from __future__ import annotations

import math
from datetime import datetime, timezone

import pytest

from brain_core.recall.hybrid import RecallParams, adjust, age_factor, fuse, shortlist, use_lift
from brain_core.recall.places import with_source_context
from brain_core.text.when import DateSpan

DAY = 86400.0
NOW = 1_800_000_000.0


def test_a_fresh_record_and_one_with_no_date_are_not_decayed():
    p = RecallParams()
    assert age_factor(NOW, NOW, p) == 1.0
    assert age_factor(NOW, 0.0, p) == 1.0
    assert age_factor(NOW, -5.0, p) == 1.0  # a date before 1970 read as none, not as 56 years old


def test_decay_halves_the_distance_to_the_floor_every_half_life():
    p = RecallParams(half_life_days=180, decay_floor=0.6)
    assert age_factor(NOW, NOW - 180 * DAY, p) == pytest.approx(0.6 + 0.4 * 0.5, rel=1e-12)
    half_day = RecallParams(half_life_days=0.5, decay_floor=0.6)  # under a day is still a half-life
    assert age_factor(NOW, NOW - 1 * DAY, half_day) == pytest.approx(0.6 + 0.4 * 0.25, rel=1e-12)
    off = RecallParams(half_life_days=0, decay_floor=0.6)
    assert age_factor(NOW, NOW - 900 * DAY, off) == 1.0


def test_the_use_lift_on_exact_values():
    p = RecallParams(use_lift=0.1, half_life_days=180)
    assert use_lift(NOW, NOW, 1, p) == pytest.approx(0.05, rel=1e-12)
    assert use_lift(NOW, NOW - 180 * DAY, 2, p) == pytest.approx(0.1 * 0.75 * 0.5, rel=1e-12)
    assert use_lift(NOW, NOW - 1 * DAY, 1, p) == pytest.approx(0.05 * 0.5 ** (1 / 180), rel=1e-12)
    assert use_lift(NOW, None, 3, p) == 0.0  # uses with no time of use: nothing to fade from, no lift
    assert use_lift(NOW, NOW, 0, p) == 0.0
    no_fade = RecallParams(use_lift=0.1, half_life_days=0)
    assert use_lift(NOW, NOW - 400 * DAY, 1, no_fade) == pytest.approx(0.05, rel=1e-12)
    one_day = RecallParams(use_lift=0.1, half_life_days=1)  # a half-life of one day is a half-life
    assert use_lift(NOW, NOW - 1 * DAY, 1, one_day) == pytest.approx(0.025, rel=1e-12)


def test_the_use_lift_stops_growing_at_thirty_uses():
    p = RecallParams(use_lift=0.1)
    assert use_lift(NOW, NOW, 30, p) == use_lift(NOW, NOW, 1000, p) == 0.1 * (1 - 0.5 ** 30)
    assert use_lift(NOW, NOW, 29, p) < use_lift(NOW, NOW, 30, p)


def test_a_record_dated_just_after_1970_is_old_not_undated():
    p = RecallParams(half_life_days=180, decay_floor=0.6)
    assert age_factor(NOW, 1.0, p) == pytest.approx(0.6, abs=1e-12)


def test_a_named_date_doubles_the_score_at_the_default_lift():
    p = RecallParams(date_boost=1.0)
    when = datetime.fromtimestamp(NOW, timezone.utc)
    day = DateSpan(when.year, when.month, when.day)
    assert adjust(0.8, NOW, [day], 0.9, p) == (pytest.approx(0.8 * 0.9 * 2.0), True)
    assert adjust(0.8, NOW - 10 * DAY, [day], 0.9, p) == (pytest.approx(0.8 * 0.9), False)


def test_score_fusion_keeps_bm25_scores_below_one_and_survives_all_zero_scores():
    p = RecallParams(fusion="score", bm25_weight=1.0, vector_weight=0.5)
    fused = fuse({1: {"bm25": (1, 2.0)}, 2: {"bm25": (2, 0.5)}}, p)
    assert fused == {1: pytest.approx(1.0), 2: pytest.approx(0.25)}
    zero = fuse({1: {"bm25": (1, 0.0)}, 2: {"bm25": (2, 0.0)}}, p)  # no division by a best score of 0
    assert zero == {1: 0.0, 2: 0.0}


def test_reciprocal_rank_fusion_adds_both_stages():
    p = RecallParams(fusion="rrf", bm25_weight=1.0, vector_weight=0.5, rrf_k=60)
    fused = fuse({7: {"bm25": (1, 9.0), "vector": (3, 0.8)}}, p)
    assert fused[7] == pytest.approx(1 / 61 + 0.5 / 63)


def test_source_context_sums_the_best_three_of_a_place():
    p = RecallParams(source_weight=0.5)
    fused = {1: 0.9, 2: 0.8, 3: 0.1, 4: 0.7, 5: 0.05}
    sources = {1: "s", 2: "s", 3: "s", 4: "s", 5: "t"}
    out = with_source_context(fused, sources, p)
    assert out[3] == pytest.approx(0.1 + 0.5 * (0.9 + 0.8 + 0.7))  # the best three, not the worst
    assert out[5] == pytest.approx(0.05 * 1.5)


@pytest.mark.parametrize("k, dated, size", [(5, False, 40), (20, False, 80), (5, True, 80), (20, True, 160)])
def test_the_shortlist_is_the_best_of_its_size(k, dated, size):
    fused = {r: math.sin(r) + 2 for r in range(300)}  # all different, in no order
    got = shortlist(fused, k, dated)
    assert got == sorted(fused, key=fused.get, reverse=True)[:size]
