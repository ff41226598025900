"""Start at login: the one place that knows how each system does it.

- Linux (and other XDG desktops): ``$XDG_CONFIG_HOME/autostart/aida.desktop`` (the freedesktop
  autostart spec; GNOME, KDE, Xfce, Cinnamon and most others honour it);
- macOS: a LaunchAgent ``~/Library/LaunchAgents/app.aida.tray.plist`` with ``RunAtLoad``;
- Windows: the ``Aida`` value under ``HKCU\\Software\\Microsoft\\Windows\\CurrentVersion\\Run``.

The command started is the same ``aida tray`` the user would type, resolved to this install.
"""

from __future__ import annotations

import os
import shlex
import sys
from pathlib import Path

from .processes import aida_command

LABEL = "app.aida.tray"
RUN_KEY = r"HKEY_CURRENT_USER\Software\Microsoft\Windows\CurrentVersion\Run"


def tray_argv() -> list[str]:
    return aida_command("tray")


def desktop_entry(argv: list[str] | None = None) -> str:
    exec_line = " ".join(shlex.quote(a) for a in (argv or tray_argv()))
    return ("[Desktop Entry]\nType=Application\nName=Aida\nComment=Your memory, in the tray\n"
            f"Exec={exec_line}\nIcon=aida\nTerminal=false\nCategories=Utility;\n"
            "X-GNOME-Autostart-enabled=true\nX-GNOME-Autostart-Delay=5\n")


def linux_path() -> Path:
    base = os.environ.get("XDG_CONFIG_HOME") or str(Path.home() / ".config")
    return Path(base) / "autostart" / "aida.desktop"


def mac_path() -> Path:
    return Path.home() / "Library" / "LaunchAgents" / f"{LABEL}.plist"


def mac_plist(argv: list[str] | None = None) -> str:
    from xml.sax.saxutils import escape

    args = "".join(f"    <string>{escape(a)}</string>\n" for a in (argv or tray_argv()))
    return ('<?xml version="1.0" encoding="UTF-8"?>\n'
            '<!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">\n'
            f'<plist version="1.0">\n<dict>\n  <key>Label</key><string>{LABEL}</string>\n'
            f"  <key>ProgramArguments</key>\n  <array>\n{args}  </array>\n"
            "  <key>RunAtLoad</key><true/>\n</dict>\n</plist>\n")


def is_enabled(platform: str | None = None) -> bool:
    platform = platform or sys.platform
    if platform.startswith("win"):
        from PySide6.QtCore import QSettings

        return QSettings(RUN_KEY, QSettings.Format.NativeFormat).contains("Aida")
    return (mac_path() if platform == "darwin" else linux_path()).is_file()


def set_enabled(enabled: bool, platform: str | None = None) -> Path | str:
    """Switch start-at-login on or off; returns what was written or removed."""
    platform = platform or sys.platform
    if platform.startswith("win"):
        from PySide6.QtCore import QSettings

        settings = QSettings(RUN_KEY, QSettings.Format.NativeFormat)
        if enabled:
            settings.setValue("Aida", " ".join(f'"{a}"' for a in tray_argv()))
        else:
            settings.remove("Aida")
        settings.sync()
        return RUN_KEY + r"\Aida"
    path = mac_path() if platform == "darwin" else linux_path()
    if enabled:
        path.parent.mkdir(parents=True, exist_ok=True)
        from brain_core.store.fsutil import atomic_write_text

        atomic_write_text(path, mac_plist() if platform == "darwin" else desktop_entry())
    else:
        path.unlink(missing_ok=True)
    return path
