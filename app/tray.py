"""The tray icon and its menu, rebuilt from live state each time it opens.

The menu is built in :meth:`TrayMenu.rebuild` on ``aboutToShow`` (as Vorta's tray menu is): the
state line, Recent memories and the Pause check always say what is true now, not what was true
at start. Actions call the :class:`Actions` the app provides; the icon follows the service's state
with a badge (listening, working, paused, error).
"""

from __future__ import annotations

from pathlib import Path
from typing import Protocol

from PySide6.QtCore import QObject, Slot
from PySide6.QtGui import QAction
from PySide6.QtWidgets import QMenu, QSystemTrayIcon

from .icons import resolve_theme, tray_icon
from .service import AidaService

STATE_WORDS = {"idle": "ready", "listening": "listening…", "working": "working…", "paused": "harvesting paused",
               "error": "something went wrong (see the last message)"}


class Actions(Protocol):
    def ask(self) -> None: ...
    def quick_recall(self) -> None: ...
    def drop_recording(self) -> None: ...
    def harvest_now(self) -> None: ...
    def open_brain_folder(self) -> None: ...
    def open_memory(self, rel: str) -> None: ...
    def settings(self) -> None: ...
    def welcome(self) -> None: ...
    def overview(self) -> None: ...
    def set_paused(self, paused: bool) -> None: ...
    def quit(self) -> None: ...


class TrayMenu(QObject):
    """The menu's contents; usable without a tray (the fallback window shows the same actions)."""

    RECENT = 5

    def __init__(self, service: AidaService, actions: Actions, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.service = service
        self.actions = actions
        self.menu = QMenu()
        self.menu.aboutToShow.connect(self.rebuild)
        self.rebuild()

    @Slot()
    def rebuild(self) -> None:
        m, a, s = self.menu, self.actions, self.service
        m.clear()
        head = m.addAction(f"Aida: {STATE_WORDS.get(s.state(), s.state())}")
        head.setEnabled(False)
        brain = m.addAction(f"Brain: {_short(s.root)}")
        brain.setEnabled(False)
        m.addSeparator()
        m.addAction("Ask…", a.ask)
        m.addAction("Quick recall", a.quick_recall)
        m.addAction("Drop a recording…", a.drop_recording)
        harvest = m.addAction("Harvest now" if not s.running("harvest") else "Harvesting…", a.harvest_now)
        harvest.setEnabled(not s.running("harvest"))
        m.addAction("Open brain folder", a.open_brain_folder)
        recent = m.addMenu("Recent memories")
        items = s.recent(self.RECENT)
        if not items:
            none = recent.addAction("No memories written yet")
            none.setEnabled(False)
        for ev in items:
            label = f"{ev.key or Path(ev.path).stem} · {ev.profile}"
            act = recent.addAction(label)
            act.setToolTip(ev.first_line)
            act.triggered.connect(lambda _checked=False, p=ev.path: a.open_memory(p))
        m.addAction("Overview…", a.overview)
        m.addSeparator()
        m.addAction("Settings…", a.settings)
        m.addAction("Welcome and setup…", a.welcome)
        pause = m.addAction("Pause harvesting")
        pause.setCheckable(True)
        pause.setChecked(s.paused)
        pause.toggled.connect(a.set_paused)
        m.addSeparator()
        m.addAction("Quit", a.quit)

    def action(self, text: str) -> QAction | None:
        """An action by its label (tests and the fallback window use it)."""
        for act in self.menu.actions():
            if act.text() == text:
                return act
        return None


class Tray(QObject):
    """The :class:`QSystemTrayIcon`: icon with state badge, tooltip, menu, clicks, balloons."""

    def __init__(self, service: AidaService, actions: Actions, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.service = service
        self.actions = actions
        self.menu = TrayMenu(service, actions, self)
        self.icon = QSystemTrayIcon(self)
        self.icon.setContextMenu(self.menu.menu)
        self.icon.activated.connect(self._activated)
        service.stateChanged.connect(self.set_state)
        service.settingsChanged.connect(lambda: self.set_state(service.state()))
        self.set_state(service.state())

    @Slot(str)
    def set_state(self, state: str) -> None:
        theme = resolve_theme(self.service.config.get("tray.icon_theme", "auto"))
        self.icon.setIcon(tray_icon(theme, state))
        self.icon.setToolTip(f"Aida: {STATE_WORDS.get(state, state)}")

    def show(self) -> None:
        self.icon.show()

    def hide(self) -> None:
        self.icon.hide()

    def message(self, title: str, text: str) -> None:
        self.icon.showMessage(title, text, QSystemTrayIcon.MessageIcon.Information, 6000)

    @Slot(QSystemTrayIcon.ActivationReason)
    def _activated(self, reason: QSystemTrayIcon.ActivationReason) -> None:
        if reason == QSystemTrayIcon.ActivationReason.Trigger:  # a left click: the popup
            self.actions.quick_recall()
        elif reason == QSystemTrayIcon.ActivationReason.MiddleClick:
            self.actions.ask()


def _short(path: Path) -> str:
    try:
        return "~/" + str(Path(path).relative_to(Path.home()))
    except ValueError:
        return str(path)
