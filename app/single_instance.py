"""One tray per user: a local socket that a second ``aida tray``, ``aida popup`` or ``aida ptt`` talks to.

The running app listens on a :class:`QLocalServer` (a Unix socket, a named pipe on Windows). A
client connects, writes one line (a command and, after a tab, its argument) and reads ``ok`` or
``error <why>``. That is how a desktop's own keyboard shortcut reaches the app where global
hotkeys cannot (Wayland): bind ``aida popup`` or ``aida ptt``.

The name is derived from the user and the settings file, so two users (or two test runs with
their own ``AIDA_CONFIG``) never reach each other's app.
"""

from __future__ import annotations

import getpass
import hashlib
import os
from pathlib import Path

from PySide6.QtCore import QObject, Signal, Slot
from PySide6.QtNetwork import QLocalServer, QLocalSocket

COMMANDS = ("focus", "popup", "ask", "ptt", "ptt-down", "ptt-up", "ask-audio", "drop", "settings", "quit")


def server_name(config_path: Path | str) -> str:
    try:
        user = getpass.getuser()
    except (KeyError, OSError):  # no passwd entry (some containers)
        user = str(os.getuid()) if hasattr(os, "getuid") else "user"
    digest = hashlib.sha256(f"{user}\0{Path(config_path).expanduser().resolve()}".encode()).hexdigest()[:16]
    return f"aida-{digest}"


def send(name: str, command: str, argument: str = "", timeout_ms: int = 2000) -> str | None:
    """Send one command to the running app; its reply (``ok`` / ``error ...``), or None if none runs."""
    if command not in COMMANDS:
        raise ValueError(f"unknown command {command!r}")
    sock = QLocalSocket()
    sock.connectToServer(name)
    if not sock.waitForConnected(timeout_ms):
        return None
    line = command + (f"\t{argument}" if argument else "") + "\n"
    sock.write(line.encode("utf-8"))
    if not sock.waitForBytesWritten(timeout_ms):
        sock.abort()
        return None
    reply = b""
    while not reply.endswith(b"\n") and sock.waitForReadyRead(timeout_ms):
        reply += bytes(sock.readAll().data())
    sock.disconnectFromServer()
    return reply.decode("utf-8", errors="replace").strip() or None


def send_from_cli(config_path: Path | str, command: str, argument: str = "") -> str | None:
    """``send`` for a command-line process, which has no Qt application of its own yet."""
    import sys

    from PySide6.QtCore import QCoreApplication

    app = QCoreApplication.instance() or QCoreApplication(sys.argv[:1])  # sockets want an application object
    reply = send(server_name(config_path), command, argument)
    del app
    return reply


class InstanceServer(QObject):
    """Listens for commands; ``command(name, argument)`` fires on the UI thread for each."""

    command = Signal(str, str)

    def __init__(self, name: str, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.name = name
        self._server = QLocalServer(self)
        self._server.setSocketOptions(QLocalServer.SocketOption.UserAccessOption)
        self._server.newConnection.connect(self._accept)
        self._buffers: dict[QLocalSocket, bytes] = {}

    def listen(self) -> bool:
        """Take the name; False when a live instance answers on it (and was told to come forward).

        Ask first, then listen: with user-only access Qt replaces an existing socket file
        instead of failing, so a failed ``listen`` cannot be what detects the other instance. A
        socket file left by a crashed instance answers nobody and is simply replaced."""
        if send(self.name, "focus", timeout_ms=1000) is not None:
            return False
        if self._server.listen(self.name):
            return True
        QLocalServer.removeServer(self.name)
        return self._server.listen(self.name)

    def close(self) -> None:
        self._server.close()

    @Slot()
    def _accept(self) -> None:
        while self._server.hasPendingConnections():
            sock = self._server.nextPendingConnection()
            self._buffers[sock] = b""
            sock.readyRead.connect(lambda s=sock: self._read(s))
            sock.disconnected.connect(lambda s=sock: self._drop(s))

    def _read(self, sock: QLocalSocket) -> None:
        data = self._buffers.get(sock, b"") + bytes(sock.readAll().data())
        if b"\n" not in data:
            self._buffers[sock] = data[:4096]  # a line longer than a path is not a command
            return
        line, _, rest = data.partition(b"\n")
        self._buffers[sock] = rest
        text = line.decode("utf-8", errors="replace").strip()
        command, _, argument = text.partition("\t")
        if command not in COMMANDS:
            sock.write(f"error unknown command {command!r}\n".encode())
        else:
            sock.write(b"ok\n")
        sock.flush()
        if command in COMMANDS:
            self.command.emit(command, argument)

    def _drop(self, sock: QLocalSocket) -> None:
        self._buffers.pop(sock, None)
        sock.deleteLater()
