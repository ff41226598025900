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

from . import SessionFile

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

    @classmethod
    def load(cls, brain, tool: str) -> "Watermark":
        """The stored watermark, or an empty one (a damaged file is treated as empty: the worst
        case is a second harvest, which supersedes by key and writes nothing new)."""
        text = brain.read_text(f"harvest/{tool}.json")
        if not text:
            return cls(tool)
        try:
            data = json.loads(text)
        except ValueError:
            return cls(tool)
        if not isinstance(data, dict) or not isinstance(data.get("sessions"), dict):
            return cls(tool)
        sessions = {str(k): v for k, v in data["sessions"].items() if isinstance(v, dict)}
        for v in sessions.values():  # migrate: absolute home paths written before
            if isinstance(v.get("path"), str):
                v["path"] = portable(v["path"])
        return cls(tool, sessions, data.get("through"))

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
    from .privacy import local_identity

    for name in sorted(names | local_identity()[0], key=len, reverse=True):
        if len(name) >= 3 and name.lower() not in ("home", "user", "users"):
            text = re.sub(rf"(?<![A-Za-z0-9]){re.escape(name)}(?![A-Za-z0-9])", "<user>", text, flags=re.I)
    return text


def system_clock() -> float:
    return time.time()

