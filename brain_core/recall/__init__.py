"""Recall: the hybrid stages, their fusion, the lifts and the confidence check."""

from __future__ import annotations


def recall_api(index, sqlite_recall):
    """(the recall function, the errors that mean "the catalog failed") for ``index``."""
    if index.backend == "postgres":
        from brain_core.catalog.postgres import database_errors
        from brain_core.recall.postgres import recall

        return recall, database_errors()
    from brain_core.catalog.sqlite import db as dbmod

    return sqlite_recall, dbmod.database_errors()
