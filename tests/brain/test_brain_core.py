"""The brain core against a real brain: files, git, SQLite index, the real embedding model."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from brain_core import Brain
from brain_core.errors import BrainNotFound, InvalidInput
from brain_core.text.slug import slugify


def git(root: Path, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=root, capture_output=True, text=True, check=True).stdout


def test_init_makes_the_layout_and_commits_as_aida(tmp_path):
    b = Brain.init(tmp_path / "b")
    for d in ("memories", "events", "lessons", "knowledge", "wiki", "archive", "harvest"):
        assert (b.root / d).is_dir()
    assert ".aida/" in (b.root / ".gitignore").read_text()
    assert (b.root / "glossary.yaml").exists()
    assert git(b.root, "log", "--format=%an <%ae>|%cn <%ce>").strip() == "Aida <aida@brain.invalid>|Aida <aida@brain.invalid>"
    assert git(b.root, "status", "--porcelain").strip() == ""  # .aida/ is ignored
    Brain.init(b.root)  # idempotent
    assert len(git(b.root, "log", "--oneline").splitlines()) == 1


def test_identity_is_configurable(tmp_path):
    from brain_core.config import Config

    cfg = Config(path=tmp_path / "c.yaml", data={"identity": {"name": "Memory Keeper", "email": "keeper@example.org"}})
    b = Brain.init(tmp_path / "b", config=cfg)
    assert git(b.root, "log", "--format=%an <%ae>").strip() == "Memory Keeper <keeper@example.org>"


def test_open_refuses_a_folder_that_is_not_a_brain(tmp_path):
    with pytest.raises(BrainNotFound, match="aida brain init"):
        Brain.open(tmp_path)


def test_remember_writes_a_sorted_json_file_indexes_and_commits(brain):
    rec = brain.remember("Webhook retries use exponential backoff, capped at six attempts.",
                         key="webhook-retry-policy", profile="codex", tags=["project:damage-control"])
    path = brain.root / "memories/codex/webhook-retry-policy.json"
    text = path.read_text()
    assert text.endswith("\n")
    data = json.loads(text)
    assert list(data) == sorted(data)
    assert data["id"] == rec.id and data["tags"] == ["project:damage-control"]
    assert "remember: memories/codex/webhook-retry-policy.json" in git(brain.root, "log", "-1", "--format=%s")
    hits = brain.recall("webhook backoff", k=1)
    assert hits[0].path == "memories/codex/webhook-retry-policy.json"


def test_relearning_a_key_supersedes_without_duplicates(brain):
    first = brain.remember("The retry cap is six attempts.", key="retry-cap", profile="codex")
    second = brain.remember("The retry cap is eight attempts since the outage review.", key="retry-cap", profile="codex")
    assert second.supersedes == first.id
    files = list((brain.root / "memories/codex").glob("*.json"))
    assert [f.name for f in files] == ["retry-cap.json"]
    rows = brain.index.conn().execute("SELECT count(*) FROM docs WHERE key='retry-cap'").fetchone()[0]
    assert rows == 1
    hits = brain.recall("retry cap attempts", k=5)
    assert [h.record.body for h in hits if h.record.key == "retry-cap"] == ["The retry cap is eight attempts since the outage review."]
    # git keeps the old version
    assert "six attempts" in git(brain.root, "log", "-p", "--", "memories/codex/retry-cap.json")


def test_remembering_the_same_thing_twice_is_a_no_op(brain):
    a = brain.remember("Use uv, not pip, in this repo.", type="instruction", key="use-uv", profile="claude")
    commits = git(brain.root, "rev-list", "--count", "HEAD")
    b = brain.remember("Use uv, not pip, in this repo.", type="instruction", key="use-uv", profile="claude")
    assert a.id == b.id
    assert git(brain.root, "rev-list", "--count", "HEAD") == commits


def test_a_record_without_a_key_gets_one_from_its_body(brain):
    rec = brain.remember("Staging restores from Sunday's snapshot every night at 2 am.", profile="meeting")
    assert rec.key == slugify("Staging restores from Sunday's snapshot every night at 2 am.")
    assert (brain.root / f"memories/meeting/{rec.key}.json").exists()


def test_events_and_lessons_go_to_their_own_shelves(brain):
    ev = brain.remember("Deployed 1.4 to staging.", type="event", profile="codex", created="2026-08-22T19:44:02Z")
    assert (brain.root / f"events/codex/2026-08/{ev.id}.json").exists()
    lesson = brain.remember("Question: retry cap? Verdict: down.", type="lesson", profile="me")
    assert (brain.root / f"lessons/{lesson.id}.json").exists()
    assert all(h.record.type != "lesson" for h in brain.recall("retry cap verdict", k=10))
    assert brain.recall("retry cap verdict", type="lesson")[0].record.id == lesson.id


@pytest.mark.parametrize("kwargs, message", [
    (dict(body="x", key="../../x"), "kebab-case"),
    (dict(body="x", key="/etc/passwd"), "kebab-case"),
    (dict(body="x", profile="../up"), "profile"),
    (dict(body="x", profile="a\x00b"), "profile"),
    (dict(body="   "), "empty"),
    (dict(body="x" * 20_001), "at most"),
    (dict(body="x", type="opinion"), "Unknown type"),
    (dict(body="x", created="yesterday"), "ISO-8601"),
])
def test_bad_arguments_are_refused_before_anything_is_written(brain, kwargs, message):
    before = git(brain.root, "rev-list", "--count", "HEAD")
    with pytest.raises(InvalidInput, match=message):
        brain.remember(**kwargs)
    assert git(brain.root, "rev-list", "--count", "HEAD") == before
    assert not list((brain.root / "memories").rglob("*.json"))


def test_recall_finds_by_meaning_without_shared_words(brain):
    brain.remember("Webhook delivery retries with exponential backoff, capped at six attempts.", key="webhook-retry-policy")
    brain.remember("The office coffee machine is descaled on Mondays.", key="coffee")
    brain.remember("Our CI pipeline runs on two cores.", key="ci-cores")
    hits = brain.recall("how many times do we resend failed notifications", k=1)
    assert hits[0].record.key == "webhook-retry-policy"


def test_filters_and_k(brain):
    brain.remember("Deploys happen on Tuesdays.", key="deploy-day", profile="codex", tags=["ops"])
    brain.remember("Deploys need two approvals.", key="deploy-approvals", profile="claude", type="instruction")
    brain.remember("Deploys are frozen in December.", key="deploy-freeze", profile="claude", tags=["ops"])
    assert {h.record.key for h in brain.recall("deploys", profile="claude")} == {"deploy-approvals", "deploy-freeze"}
    assert [h.record.key for h in brain.recall("deploys", type="instruction")] == ["deploy-approvals"]
    assert {h.record.key for h in brain.recall("deploys", tag="ops")} == {"deploy-day", "deploy-freeze"}
    assert len(brain.recall("deploys", k=2)) == 2


def test_recent_mode_orders_by_date_within_matches(brain):
    brain.remember("Decided to use Postgres for billing.", key="db-choice-1", created="2026-01-10T10:00:00Z")
    brain.remember("Decided to move billing to Postgres 16.", key="db-choice-2", created="2026-06-10T10:00:00Z")
    brain.remember("Lunch is at noon.", key="lunch", created="2026-09-10T10:00:00Z")
    hits = brain.recall("postgres billing", recent=True, k=2)
    assert [h.record.key for h in hits] == ["db-choice-2", "db-choice-1"]
    assert brain.recall("", recent=True, k=1)[0].record.key == "lunch"


def test_decay_lowers_old_unused_records(brain):
    old = brain.remember("The deploy script lives in tools/deploy.sh.", key="deploy-script-old",
                         created="2023-01-01T00:00:00Z")
    new = brain.remember("The deploy script lives in tools/deploy.sh.", key="deploy-script-new")
    hits = brain.recall("where is the deploy script", k=2, explain=True, touch=False)
    assert [h.record.id for h in hits] == [new.id, old.id]
    assert hits[1].explain["decay"] < hits[0].explain["decay"] == 1.0
    # Using the old one brings it back up.
    brain.usage.bump(["memories/me/deploy-script-old.json"] * 1)
    for _ in range(5):
        brain.usage.bump(["memories/me/deploy-script-old.json"])
    hits = brain.recall("where is the deploy script", k=2, explain=True, touch=False)
    assert hits[0].explain["decay"] == pytest.approx(1.0, abs=1e-3)


@pytest.mark.parametrize("query, found, by_words", [
    ('"unbalanced', True, False), ("retry-cap", True, True), ("key:value", True, False), ("retr*", True, False),
    ("AND", True, False), ("NOT OR AND", True, False), ("NEAR(a b)", True, False),
    ("'; DROP TABLE docs; --", True, False), ("(", False, False), ("^", False, False), ("-", False, False),
    ("", False, False), ("   ", False, False), ("🙂", False, False)])
def test_fts_syntax_in_queries_is_taken_as_plain_words(brain, query, found, by_words):
    """Operators and quotes are words, never FTS syntax: "retr*" is no prefix search and only the
    words of "retry-cap" match by keyword; a query without a word finds nothing."""
    brain.remember("The retry cap is six.", key="retry-cap")
    hits = brain.recall(query, explain=True, touch=False)
    assert [h.record.key for h in hits] == (["retry-cap"] if found else [])
    assert [h.explain["bm25"] is not None for h in hits] == ([by_words] if found else [])
    assert brain.index.conn().execute("SELECT count(*) FROM docs").fetchone()[0] == 1  # nothing dropped


def test_atomic_write_keeps_the_old_file_when_the_rename_fails(brain, monkeypatch):
    brain.remember("Version one.", key="atomic")
    path = brain.root / "memories/me/atomic.json"
    before = path.read_bytes()
    import brain_core.store.fsutil as fsutil

    def crash(src, dst):
        raise OSError("simulated crash between temp write and rename")

    monkeypatch.setattr(fsutil.os, "replace", crash)
    with pytest.raises(OSError):
        brain.remember("Version two.", key="atomic")
    monkeypatch.undo()
    assert path.read_bytes() == before
    assert not [p for p in path.parent.iterdir() if ".tmp-" in p.name]


def test_index_catches_up_with_hand_edits_and_deletions_without_reembedding(brain):
    for i in range(5):
        brain.remember(f"Fact number {i} about the billing service.", key=f"fact-{i}")
    # a hand edit, a hand-made file, a deletion
    p = brain.root / "memories/me/fact-1.json"
    d = json.loads(p.read_text())
    d["body"] = "Fact one now says the billing service runs on ARM."
    p.write_text(json.dumps(d))
    new = dict(d, id="20260101-000000000-abcdef", key="hand-made", body="A hand-made note about invoices.")
    (brain.root / "memories/me/hand-made.json").write_text(json.dumps(new))
    (brain.root / "memories/me/fact-3.json").unlink()
    report, stats = brain.index.sync()
    assert (len(report.new), len(report.modified), len(report.deleted), report.unchanged) == (1, 1, 1, 3)
    assert stats.embedded == 2
    report, stats = brain.index.sync()
    assert report.changes == 0 and stats.embedded == 0
    assert brain.recall("ARM", k=1)[0].record.key == "fact-1"


def test_recall_catches_up_with_a_file_added_behind_its_back(brain):
    brain.remember("Existing note.", key="existing")
    assert brain.index.stale_dirs() == []  # our own write is not mistaken for a change
    rec = {"id": "20260101-000000000-abcdef", "type": "fact", "key": "pulled", "profile": "codex",
           "body": "A memory that arrived by git pull: the cluster is named orca.", "tags": []}
    (brain.root / "memories/codex").mkdir()
    (brain.root / "memories/codex/pulled.json").write_text(json.dumps(rec))
    assert brain.index.stale_dirs() == ["memories/codex"]
    hits = brain.recall("cluster name orca", k=1)
    assert hits[0].record.key == "pulled"
    assert brain.index.stale_dirs() == []


def test_a_deleted_index_is_rebuilt_reusing_nothing_but_the_files(brain):
    for i in range(3):
        brain.remember(f"Note {i} about queues.", key=f"note-{i}")
    brain.close()
    for f in (brain.root / ".aida").glob("index.sqlite*"):
        f.unlink()
    b2 = Brain.open(brain.root)
    b2._embedder = brain._embedder
    assert len(b2.recall("queues", k=5)) == 3


def test_full_rebuild_swaps_atomically_and_reuses_vectors(brain):
    for i in range(10):
        brain.remember(f"Record {i}: the ingest worker batches {i * 10} rows.", key=f"rec-{i}")
    reader = Brain.open(brain.root)  # another process's view, with a connection already open
    reader._embedder = brain._embedder
    conn_before = reader.index.conn()
    ino_before = os.stat(brain.index.path).st_ino
    stats = brain.index.rebuild()
    assert stats.written == 10 and stats.embedded == 0 and stats.reused == 10
    assert os.stat(brain.index.path).st_ino != ino_before
    # the open connection still answers from the old file; the next query reopens the new one
    assert conn_before.execute("SELECT count(*) FROM docs").fetchone()[0] == 10
    assert len(reader.recall("ingest worker rows", k=10)) == 10
    assert reader.index.conn() is not conn_before
    reader.close()
    assert not list((brain.root / ".aida").glob("index.sqlite.tmp-*"))


def test_background_rebuild_answers_from_the_old_index_meanwhile(brain):
    for i in range(20):
        brain.remember(f"Background note {i} on the payments ledger.", key=f"bg-{i}")
    ino_before = os.stat(brain.index.path).st_ino
    brain.index.start_background_rebuild()
    seen = 0
    deadline = time.time() + 60
    while time.time() < deadline:
        hits = brain.recall("payments ledger", k=3, catch_up=False)
        assert len(hits) == 3
        seen += 1
        if os.stat(brain.index.path).st_ino != ino_before and not brain.index.rebuild_running():
            break
        time.sleep(0.05)
    assert os.stat(brain.index.path).st_ino != ino_before, (brain.root / ".aida/rebuild.log").read_text()
    assert seen >= 1
    assert len(brain.recall("payments ledger", k=20)) == 20


def test_a_crash_mid_rebuild_leaves_the_old_index_and_the_next_rebuild_cleans_up(brain):
    brain.remember("Survives a crashed rebuild.", key="survivor")
    (brain.root / ".aida/index.sqlite.tmp-99999").write_bytes(b"half a database")
    assert brain.recall("crashed rebuild", k=1)[0].record.key == "survivor"
    brain.index.rebuild()
    assert not list((brain.root / ".aida").glob("index.sqlite.tmp-*"))


@pytest.mark.parametrize("damage", ["garbage", "zeroed", "truncated"])
def test_a_corrupt_index_is_rebuilt_from_the_files_with_a_notice(brain, damage, capsys):
    for i in range(30):
        brain.remember(f"Corruption drill record {i} about the archive bucket.", key=f"drill-{i}")
    brain.close()
    path = brain.root / ".aida/index.sqlite"
    size = path.stat().st_size
    if damage == "garbage":
        path.write_bytes(os.urandom(size))
    elif damage == "zeroed":
        path.write_bytes(b"\0" * size)
    else:
        with open(path, "r+b") as f:
            f.truncate(size // 3)
    b2 = Brain.open(brain.root)
    b2._embedder = brain._embedder
    hits = b2.recall("archive bucket drill", k=5)
    assert len(hits) == 5
    err = capsys.readouterr().err
    assert "rebuilding it from the files" in err and len(err.strip().splitlines()) == 1


def test_importing_the_core_loads_no_qt_and_no_whisper():
    code = ("import sys, brain_core, brain_core.brain, brain_core.cli, brain_core.recall.hybrid, brain_core.catalog.sqlite.index;"
            "from brain_core.cli import build_parser; build_parser();"
            "bad = [m for m in ('PySide6', 'faster_whisper', 'ctranslate2', 'onnxruntime', 'sounddevice', 'pynput')"
            " if m in sys.modules]; print(','.join(bad))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.strip()
    assert out == ""


def test_many_changes_behind_its_back_start_a_background_rebuild(brain):
    brain.remember("Anchor note about the ledger.", key="anchor")
    (brain.root / "memories/codex").mkdir()
    for i in range(12):
        rec = {"id": f"20260101-000000000-{i:06x}", "type": "fact", "key": f"pulled-{i}", "profile": "codex",
               "body": f"Pulled memory {i}: the ledger closes at {i} pm.", "tags": []}
        (brain.root / f"memories/codex/pulled-{i}.json").write_text(json.dumps(rec))
    assert brain.index.catch_up(limit=5) == "background"
    # meanwhile recall answers from the index as it is, without error
    assert [h.record.key for h in brain.recall("ledger", k=20, catch_up=False)] == ["anchor"]
    deadline = time.time() + 60
    while time.time() < deadline and (brain.index.rebuild_running() or brain.index.stale_dirs()):
        time.sleep(0.1)
    assert len(brain.recall("ledger closes", k=20, catch_up=False)) == 13


def test_a_secret_given_as_a_key_never_becomes_a_file_name(brain):
    secret = "xoxb-123456789012-123456789012-abcdefghijklmnopqrstuvwx"
    rec = brain.remember(f"The bot token is {secret}.", key=secret, profile="codex")
    assert secret not in rec.key and secret not in rec.body
    assert secret not in git(brain.root, "log", "-p", "--all", "--stat")


def test_index_sweeps_temp_files_left_by_interrupted_writes(brain):
    brain.remember("Kept.", key="kept")
    left = [brain.root / "memories/me/.kept.json.tmp-999-abcdef", brain.root / "harvest/.claude.json.tmp-999-abcdef"]
    for p in left:
        p.write_text("{")
    brain.index.sync()
    assert brain.index.swept_tmp == 2 and not any(p.exists() for p in left)
    assert (brain.root / "memories/me/kept.json").exists()
