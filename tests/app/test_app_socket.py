"""The tray's socket: in the user's runtime folder, never through a folder or socket another user owns,
and the app takes commands only from its own user (SO_PEERCRED)."""

from __future__ import annotations

import os
import shutil
import socket
import stat
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

pytest.importorskip("PySide6.QtNetwork")

from app.single_instance import InstanceServer, SocketRefused, send, server_name  # noqa: E402

pytestmark = pytest.mark.gui
NOBODY = 65534
OWN_CLIENT = ("import socket, sys; s = socket.socket(socket.AF_UNIX); s.settimeout(10); s.connect(sys.argv[1]); "
              "s.sendall(b'focus\\n'); print(s.recv(100).decode().strip())")
needs_root = pytest.mark.skipif(not hasattr(os, "getuid") or os.getuid() != 0 or sys.platform == "win32",
                                reason="other users are simulated with chown/setuid, which needs root")


@pytest.fixture
def runtime(tmp_path, monkeypatch):
    run = tmp_path / "run"
    run.mkdir(mode=0o700)
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(run))
    return run


@pytest.fixture
def no_runtime(tmp_path, monkeypatch):
    """No XDG_RUNTIME_DIR: the fallback folder is made in this temp folder."""
    tmp = tmp_path / "tmp"
    tmp.mkdir()
    monkeypatch.delenv("XDG_RUNTIME_DIR", raising=False)
    monkeypatch.setattr(tempfile, "tempdir", str(tmp))
    return tmp


def test_the_socket_lives_in_the_runtime_folder(runtime, tmp_path):
    name = server_name(tmp_path / "config.yaml")
    assert Path(name).parent == runtime and name.endswith(".sock")
    assert server_name(tmp_path / "other.yaml") != name


def test_without_a_runtime_folder_aida_makes_a_private_one(no_runtime, tmp_path):
    name = server_name(tmp_path / "config.yaml")
    folder = Path(name).parent
    assert folder.parent == no_runtime and folder.name == f"aida-{os.getuid()}"
    st = folder.stat()
    assert stat.S_IMODE(st.st_mode) == 0o700 and st.st_uid == os.getuid()


@needs_root
def test_a_fallback_folder_owned_by_another_user_is_refused(no_runtime, tmp_path):
    squatted = no_runtime / f"aida-{os.getuid()}"
    squatted.mkdir(mode=0o700)
    os.chown(squatted, NOBODY, NOBODY)
    with pytest.raises(SocketRefused, match="belongs to another user"):
        server_name(tmp_path / "config.yaml")


def test_a_folder_others_can_write_is_refused(no_runtime, tmp_path):
    loose = no_runtime / f"aida-{os.getuid()}"
    loose.mkdir()
    loose.chmod(0o777)
    with pytest.raises(SocketRefused, match="can be written by other users"):
        server_name(tmp_path / "config.yaml")
    loose.rmdir()
    os.symlink(tmp_path, loose)  # a link planted where the folder should be
    with pytest.raises(SocketRefused, match="not a folder"):
        server_name(tmp_path / "config.yaml")


@needs_root
def test_a_squatted_socket_gets_nothing_and_the_cli_says_why(qtbot, runtime, tmp_path):
    config = tmp_path / "config.yaml"
    name = server_name(config)
    squatter = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    squatter.bind(name)
    squatter.listen(1)
    squatter.settimeout(0.2)
    os.chown(name, NOBODY, NOBODY)
    try:
        with pytest.raises(SocketRefused, match="belongs to another user"):
            send(name, "ask", "what is my bank password")
        with pytest.raises(SocketRefused):
            InstanceServer(name).listen()  # the app neither listens there nor removes it
        assert os.path.exists(name)
        env = dict(os.environ, AIDA_CONFIG=str(config), QT_QPA_PLATFORM="offscreen")
        proc = subprocess.run([sys.executable, "-m", "brain_core", "popup", "--ask", "the secret question"],
                              env=env, capture_output=True, text=True, timeout=120)
        assert proc.returncode != 0
        assert "Traceback" not in proc.stderr
        assert "belongs to another user" in proc.stderr and len(proc.stderr.strip().splitlines()) == 1
        with pytest.raises(socket.timeout):
            squatter.accept()  # nobody connected: nothing was delivered
    finally:
        squatter.close()


@needs_root
@pytest.mark.skipif(not hasattr(socket, "SO_PEERCRED"), reason="SO_PEERCRED is Linux's")
def test_the_app_takes_no_command_from_another_users_process(qtbot, tmp_path):
    folder = Path(tempfile.mkdtemp(prefix="aida-peer-", dir="/tmp"))  # short, and others may enter it
    try:
        folder.chmod(0o755)
        name = str(folder / "tray.sock")
        server = InstanceServer(name)
        assert server.listen()
        commands = []
        server.command.connect(lambda c, a: commands.append((c, a)))
        os.chmod(name, 0o777)  # a permissions slip: only the peer check stands between them
        read, write = os.pipe()
        pid = os.fork()
        if pid == 0:  # the other user's process
            try:
                os.close(read)
                os.setgid(NOBODY)
                os.setuid(NOBODY)
                s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
                s.settimeout(10)
                s.connect(name)
                s.sendall(b"quit\n")
                reply = s.recv(100)
                os.write(write, b"reply:" + reply)
            except ConnectionError:  # refused while sending or reading: reset or a broken pipe
                os.write(write, b"closed")
            except BaseException as e:  # noqa: BLE001
                os.write(write, f"error:{type(e).__name__}".encode())
            os._exit(0)
        os.close(write)
        qtbot.waitUntil(lambda: os.waitpid(pid, os.WNOHANG) != (0, 0), timeout=20000)
        seen = os.read(read, 200)
        os.close(read)
        assert seen in (b"reply:", b"closed"), seen  # closed without an answer
        own = subprocess.Popen([sys.executable, "-c", OWN_CLIENT, name], stdout=subprocess.PIPE, text=True)
        qtbot.waitUntil(lambda: own.poll() is not None, timeout=20000)
        assert own.communicate()[0].strip() == "ok"  # its own user still gets through
        assert commands == [("focus", "")]  # the stranger's "quit" never arrived, before or after
        server.close()
    finally:
        shutil.rmtree(folder, ignore_errors=True)
