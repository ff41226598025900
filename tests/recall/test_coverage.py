"""Coverage of the asked fact: a record on the topic that lacks what the question asks (the role,
the attribute, the project) is only "the closest", and the answer says what is missing. A real
brain in tmp_path, the offline answer."""

from __future__ import annotations

import pytest

from brain_core.answer.ask import ask
from brain_core.recall.coverage import missing, pairs, tokens

RECORDS = [
    dict(body="Siobhan is the QA lead for the mobile app; she signs off every release build.", key="mobile-qa-lead",
         tags=["mobile-app"]),
    dict(body="Tomasz is the tech lead for the docs editor and reviews its architecture changes.",
         key="docs-editor-tech-lead", tags=["docs-editor"]),
    dict(body="The docs editor is built on ProseMirror with collaborative editing over websockets.",
         key="docs-editor-stack", type="decision", tags=["docs-editor"]),
    dict(body="The public API allows 600 requests per minute per token; above that it answers HTTP 429.",
         key="public-api-rate-limit", type="instruction"),
    dict(body="The internal API authenticates services with mutual TLS, never with tokens.", key="internal-api-auth",
         type="decision"),
    dict(body="The search cluster runs OpenSearch version 2.11 since the spring upgrade.", key="search-cluster-version"),
    dict(body="The billing database cluster has five nodes spread over two availability zones.", key="billing-db-cluster"),
    dict(body="The mobile app supports iOS 16 and newer; iOS 15 was dropped in March.", key="mobile-min-ios"),
]


@pytest.fixture
def projects(brain):
    brain.remember_many([dict(r) for r in RECORDS], message="test records")
    brain.config.set("ask.cache", False)
    return brain


def _key(brain, answer) -> str | None:
    keys = {rec.id: rec.key for _, rec in brain.records()}
    return keys.get(answer.cited[0]) if answer.cited else None


@pytest.mark.parametrize("question, near, lacking", [
    ("who is the QA lead for the docs editor?", None, "QA lead"),
    ("who is the tech lead for the mobile app?", None, "tech lead"),
    ("what's the rate limit of the internal API?", "public-api-rate-limit", "internal API"),
    ("how many nodes does the search cluster have?", "search-cluster-version", "nodes"),
])
def test_a_near_miss_is_not_strong_and_says_what_is_missing(projects, question, near, lacking):
    a = ask(projects, question, llm=None)
    assert a.confidence != "strong", a.text
    if near:
        assert _key(projects, a) == near
    assert "nothing about" in a.text and lacking.lower() in a.text.split("nothing about")[-1].lower(), a.text
    assert "I know about" in a.text


@pytest.mark.parametrize("question, key", [
    ("who is the QA lead for the mobile app?", "mobile-qa-lead"),
    ("who is the tech lead for the docs editor?", "docs-editor-tech-lead"),
    ("what's the rate limit of the public API?", "public-api-rate-limit"),
    ("how many nodes does the billing database cluster have?", "billing-db-cluster"),
    ("what's the minimum iOS version for the mobile app?", "mobile-min-ios"),  # "16" holds a version
])
def test_the_same_questions_with_the_fact_recorded_stay_strong(projects, question, key):
    a = ask(projects, question, llm=None)
    assert a.confidence == "strong", a.text
    assert _key(projects, a) == key


def test_a_lowercase_name_is_matched_against_the_brains_own_spelling(projects):
    """"siobhan" is a name because the brain writes Siobhan; a record without her is not the answer."""
    from brain_core.recall.coverage import Vocabulary

    vocab = Vocabulary(projects.index.conn())
    assert vocab.name("siobhan") and vocab.name("opensearch")
    assert not vocab.name("cluster")  # written lowercase by the brain
    assert vocab.phrase("docs", "editor") and not vocab.phrase("search", "editor")
    lacks = missing("which release does siobhan sign off for the docs editor", lambda w: w in {"release", "docs", "editor"},
                    "The docs editor release notes.", vocab)
    assert "siobhan" in [x.lower() for x in lacks]


def test_the_evidence_names_what_is_missing(projects):
    hits = projects.recall("who is the QA lead for the docs editor?", k=3)
    qa = next(h for h in hits if h.record.key == "mobile-qa-lead")
    assert qa.confidence == "weak"
    assert "docs editor" in qa.evidence.missing
    assert qa.evidence.to_json()["missing"] == list(qa.evidence.missing)


def test_tokens_and_pairs_keep_adjacency():
    toks = tokens("what's the rate limit of the internal API's gateway?")
    assert [t.word for t in toks] == ["rate", "limit", "internal", "api", "gateway"]
    assert [(a.word, b.word) for a, b in pairs(toks)] == [("rate", "limit"), ("internal", "api"), ("api", "gateway")]


def test_explain_shows_what_is_missing(projects):
    hits = projects.recall("what's the rate limit of the internal API?", k=3, explain=True)
    public = next(h for h in hits if h.record.key == "public-api-rate-limit")
    assert public.explain["missing"] == ["internal API"]


def test_the_answer_names_the_asked_fact_as_a_noun_phrase():
    from brain_core.recall.confidence import Evidence
    from brain_core.recall.coverage import near_miss_text

    class H:
        evidence = Evidence(("qa", "lead", "docs", "editor"), ("qa", "lead"), 0.5, 0.6, True, ("docs editor",))

    text = near_miss_text("who is the QA lead for the docs editor?", H(), "LINE")
    assert text == ("I know about QA lead, but not docs editor: nothing about QA lead for the docs editor in your "
                    "brain. The closest I have is: LINE")

    class N:
        evidence = Evidence(("many", "nodes", "search", "cluster"), ("search", "cluster"), 0.5, 0.6, True, ("nodes",))

    text = near_miss_text("how many nodes does the search cluster have?", N(), "LINE")
    assert text.startswith("I know about search cluster, but nothing about nodes in your brain.")


def test_the_llm_prompt_says_what_the_closest_record_lacks(projects):
    from brain_core.answer.ask import build_prompt

    hits = projects.recall("what's the rate limit of the internal API?", k=3)
    public = next(h for h in hits if h.record.key == "public-api-rate-limit")
    _, user = build_prompt("what's the rate limit of the internal API?", [], closest=[public])
    assert "it says nothing about internal API" in user and "public-api-rate-limit" in user
