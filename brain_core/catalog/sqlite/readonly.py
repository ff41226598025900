"""The session-start hook's read-only glance at the SQLite files, kept light: the standard library's
``sqlite3`` alone (no sqlean, no sqlite-vec, no numpy), one query each, and nothing when a file is
missing, busy or unreadable, so the hook falls back to the files. The hook runs at the start of every
agent session, where the catalog proper (``Index.conn``: the driver with sqlite-vec loaded, the
schema check, a rebuild when it is stale) would cost more than the whole hook
(benchmarks/bench_session_start.py)."""

from __future__ import annotations

from pathlib import Path


def _rows(db: Path, sql: str) -> list[tuple]:
    import sqlite3

    if not db.is_file():
        return []
    try:
        conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=0.5)
        try:
            return conn.execute(sql).fetchall()
        finally:
            conn.close()
    except sqlite3.Error:
        return []


def memory_rows(root: Path) -> dict[str, tuple]:
    """path -> (type, tags JSON, created, body, checksum) of the memories the catalog
    (``.aida/index.sqlite``) holds; empty when it cannot be read."""
    return {r[0]: r[1:] for r in _rows(Path(root) / ".aida" / "index.sqlite",
                                       "SELECT path, type, tags, created, body, checksum FROM docs WHERE shelf = 'memories'")}


def use_counts(root: Path) -> dict[str, tuple[int, float]]:
    """path -> (uses, last use) from ``.aida/usage.sqlite``; empty when it cannot be read."""
    return {p: (u, t) for p, u, t in _rows(Path(root) / ".aida" / "usage.sqlite", "SELECT path, uses, last FROM usage")}
