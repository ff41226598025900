"""Subprocesses the tray runs: the harvest sweep and the index update, as ``aida`` commands.

They run as separate processes so a slow or crashing sweep never touches the app, and so the
same code path runs whether the sweep comes from the tray's timer, an agent's hook or a terminal.
:class:`Processes` starts at most one of each name and reports ``(ok, last output line)``.
"""

from __future__ import annotations

from typing import Callable

from PySide6.QtCore import QObject, QProcess, Signal


def aida_command(*args: str) -> list[str]:
    """How to run the ``aida`` command from inside the app (a frozen app is its own CLI)."""
    from brain_core.config.selfcmd import aida_argv

    return aida_argv(*args)


class Processes(QObject):
    """Named subprocesses, one at a time per name; ``changed`` fires when one starts or ends."""

    changed = Signal()

    def __init__(self, command: Callable[..., list[str]] = aida_command, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._command = command
        self._running: dict[str, QProcess] = {}

    def running(self, name: str | None = None) -> bool:
        return bool(self._running) if name is None else name in self._running

    def start(self, name: str, args: list[str], on_finished: Callable[[bool, str], None] | None = None) -> bool:
        """Start ``aida ARGS`` as ``name``; False when one by that name is still running."""
        if name in self._running:
            return False
        argv = self._command(*args)
        proc = QProcess(self)
        proc.setProcessChannelMode(QProcess.ProcessChannelMode.MergedChannels)
        self._running[name] = proc

        def finished(code: int, status: QProcess.ExitStatus) -> None:
            out = bytes(proc.readAll().data()).decode("utf-8", errors="replace").strip()
            self._running.pop(name, None)
            proc.deleteLater()
            if on_finished is not None:
                on_finished(status == QProcess.ExitStatus.NormalExit and code == 0, out.splitlines()[-1] if out else "")
            self.changed.emit()

        def error(err: QProcess.ProcessError) -> None:
            if err == QProcess.ProcessError.FailedToStart:  # no finished() follows
                self._running.pop(name, None)
                proc.deleteLater()
                if on_finished is not None:
                    on_finished(False, f"{argv[0]} could not be started; reinstall Aida.")
                self.changed.emit()

        proc.finished.connect(finished)
        proc.errorOccurred.connect(error)
        proc.start(argv[0], argv[1:])
        self.changed.emit()
        return True

    def stop_all(self) -> None:
        for proc in list(self._running.values()):
            proc.kill()
            proc.waitForFinished(2000)
        self._running.clear()
