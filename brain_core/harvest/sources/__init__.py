"""One module per coding agent: where its transcripts live and how to read one.

``get(name, root=None)`` returns the source object; ``root`` overrides the agent's home
directory (tests point it at a temp folder; users at a non-default install).
"""

from __future__ import annotations

import importlib
from pathlib import Path

from brain_core.errors import InvalidInput

NAMES = ("claude", "codex", "gemini")


def get(name: str, root: Path | str | None = None):
    if name not in NAMES:
        raise InvalidInput(f"Unknown harvest source {name!r}; use one of {', '.join(NAMES)}.")
    module = importlib.import_module(f"{__name__}.{name}")
    return module.Source(Path(root).expanduser() if root else None)


def guess(path: Path) -> str | None:
    """Which agent wrote this transcript, judged from its path and first line."""
    p = str(path)
    name = Path(path).name
    if name.startswith("rollout-") or "/.codex/" in p:
        return "codex"
    if "/.gemini/" in p or name.startswith("session-") and (name.endswith(".jsonl") or name.endswith(".json")):
        return "gemini"
    if "/.claude/" in p:
        return "claude"
    from brain_core.harvest import read_text

    try:
        head = read_text(Path(path))[:4000]
    except OSError:
        return None
    if '"session_meta"' in head or '"response_item"' in head:
        return "codex"
    if '"parentUuid"' in head or '"sessionId"' in head and '"uuid"' in head:
        return "claude"
    if '"projectHash"' in head or '"type":"gemini"' in head or '"type": "gemini"' in head:
        return "gemini"
    return None
