"""The tray app: builds the service and the windows, wires them, and runs Qt's event loop.

:class:`AidaApp` is the controller (it implements the tray's :class:`~app.tray.Actions`): one
service, one popup, one drop window, a tray icon or, with no tray, a window; the events
follower feeding the notifier; the periodic sweep; global hotkeys; the single-instance server.
:func:`run` is what ``aida tray`` calls.
"""

from __future__ import annotations

import json
import logging
import os
import signal
import sys
import time
from pathlib import Path
from typing import Any

from PySide6.QtCore import QObject, Qt, QTimer, Slot
from PySide6.QtWidgets import QApplication, QSystemTrayIcon

from brain_core.config import Config
from brain_core.errors import BrainError

from .dropzone import DropZone, meeting_summary
from .hotkeys import DEFAULT_PTT, DEFAULT_RECALL, GlobalHotkeys
from .icons import app_icon
from .jobs import main_thread_gc
from .notify import EventFollower, Notice, Notifier
from .popup import RecallPopup
from .service import AidaService
from .settings import DEFAULT_SWEEP_MINUTES, SettingsDialog
from .single_instance import InstanceServer, server_name

log = logging.getLogger("aida.app")
MEETING_PROFILE = "meeting"  # brain_core.voice.meeting.PROFILE, without importing the voice stack
STARTED = time.perf_counter()  # as close to `aida tray` as this module gets: for the ready file


class AidaApp(QObject):
    """Everything the tray app is, without the event loop (tests build one and drive it)."""

    def __init__(self, config: Config, *, service: AidaService | None = None, server: InstanceServer | None = None,
                 use_tray: bool | None = None, hotkeys: bool | None = None, ready_file: Path | None = None,
                 parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.config = config
        self.service = service or AidaService(config, parent=self)
        self.server = server
        self.ready_file = Path(ready_file) if ready_file else None
        self.popup = RecallPopup(self.service, hide_on_blur=bool(config.get("tray.popup_hide_on_blur", True)))
        self._dropzone: DropZone | None = None
        self._settings: SettingsDialog | None = None
        self._welcome = None
        self._overview = None
        self.tray = None
        self.window = None
        if use_tray is None:
            use_tray = QSystemTrayIcon.isSystemTrayAvailable()
        if use_tray:
            from .tray import Tray

            self.tray = Tray(self.service, self, self)
            show = self.tray.message
        else:
            from .window import MainWindow

            self.window = MainWindow(self.service, self)
            show = self.window.message
        self.notifier = Notifier(show, self.service.open_path, self)
        if self.tray is not None:
            self.tray.icon.messageClicked.connect(self.notifier.clicked)
        self.follower = EventFollower(self.service.events_file, parent=self)
        self.follower.arrived.connect(self.notifier.on_events)
        self.sweep = QTimer(self)
        self.sweep.timeout.connect(self._sweep)
        self.hotkeys = GlobalHotkeys(self)
        self.hotkeys.recall.connect(self.popup.toggle)
        self.hotkeys.pttDown.connect(self.service.ptt_start)
        self.hotkeys.pttUp.connect(self.service.ptt_stop)
        self.hotkeys.listening.connect(self._hotkeys_listening)
        self.hotkey_problem: str | None = None
        self._ready_data: dict[str, Any] = {}
        self._want_hotkeys = hotkeys
        s = self.service
        s.meetingStarted.connect(lambda _name: self.notifier.defer(MEETING_PROFILE))
        s.meetingFailed.connect(lambda _name, _msg: self._meeting_ended(None))
        s.meetingDone.connect(self._meeting_done)
        s.failed.connect(self._failed)
        s.recordingChanged.connect(self._recording)
        s.harvestFinished.connect(self._harvested)
        if server is not None:
            server.command.connect(self.handle_command)
        self._manual_harvest = False
        self._running = False

    # -- life ------------------------------------------------------------------------------------------

    def start(self) -> None:
        if not self._running:  # the app's threads (microphone, hotkeys, lanes) run Python: see app.jobs
            main_thread_gc.hold()
        self._running = True
        if self.tray is not None:
            self.tray.show()
            self._wait_for_icon(time.perf_counter())
        else:
            self.window.show()
            self._write_ready(shown=self.window.isVisible(), geometry=None, tray=False)
        self.follower.start()
        self._arm_sweep()
        # What is not needed to show the icon waits for the event loop (the icon paints first).
        QTimer.singleShot(0, self._start_background)
        from brain_core.agents.setup import needs_welcome

        if needs_welcome():  # the first start: say what was found and offer to connect it
            QTimer.singleShot(0, self.welcome)

    @Slot()
    def _start_background(self) -> None:
        if not self._running:
            return  # shut down before the event loop came round
        self._start_hotkeys()
        self.service.check_head()
        if self.config.get("tray.warm_up", True):
            self.service.warm_up()

    def _wait_for_icon(self, since: float) -> None:
        """The icon counts as shown once the tray host gave it a place (or after 5 s of trying)."""
        g = self.tray.icon.geometry()
        if (g.isValid() and not g.isEmpty()) or time.perf_counter() - since > 5:
            geometry = [g.x(), g.y(), g.width(), g.height()] if g.isValid() else None
            log.info("tray icon shown at %s after %.0f ms", geometry, (time.perf_counter() - STARTED) * 1000)
            self._write_ready(shown=self.tray.icon.isVisible(), geometry=geometry, tray=True)
            return
        QTimer.singleShot(20, lambda: self._wait_for_icon(since))

    def _write_ready(self, **fields: Any) -> None:
        """The ready file (``--ready-file``): the icon's state once shown, then ``hotkeys: listening``
        once the global hotkeys receive keys."""
        if self.ready_file is None:
            return
        self._ready_data.update(fields, pid=os.getpid(), at=time.time())
        self._ready_data.setdefault("ms_since_app_import", round((time.perf_counter() - STARTED) * 1000, 1))
        data = self._ready_data
        from brain_core.store.fsutil import atomic_write_text

        atomic_write_text(self.ready_file, json.dumps(data) + "\n")

    def _arm_sweep(self) -> None:
        minutes = int(self.config.get("tray.sweep_minutes", DEFAULT_SWEEP_MINUTES) or 0)
        if minutes > 0:
            self.sweep.start(minutes * 60_000)
        else:
            self.sweep.stop()

    def _start_hotkeys(self) -> None:
        wanted = self._want_hotkeys if self._want_hotkeys is not None else bool(
            self.config.get("tray.hotkeys.enabled", True))
        self.hotkeys.stop()
        if not wanted:
            self.hotkey_problem = "Global hotkeys are switched off in the settings."
            return
        self.hotkey_problem = self.hotkeys.start(self.config.get("tray.hotkeys.recall", DEFAULT_RECALL),
                                                 self.config.get("tray.hotkeys.ptt", DEFAULT_PTT))
        if self.hotkey_problem:
            log.info("global hotkeys are off: %s", self.hotkey_problem)

    @Slot()
    def _hotkeys_listening(self) -> None:
        log.info("global hotkeys are listening")
        if self._ready_data:  # after the icon's line: the file exists once the icon is shown
            self._write_ready(hotkeys="listening")
        else:
            self._ready_data["hotkeys"] = "listening"

    @Slot()
    def _sweep(self) -> None:
        self.service.check_head()
        self.service.harvest_now(manual=False)

    # -- Actions (the tray menu and the window call these) ----------------------------------------------

    @Slot()
    def ask(self) -> None:
        self.popup.show_popup("ask")

    @Slot()
    def quick_recall(self) -> None:
        self.popup.show_popup("recall")

    @Slot()
    def drop_recording(self) -> None:
        if self._dropzone is None:
            self._dropzone = DropZone(self.service)
        self._dropzone.show()
        self._dropzone.raise_()
        self._dropzone.activateWindow()

    @Slot()
    def harvest_now(self) -> None:
        self._manual_harvest = self.service.harvest_now(manual=True)

    @Slot()
    def open_brain_folder(self) -> None:
        self.service.open_path(None)

    def open_memory(self, rel: str) -> None:
        self.service.open_path(rel)

    @Slot()
    def settings(self) -> None:
        if self._settings is None:
            self._settings = SettingsDialog(self.config)
            self._settings.saved.connect(self._settings_saved)
            self._settings.finished.connect(self._settings_closed)
        self._settings.show()
        self._settings.raise_()
        self._settings.activateWindow()

    @Slot()
    def welcome(self) -> None:
        from .welcome import WelcomeWindow

        if self._welcome is None:
            self._welcome = WelcomeWindow(self.config)
        self._welcome.show()
        self._welcome.raise_()
        self._welcome.activateWindow()

    @Slot()
    def overview(self) -> None:
        from brain_core.brain import Brain

        from .overview_window import OverviewWindow

        if self._overview is None:
            self._overview = OverviewWindow(lambda: Brain.open(self.service.root, config=self.config),
                                            self.service.open_path)
        else:
            self._overview.refresh()
        self._overview.show()
        self._overview.raise_()
        self._overview.activateWindow()

    @Slot(bool)
    def set_paused(self, paused: bool) -> None:
        self.service.set_paused(paused)

    @Slot()
    def quit(self) -> None:
        self.shutdown()
        app = QApplication.instance()
        if app is not None:
            app.quit()

    def shutdown(self) -> None:
        was_running, self._running = self._running, False
        self.sweep.stop()
        self.hotkeys.stop()
        self.follower.stop()
        if self.server is not None:
            self.server.close()
        if self.tray is not None:
            self.tray.hide()
        self.service.shutdown()
        if was_running:
            main_thread_gc.release()

    # -- commands from `aida popup`, `aida ptt`, a second `aida tray` ------------------------------------

    @Slot(str, str)
    def handle_command(self, command: str, argument: str) -> None:
        if command == "focus":
            if self.window is not None:
                self.window.show()
                self.window.raise_()
                self.window.activateWindow()
            else:
                self.popup.show_popup("recall")
        elif command == "popup":
            if argument:
                self.popup.show_popup("recall", query=argument)
            else:
                self.popup.toggle()
        elif command == "ask":
            self.popup.show_popup("ask", query=argument)
        elif command == "ptt":
            self.service.ptt_toggle()
        elif command == "ptt-down":
            self.service.ptt_start()
        elif command == "ptt-up":
            self.service.ptt_stop()
        elif command == "ask-audio":
            self.popup.show_popup("ask")
            self.service.ask_audio(argument)
        elif command == "drop":
            self.service.drop([argument])
        elif command == "settings":
            self.settings()
        elif command == "quit":
            self.quit()

    # -- what the service reports ------------------------------------------------------------------------

    @Slot(bool)
    def _recording(self, on: bool) -> None:
        if on and not self.popup.isVisible():
            self.popup.show_popup("ask")

    def _meeting_ended(self, source: str | None) -> None:
        if not self.service.back.pending:  # the last meeting in the queue
            self.notifier.release(MEETING_PROFILE, source)
        elif source:
            self.notifier.suppress(source)

    @Slot(object)
    def _meeting_done(self, result) -> None:
        self._meeting_ended(f"meeting:{result.sha256}")
        target = (result.transcript_path,) if result.transcript_path else ()
        self.notifier.notify(Notice("Meeting harvested", meeting_summary(result), target))

    @Slot(bool, str)
    def _harvested(self, ok: bool, last_line: str) -> None:
        if ok and self._manual_harvest:
            self.notifier.notify(Notice("Harvest finished", last_line or "The sweep ran.", ()))
        elif ok and last_line.startswith("Read offline:"):  # the agent's CLI is logged out or over its limit
            self.notifier.notify(Notice("Aida read offline", last_line, ()))
        self._manual_harvest = False

    @Slot(str, str)
    def _failed(self, what: str, message: str) -> None:
        log.warning("%s failed: %s", what, message)
        if not self.popup.isVisible() and (self._dropzone is None or not self._dropzone.isVisible()):
            self.notifier.notify(Notice(f"Aida: {what} failed", message, ()))

    @Slot()
    def _settings_saved(self) -> None:
        self.service.apply_settings()
        self.follower.retarget(self.service.events_file)
        self._arm_sweep()
        self._start_hotkeys()
        if self._settings is not None:
            self._settings.hotkey_note.setText(self.hotkey_problem or self._settings.support.reason)

    @Slot()
    def _settings_closed(self) -> None:
        if self._settings is not None:
            self._settings.deleteLater()
            self._settings = None


def check_display(env: dict | None = None, platform: str | None = None) -> None:
    """Qt aborts the process without a display; say so in one sentence instead."""
    env = os.environ if env is None else env
    platform = platform or sys.platform
    if platform.startswith(("win", "darwin")) or env.get("QT_QPA_PLATFORM"):
        return
    if not env.get("DISPLAY") and not env.get("WAYLAND_DISPLAY"):
        raise BrainError("No display was found (neither DISPLAY nor WAYLAND_DISPLAY is set), so the tray cannot "
                         "start; run `aida demo` for a headless end-to-end pass, or start Aida inside your desktop.")


def startup_problem(message: str, path: Path | None = None):
    """The dialog a tray that cannot start shows (a broken settings file): the one sentence, with a
    button that opens the file; a tray started at login would otherwise never appear, silently."""
    from PySide6.QtCore import QUrl
    from PySide6.QtGui import QDesktopServices
    from PySide6.QtWidgets import QMessageBox

    box = QMessageBox(QMessageBox.Icon.Critical, "Aida cannot start", message)
    box.setInformativeText("Fix the file (`aida config list` shows every setting and what it takes), then "
                           "start Aida again.")
    box.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
    if path is not None:
        opener = box.addButton("Open the settings file", QMessageBox.ButtonRole.ActionRole)
        opener.clicked.connect(lambda: QDesktopServices.openUrl(QUrl.fromLocalFile(str(path))))
    box.addButton("Quit", QMessageBox.ButtonRole.RejectRole)
    box.setObjectName("aida-startup-problem")
    return box


def run(config: Config | None = None, *, ready_file: str | None = None, hotkeys: bool | None = None,
        config_error: BaseException | None = None) -> int:
    """``aida tray``: one instance per user; a second one hands over to the first and exits.
    ``config_error``: the settings file could not be loaded; it is shown in a dialog, exit code 1."""
    check_display()
    logging.basicConfig(level=os.environ.get("AIDA_LOG", "WARNING").upper(),
                        format="aida: %(levelname)s %(message)s")
    app = QApplication.instance() or QApplication(["aida"])  # the window class desktops group by
    app.setApplicationName("Aida")
    app.setQuitOnLastWindowClosed(False)
    app.setWindowIcon(app_icon())
    if config_error is not None:
        print(f"aida: {config_error}", file=sys.stderr)
        from brain_core.config import _user_config_path

        box = startup_problem(str(config_error), _user_config_path())
        box.exec()
        return 1
    config = config or Config.load()
    server = InstanceServer(server_name(config.path))
    if not server.listen():
        print("Aida is already running; it was brought to the front.")
        return 0
    aida = AidaApp(config, server=server, ready_file=Path(ready_file) if ready_file else None, hotkeys=hotkeys)
    aida.start()
    # Let Ctrl+C in a terminal quit cleanly: Python only sees signals when the interpreter runs.
    signal.signal(signal.SIGINT, lambda *_: aida.quit())
    signal.signal(signal.SIGTERM, lambda *_: aida.quit())
    tick = QTimer()
    tick.start(250)
    tick.timeout.connect(lambda: None)
    return app.exec()
