"""The archive shelf: where a record goes when it is merged, faded or forgotten (moved, never
deleted), and how the write path finds a forgotten record when its key is written again."""

from __future__ import annotations

import time
from pathlib import Path, PurePosixPath

from brain_core.errors import MalformedRecord
from brain_core.records import Record

FIELD = "forgotten"


def archive_path(brain, rel: str, record_id: str | None = None) -> str:
    """``archive/<rel>``, or with the record id before the suffix when that name is taken."""
    target = f"archive/{rel}"
    if (brain.root / target).exists():
        p = Path(target)
        target = str(p.with_name(f"{p.stem}.{record_id or int(time.time())}{p.suffix}").as_posix())
    return target


def forgotten_at(root: Path, rel: str) -> Record | None:
    """The newest forgotten record that lived at ``rel`` (``memories/<profile>/<key>.json``), or None.
    The write path asks this when a key is written again: the new record is then a correction."""
    folder = Path(root) / "archive" / PurePosixPath(rel).parent
    if not folder.is_dir():
        return None
    stem = PurePosixPath(rel).stem
    best = None
    for path in folder.glob(f"{stem}*.json"):
        if path.name != f"{stem}.json" and not path.name.startswith(f"{stem}."):
            continue
        try:
            rec = Record.from_bytes(path.read_bytes(), path.name)
        except (MalformedRecord, OSError):
            continue
        mark = rec.extra.get(FIELD)
        if isinstance(mark, dict) and mark.get("path", rel) == rel and (best is None or rec.id > best.id):
            best = rec
    return best
