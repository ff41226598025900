"""Row-level writes of the card catalog: one document's row, FTS entry and vector, together.

Callers hold the brain's write lock and wrap these in :class:`tx`.
"""

from __future__ import annotations

import numpy as np

from brain_core.catalog.scan import Transaction
from brain_core.store.shelves import Doc, created_ts, json_tags


class tx(Transaction):
    """One write transaction on the SQLite catalog (BEGIN IMMEDIATE: the write lock at once)."""

    BEGIN, COMMIT, ROLLBACK = "BEGIN IMMEDIATE", "COMMIT", "ROLLBACK"

    def run(self, statement: str) -> None:
        self.conn.execute(statement)


def upsert(conn, doc: Doc, vec: np.ndarray) -> int:
    """Write one document; its rowid."""
    r = doc.record
    row = conn.execute("SELECT rowid FROM docs WHERE path=?", (doc.path,)).fetchone()
    values = (doc.shelf, r.id, r.key, r.type, r.profile, json_tags(r), r.body, r.source, r.created,
              created_ts(r), r.expires, doc.checksum, doc.text_sha, doc.size, doc.mtime_ns)
    if row is None:
        cur = conn.execute("INSERT INTO docs(shelf, id, key, type, profile, tags, body, source, created, created_ts, "
                           "expires, checksum, text_sha, size, mtime_ns, path) VALUES(?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
                           values + (doc.path,))
        rowid = cur.lastrowid
    else:
        rowid = row[0]
        conn.execute("UPDATE docs SET shelf=?, id=?, key=?, type=?, profile=?, tags=?, body=?, source=?, created=?, "
                     "created_ts=?, expires=?, checksum=?, text_sha=?, size=?, mtime_ns=? WHERE rowid=?",
                     values + (rowid,))
        conn.execute("DELETE FROM docs_fts WHERE rowid=?", (rowid,))
        conn.execute("DELETE FROM docs_vec WHERE rowid=?", (rowid,))
    conn.execute("INSERT INTO docs_fts(rowid, key, body, tags) VALUES(?,?,?,?)",
                 (rowid, r.key.replace("-", " "), r.body, " ".join(r.tags).replace(":", " ")))
    conn.execute("INSERT INTO docs_vec(rowid, embedding, shelf, profile, type) VALUES(?,?,?,?,?)",
                 (rowid, np.asarray(vec, dtype=np.float32).tobytes(), doc.shelf, r.profile, r.type))
    return rowid


def delete(conn, path: str) -> int:
    """Remove one document; its rowid (0 when it was not there)."""
    row = conn.execute("SELECT rowid FROM docs WHERE path=?", (path,)).fetchone()
    if row is None:
        return 0
    conn.execute("DELETE FROM docs_fts WHERE rowid=?", (row[0],))
    conn.execute("DELETE FROM docs_vec WHERE rowid=?", (row[0],))
    conn.execute("DELETE FROM docs WHERE rowid=?", (row[0],))
    return row[0]


def drop_seed(conn) -> None:
    conn.execute("DROP TABLE IF EXISTS temp.seed")


def store_dirs(conn, seen: dict[str, int]) -> None:
    """The folder times a scan saw become the catalog's, and a folder that is gone is forgotten:
    left behind, it would look changed to every recall after it (a catch-up each time)."""
    gone = [(p,) for (p,) in conn.execute("SELECT path FROM dirs").fetchall() if p not in seen]
    conn.executemany("DELETE FROM dirs WHERE path=?", gone)
    conn.executemany("INSERT OR REPLACE INTO dirs VALUES(?,?)", list(seen.items()))
