"""The brain's events file, ``<brain>/.aida/events.jsonl``: one JSON line per thing written, which the tray
follows for its notices (``app/events.py`` reads it).

``remembered`` (a record on a shelf) and ``quarantined`` (one held back, with ``why``) come from the write
path (:func:`written`); ``forgotten``, ``restored`` and ``confirmed`` from :mod:`brain_core.lifecycle.forget`.
Every line is scrubbed like any byte Aida writes, and a batch goes in one append (atomic at this size).
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from brain_core.marks import OFFLINE_TAG
from brain_core.records import now_iso


def written(path: str, r) -> dict[str, Any]:
    """The event for record ``r`` written at ``path`` (a shelf, or ``quarantine/``)."""
    kind = "quarantined" if path.startswith("quarantine/") else "remembered"
    event: dict[str, Any] = {"event": kind, "path": path, "key": r.key, "profile": r.profile, "type": r.type,
                             "first_line": r.body.splitlines()[0][:200], "source": r.source,
                             "supersedes": r.supersedes, "at": now_iso()}
    if OFFLINE_TAG in r.tags:
        event["unchecked"] = True  # read offline: the notice says so
    held = r.extra.get("quarantine") if kind == "quarantined" else None
    if isinstance(held, dict) and held.get("why"):
        event["why"] = str(held["why"])  # the tray's notice says why it was held
    return event


def append(state_dir: Path, events: list[dict[str, Any]]) -> None:
    """Add ``events`` to the file in ``state_dir``, scrubbed, in one write."""
    from brain_core.redact import scrub

    state_dir.mkdir(exist_ok=True)
    lines = "".join(json.dumps(scrub.value(e), ensure_ascii=False) + "\n" for e in events)
    fd = os.open(state_dir / "events.jsonl", os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
    try:
        os.write(fd, lines.encode("utf-8"))
    finally:
        os.close(fd)
