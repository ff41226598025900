"""Draw the tray and app icons into this folder: ``python assets/make_icons.py``.

The drawing code is :mod:`app.icons` (the app falls back to it when a PNG is missing), so the
files here and what the app draws never disagree. Run it again after changing a colour or shape.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")


def main() -> int:
    from PySide6.QtGui import QGuiApplication

    from app.icons import BADGE, GLYPH, TRAY_SIZE, asset_name, render

    _app = QGuiApplication.instance() or QGuiApplication([])  # QPixmap needs an application object
    written = []
    for theme in GLYPH:
        for state in ("idle", *BADGE):
            out = HERE / asset_name(theme, state)
            render(theme, state, TRAY_SIZE).save(str(out), "PNG")
            written.append(out.name)
    render("dark", "idle", 256).save(str(HERE / "aida.png"), "PNG")
    written.append("aida.png")
    print("wrote", ", ".join(written))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
