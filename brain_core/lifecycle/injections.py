"""The session-start blocks given to agents, as ``.aida/injections.jsonl`` notes them: the hook
(:mod:`brain_core.agents.session_start`) writes a line per block, ``aida brain audit`` counts each
entry a block carried as a use."""

from __future__ import annotations

import json
from pathlib import Path

LOG = "injections.jsonl"


def injections(root: Path) -> list[dict]:
    """Every block noted in ``.aida/injections.jsonl`` (torn or foreign lines skipped)."""
    out: list[dict] = []
    try:
        text = (Path(root) / ".aida" / LOG).read_text(encoding="utf-8", errors="replace")
    except OSError:
        return out
    for raw in text.splitlines():
        try:
            d = json.loads(raw)
        except ValueError:
            continue
        if isinstance(d, dict) and isinstance(d.get("paths"), list):
            out.append(d)
    return out
