"""``aida brain audit``: which INDEX.md and shelf entries and knowledge pages agent sessions used."""

from __future__ import annotations

import json

import pytest

from brain_core.cli import main
from brain_core.lifecycle.audit import audit


@pytest.fixture
def homes(tmp_path, monkeypatch):
    claude, codex, gemini = tmp_path / ".claude", tmp_path / ".codex", tmp_path / "ghome"
    (claude / "projects" / "-home-dev-acme").mkdir(parents=True)
    (codex / "sessions" / "2026" / "08" / "20").mkdir(parents=True)
    gemini.mkdir()
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(claude))
    monkeypatch.setenv("CODEX_HOME", str(codex))
    monkeypatch.setenv("GEMINI_CLI_HOME", str(gemini))
    a = claude / "projects" / "-home-dev-acme" / "0b7e0a52-session.jsonl"
    a.write_text(json.dumps({"type": "user", "message": {"content": "check never-force-push first, and read "
                                                                    "knowledge/deploy-runbook.md"}}) + "\n")
    b = codex / "sessions" / "2026" / "08" / "20" / "rollout-2026-08-20T16-02-11-5f1c.jsonl"
    b.write_text(json.dumps({"type": "response_item", "payload": {"text": "opened memories/me/never-force-push.json; "
                                                                           "old-staging-host-2 is another thing"}}) + "\n")
    return tmp_path


@pytest.fixture
def seeded(brain):
    brain.remember("Never force-push to main.", type="instruction", key="never-force-push")
    brain.remember("The old staging host was stage-7.", key="old-staging-host", created="2024-01-15T09:00:00Z")
    brain.write_text("knowledge/deploy-runbook.md", "# Deploy runbook\n\nRun ops/deploy.sh from a clean tree.\n",
                     "page")
    return brain


def test_audit_counts_sessions_per_entry_and_lists_the_never_used(seeded, homes):
    result = audit(seeded)
    assert result.sessions == 2
    by = {r.path: r for r in result.rows}
    assert by["memories/me/never-force-push.json"].sessions == 2
    assert by["memories/me/never-force-push.json"].where == "INDEX.md"
    assert by["knowledge/deploy-runbook.md"].sessions == 1
    assert by["memories/me/old-staging-host.json"].sessions == 0  # "old-staging-host-2" is another key
    assert [r.path for r in result.never_used] == ["memories/me/old-staging-host.json"]
    assert result.rows[0].path == "memories/me/never-force-push.json"  # most used first


def test_audit_sees_shelf_entries(seeded, homes):
    seeded.config.set("tier_index.budget_chars", 200)  # nothing fits INDEX.md
    assert {r.where for r in audit(seeded).rows} == {"shelf"}


def test_audit_cli_table_and_json(seeded, homes, capsys):
    root = str(seeded.root)
    assert main(["--brain", root, "brain", "audit"]) == 0
    out = capsys.readouterr().out
    assert "Usage in 2 agent session(s)" in out and "Never used (1):" in out
    assert out.rstrip().endswith("memories/me/old-staging-host.json")
    assert main(["--brain", root, "brain", "audit", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["sessions"] == 2 and data["never_used"] == ["memories/me/old-staging-host.json"]
    assert {e["path"]: e["sessions"] for e in data["entries"]}["knowledge/deploy-runbook.md"] == 1


def test_audit_without_any_sessions_says_every_entry_is_unused(seeded, tmp_path, monkeypatch):
    for var in ("CLAUDE_CONFIG_DIR", "CODEX_HOME", "GEMINI_CLI_HOME"):
        monkeypatch.setenv(var, str(tmp_path / "nothing"))
    result = audit(seeded)
    assert result.sessions == 0 and len(result.never_used) == len(result.rows) == 3
