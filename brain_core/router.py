"""The documented path ``brain_core.router`` (docs/DESIGN.md): the names live in ``brain_core.answer.router``."""

from brain_core.answer.router import Route, load_router, route

__all__ = ["Route", "load_router", "route"]
