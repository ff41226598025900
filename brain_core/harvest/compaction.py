"""A compacted session's summary, read as the conversation it stands for.

When Claude Code runs out of context it starts the rest of the session from a summary it wrote
("This session is being continued from a previous conversation that ran out of context. The
conversation is summarized below: ..."). Where the earlier history is not in the transcript (a
continued session file), that summary is all that is left of it, and two of its sections are what
the offline distiller reads elsewhere: "All user messages" (the person's own words, quoted) and
"Errors and fixes" (what went wrong and why). :func:`unfold` puts those back as turns: each quoted
message as a person's turn, the errors and fixes as one reply of the agent; the rest of the summary
(the analysis, the intent, the files touched, the pending tasks, the current work) is the task at
hand and is left out.
"""

from __future__ import annotations

import re

_START = re.compile(r"^\s*This session is being continued from a previous conversation", re.I)
# A numbered or titled section of the summary: "6. All user messages:", "Errors and Fixes:".
_SECTION = re.compile(r"^\s*(?:\d+\.\s*(?:\*\*)?([A-Z][A-Za-z ,&/-]{2,40}?)(?:\*\*)?:?|(?:\*\*)?([A-Z][A-Za-z ,&/-]{2,40}?)(?:\*\*)?:)\s*$")
_USER_MESSAGES = re.compile(r"^all user messages$", re.I)
_ERRORS = re.compile(r"^errors? (?:and|&) fix(?:es)?$", re.I)
_ITEM = re.compile(r"^\s*[-*]\s+")
_QUOTED_ITEM = re.compile(r'^\s*[-*]\s+"(.+)"\s*(?:\([^)]*\))?\s*$')


def is_summary(body: str) -> bool:
    return bool(_START.match(body or ""))


def unfold(turns: list[tuple[str, str]]) -> list[tuple[str, str]]:
    """``turns`` with each compaction summary replaced by the turns it stands for (see above)."""
    out: list[tuple[str, str]] = []
    for role, body in turns:
        if role in ("user", "assistant") and is_summary(body):
            out.extend(_turns_of(body))
        else:
            out.append((role, body))
    return out


def _turns_of(summary: str) -> list[tuple[str, str]]:
    said: list[str] = []
    errors: list[str] = []
    section = ""
    for line in summary.splitlines():
        m = _SECTION.match(line)
        if m:
            section = (m.group(1) or m.group(2)).strip().lower()
            continue
        if _USER_MESSAGES.match(section):
            q = _QUOTED_ITEM.match(line)
            if q:
                said.append(q.group(1).strip())
        elif _ERRORS.match(section) and line.strip():
            errors.append(_ITEM.sub("", line))  # each item a line of its own, as prose
    turns: list[tuple[str, str]] = []
    for text in said:  # between the person's messages the agent worked: an empty reply keeps them apart
        turns += [("user", text), ("assistant", "")]
    if errors:
        turns.append(("assistant", "\n".join(errors)))
    return turns
