"""One tray per user: a second `aida tray` hands over to the first; `aida popup` / `aida ptt` reach it."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from tests.helpers.paths import TESTS

pytest.importorskip("PySide6.QtNetwork")

from tests.helpers.app_fixtures import filled, opened, service  # noqa: F401,E402  (fixtures)

pytestmark = pytest.mark.gui


def aida(*args):
    """Start the real command in a subprocess with this test's settings (and offscreen Qt)."""
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen")
    return subprocess.Popen([sys.executable, "-m", "brain_core", *args], env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)


def finish(qtbot, proc, timeout=30000):
    """Wait for a subprocess while this process's event loop keeps serving its socket."""
    qtbot.waitUntil(lambda: proc.poll() is not None, timeout=timeout)
    out, err = proc.communicate()
    return proc.returncode, out, err


@pytest.fixture
def running(service, filled, qtbot):
    """The first instance, in this process: an app with its single-instance server listening."""
    from app.main import AidaApp
    from app.single_instance import InstanceServer, server_name

    server = InstanceServer(server_name(filled.config.path))
    assert server.listen()
    app = AidaApp(filled.config, service=service, server=server, use_tray=False, hotkeys=False)
    commands = []
    server.command.connect(lambda c, a: commands.append((c, a)))
    app.start()
    yield app, commands
    app.shutdown()
    app.window.hide()


def test_a_running_app_keeps_the_cycle_collector_on_the_ui_thread(qtbot, service, filled):
    """From start to shutdown, as `aida tray` does for its whole life (see app.jobs.MainThreadGC)."""
    from app.jobs import main_thread_gc
    from app.main import AidaApp

    app = AidaApp(filled.config, service=service, use_tray=False, hotkeys=False)
    before = main_thread_gc.holds
    app.start()
    try:
        assert main_thread_gc.holds == before + 1
    finally:
        app.shutdown()
        app.window.hide()
    assert main_thread_gc.holds == before
    app.shutdown()  # a second shutdown (quit after a failed start) releases nothing more
    assert main_thread_gc.holds == before


def test_a_second_tray_hands_over_to_the_first_and_exits(qtbot, running):
    app, commands = running
    app.window.hide()
    code, out, err = finish(qtbot, aida("tray", "--no-hotkeys"))
    assert code == 0, err
    assert "already running" in out
    assert ("focus", "") in commands
    assert app.window.isVisible()  # focus without a tray raises the window


def test_popup_and_ptt_reach_the_running_instance(qtbot, running, service):
    app, commands = running
    code, _, err = finish(qtbot, aida("popup", "webhook"))
    assert code == 0, err
    assert commands[-1] == ("popup", "webhook")
    assert app.popup.isVisible() and app.popup.search.text() == "webhook"
    qtbot.waitUntil(lambda: app.popup.results.count() > 0, timeout=20000)
    assert app.popup.current_card().hit.record.key == "webhook-retry-policy"



WAV = os.path.join(str(TESTS), "fixtures", "audio", "ask_recall.wav")


def _ptt(qtbot, running, service, source):
    """`aida ptt` from another process, with the tray's audio source fixed by the test."""
    from brain_core.voice.capture import WavFileSource

    app, commands = running
    service._audio_source = WavFileSource(source)
    failed = []
    service.failed.connect(lambda what, msg: failed.append((what, msg)))
    code, _, err = finish(qtbot, aida("ptt"))
    assert code == 0, err
    assert commands[-1] == ("ptt", "")
    return failed


def test_ptt_reaches_the_running_instance_and_starts_listening(qtbot, running, service):
    failed = _ptt(qtbot, running, service, WAV)  # a source that works, as a microphone would
    qtbot.waitUntil(lambda: service.recording, timeout=5000)
    assert failed == []


def test_ptt_without_a_microphone_says_why_and_does_not_listen(qtbot, running, service):
    missing = os.path.join(str(TESTS), "no-such-microphone.wav")
    failed = _ptt(qtbot, running, service, missing)  # a source that cannot start, as without a microphone
    qtbot.waitUntil(lambda: bool(failed), timeout=5000)
    assert failed == [("listening", f"The audio file {missing} does not exist; check the path.")]
    assert not service.recording


def test_commands_without_a_running_instance_say_how_to_start_it(qtbot, filled):
    code, out, err = finish(qtbot, aida("popup"))
    assert code == 1
    assert "not running" in err and "aida tray" in err


def test_a_stale_socket_from_a_crashed_instance_is_taken_over(qtbot, tmp_path):
    from PySide6.QtNetwork import QLocalServer

    from app.single_instance import InstanceServer, send, server_name

    name = server_name(tmp_path / "config.yaml")
    crashed = QLocalServer()
    assert crashed.listen(name)
    # A crash leaves the socket file behind; simulate it by closing without removing the name.
    path = crashed.fullServerName()
    crashed.close()
    if os.name != "nt" and not os.path.exists(path):
        os.mknod(path, 0o600 | 0o140000)  # S_IFSOCK: the leftover file a crash leaves
    server = InstanceServer(name)
    assert server.listen()
    got = []
    server.command.connect(lambda c, a: got.append(c))
    proc = subprocess.Popen([sys.executable, "-c", (
        "import sys; from PySide6.QtCore import QCoreApplication; a = QCoreApplication([]);"
        "from app.single_instance import send; print(send(sys.argv[1], 'focus'))"), name],
        stdout=subprocess.PIPE, text=True, env=dict(os.environ, QT_QPA_PLATFORM="offscreen"))
    code, out, _ = finish(qtbot, proc)
    assert out.strip() == "ok" and got == ["focus"]
    server.close()
    assert send(name, "focus", timeout_ms=300) is None
