"""The kind of answer a question asks for: a time for "when ...", a number for "how many / much /
long / old / often". Recall lifts the records that hold it (``recall.kind_boost``); on a real brain
(git repo, files, SQLite catalog), the vector stage off where exact scores are compared."""

from __future__ import annotations

import pytest

from brain_core import Brain
from brain_core.recall.kinds import NUMBER, TIME, wanted, with_kind


@pytest.mark.parametrize("question, kind", [
    ("When did we move the CI to the new runners?", TIME),
    ("  when is the release", TIME),
    ("What year did the ledger move to Postgres?", TIME),
    ("Which month do the certificates expire?", TIME),
    ("How long ago was the outage?", TIME),
    ("How many retries does the webhook worker make?", NUMBER),
    ("how much memory does the cache take", NUMBER),
    ("How long does the nightly backup run?", NUMBER),
    ("How often is the coffee machine descaled?", NUMBER),
    ("What is the retry policy?", None),
    ("Tell me when the release is", None),   # "when" not asked first: no kind is guessed
    ("Why did the deploy fail?", None),
])
def test_the_kind_a_question_asks_for(question, kind):
    assert wanted(question) is kind


@pytest.mark.parametrize("text", ["We moved it last week.", "Done yesterday.", "Since March the queue drains.",
                                  "Agreed in 2023.", "Standup is at 9am.", "On Friday we ship.",
                                  "Every morning the job runs.", "Two months ago.", "Back in May, it broke."])
def test_a_time_is_named(text):
    assert TIME.search(text)


@pytest.mark.parametrize("text", ["It may fail under load.", "The weekly report is late.", "The timeline slipped.",
                                  "Ask someone on the team."])
def test_no_time_is_named(text):
    assert not TIME.search(text)


def test_numbers_in_digits_and_words_but_not_inside_words():
    for text in ("At most six times.", "3 retries", "It ran twice.", "2.5 GB of cache", "a couple of hours"):
        assert NUMBER.search(text), text
    for text in ("Ask someone.", "The done column.", "Often enough."):
        assert not NUMBER.search(text), text


def test_holders_count_one_and_the_boost_times():
    scores = {1: 1.0, 2: 0.5, 3: 0.2}
    bodies = {1: "The CI is slow.", 2: "We moved the CI last week.", 3: None}
    lifted, holders = with_kind(scores, bodies, TIME, 0.4)
    assert holders == {2} and lifted == {1: 1.0, 2: pytest.approx(0.7), 3: 0.2}
    assert with_kind(scores, bodies, None, 0.4) == (scores, set())
    assert with_kind(scores, bodies, TIME, 0.0) == (scores, set())


@pytest.fixture
def ci(tmp_path, embedder):
    b = Brain.init(tmp_path / "brain", embedder=embedder)
    for key, value in (("vector_weight", 0.0), ("source_weight", 0.0), ("neighbour_weight", 0.0)):
        b.config.set(f"recall.{key}", value)
    b.remember_many([dict(body="The CI runners are slow and the CI queue is long.", key="slow"),
                     dict(body="We moved the CI to the new runners last week.", key="moved")])
    yield b
    b.close()


def test_a_when_question_lifts_the_record_that_names_a_time(ci):
    lifted = {h.record.key: h for h in ci.recall("When did the CI move runners?", k=5, explain=True)}
    assert lifted["moved"].explain["kind"] and not lifted["slow"].explain["kind"]
    ci.config.set("recall.kind_boost", 0.0)
    plain = {h.record.key: h for h in ci.recall("When did the CI move runners?", k=5, explain=True)}
    assert lifted["moved"].score == pytest.approx(1.4 * plain["moved"].score)
    assert lifted["slow"].score == pytest.approx(plain["slow"].score)
    assert not any(h.explain["kind"] for h in plain.values())


def test_a_question_of_no_kind_lifts_nothing(ci):
    hits = ci.recall("What about the CI runners?", k=5, explain=True)
    assert len(hits) == 2 and not any(h.explain["kind"] for h in hits)
