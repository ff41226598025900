"""One write path: every file Aida keeps in the brain goes through ``store/writes.py`` (lock,
redaction, contained atomic writes, catalog rows, one commit, the old bytes put back on a failure).

The guard scans brain_core's syntax, like tests/repo/test_layers.py: a low-level write (an atomic write,
``Path.write_text``, ``os.replace``, an unlink, ``git.commit``...) anywhere else fails it, unless it
is one of the few named below that write files outside the brain. The behavioural tests write a
lifecycle page, a meeting transcript and a watermark through the modules users reach, then make
the real commit fail and check that the old bytes stay and no commit is half made."""

from __future__ import annotations

import ast
import json
import subprocess
import wave
from pathlib import Path

import pytest

from brain_core.errors import GitError
from brain_core.store import git as git_module
from tests.helpers.paths import REPO

PKG = REPO / "brain_core"

# The write path itself and the primitives it is made of.
STORE = {
    "store/writes.py": "the one write path",
    "store/fsutil.py": "the atomic write, the temp-file sweep and discard it is built on",
    "store/git.py": "git's own lock files under .git, removed when a crashed git left them",
}
# (module, function) -> the file it writes, which is not a brain file (each outside the brain's
# git history: the user's config folder, the agents' folders, or Aida's own state in .aida/).
NOT_BRAIN_FILES = {
    ("agents/hooks.py", "apply"): "an agent's own settings file (~/.claude/settings.json...) and its backup",
    ("agents/hooks.py", "spawn_detached"): "the background harvest's log in the state folder",
    ("agents/setup.py", "mark_done"): "the first-run marker in the user's data folder",
    ("answer/ask.py", "_cache_get"): "a torn answer-cache entry in .aida/cache/",
    ("answer/runs.py", "write_local"): "run records and cache entries in .aida/ (local, disposable)",
    ("answer/runs.py", "prune_folder"): "old run records in .aida/runs/",
    ("catalog/factory.py", "_exported"): "the catalog's export files in .aida/",
    ("catalog/sqlite/index.py", "Index.recover"): "the SQLite catalog in .aida/",
    ("catalog/sqlite/index.py", "Index._create_from_files"): "the SQLite catalog in .aida/",
    ("catalog/sqlite/index.py", "Index.rebuild"): "the SQLite catalog in .aida/",
    ("catalog/scan.py", "CatalogBase.start_background_rebuild"): "the rebuild's log in .aida/",
    ("cli/demo.py", "run_demo"): "the demo's own temporary folder",
    ("config/__init__.py", "Config.save"): "config.yaml in the user's config folder",
    ("config/schema.py", "<module>"): "docs/DESIGN.md's settings tables (a developer's tool)",
    ("lifecycle/asof.py", "snapshot"): "a past commit's snapshot in .aida/asof/",
    ("lifecycle/asof.py", "_prune"): "old snapshots in .aida/asof/",
    ("lifecycle/maintain.py", "maintain"): "maintain's last report in .aida/",
    ("llm/agent_cli.py", "Budget.spend"): "the agent CLIs' call budget in the state folder",
    ("llm/agent_cli.py", "record_status"): "the agent CLIs' status in the state folder",
    ("sync/__init__.py", "Counters._save"): "sync's counters in .aida/",
    ("sync/__init__.py", "sync"): "sync's rebase marker in .aida/",
    ("sync/__init__.py", "_rebase"): "sync's rebase marker in .aida/",
    ("sync/__init__.py", "_attributes_args"): "sync's merge attributes in .aida/",
    ("sync/__init__.py", "_write_blob"): "a side of a rebase's conflict, mid-rebase: git's rebase commits it "
                                         "(the write path refuses to write during a rebase)",
}

WRITERS = {"atomic_write_bytes", "atomic_write_text", "discard"}
PATH_WRITERS = {"write_text", "write_bytes", "unlink", "rename", "rmdir", "touch"}
OS_WRITERS = {"replace", "rename", "remove", "unlink", "rmdir", "removedirs", "truncate"}
SHUTIL_WRITERS = {"rmtree", "move", "copy", "copy2", "copyfile", "copytree"}


def _name(node: ast.AST) -> str:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return node.attr
    return ""


def low_level_writes(source: str) -> list[tuple[str, str, int]]:
    """(function, what, line) for each low-level write in ``source``: ``brain.write_text`` (the
    Brain's, which is the write path) and ``tx.commit`` are not; ``x.write_text``, ``git.commit``,
    ``os.replace``, ``open(..., "w")`` and the atomic writers are."""
    found: list[tuple[str, str, int]] = []

    def visit(node: ast.AST, scope: list[str]) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                visit(child, [*scope, child.name])
                continue
            if isinstance(child, ast.Call):
                what = _what(child)
                if what:
                    found.append((".".join(scope) or "<module>", what, child.lineno))
            visit(child, scope)

    visit(ast.parse(source), [])
    return found


def _what(call: ast.Call) -> str | None:
    f = call.func
    if isinstance(f, ast.Name):
        if f.id in WRITERS:
            return f.id
        if f.id == "open":
            mode = call.args[1] if len(call.args) > 1 else next((k.value for k in call.keywords if k.arg == "mode"), None)
            if mode is None:
                return None  # read
            if not isinstance(mode, ast.Constant) or (isinstance(mode.value, str) and set(mode.value) & set("wax+")):
                return "open for writing"
        return None
    if not isinstance(f, ast.Attribute):
        return None
    owner = _name(f.value)
    if f.attr in WRITERS:
        return f.attr
    if owner == "os" and f.attr in OS_WRITERS:
        return f"os.{f.attr}"
    if owner == "shutil" and f.attr in SHUTIL_WRITERS:
        return f"shutil.{f.attr}"
    if f.attr == "commit" and owner == "git":
        return "git.commit"
    if f.attr in PATH_WRITERS and owner != "brain":
        return f".{f.attr}"
    return None


def _scan() -> dict[tuple[str, str], list[str]]:
    out: dict[tuple[str, str], list[str]] = {}
    for path in sorted(PKG.rglob("*.py")):
        rel = path.relative_to(PKG).as_posix()
        if rel in STORE:
            continue
        for func, what, line in low_level_writes(path.read_text(encoding="utf-8")):
            out.setdefault((rel, func), []).append(f"brain_core/{rel}:{line} {func}: {what}")
    return out


def test_no_module_writes_brain_files_around_the_write_path():
    stray = [hit for key, hits in _scan().items() if key not in NOT_BRAIN_FILES for hit in hits]
    assert not stray, ("these write files without the write path (go through Brain.writing / Brain.write, "
                       "or name the non-brain file in NOT_BRAIN_FILES with why):\n" + "\n".join(stray))


def test_every_named_exception_is_still_there():
    stale = sorted(set(NOT_BRAIN_FILES) - set(_scan()))
    assert not stale, f"no longer write anything; drop them from NOT_BRAIN_FILES: {stale}"


def test_the_scan_sees_each_kind_of_low_level_write():
    source = '''
import os, shutil
def page(brain, root, git):
    (root / "wiki" / "x.md").write_text("x")
    atomic_write_bytes(root / "INDEX.md", b"x")
    os.replace(root / "a", root / "b")
    (root / "old.json").unlink()
    shutil.rmtree(root / "wiki")
    brain.git.commit(["x"], "m")
    git.commit(["x"], "m")
    open(root / "y", "w").write("y")
def fine(brain, tx, repo):
    brain.write_text("wiki/x.md", "x", "m")
    tx.commit()
    repo.commit("HEAD")
    open(brain.root / "y").read()
'''
    hits = low_level_writes(source)
    assert {h[0] for h in hits} == {"page"}
    assert [h[1] for h in hits] == [".write_text", "atomic_write_bytes", "os.replace", ".unlink", "shutil.rmtree",
                                    "git.commit", "git.commit", "open for writing"]


# -- behaviour: redacted, one commit, and nothing half done on a failure ------------------------------------

TWILIO = "SK" + "9f3c2a7e4b1d8c6f0a5e9d2b7c4f1a8e"  # built in pieces so no whole key sits in this file
GITHUB = "ghp_" + "Zx8Qm2Lp5Rt7Vw1Ny4Kb6Hd9Jf3Gs0Ac2Ue5"


def _git(brain, *args: str) -> str:
    return subprocess.run(["git", "-C", str(brain.root), *args], capture_output=True, text=True, check=True).stdout


def _commits(brain) -> int:
    return int(_git(brain, "rev-list", "--count", "HEAD").strip())


def _last_commit_files(brain) -> list[str]:
    return sorted(_git(brain, "show", "--name-only", "--no-renames", "--format=", "HEAD").split())


def _dirty(brain) -> list[str]:
    return [line for line in _git(brain, "status", "--porcelain", "--untracked-files=all").splitlines() if line]


@pytest.fixture
def failing_commit(monkeypatch):
    """Make the real commit fail for messages that start with one of the given words."""
    real = git_module.Git.commit
    prefixes: list[str] = []

    def commit(self, paths, message):
        if any(message.startswith(p) for p in prefixes):
            raise GitError("git commit failed: the disk went away (injected)")
        return real(self, paths, message)

    monkeypatch.setattr(git_module.Git, "commit", commit)
    return prefixes


def test_a_lifecycle_page_is_redacted_indexed_and_committed_once(brain, failing_commit):
    from brain_core.lifecycle.common import write_files

    before = _commits(brain)
    page = f"# Paging\n\nThe pager webhook signs with {TWILIO}; the on-call rota rotates weekly.\n"
    assert write_files(brain, {"knowledge/paging.md": page}, "compile: 1 page(s) from lessons") == ["knowledge/paging.md"]
    text = (brain.root / "knowledge/paging.md").read_text()
    assert TWILIO not in text and "[REDACTED:twilio-api-key]" in text and "rota rotates weekly" in text
    assert _commits(brain) == before + 1 and _last_commit_files(brain) == ["knowledge/paging.md"]
    assert _git(brain, "log", "-1", "--format=%s%n%an <%ae>").splitlines() == [
        "compile: 1 page(s) from lessons", "Aida <aida@brain.invalid>"]
    assert _dirty(brain) == []
    hits = brain.recall("on-call rota pager webhook", k=3, catch_up=False)  # the catalog row, written with the file
    assert hits and hits[0].path == "knowledge/paging.md"
    assert write_files(brain, {"knowledge/paging.md": page}, "compile: again") == [] and _commits(brain) == before + 1

    old = (brain.root / "knowledge/paging.md").read_bytes()
    failing_commit.append("compile:")
    with pytest.raises(GitError, match="injected"):
        write_files(brain, {"knowledge/paging.md": "# Paging\n\nThe rota is monthly now.\n",
                            "knowledge/escalation.md": "# Escalation\n\nCall the QA lead after ten minutes.\n"},
                    "compile: 2 page(s) from lessons")
    assert (brain.root / "knowledge/paging.md").read_bytes() == old  # the old bytes, put back
    assert not (brain.root / "knowledge/escalation.md").exists()  # the new file, gone
    assert _commits(brain) == before + 1 and _dirty(brain) == []


class ScriptedTranscriber:
    """Hands the meeting writer a transcript given as text (what would have been said aloud)."""

    def __init__(self, lines: list[str]) -> None:
        self.lines = lines

    def transcribe(self, audio, *, hotwords=None, vad=None, progress=None):
        from brain_core.voice.transcribe import Segment, Transcript

        segs = tuple(Segment(float(i * 3), float(i * 3 + 3), t) for i, t in enumerate(self.lines))
        return Transcript(" ".join(self.lines), segs, "en", "scripted", "cpu", "none", 3.0 * len(segs),
                          3.0 * len(segs), 0.0, 0.0)


def _wav(path: Path) -> Path:
    with wave.open(str(path), "wb") as w:
        w.setnchannels(1), w.setsampwidth(2), w.setframerate(16000)
        w.writeframes(b"\x01\x00" * 16000)
    return path


def _distiller(text, *, profile, source, context, llm=None):
    return [{"body": "The webhook secret rotates every Friday.", "type": "fact", "key": "webhook-rotation"}]


SAID = ["Siobhan says the webhook token is", f"{GITHUB} for now.", "It rotates every Friday."]


def test_a_meeting_transcript_is_redacted_and_committed_once(brain, tmp_path):
    from brain_core.voice.meeting import MARKER, harvest_meeting

    before = _commits(brain)
    result = harvest_meeting(brain, _wav(tmp_path / "sync.wav"), title="Weekly sync", attendees=["Siobhan"],
                             date="2026-09-03", transcriber=ScriptedTranscriber(SAID), distiller=_distiller)
    page = (brain.root / result.transcript_path).read_text()
    assert GITHUB not in page and "[REDACTED:github-token]" in page and "rotates every Friday" in page
    log = _git(brain, "log", f"-{_commits(brain) - before}", "--format=%s").splitlines()
    assert log == ["harvest: meeting " + result.sha256[:12], "meeting transcript: Weekly sync (2026-09-03)",
                   "meeting: Weekly sync (2026-09-03)"]  # the marker, the transcript, the records: one commit each
    transcript_commit = _git(brain, "log", "-1", "--format=%H", "--grep", "^meeting transcript").strip()
    assert _git(brain, "show", "--name-only", "--format=", transcript_commit).split() == [result.transcript_path]
    assert json.loads((brain.root / MARKER).read_text())["meetings"][result.sha256]["transcript"] == result.transcript_path
    assert _dirty(brain) == []


def test_a_meeting_transcript_whose_commit_fails_leaves_no_file_behind(brain, tmp_path, failing_commit):
    from brain_core.voice.meeting import MARKER, harvest_meeting

    failing_commit.append("meeting transcript:")
    before = _commits(brain)
    with pytest.raises(GitError, match="injected"):
        harvest_meeting(brain, _wav(tmp_path / "sync.wav"), title="Weekly sync", date="2026-09-03",
                        transcriber=ScriptedTranscriber(SAID), distiller=_distiller)
    assert _commits(brain) == before + 1  # the records' commit, made before; no transcript commit
    assert not list((brain.root / "meetings").glob("*.md")) and not (brain.root / MARKER).exists()
    assert _dirty(brain) == []


def test_a_watermark_is_redacted_committed_once_and_kept_on_a_failed_commit(brain, failing_commit):
    from brain_core.harvest.watermark import Watermark

    before = _commits(brain)
    wm = Watermark("codex", {"s1": {"path": f"/home/u/{GITHUB}/rollout.jsonl", "size": 3, "records": []}})
    wm.save(brain)
    rel = wm.relpath
    text = (brain.root / rel).read_text()
    assert GITHUB not in text and "[REDACTED:github-token]" in text and json.loads(text)
    assert _commits(brain) == before + 1 and _last_commit_files(brain) == [rel]
    assert _git(brain, "log", "-1", "--format=%s").strip() == "harvest: codex watermark"

    old = (brain.root / rel).read_bytes()
    failing_commit.append("harvest:")
    wm.sessions["s2"] = {"path": "/home/u/rollout-2.jsonl", "size": 9, "records": []}
    with pytest.raises(GitError, match="injected"):
        wm.save(brain)
    assert (brain.root / rel).read_bytes() == old and _commits(brain) == before + 1 and _dirty(brain) == []
    assert set(Watermark.load(brain, "codex").sessions) == {"s1"}


def test_a_write_outside_the_brain_or_into_its_own_state_is_refused_and_nothing_changes(brain):
    from brain_core.errors import InvalidInput

    before = _commits(brain)
    for rel in ("../outside.md", ".git/hooks/post-commit", ".aida/index.sqlite"):
        with pytest.raises(InvalidInput):
            brain.write({"knowledge/fine.md": "# Fine\n", rel: "x"}, "two files")
        assert not (brain.root / "knowledge/fine.md").exists()
    assert not (brain.root.parent / "outside.md").exists() and _commits(brain) == before and _dirty(brain) == []


def test_a_forget_whose_commit_fails_leaves_the_record_live_and_index_md_as_it_was(brain, failing_commit):
    from brain_core.lifecycle.forget import forget
    from brain_core.lifecycle.tier_index import regenerate

    brain.remember("The staging database restarts on Sundays at noon.", key="staging-restart")
    regenerate(brain)
    live = brain.root / "memories/me/staging-restart.json"
    old, index_md, before = live.read_bytes(), (brain.root / "INDEX.md").read_bytes(), _commits(brain)
    failing_commit.append("forget:")
    with pytest.raises(GitError, match="injected"):
        forget(brain, "staging-restart", reason="moved to Saturdays")
    assert live.read_bytes() == old and (brain.root / "INDEX.md").read_bytes() == index_md
    assert not list((brain.root / "archive").rglob("*.json"))
    assert _commits(brain) == before and _dirty(brain) == []

    failing_commit.clear()
    moved = forget(brain, "staging-restart", reason="moved to Saturdays")
    assert not live.exists() and (brain.root / moved.dst).exists() and _commits(brain) == before + 1
    assert sorted(_last_commit_files(brain)) == sorted(["INDEX.md", moved.dst, "memories/me/staging-restart.json"])
