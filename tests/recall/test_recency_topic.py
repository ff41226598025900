"""Recency within the topic: "the newest release of the mobile app" is the newest record about
releases of the mobile app, not the newest record in the brain that shares a word with it; a
question with no topic words stays newest-first; the offline answer names the date. A real brain
in tmp_path."""

from __future__ import annotations

import pytest

from brain_core.answer.ask import ask
from brain_core.recall.recency import pool, topic, topic_words

RECORDS = [
    ("mobile-release-3-2", "2026-04-01", "Released version 3.2 of the mobile app with offline mode."),
    ("mobile-release-3-3", "2026-05-06", "Released version 3.3 of the mobile app with the new onboarding."),
    ("mobile-release-3-4", "2026-06-10", "Released version 3.4 of the mobile app with dark mode."),
    ("docs-editor-release-1-9", "2026-06-02", "Released version 1.9 of the docs editor with tables."),
    ("deploy-freeze", "2026-06-25", "Deploy freeze from July 1 to July 5 for the quarter-end close."),
    ("release-checklist", "2026-06-27", "Every release needs a changelog entry and a tagged commit."),
    ("mobile-feature-freeze", "2026-06-28", "No new features in the mobile app until the accessibility audit is done."),
]


@pytest.fixture
def releases(brain):
    brain.remember_many([dict(body=b, key=k, created=f"{c}T09:00:00Z") for k, c, b in RECORDS], message="releases")
    brain.config.set("ask.cache", False)
    return brain


def test_the_topic_leaves_out_the_words_that_ask_for_recency():
    assert topic("what's the newest release of the mobile app?") == "what s the release of the mobile app"
    assert topic_words("what's the newest release of the mobile app?") == ["release", "mobile", "app"]
    assert topic_words("what did I save last?") == [] and topic_words("my most recent notes") == []


def test_the_newest_record_about_the_topic_not_the_newest_sharing_a_word(releases):
    hits = releases.recall("what's the newest release of the mobile app?", recent=True, k=3)
    assert [h.record.key for h in hits] == ["mobile-release-3-4", "mobile-release-3-3", "mobile-release-3-2"]
    assert all(h.confidence == "strong" for h in hits)


def test_the_answer_names_the_date_of_the_newest(releases):
    a = ask(releases, "what's the newest release of the mobile app?", llm=None)
    assert a.route.mode == "recency" and a.confidence == "strong"
    assert a.text.startswith("The newest in your brain is from 2026-06-10:")
    assert "3.4" in a.text.splitlines()[1]


def test_a_question_without_topic_words_stays_newest_first(releases):
    hits = releases.recall("what did I save last?", recent=True, k=2)
    assert [h.record.key for h in hits] == ["mobile-feature-freeze", "release-checklist"]
    a = ask(releases, "what did I save last?", llm=None)
    assert a.confidence == "strong" and "2026-06-28" in a.text.splitlines()[0]


def test_a_paraphrase_joins_when_as_close_in_meaning_as_the_word_matches(releases):
    conn = releases.index.conn()
    row = {k: r for r, k in conn.execute("SELECT rowid, key FROM docs")}
    has, close, far = row["mobile-release-3-4"], row["deploy-freeze"], row["mobile-feature-freeze"]
    stages = {has: {"bm25": (1, 3.0), "vector": (2, 0.5)}, close: {"vector": (1, 0.6)}, far: {"vector": (3, 0.45)}}
    got = set(pool(conn, stages, ["release"], 0.4))
    assert got == {has, close}  # 0.6 >= 0.5, the word match's cosine; 0.45 is not


def test_the_llm_prompt_lists_a_recency_questions_records_newest_first(releases):
    from brain_core.answer.ask import build_prompt

    hits = releases.recall("what's the newest release of the mobile app?", recent=True, k=3)
    _, user = build_prompt("what's the newest release of the mobile app?", hits, newest=True)
    assert user.startswith("Records, newest first")
    assert user.index("mobile-release-3-4") < user.index("mobile-release-3-3")
