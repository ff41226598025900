"""`aida hooks install` writes through a symlinked settings file (dotfiles kept in a repository)."""

from __future__ import annotations

import json
import os

import pytest

from brain_core.agents.hooks import MARK
from brain_core.cli import main


@pytest.mark.parametrize("tool", ["claude", "gemini"])
def test_a_symlinked_settings_file_stays_a_symlink_and_its_target_gets_the_hooks(home, tmp_path, tool, capsys):
    dotfiles = tmp_path / "dotfiles"
    dotfiles.mkdir()
    target = dotfiles / f"{tool}-settings.json"
    target.write_text(json.dumps({"theme": "dark"}))
    folder = home / (".claude" if tool == "claude" else ".gemini")
    folder.mkdir()
    link = folder / "settings.json"
    os.symlink(target, link)

    assert main(["hooks", "install", tool]) == 0
    assert link.is_symlink() and os.readlink(link) == str(target)
    data = json.loads(target.read_text())
    assert data["theme"] == "dark"
    assert MARK in json.dumps(data["hooks"])
    # the backup holds the old content, beside the link; installing again changes nothing
    backups = list(folder.glob("settings.json.aida-*.bak"))
    assert len(backups) == 1 and json.loads(backups[0].read_text()) == {"theme": "dark"}
    before = target.read_text()
    assert main(["hooks", "install", tool]) == 0
    assert link.is_symlink() and target.read_text() == before
