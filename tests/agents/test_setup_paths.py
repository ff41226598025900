"""One set-up path: `aida setup`, the welcome window's plan and `aida hooks install` write the same
configuration (hooks, --brain, instruction-file sections), and setup ends with INDEX.md built."""

from __future__ import annotations

import json
from pathlib import Path

from brain_core.cli import main
from tests.helpers.agent_homes import home  # noqa: F401  (fixture)
from tests.helpers.harvest_homes import make_homes

FILES = (".claude/settings.json", ".claude/CLAUDE.md", ".codex/config.toml", ".codex/AGENTS.md",
         ".gemini/settings.json", ".gemini/GEMINI.md")


def _snapshot(home: Path) -> dict[str, str | None]:
    return {f: (home / f).read_text() if (home / f).exists() else None for f in FILES}


def test_setup_then_hooks_install_changes_nothing_and_index_md_exists(home, tmp_path, capsys):
    make_homes(home, mtime=1.7e9)
    brain = tmp_path / "brain"
    assert main(["--brain", str(brain), "setup", "--yes", "--json"]) == 0
    got = json.loads(capsys.readouterr().out)
    assert got["outcome"]["hooks-codex"] == "installed" and "entries" in got["outcome"]["index"]
    files = _snapshot(home)
    assert all(files.values()), files
    for f in (".claude/CLAUDE.md", ".codex/AGENTS.md", ".gemini/GEMINI.md"):
        assert "aida:query-first:begin" in files[f]
    assert "aida:memory:begin" in files[".codex/AGENTS.md"]
    for f in (".claude/settings.json", ".gemini/settings.json"):
        text = files[f]
        assert f"--brain {brain.resolve()} brain harvest --hook" in text
        assert f"-m brain_core.agents.session_start --brain {brain.resolve()} --hook" in text

    # right after setup the health line is about INDEX.md's size, not its absence
    assert main(["--brain", str(brain), "brain", "budget"]) == 0
    assert "There is no INDEX.md" not in capsys.readouterr().out

    backups = sorted(home.rglob("*.aida-*.bak"))
    # a later hooks install (same brain) writes nothing: the same hooks, the same --brain, the same sections
    for tool in ("claude", "codex", "gemini"):
        assert main(["--brain", str(brain), "hooks", "install", tool]) == 0
        out = capsys.readouterr().out
        assert "already installed; nothing to change" in out and "already there; nothing to change" in out, out
    assert _snapshot(home) == files
    assert sorted(home.rglob("*.aida-*.bak")) == backups  # and made no backup: nothing was written


def test_hooks_install_first_then_setup_and_the_welcome_plan_find_it_done(home, tmp_path, capsys):
    make_homes(home, mtime=1.7e9)
    brain = tmp_path / "brain"
    assert main(["--brain", str(brain), "brain", "init"]) == 0
    for tool in ("claude", "codex", "gemini"):
        assert main(["--brain", str(brain), "hooks", "install", tool]) == 0
    capsys.readouterr()
    files = _snapshot(home)

    from brain_core.agents.setup import detect, plan
    from brain_core.config import Config

    steps = plan(detect(Config.load(), brain))  # what the welcome window shows
    assert all(s.done for s in steps if s.id.startswith("hooks-")), [(s.id, s.preview) for s in steps]
    assert main(["--brain", str(brain), "setup", "--yes", "--json", "--skip", "backfill"]) == 0
    got = json.loads(capsys.readouterr().out)
    assert all(got["outcome"][f"hooks-{t}"] == "already done" for t in ("claude", "codex", "gemini"))
    assert "entries" in got["outcome"]["index"] and (brain / "INDEX.md").is_file()
    after = _snapshot(home)
    assert {f: v for f, v in after.items() if f != ".codex/AGENTS.md"} == \
        {f: v for f, v in files.items() if f != ".codex/AGENTS.md"}


def test_setup_dry_run_shows_every_file_it_would_change(home, tmp_path, capsys):
    make_homes(home, mtime=1.7e9)
    assert main(["--brain", str(tmp_path / "brain"), "setup", "--dry-run", "--json"]) == 0
    steps = {s["id"]: s for s in json.loads(capsys.readouterr().out)["steps"]}
    claude = steps["hooks-claude"]["preview"]
    assert "settings.json (with Aida)" in claude and "CLAUDE.md (with Aida)" in claude
    assert "+## Ask the memory first" in claude and "brain_core.agents.session_start" in claude
    assert "AGENTS.md (with Aida)" in steps["hooks-codex"]["preview"]
    assert not (home / ".claude" / "CLAUDE.md").exists()
