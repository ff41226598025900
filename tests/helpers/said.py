"""The records the offline distiller keeps when the person says something mid-session: a short
session (an opening request, the agent's reply, what the person said, the agent's acknowledgement)
through :func:`brain_core.harvest.distill.extractive`."""

from __future__ import annotations

from brain_core.harvest.distill import extractive


def kept_after(said: str, opening: str = "Set up the review tool", reply: str = "Done, what next?") -> list[str]:
    text = f"[user] {opening}\n\n[assistant] {reply}\n\n[user] {said}\n\n[assistant] Noted."
    return [r["body"] for r in extractive(text, profile="claude", source="claude:session:x")]
