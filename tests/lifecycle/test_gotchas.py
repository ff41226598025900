"""Nothing written is silently unreachable: the command line refuses ``--type lesson`` (kept for
feedback, which recall leaves out) with a one-line reason and writes nothing; a gotcha written as a
note is recalled; lint names a lesson without feedback. A real brain in tmp_path."""

from __future__ import annotations

from brain_core.cli import main
from brain_core.lifecycle.lint import lint


def test_remember_refuses_type_lesson_with_one_line_and_writes_nothing(brain, capsys):
    before = brain.head()
    rc = main(["--brain", str(brain.root), "brain", "remember", "--type", "lesson",
               "Gotcha: pnpm does not hoist dependencies; declare them explicitly."])
    err = capsys.readouterr().err.strip()
    assert rc != 0
    assert len(err.splitlines()) == 1 and "--type note" in err and "feedback" in err
    assert brain.head() == before
    assert not list((brain.root / "lessons").glob("*.json"))


def test_a_gotcha_written_as_a_note_is_recalled_by_default(brain, capsys):
    rc = main(["--brain", str(brain.root), "brain", "remember", "--type", "note", "--key", "pnpm-hoist",
               "Gotcha: pnpm does not hoist dependencies; declare them explicitly."])
    assert rc == 0
    capsys.readouterr()
    hits = brain.recall("any gotchas with pnpm dependencies?", k=3)
    assert hits and hits[0].record.key == "pnpm-hoist"


def test_lint_names_a_lesson_without_feedback(brain):
    plain = brain.remember("Run the migrations before the switch.", type="lesson")
    feedback = brain.remember("Was the retry cap right?", type="lesson", extra={"verdict": "down", "why": "no"})
    found = {p.path: p.message for p in lint(brain)}
    assert f"lessons/{plain.id}.json" in found and "recall leaves out" in found[f"lessons/{plain.id}.json"]
    assert f"lessons/{feedback.id}.json" not in found
