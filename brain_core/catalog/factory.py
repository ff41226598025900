"""The one place that decides which card catalog a brain opens: ``index.backend`` (``sqlite``, the
default, or ``postgres``) and ``index.dsn``."""

from __future__ import annotations

import os
from contextlib import contextmanager
from pathlib import Path
from typing import Callable, Iterator

from brain_core.catalog.base import Catalog
from brain_core.errors import BrainError

BACKENDS = ("sqlite", "postgres")


def backend(config) -> str:
    name = str(config.get("index.backend", "sqlite") or "sqlite").strip().lower()
    if name not in BACKENDS:
        raise BrainError(f"The setting index.backend = {name!r} is not 'sqlite' or 'postgres'; fix the settings file.")
    return name


def open_index(root: Path, lock, embedder_factory: Callable, config) -> Catalog:
    """The brain's catalog on the backend ``index.backend`` names (nothing is opened yet)."""
    from brain_core.catalog.embed import DIM, MODEL_ID

    if backend(config) == "postgres":
        from brain_core.catalog.postgres import brain_id
        from brain_core.catalog.postgres.index import PgIndex

        return PgIndex(root, lock, embedder_factory, dsn=str(config.get("index.dsn", "") or ""),
                       brain_id=brain_id(root, config.get("index.brain_id")), dim=DIM, model_id=MODEL_ID,
                       build_memory=str(config.get("index.build_memory", "auto") or "auto"),
                       ef_search=int(config.get("index.ef_search", 200) or 200))
    from brain_core.catalog.sqlite.index import Index

    return Index(root, lock, embedder_factory, dim=DIM, model_id=MODEL_ID,
                 vector_cache_mb=int(config.get("index.vector_cache_mb", 256) or 0))


def rebuild(brain, progress=None):
    """``aida brain index --full`` on the configured backend: this is also the migration. Onto
    PostgreSQL, the local SQLite catalog's vectors are reused by text checksum; back onto SQLite,
    the server's vectors for this brain are (when ``index.dsn`` still reaches it)."""
    idx = brain.index
    if idx.backend == "postgres" or not brain.config.get("index.dsn"):
        return idx.rebuild(progress=progress)
    try:
        from brain_core.catalog.postgres import brain_id
        from brain_core.catalog.postgres.index import PgIndex

        server = PgIndex(brain.root, brain._lock, lambda: brain.embedder, dsn=str(brain.config.get("index.dsn")),
                         brain_id=brain_id(brain.root, brain.config.get("index.brain_id")), dim=idx.dim,
                         model_id=idx.model_id)
    except Exception:  # noqa: BLE001 - no psycopg: rebuild from the local catalog's vectors as usual
        return idx.rebuild(progress=progress)
    with _exported(server) as seed:
        return idx.rebuild(progress=progress, reuse_from=seed)


@contextmanager
def vector_source(brain) -> Iterator[Path | None]:
    """A SQLite file of this brain's vectors (by text checksum) for a local catalog build to reuse:
    the catalog itself on SQLite, an export of the server's on PostgreSQL (as-of snapshots)."""
    if brain.index.backend != "postgres":
        yield brain.index.path
        return
    with _exported(brain.index) as seed:
        yield seed


@contextmanager
def _exported(server) -> Iterator[Path | None]:
    from brain_core.catalog.postgres.index import export_sqlite_seed
    from brain_core.store.fsutil import discard

    seed = server.dir / f"index.sqlite.from-server-{os.getpid()}"
    discard(seed)
    try:
        try:
            conn = server._open(server.schema)
            try:
                found = server.schema_problem(conn) is None
            finally:
                conn.close()
            if found:
                export_sqlite_seed(server, seed, server.model_id)
            server.close()
        except Exception:  # noqa: BLE001 - no server: the build embeds what it cannot reuse
            discard(seed)
        yield seed if seed.exists() else None
    finally:
        discard(seed)
