"""Global hotkeys: where they can work, shortcut translation for pynput, chords held and released."""

from __future__ import annotations

import pytest

pytest.importorskip("PySide6.QtCore")

from PySide6.QtCore import QCoreApplication  # noqa: E402

from app.hotkeys import Chord, GlobalHotkeys, pynput_combo, support  # noqa: E402

pytestmark = pytest.mark.gui


def test_support_by_session():
    assert not support({"WAYLAND_DISPLAY": "wayland-0", "DISPLAY": ":0"}, "linux").available
    assert not support({"XDG_SESSION_TYPE": "wayland"}, "linux").available
    nodisplay = support({}, "linux")
    assert not nodisplay.available and "no X display" in nodisplay.reason
    assert support({"DISPLAY": ":0"}, "linux").available
    assert support({}, "win32").available
    mac = support({}, "darwin")
    assert mac.available and "Accessibility" in mac.reason


@pytest.mark.parametrize("qt, expected", [
    ("Ctrl+Alt+Space", "<ctrl>+<alt>+<space>"),
    ("Ctrl+Shift+K", "<ctrl>+<shift>+k"),
    ("Meta+F9", "<cmd>+<f9>"),
    ("Alt+PgDown", "<alt>+<page_down>"),
    ("Ctrl++", "<ctrl>++"),
])
def test_qt_shortcuts_translate_for_pynput(qt, expected):
    assert pynput_combo(qt) == expected


@pytest.mark.parametrize("bad", ["", "Ctrl+Alt", "Ctrl+Hyper_L"])
def test_unusable_shortcuts_are_refused(bad):
    with pytest.raises(ValueError):
        pynput_combo(bad)


def test_a_chord_starts_when_all_keys_are_down_and_ends_on_the_first_release():
    chord = Chord(["<ctrl>", "<alt>", "a"])
    assert chord.press("<ctrl>") is None
    assert chord.press("x") is None
    assert chord.press("<alt>") is None
    assert chord.press("a") == "down"
    assert chord.press("a") is None  # key repeat while held
    assert chord.release("x") is None
    assert chord.release("<alt>") == "up"
    assert chord.release("a") is None
    assert chord.press("<alt>") is None  # ctrl still down, a released: not the chord
    assert chord.press("a") == "down"


class FakeListener:
    """Stands in for pynput's keyboard.Listener: the test plays key events through it."""

    instances: list = []

    def __init__(self, on_press, on_release):
        self.on_press, self.on_release = on_press, on_release
        self.started = self.stopped = False
        FakeListener.instances.append(self)

    def start(self):
        self.started = True

    def stop(self):
        self.stopped = True


def test_hotkeys_emit_recall_and_hold_to_talk(qtbot):
    hk = GlobalHotkeys(listener_factory=FakeListener)
    events = []
    hk.recall.connect(lambda: events.append("recall"))
    hk.pttDown.connect(lambda: events.append("ptt-down"))
    hk.pttUp.connect(lambda: events.append("ptt-up"))
    assert hk.start("Ctrl+Alt+Space", "Ctrl+Alt+A") is None
    lst = FakeListener.instances[-1]
    assert lst.started and hk.running
    for k in ("<ctrl>", "<alt>", "<space>"):
        lst.on_press(k)
    lst.on_release("<space>")
    lst.on_press("a")
    lst.on_press("a")
    lst.on_release("a")
    qtbot.waitUntil(lambda: len(events) == 3, timeout=1000)
    assert events == ["recall", "ptt-down", "ptt-up"]
    hk.stop()
    assert lst.stopped and not hk.running
    assert "could not be used" in hk.start("Ctrl", "Ctrl+Alt+A")


class SlowListener(FakeListener):
    """A listener that becomes ready later, on its own thread (as pynput's connects to the display)."""

    def __init__(self, on_press, on_release):
        super().__init__(on_press, on_release)
        import threading

        self.ready = threading.Event()

    def wait(self):
        self.ready.wait()


def test_listening_is_announced_once_the_listener_is_ready(qtbot):
    hk = GlobalHotkeys(listener_factory=SlowListener)
    heard = []
    hk.listening.connect(lambda: heard.append("listening"))
    assert hk.start("Ctrl+Alt+Space", "Ctrl+Alt+A") is None
    lst = FakeListener.instances[-1]
    QCoreApplication.sendPostedEvents()
    assert heard == []  # started, not yet receiving keys
    with qtbot.waitSignal(hk.listening, timeout=5000):
        lst.ready.set()
    assert heard == ["listening"]
    hk.stop()


def test_a_listener_stopped_before_it_was_ready_is_not_announced(qtbot):
    hk = GlobalHotkeys(listener_factory=SlowListener)
    heard = []
    hk.listening.connect(lambda: heard.append("listening"))
    hk.start("Ctrl+Alt+Space", "Ctrl+Alt+A")
    first = FakeListener.instances[-1]
    hk.start("Ctrl+Alt+K", "Ctrl+Alt+A")  # restarted with another shortcut: a new listener
    second = FakeListener.instances[-1]
    assert first.stopped and second is not first
    first.ready.set()
    with qtbot.waitSignal(hk.listening, timeout=5000):
        second.ready.set()
    QCoreApplication.sendPostedEvents()
    assert heard == ["listening"]  # once: the replaced listener's readiness is not announced
    hk.stop()
