"""The card catalog's scan -> report -> apply, catch-up and rebuild, each checked against the exact
state of a real brain: the report's lists, the catalog's rows, the folder times it stores, the
texts the real model was asked to embed, and what catch-up answers."""

from __future__ import annotations

import json
import os
import shutil
import threading
import time
import zlib
from pathlib import Path

import numpy as np
import pytest

from brain_core import Brain
from brain_core.catalog.sqlite.index import APPLY_BATCH
from brain_core.store.locks import FileLock
from brain_core.store.shelves import checksum, dir_mtimes
from tests.helpers.counting import CountingEmbedder


@pytest.fixture
def counter(embedder):
    return CountingEmbedder(embedder)


@pytest.fixture
def cb(tmp_path, counter):
    """A brain whose embedder counts what it embeds, and whose notices are kept."""
    b = Brain.init(tmp_path / "brain", embedder=counter)
    b.notices = []
    b.index.notice = b.notices.append
    yield b
    b.close()


def put(root: Path, rel: str, body: str, **fields) -> Path:
    """A record file written behind the brain's back (as `git pull` or another tool would)."""
    stem = Path(rel).stem
    rec = {"id": fields.pop("id", f"20260101-000000000-{zlib.crc32(rel.encode()) % 16**6:06x}"), "type": "fact",
           "key": stem, "profile": rel.split("/")[1] if rel.startswith("memories/") else "me", "body": body,
           "tags": [], **fields}
    p = root / rel
    p.parent.mkdir(parents=True, exist_ok=True)
    tmp = p.with_name("." + p.name + ".new")   # written and renamed into place, as git does
    tmp.write_text(json.dumps(rec), encoding="utf-8")
    os.replace(tmp, p)
    return p


def rows(brain) -> dict[str, tuple[int, int, str]]:
    conn = brain.index.conn()
    return {p: (s, m, c) for p, s, m, c in conn.execute("SELECT path, size, mtime_ns, checksum FROM docs")}


def on_disk(brain) -> dict[str, tuple[int, int, str]]:
    """What the catalog should hold for every record file on the memories and events shelves
    (the files it lists as problems aside)."""
    out, bad = {}, problems(brain)
    for shelf in ("memories", "events"):
        for p in (brain.root / shelf).rglob("*.json"):
            if p.relative_to(brain.root).as_posix() in bad:
                continue
            st = p.stat()
            out[p.relative_to(brain.root).as_posix()] = (st.st_size, st.st_mtime_ns, checksum(p.read_bytes()))
    return out


def stored_dirs(brain) -> dict[str, int]:
    return dict(brain.index.conn().execute("SELECT path, mtime_ns FROM dirs"))


def problems(brain) -> dict[str, tuple[str, str | None]]:
    return {p: (m, c) for p, m, c in brain.index.conn().execute("SELECT path, message, checksum FROM problems")}


def bump(folder: Path) -> None:
    """Change a folder's mtime the way a file that came and went does."""
    before = folder.stat().st_mtime_ns
    tmp = folder / ".came-and-went"
    tmp.write_text("x")
    tmp.unlink()
    if folder.stat().st_mtime_ns == before:  # a coarse clock: move it on by hand
        os.utime(folder, ns=(before + 10**9, before + 10**9))


# -- scan and apply ---------------------------------------------------------------------------------


def test_scan_reports_every_kind_of_change_and_writes_nothing_apply_writes_exactly_that(cb):
    root = cb.root
    for key in ("alpha", "beta", "gamma", "delta"):
        cb.remember(f"The {key} service owns the {key} queue.", key=key)
    before = rows(cb)
    put(root, "memories/codex/pulled.json", "The ledger closes at five pm.")
    put(root, "memories/me/beta.json", "The beta service now owns the invoices queue.", id="20260101-000000000-00beta")
    (root / "memories/me/gamma.json").unlink()
    (root / "memories/me/broken.json").write_text("{not json", encoding="utf-8")
    BROKEN = "invalid JSON (Expecting property name enclosed in double quotes), skipped"
    alpha = root / "memories/me/alpha.json"
    st = alpha.stat()
    os.utime(alpha, ns=(st.st_atime_ns, st.st_mtime_ns + 5 * 10**9))   # same content, new mtime (a checkout)

    report = cb.index.scan()
    assert [d.path for d in report.new] == ["memories/codex/pulled.json"]
    assert [d.path for d in report.modified] == ["memories/me/beta.json"]
    assert report.deleted == ("memories/me/gamma.json",)
    assert [(p.path, p.message) for p in report.problems] == [
        ("memories/me/broken.json", BROKEN)]
    assert report.unchanged == 2 and [f.path for f in report.touched] == ["memories/me/alpha.json"]
    assert report.dirs == dir_mtimes(root)
    assert report.changes == 3
    assert report.summary() == "1 new, 1 changed, 1 deleted, 2 unchanged, 1 skipped"
    assert rows(cb) == before  # a scan writes nothing

    embedded_before = len(cb._embedder.texts)
    t0 = time.time()
    stats = cb.index.apply(report)
    assert (stats.embedded, stats.reused, stats.written, stats.deleted) == (2, 0, 2, 1)
    assert cb._embedder.texts[embedded_before:] == [d.embed_text for d in report.new + report.modified]
    assert rows(cb) == on_disk(cb) and "memories/me/broken.json" not in rows(cb)
    assert problems(cb) == {"memories/me/broken.json": (BROKEN,
                                                        checksum((root / "memories/me/broken.json").read_bytes()))}
    assert stored_dirs(cb) == dir_mtimes(root)
    scanned = float(cb.index.conn().execute("SELECT v FROM meta WHERE k='scanned'").fetchone()[0])
    assert t0 - 1 <= scanned <= time.time() + 1

    again = cb.index.scan()  # the known bad file keeps its message without being parsed again
    assert (again.changes, again.unchanged, again.touched) == (0, 4, ())
    assert [(p.path, p.message) for p in again.problems] == [("memories/me/broken.json", BROKEN)]


def test_rows_replaced_when_the_file_is_mended_and_problems_forgotten_when_the_file_goes(cb):
    root = cb.root
    cb.remember("The deploy window is Tuesday morning.", key="deploy")
    (root / "memories/me/deploy.json").write_text("[1, 2", encoding="utf-8")   # a good record broken
    report = cb.index.scan()
    assert report.deleted == ("memories/me/deploy.json",) and [p.path for p in report.problems] == [
        "memories/me/deploy.json"]
    cb.index.apply(report)
    assert rows(cb) == {} and set(problems(cb)) == {"memories/me/deploy.json"}

    put(root, "memories/me/deploy.json", "The deploy window is Thursday morning.")  # mended
    cb.index.sync()
    assert set(rows(cb)) == {"memories/me/deploy.json"} and problems(cb) == {}

    (root / "memories/me/other.json").write_text("{", encoding="utf-8")
    cb.index.sync()
    assert set(problems(cb)) == {"memories/me/other.json"}
    (root / "memories/me/other.json").unlink()
    cb.index.sync()
    assert problems(cb) == {}


def test_a_touched_file_gets_its_new_size_and_time_without_being_embedded(cb):
    cb.remember("Backups run nightly at two.", key="backups")
    p = cb.root / "memories/me/backups.json"
    st = p.stat()
    os.utime(p, ns=(st.st_atime_ns, st.st_mtime_ns + 7 * 10**9))
    n = len(cb._embedder.texts)
    report, stats = cb.index.sync()
    assert [f.path for f in report.touched] == ["memories/me/backups.json"]
    assert (stats.embedded, stats.written) == (0, 0) and len(cb._embedder.texts) == n
    assert rows(cb) == on_disk(cb)


def test_a_quick_scan_trusts_size_and_time_a_full_scan_reads_the_file(cb):
    cb.remember("The cache lives for ten minutes.", key="cache")
    cb.remember("Logs are kept for a week.", key="logs")
    p = cb.root / "memories/me/cache.json"
    st = p.stat()
    p.write_bytes(p.read_bytes().replace(b"ten", b"six"))    # same size
    os.utime(p, ns=(st.st_atime_ns, st.st_mtime_ns))         # and the same time
    quick = cb.index.scan(quick=True)
    assert (quick.changes, quick.unchanged) == (0, 2)
    full = cb.index.scan()
    assert [d.path for d in full.modified] == ["memories/me/cache.json"] and full.unchanged == 1


def test_a_known_bad_file_is_not_parsed_again_and_the_files_after_it_are_scanned(cb, monkeypatch):
    import brain_core.catalog.scan as index_module  # the scan's rules, both backends'

    cb.remember("Read after the memories shelf.", type="event", key="later", created="2026-03-02T10:00:00Z")
    (cb.root / "memories/me").mkdir(parents=True, exist_ok=True)
    (cb.root / "memories/me/broken.json").write_text("{not json", encoding="utf-8")
    cb.index.sync()
    parsed, real = [], index_module.load_doc
    monkeypatch.setattr(index_module, "load_doc", lambda path, *a: parsed.append(path) or real(path, *a))
    for scan in (cb.index.scan(), cb.index.scan(dirs=["memories/me"])):
        assert [p.path for p in scan.problems] == ["memories/me/broken.json"] and scan.changes == 0
    assert parsed == []
    assert cb.index.scan().unchanged == 1   # the event, read after the bad file
    (cb.root / "memories/me/broken.json").write_text("{still not json", encoding="utf-8")
    assert [p.path for p in cb.index.scan().problems] == ["memories/me/broken.json"]
    assert parsed == ["memories/me/broken.json"]   # changed: parsed again


def test_deletions_are_counted_and_a_bad_file_elsewhere_stays_listed_after_a_catch_up(cb):
    for key in ("one", "two", "three"):
        cb.remember(f"Record {key}.", key=key)
    (cb.root / "memories/me/bad.json").write_text("{", encoding="utf-8")
    (cb.root / "memories/me/one.json").unlink()
    (cb.root / "memories/me/two.json").unlink()
    report, stats = cb.index.sync()
    assert sorted(report.deleted) == ["memories/me/one.json", "memories/me/two.json"] and stats.deleted == 2
    assert set(problems(cb)) == {"memories/me/bad.json"}
    put(cb.root, "memories/codex/pulled.json", "Pulled from another machine.")
    assert cb.index.catch_up() == "caught-up"   # a scan of memories/codex only
    assert set(problems(cb)) == {"memories/me/bad.json"} and "memories/codex/pulled.json" in rows(cb)
    (cb.root / "memories/me/bad.json").unlink()
    cb.index.sync()
    assert problems(cb) == {}


def test_a_sync_takes_deleted_records_out_of_the_vectors_in_memory_and_times_itself(cb):
    cb.remember("The office plants are watered on Fridays.", key="plants")
    cb.remember("Visitors sign in at the front desk.", key="visitors")
    cb.recall("office plants", catch_up=False)
    cb.recall("front desk", catch_up=False)
    cache = cb.index._vcache
    assert cache is not None
    rowid = cb.index.conn().execute("SELECT rowid FROM docs WHERE key='plants'").fetchone()[0]
    assert rowid in cache.slot
    (cb.root / "memories/me/plants.json").unlink()
    t0 = time.perf_counter()
    _, stats = cb.index.sync()
    wall = time.perf_counter() - t0
    assert stats.deleted == 1 and rowid not in cache.slot and cb.index._vcache is cache
    assert 0 < stats.seconds <= wall


def test_a_file_that_cannot_be_read_is_reported_and_skipped(cb, monkeypatch):
    cb.remember("Readable, and read after the memories shelf.", type="event", key="fine",
                created="2026-03-02T10:00:00Z")
    put(cb.root, "memories/me/locked.json", "Locked away.")
    real = Path.read_bytes

    def read_bytes(self):
        if self.name == "locked.json":
            raise PermissionError(13, "Permission denied", str(self))
        return real(self)

    monkeypatch.setattr(Path, "read_bytes", read_bytes)
    report = cb.index.scan()
    monkeypatch.undo()
    assert [(p.path, p.message) for p in report.problems] == [
        ("memories/me/locked.json", "cannot be read (Permission denied), skipped")]
    assert report.new == () and report.unchanged == 1


def test_a_scan_of_some_folders_sees_only_those_folders(cb):
    root = cb.root
    cb.remember("Kept in a_b.", key="one", profile="a_b")
    cb.remember("Kept in axb.", key="two", profile="axb")
    cb.remember("An event in March.", type="event", key="ev", created="2026-03-02T10:00:00Z")
    (root / "memories/axb/two.json").unlink()
    put(root, "memories/a_b/three.json", "New in a_b.")
    # "a_b" is not a pattern that also takes "axb" (LIKE's wildcards are escaped)
    report = cb.index.scan(dirs=["memories/a_b"])
    assert [d.path for d in report.new] == ["memories/a_b/three.json"]
    assert report.deleted == () and report.unchanged == 1
    put(root, "memories/5%/pct.json", "In a folder made by hand, whose name is no profile.")
    put(root, "memories/5xx/other.json", "Kept next to it.")
    cb.index.sync()
    report = cb.index.scan(dirs=["memories/5%"])   # nor "5%" one that takes "5xx"
    assert (report.changes, report.unchanged) == (0, 0)
    assert [p.path for p in report.problems] == ["memories/5%/pct.json"]
    # a folder's rows are its own files, not those of the folders below it
    events = [p for p in rows(cb) if p.startswith("events/")]
    month = events[0].rsplit("/", 1)[0]
    assert cb.index.scan(dirs=[month.rsplit("/", 1)[0]]).deleted == ()
    assert cb.index.scan(dirs=[month]).unchanged == 1


def test_apply_reports_progress_per_batch_and_reuses_a_vector_within_the_run(cb):
    root = cb.root
    total = 2 * APPLY_BATCH + 1
    for i in range(total):
        put(root, f"memories/bulk/item-{i:03d}.json", "The same note, copied many times.", key="copied-note")
    seen = []
    n = len(cb._embedder.texts)
    report, stats = cb.index.sync(progress=lambda done, total: seen.append((done, total)))
    assert seen == [(APPLY_BATCH, total), (2 * APPLY_BATCH, total), (total, total)]
    # the text was embedded in the first batch: the later batches reuse its vector from the catalog
    assert (stats.embedded, stats.reused, stats.written) == (APPLY_BATCH, APPLY_BATCH + 1, total)
    assert len(cb._embedder.texts) - n == APPLY_BATCH
    assert len(rows(cb)) == total


def test_a_moved_file_is_not_embedded_again(cb):
    cb.remember("Invoices are sent on the first of the month.", key="invoices", profile="codex")
    n = len(cb._embedder.texts)
    (cb.root / "memories/claude").mkdir()
    shutil.move(cb.root / "memories/codex/invoices.json", cb.root / "memories/claude/invoices.json")
    report, stats = cb.index.sync()
    assert (stats.embedded, stats.reused, stats.deleted) == (0, 1, 1)
    assert len(cb._embedder.texts) == n and set(rows(cb)) == {"memories/claude/invoices.json"}


def test_a_write_embeds_its_text_once_and_keeps_nothing_behind(cb):
    n = len(cb._embedder.texts)
    cb.remember("Releases are tagged from the main branch only.", key="releases")
    body = json.loads((cb.root / "memories/me/releases.json").read_text())["body"]
    assert [t for t in cb._embedder.texts[n:] if body in t] != []
    assert len(cb._embedder.texts) - n == 1
    assert cb.index.fresh_vectors == {}
    assert rows(cb) == on_disk(cb)


def test_a_vector_embedded_ahead_of_the_write_is_the_one_stored(cb):
    p = put(cb.root, "memories/me/ahead.json", "Staging is rebuilt every Sunday.")
    vec = np.random.default_rng(3).standard_normal(cb.index.dim).astype(np.float32)
    vec /= np.linalg.norm(vec)
    from brain_core.store.shelves import load_doc

    st = p.stat()
    doc = load_doc("memories/me/ahead.json", p.read_bytes(), st.st_size, st.st_mtime_ns)
    cb.index.fresh_vectors[doc.text_sha] = vec
    n = len(cb._embedder.texts)
    with cb.lock():
        cb.index.upsert_file("memories/me/ahead.json", p.read_bytes())
    assert len(cb._embedder.texts) == n and cb.index.fresh_vectors == {}
    blob = cb.index.conn().execute("SELECT v.embedding FROM docs d JOIN docs_vec v ON v.rowid = d.rowid "
                                   "WHERE d.path = 'memories/me/ahead.json'").fetchone()[0]
    assert np.array_equal(np.frombuffer(blob, dtype=np.float32), vec)
    assert rows(cb) == on_disk(cb)
    assert stored_dirs(cb)["memories/me"] == (cb.root / "memories/me").stat().st_mtime_ns


def test_a_record_written_after_the_vectors_are_in_memory_is_found_by_its_vector(cb):
    cb.remember("The office plants are watered on Fridays.", key="plants")
    cb.recall("office plants", catch_up=False)
    cb.recall("watering schedule", catch_up=False)   # the second vector search loads the vectors in memory
    assert cb.index._vcache is not None
    cb.remember("Our payroll provider changed to a new company in May.", key="payroll")
    vec = cb.embedder.embed(["Our payroll provider changed to a new company in May."])[0]
    hits = cb.recall("qqq", k=1, query_vector=vec, catch_up=False)
    assert [h.record.key for h in hits] == ["payroll"]


def test_a_file_the_write_path_indexes_reaches_the_vectors_in_memory(cb):
    cb.remember("The office plants are watered on Fridays.", key="plants")
    cb.recall("office plants", catch_up=False)
    cb.recall("watering schedule", catch_up=False)
    cache = cb.index._vcache
    assert cache is not None
    body = "Visitors sign in at the front desk before nine."
    rec = {"id": "20260301-090000000-00a1b2", "type": "fact", "key": "visitors", "profile": "me", "body": body,
           "tags": []}
    cb.write_text("memories/me/visitors.json", json.dumps(rec), "a record written as a file")
    rowid = cb.index.conn().execute("SELECT rowid FROM docs WHERE path='memories/me/visitors.json'").fetchone()[0]
    assert rowid in cache.slot and cb.index._vcache is cache
    vec = cb.embedder.embed([f"visitors: {body}"])[0]
    assert [h.record.key for h in cb.recall("qqq", k=1, query_vector=vec, catch_up=False)] == ["visitors"]


# -- catch-up on the recall path -----------------------------------------------------------------------


def test_catch_up_answers_fresh_without_the_lock_when_nothing_changed(cb):
    cb.remember("Nothing changes here.", key="still")
    with FileLock(cb.root / ".aida/write.lock"):
        assert cb.index.catch_up() == "fresh"


def test_catch_up_is_busy_while_another_writer_holds_the_lock_then_catches_up(cb):
    cb.remember("The first record.", key="first")
    put(cb.root, "memories/codex/pulled.json", "A record pulled from another machine.")
    cb.index.lock.timeout = 1.0   # never wait on the other writer
    other = FileLock(cb.root / ".aida/write.lock")
    with other:
        assert cb.index.catch_up() == "busy"
        assert set(rows(cb)) == {"memories/me/first.json"}
    assert cb.index.catch_up() == "caught-up"
    assert rows(cb) == on_disk(cb) and stored_dirs(cb) == dir_mtimes(cb.root)
    assert cb.index.catch_up() == "fresh"


def test_catch_up_reads_only_the_changed_folders_and_trusts_size_and_time_there(cb):
    """The recall path's catch-up stats folders, not files: a file edited in place in a folder that
    did not change waits for `aida brain index`, which reads every file."""
    root = cb.root
    cb.remember("Lunch is at noon.", key="lunch")
    cb.remember("The linter runs before every commit.", key="linter", profile="codex")
    time.sleep(0.01)
    lunch = root / "memories/me/lunch.json"
    lunch.write_bytes(lunch.read_bytes().replace(b"Lunch is at noon.", b"Lunch is at half past twelve."))
    linter = root / "memories/codex/linter.json"
    st = linter.stat()
    linter.write_bytes(linter.read_bytes().replace(b"every", b"each!"))   # same size
    os.utime(linter, ns=(st.st_atime_ns, st.st_mtime_ns))                # and the same time
    put(root, "memories/codex/pulled.json", "Review requests go to the on-call reviewer.")
    before, n = rows(cb), len(cb._embedder.texts)
    assert cb.index.stale_dirs() == ["memories/codex"]
    assert cb.index.catch_up() == "caught-up"
    assert [t for t in cb._embedder.texts[n:]] == ["pulled: Review requests go to the on-call reviewer."]
    after = rows(cb)
    assert set(after) == set(before) | {"memories/codex/pulled.json"}
    assert after["memories/me/lunch.json"] == before["memories/me/lunch.json"]
    assert after["memories/codex/linter.json"] == before["memories/codex/linter.json"]
    report, _ = cb.index.sync()
    assert sorted(d.path for d in report.modified) == ["memories/codex/linter.json", "memories/me/lunch.json"]
    assert rows(cb) == on_disk(cb)


def test_a_folder_above_the_records_changing_is_noted_without_a_scan(cb):
    cb.remember("An event to make the folders.", type="event", key="ev", created="2026-03-02T10:00:00Z")
    bump(cb.root / "events/me")          # not a folder of records: nothing to scan
    assert cb.index.stale_dirs() == []
    assert cb.index.catch_up() == "fresh"
    assert stored_dirs(cb) == dir_mtimes(cb.root)
    with FileLock(cb.root / ".aida/write.lock"):
        assert cb.index.catch_up() == "fresh"   # noted: the next recall does not even take the lock


def test_folders_deleted_behind_its_back_take_their_rows_with_them(cb):
    root = cb.root
    cb.remember("Kept by me.", key="mine")
    cb.remember("Kept by codex, one.", key="c-one", profile="codex")
    cb.remember("Kept by codex, two.", key="c-two", profile="codex")
    cb.remember("Kept by gemini.", key="g-one", profile="gemini")
    cb.remember("A March event.", type="event", key="ev", created="2026-03-02T10:00:00Z")
    shutil.rmtree(root / "memories/codex")
    shutil.rmtree(root / "memories/gemini")
    assert cb.index.stale_dirs() == ["memories/codex", "memories/gemini"]
    assert cb.index.catch_up() == "caught-up"
    assert rows(cb) == on_disk(cb) and set(p.split("/")[1] for p in rows(cb)) == {"me"}
    assert stored_dirs(cb) == dir_mtimes(root)   # the gone folders are forgotten
    assert cb.index.catch_up() == "fresh"
    shutil.rmtree(root / "knowledge")            # a whole shelf
    assert cb.index.catch_up() == "caught-up"
    assert cb.index.catch_up() == "fresh"


def test_a_bad_file_that_arrives_is_warned_about_once(cb):
    cb.remember("A good record.", key="good")
    (cb.root / "memories/me/bad.json").write_text("{", encoding="utf-8")
    assert cb.index.catch_up() == "caught-up"
    assert cb.notices == ["warning: memories/me/bad.json invalid JSON (Expecting property name enclosed in double "
                          "quotes), skipped (see `aida brain lint`)"]
    put(cb.root, "memories/me/later.json", "A later good record.")
    (cb.root / "memories/me/bad.json").write_text("{{", encoding="utf-8")   # still bad, changed
    assert cb.index.catch_up() == "caught-up"
    assert len(cb.notices) == 1 and set(rows(cb)) == {"memories/me/good.json", "memories/me/later.json"}


def test_catch_up_embeds_at_most_its_limit_and_leaves_more_to_a_rebuild(cb):
    root = cb.root
    for i in range(5):
        cb.remember(f"Original record number {i}.", key=f"orig-{i}")
    for i in range(5):   # modified behind its back: they count as work too
        put(root, f"memories/me/orig-{i}.json", f"Changed record number {i}.")
    for i in range(60):
        put(root, f"memories/pulled/rec-{i:02d}.json", f"Pulled record number {i} about topic {i * 7}.")
    before = rows(cb)
    rebuild = FileLock(root / ".aida/rebuild.lock", timeout=0)
    assert rebuild.acquire(blocking=False)   # a rebuild is already running: none is started
    try:
        assert cb.index.catch_up() == "background"   # 65 to embed, over the default 64
        assert rows(cb) == before and not (root / ".aida/rebuild.log").exists()
        (root / "memories/pulled/rec-59.json").unlink()
        assert cb.index.catch_up() == "caught-up"    # 64: not over the limit
    finally:
        rebuild.release()
    assert rows(cb) == on_disk(cb)


# -- building the catalog -------------------------------------------------------------------------------


def test_a_rebuild_reuses_every_vector_sweeps_old_temp_files_and_takes_late_writes(cb):
    root = cb.root
    for i in range(3):
        cb.remember(f"Rebuild me, record {i}.", key=f"r-{i}")
    stale = root / ".aida/index.sqlite.tmp-99999"
    stale.write_bytes(b"left by a crash")
    ino = (root / ".aida/index.sqlite").stat().st_ino
    n = len(cb._embedder.texts)

    def late(done, total):  # a write lands while the new catalog is being built
        put(root, "memories/me/late.json", "Written during the rebuild.")

    stats = cb.index.rebuild(progress=late)
    assert (stats.embedded, stats.reused, stats.written) == (0, 3, 3)
    assert not stale.exists() and list((root / ".aida").glob("index.sqlite.tmp-*")) == []
    assert (root / ".aida/index.sqlite").stat().st_ino != ino
    assert len(cb._embedder.texts) - n == 1 and "Written during the rebuild." in cb._embedder.texts[-1]
    assert rows(cb) == on_disk(cb) and stored_dirs(cb) == dir_mtimes(root)
    assert cb.notices == []


def test_a_rebuild_while_another_runs_does_nothing_and_says_so_unless_quiet(cb):
    with FileLock(cb.root / ".aida/rebuild.lock", timeout=0):
        assert cb.index.rebuild(quiet=True) is None
        assert cb.notices == []
        assert cb.index.rebuild() is None
        assert cb.notices == ["a rebuild is already running; it will swap the new index in when done"]


def test_an_index_of_another_version_is_rebuilt_reusing_its_vectors(cb):
    for i in range(3):
        cb.remember(f"Versioned record {i}.", key=f"v-{i}")
    conn = cb.index.conn()
    conn.execute("UPDATE meta SET v='0' WHERE k='schema'")
    conn.commit()
    cb.index.close()
    n = len(cb._embedder.texts)
    assert [h.record.key for h in cb.recall("versioned record 1", k=1, catch_up=False)] == ["v-1"]
    assert cb.notices == ["the index was made by another version or model; rebuilding it from the files"]
    assert [t for t in cb._embedder.texts[n:] if "Versioned record" in t] == []   # only the question
    assert not (cb.root / ".aida/index.sqlite.corrupt").exists()
    assert rows(cb) == on_disk(cb)


@pytest.mark.parametrize("damage", ["missing", "another version"])
def test_an_index_to_build_waits_for_the_rebuild_another_process_is_running(tmp_path, embedder, damage):
    b = Brain.init(tmp_path / "brain", embedder=embedder)
    b.remember("The billing service retries webhooks six times.", key="retries")
    b.close()
    index = tmp_path / "brain/.aida/index.sqlite"
    built = tmp_path / "built-elsewhere.sqlite"
    shutil.copy(index, built)
    if damage == "missing":
        index.unlink()
        why = "the index is missing"
    else:
        import sqlite3

        with sqlite3.connect(index) as raw:
            raw.execute("UPDATE meta SET v='0' WHERE k='schema'")
        why = "the index was made by another version or model"
    other = FileLock(tmp_path / "brain/.aida/rebuild.lock", timeout=0)
    assert other.acquire(blocking=False)
    counter = CountingEmbedder(embedder)
    b2 = Brain.open(tmp_path / "brain", embedder=counter)
    notices, waiting, out = [], threading.Event(), {}
    b2.index.notice = lambda m: (notices.append(m), waiting.set())

    def ask():
        try:
            out["hits"] = b2.recall("billing webhooks", catch_up=False)
        except BaseException as e:  # noqa: BLE001 - the test reports it
            out["error"] = e

    t = threading.Thread(target=ask)
    t.start()
    try:
        assert waiting.wait(60)
        time.sleep(0.5)            # the other rebuild takes a while (a loop that does not wait spins meanwhile)
        os.replace(built, index)   # the other process swaps its new index in, and finishes
    finally:
        other.release()
    t.join(120)
    assert not t.is_alive() and "error" not in out, out.get("error")
    assert [h.record.key for h in out["hits"]] == ["retries"]
    assert notices == [f"{why}; {'building' if damage == 'missing' else 'rebuilding'} it from the files"]
    assert [t for t in counter.texts if "webhooks six" in t] == []   # nothing was built here
    assert not (tmp_path / "brain/.aida/index.sqlite.corrupt").exists()   # the damaged one is gone too
    b2.close()


def test_a_missing_index_is_built_here_when_the_other_rebuild_stops_without_one(tmp_path, embedder):
    b = Brain.init(tmp_path / "brain", embedder=embedder)
    b.remember("The billing service retries webhooks six times.", key="retries")
    b.close()
    (tmp_path / "brain/.aida/index.sqlite").unlink()
    other = FileLock(tmp_path / "brain/.aida/rebuild.lock", timeout=0)
    assert other.acquire(blocking=False)
    b2 = Brain.open(tmp_path / "brain", embedder=embedder)
    waiting = threading.Event()
    b2.index.notice = lambda m: waiting.set()
    out = {}
    t = threading.Thread(target=lambda: out.setdefault("hits", b2.recall("billing webhooks", catch_up=False)))
    t.start()
    assert waiting.wait(60)
    time.sleep(0.5)
    other.release()   # it crashed: no index was swapped in
    t.join(120)
    assert [h.record.key for h in out["hits"]] == ["retries"]
    b2.close()
