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
