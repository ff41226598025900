"""One tray per user: a local socket that a second ``aida tray``, ``aida popup`` or ``aida ptt`` talks to.

The running app listens on a :class:`QLocalServer` (a Unix socket, a named pipe on Windows). A
client connects, writes one line (a command and, after a tab, its argument) and reads ``ok`` or
``error <why>``. That is how a desktop's own keyboard shortcut reaches the app where global
hotkeys cannot (Wayland): bind ``aida popup`` or ``aida ptt``.

The socket lives in the user's runtime folder (``$XDG_RUNTIME_DIR``, else a 0700 folder Aida
makes and owns in the temp folder), named from the settings file, so two users (or two test runs
with their own ``AIDA_CONFIG``) never reach each other's app. A folder or socket file owned by
someone else, or a folder others may write to, is refused with one sentence (:class:`SocketRefused`)
before anything is sent or listened on, and on Linux both ends check the other's uid
(``SO_PEERCRED``): the CLI never hands a question or a recording to another user's process, and
the app never takes a command from one.
"""

from __future__ import annotations

import getpass
import hashlib
import os
import socket
import stat
import struct
import sys
import tempfile
from pathlib import Path

from PySide6.QtCore import QObject, Signal, Slot
from PySide6.QtNetwork import QLocalServer, QLocalSocket

from brain_core.errors import BrainError

COMMANDS = ("focus", "popup", "ask", "ptt", "ptt-down", "ptt-up", "ask-audio", "drop", "settings", "quit")


class SocketRefused(BrainError):
    """The tray's socket or its folder is not safely ours: nothing is sent or listened on."""


def _uid() -> int | None:
    return os.getuid() if hasattr(os, "getuid") else None


def runtime_dir() -> Path:
    """The folder for the socket: ``$XDG_RUNTIME_DIR``, else ``<tmp>/aida-<uid>`` (made 0700)."""
    xdg = os.environ.get("XDG_RUNTIME_DIR")
    if xdg and os.path.isabs(xdg):
        return check_private_dir(Path(xdg))
    folder = Path(tempfile.gettempdir()) / f"aida-{_uid()}"
    try:
        folder.mkdir(mode=0o700)
    except FileExistsError:
        pass
    except OSError as e:
        raise SocketRefused(f"The folder {folder} for the tray's socket cannot be made ({e.strerror}); "
                            "set XDG_RUNTIME_DIR to a folder only you can use.") from None
    return check_private_dir(folder)


def check_private_dir(folder: Path) -> Path:
    """``folder`` when it is a real folder owned by this user that nobody else may write to."""
    try:
        st = os.lstat(folder)
    except OSError as e:
        raise SocketRefused(f"The tray's socket folder {folder} cannot be used ({e.strerror}); "
                            "set XDG_RUNTIME_DIR to a folder only you can use.") from None
    if not stat.S_ISDIR(st.st_mode):
        raise SocketRefused(f"The tray's socket folder {folder} is not a folder (a link or a file put there), so "
                            "Aida will not use it; remove it or set XDG_RUNTIME_DIR.")
    if st.st_uid != _uid():
        raise SocketRefused(f"The tray's socket folder {folder} belongs to another user (uid {st.st_uid}), so Aida "
                            "will not use it; remove it or set XDG_RUNTIME_DIR to a folder only you can use.")
    if st.st_mode & 0o022:
        raise SocketRefused(f"The tray's socket folder {folder} can be written by other users (mode "
                            f"{stat.S_IMODE(st.st_mode):o}), so Aida will not use it; `chmod 700` it or set "
                            "XDG_RUNTIME_DIR.")
    return folder


def check_socket_file(path: str) -> None:
    """A socket file that exists must be a socket owned by this user."""
    try:
        st = os.lstat(path)
    except FileNotFoundError:
        return
    except OSError as e:
        raise SocketRefused(f"The tray's socket {path} cannot be checked ({e.strerror}); remove it.") from None
    if st.st_uid != _uid() or not stat.S_ISSOCK(st.st_mode):
        what = f"belongs to another user (uid {st.st_uid})" if st.st_uid != _uid() else "is not a socket"
        raise SocketRefused(f"The tray's socket {path} {what}, so Aida will not talk through it; remove it, "
                            "then start `aida tray` again.")


def peer_uid(fd: int) -> int | None:
    """The uid of the process at the other end of a connected Unix socket (Linux), else None."""
    if not hasattr(socket, "SO_PEERCRED") or fd < 0:
        return None
    dup = socket.socket(fileno=os.dup(fd))
    try:
        raw = dup.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, struct.calcsize("3i"))
    except OSError:
        return None
    finally:
        dup.close()
    return struct.unpack("3i", raw)[1]


def server_name(config_path: Path | str) -> str:
    """The socket's path (a pipe name on Windows), checked to be safely this user's."""
    try:
        user = getpass.getuser()
    except (KeyError, OSError):  # no passwd entry (some containers)
        user = str(os.getuid()) if hasattr(os, "getuid") else "user"
    digest = hashlib.sha256(f"{user}\0{Path(config_path).expanduser().resolve()}".encode()).hexdigest()[:16]
    if sys.platform == "win32":
        return f"aida-{digest}"
    return str(runtime_dir() / f"aida-{digest}.sock")


def send(name: str, command: str, argument: str = "", timeout_ms: int = 2000) -> str | None:
    """Send one command to the running app; its reply (``ok`` / ``error ...``), or None if none runs."""
    if command not in COMMANDS:
        raise ValueError(f"unknown command {command!r}")
    if os.path.isabs(name):
        check_private_dir(Path(name).parent)
        check_socket_file(name)
    sock = QLocalSocket()
    sock.connectToServer(name)
    if not sock.waitForConnected(timeout_ms):
        return None
    uid = peer_uid(int(sock.socketDescriptor()))
    if uid is not None and uid != _uid():
        sock.abort()
        raise SocketRefused(f"The process listening on the tray's socket {name} is another user's (uid {uid}), so "
                            "nothing was sent; stop it or remove the socket, then start `aida tray`.")
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
        if os.path.isabs(self.name):
            check_private_dir(Path(self.name).parent)
            check_socket_file(self.name)
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
            uid = peer_uid(int(sock.socketDescriptor()))
            if uid is not None and uid != _uid():  # another user's process: no command, no reply
                sock.abort()
                sock.deleteLater()
                continue
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
