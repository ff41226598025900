"""Recency mode ("my latest notes on X"): newest first among what the rest of the question is about,
with the explanation, the use signal and the staleness of each hit."""

from __future__ import annotations

import pytest

from brain_core.recall.hybrid import RECENT_MIN_SIMILARITY, recall

NOW = 1_790_000_000.0  # 2026-09-21

DEPLOYS = [  # (key, created) about deploys, oldest first
    ("deploy-freeze", "2026-03-01T09:00:00Z"),
    ("deploy-window", "2026-05-10T09:00:00Z"),
    ("deploy-rollback", "2026-07-20T09:00:00Z"),
]
OTHERS = [
    ("lunch-place", "2026-09-01T09:00:00Z", "Lunch on Fridays is at the noodle bar on Elm Street."),
    ("piano-lessons", "2026-08-15T09:00:00Z", "Piano lessons moved to Wednesday evenings at six."),
    ("garden-bulbs", "2026-08-01T09:00:00Z", "Plant the tulip bulbs in October, ten centimetres deep."),
    ("bike-tyres", "2026-06-01T09:00:00Z", "The road bike's tyres are 28 mm, pumped to six bar."),
    ("tax-forms", "2026-04-01T09:00:00Z", "The tax forms are in the blue folder on the shelf."),
    ("wifi-router", "2026-02-01T09:00:00Z", "The router restarts itself every Sunday at four in the morning."),
]


@pytest.fixture
def diary(brain):
    bodies = {"deploy-freeze": "Deploys are frozen during the last week of each quarter.",
              "deploy-window": "The deploy window is Tuesday to Thursday, before three in the afternoon.",
              "deploy-rollback": "A failed deploy is rolled back first and investigated afterwards."}
    items = [dict(body=bodies[k], key=k, created=c) for k, c in DEPLOYS]
    items += [dict(body=b, key=k, created=c, expires="2026-09-10T00:00:00Z" if k == "lunch-place" else None)
              for k, c, b in OTHERS]
    brain.remember_many([{k: v for k, v in it.items() if v is not None} for it in items], message="diary")
    return brain


def _recent(brain, q, **kw):
    return recall(brain.index, brain.usage, q, recent=True, now=NOW, **kw)


def test_newest_first_among_the_word_matches_with_falling_scores(diary):
    hits = _recent(diary, "latest deploy notes", k=5)
    assert [h.record.key for h in hits] == ["deploy-rollback", "deploy-window", "deploy-freeze"]
    assert [h.score for h in hits] == [1.0, 0.5, pytest.approx(1 / 3)]
    assert all(h.explain is None for h in hits)


def test_the_explanation_says_recency_rank_stages_date_and_path(diary):
    hits = _recent(diary, "latest deploy notes", k=2, explain=True)
    first, second = (h.explain for h in hits)
    assert first["mode"] == "recency" and (first["rank"], second["rank"]) == (1, 2)
    assert first["created"] == "2026-07-20T09:00:00Z" and first["path"] == hits[0].path
    assert first["bm25"]["rank"] >= 1 and first["bm25"]["score"] > 0
    assert first["vector"] is not None and -1 <= first["vector"]["score"] <= 1


def test_touch_counts_each_hit_once_as_recalled_at_that_time(diary):
    hits = _recent(diary, "latest deploy notes", k=2, touch=True)
    paths = [h.path for h in hits]
    use = diary.usage.get(paths + ["memories/me/lunch-place.json"])
    assert use == {p: (1, NOW) for p in paths}
    reasons = diary.usage._c().execute("SELECT path, why, n FROM reasons ORDER BY path").fetchall()
    assert reasons == sorted((p, "recalled", 1) for p in paths)


def test_without_touch_nothing_is_counted(diary):
    hits = _recent(diary, "latest deploy notes", k=2)
    assert diary.usage.get([h.path for h in hits]) == {}


def test_a_word_nothing_contains_falls_back_to_the_five_closest_in_meaning(diary):
    q = "latest quokka"  # a word no record has; nothing is close in meaning either
    plain = recall(diary.index, diary.usage, q, k=9, explain=True, now=NOW)
    assert all(h.explain["vector"]["score"] < RECENT_MIN_SIMILARITY for h in plain if h.explain["vector"])
    closest = {h.path for h in plain if h.explain["vector"] and h.explain["vector"]["rank"] <= 5}
    hits = _recent(diary, q, k=9)
    assert {h.path for h in hits} == closest and len(hits) == 5
    created = [h.record.created for h in hits]
    assert created == sorted(created, reverse=True)


def test_a_question_without_content_words_lists_everything_newest_first(diary):
    hits = _recent(diary, "", k=4)
    assert [h.record.key for h in hits] == ["lunch-place", "piano-lessons", "garden-bulbs", "deploy-rollback"]
    assert all(h.confidence == "strong" for h in hits)


def test_recency_hits_say_when_they_expired(diary):
    hits = _recent(diary, "latest lunch place", k=3)
    lunch = [h for h in hits if h.record.key == "lunch-place"]
    assert lunch and lunch[0].stale  # expired on 2026-09-10, before NOW
    assert all(not h.stale for h in hits if h.record.key != "lunch-place")


def test_recency_confidence_follows_the_words_of_the_question(diary):
    hits = _recent(diary, "latest deploy rollback", k=3)
    assert hits[0].record.key == "deploy-rollback"
    assert hits[0].evidence.matched == ("deploy", "rollback") and hits[0].confidence == "strong"
    # the records about deploys but not rollbacks are below the topic's relevance floor (brain_core.recall.recency)
    assert [h.record.key for h in hits] == ["deploy-rollback"]


def test_a_record_close_in_meaning_joins_the_word_matches_newest_first(diary):
    diary.remember("Shipping new builds to the live servers is done by the release manager.", key="shipping",
                   created="2026-09-05T09:00:00Z")
    plain = recall(diary.index, diary.usage, "latest deploys", k=9, explain=True, now=NOW)
    shipping = [h for h in plain if h.record.key == "shipping"][0].explain
    assert shipping["bm25"] is None and shipping["vector"]["score"] >= RECENT_MIN_SIMILARITY  # the premise
    hits = _recent(diary, "latest deploys", k=5)
    assert [h.record.key for h in hits] == ["shipping", "deploy-rollback", "deploy-window", "deploy-freeze"]
