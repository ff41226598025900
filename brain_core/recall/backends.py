"""Which module holds recall's statements: :mod:`brain_core.recall.sqlite` or
:mod:`brain_core.recall.postgres`, by the catalog's backend (``index.backend``). Both define the same
functions (filters, gather, neighbours, rows, newest, word_counts, matching, fill_candidates, words,
link_candidates);
the ranking code above them holds no SQL."""

from __future__ import annotations

from types import ModuleType


def statements(backend: str) -> ModuleType:
    """The statements of ``backend`` (``"sqlite"`` or ``"postgres"``, as ``index.backend`` says)."""
    if backend == "postgres":
        from brain_core.recall import postgres

        return postgres
    from brain_core.recall import sqlite

    return sqlite


def of(conn) -> ModuleType:
    """The statements of the catalog this connection belongs to: the server catalog's connection
    (:class:`~brain_core.catalog.postgres.index.PgConn`) carries its ``backend`` as the catalog does;
    a SQLite connection is the driver's own class, which carries none."""
    return statements(getattr(conn, "backend", "sqlite"))
