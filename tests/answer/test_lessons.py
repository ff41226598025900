"""Feedback becomes a lesson, and lessons change what later, similar questions get."""

from __future__ import annotations

import json

import pytest

from brain_core.answer import lessons
from brain_core.answer.ask import ask
from brain_core.answer.lessons import record_feedback, similar_lessons
from brain_core.errors import InvalidInput
from tests.helpers.fake_llm_server import FakeLLMServer
from tests.helpers.keyring_memory import memory_keyring  # noqa: F401  (fixture)

Q = "what did I say about the webhook retry limit?"
SIMILAR = "remind me what the webhook retry limit is"
OTHER = "what did I say about the job queue"


@pytest.fixture
def retries(brain):
    brain.remember("The old webhook retry limit was ten attempts, before the incident review.", key="old-webhook-retries")
    brain.remember("Webhook delivery retries with exponential backoff, capped at six attempts.", key="webhook-retry-policy")
    brain.remember("We chose SQS for the job queue because it needs no operations work.", key="queue-choice", type="decision")
    return brain


def keys(answer):
    return [h.record.key for h in answer.hits]


def test_thumbs_down_lowers_the_record_for_similar_questions_only(retries):
    before = ask(retries, Q, llm=None)
    assert keys(before)[:2] == ["old-webhook-retries", "webhook-retry-policy"]
    assert keys(ask(retries, SIMILAR, llm=None))[0] == "old-webhook-retries"
    other_before = keys(ask(retries, OTHER, llm=None))

    lesson = record_feedback(retries, before.run_id, "down", why="Ten was the old limit; the current cap is six.")

    # the lesson is a committed file, with the question (its embedding) in the index
    rel = f"lessons/{lesson.id}.json"
    data = json.loads((retries.root / rel).read_text())
    assert data["type"] == "lesson" and data["body"] == Q and data["verdict"] == "down"
    assert [r["key"] for r in data["records"]] == ["old-webhook-retries"]
    assert rel in retries.git.run("log", "-1", "--name-only", "--format=").stdout
    found = retries.recall(SIMILAR, shelves=("lessons",), explain=True)
    assert found[0].path == rel and found[0].explain["vector"]["score"] > 0.8

    after = ask(retries, SIMILAR, llm=None)
    assert keys(after)[0] == "webhook-retry-policy" and "old-webhook-retries" not in keys(after)
    assert "Left out, as you marked it not helpful for this question: old-webhook-retries" in after.text
    assert after.run["lessons"][0]["id"] == lesson.id
    lowered = [h for h in retries.recall(SIMILAR, k=5) if h.record.key == "old-webhook-retries"][0]
    assert lessons.rerank([lowered], similar_lessons(retries, SIMILAR))[0].explain["lessons"][0]["factor"] < 0.6
    assert "Earlier feedback on a similar question: Ten was the old limit" in after.text

    unrelated = ask(retries, OTHER, llm=None)
    assert keys(unrelated) == other_before and unrelated.run["lessons"] == []
    assert "Earlier feedback" not in unrelated.text


def test_thumbs_up_on_a_named_record_raises_it(retries):
    run = ask(retries, Q, llm=None)
    rec = record_feedback(retries, run.run_id, "up", records=["webhook-retry-policy"])
    assert [r["key"] for r in rec.extra["records"]] == ["webhook-retry-policy"]
    assert keys(ask(retries, SIMILAR, llm=None))[0] == "webhook-retry-policy"


def test_the_why_text_reaches_the_llm_on_similar_questions(retries, memory_keyring):
    run = ask(retries, Q, llm=None)
    record_feedback(retries, run.run_id, "down", why="Ten was the old limit; the current cap is six.")
    with FakeLLMServer() as server:
        retries.config.set("llm.provider", "openai-compatible")
        retries.config.set("llm.base_url", server.url + "/v1")
        retries.config.set("llm.retries", 0)
        ask(retries, SIMILAR)
        ask(retries, OTHER)
        similar_system = server.posts()[0]["body"]["messages"][0]["content"]
        other_system = server.posts()[1]["body"]["messages"][0]["content"]
    assert "Corrections the user gave" in similar_system and "the current cap is six" in similar_system
    assert "Corrections" not in other_system


def test_feedback_twice_on_one_run_counts_once(retries):
    run = ask(retries, Q, llm=None)
    record_feedback(retries, run.run_id, "down", why="first thought")
    record_feedback(retries, run.run_id, "up", why="second thought")
    found = similar_lessons(retries, SIMILAR)
    assert [(les.verdict, les.why) for les in found] == [("up", "second thought")]
    assert "(an earlier answer was right) second thought" in ask(retries, SIMILAR, llm=None).text


def test_feedback_refusals(retries):
    run = ask(retries, Q, llm=None)
    with pytest.raises(InvalidInput):
        record_feedback(retries, run.run_id, "sideways")
    with pytest.raises(InvalidInput) as e:
        record_feedback(retries, run.run_id, "down", records=["queue-choice-nope"])
    assert "old-webhook-retries" in str(e.value)
    with pytest.raises(InvalidInput):
        record_feedback(retries, "20990101-000000000-abcdef", "down")
    assert not list((retries.root / "lessons").glob("*.json"))


def test_run_id_by_prefix_and_last(retries):
    run = ask(retries, Q, llm=None)
    assert record_feedback(retries, "last", "up").extra["run_id"] == run.run_id
    assert record_feedback(retries, run.run_id[:18], "up").extra["run_id"] == run.run_id


def test_similarity_threshold_is_a_setting(retries):
    run = ask(retries, Q, llm=None)
    record_feedback(retries, run.run_id, "down")
    assert similar_lessons(retries, SIMILAR)
    retries.config.set("ask.lesson_similarity", 0.99)
    assert similar_lessons(retries, SIMILAR) == []


def _count_embeds(brain, monkeypatch) -> list[int]:
    calls: list[int] = []
    inner = brain.embedder.embed
    monkeypatch.setattr(brain.embedder, "embed", lambda texts: calls.append(len(texts)) or inner(texts))
    return calls


def test_with_lessons_a_question_is_embedded_once(retries, monkeypatch):
    """With lessons, the question needs a vector for the lesson lookup and one for recall: the same
    one, since ``Brain.recall`` takes ``query_vector``."""
    record_feedback(retries, ask(retries, Q, llm=None).run_id, "down")
    calls = _count_embeds(retries, monkeypatch)
    after = ask(retries, SIMILAR, llm=None)
    assert after.run["lessons"] and keys(after)[0] == "webhook-retry-policy"
    assert calls == [1]


def test_a_recall_without_query_vector_embeds_the_question_again(retries, monkeypatch):
    """A brain whose ``recall`` cannot take a vector (an older or wrapped one) still gets the lesson's
    reranking; the question is then embedded once for the lessons and once by its recall."""
    from brain_core import Brain

    record_feedback(retries, ask(retries, Q, llm=None).run_id, "down")
    def recall(query, k=5, profile=None, type=None, tag=None, recent=False, explain=False, shelves=None,
               touch=True, catch_up=True):
        return Brain.recall(retries, query, k=k, profile=profile, type=type, tag=tag, recent=recent,
                            explain=explain, shelves=shelves, touch=touch, catch_up=catch_up)

    monkeypatch.setattr(retries, "recall", recall)
    calls = _count_embeds(retries, monkeypatch)
    after = ask(retries, SIMILAR, llm=None)
    assert after.run["lessons"] and keys(after)[0] == "webhook-retry-policy"
    assert calls == [1, 1]
