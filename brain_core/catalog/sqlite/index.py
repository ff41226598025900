"""The card catalog: scan -> report -> apply, by content checksum; full rebuild with an atomic swap.

The files are the truth. :meth:`Index.scan` compares the shelves with the catalog and returns a
frozen :class:`ScanReport` without writing anything; :meth:`Index.apply` is the one place that
writes it. A vector is computed only for text the catalog has never embedded: a moved or
unchanged file reuses its vector by the checksum of its text, so ``git pull``, a rename to
``archive/`` or a deleted ``.aida/`` never re-embeds what was already embedded.

A full rebuild writes a new file beside the old one and swaps it in with ``os.replace`` while
holding the brain's write lock; a reader that opened the old file keeps reading it, and the next
query reopens the new one (the inode changed). A crash mid-rebuild leaves the old index in place
and at most a ``.tmp-`` file that the next rebuild removes.
"""

from __future__ import annotations

import os
import time
from pathlib import Path
from typing import Callable, Sequence

import numpy as np

from brain_core.catalog.base import ApplyStats, ScanReport
from brain_core.catalog.scan import APPLY_BATCH, INDEX_NAME, CatalogBase, file_sum
from brain_core.catalog.sqlite import db as dbmod
from brain_core.catalog.sqlite.db import header_problem
from brain_core.catalog.sqlite.rows import delete, drop_seed, store_dirs, tx, upsert
from brain_core.catalog.sqlite.seed import read_vectors
from brain_core.catalog.sqlite.vcache import VectorCache, plausible_vector
from brain_core.store.fsutil import discard
from brain_core.store.locks import FileLock
from brain_core.store.shelves import Doc, Problem, load_doc

TMP_PREFIX = INDEX_NAME + ".tmp-"
REBUILD_WAIT_S = 3600.0  # how long opening a brain waits for another process's rebuild


class Index(CatalogBase):
    """One brain's catalog in ``.aida/index.sqlite`` (a :class:`~brain_core.catalog.base.Catalog`).
    ``embedder_factory`` is called on the first text that needs a vector. The scan's rules, the
    staleness check and catch-up are :class:`~brain_core.catalog.scan.CatalogBase`'s; every statement
    is written here."""

    backend = "sqlite"

    def __init__(self, root: Path, lock: FileLock, embedder_factory: Callable, dim: int = 384,
                 model_id: str = "all-MiniLM-L6-v2-int8/mean-of-windows", notice: Callable[[str], None] | None = None,
                 vector_cache_mb: int = 256) -> None:
        super().__init__(root, lock, embedder_factory, dim=dim, model_id=model_id, notice=notice)
        self._ino: int | None = None
        self.vector_cache_mb = vector_cache_mb
        self._vcache: VectorCache | None = None   # the vectors of ``_conn``'s catalog in memory (vcache.py)
        self._vcache_version: int | None = None
        self._vector_searches = 0

    # -- connection -------------------------------------------------------------------------

    def conn(self):
        """An open connection to the current index file, reopened after a swap, created (and
        filled from the files) when missing, rebuilt when corrupt."""
        try:
            ino = os.stat(self.path).st_ino
        except FileNotFoundError:
            ino = None
        if self._conn is not None and ino == self._ino:
            return self._conn
        self.close()
        if ino is None:
            self._create_from_files("the index is missing; building it from the files")
            return self.conn()
        problem = header_problem(self.path)
        if problem is None:
            try:
                conn = dbmod.connect(self.path)
                row = conn.execute("SELECT v FROM meta WHERE k='schema'").fetchone()
                model = conn.execute("SELECT v FROM meta WHERE k='model'").fetchone()
                if not row or row[0] != dbmod.SCHEMA_VERSION or not model or model[0] != self.model_id:
                    conn.close()
                    problem = "the index was made by another version or model"
                else:
                    dbmod.upgrade(conn)
                    self._conn, self._ino = conn, ino
                    return conn
            except dbmod.database_errors() as e:
                problem = f"the index is unreadable ({e})"
        self.recover(problem)
        return self.conn()

    def close(self) -> None:
        if self._conn is not None:
            try:
                self._conn.close()
            except Exception:  # noqa: BLE001 - closing a broken connection must not mask the cause
                pass
        self._conn, self._ino = None, None
        self._vcache = None

    # -- the vectors in memory ----------------------------------------------------------------------

    def vectors(self) -> VectorCache | None:
        """The catalog's vectors in memory, current with the file, from this process's second vector
        search on (a one-shot command is quicker searching the file); None when that is off or the
        brain is larger than ``index.vector_cache_mb``."""
        conn = self.conn()
        if self.vector_cache_mb <= 0:
            return None
        version = conn.execute("PRAGMA data_version").fetchone()[0]
        if self._vcache is not None and self._vcache_version == version:
            return self._vcache
        self._vcache = None
        self._vector_searches += 1
        if self._vector_searches < 2:
            return None
        top = conn.execute("SELECT max(rowid) FROM docs").fetchone()[0] or 0
        if top * self.dim * 4 > self.vector_cache_mb * 2**20:
            return None
        self._vcache, self._vcache_version = VectorCache.load(conn, self.dim), version
        return self._vcache

    def _cache_written(self, conn, written: list[tuple[int, Doc, np.ndarray]], dropped: Sequence[int] = ()) -> None:
        """Our own committed writes into the vectors in memory (another connection's are seen by
        ``PRAGMA data_version`` and reloaded)."""
        if self._vcache is not None and conn is self._conn:
            self._vcache.written(written, dropped)

    def recover(self, reason: str) -> None:
        """Move a broken index aside and rebuild it from the files, with a one-line notice."""
        self.close()
        with self.lock:
            discard(self.dir / f"{INDEX_NAME}.corrupt")
            try:
                os.replace(self.path, self.dir / f"{INDEX_NAME}.corrupt")
            except FileNotFoundError:
                pass
        self._create_from_files(f"{reason}; rebuilding it from the files")

    def _create_from_files(self, why: str) -> None:
        self.notice(why)
        corrupt = self.dir / f"{INDEX_NAME}.corrupt"
        while self.rebuild(reuse_from=corrupt, quiet=True) is None:
            # another process is building it (a tray and a CLI opened a fresh clone at once):
            # wait for it, and use its index, or build one if it stopped without swapping one in
            self.wait_for_rebuild()
            if self.path.exists():
                break
        discard(corrupt)

    # -- scan -> report -> apply -----------------------------------------------------------------

    def _catalogued(self, conn, dirs: list[str] | None) -> tuple[dict[str, tuple], dict[str, str]]:
        """What the catalog holds of the shelf folders ``dirs`` (None: all): path -> (checksum, size,
        mtime_ns) of its rows, and path -> checksum of the files it knows are bad."""
        if dirs is None:
            known = {p: (c, s, m) for p, c, s, m in conn.execute("SELECT path, checksum, size, mtime_ns FROM docs")}
            bad = dict(conn.execute("SELECT path, checksum FROM problems"))
            return known, bad
        known, bad = {}, {}
        for d in dirs:
            like = d.replace("%", "\\%").replace("_", "\\_") + "/%"
            for p, c, s, m in conn.execute("SELECT path, checksum, size, mtime_ns FROM docs WHERE path LIKE ? "
                                           "ESCAPE '\\' AND path NOT LIKE ? ESCAPE '\\'", (like, like + "/%")):
                known[p] = (c, s, m)
            for p, c in conn.execute("SELECT path, checksum FROM problems WHERE path LIKE ? ESCAPE '\\'", (like,)):
                bad[p] = c
        return known, bad

    def _problem_message(self, conn, path: str) -> str:
        return conn.execute("SELECT message FROM problems WHERE path=?", (path,)).fetchone()[0]

    def apply(self, report: ScanReport, conn=None, progress: Callable[[int, int], None] | None = None) -> ApplyStats:
        """Write a report into the catalog. The caller holds the brain's write lock."""
        conn = conn or self.conn()
        t0 = time.perf_counter()
        stats = ApplyStats()
        docs = list(report.new) + list(report.modified)
        dropped = []
        with tx(conn):
            for p in report.problems:
                conn.execute("INSERT OR REPLACE INTO problems VALUES(?,?,?)", (p.path, p.message, file_sum(self.root, p.path)))
            for f in report.touched:
                conn.execute("UPDATE docs SET size=?, mtime_ns=? WHERE path=?", (f.size, f.mtime_ns, f.path))
        # rows of deleted files go last: a file moved or renamed finds its vector in its old row
        for start in range(0, len(docs), APPLY_BATCH):
            batch = docs[start:start + APPLY_BATCH]
            vectors, reused = self._vectors_for(conn, batch)
            stats.reused += reused
            stats.embedded += len(batch) - reused
            written = []
            with tx(conn):
                for doc, vec in zip(batch, vectors):
                    written.append((upsert(conn, doc, vec), doc, vec))
                    conn.execute("DELETE FROM problems WHERE path=?", (doc.path,))
                stats.written += len(batch)
            self._cache_written(conn, written)
            if progress:
                progress(min(start + APPLY_BATCH, len(docs)), len(docs))
        with tx(conn):
            for path in report.deleted:
                dropped.append(delete(conn, path))
                stats.deleted += bool(dropped[-1])
            problem_paths = {p.path for p in report.problems}
            for (path,) in conn.execute("SELECT path FROM problems").fetchall():
                if path not in problem_paths and not (self.root / path).exists():
                    conn.execute("DELETE FROM problems WHERE path=?", (path,))
            if report.dirs is not None:
                self._store_dirs(conn, report.dirs)
            conn.execute("INSERT OR REPLACE INTO meta VALUES('scanned', ?)", (str(time.time()),))
        self._cache_written(conn, [], dropped)
        stats.seconds = time.perf_counter() - t0
        return stats

    def _vectors_for(self, conn, docs: list[Doc]) -> tuple[list[np.ndarray], int]:
        out: list[np.ndarray | None] = [None] * len(docs)
        for i, doc in enumerate(docs):
            row = conn.execute("SELECT v.embedding FROM docs d JOIN docs_vec v ON v.rowid = d.rowid "
                               "WHERE d.text_sha = ? LIMIT 1", (doc.text_sha,)).fetchone()
            if row is None and doc.text_sha in self.fresh_vectors:
                out[i] = self.fresh_vectors.pop(doc.text_sha)
                continue
            if row is None and conn is self._seeded_conn:
                row = conn.execute("SELECT embedding FROM temp.seed WHERE text_sha = ?", (doc.text_sha,)).fetchone()
            if row is not None:
                out[i] = np.frombuffer(row[0], dtype=np.float32)
        return self._embed_missing(docs, out)

    # -- the write path's single-file update -------------------------------------------------------

    def upsert_file(self, rel: str, data: bytes) -> None:
        """Index one file the write path just wrote (caller holds the write lock)."""
        conn = self.conn()
        full = self.root / rel
        st = full.stat()
        doc = load_doc(rel, data, st.st_size, st.st_mtime_ns)
        vectors, _ = self._vectors_for(conn, [doc])
        with tx(conn):
            rowid = upsert(conn, doc, vectors[0])
            self._note_dirs(conn, rel)
        self._cache_written(conn, [(rowid, doc, vectors[0])])

    def _known_paths(self, conn, paths: list[str]) -> set[str]:
        return {p for (p,) in conn.execute(f"SELECT path FROM docs WHERE path IN ({','.join('?' * len(paths))})",
                                           paths)}

    def remove_file(self, rel: str) -> None:
        conn = self.conn()
        with tx(conn):
            rowid = delete(conn, rel)
            self._note_dirs(conn, rel)
        self._cache_written(conn, [], [rowid])

    def _note_dirs(self, conn, rel: str) -> None:
        """Record the folder mtimes after our own write, so recall does not take it for a change."""
        parts = rel.split("/")[:-1]
        for i in range(1, len(parts) + 1):
            sub = "/".join(parts[:i])
            try:
                conn.execute("INSERT OR REPLACE INTO dirs VALUES(?,?)", (sub, os.stat(self.root / sub).st_mtime_ns))
            except FileNotFoundError:
                pass

    # -- staleness ----------------------------------------------------------------------------------

    # The statements of CatalogBase's staleness check and catch-up.

    def _tx(self, conn):
        return tx(conn)

    def _stored_dirs(self, conn) -> dict[str, int]:
        return dict(conn.execute("SELECT path, mtime_ns FROM dirs"))

    def _store_dirs(self, conn, seen: dict[str, int]) -> None:
        store_dirs(conn, seen)

    def _paths_like(self, conn, like: str) -> list[str]:
        return [p for (p,) in conn.execute("SELECT path FROM docs WHERE path LIKE ?", (like,))]

    def _problem_paths(self, conn) -> set[str]:
        return {p for (p,) in conn.execute("SELECT path FROM problems")}

    # -- full rebuild ------------------------------------------------------------------------------

    def rebuild(self, reuse_from: Path | None = None, quiet: bool = False, progress=None) -> ApplyStats | None:
        """Build a new catalog from the files into a temp file and swap it in atomically.

        Returns None when another rebuild holds the rebuild lock (it will do the work)."""
        self.dir.mkdir(parents=True, exist_ok=True)
        rlock = FileLock(self.dir / "rebuild.lock", timeout=0)
        if not rlock.acquire(blocking=False):
            if not quiet:
                self.notice("a rebuild is already running; it will swap the new index in when done")
            return None
        try:
            for stale in self.dir.glob(TMP_PREFIX + "*"):
                try:
                    stale.unlink()
                except FileNotFoundError:
                    pass
            tmp = self.dir / f"{TMP_PREFIX}{os.getpid()}"
            conn = dbmod.connect(tmp)
            dbmod.create_schema(conn, self.dim, self.model_id)
            self._seed_vectors(conn, reuse_from or self.path)
            report = self.scan(conn=conn)
            stats = self.apply(report, conn=conn, progress=progress)
            with self.lock:
                # Catch up with whatever was written while we built, then swap under the lock.
                late = self.scan(conn=conn)
                if late.changes or late.problems:
                    self.apply(late, conn=conn)
                drop_seed(conn)
                self._seeded_conn = None
                conn.close()
                self.close()
                os.replace(tmp, self.path)
                from brain_core.store.fsutil import fsync_dir

                fsync_dir(self.dir)
            return stats
        finally:
            rlock.release()

    def _seed_vectors(self, conn, old: Path) -> None:
        """Make the old catalog's vectors available by text checksum, so a rebuild embeds only
        text it has never seen."""
        rows = read_vectors(old, self.model_id)
        if not rows:
            return
        rows = [(sha, blob) for sha, blob in rows if plausible_vector(blob, self.dim)]  # none from damaged pages
        conn.execute("CREATE TEMP TABLE seed(text_sha TEXT PRIMARY KEY, embedding BLOB)")
        conn.executemany("INSERT OR IGNORE INTO seed VALUES(?,?)", rows)
        self._seeded_conn = conn

    def wait_for_rebuild(self) -> None:
        """Block until no rebuild of this brain is running (a BrainError after an hour)."""
        with FileLock(self.dir / "rebuild.lock", timeout=REBUILD_WAIT_S):
            pass

    def rebuild_running(self) -> bool:
        rlock = FileLock(self.dir / "rebuild.lock", timeout=0)
        try:
            got = rlock.acquire(blocking=False)
        except OSError:
            return False  # a read-only brain: no rebuild can be running in it
        if got:
            rlock.release()
            return False
        return True

    # -- reading ------------------------------------------------------------------------------------

    def has_project(self, project: str) -> bool:
        """Whether any record is tagged ``project:<project>`` (one keyword lookup, which may also
        match the words apart: True means "maybe", False "none")."""
        words = " ".join(f'"{w}"' for w in ["project", *project.split("-")] if w)
        return self.conn().execute("SELECT 1 FROM docs_fts WHERE docs_fts MATCH ? LIMIT 1",
                                   (f"tags : ({words})",)).fetchone() is not None

    def holds_words(self, groups: list[tuple[str, ...]]) -> bool:
        """Whether one record holds every word of one of ``groups`` (one FTS5 query)."""
        query = " OR ".join("(" + " AND ".join(f'"{w}"' for w in group) + ")" for group in groups)
        return self.conn().execute("SELECT 1 FROM docs_fts WHERE docs_fts MATCH ? LIMIT 1", (query,)).fetchone() is not None

    def stored_vectors(self, paths: list[str]) -> dict[str, np.ndarray]:
        """The catalog's vectors of the files at ``paths`` (L2-normalised, as the embedder makes
        them); a path the catalog lacks is left out."""
        out: dict[str, np.ndarray] = {}
        conn = self.conn()
        for start in range(0, len(paths), 500):
            chunk = paths[start:start + 500]
            rows = conn.execute(f"SELECT d.path, v.embedding FROM docs d JOIN docs_vec v ON v.rowid = d.rowid "
                                f"WHERE d.path IN ({','.join('?' * len(chunk))})", chunk).fetchall()
            out.update((p, np.frombuffer(e, dtype=np.float32)) for p, e in rows)
        return out

    def counts(self) -> dict:
        conn = self.conn()
        by_shelf = dict(conn.execute("SELECT shelf, count(*) FROM docs GROUP BY shelf"))
        problems = [Problem(p, m) for p, m in conn.execute("SELECT path, message FROM problems ORDER BY path")]
        scanned = conn.execute("SELECT v FROM meta WHERE k='scanned'").fetchone()
        return {"by_shelf": by_shelf, "problems": problems, "scanned": float(scanned[0]) if scanned else None}
