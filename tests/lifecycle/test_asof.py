"""Recall as of a date, from the brain's git history (commits dated through git's own env)."""

from __future__ import annotations

import json

import pytest

from brain_core import Brain
from brain_core.cli import main
from brain_core.errors import BrainError, InvalidInput
from brain_core.lifecycle.asof import parse_as_of, recall_at
from tests.helpers.counting import CountingEmbedder


def _at(monkeypatch, when):
    monkeypatch.setenv("GIT_COMMITTER_DATE", when)
    monkeypatch.setenv("GIT_AUTHOR_DATE", when)


@pytest.fixture
def history(tmp_path, embedder, monkeypatch):
    _at(monkeypatch, "2026-02-01T09:00:00Z")
    brain = Brain.init(tmp_path / "brain")
    brain._embedder = CountingEmbedder(embedder)
    _at(monkeypatch, "2026-03-10T09:00:00Z")
    brain.remember("Webhook retries are capped at six attempts.", key="retry-cap", created="2026-03-10T09:00:00Z")
    brain.remember("Deploys go out on Tuesdays.", key="deploy-day", created="2026-03-10T09:00:00Z")
    _at(monkeypatch, "2026-05-20T09:00:00Z")
    brain.remember("Webhook retries are capped at eight attempts.", key="retry-cap", created="2026-05-20T09:00:00Z")
    brain.remember("Billing moved to Stripe in May.", key="billing-provider", created="2026-05-20T09:00:00Z")
    monkeypatch.delenv("GIT_COMMITTER_DATE")
    monkeypatch.delenv("GIT_AUTHOR_DATE")
    yield brain
    brain.close()


def test_recall_as_of_answers_from_the_past(history):
    then = recall_at(history, "2026-04-01", "webhook retry cap", k=1, explain=True)
    assert then[0].record.body == "Webhook retries are capped at six attempts."
    assert then[0].explain["as_of"] == "2026-04-01T23:59:59Z" and len(then[0].explain["commit"]) == 40
    later = recall_at(history, "2026-06-01", "webhook retry cap", k=1)
    assert later[0].record.body == "Webhook retries are capped at eight attempts."
    assert history.recall("webhook retry cap", k=1)[0].record.body == "Webhook retries are capped at eight attempts."
    # what did not exist yet is not found
    assert all(h.record.key != "billing-provider" for h in recall_at(history, "2026-04-01", "billing Stripe", k=5))
    assert any(h.record.key == "billing-provider" for h in recall_at(history, "2026-06-01", "billing Stripe", k=5))
    # the same day on the date's own commit counts (end of day)
    assert recall_at(history, "2026-03-10", "deploy day", k=1)[0].record.key == "deploy-day"


def test_vectors_are_reused_and_snapshots_cached(history):
    emb = history._embedder
    emb.texts.clear()
    recall_at(history, "2026-04-01", "webhook retry cap", k=1)
    # only the text that changed since (the old retry cap) and the query were embedded
    assert sorted(emb.texts) == sorted(["retry cap: Webhook retries are capped at six attempts.",
                                        "webhook retry cap"])
    emb.texts.clear()
    recall_at(history, "2026-04-01", "deploys", k=1)
    assert emb.texts == ["deploys"]  # the snapshot was built once
    snaps = list((history.root / ".aida" / "asof").iterdir())
    assert len([s for s in snaps if s.is_dir() and not s.name.startswith(".")]) == 1
    # snapshots live in .aida/: ignored by git, never on a shelf
    assert history.git.uncommitted(["."]) == []


def test_before_history_and_bad_dates(history):
    with pytest.raises(BrainError, match="no history at or before"):
        recall_at(history, "2025-12-31", "anything")
    with pytest.raises(InvalidInput):
        recall_at(history, "last tuesday", "anything")
    assert parse_as_of("2026-09-01T10:00:00+02:00").isoformat() == "2026-09-01T10:00:00+02:00"


def test_cli_recall_as_of(history, monkeypatch, capsys):
    monkeypatch.setenv("AIDA_BRAIN", str(history.root))
    assert main(["brain", "recall", "--as-of", "2026-04-01", "--json", "-k", "1", "webhook", "retry", "cap"]) == 0
    (hit,) = json.loads(capsys.readouterr().out)
    assert hit["body"] == "Webhook retries are capped at six attempts." and hit["key"] == "retry-cap"
    assert main(["brain", "recall", "--as-of", "someday", "x"]) == 2
