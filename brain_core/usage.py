"""How often and how lately each record was recalled: the input of decay.

Local state in ``.aida/usage.sqlite`` (WAL, never swapped), apart from the catalog so that a
rebuild keeps it. It is not part of the brain's truth: losing it only makes every record look
unused, which decay treats gently.
"""

from __future__ import annotations

import time
from pathlib import Path

from . import db as dbmod


class Usage:
    def __init__(self, path: Path) -> None:
        self.path = Path(path)
        self._conn = None

    def _c(self):
        if self._conn is None:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            conn = dbmod.driver().connect(str(self.path), timeout=5.0, isolation_level=None, check_same_thread=False)
            conn.execute("PRAGMA journal_mode=WAL")
            conn.execute("PRAGMA synchronous=NORMAL")
            conn.execute("CREATE TABLE IF NOT EXISTS usage(path TEXT PRIMARY KEY, uses INTEGER NOT NULL, last REAL NOT NULL)")
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
        except dbmod.database_errors():
            return {}  # usage is advisory: a damaged file means "no usage known"

    def bump(self, paths: list[str], when: float | None = None) -> None:
        if not paths:
            return
        when = when or time.time()
        try:
            conn = self._c()
            conn.executemany("INSERT INTO usage VALUES(?, 1, ?) ON CONFLICT(path) DO UPDATE SET uses = uses + 1, last = ?",
                             [(p, when, when) for p in paths])
        except dbmod.database_errors():
            pass  # a busy or damaged usage file must never fail a recall; decay just sees no use

    def close(self) -> None:
        if self._conn is not None:
            self._conn.close()
            self._conn = None
