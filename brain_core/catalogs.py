"""The one place that decides which card catalog a brain opens: ``index.backend`` (``sqlite``, the
default, or ``postgres``) and ``index.dsn``."""

from __future__ import annotations

from pathlib import Path
from typing import Callable

from .errors import BrainError

BACKENDS = ("sqlite", "postgres")


def backend(config) -> str:
    name = str(config.get("index.backend", "sqlite") or "sqlite").strip().lower()
    if name not in BACKENDS:
        raise BrainError(f"The setting index.backend = {name!r} is not 'sqlite' or 'postgres'; fix the settings file.")
    return name


def open_index(root: Path, lock, embedder_factory: Callable, config):
    from .embed import DIM, MODEL_ID

    if backend(config) == "postgres":
        from .pg import brain_id
        from .pg.index import PgIndex

        return PgIndex(root, lock, embedder_factory, dsn=str(config.get("index.dsn", "") or ""),
                       brain_id=brain_id(root, config.get("index.brain_id")), dim=DIM, model_id=MODEL_ID)
    from .index import Index

    return Index(root, lock, embedder_factory, dim=DIM, model_id=MODEL_ID)


def recall_api(index, sqlite_recall):
    """(the recall function, the errors that mean "the catalog failed") for ``index``."""
    if getattr(index, "backend", "sqlite") == "postgres":
        from .pg import database_errors
        from .pg.recall import recall

        return recall, database_errors()
    from . import db as dbmod

    return sqlite_recall, dbmod.database_errors()


def rebuild(brain, progress=None):
    """``aida brain index --full`` on the configured backend: this is also the migration. Onto
    PostgreSQL, the local SQLite catalog's vectors are reused by text checksum; back onto SQLite,
    the server's vectors for this brain are (when ``index.dsn`` still reaches it)."""
    idx = brain.index
    if getattr(idx, "backend", "sqlite") == "postgres" or not brain.config.get("index.dsn"):
        return idx.rebuild(progress=progress)
    seed = idx.dir / "index.sqlite.from-server"
    from .fsutil import discard

    discard(seed)
    try:
        from .pg import brain_id
        from .pg.index import PgIndex, export_sqlite_seed

        server = PgIndex(brain.root, brain._lock, lambda: brain.embedder, dsn=str(brain.config.get("index.dsn")),
                         brain_id=brain_id(brain.root, brain.config.get("index.brain_id")), dim=idx.dim,
                         model_id=idx.model_id)
        conn = server._open(server.schema)
        try:
            found = server.schema_problem(conn) is None
        finally:
            conn.close()
        if found:
            export_sqlite_seed(server, seed, idx.model_id)
        server.close()
    except Exception:  # noqa: BLE001 - no server: rebuild from the local catalog's vectors as usual
        discard(seed)
    try:
        return idx.rebuild(progress=progress, reuse_from=seed if seed.exists() else None)
    finally:
        discard(seed)
