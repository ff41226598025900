"""The real app on a real X display: `aida tray` under Xvfb with trayer as the tray host.

Saves, at the repository root (a gitignored folder): screenshots/tray.png (the tray area,
enlarged), screenshots/popup.png (the quick-recall popup opened by `aida popup QUERY`) and
screenshots/answer.png (a recorded question sent with `aida ptt --file`: transcript, answer,
cited memories, thumbs up/down).
"""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
import time
from pathlib import Path

import pytest
import xdisplay

pytestmark = [pytest.mark.gui, pytest.mark.slow]
SHOTS = Path(__file__).resolve().parent.parent / "screenshots"
QUESTION = Path(__file__).resolve().parent / "fixtures" / "audio" / "ask_recall.wav"


def wait_for(pred, timeout, what):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if pred():
            return
        time.sleep(0.1)
    raise AssertionError(f"timed out waiting for {what}")


@pytest.mark.skipif(not xdisplay.available(), reason=xdisplay.REASON)
def test_real_tray_icon_and_popup_under_xvfb(tmp_path, brain):
    from app_fixtures import MEMORIES

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
            time.sleep(0.5)  # the first paint after embedding

            # The tray area, enlarged: the icon's light glyph on trayer's dark panel.
            width, height, light = xdisplay.screenshot(env, SHOTS / "tray.png", (max(0, x - 24), y, w + 24, h), 4)
            assert (width, height) == ((w + 24) * 4, h * 4)
            assert light > 50, "the icon area has no light pixels: no glyph was drawn"

            # `aida popup QUERY` reaches the running tray, which opens the popup with results.
            r = subprocess.run([sys.executable, "-m", "brain_core", "popup", "webhook retry"], env=env,
                               capture_output=True, text=True, timeout=60)
            assert r.returncode == 0, r.stderr
            time.sleep(4)  # recall (the embedder is warm by now) and paint
            xdisplay.screenshot(env, SHOTS / "popup.png")
            assert app.poll() is None, "the tray exited"

            # A spoken question (a recording through `aida ptt --file`): transcript, answer, citations.
            runs = brain.root / ".aida" / "runs"
            r = subprocess.run([sys.executable, "-m", "brain_core", "ptt", "--file", str(QUESTION)], env=env,
                               capture_output=True, text=True, timeout=60)
            assert r.returncode == 0, r.stderr
            wait_for(lambda: runs.is_dir() and any(runs.glob("*.json")), 90, "the answer's run record")
            time.sleep(1.5)
            xdisplay.screenshot(env, SHOTS / "answer.png")

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
    for name in ("tray.png", "popup.png", "answer.png"):
        assert (SHOTS / name).stat().st_size > 0


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

            time.sleep(1.0)  # the listener starts once the event loop runs
            assert not popup_shown()
            r = subprocess.run([sys.executable, "-c", PRESS_CHORD], env=env, capture_output=True, text=True, timeout=30)
            assert r.returncode == 0, r.stderr
            wait_for(popup_shown, 10, "the popup after Ctrl+Alt+Space")
        finally:
            app.terminate()
            app.wait(15)
