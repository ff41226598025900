"""Trimming a transcript to its head and tail before it is distilled.

What a session decided is usually stated near its start (the task, the constraints) or near its
end (the outcome, the rule to keep); the middle is mostly the agent working. Keeping about the
first and last 15,000 characters bounds the distiller's cost whatever the session's length. Cuts
snap to a turn boundary (a blank line) when one is near, so no turn is sliced mid-word when it
can be helped.
"""

from __future__ import annotations

HEAD = 15_000
TAIL = 15_000
SNAP = 1_500  # how far a cut may move to land on a blank line


def trim(text: str, head: int = HEAD, tail: int = TAIL) -> str:
    """``text`` unchanged when short; else its head, a marker saying how much was left out, and
    its tail."""
    if len(text) <= head + tail:
        return text
    cut_head = _snap_back(text, head)
    cut_tail = _snap_forward(text, len(text) - tail)
    if cut_tail <= cut_head:
        return text
    omitted = cut_tail - cut_head
    marker = f"\n\n[... {omitted:,} characters of the session left out ...]\n\n"
    return text[:cut_head].rstrip() + marker + text[cut_tail:].lstrip()


def _snap_back(text: str, pos: int) -> int:
    i = text.rfind("\n\n", max(0, pos - SNAP), pos)
    if i > 0:
        return i
    i = text.rfind("\n", max(0, pos - SNAP), pos)
    return i if i > 0 else pos


def _snap_forward(text: str, pos: int) -> int:
    i = text.find("\n\n", pos, pos + SNAP)
    if i >= 0:
        return i + 2
    i = text.find("\n", pos, pos + SNAP)
    return i + 1 if i >= 0 else pos
