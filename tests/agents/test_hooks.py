"""Hook install into a temp HOME (idempotent, backed up, dry-run diff) and the hook at run time."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time

import pytest

from brain_core.agents.hooks import MARK, apply, hook_plan, mcp_registration, plan_install
from brain_core.cli import main
from brain_core.errors import BrainError
from tests.helpers.harvest_homes import FIXTURES, make_homes, session_files
from tests.helpers.paths import REPO


def _ours(groups):
    return [h for g in groups for h in g["hooks"] if MARK in h.get("command", "")]


def test_claude_install_keeps_existing_hooks_backs_up_and_is_idempotent(home):
    settings = home / ".claude" / "settings.json"
    settings.parent.mkdir()
    shutil.copy(FIXTURES / "claude_settings_hooks.json", settings)
    original = settings.read_text()

    plan = plan_install("claude")
    assert plan.changed and "+" in plan.diff() and "--hook claude" in plan.diff()
    backup = apply(plan)
    assert backup is not None and backup.read_text() == original
    data = json.loads(settings.read_text())
    for event in ("Stop", "SessionEnd"):
        ours = _ours(data["hooks"][event])
        assert len(ours) == 1 and ours[0]["type"] == "command" and ours[0]["timeout"] == 30
        assert ours[0]["command"].endswith("-m brain_core brain harvest --hook claude")
    theirs = json.loads(original)["hooks"]["SessionStart"]
    assert data["hooks"]["SessionStart"][:len(theirs)] == theirs  # the user's own SessionStart hooks kept
    start = [h for g in data["hooks"]["SessionStart"] for h in g["hooks"] if "brain_core.agents.session_start" in h["command"]]
    assert len(start) == 1 and start[0]["command"].endswith("-m brain_core.agents.session_start --hook claude")
    assert len(data["hooks"]["Stop"]) == 2  # the user's own Stop hook is still there

    again = plan_install("claude")
    assert not again.changed and apply(again) is None
    assert len(list(settings.parent.glob("settings.json.aida-*.bak"))) == 1


def test_claude_install_on_a_fresh_home_and_bad_json(home):
    plan = plan_install("claude")
    assert plan.before is None and apply(plan) is None  # nothing to back up
    assert _ours(json.loads((home / ".claude" / "settings.json").read_text())["hooks"]["Stop"])
    (home / ".claude" / "settings.json").write_text("{ not json")
    with pytest.raises(BrainError, match="not valid JSON"):
        plan_install("claude")
    assert (home / ".claude" / "settings.json").read_text() == "{ not json"


def test_gemini_install(home):
    settings = home / ".gemini" / "settings.json"
    settings.parent.mkdir()
    shutil.copy(FIXTURES / "gemini_settings.json", settings)
    apply(plan_install("gemini"))
    data = json.loads(settings.read_text())
    for event in ("AfterAgent", "SessionEnd"):
        ours = _ours(data["hooks"][event])
        assert len(ours) == 1 and ours[0]["timeout"] == 30000 and ours[0]["name"] == "aida-harvest"
    assert data["mcpServers"]["brain"]["command"] == "python3"  # untouched
    assert not plan_install("gemini").changed


def test_codex_notify_on_a_fresh_config_then_idempotent(home):
    import tomllib

    apply(plan_install("codex"))
    cfg = tomllib.loads((home / ".codex" / "config.toml").read_text())
    assert cfg["notify"][-4:] == ["brain", "harvest", "--hook", "codex"] and cfg["notify"][0] == sys.executable
    assert not plan_install("codex").changed


def test_codex_notify_goes_before_tables_and_updates_in_place(home):
    import tomllib

    cfg = home / ".codex" / "config.toml"
    cfg.parent.mkdir()
    cfg.write_text('model = "gpt-5.5"\n\n[features]\ncodex_hooks = true\n')
    apply(plan_install("codex"))
    parsed = tomllib.loads(cfg.read_text())
    assert parsed["features"] == {"codex_hooks": True} and "notify" in parsed
    text = cfg.read_text().replace(sys.executable, "/old/python")  # a moved interpreter
    cfg.write_text(text)
    plan = plan_install("codex")
    assert plan.changed and "/old/python" in plan.diff()
    apply(plan)
    assert cfg.read_text().count("notify =") == 1 and tomllib.loads(cfg.read_text())["notify"][0] == sys.executable


def test_codex_with_someone_elses_notify_uses_hooks_json(home):
    cfg = home / ".codex" / "config.toml"
    cfg.parent.mkdir()
    shutil.copy(FIXTURES / "codex_config.toml", cfg)
    before = cfg.read_text()
    plan = plan_install("codex")
    assert plan.path == home / ".codex" / "hooks.json" and "codex_hooks = true" in plan.notes[0]
    apply(plan)
    assert cfg.read_text() == before
    data = json.loads((home / ".codex" / "hooks.json").read_text())
    assert len(_ours(data["hooks"]["Stop"])) == 1


def test_cli_install_dry_run_and_registration(home, capsys):
    assert main(["hooks", "install", "gemini", "--dry-run"]) == 0
    out = capsys.readouterr().out
    assert "--hook gemini" in out and "dry run" in out and '"mcpServers"' in out
    assert not (home / ".gemini" / "settings.json").exists()
    assert main(["hooks", "install", "claude"]) == 0
    out = capsys.readouterr().out
    assert "Installed Aida's harvest hook" in out and "claude mcp add --transport stdio --scope user aida --" in out
    assert main(["hooks", "install", "claude"]) == 0
    assert "already installed" in capsys.readouterr().out


def test_mcp_registrations_name_the_server_command():
    assert mcp_registration("claude").endswith("-m brain_core mcp")
    codex = mcp_registration("codex")
    assert "[mcp_servers.aida]" in codex and 'args = ["-m", "brain_core", "mcp"]' in codex
    gemini = json.loads(mcp_registration("gemini").split("\n", 1)[1])
    assert gemini["mcpServers"]["aida"]["args"] == ["-m", "brain_core", "mcp"]
    assert "--brain" in mcp_registration("claude", brain="/tmp/b")


def test_hook_plan(tmp_path):
    transcript = tmp_path / "t.jsonl"
    transcript.write_text("{}\n")
    end = json.loads((FIXTURES / "claude_hook_sessionend_stdin.json").read_text())
    end["transcript_path"] = str(transcript)
    assert hook_plan("claude", json.dumps(end)) == ["brain", "harvest", "--source", "claude", "--file", str(transcript), "--now"]
    stop = (FIXTURES / "claude_hook_stop_stdin.json").read_text()
    assert hook_plan("claude", stop) == ["brain", "harvest", "--source", "claude"]
    assert hook_plan("codex", (FIXTURES / "codex_notify_argv.json").read_text()) == ["brain", "harvest", "--source", "codex"]
    assert hook_plan("gemini", "not json at all") == ["brain", "harvest", "--source", "gemini"]


@pytest.mark.slow
def test_the_hook_returns_at_once_and_harvests_in_the_background(brain, tmp_path):
    roots = make_homes(tmp_path / "agents", memory=False)
    transcript = session_files(roots)["claude"]
    payload = json.loads((FIXTURES / "claude_hook_sessionend_stdin.json").read_text())
    payload["transcript_path"] = str(transcript)
    env = {**os.environ, "AIDA_BRAIN": str(brain.root), "CLAUDE_CONFIG_DIR": str(roots["claude"]),
           "PYTHONPATH": str(REPO)}
    target = brain.root / "memories" / "claude" / "exponential-backoff-capped-six-attempts-total.json"
    # The test holds the brain's write lock while the hook runs: a hook that waited for its harvest
    # could not return (the harvest cannot write), so returning proves the harvest runs on its own.
    with brain.lock():
        proc = subprocess.run([sys.executable, "-m", "brain_core", "brain", "harvest", "--hook", "claude"],
                              input=json.dumps(payload), capture_output=True, text=True, env=env, cwd=REPO,
                              timeout=60)
        assert proc.returncode == 0 and proc.stdout == "", proc.stderr
        assert not target.exists()
    deadline = time.monotonic() + 120
    while not target.exists() and time.monotonic() < deadline:
        time.sleep(0.5)
    log = brain.root / ".aida" / "harvest.log"
    assert target.exists(), log.read_text() if log.exists() else "no log"
    assert json.loads(target.read_text())["source"] == "claude:session:7f3c2a9e-4b1d-4c8e-9a2f-5d6e8b1c0a47"
