"""Global hotkeys: quick recall on a chord, push-to-talk while a chord is held.

pynput listens to the keyboard on X11, Windows and macOS (where the app needs the accessibility
permission). It is imported only when hotkeys are switched on: importing it without a display
raises. Wayland gives no program the whole keyboard, so there :func:`support` says so and the
settings show the commands to bind in the desktop's own shortcut settings instead: ``aida popup``
and ``aida ptt`` reach the running app through its local socket.

Shortcuts are stored as Qt's portable text ("Ctrl+Alt+Space", what the settings' key editor
produces) and translated for pynput by :func:`pynput_combo`.
"""

from __future__ import annotations

import logging
import os
import sys
import threading
from dataclasses import dataclass
from typing import Any, Callable, Iterable, Mapping

from PySide6.QtCore import QObject, Signal

from brain_core.config.shortcut import pynput_combo  # noqa: F401 - the one parser, also used where a shortcut is set

log = logging.getLogger("aida.app")

DEFAULT_RECALL = "Ctrl+Alt+Space"
DEFAULT_PTT = "Ctrl+Alt+A"
BIND_COMMANDS = {"Quick recall": "aida popup", "Push-to-talk (press to start, again to stop)": "aida ptt"}

@dataclass(frozen=True)
class Support:
    available: bool
    reason: str  # one sentence for the settings dialog


def support(env: Mapping[str, str] | None = None, platform: str | None = None) -> Support:
    """Whether global hotkeys can work in this session (decided without importing pynput)."""
    env = os.environ if env is None else env
    platform = platform or sys.platform
    if platform.startswith(("win", "darwin")):
        extra = " (grant Aida the Accessibility permission in System Settings)" if platform == "darwin" else ""
        return Support(True, f"Global hotkeys work on this system{extra}.")
    if env.get("WAYLAND_DISPLAY") or env.get("XDG_SESSION_TYPE", "").lower() == "wayland":
        return Support(False, "This is a Wayland session, where no program may read the whole keyboard; "
                              "bind these commands in your desktop's keyboard shortcut settings instead.")
    if not env.get("DISPLAY"):
        return Support(False, "There is no X display, so global hotkeys cannot be read; "
                              "bind these commands in your desktop's keyboard shortcut settings instead.")
    return Support(True, "Global hotkeys work in this X11 session.")


class Chord:
    """Tracks whether every key of a chord is down: ``press``/``release`` say when it starts and ends.

    Keys are whatever the listener hands over after canonicalisation (pynput key objects in the app,
    strings in tests), compared by equality.
    """

    def __init__(self, keys: Iterable[Any]) -> None:
        self.keys = frozenset(keys)
        self._down: set[Any] = set()
        self.active = False

    def press(self, key: Any) -> str | None:
        if key in self.keys:
            self._down.add(key)
        if not self.active and self.keys and self._down >= self.keys:
            self.active = True
            return "down"
        return None

    def release(self, key: Any) -> str | None:
        self._down.discard(key)
        if self.active and key in self.keys:
            self.active = False
            return "up"
        return None


class GlobalHotkeys(QObject):
    """``recall`` on the recall chord; ``pttDown``/``pttUp`` while the push-to-talk chord is held.

    pynput calls back on its own thread; emitting a signal from there is queued to the UI thread.
    ``listening`` is emitted once the listener receives keys (pynput connects to the display on its
    own thread, a moment after ``start``).
    """

    recall = Signal()
    pttDown = Signal()
    pttUp = Signal()
    listening = Signal()

    def __init__(self, parent: QObject | None = None, listener_factory: Callable[..., Any] | None = None) -> None:
        super().__init__(parent)
        self._listener = None
        self._factory = listener_factory

    @property
    def running(self) -> bool:
        return self._listener is not None

    def start(self, recall: str, ptt: str) -> str | None:
        """Start listening; returns None, or one sentence saying why hotkeys are off."""
        self.stop()
        s = support()
        if not s.available and self._factory is None:
            return s.reason
        try:
            if self._factory is None:
                from pynput import keyboard
            else:
                keyboard = None
            parse = keyboard.HotKey.parse if keyboard else (lambda c: c.split("+"))
            recall_chord = Chord(parse(pynput_combo(recall)))
            ptt_chord = Chord(parse(pynput_combo(ptt)))
        except ImportError as e:
            return f"Global hotkeys need pynput, which could not load here ({e}); bind the commands instead."
        except ValueError as e:
            return f"A shortcut could not be used ({e}); choose another in the settings."

        def canonical(key: Any) -> Any:
            return self._listener.canonical(key) if hasattr(self._listener, "canonical") else key

        def on_press(key: Any) -> None:
            k = canonical(key)
            if recall_chord.press(k) == "down":
                self.recall.emit()
            if ptt_chord.press(k) == "down":
                self.pttDown.emit()

        def on_release(key: Any) -> None:
            k = canonical(key)
            recall_chord.release(k)
            if ptt_chord.release(k) == "up":
                self.pttUp.emit()

        factory = self._factory or keyboard.Listener
        try:
            self._listener = factory(on_press=on_press, on_release=on_release)
            self._listener.start()
            self._announce_when_ready(self._listener)
        except Exception as e:  # noqa: BLE001 - X errors, missing RECORD extension, macOS permission: all say "off"
            self._listener = None
            log.warning("global hotkeys are off: %s", e)
            return f"Global hotkeys could not start ({e.__class__.__name__}: {e}); bind the commands instead."
        return None

    def _announce_when_ready(self, listener: Any) -> None:
        wait = getattr(listener, "wait", None)
        if wait is None:  # a listener without a readiness wait receives keys once started
            self.listening.emit()
            return

        def ready() -> None:
            wait()
            if self._listener is listener:
                self.listening.emit()

        threading.Thread(target=ready, name="hotkeys-ready", daemon=True).start()

    def stop(self) -> None:
        listener, self._listener = self._listener, None
        if listener is not None:
            listener.stop()
