"""`aida brain review`: the records the offline distiller wrote, newest first, each confirmed (no longer
unchecked), forgotten (to archive/) or skipped, in a terminal; listed with the commands without one."""

from __future__ import annotations

import io
import json

import pytest

from brain_core.cli import main
from brain_core.marks import OFFLINE_TAG


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


@pytest.fixture
def offline(brain):
    brain.remember_many([
        {"body": "The ledger API rate-limits bursts above 50 requests a second.", "key": "ledger-rate-limit",
         "profile": "claude", "type": "fact", "tags": ["project:billing", OFFLINE_TAG], "confidence": 0.5,
         "created": "2026-08-20T10:00:00Z"},
        {"body": "We will move the office printers to the third floor.", "key": "printer-move",
         "profile": "claude", "type": "decision", "tags": [OFFLINE_TAG], "confidence": 0.5,
         "created": "2026-08-21T10:00:00Z"},
        {"body": "Staging is restored from the nightly snapshot at 02:00 UTC.", "key": "staging-restore",
         "profile": "codex", "type": "fact", "tags": [OFFLINE_TAG], "confidence": 0.5,
         "created": "2026-08-22T10:00:00Z"},
    ])
    brain.remember("Never force-push to main.", type="instruction", key="no-force-push", profile="me")
    return brain


def test_review_confirms_forgets_and_skips_newest_first(offline, capsys, monkeypatch):
    monkeypatch.setattr("sys.stdin", _Terminal("s\nf\nc\n"))
    assert main(["--brain", str(offline.root), "brain", "review"]) == 0
    out = capsys.readouterr().out
    assert out.index("staging-restore") < out.index("printer-move") < out.index("ledger-rate-limit")
    assert "no-force-push" not in out  # a person's own record is not up for review
    assert "Confirmed 1, forgot 1; 1 still unchecked." in out
    ledger = json.loads((offline.root / "memories/claude/ledger-rate-limit.json").read_text())
    assert OFFLINE_TAG not in ledger["tags"] and ledger["confidence"] == 1
    assert not (offline.root / "memories/claude/printer-move.json").exists()
    gone = [json.loads(f.read_text()) for f in (offline.root / "archive").rglob("printer-move*.json")]
    assert gone and gone[0]["forgotten"]["by"] == "review"
    staging = json.loads((offline.root / "memories/codex/staging-restore.json").read_text())
    assert OFFLINE_TAG in staging["tags"]  # skipped: still unchecked

    monkeypatch.setattr("sys.stdin", _Terminal("q\n"))
    assert main(["--brain", str(offline.root), "brain", "review"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("1 record read offline") and "0 still" not in out


def test_review_without_a_terminal_lists_them_with_the_commands(offline, capsys, monkeypatch):
    monkeypatch.setattr("sys.stdin", io.StringIO(""))
    assert main(["--brain", str(offline.root), "brain", "review", "--limit", "2"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("3 records read offline, not yet checked; the newest 2:")
    assert "staging-restore" in out and "printer-move" in out and "ledger-rate-limit" not in out
    assert "aida brain confirm KEY" in out and "aida brain forget KEY" in out
    assert all(OFFLINE_TAG in json.loads(f.read_text())["tags"]
               for f in (offline.root / "memories").rglob("*.json") if "no-force-push" not in f.name)

    assert main(["--brain", str(offline.root), "brain", "review", "--json"]) == 0
    listed = json.loads(capsys.readouterr().out)
    assert [r["key"] for r in listed] == ["staging-restore", "printer-move", "ledger-rate-limit"]
    assert listed[0]["path"] == "memories/codex/staging-restore.json" and "02:00 UTC" in listed[0]["body"]


def test_nothing_to_review(brain, capsys):
    assert main(["--brain", str(brain.root), "brain", "review"]) == 0
    assert "Nothing to review" in capsys.readouterr().out
