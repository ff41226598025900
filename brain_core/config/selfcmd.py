"""How Aida starts itself in another process (a background rebuild, a hook, the tray's sweep)."""

from __future__ import annotations

import sys


def aida_argv(*args: str) -> list[str]:
    """This interpreter running the package, or the frozen app (which is its own CLI), plus ``args``.
    Works whether or not ``aida`` is on the PATH of whoever starts it."""
    if getattr(sys, "frozen", False):
        return [sys.executable, *args]
    return [sys.executable, "-m", "brain_core", *args]
