"""Where one sentence ends and the next begins: the splitters every module uses.

``sentences`` reads anything written: it ends a sentence at ., ! or ? and a space (not after a title
or an abbreviation such as "Dr.", "e.g.", "vs."), at a CJK full stop and at a line break.
``prose_sentences`` reads markdown and chat: it ends a sentence at ., ! or ? only where the next one
starts as a sentence does (a capital, a digit, a quote or a bracket), and at a blank line or a line
that starts a list item, a heading or a capitalised line; so "v1.2", "e.g. this" and a path stay
whole, and a bullet list is one sentence per item (the item's marker is kept, for the caller to drop).
``reply_sentences`` reads one line of an agent's reply as the distiller does: as ``prose_sentences``
within a line, but never after an ellipsis ("Checking... Found it" is the agent thinking aloud), and
also after a colon that a capital or code follows ("Root cause: `git fetch` ignores ...").
(Clauses, where a negation or a role stops reaching, are split by the checks that read them.)
"""

from __future__ import annotations

import re

_TITLES = ("Dr", "Mr", "Mrs", "Ms", "Mx", "Prof", "St", "Jr", "Sr", "vs", "e.g", "i.e", "cf", "approx")
_END = re.compile("".join(rf"(?<!\b{re.escape(t)}\.)" for t in _TITLES) + r"(?<=[.!?])\s+"
                  r"|(?<=[\u3002\uff01\uff1f])\s*|\n+")
_PROSE_END = re.compile(r"(?<=[.!?])\s+(?=[\"'(\[`*]?[A-Z0-9])|\n\s*\n|\n(?=\s*(?:[-*\u2022#]|\d+[.)]|[A-Z]))")
_REPLY_END = re.compile(r"(?:(?<=[^.]\.)|(?<=[!?]))\s+(?=[A-Z`\"'(\[])|(?<=:)\s+(?=[A-Z`])")
MARKER = re.compile(r"^\s*(?:[-*\u2022>#]+|\d+[.)])\s+")


def sentences(text: str) -> list[str]:
    """``text``'s sentences, stripped, empty ones left out."""
    return [s.strip() for s in _END.split(text or "") if s and s.strip()]


def prose_sentences(text: str) -> list[str]:
    """``text``'s sentences as markdown and chat write them, stripped, empty ones left out."""
    return [s.strip() for s in _PROSE_END.split((text or "").strip()) if s and s.strip()]


def reply_sentences(line: str) -> list[str]:
    """The sentences of one line of an agent's reply (see the module's docstring), unstripped."""
    return _REPLY_END.split(line)
