"""The real app on a real X display: `aida tray` under Xvfb with trayer as the tray host.

Saves tray.png (the tray area, enlarged), popup.png (the quick-recall popup opened by `aida popup
QUERY`) and answer.png (a recorded question sent with `aida ptt --file`: transcript, answer, cited
memories, thumbs up/down) in the test's temp folder, or in ``$AIDA_SCREENSHOTS`` when set (to refresh
the pictures for the docs). Each is taken once the window is there and its paint has settled.
"""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.helpers import xdisplay
from tests.helpers.paths import FIXTURES

pytestmark = [pytest.mark.gui, pytest.mark.slow]
QUESTION = FIXTURES / "audio" / "ask_recall.wav"


def wait_for(pred, timeout, what):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        result = pred()
        if result:
            return result
        time.sleep(0.1)
    raise AssertionError(f"timed out waiting for {what}")


def colours(path: Path) -> int:
    """How many distinct colours the PNG has (sampled every other pixel): 1 for a blank grab."""
    from PySide6.QtGui import QImage

    img = QImage(str(path))
    assert not img.isNull(), f"{path} is not an image"
    return len({img.pixel(x, y) for x in range(0, img.width(), 2) for y in range(0, img.height(), 2)})


def settled_shot(env, path: Path, rect, what: str, min_colours: int, scale: int = 1, timeout: float = 60):
    """Grab ``rect`` until two grabs in a row are the same picture with real content: the window
    has painted what it shows. Returns (width, height, light pixels)."""
    last = None

    def grab():
        nonlocal last
        size = xdisplay.screenshot(env, path, rect, scale)
        data = path.read_bytes()
        same, last = data == last, data
        return size if same and colours(path) >= min_colours else None

    return wait_for(grab, timeout, what)


@pytest.mark.skipif(not xdisplay.available(), reason=xdisplay.REASON)
def test_real_tray_icon_and_popup_under_xvfb(tmp_path, brain):
    from tests.helpers.app_fixtures import MEMORIES

    shots = Path(os.environ.get("AIDA_SCREENSHOTS") or tmp_path / "screenshots")

    brain.remember_many([dict(m) for m in MEMORIES])
    brain.write_text("glossary.yaml", (QUESTION.parent / "glossary.yaml").read_text(), "test: glossary")
    cfg = tmp_path / "config.yaml"
    cfg.write_text(f"brain: {brain.root}\ntray:\n  sweep_minutes: 0\n")
    ready = tmp_path / "ready.json"
    with xdisplay.display_with_tray() as env:
        env = {**env, "AIDA_CONFIG": str(cfg)}
        log = open(tmp_path / "tray.log", "w")
        app = subprocess.Popen([sys.executable, "-m", "brain_core", "tray", "--no-hotkeys", "--ready-file", str(ready)],
                               env=env, stdout=log, stderr=subprocess.STDOUT)
        try:
            wait_for(ready.exists, 60, "the tray icon (see tray.log)")
            info = json.loads(ready.read_text())
            assert info["tray"] is True and info["shown"] is True, info
            assert info["geometry"], f"trayer never embedded the icon: {info}"
            assert info["geometry"][2] > 0 and info["geometry"][3] > 0
            panel = xdisplay.window_rect(env, "panel")  # trayer's panel, holding the embedded icon
            assert panel is not None
            x, y, w, h = panel

            # The tray area, enlarged: the icon's light glyph on trayer's dark panel.
            tray_rect = (max(0, x - 24), y, w + 24, h)
            width, height, light = settled_shot(env, shots / "tray.png", tray_rect, "the icon's first paint", 2, 4)
            assert (width, height) == ((w + 24) * 4, h * 4)
            assert light > 50, "the icon area has no light pixels: no glyph was drawn"

            # `aida popup QUERY` reaches the running tray, which opens the popup with results.
            r = subprocess.run([sys.executable, "-m", "brain_core", "popup", "webhook retry"], env=env,
                               capture_output=True, text=True, timeout=60)
            assert r.returncode == 0, r.stderr
            popup = wait_for(lambda: xdisplay.window_rect(env, "Aida", min_size=(300, 200)), 60, "the popup window")
            width, height, _ = settled_shot(env, shots / "popup.png", popup, "the popup's results", 16)
            assert (width, height) == popup[2:]
            assert app.poll() is None, "the tray exited"

            # A spoken question (a recording through `aida ptt --file`): transcript, answer, citations.
            runs = brain.root / ".aida" / "runs"
            r = subprocess.run([sys.executable, "-m", "brain_core", "ptt", "--file", str(QUESTION)], env=env,
                               capture_output=True, text=True, timeout=60)
            assert r.returncode == 0, r.stderr
            wait_for(lambda: runs.is_dir() and any(runs.glob("*.json")), 90, "the answer's run record")
            width, height, _ = settled_shot(env, shots / "answer.png", None, "the answer on screen", 16)
            assert (width, height) == (1024, 640)  # the whole Xvfb screen

            # A second `aida tray` hands over and exits at once.
            second = subprocess.run([sys.executable, "-m", "brain_core", "tray", "--no-hotkeys"], env=env,
                                    capture_output=True, text=True, timeout=60)
            assert second.returncode == 0 and "already running" in second.stdout
        finally:
            app.terminate()
            try:
                app.wait(15)
            except subprocess.TimeoutExpired:
                app.kill()
            log.close()
    assert app.returncode == 0, (tmp_path / "tray.log").read_text()
    assert [name for name in ("tray.png", "popup.png", "answer.png") if colours(shots / name) < 2] == []


PRESS_CHORD = r"""
import time
from pynput.keyboard import Controller, Key
k = Controller()
with k.pressed(Key.ctrl), k.pressed(Key.alt):
    k.press(Key.space)
    time.sleep(0.05)
    k.release(Key.space)
"""


@pytest.mark.skipif(not xdisplay.available(), reason=xdisplay.REASON)
def test_the_global_hotkey_opens_the_popup_on_x11(tmp_path, brain):
    """The real listener (pynput on the X display) sees Ctrl+Alt+Space typed by another program."""
    if importlib.util.find_spec("pynput") is None:  # importing it needs a display: only look for it
        pytest.skip("pynput is not installed")
    cfg = tmp_path / "config.yaml"
    cfg.write_text(f"brain: {brain.root}\ntray:\n  sweep_minutes: 0\n  warm_up: false\n")
    ready = tmp_path / "ready.json"
    with xdisplay.display_with_tray() as env:
        env = {**env, "AIDA_CONFIG": str(cfg)}
        app = subprocess.Popen([sys.executable, "-m", "brain_core", "tray", "--ready-file", str(ready)], env=env,
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            wait_for(ready.exists, 60, "the tray icon")

            def popup_shown():
                return xdisplay.window_rect(env, "Aida", min_size=(300, 200)) is not None

            # the listener connects to the display on its own thread; the app says when it receives keys
            wait_for(lambda: json.loads(ready.read_text()).get("hotkeys") == "listening", 30, "the hotkey listener")
            assert not popup_shown()
            r = subprocess.run([sys.executable, "-c", PRESS_CHORD], env=env, capture_output=True, text=True, timeout=30)
            assert r.returncode == 0, r.stderr
            wait_for(popup_shown, 10, "the popup after Ctrl+Alt+Space")
        finally:
            app.terminate()
            app.wait(15)
