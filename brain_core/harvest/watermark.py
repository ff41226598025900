"""Harvest watermarks: which sessions were harvested, at what size, so each is harvested once.

One file per agent in the brain, ``harvest/<tool>.json``, committed like everything else (a second
machine sharing the brain then skips what the first harvested). A session is due when it has
been quiet for ``harvest.quiet_minutes`` (10 by default: an agent still working would be
harvested half-way) and was never harvested or has grown since. The clock is injected so tests
can move time instead of waiting for it.

A brain is pushed to a remote, so the file names no absolute home folder and no login name: a
transcript's path is kept relative to the home (``~/.claude/projects/...``), with the login name
masked where the agent encoded it in a folder name (``-home-<user>-work-app``); older files are
migrated when read. A session read by the offline distiller is marked ``"offline": true``, so
``aida brain backfill --relearn`` can read it again once a model is available.
"""

from __future__ import annotations

import json
import os
import re
import time
from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import Callable

from brain_core.harvest import SessionFile

Clock = Callable[[], float]  # seconds since the epoch, like time.time
DEFAULT_QUIET_MINUTES = 10
VERSION = 1


def iso(ts: float) -> str:
    return datetime.fromtimestamp(ts, timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


@dataclass
class Watermark:
    """The state of one agent's harvest, as stored in ``harvest/<tool>.json``."""

    tool: str
    sessions: dict[str, dict] = field(default_factory=dict)
    through: str | None = None  # the newest transcript change harvested so far

    @property
    def relpath(self) -> str:
        return f"harvest/{self.tool}.json"

    problem: str | None = None  # why the stored file was refused (then the sessions were rebuilt)

    @classmethod
    def load(cls, brain, tool: str) -> "Watermark":
        """The stored watermark, or an empty one when there is none. A damaged file (not JSON, or
        one malformed value) is reported in ``problem`` and treated as absent: its sessions are rebuilt
        from the records' sources (:func:`rebuilt`), the sound entries kept, so no session is
        harvested twice."""
        text = brain.read_text(f"harvest/{tool}.json")
        if not text:
            return cls(tool)
        try:
            data = json.loads(text)
            problem = malformed(data)
        except ValueError as e:
            data, problem = None, f"it is not JSON ({e.__class__.__name__})"
        if problem is None:
            sessions = {str(k): v for k, v in data["sessions"].items()}
            for v in sessions.values():  # migrate: absolute home paths written before
                if isinstance(v.get("path"), str):
                    v["path"] = portable(v["path"])
            return cls(tool, sessions, data.get("through"))
        sessions = rebuilt(brain, tool)  # what the records say, with the entries that are still sound
        good = data.get("sessions") if isinstance(data, dict) else None
        good = good if isinstance(good, dict) else {}
        sessions.update({str(k): v for k, v in good.items() if entry_problem(k, v) is None})
        for v in sessions.values():
            if isinstance(v, dict) and isinstance(v.get("path"), str):
                v["path"] = portable(v["path"])
        through = data.get("through") if isinstance(data, dict) and isinstance(data.get("through"), str) else None
        return cls(tool, sessions, through, problem)

    def to_json(self) -> str:
        data = {"version": VERSION, "tool": self.tool, "through": self.through, "sessions": self.sessions}
        return json.dumps(data, ensure_ascii=False, sort_keys=True, indent=2) + "\n"

    def save(self, brain, message: str | None = None) -> None:
        brain.write_text(self.relpath, self.to_json(), message or f"harvest: {self.tool} watermark")

    # -- deciding --------------------------------------------------------------------------------

    def grew(self, sf: SessionFile) -> bool:
        """Never harvested, or bigger than when it was. A rollout compressed to ``.zst`` in place
        is smaller but not new, so only a growth of the same file counts."""
        known = self.sessions.get(sf.id)
        if known is None:
            return True
        if portable(sf.path) == f"{portable(str(known.get('path')))}.zst":
            return False  # compressed in place (foo.jsonl -> foo.jsonl.zst): the same session, not more of it
        return sf.size > int(known.get("size", 0))  # grown in place, or moved elsewhere with more in it

    def mark(self, sf: SessionFile, *, now: float, records: list[str], offline: bool = False,
             dropped: str | None = None) -> None:
        entry = {
            "path": portable(sf.path), "size": sf.size, "mtime": iso(sf.mtime),
            "harvested": iso(now), "records": sorted(records),
        }
        if offline:
            entry["offline"] = True
        if dropped and not records:
            entry["dropped"] = dropped
        self.sessions[sf.id] = entry
        if self.through is None or iso(sf.mtime) > self.through:
            self.through = iso(sf.mtime)


def malformed(data) -> str | None:
    """What is wrong with a parsed watermark file, in a few words, or None."""
    if not isinstance(data, dict) or not isinstance(data.get("sessions"), dict):
        return "it has no sessions mapping"
    if data.get("through") is not None and not isinstance(data["through"], str):
        return f"through is {data['through']!r}, not a time"
    return next(filter(None, (entry_problem(sid, e) for sid, e in data["sessions"].items())), None)


def entry_problem(sid, entry) -> str | None:
    if not isinstance(entry, dict):
        return f"session {sid} is {entry!r}, not a mapping"
    size = entry.get("size", 0)
    if isinstance(size, bool) or not isinstance(size, int) or size < 0:
        return f"session {sid} has size {size!r}, not a byte count"
    if entry.get("path") is not None and not isinstance(entry["path"], str):
        return f"session {sid} has path {entry['path']!r}, not a path"
    for key in ("mtime", "harvested"):
        if entry.get(key) is not None and not isinstance(entry[key], str):
            return f"session {sid} has {key} {entry[key]!r}, not a time"
    records = entry.get("records", [])
    if not isinstance(records, list) or not all(isinstance(r, str) for r in records):
        return f"session {sid} has records {records!r}, not a list of paths"
    return None


def rebuilt(brain, tool: str) -> dict[str, dict]:
    """The sessions of ``tool`` that records in the brain came from (their ``source``, and the
    sources linked into a record), each marked ``rebuilt``: the sweep takes the file's present size
    as harvested (:func:`adopt`), so a session is harvested again only when it grows."""
    prefix = f"{tool}:session:"
    sessions: dict[str, dict] = {}
    for rel, rec in brain.records():
        linked = rec.extra.get("sources") if isinstance(rec.extra.get("sources"), list) else []
        for source in [rec.source, *(s.get("source") for s in linked if isinstance(s, dict))]:
            if isinstance(source, str) and source.startswith(prefix):
                entry = sessions.setdefault(source[len(prefix):], {"size": 0, "rebuilt": True, "records": []})
                entry["records"] = sorted({*entry["records"], rel})
    return sessions


def adopt(wm: Watermark, sf: SessionFile) -> None:
    """A session rebuilt from the records counts as harvested at the size its file has now."""
    known = wm.sessions.get(sf.id)
    if known is not None and known.get("rebuilt"):
        known.pop("rebuilt")
        known.update(path=portable(sf.path), size=sf.size, mtime=iso(sf.mtime))


@dataclass(frozen=True)
class Due:
    """What the watermark and the quiet window say about one session."""

    file: SessionFile
    due: bool
    reason: str  # "new", "grew", "unchanged", "active"


def quiet_seconds(config) -> float:
    minutes = DEFAULT_QUIET_MINUTES
    if config is not None:
        minutes = config.get("harvest.quiet_minutes", DEFAULT_QUIET_MINUTES)
    try:
        return max(0.0, float(minutes)) * 60
    except (TypeError, ValueError):
        return DEFAULT_QUIET_MINUTES * 60.0


def check(wm: Watermark, sf: SessionFile, *, now: float, quiet_s: float, ignore_quiet: bool = False) -> Due:
    if not wm.grew(sf):
        return Due(sf, False, "unchanged")
    if not ignore_quiet and now - sf.mtime < quiet_s:
        return Due(sf, False, "active")
    return Due(sf, True, "grew" if sf.id in wm.sessions else "new")


_HOME_PREFIX = re.compile(r"^(?:/Users/|/home/|/var/home/|[A-Za-z]:[\\/]{1,2}Users[\\/]{1,2})(?P<name>[^\\/]+)")


def portable(path) -> str:
    """``path`` as the brain keeps it: relative to the home (``~/...``), with login names masked."""
    text = str(path)
    if text.startswith("~"):
        return _mask_names(text, set())
    names: set[str] = set()
    try:
        home = os.path.expanduser("~")
        if home and home != "~" and (text == home or text.startswith(home.rstrip("/\\") + os.sep)):
            names.add(os.path.basename(home.rstrip("/\\")))
            text = "~" + text[len(home.rstrip("/\\")):]
    except (KeyError, ValueError):
        pass
    m = _HOME_PREFIX.match(text)
    if m:
        names.add(m.group("name"))
        text = "~" + text[m.end():]
    return _mask_names(text.replace("\\", "/"), names)


def _mask_names(text: str, names: set[str]) -> str:
    from brain_core.harvest.privacy import local_identity

    for name in sorted(names | local_identity()[0], key=len, reverse=True):
        if len(name) >= 3 and name.lower() not in ("home", "user", "users"):
            text = re.sub(rf"(?<![A-Za-z0-9]){re.escape(name)}(?![A-Za-z0-9])", "<user>", text, flags=re.I)
    return text


def system_clock() -> float:
    return time.time()

