"""First run: `aida setup` on fake homes (all three agents, one, none) and a backfill that survives a kill."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.helpers.agent_homes import home  # noqa: F401  (fixture)
from tests.helpers.harvest_homes import FIXTURES, make_homes
from tests.helpers.paths import REPO

ROOT = REPO


def setup_json(capsys, brain: Path, *args: str) -> dict:
    from brain_core.cli import main

    rc = main(["--brain", str(brain), "setup", "--json", *args])
    out = capsys.readouterr().out
    assert rc == 0, out
    return json.loads(out)


def test_dry_run_on_a_home_with_all_three_agents(home, tmp_path, capsys):
    make_homes(home, mtime=1.7e9)
    got = setup_json(capsys, tmp_path / "brain", "--dry-run")
    agents = {a["tool"]: a for a in got["found"]["agents"]}
    assert all(a["present"] and a["sessions"] == 1 and not a["hook_installed"] for a in agents.values())
    assert agents["claude"]["version"] and agents["codex"]["version"]  # from the newest transcript
    ids = [s["id"] for s in got["steps"]]
    assert ids == ["brain", "hooks-claude", "mcp-claude", "hooks-codex", "mcp-codex", "hooks-gemini", "mcp-gemini",
                   "backfill"]
    hook = next(s for s in got["steps"] if s["id"] == "hooks-claude")
    assert "brain harvest --hook claude" in hook["preview"] and hook["preview"].startswith("---")
    assert got["found"]["pending_sessions"] == 3
    assert not (tmp_path / "brain").exists() and not (home / ".claude" / "settings.json").exists()  # nothing changed


def test_dry_run_with_one_agent_and_with_none(home, tmp_path, capsys):
    roots = make_homes(home, mtime=1.7e9, memory=False)
    shutil.rmtree(roots["codex"]), shutil.rmtree(roots["gemini"])
    got = setup_json(capsys, tmp_path / "brain", "--dry-run")
    assert [a["tool"] for a in got["found"]["agents"] if a["present"]] == ["claude"]
    assert [s["id"] for s in got["steps"]] == ["brain", "hooks-claude", "mcp-claude", "backfill"]
    shutil.rmtree(roots["claude"])
    got = setup_json(capsys, tmp_path / "brain", "--dry-run")
    assert not any(a["present"] for a in got["found"]["agents"])
    assert [s["id"] for s in got["steps"]] == ["brain"]  # nothing to connect, nothing to learn from


def test_yes_connects_everything_once_and_again_changes_nothing(home, tmp_path, capsys):
    from brain_core.agents.setup import needs_welcome

    make_homes(home, mtime=1.7e9)
    assert needs_welcome()
    got = setup_json(capsys, tmp_path / "brain", "--yes")
    out = got["outcome"]
    assert out["brain"] == "created" and out["hooks-claude"] == "installed" and out["mcp-codex"].startswith("shown")
    assert out["backfill"].startswith("3 sessions read")
    assert "brain harvest --hook claude" in (home / ".claude" / "settings.json").read_text()
    assert not needs_welcome()
    settings = (home / ".claude" / "settings.json").read_text()
    again = setup_json(capsys, tmp_path / "brain", "--yes")
    assert again["outcome"]["hooks-claude"] == "already done" and "backfill" not in again["outcome"]
    assert (home / ".claude" / "settings.json").read_text() == settings


def test_an_unreadable_agent_folder_is_one_sentence_and_skipped(home, tmp_path, capsys, monkeypatch):
    from brain_core.harvest.sources.codex import Source

    make_homes(home, mtime=1.7e9)

    def broken(self):
        raise PermissionError(13, "Permission denied")

    monkeypatch.setattr(Source, "files", broken)
    got = setup_json(capsys, tmp_path / "brain", "--dry-run")
    codex = next(a for a in got["found"]["agents"] if a["tool"] == "codex")
    assert codex["error"].endswith("check its permissions, or skip this agent.")
    assert not any(s["id"].endswith("-codex") for s in got["steps"])


def _many_sessions(home: Path, n: int) -> Path:
    project = home / ".claude" / "projects" / "-home-dev-acme-billing"
    project.mkdir(parents=True)
    text = (FIXTURES / "claude_code_session.jsonl").read_text()
    for i in range(n):
        p = project / f"00000000-0000-4000-8000-{i:012d}.jsonl"
        p.write_text(text)
        os.utime(p, (1.7e9 + i, 1.7e9 + i))
    return project


def _marked(brain: Path) -> int:
    try:
        return len(json.loads((brain / "harvest" / "claude.json").read_text())["sessions"])
    except (OSError, ValueError, KeyError):
        return 0


@pytest.mark.slow
def test_backfill_killed_midway_resumes_where_it_stopped(home, tmp_path):
    from brain_core import Brain

    n = 40
    _many_sessions(home, n)
    brain_dir = tmp_path / "brain"
    Brain.init(brain_dir).close()
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    argv = [sys.executable, "-m", "brain_core", "--brain", str(brain_dir), "brain", "backfill", "--batch", "2"]
    proc = subprocess.Popen(argv, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 240
    while _marked(brain_dir) < 4 and proc.poll() is None and time.monotonic() < deadline:
        time.sleep(0.02)
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    at_kill = _marked(brain_dir)
    assert 4 <= at_kill < n, at_kill  # killed part way, with batches already saved
    newest = json.loads((brain_dir / "harvest" / "claude.json").read_text())["sessions"]
    assert f"00000000-0000-4000-8000-{n - 1:012d}" in newest  # newest first

    done = subprocess.run(argv + ["--json"], env=env, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    progress = json.loads(done.stdout)
    assert progress["total"] == n - at_kill and progress["done"] == n - at_kill  # only what was left
    assert _marked(brain_dir) == n
    again = subprocess.run(argv + ["--json"], env=env, capture_output=True, text=True, timeout=600)
    assert json.loads(again.stdout)["total"] == 0  # nothing twice
