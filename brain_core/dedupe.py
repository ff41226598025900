"""The documented path ``brain_core.dedupe`` (docs/DESIGN.md): the names live in ``brain_core.brain.dedupe``."""

from brain_core.brain.dedupe import collapse_hits

__all__ = ["collapse_hits"]
