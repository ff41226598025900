"""Bad files on the shelves: reported by lint, skipped by index with a warning, recall keeps working,
nothing written outside the brain, no stack trace reaches the user."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from brain_core.lint import lint

GOOD = {"id": "20260101-000000000-abcdef", "type": "fact", "key": "good", "profile": "me",
        "body": "The good record about invoices survives.", "tags": []}


def _bad_files(root, outside):
    mem = root / "memories/me"
    mem.mkdir(parents=True, exist_ok=True)
    (mem / "malformed.json").write_text('{"id": "x", "type": ')
    (mem / "latin1.json").write_bytes(json.dumps(dict(GOOD, key="latin1", body="caf\u00e9"), ensure_ascii=False).encode("latin-1"))
    (mem / "huge.json").write_text(json.dumps(dict(GOOD, key="huge", body="x" * 10_000_000)))
    (mem / "traversal.json").write_text(json.dumps(dict(GOOD, key="../../x")))
    (outside / "secret.json").write_text(json.dumps(dict(GOOD, key="outside", body="outside the brain")))
    os.symlink(outside / "secret.json", mem / "linked.json")
    (mem / "good.sync-conflict-20260101-120000-ABCDEF.json").write_text(json.dumps(dict(GOOD, key="good")))
    (mem / "missing.json").write_text(json.dumps({"id": "x", "body": "no type, key or profile"}))
    (mem / "unknown-type.json").write_text(json.dumps(dict(GOOD, key="unknown-type", type="opinion")))
    (mem / "array.json").write_text("[1, 2, 3]")
    return {"malformed", "latin1", "huge", "traversal", "linked", "sync-conflict", "missing", "unknown-type", "array"}


def test_every_bad_file_is_reported_skipped_and_recall_still_works(brain, tmp_path, capsys):
    outside = tmp_path / "outside"
    outside.mkdir()
    brain.remember(GOOD["body"], key="good")
    names = _bad_files(brain.root, outside)
    report, _ = brain.index.sync()
    skipped = {p.path for p in report.problems}
    for name in names:
        assert any(name in p for p in skipped), name
    problems = lint(brain)
    for name in names:
        assert any(name in p.path for p in problems), name
    messages = {p.path.rsplit("/", 1)[-1]: p.message for p in problems}
    assert "not UTF-8" in messages["latin1.json"]
    assert "symlink" in messages["linked.json"]
    assert "sync-conflict" in messages["good.sync-conflict-20260101-120000-ABCDEF.json"]
    assert "missing field" in messages["missing.json"]
    assert "unknown type" in messages["unknown-type.json"]
    hits = brain.recall("invoices", k=10)
    assert [h.record.key for h in hits] == ["good"]
    assert all("outside" not in h.record.body for h in brain.recall("outside the brain", k=10))
    # the next scan is quiet about files it already knows are bad, and embeds nothing
    report, stats = brain.index.sync()
    assert report.changes == 0 and stats.embedded == 0


def test_cli_reports_bad_files_in_one_line_each_without_a_traceback(brain, tmp_path):
    outside = tmp_path / "outside"
    outside.mkdir()
    _bad_files(brain.root, outside)
    env = dict(os.environ, AIDA_BRAIN=str(brain.root))
    idx = subprocess.run([sys.executable, "-m", "brain_core", "brain", "index"], capture_output=True, text=True, env=env)
    assert idx.returncode == 0
    assert "Traceback" not in idx.stderr
    warnings = [line for line in idx.stderr.splitlines() if line.startswith("aida: warning:")]
    assert len(warnings) == 9
    lint_run = subprocess.run([sys.executable, "-m", "brain_core", "brain", "lint", "--json"], capture_output=True,
                              text=True, env=env)
    assert lint_run.returncode == 1
    assert len(json.loads(lint_run.stdout)) >= 9
    rec = subprocess.run([sys.executable, "-m", "brain_core", "brain", "recall", "--json", "anything"],
                         capture_output=True, text=True, env=env)
    assert rec.returncode == 0 and "Traceback" not in rec.stderr
    # nothing was written outside the brain
    assert sorted(p.name for p in outside.iterdir()) == ["secret.json"]


def test_a_clean_brain_lints_clean(brain):
    brain.remember("Clean.", key="clean")
    assert lint(brain) == []


def test_lint_finds_duplicate_keys_and_misplaced_files(brain):
    brain.remember("Original.", key="dup")
    other = json.loads((brain.root / "memories/me/dup.json").read_text())
    other["id"] = "20260101-000000000-aaaaaa"
    (brain.root / "memories/me/dup-copy.json").write_text(json.dumps(other))
    messages = [p.message for p in lint(brain)]
    assert any("duplicate key me/dup" in m for m in messages)
    assert any("belongs at memories/me/dup.json" in m for m in messages)


def test_lint_reports_leftover_temp_files(brain):
    (brain.root / "memories/me").mkdir(parents=True, exist_ok=True)
    (brain.root / "memories/me/.x.json.tmp-123-abc").write_text("{")
    assert any("temp file" in p.message for p in lint(brain))


@pytest.mark.parametrize("rel", ["../escape.txt", "/etc/passwd", "memories/../../escape.txt", "a\x00b"])
def test_write_text_refuses_paths_outside_the_brain(brain, rel):
    from brain_core.errors import InvalidInput

    with pytest.raises(InvalidInput):
        brain.write_text(rel, "x", "nope")


def test_write_text_refuses_a_symlinked_folder_leading_out(brain, tmp_path):
    from brain_core.errors import InvalidInput

    outside = tmp_path / "elsewhere"
    outside.mkdir()
    os.symlink(outside, brain.root / "harvest" / "out")
    with pytest.raises(InvalidInput):
        brain.write_text("harvest/out/claude.json", "{}", "nope")
    assert list(outside.iterdir()) == []
