"""``aida brain maintain``: the nightly pass (the tray runs it once a day).

1. **Expiry.** A dated negative ("X does not support Y", with ``expires``) past its date is
   marked with the tag ``stale:expired``, in place (same id: a mark, not new knowledge). Recall
   already flags it; the mark also moves it to the end of INDEX.md and halves its value.
2. **Decay.** Every record on ``memories/`` and ``events/`` is scored from its age and use
   (recall's decay: ``recall.half_life_days``, ``recall.decay_floor``, and the recall counts in
   ``.aida/usage.sqlite``), times its confidence.
3. **Archive.** A record both low-value (score below ``maintain.archive_below``, 0.7: about a year
   untouched with the default half-life) and long unused (neither written nor recalled for
   ``maintain.grace_days``, 180) moves to ``archive/<its path>``. Types in ``maintain.keep_types``
   (instruction, preference, decision by default) never fade. Nothing is deleted; git keeps
   the history, and ``aida brain recall --as-of`` still finds it.
4. **Lint** (``brain_core.lifecycle.lint``) and 5. **INDEX.md** regenerated within its budget; 6. Codex's
   generated memory block in ``AGENTS.md`` refreshed from it, where ``aida hooks install codex``
   put one (``refresh``: the CLI passes :func:`brain_core.agents.session_start.refresh_agents_block`).

On a reader machine (``machine.role: reader``) the pass only reports. ``.aida/maintain.json``
records the last run so a caller can tell whether one is due (:func:`due`).
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass, field

from brain_core.lifecycle.common import (
    EXPIRED_TAG,
    archive_path,
    is_expired,
    last_touched,
    load_docs,
    rewrite_in_place,
    setting,
    value_of,
)
from brain_core.records import now_iso
from brain_core.store.fsutil import atomic_write_bytes

DAY = 86400.0
STATE = "maintain.json"


@dataclass(frozen=True)
class MaintainReport:
    dry_run: bool
    scored: int = 0
    low_value: int = 0
    expired: tuple[str, ...] = ()
    archived: tuple[tuple[str, str], ...] = ()
    problems: tuple[str, ...] = ()
    index_loaded: int = 0
    index_shelved: int = 0
    index_chars: int = 0
    reader: bool = False
    scores: dict = field(default_factory=dict)
    kept_in_index: tuple[str, ...] = ()  # low-value and idle, but loaded in INDEX.md: not archived
    refreshed: tuple[str, ...] = ()  # instruction files whose generated memory block was refreshed (AGENTS.md)

    def to_json(self) -> dict:
        return {"dry_run": self.dry_run, "reader": self.reader, "scored": self.scored, "low_value": self.low_value,
                "expired": list(self.expired), "archived": [{"from": a, "to": b} for a, b in self.archived],
                "problems": list(self.problems), "kept_in_index": list(self.kept_in_index),
                "refreshed": list(self.refreshed), "index": {"loaded": self.index_loaded,
                                                           "shelved": self.index_shelved, "chars": self.index_chars}}


@dataclass(frozen=True)
class Settings:
    archive_below: float = 0.7
    grace_days: float = 180.0
    keep_types: tuple[str, ...] = ("instruction", "preference", "decision")

    @classmethod
    def from_config(cls, config) -> "Settings":
        keep = config.get("maintain.keep_types", list(cls.keep_types))
        return cls(setting(config, "maintain.archive_below", cls.archive_below),
                   setting(config, "maintain.grace_days", cls.grace_days),
                   tuple(str(t) for t in (keep or ())))


def maintain(brain, *, dry_run: bool = False, now: float | None = None, refresh=None) -> MaintainReport:
    from brain_core.config.machine import machine_role
    from brain_core.lifecycle.lint import lint
    from brain_core.lifecycle.tier_index import regenerate
    from brain_core.recall.hybrid import RecallParams

    reader = machine_role(brain.config) != "writer"
    dry = dry_run or reader
    now = now if now is not None else time.time()
    settings = Settings.from_config(brain.config)
    params = RecallParams.from_config(brain.config)
    docs = load_docs(brain, ("memories", "events"))

    # 1. expiry marks
    expired = [d for d in docs if is_expired(d.record, now) and EXPIRED_TAG not in d.record.tags]
    if not dry and expired:
        marked = []
        for d in expired:
            r = d.record
            r.tags = [*r.tags, EXPIRED_TAG][-20:]
            marked.append((d.path, r))
        rewrite_in_place(brain, marked, f"maintain: mark {len(marked)} expired record(s) as possibly stale")

    # 2. decay scores, 3. archive
    use = brain.usage.get([d.path for d in docs])
    scores: dict[str, float] = {}
    moves: list[tuple[str, str]] = []
    kept: list[str] = []
    in_index = _in_index(brain)
    for d in docs:
        u = use.get(d.path)
        v = value_of(d.record, u, now, params)
        scores[d.path] = round(v, 4)
        idle_days = (now - last_touched(d.record, u)) / DAY
        if v < settings.archive_below and idle_days > settings.grace_days and d.record.type not in settings.keep_types:
            if d.path in in_index:
                kept.append(d.path)  # never archived on usage alone
                continue
            moves.append((d.path, archive_path(brain, d.path, d.record.id)))
    if not dry and moves:
        brain.move(moves, f"maintain: archive {len(moves)} record(s) both low-value and unused for "
                          f"{settings.grace_days:g} days")

    # 4. lint, 5. INDEX.md
    problems = tuple(f"{p.path}: {p.message}" for p in lint(brain))
    idx = regenerate(brain, dry_run=dry)
    agents = refresh(brain, dry_run=dry) if refresh else None  # 6. the agents' copies (Codex's AGENTS.md block)
    report = MaintainReport(dry_run=dry, scored=len(docs), low_value=sum(1 for v in scores.values()
                                                                          if v < settings.archive_below),
                            expired=tuple(d.path for d in expired), archived=tuple(moves), problems=problems,
                            index_loaded=idx.loaded, index_shelved=idx.shelved, index_chars=idx.chars,
                            reader=reader, scores=scores, kept_in_index=tuple(kept),
                            refreshed=(str(agents),) if agents else ())
    if not dry:
        state = {"last_run": now_iso(), "report": report.to_json()}
        atomic_write_bytes(brain.state_dir / STATE, (json.dumps(state, indent=2) + "\n").encode())
    return report


def _in_index(brain) -> set[str]:
    """The paths INDEX.md loads (as it would be regenerated now)."""
    from brain_core.lifecycle.tier_index import entries, plan

    return {e.path for e in entries(brain)[:plan(brain).loaded]}


def due(brain, every_hours: float = 24.0, now: float | None = None) -> bool:
    """Whether a nightly pass is due (never run, or the last one over ``every_hours`` ago)."""
    from brain_core.records import parse_time

    try:
        state = json.loads((brain.state_dir / STATE).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return True
    last = parse_time(state.get("last_run") if isinstance(state, dict) else None)
    now = now if now is not None else time.time()
    return last is None or (now - last.timestamp()) > every_hours * 3600
