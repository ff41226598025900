"""The tray icon: a light and a dark glyph, and a badge per state, drawn with QPainter.

The PNGs in ``assets/`` are made by ``assets/make_icons.py`` from the same drawing code; the app
loads them when they are there (a packaged app) and draws them itself when they are not, so an
icon is never missing. A light glyph goes on a dark panel and the other way round: ``auto`` asks
Qt for the desktop's colour scheme.
"""

from __future__ import annotations

import sys
from pathlib import Path

from PySide6.QtCore import QPointF, QRectF, Qt
from PySide6.QtGui import QColor, QGuiApplication, QIcon, QPainter, QPainterPath, QPen, QPixmap

GLYPH = {"light": QColor("#f2f4f7"), "dark": QColor("#2b2f36")}
ACCENT = QColor("#14b8a6")
BADGE = {"listening": QColor("#e5484d"), "working": QColor("#f5a524"), "paused": QColor("#8b8d98"),
         "error": QColor("#e5484d")}
TRAY_SIZE = 64  # panels draw 16 to 48 px; Qt scales this down smoothly


def assets_dir() -> Path:
    """``assets/`` next to the package, or inside a PyInstaller bundle."""
    bundle = getattr(sys, "_MEIPASS", None)
    if bundle:
        return Path(bundle) / "assets"
    return Path(__file__).resolve().parent.parent / "assets"


def draw_glyph(p: QPainter, size: int, color: QColor) -> None:
    """A ring holding three linked memories; readable down to 16 px."""
    s = float(size)
    pen = QPen(color, max(1.5, s * 0.09))
    pen.setCapStyle(Qt.PenCapStyle.RoundCap)
    p.setPen(pen)
    p.setBrush(Qt.BrushStyle.NoBrush)
    m = s * 0.08
    p.drawEllipse(QRectF(m, m, s - 2 * m, s - 2 * m))
    nodes = [QPointF(s * 0.34, s * 0.38), QPointF(s * 0.66, s * 0.38), QPointF(s * 0.50, s * 0.68)]
    link = QPen(color, max(1.0, s * 0.055))
    p.setPen(link)
    path = QPainterPath(nodes[0])
    for n in nodes[1:] + nodes[:1]:
        path.lineTo(n)
    p.drawPath(path)
    p.setPen(Qt.PenStyle.NoPen)
    r = s * 0.085
    for i, n in enumerate(nodes):
        p.setBrush(ACCENT if i == 2 else color)
        p.drawEllipse(n, r, r)


def draw_badge(p: QPainter, size: int, state: str) -> None:
    """A dot in the lower right corner with a mark: record, busy, pause or alert."""
    color = BADGE.get(state)
    if color is None:
        return
    s = float(size)
    d = s * 0.46
    rect = QRectF(s - d, s - d, d, d)
    # Cut a transparent ring around the badge so it reads on any panel colour.
    p.setCompositionMode(QPainter.CompositionMode.CompositionMode_Clear)
    p.setPen(Qt.PenStyle.NoPen)
    p.setBrush(QColor(0, 0, 0))
    gap = max(1.0, s * 0.05)
    p.drawEllipse(rect.adjusted(-gap, -gap, gap, gap))
    p.setCompositionMode(QPainter.CompositionMode.CompositionMode_SourceOver)
    p.setBrush(color)
    p.drawEllipse(rect)
    white = QColor("#ffffff")
    c = rect.center()
    if state == "listening":
        p.setBrush(white)
        p.drawEllipse(c, d * 0.2, d * 0.2)
    elif state == "working":
        p.setBrush(white)
        for dx in (-0.24, 0.0, 0.24):
            p.drawEllipse(QPointF(c.x() + d * dx, c.y()), d * 0.08, d * 0.08)
    elif state == "paused":
        p.setBrush(white)
        w, h = d * 0.12, d * 0.42
        p.drawRect(QRectF(c.x() - w * 1.6, c.y() - h / 2, w, h))
        p.drawRect(QRectF(c.x() + w * 0.6, c.y() - h / 2, w, h))
    elif state == "error":
        p.setBrush(white)
        p.drawRect(QRectF(c.x() - d * 0.06, c.y() - d * 0.28, d * 0.12, d * 0.34))
        p.drawEllipse(QPointF(c.x(), c.y() + d * 0.22), d * 0.07, d * 0.07)


def render(theme: str, state: str, size: int) -> QPixmap:
    pm = QPixmap(size, size)
    pm.fill(Qt.GlobalColor.transparent)
    p = QPainter(pm)
    p.setRenderHint(QPainter.RenderHint.Antialiasing)
    draw_glyph(p, size, GLYPH[theme])
    draw_badge(p, size, state)
    p.end()
    return pm


def asset_name(theme: str, state: str) -> str:
    return f"tray-{theme}-{state}.png"


def resolve_theme(setting: str | None) -> str:
    """``light`` (a light glyph, for dark panels), ``dark``, or from the desktop's colour scheme."""
    if setting in GLYPH:
        return setting
    hints = QGuiApplication.styleHints() if QGuiApplication.instance() else None
    if hints is not None and hints.colorScheme() == Qt.ColorScheme.Light:
        return "dark"
    if hints is not None and hints.colorScheme() == Qt.ColorScheme.Dark:
        return "light"
    # Unknown: most panels (GNOME, KDE Breeze dark, Windows 11, macOS menu bar in dark mode) are dark.
    return "light"


def tray_icon(theme: str, state: str) -> QIcon:
    f = assets_dir() / asset_name(theme, state)
    return QIcon(QPixmap(str(f)) if f.is_file() else render(theme, state, TRAY_SIZE))


def app_icon() -> QIcon:
    f = assets_dir() / "aida.png"
    return QIcon(str(f)) if f.is_file() else QIcon(render("dark", "idle", 256))


def mic_icon(color: str = "#2b2f36", size: int = 64) -> QIcon:
    """A microphone for the push-to-talk button (no icon theme is guaranteed on Linux)."""
    pm = QPixmap(size, size)
    pm.fill(Qt.GlobalColor.transparent)
    p = QPainter(pm)
    p.setRenderHint(QPainter.RenderHint.Antialiasing)
    s = float(size)
    c = QColor(color)
    p.setPen(Qt.PenStyle.NoPen)
    p.setBrush(c)
    p.drawRoundedRect(QRectF(s * 0.36, s * 0.10, s * 0.28, s * 0.48), s * 0.14, s * 0.14)
    pen = QPen(c, s * 0.07)
    pen.setCapStyle(Qt.PenCapStyle.RoundCap)
    p.setPen(pen)
    p.setBrush(Qt.BrushStyle.NoBrush)
    p.drawArc(QRectF(s * 0.24, s * 0.22, s * 0.52, s * 0.50), 200 * 16, 140 * 16)
    p.drawLine(QPointF(s * 0.5, s * 0.73), QPointF(s * 0.5, s * 0.88))
    p.drawLine(QPointF(s * 0.36, s * 0.88), QPointF(s * 0.64, s * 0.88))
    p.end()
    return QIcon(pm)
