"""Sentences, content words, numbers and negation: the one splitter and the one word list that
lifecycle, link on write and conflicts share."""

from __future__ import annotations

import re

from brain_core.text.sentences import sentences
from brain_core.text.stopwords import STOPWORDS

_WORD = re.compile(r"[^\W\d_][\w'-]*", re.UNICODE)
_NUMBER = re.compile(r"(?<![\w.])\d+(?:[.,:]\d+)*%?")
NEGATIONS = ("not", "no", "never", "none", "nothing", "without", "cannot", "neither", "nor")
_NEG_RE = re.compile(r"\b(?:" + "|".join(NEGATIONS) + r")\b|n't\b", re.I)


def words(text: str) -> list[str]:
    return [w for w in (m.group(0).lower().strip("'-") for m in _WORD.finditer(text or ""))
            if len(w) > 1 and w not in STOPWORDS and w not in NEGATIONS]


def numbers(text: str) -> set[str]:
    return {n.rstrip(".,:").replace(",", "") for n in _NUMBER.findall(text or "")}


def negated(text: str) -> bool:
    return bool(_NEG_RE.search(text or ""))


def first_sentence(text: str, limit: int = 100) -> str:
    s = sentences(text)
    first = (s[0] if s else (text or "").strip()).lstrip("#*- ").strip()
    if len(first) <= limit:
        return first.rstrip(".")
    cut = first[:limit].rsplit(" ", 1)[0]
    return (cut if len(cut) > limit // 2 else first[:limit]).rstrip(" ,;:.") + "…"
