"""Quarantine: where the write path puts a record that carries a standing order.

Every door that writes (harvest, the mirror, MCP and CLI ``remember``, meeting notes) goes through
``Brain.remember_many``; there :func:`screen` runs the guard (:mod:`brain_core.redact.guard`) on each
record. One it catches is not refused and not lost: it is written, redacted like any record, to
``quarantine/<profile>/<key>.json`` with a ``quarantine`` field (category, reason, the words that
did it, where it came from, where it would have gone) and committed. ``quarantine/`` is no shelf:
the catalog never holds it, so recall, ``ask``, MCP and INDEX.md never serve it.

``aida brain lint`` lists what is held; ``aida brain quarantine`` lists it too, ``accept ID``
writes it to its shelf as the person's own (marked ``guard_accepted``, so the same text at the same
key is not held again) and ``drop ID`` deletes it (git keeps it).
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import Path

from brain_core.errors import InvalidInput, MalformedRecord
from brain_core.marks import UNSAID
from brain_core.records import Record, now_iso

FOLDER = "quarantine"


@dataclass(frozen=True)
class Held:
    """One quarantined record as it lies on disk."""

    path: str
    record: Record

    @property
    def info(self) -> dict:
        q = self.record.extra.get("quarantine")
        return q if isinstance(q, dict) else {}

    def to_json(self) -> dict:
        return {"id": self.record.id, "path": self.path, "profile": self.record.profile, "key": self.record.key,
                "type": self.record.type, "body": self.record.body, "source": self.record.source, **self.info}


def body_sha(body: str) -> str:
    return hashlib.sha256(body.encode("utf-8")).hexdigest()[:32]


def held_path(rec: Record, rel: str) -> str:
    """Where a held record lies: one file per profile and key (a record written again replaces its
    own quarantined copy), one per id for events and lessons."""
    name = rec.key if rel.startswith("memories/") else rec.id
    return f"{FOLDER}/{rec.profile}/{name}.json"


def screen(brain, prepared: list[tuple[Record, str]]) -> list[tuple[Record, str, bool]]:
    """Each (record, path) with whether it goes to quarantine; a held record's path becomes its
    quarantine path and its ``extra`` gains the ``quarantine`` field."""
    out = []
    for rec, rel in prepared:
        if rec.type == "lesson" and rec.source.startswith("aida:run:"):
            out.append((rec, rel, False))  # the question a person asked, kept by `aida feedback`: no order
            continue
        names = rec.extra.get(UNSAID)
        if names is not None:
            rec.extra = {k: v for k, v in rec.extra.items() if k != UNSAID}  # said once, in the hold: not kept
        caught = reason(rec.body, names)
        if caught is None or _accepted(brain, rec, rel):
            out.append((rec, rel, False))
            continue
        rec.extra = {**rec.extra, "quarantine": {**caught.to_dict(), "door": _door(rec), "intended": rel,
                                                 "at": now_iso()}}
        out.append((rec, held_path(rec, rel), True))
    return out


def reason(body: str, unsaid=None):
    """Why a record is held, as a :class:`brain_core.redact.guard.Catch`, or None: a standing order in
    its body, else ``unsaid``, the names a model's record gives that its session never says
    (:mod:`brain_core.harvest.grounded`)."""
    from brain_core.redact.guard import Catch, check

    caught = check(body)
    if caught is None and isinstance(unsaid, list) and unsaid:
        said = ", ".join(str(n) for n in unsaid[:5])
        caught = Catch("unsaid", f"it names {said}, which its session never says", body[:200])
    return caught


def _door(rec: Record) -> str:
    src = rec.source or ""
    if src.startswith("meeting:"):
        return "meeting"
    if ":memory:" in src:
        return "mirror"
    if src == "mcp" or src.startswith("mcp"):
        return "mcp"
    if src.startswith(("claude:", "codex:", "gemini:")):
        return "harvest"
    return "remember"


def _accepted(brain, rec: Record, rel: str) -> bool:
    """Whether the person already accepted this very text at this place."""
    if not rel.startswith("memories/"):
        return False
    try:
        old = Record.from_bytes((brain.root / rel).read_bytes(), rel)
    except (OSError, MalformedRecord):
        return False
    return old.extra.get("guard_accepted") == body_sha(rec.body)


def same_as_held(brain, rec: Record, rel: str) -> Record | None:
    """The record already held at ``rel`` when it says the same (a re-harvest is then a no-op)."""
    try:
        old = Record.from_bytes((brain.root / rel).read_bytes(), rel)
    except (OSError, MalformedRecord):
        return None
    if (old.body, old.type, old.tags) == (rec.body, rec.type, rec.tags):
        return old
    return None


def held(brain) -> list[Held]:
    """Everything in quarantine, oldest first (unreadable files are skipped: lint names them)."""
    root = brain.root / FOLDER
    out: list[Held] = []
    if not root.is_dir():
        return out
    for path in sorted(root.glob("*/*.json")):
        if path.is_symlink() or not path.is_file():
            continue
        rel = path.relative_to(brain.root).as_posix()
        try:
            out.append(Held(rel, Record.from_bytes(path.read_bytes(), rel)))
        except (OSError, MalformedRecord):
            continue
    return sorted(out, key=lambda h: (h.info.get("at") or "", h.path))


def find(brain, ident: str) -> Held:
    """A held record by its id, its quarantine path or ``profile/key``."""
    ident = (ident or "").strip()
    for h in held(brain):
        if ident in (h.record.id, h.path, f"{h.record.profile}/{h.record.key}", h.path.removeprefix(f"{FOLDER}/")):
            return h
    raise InvalidInput(f"Nothing in quarantine is called {ident!r}; `aida brain quarantine` lists what is held.")


def accept(brain, ident: str) -> Record:
    """Write a held record to its shelf as the person's own and take it out of quarantine (one
    commit)."""
    h = find(brain, ident)
    r = h.record
    info = h.info
    extra = {k: v for k, v in r.extra.items() if k != "quarantine"}
    extra["guard_accepted"] = body_sha(r.body)
    item = dict(body=r.body, type=r.type, key=r.key if str(info.get("intended", "")).startswith("memories/") else None,
                profile=r.profile, tags=r.tags, source=r.source, created=r.created, expires=r.expires,
                provenance=r.provenance, extra=extra, confidence=r.confidence)
    written = brain.remember_many([item], message=f"quarantine: accept {h.path}", guard=False, also_remove=[h.path])
    return written[0]


def drop(brain, ident: str) -> Held:
    """Delete a held record (its text stays in git's history)."""
    h = find(brain, ident)
    brain.delete([h.path], f"quarantine: drop {h.path}")
    return h


def scan(brain, *, dry_run: bool = False) -> list[Held]:
    """Screen the records already on the shelves (written before the guard, or by hand) and move
    each one it catches to quarantine, in one commit; an accepted one (``guard_accepted``) stays."""
    from brain_core.redact.guard import check

    found: list[Held] = []
    with brain.lock():
        for rel, rec in list(brain.records(("memories", "events", "lessons"))):
            if rec.extra.get("guard_accepted") == body_sha(rec.body):
                continue
            if rec.type == "lesson" and rec.source.startswith("aida:run:"):
                continue
            caught = check(rec.body)
            if caught is None:
                continue
            rec.extra = {**rec.extra, "quarantine": {**caught.to_dict(), "door": "scan", "intended": rel, "at": now_iso()}}
            found.append(Held(held_path(rec, rel), rec))
        if dry_run or not found:
            return found
        with brain.writing(f"quarantine: {len(found)} record(s) already on the shelves hold standing orders") as tx:
            for h in found:
                tx.put(h.path, h.record.to_json())
                tx.delete(h.info["intended"])
    return found


def describe(h: Held) -> str:
    """One line for lint and the CLI."""
    info = h.info
    came = info.get("door") or "remember"
    src = f" from {h.record.source}" if h.record.source else ""
    return (f"was quarantined ({info.get('category', 'order')}: {info.get('why', 'it reads as an order')}), "
            f"written through {came}{src}; never served. `aida brain quarantine accept {h.record.id}` keeps it as "
            f"a memory, `aida brain quarantine drop {h.record.id}` deletes it")


def is_held(rec: Record) -> bool:
    return isinstance(rec.extra.get("quarantine"), dict)


def root_of(brain) -> Path:
    return brain.root / FOLDER
