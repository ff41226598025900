"""``aida hooks install`` adds a query-first section to the agent's instruction file; remove takes it out."""

from __future__ import annotations

import os

import pytest

from brain_core.agents.hooks import HABIT_BEGIN, HABIT_END, apply, plan_habit
from brain_core.cli import main

MINE = "# My rules\n\nUse tabs.\n"


@pytest.mark.parametrize("tool, rel", [("claude", ".claude/CLAUDE.md"), ("codex", ".codex/AGENTS.md"),
                                       ("gemini", ".gemini/GEMINI.md")])
def test_install_adds_one_section_idempotently_and_remove_restores_the_file(home, tool, rel):
    path = home / rel
    path.parent.mkdir(parents=True)
    path.write_text(MINE)
    plan = plan_habit(tool)
    assert plan.changed and "+## Ask the memory first" in plan.diff() and "-Use tabs." not in plan.diff()
    apply(plan)
    text = path.read_text()
    assert text.startswith(MINE) and text.count(HABIT_BEGIN) == 1 and text.count(HABIT_END) == 1
    assert "brain recall" in text and "recall" in text
    assert not plan_habit(tool).changed  # twice: nothing to change
    removed = plan_habit(tool, remove=True)
    apply(removed)
    assert path.read_text() == MINE
    assert not plan_habit(tool, remove=True).changed


def test_section_in_the_middle_is_replaced_in_place_and_a_missing_file_is_made(home):
    path = home / ".claude" / "CLAUDE.md"
    path.parent.mkdir()
    apply(plan_habit("claude"))
    assert path.read_text().startswith(HABIT_BEGIN)
    path.write_text("# Top\n\n" + path.read_text().replace("Rebuild only", "OLD WORDING Rebuild only") + "\n# Bottom\n")
    apply(plan_habit("claude"))
    text = path.read_text()
    assert "OLD WORDING" not in text and text.count(HABIT_BEGIN) == 1
    assert text.startswith("# Top\n") and "# Bottom" in text
    apply(plan_habit("claude", remove=True))
    assert path.read_text() == "# Top\n\n# Bottom\n"


def test_a_symlinked_instruction_file_stays_a_link(home, tmp_path):
    real = tmp_path / "dotfiles" / "CLAUDE.md"
    real.parent.mkdir()
    real.write_text(MINE)
    link = home / ".claude" / "CLAUDE.md"
    link.parent.mkdir()
    os.symlink(real, link)
    apply(plan_habit("claude"))
    assert link.is_symlink() and HABIT_BEGIN in real.read_text()


def test_cli_install_dry_run_shows_the_diff_and_writes_nothing_then_remove(home, brain, capsys):
    assert main(["--brain", str(brain.root), "hooks", "install", "codex", "--dry-run"]) == 0
    out = capsys.readouterr().out
    assert "+## Ask the memory first" in out and "AGENTS.md" in out
    assert not (home / ".codex" / "AGENTS.md").exists()
    assert main(["--brain", str(brain.root), "hooks", "install", "codex"]) == 0
    assert "Added the query-first section" in capsys.readouterr().out
    assert HABIT_BEGIN in (home / ".codex" / "AGENTS.md").read_text()
    assert main(["--brain", str(brain.root), "hooks", "remove", "codex"]) == 0
    assert "Removed the query-first section" in capsys.readouterr().out
    assert (home / ".codex" / "AGENTS.md").read_text() == ""
    assert main(["--brain", str(brain.root), "hooks", "install", "gemini", "--no-instructions"]) == 0
    assert not (home / ".gemini" / "GEMINI.md").exists()
