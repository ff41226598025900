"""Forget, restore and confirm: a wrong or stale memory leaves recall without anything being deleted,
and a right one the offline distiller wrote loses its *unchecked* mark.

``forget`` moves the record's file to ``archive/<its path>`` and writes into it, in the same
commit (with INDEX.md regenerated when there is one), a ``forgotten`` field: ``{"at", "by", "reason", "path"}`` (when, who asked: ``cli``,
``mcp:<agent>``, ``popup``; why; and where it lived). Nothing on the shelves holds it any more, so
recall, INDEX.md, consolidation and the session-start block never see it; ``aida brain recall
--archived`` still finds it (a plain word match over the archive), and git keeps every version.

``restore`` puts the newest archived version of a key back where it lived, without the
``forgotten`` field, in one commit. Writing the key again (``remember --key``) while it is
forgotten is a correction: the new record ``supersedes`` the forgotten one (see
:func:`forgotten_at`, which the write path asks), and the archive keeps what it replaced.

``confirm`` is the other verdict: a record the offline distiller lifted from a session (tagged
``harvest:offline``, :mod:`brain_core.marks`) that a person has read and found right keeps its id and
loses the tag and the lower confidence, so the session-start block no longer marks it *unchecked*.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import PurePosixPath

from brain_core.errors import InvalidInput, MalformedRecord
from brain_core.records import KEY_RE, PROFILE_RE, Record, now_iso
from brain_core.store.archive import FIELD, forgotten_at  # noqa: F401 - the write path asks it too

_WORD = re.compile(r"\w+", re.UNICODE)


@dataclass(frozen=True)
class Moved:
    """What a forget or a restore did: the record, where it was and where it is now."""

    record: Record
    src: str
    dst: str

    def to_json(self) -> dict:
        return {"key": self.record.key, "profile": self.record.profile, "id": self.record.id,
                "from": self.src, "to": self.dst, FIELD: self.record.extra.get(FIELD)}


# ------------------------------------------------------------------------------------------ finding
def _as_path(key: str) -> str | None:
    """``key`` when it is a record's path in the brain (``memories/me/x.json``), else None."""
    if "/" in key and key.endswith(".json"):
        return PurePosixPath(key).as_posix()
    return None


def _check(key: str, profile: str | None) -> None:
    if not isinstance(key, str) or not key.strip():
        raise InvalidInput("Say which record: its key (e.g. webhook-retry-policy) or its path in the brain.")
    if _as_path(key) is None and not KEY_RE.match(key):
        raise InvalidInput(f"{key!r} is neither a record's key (kebab-case) nor its path in the brain "
                           "(memories/<profile>/<key>.json).")
    if profile is not None and not PROFILE_RE.match(profile):
        raise InvalidInput(f"The profile {profile!r} is not a simple lowercase name.")


def find_live(brain, key: str, profile: str | None = None) -> str:
    """The path of the live record with this key (or this path); one sentence when there is none
    or when several profiles hold the key."""
    _check(key, profile)
    rel = _as_path(key)
    if rel is not None:
        if rel.split("/", 1)[0] not in ("memories", "events", "lessons") or not (brain.root / rel).is_file():
            raise InvalidInput(f"There is no record at {rel}; `aida brain recall` shows each record's path.")
        return rel
    profiles = [profile] if profile else sorted(p.name for p in (brain.root / "memories").iterdir() if p.is_dir())
    found = [f"memories/{p}/{key}.json" for p in profiles if (brain.root / "memories" / p / f"{key}.json").is_file()]
    if not found:
        found = [path for path, rec in brain.records(("events", "lessons"))
                 if rec.key == key and (profile is None or rec.profile == profile)]
    if not found:
        where = f" in profile {profile}" if profile else ""
        raise InvalidInput(f"No record has the key {key!r}{where}; `aida brain recall` shows each record's key.")
    if len(found) > 1:
        raise InvalidInput(f"{len(found)} records have the key {key!r} ({', '.join(found[:4])}); "
                           "name one with --profile or give its path.")
    return found[0]


def archived(brain, forgotten_only: bool = True) -> list[tuple[str, Record]]:
    """(path, record) of every record in ``archive/`` (only forgotten ones by default), newest first."""
    out: list[tuple[str, Record]] = []
    root = brain.root / "archive"
    if not root.is_dir():
        return out
    for path in root.rglob("*.json"):
        rel = path.relative_to(brain.root).as_posix()
        try:
            rec = Record.from_bytes(path.read_bytes(), rel)
        except (MalformedRecord, OSError):
            continue
        if forgotten_only and not isinstance(rec.extra.get(FIELD), dict):
            continue
        out.append((rel, rec))
    out.sort(key=lambda pr: (str((pr[1].extra.get(FIELD) or {}).get("at", "")), pr[1].id), reverse=True)
    return out


# ------------------------------------------------------------------------------------------ forget
def forget(brain, key: str, profile: str | None = None, reason: str = "", by: str = "cli") -> Moved:
    """Move the record to ``archive/`` with why, when and who asked, in one commit."""
    from brain_core.lifecycle.common import archive_path
    from brain_core.redact import redact

    reason = " ".join(redact(str(reason or "")).text.split())[:500]
    by = re.sub(r"[^a-z0-9:_-]+", "-", str(by or "cli").lower())[:60] or "cli"
    with brain.lock():
        brain.git.ensure_writable()
        src = find_live(brain, key, profile)
        old = Record.from_bytes((brain.root / src).read_bytes(), src)
        dst = archive_path(brain, src, old.id)
        old.extra[FIELD] = {"at": now_iso(), "by": by, "reason": reason, "path": src}
        with brain.writing(f"forget: {src}" + (f" ({reason})" if reason else "")) as tx:
            dst = tx.move(src, dst, old.to_json())  # a move first: a crash leaves the record archived, never twice
            _reindex(brain, tx)
        _emit(brain, "forgotten", old, src, dst)
    return Moved(old, src, dst)


def restore(brain, key: str, profile: str | None = None) -> Moved:
    """Put the newest archived version of ``key`` back where it lived, in one commit."""

    _check(key, profile)
    with brain.lock():
        brain.git.ensure_writable()
        rel = _as_path(key)
        pool = archived(brain, forgotten_only=False)
        if rel is not None:
            pick = [(p, r) for p, r in pool if p == rel or (r.extra.get(FIELD) or {}).get("path") == rel]
        else:
            pick = [(p, r) for p, r in pool if r.key == key and (profile is None or r.profile == profile)]
        pick.sort(key=lambda pr: (isinstance(pr[1].extra.get(FIELD), dict),
                                  str((pr[1].extra.get(FIELD) or {}).get("at", "")), pr[1].id), reverse=True)
        if not pick:
            raise InvalidInput(f"Nothing archived has the key {key!r}; `aida brain recall --archived` lists "
                               "what was forgotten.")
        src, rec = pick[0]
        mark = rec.extra.pop(FIELD, None)
        dst = (mark or {}).get("path") if isinstance(mark, dict) else None
        if not dst:
            dst = src[len("archive/"):]
        if (brain.root / dst).exists():
            raise InvalidInput(f"{dst} holds a newer record (a correction written since); forget that one "
                               "first to bring the archived one back.")
        with brain.writing(f"restore: {dst}") as tx:
            dst = tx.move(src, dst, rec.to_json())
            _reindex(brain, tx)
        _emit(brain, "restored", rec, src, dst)
    return Moved(rec, src, dst)


# ------------------------------------------------------------------------------------------ confirm
def confirm(brain, key: str, profile: str | None = None) -> tuple[str, Record, bool]:
    """Take the offline distiller's mark off a record a person has read and found right: no
    ``harvest:offline`` tag, ``confidence`` 1, in place (same id: a verdict, not new knowledge), with
    INDEX.md regenerated in the same commit. Returns (path, record, whether it changed); a record
    without the mark is left as it is."""
    from brain_core.marks import OFFLINE_TAG, check

    with brain.lock():
        brain.git.ensure_writable()
        rel = find_live(brain, key, profile)
        rec = Record.from_bytes((brain.root / rel).read_bytes(), rel)
        if OFFLINE_TAG not in rec.tags and rec.confidence == 1:
            return rel, rec, False
        check(rec)
        with brain.writing(f"confirm: {rel}") as tx:
            tx.put(rel, rec.to_json())
            _reindex(brain, tx)
        _emit(brain, "confirmed", rec, rel, rel)
    return rel, rec, True


def unchecked(brain) -> list[tuple[str, Record]]:
    """(path, record) of every live record the offline distiller wrote and no one has confirmed yet,
    newest first: what ``aida brain review`` goes through."""
    from brain_core.marks import OFFLINE_TAG

    out = [(rel, rec) for rel, rec in brain.records(("memories",)) if OFFLINE_TAG in rec.tags]
    out.sort(key=lambda pr: (pr[1].created or "", pr[0]), reverse=True)
    return out


def _reindex(brain, tx) -> list[str]:
    """INDEX.md and its shelf as they are now, written into the move's transaction when they
    changed (one commit for the forget, and INDEX.md never lists a forgotten record)."""
    from brain_core.lifecycle.tier_index import INDEX, SHELF, plan
    from brain_core.redact import scrub

    if brain.read_text(INDEX) is None:
        return []  # no INDEX.md yet: maintain or setup makes it
    p = plan(brain)
    changed = []
    for rel, text in ((INDEX, p.index_text), (SHELF, p.shelf_text)):
        text = scrub.file_text(rel, text)
        if brain.read_text(rel) != text:
            changed.append(tx.put(rel, text))
    return changed


def _emit(brain, event: str, rec: Record, src: str, dst: str) -> None:
    """A line in ``.aida/events.jsonl`` (the tray follows it; ``remembered`` lines are its notices)."""
    from brain_core.brain import events

    events.append(brain.state_dir, [{"event": event, "path": dst, "from": src, "key": rec.key,
                                     "profile": rec.profile, "type": rec.type, "at": now_iso()}])


# ------------------------------------------------------------------------------------------ finding again
def recall_archived(brain, query: str, k: int = 5) -> list:
    """Forgotten records matching ``query`` by words (the archive is not in the catalog: a plain
    word match, best first), as recall's :class:`~brain_core.recall.hybrid.Hit` with path ``archive/...``."""
    from brain_core.recall.hybrid import Hit
    from brain_core.text.stopwords import FUNCTION_WORDS as STOPWORDS

    words = {w for w in _WORD.findall(query.lower()) if w not in STOPWORDS}
    hits = []
    for path, rec in archived(brain):
        text = set(_WORD.findall(f"{rec.key.replace('-', ' ')} {rec.body} {' '.join(rec.tags)}".lower()))
        score = len(words & text) / len(words) if words else 0.0
        if score > 0:
            hits.append(Hit(rec, path, score, confidence="strong" if score >= 0.5 else "weak"))
    hits.sort(key=lambda h: h.score, reverse=True)
    return hits[:k]
