"""How recall scores what it finds, seen through ``Brain.recall(explain=True)`` and ``decay_factor``."""

from __future__ import annotations

import time

import pytest

from brain_core.recall.hybrid import RecallParams, decay_factor
from brain_core.records import parse_time

DAY = 86400.0
OLD = "2023-01-01T00:00:00Z"


def test_each_use_halves_the_distance_to_the_bounded_lift():
    p = RecallParams()
    now = parse_time("2024-01-01T00:00:00Z").timestamp()
    created = parse_time(OLD).timestamp()
    unused = decay_factor(now, created, None, 0, p)
    # a year old, half-life 180 days: 0.5 ** (365/180) of the way above the floor
    assert unused == pytest.approx(p.decay_floor + (1 - p.decay_floor) * 0.5 ** (365 / p.half_life_days))
    for uses in (1, 2, 3):  # used just now: no fading yet
        used = decay_factor(now, created, now, uses, p)
        assert used == pytest.approx(unused * (1 + p.use_lift * (1 - 0.5 ** uses)))
    many = decay_factor(now, created, now, 500, p)
    assert many == pytest.approx(unused * (1 + p.use_lift), rel=1e-6) and many <= unused * (1 + p.use_lift)
    # the lift fades with the time since the last use
    assert decay_factor(now, created, now - 180 * DAY, 1, p) == pytest.approx(unused * (1 + p.use_lift * 0.5 * 0.5))


def test_decay_counts_from_creation_and_uses_lift_by_at_most_use_lift():
    p = RecallParams()
    now = 1_800_000_000.0
    assert decay_factor(now, now, None, 0, p) == 1.0
    assert decay_factor(now, 0.0, None, 0, p) == 1.0  # an unknown date is not punished
    assert decay_factor(now, now + DAY, None, 0, p) == 1.0  # a date ahead of the clock is fresh, not above 1
    very_old = decay_factor(now, now - 40 * 365 * DAY, None, 0, p)
    assert p.decay_floor <= very_old < p.decay_floor + 1e-6  # stale is lower, never gone
    assert decay_factor(now, now - 400 * DAY, None, 0, RecallParams(half_life_days=0)) == 1.0  # 0: decay off
    lower_floor = decay_factor(now, now - 400 * DAY, None, 0, RecallParams(decay_floor=0.2))
    assert lower_floor < decay_factor(now, now - 400 * DAY, None, 0, p)
    assert decay_factor(now, now - 400 * DAY, now, 9, RecallParams(use_lift=0)) == decay_factor(now, now - 400 * DAY, None, 0, p)


def test_old_records_used_long_ago_rank_above_old_unused_ones(brain):
    used = brain.remember("The deploy script lives in tools/deploy.sh.", key="deploy-script-used", created=OLD)
    unused = brain.remember("The deploy script lives in tools/deploy.sh.", key="deploy-script-unused", created=OLD)
    then = parse_time(OLD).timestamp()
    for _ in range(3):  # three uses, all the day it was written: last use is as old as the record
        brain.usage.bump([f"memories/me/{used.key}.json"], then)
    hits = brain.recall("where is the deploy script", k=2, explain=True, touch=False)
    assert [h.record.id for h in hits] == [used.id, unused.id]
    by_key = {h.record.key: h.explain for h in hits}
    assert by_key[used.key]["uses"] == 3 and by_key[unused.key]["uses"] == 0
    p = RecallParams.from_config(brain.config)
    now = time.time()
    assert by_key[unused.key]["decay"] == pytest.approx(decay_factor(now, then, None, 0, p), abs=1e-3)
    assert by_key[used.key]["decay"] == pytest.approx(decay_factor(now, then, then, 3, p), abs=1e-3)
    # used long ago: a lift that has faded but is still there, and never more than recall.use_lift
    assert by_key[unused.key]["decay"] < by_key[used.key]["decay"] <= by_key[unused.key]["decay"] * (1 + p.use_lift)


def test_a_lone_vector_match_gets_the_full_vector_weight(brain):
    """One candidate is both the best and the worst by cosine: flat scores count as the best (1), not 0."""
    brain.config.set("recall.source_weight", 0)  # no lift from neighbours: the fused score is the stages' alone
    brain.remember("Webhook delivery retries with exponential backoff, capped at six attempts.", key="webhook-retry")
    hits = brain.recall("how many times do we resend failed notifications", k=3, explain=True, touch=False)
    assert [h.record.key for h in hits] == ["webhook-retry"]
    ex = hits[0].explain
    assert ex["bm25"] is None and ex["vector"] is not None  # no shared word: the vector stage alone found it
    p = RecallParams.from_config(brain.config)
    assert ex["kind"] and ex["fused"] == pytest.approx(p.vector_weight * (1 + p.kind_boost))  # "six": how many
    brain.config.set("recall.kind_boost", 0)
    (hit,) = brain.recall("how many times do we resend failed notifications", k=3, explain=True, touch=False)
    assert not hit.explain["kind"] and hit.explain["fused"] == pytest.approx(p.vector_weight)
    assert hit.score == pytest.approx(p.vector_weight * hit.explain["decay"], rel=1e-3)


@pytest.mark.parametrize("query, k, message", [(None, 5, "The query must be text."), (b"bytes", 5, "The query must be text."),
                                               ("deploys", 0, "-k must be at least 1."),
                                               ("deploys", -3, "-k must be at least 1.")])
def test_recall_now_and_as_of_refuse_the_same_bad_arguments_alike(brain, query, k, message):
    from brain_core.errors import InvalidInput
    from brain_core.lifecycle.asof import recall_at

    brain.remember("Deploys happen on Tuesdays.", key="deploy-day")
    for call in (lambda: brain.recall(query, k=k), lambda: recall_at(brain, "2999-01-01", query, k=k)):
        with pytest.raises(InvalidInput) as e:
            call()
        assert str(e.value) == message
    assert not (brain.state_dir / "asof").exists()  # refused before any snapshot was built
