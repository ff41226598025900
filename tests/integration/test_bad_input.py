"""Bad files on the shelves: reported by lint, skipped by index with a warning, recall keeps working,
nothing written outside the brain, no stack trace reaches the user."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from brain_core.lifecycle.lint import lint

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


# -- hostile names and values: every reader survives, lint names the file (escaped), index skips it once ------


def _hostile_files(root):
    mem = root / "memories" / "me"
    mem.mkdir(parents=True, exist_ok=True)
    raw = os.fsencode(mem)
    with open(os.path.join(raw, b"caf\xe9-\xff.json"), "wb") as f:  # a name that is not UTF-8
        f.write(json.dumps(dict(GOOD, key="bad-name", body="Invoices filed under a broken name.")).encode())
    os.makedirs(os.path.join(os.fsencode(root / "memories"), b"\xfeprofile"))  # a folder name too
    with open(os.path.join(os.fsencode(root / "memories"), b"\xfeprofile", b"x.json"), "wb") as f:
        f.write(json.dumps(dict(GOOD, key="x", body="Invoices in a broken folder.")).encode())
    big = "9" * 5000
    (mem / "bigint.json").write_text(json.dumps(dict(GOOD, key="bigint")).replace('"tags": []', f'"confidence": {big}, "tags": []'))
    (mem / "bigfield.json").write_text(json.dumps(dict(GOOD, key="bigfield"))[:-1] + f', "task": {big}}}')
    (mem / "huge-float.json").write_text(json.dumps(dict(GOOD, key="huge-float"))[:-1] + ', "confidence": 1e400}')
    (mem / "year-9999.json").write_text(json.dumps(dict(GOOD, key="year-9999", created="9999-99-99T99:99:99Z")))
    (mem / "year-0.json").write_text(json.dumps(dict(GOOD, key="year-0", created="0001-01-01T00:00:00+01:00")))
    (mem / "expires.json").write_text(json.dumps(dict(GOOD, key="expires", expires="someday")))
    return {"memories/me/caf\\xe9-\\xff.json": "not valid UTF-8", "memories/\\xfeprofile": "not valid UTF-8",
            "memories/me/bigint.json": "too long", "memories/me/bigfield.json": "too long",
            "memories/me/huge-float.json": "confidence", "memories/me/year-9999.json": "created",
            "memories/me/year-0.json": "created", "memories/me/expires.json": "expires"}


def test_hostile_names_and_values_break_no_reader(brain):
    from brain_core.brain.status import brain_status
    from brain_core.lifecycle.maintain import maintain

    brain.remember(GOOD["body"], key="good")
    bad = _hostile_files(brain.root)
    report, _ = brain.index.sync()
    skipped = {p.path: p.message for p in report.problems}
    for path, why in bad.items():
        assert why in skipped[path], (path, skipped)
    assert [h.record.key for h in brain.recall("invoices", k=10)] == ["good"]
    problems = {p.path: p.message for p in lint(brain)}
    for path, why in bad.items():
        assert why in problems[path], (path, problems)
    for p in problems:
        p.encode("utf-8")  # every reported path can be printed and stored
    status = brain_status(brain)
    json.dumps(status, ensure_ascii=False).encode("utf-8")
    assert "memories/me/caf\\xe9-\\xff.json" in status["uncommitted"]
    done = maintain(brain)
    assert done.scored == 1 and not done.archived


def test_hostile_files_through_the_cli_and_the_mcp_recall_tool(brain):
    import anyio

    from tests.agents.test_mcp import _session
    from tests.helpers.mcp_results import payload

    brain.remember(GOOD["body"], key="good")
    bad = _hostile_files(brain.root)
    env = dict(os.environ, AIDA_BRAIN=str(brain.root))

    def run(*args):
        proc = subprocess.run([sys.executable, "-m", "brain_core", *args], capture_output=True, text=True, env=env,
                              errors="backslashreplace")
        assert "Traceback" not in proc.stderr, proc.stderr
        return proc

    idx = run("brain", "index")
    assert idx.returncode == 0
    warnings = [line for line in idx.stderr.splitlines() if line.startswith("aida: warning:")]
    assert len(warnings) == len(bad)  # one warning per bad file
    assert any("caf\\xe9-\\xff.json" in w for w in warnings)
    linted = run("brain", "lint", "--json")
    assert linted.returncode == 1
    assert set(bad) <= {p["path"] for p in json.loads(linted.stdout)}
    rec = run("brain", "recall", "--json", "invoices")
    assert rec.returncode == 0 and [h["key"] for h in json.loads(rec.stdout)] == ["good"]
    status = run("brain", "status")
    assert status.returncode == 0 and f"Skipped files: {len(bad)}" in status.stdout
    as_json = run("brain", "status", "--json")
    assert as_json.returncode == 0
    assert "memories/me/caf\\xe9-\\xff.json" in {p["path"] for p in json.loads(as_json.stdout)["problems"]}
    assert run("brain", "maintain").returncode == 0
    brain.close()

    async def body(session):
        return payload(await session.call_tool("recall", {"query": "invoices", "k": 5}))

    hits = anyio.run(_session, brain.root, body)
    assert [h["key"] for h in hits] == ["good"]


def test_recall_warns_once_about_bad_files_that_arrive_and_answers(brain):
    brain.remember(GOOD["body"], key="good")
    bad = _hostile_files(brain.root)
    env = dict(os.environ, AIDA_BRAIN=str(brain.root))
    runs = [subprocess.run([sys.executable, "-m", "brain_core", "brain", "recall", "--json", "invoices"],
                           capture_output=True, text=True, env=env, errors="backslashreplace") for _ in range(2)]
    for proc in runs:
        assert proc.returncode == 0 and "Traceback" not in proc.stderr
        assert [h["key"] for h in json.loads(proc.stdout)] == ["good"]
    first = [line for line in runs[0].stderr.splitlines() if line.startswith("aida: warning:")]
    for path in bad:
        if path.endswith(".json"):  # files; the broken folder is lint's to name
            assert sum(path in line for line in first) == 1, (path, first)
    assert "warning" not in runs[1].stderr
