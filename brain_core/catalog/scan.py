"""What both catalog backends share, and no SQL: the rules of the scan (which files are records,
reading, parsing and checksumming them, deciding what is new, changed, only touched or gone), the
cheap staleness check by folder times, the catch-up it leads to, the sync of ``aida brain index``, the
write path's batch, the reuse of vectors embedded ahead of a write and the detached rebuild.

:class:`CatalogBase` calls a small method for each statement (``_catalogued``, ``_problem_message``,
``_stored_dirs``, ``_store_dirs``, ``_paths_like``, ``_problem_paths``, ``_known_paths``,
``_note_dirs``, ``_tx``, ``_vectors_for``, ``apply``); :class:`~brain_core.catalog.sqlite.index.Index` and
:class:`~brain_core.catalog.postgres.index.PgIndex` each write all of them in their own dialect, so a
statement of one backend can never run on the other (``tests/catalog/test_catalog_interface.py`` checks that
this module holds none and that neither class inherits the other).
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Any, Callable

import numpy as np

from brain_core.catalog.base import ApplyStats, ScanReport
from brain_core.errors import MalformedRecord
from brain_core.store.fsutil import sweep_tmp
from brain_core.store.locks import FileLock
from brain_core.store.shelves import Doc, Problem, checksum, dir_mtimes, leaf_dirs, load_doc, walk

INDEX_NAME = "index.sqlite"  # the SQLite catalog, and the file a server catalog's rebuild reuses vectors from
APPLY_BATCH = 256  # rows written (and vectors embedded) to one transaction


def file_sum(root: Path, rel: str) -> str | None:
    """The checksum of a file's bytes; None when it cannot be read."""
    try:
        return checksum((root / rel).read_bytes())
    except OSError:
        return None


class Transaction:
    """One write transaction on a catalog connection, as ``with``: begun on entry, committed on a clean
    exit, rolled back on an error (which is then the error told) or when the commit fails. Each backend
    says how it runs a statement and which ones begin, commit and roll back."""

    BEGIN = COMMIT = ROLLBACK = ""

    def __init__(self, conn) -> None:
        self.conn = conn

    def run(self, statement: str) -> None:
        raise NotImplementedError

    def __enter__(self):
        self.run(self.BEGIN)
        return self.conn

    def __exit__(self, exc_type, *_) -> None:
        if exc_type is None:
            try:
                self.run(self.COMMIT)
            except Exception:
                self._rollback()
                raise
        else:
            self._rollback()

    def _rollback(self) -> None:
        if self.conn.in_transaction:  # the database may have rolled back already (disk full, I/O error)
            try:
                self.run(self.ROLLBACK)
            except Exception:  # noqa: BLE001 - the error that stopped the write is the one to report
                pass


class CatalogBase:
    """The backend-independent half of a catalog (see the module docstring). ``embedder_factory`` is
    called on the first text that needs a vector."""

    def __init__(self, root: Path, lock: FileLock, embedder_factory: Callable, dim: int,
                 model_id: str, notice: Callable[[str], None] | None = None) -> None:
        self.root = Path(root)
        self.dir = self.root / ".aida"
        self.path = self.dir / INDEX_NAME
        self.lock = lock
        self._embedder_factory = embedder_factory
        self._embedder = None
        self.dim = dim
        self.model_id = model_id
        self.notice = notice or (lambda msg: print(f"aida: {msg}", file=sys.stderr))
        self._conn: Any = None
        self._seeded_conn: Any = None  # the connection a rebuild seeded with the old vectors
        self._parents_changed: dict | None = None
        self.swept_tmp = 0
        self.fresh_vectors: dict[str, np.ndarray] = {}  # text_sha -> vector embedded ahead of a write

    @property
    def embedder(self):
        if self._embedder is None:
            self._embedder = self._embedder_factory()
        return self._embedder

    # -- each backend's statements ------------------------------------------------------------------

    def conn(self) -> Any:
        raise NotImplementedError

    def apply(self, report: ScanReport, conn=None, progress: Callable[[int, int], None] | None = None) -> ApplyStats:
        raise NotImplementedError

    def rebuild_running(self) -> bool:
        raise NotImplementedError

    def _catalogued(self, conn, dirs: list[str] | None) -> tuple[dict[str, tuple], dict[str, str]]:
        """What the catalog holds of the shelf folders ``dirs`` (None: all): path -> (checksum, size,
        mtime_ns) of its rows, and path -> checksum of the files it knows are bad."""
        raise NotImplementedError

    def _problem_message(self, conn, path: str) -> str:
        """Why the catalog skipped the bad file at ``path``."""
        raise NotImplementedError

    def _vectors_for(self, conn, docs: list[Doc]) -> tuple[list[np.ndarray], int]:
        raise NotImplementedError

    def _known_paths(self, conn, paths: list[str]) -> set[str]:
        """Which of ``paths`` the catalog has a row for."""
        raise NotImplementedError

    def _note_dirs(self, conn, rel: str) -> None:
        """Record the folder mtimes after our own write, so recall does not take it for a change."""
        raise NotImplementedError

    def _tx(self, conn):
        """One transaction on ``conn`` (a context manager)."""
        raise NotImplementedError

    def _stored_dirs(self, conn) -> dict[str, int]:
        """The folder times of the last scan (this clone's)."""
        raise NotImplementedError

    def _store_dirs(self, conn, seen: dict[str, int]) -> None:
        """The folder times a scan saw become the catalog's; a folder that is gone is forgotten."""
        raise NotImplementedError

    def _paths_like(self, conn, like: str) -> list[str]:
        """The catalogued paths matching the SQL pattern ``like`` (a folder's ``dir/%``)."""
        raise NotImplementedError

    def _problem_paths(self, conn) -> set[str]:
        """The paths of the bad files the catalog knows."""
        raise NotImplementedError

    # -- scan -> report -----------------------------------------------------------------------------

    def scan(self, dirs: list[str] | None = None, quick: bool = False, conn=None) -> ScanReport:
        """Compare the files with the catalog; writes nothing.

        Every file is read and checksummed, unless ``quick`` is set (the staleness catch-up on the
        recall path), where a file whose size and mtime match the catalog is taken as unchanged.
        """
        conn = conn or self.conn()
        seen_dirs = dir_mtimes(self.root)
        files, problems = walk(self.root, dirs)
        known, bad = self._catalogued(conn, dirs)
        new: list[Doc] = []
        modified: list[Doc] = []
        touched, unchanged = [], 0
        present = set()
        for f in files:
            present.add(f.path)
            old = known.get(f.path)
            if quick and old is not None and old[1] == f.size and old[2] == f.mtime_ns:
                unchanged += 1
                continue
            try:
                data = (self.root / f.path).read_bytes()
            except OSError as e:
                problems.append(Problem(f.path, f"cannot be read ({e.strerror}), skipped"))
                continue
            sum_ = checksum(data)
            if old is not None and old[0] == sum_:
                unchanged += 1
                if old[1] != f.size or old[2] != f.mtime_ns:
                    touched.append(f)
                continue
            if old is None and bad.get(f.path) == sum_:
                problems.append(Problem(f.path, self._problem_message(conn, f.path)))
                continue
            try:
                doc = load_doc(f.path, data, f.size, f.mtime_ns)
            except MalformedRecord as e:
                problems.append(Problem(f.path, e.reason + ", skipped"))
                continue
            (modified if old is not None else new).append(doc)
        problem_paths = {p.path for p in problems}
        deleted = [p for p in known if p not in present or p in problem_paths]
        return ScanReport(tuple(new), tuple(modified), tuple(deleted), tuple(problems), unchanged,
                          tuple(touched), seen_dirs)

    def vectors_for(self, docs: list[Doc]) -> tuple[list[np.ndarray], int]:
        """The vectors of ``docs``, reused by text checksum where the catalog has them, embedded
        otherwise; and how many were reused."""
        return self._vectors_for(self.conn(), docs)

    def _embed_missing(self, docs: list[Doc], out: list[np.ndarray | None]) -> tuple[list[np.ndarray], int]:
        """``out`` (a vector or None per doc) with the missing ones embedded, and how many were reused."""
        need = [i for i, v in enumerate(out) if v is None]
        if need:
            vecs = self.embedder.embed([docs[i].embed_text for i in need])
            for j, i in enumerate(need):
                out[i] = vecs[j]
        return out, len(docs) - len(need)  # type: ignore[return-value]

    def sync(self, progress=None) -> tuple[ScanReport, ApplyStats]:
        """``aida brain index``: scan everything, apply the difference."""
        with self.lock:
            self.swept_tmp = sweep_tmp(self.root)
            conn = self.conn()
            report = self.scan(conn=conn)
            stats = self.apply(report, conn=conn, progress=progress)
        return report, stats

    def index_written(self, docs: list[Doc]) -> None:
        """Index the files one write of the write path just made (``Brain.write_text``, many records
        at once), in one apply, and note their folders' times in one transaction: one fsync, not one
        per record (the caller holds the write lock)."""
        conn = self.conn()
        known = self._known_paths(conn, [d.path for d in docs])
        report = ScanReport(new=tuple(d for d in docs if d.path not in known),
                            modified=tuple(d for d in docs if d.path in known))
        self.apply(report, conn=conn)
        with self._tx(conn):
            for rel in {d.path.rsplit("/", 1)[0]: d.path for d in docs}.values():
                self._note_dirs(conn, rel)

    # -- staleness ----------------------------------------------------------------------------------

    def stale_dirs(self, conn=None) -> list[str]:
        """Shelf folders whose mtime differs from the last scan (cheap: stats folders, not files)."""
        conn = conn or self.conn()
        stored = self._stored_dirs(conn)
        now = dir_mtimes(self.root)
        changed = {d for d, m in now.items() if stored.get(d) != m}
        changed |= {d for d in stored if d not in now}
        if not changed:
            return []
        leaves = set(leaf_dirs(self.root))
        # A leaf that appeared or vanished differs by itself; a parent folder's mtime only says so.
        out = {d for d in changed if d in leaves or (d not in now and "/" in d)}
        if not out:
            self._parents_changed = now
        return sorted(out)

    def catch_up(self, limit: int = 64) -> str:
        """Bring the catalog up to date with files changed behind its back, if that is cheap.

        Returns "fresh", "caught-up", "busy" (another writer holds the lock: answer from the
        catalog as it is) or "background" (too much changed: a background rebuild was started).
        """
        conn = self.conn()
        self._parents_changed = None
        dirs = self.stale_dirs(conn)
        if not dirs and self._parents_changed is None:
            return "fresh"
        if not self.lock.acquire(blocking=False):
            return "busy"
        try:
            conn = self.conn()
            self._parents_changed = None
            dirs = self.stale_dirs(conn)
            if not dirs:
                if self._parents_changed:
                    with self._tx(conn):
                        self._store_dirs(conn, self._parents_changed)
                return "fresh"
            existing = [d for d in dirs if (self.root / d).is_dir()]
            gone = [d for d in dirs if d not in existing]
            report = self.scan(dirs=existing, quick=True, conn=conn)
            extra = []
            for d in gone:
                extra += self._paths_like(conn, d + "/%")
            if extra:
                report = ScanReport(report.new, report.modified, report.deleted + tuple(extra), report.problems,
                                    report.unchanged, report.touched, report.dirs)
            to_embed = len(report.new) + len(report.modified)
            if to_embed > limit:
                if not self.rebuild_running():
                    self.start_background_rebuild()
                return "background"
            known_bad = self._problem_paths(conn)
            self.apply(report, conn=conn)
            for p in report.problems:  # a bad file that just arrived: one warning, then lint lists it
                if p.path not in known_bad:
                    self.notice(f"warning: {p.path} {p.message} (see `aida brain lint`)")
            return "caught-up"
        finally:
            self.lock.release()

    # -- rebuild --------------------------------------------------------------------------------------

    def start_background_rebuild(self) -> None:
        """Start ``aida brain index --full`` detached; recall keeps answering from this catalog."""
        log = open(self.dir / "rebuild.log", "ab")
        kwargs: dict = {"stdin": subprocess.DEVNULL, "stdout": log, "stderr": log, "cwd": str(self.root)}
        if os.name == "nt":
            kwargs["creationflags"] = 0x00000008 | 0x00000200  # DETACHED_PROCESS | CREATE_NEW_PROCESS_GROUP
        else:
            kwargs["start_new_session"] = True
        from brain_core.config.selfcmd import aida_argv

        subprocess.Popen(aida_argv("--brain", str(self.root), "brain", "index", "--full"), **kwargs)
        log.close()
