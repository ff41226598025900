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
SUMMARY = "harvest/backfill.json"  # the whole backfill, for the overview (no paths, no names)


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
    kept: int = 0  # sessions that left at least one record
    dropped: dict[str, int] = field(default_factory=dict)  # why -> sessions that left none
    offline: int = 0  # sessions read by the offline distiller
    active: int = 0  # sessions inside the quiet window, left for later
    provider: str | None = None
    calls: int = 0

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

    def summary(self) -> str:
        """The whole backfill in one line: read, kept, dropped and why, left for later."""
        out = f"{self.done} sessions read, {self.records} records kept"
        if self.kept:
            out += f" from {self.kept} session{'s' if self.kept != 1 else ''}"
        if self.dropped:
            out += "; dropped " + ", ".join(f"{n} ({why})" for why, n in sorted(self.dropped.items(), key=lambda kv: -kv[1]))
        if self.errors:
            out += f"; {self.errors} failed (retried next time)"
        if self.offline and self.provider not in (None, "none"):
            out += f"; {self.offline} read offline"
        return out

    def to_dict(self) -> dict:
        out = {k: v for k, v in asdict(self).items() if k != "started"}
        out["eta_seconds"] = None if self.eta_seconds is None else round(self.eta_seconds, 1)
        return out


def plan(brain, *, roots: dict[str, Path] | None = None, sources: tuple[str, ...] | None = None,
         include_active: bool = False, active: list[Pending] | None = None, relearn: bool = False,
         config=None) -> list[Pending]:
    """Every transcript that is due (never harvested, or grown), newest first; sessions an agent
    is still writing (inside the quiet window) are left to the hook, and appended to ``active``
    when given, unless ``include_active``. ``relearn``: instead, the sessions the offline
    distiller read (marked in the watermark), to be read again by a model. ``brain=None`` plans
    for a brain not made yet (no watermark: everything is new)."""
    from brain_core.harvest.exclude import Exclusions
    from brain_core.harvest.sources import NAMES, get
    from brain_core.harvest.watermark import Watermark, check, quiet_seconds, system_clock

    config = config if config is not None else getattr(brain, "config", None)
    now, quiet = system_clock(), quiet_seconds(config)
    exclusions = Exclusions(config)
    todo: list[Pending] = []
    for tool in sources or NAMES:
        src = get(tool, (roots or {}).get(tool))
        wm = Watermark.load(brain, tool) if brain is not None else Watermark(tool)
        for sf in src.files():
            if relearn:
                known = wm.sessions.get(sf.id)
                if known and known.get("offline") and not exclusions.why(sf):
                    todo.append(Pending(tool, sf.path, sf.size, sf.mtime))
                continue
            due = check(wm, sf, now=now, quiet_s=quiet, ignore_quiet=include_active)
            if due.reason == "active" and not exclusions.why(sf):
                if active is not None:
                    active.append(Pending(tool, sf.path, sf.size, sf.mtime))
            elif due.due and not exclusions.why(sf):
                todo.append(Pending(tool, sf.path, sf.size, sf.mtime))
    return sorted(todo, key=lambda p: p.mtime, reverse=True)


def active_note(active: list[Pending], quiet_minutes: float) -> str | None:
    """"12 sessions changed in the last 10 minutes; ..." naming a few, or None when there are none."""
    if not active:
        return None
    n = len(active)
    names = ", ".join(f"{p.tool} {_short(p)}" for p in sorted(active, key=lambda p: -p.mtime)[:3])
    more = f" and {n - 3} more" if n > 3 else ""
    return (f"{n} session{'s' if n != 1 else ''} changed in the last {quiet_minutes:g} minutes ({names}{more}); "
            "they are read once quiet, or now with `--include-active`.")


def _short(p: Pending) -> str:
    """``019ec8a2 in acme-billing``: the session's short id and, when its folder says, the project."""
    stem = p.path.name.split(".")[0]
    short = stem[-36:][:8] if stem.startswith("rollout-") else stem[:8]
    try:
        from brain_core.harvest import SessionFile
        from brain_core.harvest.exclude import session_folder
        from brain_core.harvest.privacy import project_name

        folder = session_folder(SessionFile(p.tool, "", p.path, p.size, p.mtime))
        project = project_name(folder) if folder else None
    except Exception:  # noqa: BLE001 - a name is a courtesy: never fail a plan for it
        project = None
    return f"{short} in {project}" if project else short


def backfill(brain, *, roots: dict[str, Path] | None = None, sources: tuple[str, ...] | None = None,
             batch: int = BATCH, on_progress: Callable[[Progress], None] | None = None,
             limit: int | None = None, llm=None, include_active: bool = False, relearn: bool = False,
             force: bool = False) -> Progress:
    """Harvest every due session, newest first, ``batch`` at a time; returns the final progress.

    ``llm=None`` uses the configured provider, as the hook does. ``limit`` stops after that many
    sessions (a first taste; the rest is done by the next run). ``include_active`` reads the
    sessions inside the quiet window too. ``relearn`` reads again, with the model, the sessions
    the offline distiller read (it needs a provider; each batch clears their mark, so a second
    run goes on where the first stopped); records are superseded by key, and a session's offline
    records the model did not keep again are retired, so nothing is kept twice."""
    from brain_core.harvest.run import sweep
    from brain_core.harvest.watermark import quiet_seconds

    if relearn:
        llm = _relearn_provider(brain, llm)
    active: list[Pending] = []
    todo = plan(brain, roots=roots, sources=sources, include_active=include_active, active=active, relearn=relearn)
    if limit is not None:
        todo = todo[:limit]
    progress = Progress(total=len(todo), bytes_total=sum(p.size for p in todo), active=len(active))
    note = active_note(active, quiet_seconds(brain.config) / 60)
    if note:
        progress.notes.append(note)
    if on_progress:
        on_progress(progress)
    kwargs = {} if llm is None else {"llm": llm}
    kwargs.update(force=force, reason="relearn" if relearn else None)
    relearned = offline_records(brain, {p.tool for p in todo}) if relearn else {}
    shared: set[str] = set()  # offline records other sessions share: retired once all of them are relearned
    i = 0
    stop = False
    while i < len(todo) and not stop:
        window = todo[i:i + batch]  # the next ``batch`` sessions, newest first; one sweep per agent among them
        for tool in dict.fromkeys(p.tool for p in window):
            chunk = [p for p in window if p.tool == tool]
            result = sweep(brain, sources=(tool,), roots=roots, files=[p.path for p in chunk], include_mirror=False,
                           **kwargs)
            progress.notes += [n for n in result.notes if n not in progress.notes]
            if not result.outcomes and result.notes:
                stop = True  # another harvest holds the lock (or harvesting is paused): the next run goes on
                break
            if relearn:
                _retire_replaced(brain, tool, result.outcomes, relearned, shared)
                if result.fallback:  # the model went away: what is left waits for the next --relearn
                    progress.done += sum(1 for o in result.outcomes if not o.offline and not o.error)
                    stop = True
                    break
            progress.done += len(chunk)
            progress.bytes_done += sum(p.size for p in chunk)
            progress.records += sum(len(o.written) for o in result.outcomes)
            progress.errors += sum(1 for o in result.outcomes if o.error)
            for o in result.outcomes:
                if o.error:
                    continue
                if o.records:
                    progress.kept += 1
                else:
                    why = o.dropped or "nothing worth keeping"
                    progress.dropped[why] = progress.dropped.get(why, 0) + 1
                progress.offline += 1 if o.offline else 0
            progress.provider = result.provider or progress.provider
            progress.calls += result.calls
        i += len(window)
        if on_progress and not stop:
            on_progress(progress)
    if shared:
        _retire_shared(brain, shared)
    if progress.done:
        save_summary(brain, progress, relearn=relearn)
    return progress


def save_summary(brain, progress: Progress, *, relearn: bool = False) -> None:
    """``harvest/backfill.json``: the whole backfill (the overview shows it, not its last batch)."""
    import json

    if str(brain.config.get("machine.role", "writer")).lower() == "reader":
        return
    data = {"version": 1, "finished": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
            "relearn": relearn, "sessions": progress.done, "planned": progress.total, "records": progress.records,
            "kept": progress.kept, "dropped": dict(sorted(progress.dropped.items())), "errors": progress.errors,
            "offline": progress.offline, "active_left": progress.active, "provider": progress.provider,
            "calls": progress.calls}
    brain.write_text(SUMMARY, json.dumps(data, indent=2, sort_keys=True) + "\n",
                     f"harvest: backfill, {progress.done} sessions, {progress.records} records")


def offline_records(brain, tools) -> dict[tuple[str, str], list[str]]:
    """(tool, session id) -> the records its offline reading left, from the watermarks."""
    from brain_core.harvest.watermark import Watermark

    out = {}
    for tool in tools:
        for sid, s in Watermark.load(brain, tool).sessions.items():
            if s.get("offline"):
                out[(tool, sid)] = list(s.get("records") or [])
    return out


def _retire_replaced(brain, tool: str, outcomes, relearned, shared: set[str] | None = None) -> None:
    """Move to ``archive/`` the offline records of sessions a model has now read, where the model
    did not keep the same key, the record is still unchecked (a confirmed one stays) and no other
    session shares it: nothing is kept twice. A record another session shares goes to ``shared``,
    for :func:`_retire_shared`."""
    from brain_core.errors import BrainError
    from brain_core.marks import OFFLINE_TAG
    from brain_core.store.archive import archive_path

    moves = []
    for o in outcomes:
        if o.error or o.offline:
            continue
        kept = {f"memories/{r['profile']}/{r['key']}.json" for r in o.records}
        for rel in relearned.get((tool, o.session), []):
            if rel in kept or not (brain.root / rel).is_file():
                continue
            try:
                rec = brain.get(rel)
            except BrainError:
                continue
            if OFFLINE_TAG not in rec.tags:
                continue  # confirmed since (aida brain confirm), or replaced by a checked record: it stays
            if rec.source != f"{tool}:session:{o.session}" or rec.extra.get("sources"):
                if shared is not None:
                    shared.add(rel)
                continue  # another session's, or shared with one: it stays (for now)
            moves.append((rel, archive_path(brain, rel, rec.id)))
    if moves:
        brain.move(moves, f"harvest: relearned, {len(moves)} offline record{'s' if len(moves) != 1 else ''} retired")


def _retire_shared(brain, paths: set[str]) -> None:
    """Move to ``archive/`` the offline records several sessions shared (a near-duplicate linked on
    write) once a model has read every one of those sessions again and none of its writes replaced
    the record (it still has the ``harvest:offline`` mark)."""
    from brain_core.errors import BrainError
    from brain_core.harvest.watermark import Watermark
    from brain_core.marks import OFFLINE_TAG
    from brain_core.store.archive import archive_path

    marks: dict[str, Watermark] = {}

    def relearned(source: str) -> bool:
        tool, kind, sid = (source.split(":", 2) + ["", ""])[:3]
        if kind != "session" or not sid:
            return False  # a memory file, a meeting, a person: not a session a model reads again
        wm = marks.get(tool) or marks.setdefault(tool, Watermark.load(brain, tool))
        seen = wm.sessions.get(sid)
        return isinstance(seen, dict) and not seen.get("offline")

    moves = []
    for rel in sorted(paths):
        if not (brain.root / rel).is_file():
            continue
        try:
            rec = brain.get(rel)
        except BrainError:
            continue
        sources = [rec.source] + [str(s.get("source") or "") for s in rec.extra.get("sources") or ()
                                  if isinstance(s, dict)]
        if OFFLINE_TAG in rec.tags and all(relearned(src) for src in sources):
            moves.append((rel, archive_path(brain, rel, rec.id)))
    if moves:
        brain.move(moves, f"harvest: relearned, {len(moves)} shared offline record{'s' if len(moves) != 1 else ''} "
                          "retired")


def _relearn_provider(brain, llm):
    from brain_core.errors import InvalidInput, ProviderError

    if llm is None:
        from brain_core.llm import make_provider

        try:
            llm = make_provider(brain.config)
        except ProviderError as e:
            raise InvalidInput(f"--relearn needs a model, and the configured one cannot be used ({e})") from None
    if llm is None or getattr(llm, "name", "none") == "none":
        raise InvalidInput("--relearn reads sessions again with a model, and none is configured; set llm.provider "
                           "(auto, claude-code, codex, gemini-cli, ollama, ...) first.")
    return llm


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
