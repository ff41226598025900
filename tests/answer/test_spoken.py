"""Spoken questions written as the brain writes them: spelled-out letters, spoken forms and the
brain's own words by sound, through ``ask`` (where push-to-talk questions go) and harmless on
typed questions. A real brain in tmp_path."""

from __future__ import annotations

import pytest

from brain_core.answer.ask import ask
from brain_core.answer.spoken import normalise, rewrite, sound

RECORDS = [
    dict(body="For the infra the RPO is 15 minutes and the RTO is 4 hours.", key="infra-rpo-rto"),
    dict(body="Always pass --context to kubectl; the default context points at production.", key="kubectl-context"),
    dict(body="We decided the main database stays on Postgres 16; no move to a document store.", key="database-choice"),
    dict(body="iOS builds are signed with the team certificate kept in the CI keychain.", key="ios-signing"),
    dict(body="The web frontends use pnpm workspaces; npm and yarn lockfiles are rejected in CI.", key="package-manager"),
    dict(body="The workers run on Kubernetes in two regions.", key="workers"),
]


@pytest.fixture
def infra(brain):
    brain.remember_many([dict(r) for r in RECORDS], message="test records")
    brain.config.set("ask.cache", False)
    return brain


@pytest.mark.parametrize("heard, written", [
    ("what are the r p o and r t o for the infra", "what are the RPO and RTO for the infra"),
    ("do we use p n p m", "do we use pnpm"),
    ("how are I-O-S builds signed", "how are iOS builds signed"),
    ("what should I pass to cube control", "what should I pass to kubectl"),
    ("which post gress version", "which Postgres version"),
    ("what did we decide about the NATO base", "what did we decide about the database"),
])
def test_letters_and_spoken_forms_without_a_brain(heard, written):
    assert normalise(heard) == written


@pytest.mark.parametrize("typed", [
    "what did I say about the a b test",       # two letters with an "a": left alone
    "how do I reverse a list in python",
    "what is the staging server's IP address?",
    "who is Siobhan's manager",
])
def test_typed_questions_are_left_alone(infra, typed):
    assert normalise(typed, infra.index.conn()) == typed


def test_the_brains_own_word_by_sound(infra):
    out, changes = rewrite("where do the workers run, kubernetees or ecs", infra.index.conn())
    assert "Kubernetes" in out and [c.why for c in changes] == ["sound"]
    assert sound("postgress") == sound("Postgres") and sound("watch") != sound("webhook")


def test_a_spoken_form_the_brain_writes_itself_is_kept(brain):
    brain.remember("The NATO base visit is on Friday.", key="visit")
    assert normalise("when is the NATO base visit", brain.index.conn()) == "when is the NATO base visit"


@pytest.mark.parametrize("heard, key", [
    ("what are the r p o and r t o for the infra", "infra-rpo-rto"),
    ("what should I always pass to cube control", "kubectl-context"),
    ("what did we decide about the NATO base", "database-choice"),
    ("how are i o s builds signed", "ios-signing"),
])
def test_a_spoken_question_is_answered_like_the_written_one(infra, heard, key):
    a = ask(infra, heard, llm=None)
    keys = {rec.id: rec.key for _, rec in infra.records()}
    assert a.confidence == "strong" and keys[a.cited[0]] == key, a.text
    assert a.run["asked"] == heard and a.run["question"] != heard
