"""Aida's brain: files as truth, a SQLite card catalog, hybrid recall.

``from brain_core import Brain`` is all most callers need (see DESIGN.md for the contract). Names
are resolved lazily so that importing the package stays cheap.
"""

from __future__ import annotations

__version__ = "0.1.0"
__all__ = ["Brain", "Record", "Hit", "BrainError"]


def __getattr__(name: str):
    if name == "Brain":
        from brain_core.brain import Brain

        return Brain
    if name == "Record":
        from brain_core.records import Record

        return Record
    if name == "Hit":
        from brain_core.recall.hybrid import Hit

        return Hit
    if name == "BrainError":
        from brain_core.errors import BrainError

        return BrainError
    raise AttributeError(f"module 'brain_core' has no attribute {name!r}")
