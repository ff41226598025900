"""The brain's events file, read from the tray: ``<brain>/.aida/events.jsonl``.

The brain appends one JSON line per record its one write path wrote (``{"event": "remembered",
"path", "key", "profile", "type", "first_line", "source", "at"}``; ``"event": "quarantined"``, with
``why``, for one it held back in quarantine/). The tray reads the newest remembered lines for
"Recent memories" and follows the file for notifications (:mod:`app.notify`).
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class Recent:
    """One line of ``.aida/events.jsonl``: a record the brain wrote."""

    key: str
    path: str
    profile: str
    type: str
    first_line: str
    source: str
    at: str
    unchecked: bool = False  # written by the offline distiller (tag harvest:offline)
    held: bool = False  # held back in quarantine/, never served (``why`` says why)
    why: str = ""


def read_recent(events_file: Path, n: int = 5, *, tail_bytes: int = 65536) -> list[Recent]:
    """The newest ``n`` distinct records from the events file, newest first (reads only its tail)."""
    try:
        with open(events_file, "rb") as f:
            f.seek(0, os.SEEK_END)
            size = f.tell()
            f.seek(max(0, size - tail_bytes))
            data = f.read()
    except FileNotFoundError:
        return []
    lines = data.decode("utf-8", errors="replace").splitlines()
    if size > tail_bytes and lines:
        lines = lines[1:]  # the first line is probably cut
    out: list[Recent] = []
    seen: set[str] = set()
    for line in reversed(lines):
        ev = parse_event(line)
        if ev is None or ev.held or ev.path in seen:
            continue
        seen.add(ev.path)
        out.append(ev)
        if len(out) >= n:
            break
    return out


def parse_event(line: str) -> Recent | None:
    """A ``remembered`` or ``quarantined`` event, or None for anything else (blank, torn, another kind)."""
    line = line.strip()
    if not line.startswith("{"):
        return None
    try:
        data = json.loads(line)
    except ValueError:
        return None
    if not isinstance(data, dict) or data.get("event") not in ("remembered", "quarantined") or not data.get("path"):
        return None
    return Recent(key=str(data.get("key") or ""), path=str(data["path"]), profile=str(data.get("profile") or ""),
                  type=str(data.get("type") or ""), first_line=str(data.get("first_line") or ""),
                  source=str(data.get("source") or ""), at=str(data.get("at") or ""),
                  unchecked=data.get("unchecked") is True, held=data.get("event") == "quarantined",
                  why=str(data.get("why") or ""))
