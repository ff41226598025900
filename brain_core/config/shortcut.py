"""Keyboard shortcuts as Aida stores them: Qt's portable text ("Ctrl+Alt+Space").

Checked where a shortcut is set (``aida config set tray.hotkeys.*``, the settings file read by
``aida doctor`` and the tray): "Ctrl+Alt+Banana" is refused with the reason, never accepted without
a word. :func:`pynput_combo` is also the tray's translation for pynput (app/hotkeys.py). No Qt here.
"""

from __future__ import annotations

MODIFIERS = {"ctrl": "<ctrl>", "control": "<ctrl>", "alt": "<alt>", "option": "<alt>", "shift": "<shift>",
             "meta": "<cmd>", "super": "<cmd>", "win": "<cmd>", "cmd": "<cmd>", "command": "<cmd>"}
NAMED = {"space": "<space>", "tab": "<tab>", "return": "<enter>", "enter": "<enter>", "esc": "<esc>",
         "escape": "<esc>", "backspace": "<backspace>", "del": "<delete>", "delete": "<delete>", "ins": "<insert>",
         "insert": "<insert>", "home": "<home>", "end": "<end>", "pgup": "<page_up>", "pgdown": "<page_down>",
         "up": "<up>", "down": "<down>", "left": "<left>", "right": "<right>", "pause": "<pause>",
         "print": "<print_screen>", "menu": "<menu>", "capslock": "<caps_lock>", "scrolllock": "<scroll_lock>"}


def pynput_combo(sequence: str) -> str:
    """``"Ctrl+Alt+Space"`` -> ``"<ctrl>+<alt>+<space>"``; raises ValueError saying why one is unusable."""
    text = (sequence or "").strip()
    if not text:
        raise ValueError("the shortcut is empty")
    parts = [p for p in text.replace(" ", "").split("+")]
    if text.endswith("++"):  # "Ctrl++": the plus key itself
        parts = parts[:-2] + ["+"]
    out = []
    for p in parts:
        low = p.lower()
        if low in MODIFIERS:
            out.append(MODIFIERS[low])
        elif low in NAMED:
            out.append(NAMED[low])
        elif len(low) >= 2 and low[0] == "f" and low[1:].isdigit() and 1 <= int(low[1:]) <= 24:
            out.append(f"<{low}>")
        elif len(p) == 1:
            out.append(low)
        else:
            raise ValueError(f"{p!r} is not a key name (use one letter or digit, F1-F24, or one of Space, Tab, "
                             "Enter, Esc, Backspace, Delete, Insert, Home, End, PgUp, PgDown, Up, Down, Left, "
                             "Right, Pause, Print, Menu)")
    if not any(not o.startswith("<") or o not in MODIFIERS.values() for o in out):
        raise ValueError("a shortcut needs a key besides the modifiers")
    return "+".join(out)


def problem(sequence) -> str | None:
    """Why ``sequence`` cannot be a shortcut, or None."""
    if not isinstance(sequence, str):
        return f"{sequence!r} is not a shortcut such as Ctrl+Alt+Space"
    try:
        pynput_combo(sequence)
    except ValueError as e:
        return str(e)
    return None
