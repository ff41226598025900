"""SQLite with sqlite-vec: the driver and the card catalog's schema.

The stdlib ``sqlite3`` is used where it can load extensions; many Python builds (pyenv's default,
some distributions) cannot, so ``sqlean.py`` (Linux, macOS, Windows wheels) and then
``pysqlite3`` are tried. All three speak DB-API 2.0.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from brain_core.errors import MissingDependency

SCHEMA_VERSION = "1"
# recall's neighbour lookups (places.py); added to older catalogs by upgrade()
PLACE_INDEX = "CREATE INDEX IF NOT EXISTS docs_place ON docs(source, created_ts, id)"

SCHEMA = """
CREATE TABLE IF NOT EXISTS meta(k TEXT PRIMARY KEY, v TEXT);
CREATE TABLE IF NOT EXISTS docs(
    rowid INTEGER PRIMARY KEY,
    path TEXT UNIQUE NOT NULL,
    shelf TEXT NOT NULL,
    id TEXT, key TEXT, type TEXT, profile TEXT, tags TEXT, body TEXT, source TEXT,
    created TEXT, created_ts REAL, expires TEXT,
    checksum TEXT NOT NULL, text_sha TEXT NOT NULL, size INTEGER, mtime_ns INTEGER);
CREATE INDEX IF NOT EXISTS docs_profile_key ON docs(profile, key);
CREATE INDEX IF NOT EXISTS docs_created ON docs(created_ts);
CREATE INDEX IF NOT EXISTS docs_text_sha ON docs(text_sha);
CREATE TABLE IF NOT EXISTS problems(path TEXT PRIMARY KEY, message TEXT NOT NULL, checksum TEXT);
CREATE TABLE IF NOT EXISTS dirs(path TEXT PRIMARY KEY, mtime_ns INTEGER NOT NULL);
CREATE VIRTUAL TABLE IF NOT EXISTS docs_fts USING fts5(
    key, body, tags, tokenize='porter unicode61 remove_diacritics 2');
CREATE VIRTUAL TABLE IF NOT EXISTS docs_vec USING vec0(
    embedding float[{dim}] distance_metric=cosine, shelf text, profile text, type text);
""" + PLACE_INDEX + ";\n"

_driver: Any = None


def driver() -> Any:
    """The first DB-API sqlite module here that can load sqlite-vec."""
    global _driver
    if _driver is not None:
        return _driver
    candidates = []
    import sqlite3

    if hasattr(sqlite3.Connection, "enable_load_extension"):
        candidates.append(sqlite3)
    for name in ("sqlean", "pysqlite3.dbapi2"):
        try:
            candidates.append(__import__(name, fromlist=["connect"]))
        except ImportError:
            continue
    for mod in candidates:
        try:
            conn = mod.connect(":memory:")
            _load_vec(conn)
            conn.close()
        except Exception:  # noqa: BLE001 - any failure means "try the next driver"
            continue
        _driver = mod
        return mod
    raise MissingDependency("No SQLite here can load sqlite-vec; run `make install` "
                            "(it installs sqlean.py and sqlite-vec).")


def _load_vec(conn) -> None:
    import sqlite_vec

    conn.enable_load_extension(True)
    try:
        sqlite_vec.load(conn)
    finally:
        conn.enable_load_extension(False)


def connect(path: Path | str, *, readonly: bool = False, timeout: float = 30.0):
    mod = driver()
    if readonly:
        conn = mod.connect(f"file:{path}?mode=ro", uri=True, timeout=timeout, isolation_level=None,
                           check_same_thread=False)
    else:
        conn = mod.connect(str(path), timeout=timeout, isolation_level=None, check_same_thread=False)
    _load_vec(conn)
    # Rollback journal, not WAL: the index file is swapped whole by a rebuild, and a WAL or shm
    # file left beside it would belong to the old file. Writers hold the brain's write lock.
    if not readonly:
        conn.execute("PRAGMA journal_mode=DELETE")
        conn.execute("PRAGMA synchronous=NORMAL")
    conn.execute("PRAGMA temp_store=MEMORY")
    conn.execute("PRAGMA cache_size=-32000")
    return conn


def versions() -> tuple[str, str]:
    """(SQLite's version, sqlite-vec's version) as the driver loads them (``aida doctor``)."""
    conn = connect(":memory:")
    try:
        sqlite, vec = conn.execute("select sqlite_version(), vec_version()").fetchone()
    finally:
        conn.close()
    return sqlite, vec


def create_schema(conn, dim: int, model_id: str) -> None:
    conn.executescript(SCHEMA.replace("{dim}", str(dim)))
    conn.execute("INSERT OR REPLACE INTO meta VALUES('schema', ?)", (SCHEMA_VERSION,))
    conn.execute("INSERT OR REPLACE INTO meta VALUES('model', ?)", (model_id,))


def upgrade(conn) -> None:
    """Indexes a catalog of the same schema may lack (made by an older Aida): recall's neighbour
    lookups need ``docs_place``. Best effort: a read-only or busy file keeps working without it."""
    try:
        if conn.execute("SELECT 1 FROM sqlite_master WHERE type = 'index' AND name = 'docs_place'").fetchone() is None:
            conn.execute(PLACE_INDEX)
    except database_errors():
        pass


def database_errors() -> tuple[type[BaseException], ...]:
    mod = driver()
    return (mod.DatabaseError,)


def header_problem(path: Path) -> str | None:
    """Cheap check of a SQLite file's header: magic, page size, and size against the page count."""
    try:
        with open(path, "rb") as f:
            head = f.read(100)
        size = os.path.getsize(path)
    except OSError as e:
        return f"the index cannot be opened ({e.strerror})"
    if len(head) < 100 or head[:16] != b"SQLite format 3\x00":
        return "the index file is not a SQLite database"
    page = int.from_bytes(head[16:18], "big")
    page = 65536 if page == 1 else page
    pages = int.from_bytes(head[28:32], "big")
    change = int.from_bytes(head[24:28], "big")
    valid_for = int.from_bytes(head[92:96], "big")
    if page < 512 or page & (page - 1):
        return "the index header is damaged"
    if pages and change == valid_for and size < pages * page:
        return "the index file is truncated"
    return None
