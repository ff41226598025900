"""A throwaway X display with a system tray, for the real-window test and the tray benchmark.

Xvfb is the X server (no screen needed) and trayer the tray host (a small panel that embeds tray
icons the XEmbed way, as Qt's QSystemTrayIcon does without a D-Bus tray). Screenshots are taken
by a separate Qt process on that display, so the app under test is not touched.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator

REASON = "needs Xvfb and trayer (Debian: apt-get install -y xvfb trayer x11-utils; `make test` installs them)"

GRAB = r"""
import sys
from PySide6.QtGui import QGuiApplication
app = QGuiApplication(sys.argv[:1])
shot = app.primaryScreen().grabWindow(0)
x, y, w, h, scale = (int(v) for v in sys.argv[2:7])
if w > 0 and h > 0:
    shot = shot.copy(x, y, w, h)
if scale > 1:
    shot = shot.scaled(shot.width() * scale, shot.height() * scale)
shot.save(sys.argv[1], "PNG")
img = shot.toImage()
light = sum(1 for i in range(img.width()) for j in range(img.height()) if img.pixelColor(i, j).lightness() > 200)
print(img.width(), img.height(), light)
"""


def available() -> bool:
    return bool(shutil.which("Xvfb") and shutil.which("trayer")) and sys.platform.startswith("linux")


def _free_display() -> int:
    for n in range(91, 200):
        if not Path(f"/tmp/.X11-unix/X{n}").exists() and not Path(f"/tmp/.X{n}-lock").exists():
            return n
    raise RuntimeError("no free X display number between :91 and :199")


def _wait(pred, timeout: float, what: str) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if pred():
            return
        time.sleep(0.05)
    raise RuntimeError(f"timed out waiting for {what}")


def _accepts(env: dict) -> bool:
    if not shutil.which("xwininfo"):
        return True
    return subprocess.run(["xwininfo", "-root"], env=env, capture_output=True).returncode == 0


def _tray_owned(env: dict) -> bool:
    """trayer has taken the system tray selection once its panel window exists."""
    if not shutil.which("xwininfo"):
        return True
    out = subprocess.run(["xwininfo", "-root", "-tree"], env=env, capture_output=True, text=True).stdout
    return "panel" in out


def window_rect(env: dict, title: str, min_size: tuple[int, int] = (0, 0)) -> tuple[int, int, int, int] | None:
    """Absolute (x, y, width, height) of the first window named ``title`` at least ``min_size``."""
    import re

    out = subprocess.run(["xwininfo", "-root", "-tree"], env=env, capture_output=True, text=True).stdout
    for line in out.splitlines():
        m = re.search(r'"([^"]*)":.*?(\d+)x(\d+)[+-]-?\d+[+-]-?\d+\s+\+(-?\d+)\+(-?\d+)', line)
        if m and m.group(1) == title and int(m.group(2)) >= min_size[0] and int(m.group(3)) >= min_size[1]:
            return int(m.group(4)), int(m.group(5)), int(m.group(2)), int(m.group(3))
    return None


@contextmanager
def display_with_tray(size: tuple[int, int] = (1024, 640)) -> Iterator[dict]:
    """Yield an environment (DISPLAY set, no offscreen Qt) where a tray icon can be shown."""
    n = _free_display()
    env = {k: v for k, v in os.environ.items() if k not in ("QT_QPA_PLATFORM", "WAYLAND_DISPLAY", "DBUS_SESSION_BUS_ADDRESS")}
    env["DISPLAY"] = f":{n}"
    procs: list[subprocess.Popen] = []
    try:
        procs.append(subprocess.Popen(["Xvfb", f":{n}", "-screen", "0", f"{size[0]}x{size[1]}x24", "-nolisten", "tcp"],
                                      stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))
        _wait(lambda: Path(f"/tmp/.X11-unix/X{n}").exists(), 30, "Xvfb")
        _wait(lambda: _accepts(env), 30, "Xvfb to accept clients")  # the socket exists before the server answers
        trayer = ["trayer", "--edge", "top", "--align", "right", "--widthtype", "request", "--height", "32",
                  "--transparent", "true", "--alpha", "0", "--tint", "0x2b2f36", "--SetDockType", "true",
                  "--SetPartialStrut", "true"]
        for attempt in range(3):  # a trayer that exits at once (a loaded machine) is started again
            procs.append(subprocess.Popen(trayer, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))
            tray = procs[-1]
            try:
                _wait(lambda: _tray_owned(env) or tray.poll() is not None, 30, "trayer")  # a loaded machine starts it slowly
            except RuntimeError:
                if attempt == 2:
                    raise
                tray.kill()
                continue
            if tray.poll() is None:
                break
        else:
            raise RuntimeError("trayer exited at start three times")
        time.sleep(0.3)
        yield env
    finally:
        for p in reversed(procs):
            p.terminate()
            try:
                p.wait(5)
            except subprocess.TimeoutExpired:
                p.kill()


def screenshot(env: dict, out: Path, rect: tuple[int, int, int, int] | None = None, scale: int = 1) -> tuple[int, int, int]:
    """Save the screen (or ``rect``) as PNG; returns (width, height, count of light pixels)."""
    out.parent.mkdir(parents=True, exist_ok=True)
    x, y, w, h = rect or (0, 0, 0, 0)
    r = subprocess.run([sys.executable, "-c", GRAB, str(out), str(x), str(y), str(w), str(h), str(scale)],
                       env={**env, "QT_QPA_PLATFORM": "xcb"}, capture_output=True, text=True, timeout=60)
    if r.returncode != 0:
        raise RuntimeError(f"screenshot failed: {r.stderr.strip()[-500:]}")
    w_, h_, light = (int(v) for v in r.stdout.split()[-3:])
    return w_, h_, light
