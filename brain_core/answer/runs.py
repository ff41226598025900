"""Run records (L0): what one ``ask`` did, kept locally so it can be explained and judged.

Each run is ``<brain>/.aida/runs/<run id>.json``: the question, the route and the patterns that
fired, what was consulted with scores, the lessons that applied, the provider, timings and cost
when known. They live under ``.aida/`` (never committed: they may quote private records to a
provider's bill) and are pruned by age (``ask.runs_keep_days``, 30 by default); feedback turns
the runs worth keeping into lessons, which are committed.
"""

from __future__ import annotations

import json
import os
import re
import secrets
import time
from pathlib import Path
from typing import Any

from brain_core.errors import InvalidInput
from brain_core.records import new_id

RUNS_DIR = Path(".aida") / "runs"
PRUNE_MARK = ".pruned"
_RUN_ID = re.compile(r"^[0-9]{8}-[0-9]{9}-[0-9a-f]{6}$")
DEFAULT_KEEP_DAYS = 30.0


def runs_dir(brain_root: Path) -> Path:
    return Path(brain_root) / RUNS_DIR


def new_run_id() -> str:
    return new_id()


def save(brain_root: Path, run: dict[str, Any]) -> Path:
    """Write ``run`` (which carries its ``id``) atomically; returns the file."""
    run_id = run.get("id") or ""
    if not _RUN_ID.match(run_id):
        raise InvalidInput(f"{run_id!r} is not a run id.")
    path = runs_dir(brain_root) / f"{run_id}.json"
    write_local(path, json.dumps(run, ensure_ascii=False, sort_keys=True, indent=1, default=str) + "\n")
    return path


def write_local(path: Path, text: str) -> None:
    """Write a local, disposable file (run record, cache entry): atomic, but not fsynced.

    A reader sees the old file or the new one, never half; a power cut may lose the newest run,
    which costs nothing, while an fsync on every question costs milliseconds on a busy disk.
    """
    from brain_core.redact.scrub import file_text

    text = file_text(path.name, text)  # the redaction gate: a question may carry a secret
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.tmp-{os.getpid()}-{secrets.token_hex(3)}")
    try:
        tmp.write_text(text, encoding="utf-8")
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise


def load(brain_root: Path, run_id: str) -> dict[str, Any]:
    """The run with this id (a unique prefix will do; ``last`` is the newest run)."""
    folder = runs_dir(brain_root)
    wanted = (run_id or "").strip()
    if wanted == "last":
        wanted = latest(brain_root) or ""
    if not wanted or not re.match(r"^[0-9a-f-]+$", wanted):
        raise InvalidInput(f"{run_id!r} is not a run id; `aida ask --json` prints the id of each run.")
    exact = folder / f"{wanted}.json"
    if not exact.is_file():
        matches = sorted(p for p in _files(folder) if p.stem.startswith(wanted)) if len(wanted) >= 8 else []
        if len(matches) != 1:
            why = "matches several runs" if matches else "is not among the kept runs (they are pruned by age)"
            raise InvalidInput(f"Run {run_id} {why}; `aida ask --json` prints the full id of each run.")
        exact = matches[0]
    try:
        return json.loads(exact.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError) as e:
        raise InvalidInput(f"The run record {exact.name} cannot be read ({e.__class__.__name__}); ask the question again.") from e


def latest(brain_root: Path) -> str | None:
    names = [p.stem for p in _files(runs_dir(brain_root))]
    return max(names) if names else None


def prune(brain_root: Path, keep_days: float = DEFAULT_KEEP_DAYS, *, now: float | None = None, force: bool = False) -> int:
    """Delete runs older than ``keep_days``; at most once an hour unless ``force``. Returns how many."""
    return prune_folder(runs_dir(brain_root), keep_days, now=now, force=force)


def prune_folder(folder: Path, keep_days: float, *, now: float | None = None, force: bool = False) -> int:
    """Delete the ``*.json`` files in ``folder`` not written for ``keep_days`` (hourly at most)."""
    folder = Path(folder)
    if not folder.is_dir():
        return 0
    now = now if now is not None else time.time()
    mark = folder / PRUNE_MARK
    if not force:
        try:
            if now - mark.stat().st_mtime < 3600:
                return 0
        except FileNotFoundError:
            pass
    cutoff = now - keep_days * 86400
    removed = 0
    for entry in os.scandir(folder):
        if not entry.name.endswith(".json") and ".json.tmp-" not in entry.name:
            continue
        try:
            if entry.stat().st_mtime < cutoff:
                os.unlink(entry.path)
                removed += 1
        except FileNotFoundError:  # another process pruned it first
            continue
    mark.touch()
    os.utime(mark, (now, now))
    return removed


def _files(folder: Path) -> list[Path]:
    try:
        return [Path(e.path) for e in os.scandir(folder) if e.name.endswith(".json") and _RUN_ID.match(e.name[:-5])]
    except FileNotFoundError:
        return []
