"""Vectors by text checksum between a SQLite catalog file and a rebuild: what a rebuild reuses so it
embeds only text it has never seen (a SQLite rebuild from the old file, a server rebuild from the local
file: the migration to PostgreSQL), and the small file a server catalog's vectors are written to on the
way back."""

from __future__ import annotations

from pathlib import Path

from brain_core.catalog.sqlite import db as dbmod
from brain_core.catalog.sqlite.db import header_problem


def read_vectors(path: Path, model_id: str) -> list[tuple[str, bytes]]:
    """(text checksum, float32 bytes) of every vector in the SQLite catalog at ``path`` made with
    ``model_id``; none when the file is missing, damaged in its header, unreadable or another model's."""
    path = Path(path)
    if not path.exists() or header_problem(path) is not None:
        return []
    try:
        src = dbmod.connect(path, readonly=True)
        try:
            model = src.execute("SELECT v FROM meta WHERE k='model'").fetchone()
            if not model or model[0] != model_id:
                return []
            return src.execute("SELECT d.text_sha, v.embedding FROM docs d JOIN docs_vec v ON v.rowid = d.rowid").fetchall()
        finally:
            src.close()
    except dbmod.database_errors():
        return []


def write_seed(path: Path, model_id: str, rows: list[tuple[str, bytes]]) -> None:
    """A SQLite file of ``rows`` (text checksum, float32 bytes) in the shape :func:`read_vectors` reads."""
    conn = dbmod.connect(path)
    conn.executescript("CREATE TABLE meta(k TEXT PRIMARY KEY, v TEXT);"
                       "CREATE TABLE docs(rowid INTEGER PRIMARY KEY, text_sha TEXT);"
                       "CREATE TABLE docs_vec(rowid INTEGER PRIMARY KEY, embedding BLOB);")
    conn.execute("INSERT INTO meta VALUES('model', ?)", (model_id,))
    conn.execute("BEGIN")
    conn.executemany("INSERT INTO docs VALUES(?,?)", [(i, sha) for i, (sha, _) in enumerate(rows, 1)])
    conn.executemany("INSERT INTO docs_vec VALUES(?,?)", [(i, blob) for i, (_, blob) in enumerate(rows, 1)])
    conn.execute("COMMIT")
    conn.close()
