"""The card catalog's one interface: what the rest of ``brain_core`` may ask of a brain's catalog.

Two backends satisfy :class:`Catalog`: :class:`brain_core.catalog.sqlite.index.Index` (a file,
``.aida/index.sqlite``) and :class:`brain_core.catalog.postgres.index.PgIndex` (a schema on a
server); :func:`brain_core.catalog.factory.open_index` picks one. The scan's report and the apply's
figures are shared by both, so they live here too. ``tests/catalog/test_catalog_interface.py`` checks that
both classes carry every member with a compatible signature, and mypy checks ``open_index``'s
return against this protocol.

Recall's statements are not methods here but a module per backend, :mod:`brain_core.recall.sqlite`
and :mod:`brain_core.recall.postgres` (chosen by :attr:`Catalog.backend` in
:mod:`brain_core.recall.backends`), run on :meth:`Catalog.conn` (and ``PgIndex.side_conn``); the
ranking code above them holds no SQL. The rules both backends' scans follow are
:class:`brain_core.catalog.scan.CatalogBase`'s.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Protocol, runtime_checkable

from brain_core.store.shelves import Doc, FileInfo, Problem

if TYPE_CHECKING:
    import numpy as np

    from brain_core.catalog.sqlite.vcache import VectorCache
    from brain_core.store.locks import FileLock


@dataclass(frozen=True)
class ScanReport:
    """What :meth:`Catalog.scan` found: the difference between the shelves and the catalog."""

    new: tuple[Doc, ...] = ()
    modified: tuple[Doc, ...] = ()
    deleted: tuple[str, ...] = ()
    problems: tuple[Problem, ...] = ()
    unchanged: int = 0
    touched: tuple[FileInfo, ...] = ()     # same content, new stat (git checkout): metadata only
    dirs: dict | None = None  # every shelf folder's mtime when scanned, stored by apply (None: not scanned)

    @property
    def changes(self) -> int:
        return len(self.new) + len(self.modified) + len(self.deleted)

    def summary(self) -> str:
        return (f"{len(self.new)} new, {len(self.modified)} changed, {len(self.deleted)} deleted, "
                f"{self.unchanged} unchanged, {len(self.problems)} skipped")


@dataclass
class ApplyStats:
    """What :meth:`Catalog.apply` did."""

    embedded: int = 0
    reused: int = 0
    written: int = 0
    deleted: int = 0
    held: int = 0  # rows left alone: newer versions from another clone's commits (server catalog)
    seconds: float = 0.0


@runtime_checkable
class Catalog(Protocol):
    """One brain's card catalog, whichever backend holds it.

    The files are the truth; a catalog is a disposable index of them. Writes into it happen under
    the brain's write lock (:attr:`lock`), which the caller holds unless a method says otherwise.
    """

    backend: str
    """Which backend this is, ``"sqlite"`` or ``"postgres"``: the one way the rest of brain_core tells them apart."""
    root: Path
    """The brain's folder."""
    dir: Path
    """The brain's ``.aida`` folder (locks, logs, the SQLite file)."""
    path: Path
    """``.aida/index.sqlite``: the SQLite catalog, and on PostgreSQL the local file a rebuild reuses
    vectors from (the migration from SQLite)."""
    lock: FileLock
    """The brain's write lock."""
    dim: int
    """The vectors' dimension."""
    model_id: str
    """The embedder the vectors were made with; a catalog made with another is rebuilt."""
    notice: Callable[[str], None]
    """Where one-line notices go (a rebuild, a recovery)."""
    fresh_vectors: dict[str, np.ndarray]
    """Vectors embedded ahead of a write, by text checksum: the write that follows reuses them."""
    swept_tmp: int
    """How many temp files the last :meth:`sync` removed."""

    @property
    def embedder(self) -> Any:
        """The embedder, made on first use."""
        ...

    # -- connection

    def conn(self) -> Any:
        """An open connection to the catalog, created (and filled from the files) when missing,
        rebuilt when it was made by another version or model."""
        ...

    def close(self) -> None:
        """Close every connection; the next call to :meth:`conn` opens a new one."""
        ...

    def recover(self, reason: str) -> None:
        """After a failed query: repair what is broken (SQLite rebuilds a damaged file; PostgreSQL
        reconnects), with a one-line notice saying ``reason``."""
        ...

    # -- scan -> report -> apply

    def scan(self, dirs: list[str] | None = None, quick: bool = False, conn: Any = None) -> ScanReport:
        """Compare the files (all, or the shelf folders ``dirs``) with the catalog; writes nothing.
        ``quick`` takes a file whose size and mtime match as unchanged."""
        ...

    def apply(self, report: ScanReport, conn: Any = None,
              progress: Callable[[int, int], None] | None = None) -> ApplyStats:
        """Write a report into the catalog (the caller holds the write lock)."""
        ...

    def sync(self, progress: Callable[[int, int], None] | None = None) -> tuple[ScanReport, ApplyStats]:
        """``aida brain index``: scan everything and apply the difference (takes the write lock)."""
        ...

    def catch_up(self, limit: int = 64) -> str:
        """Index what changed behind the catalog's back, if cheap: "fresh", "caught-up", "busy" or
        "background" (a background rebuild was started)."""
        ...

    # -- the write path

    def upsert_file(self, rel: str, data: bytes) -> None:
        """Index one file the write path just wrote (the caller holds the write lock)."""
        ...

    def remove_file(self, rel: str) -> None:
        """Drop one file's row after the write path removed or moved it (the caller holds the lock)."""
        ...

    def index_written(self, docs: list[Doc]) -> None:
        """Index the files one write of the write path just made, in one apply, and note their
        folders' times once (the caller holds the write lock)."""
        ...

    def vectors_for(self, docs: list[Doc]) -> tuple[list[np.ndarray], int]:
        """The vectors of ``docs``: reused by text checksum where the catalog has them, embedded
        otherwise; and how many were reused."""
        ...

    # -- rebuild

    def rebuild(self, reuse_from: Path | None = None, quiet: bool = False,
                progress: Callable[[int, int], None] | None = None) -> ApplyStats | None:
        """Build the catalog anew from the files and swap it in atomically, reusing vectors by text
        checksum (from ``reuse_from`` too). None when another rebuild is running."""
        ...

    def start_background_rebuild(self) -> None:
        """Start ``aida brain index --full`` detached; the catalog keeps answering meanwhile."""
        ...

    def wait_for_rebuild(self) -> None:
        """Block until no rebuild of this brain is running."""
        ...

    def rebuild_running(self) -> bool:
        """Whether a rebuild of this brain is running now."""
        ...

    # -- reading

    def stored_vectors(self, paths: list[str]) -> dict[str, np.ndarray]:
        """The catalog's vectors of the files at ``paths`` (L2-normalised); paths it lacks are left out."""
        ...

    def holds_words(self, groups: list[tuple[str, ...]]) -> bool:
        """Whether one record holds every word of at least one of ``groups`` (one keyword query;
        the words are the question's content words, already plain)."""
        ...

    def has_project(self, project: str) -> bool:
        """Whether any record may carry the tag ``project:<project>``: False only when the backend
        can tell cheaply that none does."""
        ...

    def counts(self) -> dict:
        """``{"by_shelf": {shelf: rows}, "problems": [Problem], "scanned": time of the last scan}``."""
        ...

    def vectors(self) -> VectorCache | None:
        """The catalog's vectors in memory for a process that searches more than once, or None
        (SQLite's cache; None where a backend keeps none)."""
        ...
