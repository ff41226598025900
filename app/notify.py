"""Notifications for new memories: follow ``<brain>/.aida/events.jsonl`` and tell the user.

Every write through the brain's one write path (a hook's harvest, the periodic sweep, a meeting,
``aida brain remember`` in a terminal) appends one JSON line per record. :class:`EventFollower`
reads what was appended since it last looked (a file watcher, plus a slow poll because watchers
miss appends on some file systems and cannot watch a file that does not exist yet) and waits a
moment for the rest of a burst; :func:`group` turns a burst into notices, one per profile: "5 new
memories from codex" rather than five balloons, and what the write path held in quarantine (an order,
a name its session never says) gets its own: "Held for your review: KEY". Clicking a notice opens its
memory, or the folder holding a group's.
"""

from __future__ import annotations

import os
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Sequence

from PySide6.QtCore import QFileSystemWatcher, QObject, QTimer, Signal, Slot

from .events import Recent, parse_event

QUIET_TYPES = frozenset({"lesson"})  # the user's own thumbs up/down: no need to tell them


@dataclass(frozen=True)
class Notice:
    title: str
    message: str
    paths: tuple[str, ...]  # relative to the brain; one for a single memory

    @property
    def target(self) -> str | None:
        """What a click opens: the memory, or the folder a group's memories share."""
        if not self.paths:
            return None
        if len(self.paths) == 1:
            return self.paths[0]
        folders = {str(Path(p).parent) for p in self.paths}
        return folders.pop() if len(folders) == 1 else None


def group(events: Sequence[Recent], *, list_keys: int = 3) -> list[Notice]:
    """One notice per profile, in order of first appearance; then one for what was held in quarantine."""
    by_profile: dict[str, list[Recent]] = {}
    for ev in events:
        if not ev.held:
            by_profile.setdefault(ev.profile or "me", []).append(ev)
    notices = []
    for profile, evs in by_profile.items():
        if len(evs) == 1:
            ev = evs[0]
            what = "New memory (unchecked)" if ev.unchecked else "New memory"
            notices.append(Notice(f"{what}: {ev.key or Path(ev.path).stem}", ev.first_line, (ev.path,)))
            continue
        keys = [e.key or Path(e.path).stem for e in evs]
        shown = ", ".join(keys[:list_keys]) + (f" and {len(keys) - list_keys} more" if len(keys) > list_keys else "")
        unchecked = sum(e.unchecked for e in evs)
        note = "" if not unchecked else " (unchecked)" if unchecked == len(evs) else f" ({unchecked} unchecked)"
        notices.append(Notice(f"{len(evs)} new memories from {profile}{note}", shown, tuple(e.path for e in evs)))
    held = [e for e in events if e.held]
    if len(held) == 1:
        e = held[0]
        why = e.why[:1].upper() + e.why[1:] if e.why else e.first_line
        notices.append(Notice(f"Held for your review: {e.key or Path(e.path).stem}",
                              f"{why}. `aida brain quarantine` lists it.", (e.path,)))
    elif held:
        keys = [e.key or Path(e.path).stem for e in held]
        shown = ", ".join(keys[:list_keys]) + (f" and {len(keys) - list_keys} more" if len(keys) > list_keys else "")
        notices.append(Notice(f"{len(held)} records held for your review", f"{shown}. `aida brain quarantine` lists "
                              "them.", tuple(e.path for e in held)))
    return notices


class EventFollower(QObject):
    """Emits ``arrived(list[Recent])`` for records appended to the events file, a burst at a time."""

    arrived = Signal(list)

    def __init__(self, events_file: Path, *, settle_ms: int = 700, poll_ms: int = 2000,
                 parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.path = Path(events_file)
        self._offset = 0
        self._partial = b""
        self._pending: list[Recent] = []
        self._watcher = QFileSystemWatcher(self)
        self._watcher.fileChanged.connect(self._changed)
        self._watcher.directoryChanged.connect(self._changed)
        self._settle = QTimer(self, singleShot=True, interval=settle_ms)
        self._settle.timeout.connect(self._flush)
        self._poll = QTimer(self, interval=poll_ms)
        self._poll.timeout.connect(self.check)

    def start(self, *, from_start: bool = False) -> None:
        """Follow from the current end of the file (history is not news), or from its start."""
        self._offset = 0 if from_start else _size(self.path)
        self._partial = b""
        self._rewatch()
        self._poll.start()

    def stop(self) -> None:
        self._poll.stop()
        self._settle.stop()
        for p in self._watcher.files() + self._watcher.directories():
            self._watcher.removePath(p)

    def retarget(self, events_file: Path) -> None:
        """The brain folder changed in the settings."""
        self.stop()
        self.path = Path(events_file)
        self.start()

    def _rewatch(self) -> None:
        if not self.path.parent.is_dir():
            return  # the brain is not made yet: the poll notices when it is
        if str(self.path.parent) not in self._watcher.directories():
            self._watcher.addPath(str(self.path.parent))
        if self.path.exists() and str(self.path) not in self._watcher.files():
            self._watcher.addPath(str(self.path))  # re-added after a rewrite replaced the inode

    @Slot()
    @Slot(str)
    def _changed(self, _path: str = "") -> None:
        self._rewatch()
        self.check()

    @Slot()
    def check(self) -> None:
        """Read whatever was appended since last time."""
        if not self._watcher.directories():
            self._rewatch()
        size = _size(self.path)
        if size < self._offset:  # truncated or replaced: start over from its beginning
            self._offset, self._partial = 0, b""
        if size == self._offset:
            return
        try:
            with open(self.path, "rb") as f:
                f.seek(self._offset)
                data = f.read(size - self._offset)
        except OSError:
            return  # gone between stat and open: the next change or poll catches up
        self._offset += len(data)
        data = self._partial + data
        lines = data.split(b"\n")
        self._partial = lines.pop()  # an unfinished last line waits for its newline
        for raw in lines:
            ev = parse_event(raw.decode("utf-8", errors="replace"))
            if ev is not None:
                self._pending.append(ev)
        if self._pending:
            self._settle.start()  # restart: wait for the rest of the burst

    def drained(self) -> bool:
        """Whether everything appended so far has been read and handed on (no burst waits to settle)."""
        self.check()
        return not self._pending and not self._settle.isActive()

    @Slot()
    def _flush(self) -> None:
        batch, self._pending = self._pending, []
        if batch:
            self.arrived.emit(batch)


class Notifier(QObject):
    """Turns bursts into notices and shows them; a click opens the last one's target."""

    shown = Signal(object)  # Notice

    def __init__(self, show: Callable[[str, str], None], open_path: Callable[[str | None], None],
                 parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._show = show
        self._open = open_path
        self._last: Notice | None = None
        self._suppressed: dict[str, float] = {}  # source -> until (monotonic)
        self._deferred: dict[str, list] = {}  # profile -> events held back until release()

    def suppress(self, source: str, seconds: float = 120.0) -> None:
        """Records from ``source`` were already announced (a meeting's own "done" notice)."""
        self._suppressed[source] = time.monotonic() + seconds

    def defer(self, profile: str) -> None:
        """Hold back new records of ``profile`` (a meeting is being harvested: it will say itself)."""
        self._deferred.setdefault(profile, [])

    def release(self, profile: str, announced_source: str | None = None) -> None:
        """Stop holding ``profile``; what arrived meanwhile from elsewhere is shown now."""
        held = self._deferred.pop(profile, [])
        if announced_source:
            self.suppress(announced_source)
        self.on_events(held)

    @Slot(list)
    def on_events(self, events: list) -> None:
        now = time.monotonic()
        self._suppressed = {s: t for s, t in self._suppressed.items() if t > now}
        wanted = []
        for e in events:
            if e.type in QUIET_TYPES or e.source in self._suppressed:
                continue
            if e.profile in self._deferred:
                self._deferred[e.profile].append(e)
            else:
                wanted.append(e)
        for notice in group(wanted):
            self.notify(notice)

    def notify(self, notice: Notice) -> None:
        self._last = notice
        self._show(notice.title, notice.message)
        self.shown.emit(notice)

    @Slot()
    def clicked(self) -> None:
        if self._last is not None:
            self._open(self._last.target)


def _size(path: Path) -> int:
    try:
        return os.stat(path).st_size
    except OSError:
        return 0
