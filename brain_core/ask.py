"""The documented path ``brain_core.ask`` (docs/DESIGN.md): the names live in ``brain_core.answer.ask``."""

from brain_core.answer.ask import Answer, ask

__all__ = ["Answer", "ask"]
