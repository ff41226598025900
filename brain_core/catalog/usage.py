"""When each record helped: the input of the use lift and of decay.

A record is *used* when it helped, not when it was shown: an answer cited it, the user opened or
copied it from the popup, or gave a thumbs-up to an answer that cited it
(:meth:`brain_core.brain.Brain.mark_used`). Being returned by a recall is not a use.

Local state in ``.aida/usage.sqlite`` (WAL, never swapped), apart from the catalog so that a
rebuild keeps it. It is not part of the brain's truth: losing it only makes every record look
unused, which decay treats gently.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

from brain_core.catalog.sqlite import db as dbmod

# What counts as a use: the record helped.
USE_REASONS = ("cited", "opened", "copied", "thumbs-up")


def _errors() -> tuple[type[BaseException], ...]:
    """What a read-only, busy or damaged usage file raises (never the caller's problem)."""
    return (OSError, *dbmod.database_errors())


class Usage:
    def __init__(self, path: Path) -> None:
        self.path = Path(path)
        self._conn: Any = None

    def _c(self):
        if self._conn is None:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            conn = dbmod.driver().connect(str(self.path), timeout=5.0, isolation_level=None, check_same_thread=False)
            conn.execute("PRAGMA journal_mode=WAL")
            conn.execute("PRAGMA synchronous=NORMAL")
            conn.execute("CREATE TABLE IF NOT EXISTS usage(path TEXT PRIMARY KEY, uses INTEGER NOT NULL, last REAL NOT NULL)")
            conn.execute("CREATE TABLE IF NOT EXISTS reasons(path TEXT NOT NULL, why TEXT NOT NULL, n INTEGER NOT NULL, "
                         "PRIMARY KEY(path, why))")
            self._conn = conn
        return self._conn

    def get(self, paths: list[str]) -> dict[str, tuple[int, float]]:
        if not paths:
            return {}
        try:
            conn = self._c()
            out = {}
            for start in range(0, len(paths), 500):
                chunk = paths[start:start + 500]
                q = "SELECT path, uses, last FROM usage WHERE path IN (%s)" % ",".join("?" * len(chunk))
                out.update({p: (u, t) for p, u, t in conn.execute(q, chunk)})
            return out
        except _errors():  # read-only brain: no use known, none noted
            return {}  # usage is advisory: a damaged file means "no usage known"

    def reasons(self, path: str) -> dict[str, int]:
        """How many uses of each kind one record had (``{"cited": 3, "copied": 1}``)."""
        try:
            return dict(self._c().execute("SELECT why, n FROM reasons WHERE path = ?", [path]).fetchall())
        except _errors():
            return {}

    def bump(self, paths: list[str], when: float | None = None, why: str = "cited") -> None:
        if not paths:
            return
        when = when or time.time()
        paths = list(dict.fromkeys(paths))  # one use per record per signal
        try:
            conn = self._c()
            conn.execute("BEGIN")
            conn.executemany("INSERT INTO usage VALUES(?, 1, ?) ON CONFLICT(path) DO UPDATE SET uses = uses + 1, last = ?",
                             [(p, when, when) for p in paths])
            conn.executemany("INSERT INTO reasons VALUES(?, ?, 1) ON CONFLICT(path, why) DO UPDATE SET n = n + 1",
                             [(p, why) for p in paths])
            conn.execute("COMMIT")
        except _errors():
            try:
                self._conn.execute("ROLLBACK")
            except Exception:  # noqa: BLE001 - nothing was open, or the file is gone
                pass
            # a busy or damaged usage file must never fail the caller; decay just sees no use

    def close(self) -> None:
        if self._conn is not None:
            self._conn.close()
            self._conn = None
