"""`aida brain sync` against a remote that accepts the connection and never answers: it stops in one
sentence (an overall deadline; http's low-speed limit), and it holds no write lock while it waits."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import threading

import pytest

from brain_core.config import Config


class Silent:
    """A TCP listener on 127.0.0.1 (ephemeral port) that accepts connections and never answers."""

    def __init__(self) -> None:
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(8)
        self.port = self.sock.getsockname()[1]
        self.accepted = threading.Event()
        self.conns: list[socket.socket] = []
        self.thread = threading.Thread(target=self._serve, daemon=True)
        self.thread.start()

    def _serve(self) -> None:
        while True:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return
            self.conns.append(conn)
            self.accepted.set()

    def hang_up(self) -> None:
        for c in self.conns:
            c.close()

    def close(self) -> None:
        self.hang_up()
        self.sock.close()


@pytest.fixture
def silent():
    s = Silent()
    yield s
    s.close()


def _settings(**values) -> None:
    cfg = Config.load()
    for k, v in values.items():
        cfg.set(f"sync.{k}", v)
    cfg.save()


def _start_sync(brain) -> subprocess.Popen:
    env = dict(os.environ, AIDA_BRAIN=str(brain.root))
    return subprocess.Popen([sys.executable, "-m", "brain_core", "brain", "sync"], env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)


def _one_sentence(err: str) -> str:
    assert "Traceback" not in err
    lines = [line for line in err.strip().splitlines() if line.strip()]
    assert len(lines) == 1, err
    return lines[0]


@pytest.mark.parametrize("scheme", ["git", "http"])
def test_a_remote_that_never_answers_stops_the_sync_in_one_sentence(brain, silent, scheme):
    brain.remember("The billing job runs at night.", key="billing-job")
    brain.git.run("remote", "add", "origin", f"{scheme}://127.0.0.1:{silent.port}/brain.git")
    # git:// has no low-speed limit: the overall deadline ends it; http's low-speed limit ends it first
    _settings(timeout=4 if scheme == "git" else 600, low_speed_time=2)
    proc = _start_sync(brain)
    try:
        _, err = proc.communicate(timeout=300)  # a hang-guard for the test, not a speed limit
    finally:
        proc.kill()
    assert silent.accepted.is_set()
    assert proc.returncode == 1
    line = _one_sentence(err)
    assert "origin" in line
    if scheme == "git":
        assert "did not answer within 4 s" in line and "nothing is lost" in line
    else:
        assert "cannot be reached" in line
    assert brain.git.uncommitted(["."]) == []  # the memory stays committed locally


def test_the_sync_holds_no_write_lock_while_it_waits_on_the_network(brain, silent):
    brain.git.run("remote", "add", "origin", f"git://127.0.0.1:{silent.port}/brain.git")
    _settings(timeout=600)
    proc = _start_sync(brain)
    try:
        assert silent.accepted.wait(120), "the sync never reached the remote"
        # the sync is now inside its network call (the remote will not answer): writes go on
        assert brain._lock.acquire(blocking=False)
        brain._lock.release()
        brain.remember("Written while the sync waits on the network.", key="during-sync")
        assert "remember: memories/me/during-sync.json" in brain.git.run("log", "-1", "--format=%s").stdout
        assert proc.poll() is None
        silent.hang_up()  # the remote closes: the sync ends, in one sentence
        _, err = proc.communicate(timeout=300)
    finally:
        proc.kill()
    assert proc.returncode == 1
    assert "cannot be reached" in _one_sentence(err)
