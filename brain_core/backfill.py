"""The first harvest: everything the agents left on disk, newest first, resumable, with progress.

A heavy user has hundreds of sessions (hundreds of MB) before Aida arrives. ``backfill`` plans
them all (each agent's transcripts that its watermark says are due, less the ones still being
written), newest first so the freshest memories land in the first minutes, and harvests them in
small batches through the ordinary sweep: each batch saves the agent's watermark, so a kill or a
reboot loses at most the batch in flight and the next run goes on where this one stopped. Memory
stays bounded (one batch of parsed sessions at a time). ``on_progress`` gets a :class:`Progress`
after every batch: sessions done of the total, records kept, and an ETA from the pace so far.
"""

from __future__ import annotations

import os
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Callable

BATCH = 8


@dataclass(frozen=True)
class Pending:
    tool: str
    path: Path
    size: int
    mtime: float


@dataclass
class Progress:
    total: int
    done: int = 0
    records: int = 0
    errors: int = 0
    bytes_total: int = 0
    bytes_done: int = 0
    started: float = field(default_factory=time.monotonic)
    notes: list[str] = field(default_factory=list)

    @property
    def eta_seconds(self) -> float | None:
        """Seconds left at the pace so far (by bytes: a session's cost follows its size)."""
        spent = time.monotonic() - self.started
        if not self.bytes_done or spent <= 0:
            return None
        return max(0.0, spent * (self.bytes_total - self.bytes_done) / self.bytes_done)

    def line(self) -> str:
        eta = self.eta_seconds
        left = "" if eta is None or self.done >= self.total else f", about {_duration(eta)} left"
        return f"{self.done}/{self.total} sessions, {self.records} records kept{left}"

    def to_dict(self) -> dict:
        out = {k: v for k, v in asdict(self).items() if k != "started"}
        out["eta_seconds"] = None if self.eta_seconds is None else round(self.eta_seconds, 1)
        return out


def plan(brain, *, roots: dict[str, Path] | None = None, sources: tuple[str, ...] | None = None) -> list[Pending]:
    """Every transcript that is due (never harvested, or grown), newest first; sessions an agent
    is still writing (inside the quiet window) are left to the hook."""
    from .harvest.sources import NAMES, get
    from .harvest.watermark import Watermark, check, quiet_seconds, system_clock

    now, quiet = system_clock(), quiet_seconds(brain.config)
    todo: list[Pending] = []
    for tool in sources or NAMES:
        src = get(tool, (roots or {}).get(tool))
        wm = Watermark.load(brain, tool)
        for sf in src.files():
            if check(wm, sf, now=now, quiet_s=quiet).due:
                todo.append(Pending(tool, sf.path, sf.size, sf.mtime))
    return sorted(todo, key=lambda p: p.mtime, reverse=True)


def backfill(brain, *, roots: dict[str, Path] | None = None, sources: tuple[str, ...] | None = None,
             batch: int = BATCH, on_progress: Callable[[Progress], None] | None = None,
             limit: int | None = None, llm=None) -> Progress:
    """Harvest every due session, newest first, ``batch`` at a time; returns the final progress.

    ``llm=None`` uses the configured provider, as the hook does. ``limit`` stops after that many
    sessions (a first taste; the rest is done by the next run)."""
    from .harvest.run import sweep

    todo = plan(brain, roots=roots, sources=sources)
    if limit is not None:
        todo = todo[:limit]
    progress = Progress(total=len(todo), bytes_total=sum(p.size for p in todo))
    if on_progress:
        on_progress(progress)
    kwargs = {} if llm is None else {"llm": llm}
    i = 0
    while i < len(todo):
        tool = todo[i].tool
        chunk = [todo[i]]
        while len(chunk) < batch and i + len(chunk) < len(todo) and todo[i + len(chunk)].tool == tool:
            chunk.append(todo[i + len(chunk)])
        result = sweep(brain, sources=(tool,), roots=roots, files=[p.path for p in chunk], include_mirror=False,
                       **kwargs)
        progress.notes += [n for n in result.notes if n not in progress.notes]
        if not result.outcomes and result.notes:
            break  # another harvest holds the lock: it takes these sessions; the next run goes on
        progress.done += len(chunk)
        progress.bytes_done += sum(p.size for p in chunk)
        progress.records += sum(len(o.written) for o in result.outcomes)
        progress.errors += sum(1 for o in result.outcomes if o.error)
        i += len(chunk)
        if on_progress:
            on_progress(progress)
    return progress


def lower_priority() -> None:
    """Run at a low CPU priority so the desktop stays responsive (best effort)."""
    try:
        os.nice(10)
    except (AttributeError, OSError):
        pass


def _duration(seconds: float) -> str:
    s = int(round(seconds))
    if s < 90:
        return f"{s} s"
    if s < 5400:
        return f"{round(s / 60)} min"
    return f"{s / 3600:.1f} h"
