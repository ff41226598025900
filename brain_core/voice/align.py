"""Biased and unbiased decodes merged word by word: the glossary may change only what it explains.

Decoding with the glossary's names as ``hotwords`` spells them right ("Siobhan", "damage-control")
but can also pull an ordinary word towards them ("going to rain" heard as "going terrain") or
lose speech. So both decodes are aligned word by word (``difflib`` on a folded form of each
word, where "six" and "6" are the same word) and the merged text keeps the unbiased words
everywhere except in a span where the biased words bring in a glossary name that the unbiased
words, even after the correction pass, do not have. Inside such a span:

- of equal length, only the words that belong to the name are taken ("Oh, it owns" against
  "Owen Owen is" gives "Owen owns": the name, and the unbiased words around it);
- of different length, the biased span is taken whole ("Oh, and we'll" -> "Owen will").

Every place the biased decode was used is reported with why (:class:`Choice`), so the result
can never hold a change the glossary does not explain. Segments keep the unbiased decode's
boundaries and timestamps (the biased decode often comes back as two long paragraphs).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from difflib import SequenceMatcher
from typing import TYPE_CHECKING, Any, Sequence

from .transcribe import Segment

if TYPE_CHECKING:
    from .glossary import Glossary

_FOLD = re.compile(r"[^\w]+")
_NAME_WORD = re.compile(r"\w+")
CONTEXT = 3  # words either side of a span looked at when deciding whether a name is new there

NUMBERS = {w: str(i) for i, w in enumerate(
    "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen "
    "sixteen seventeen eighteen nineteen twenty".split())}
NUMBERS.update({w: str(10 * i) for i, w in enumerate("_ _ _ thirty forty fifty sixty seventy eighty ninety".split()) if i >= 3})


@dataclass(frozen=True)
class Choice:
    """One place where the biased decode's words replaced the unbiased ones."""

    at: float  # seconds: the start of the segment it is in
    plain: str
    biased: str
    names: tuple[str, ...]  # the glossary names the biased words brought in

    def to_dict(self) -> dict[str, Any]:
        return {"at": round(self.at, 2), "unbiased": self.plain, "biased": self.biased, "names": list(self.names),
                "why": f"brings in {', '.join(self.names)}"}


def fold(word: str) -> str:
    """How two words are compared: case, punctuation and numerals vs number words ignored."""
    w = _FOLD.sub("", word.casefold())
    return NUMBERS.get(w, w)


def merge(plain: Sequence[Segment], biased: Sequence[Segment], glossary: "Glossary",
          threshold: float) -> tuple[tuple[Segment, ...], tuple[Choice, ...]]:
    """The unbiased segments with the biased words taken only where they bring in a glossary name."""
    words: list[tuple[int, str]] = [(i, w) for i, s in enumerate(plain) for w in s.text.split()]
    theirs = [w for s in biased for w in s.text.split()]
    a, b = [fold(w) for _, w in words], [fold(w) for w in theirs]
    name_words = {fold(w) for t in glossary.terms for w in _NAME_WORD.findall(t.name)}
    out: list[tuple[int, str]] = []
    choices: list[Choice] = []
    for tag, i1, i2, j1, j2 in SequenceMatcher(None, a, b, autojunk=False).get_opcodes():
        mine = words[i1:i2]
        if tag == "equal" or j1 == j2:  # same words, or words only the unbiased decode heard: keep them
            out.extend(mine)
            continue
        seg = mine[0][0] if mine else (words[i1 - 1][0] if i1 else 0)
        plain_ctx = " ".join(w for _, w in words[max(0, i1 - CONTEXT):i2 + CONTEXT])
        biased_ctx = " ".join(theirs[max(0, j1 - CONTEXT):j2 + CONTEXT])
        span = theirs[j1:j2]
        spoken = {fold(t) for t in span}
        new = {n for n in _names(biased_ctx, glossary, 1.0) - _names(plain_ctx, glossary, threshold)
               if spoken & {fold(w) for w in _NAME_WORD.findall(n)}}  # the name is in the span itself
        if not new:
            out.extend(mine)
            continue
        head, mine, span, tail = _trimmed(mine, span, name_words)
        if len(span) == len(mine):
            taken = [(s, t if fold(t) in name_words else w) for (s, w), t in zip(mine, span)]
        else:
            taken = [(mine[0][0] if mine else seg, t) for t in span]
        taken = _no_stutter(taken, out + head, name_words)
        out.extend(head + taken + tail)
        if [w for _, w in taken] == [w for _, w in mine]:
            continue
        choices.append(Choice(plain[seg].start if plain else 0.0, " ".join(w for _, w in mine),
                              " ".join(t for _, t in taken), tuple(sorted(new))))
    segments = []
    for i, s in enumerate(plain):
        text = " ".join(w for k, w in out if k == i)
        if text:
            segments.append(Segment(s.start, s.end, text))
    return tuple(segments), tuple(choices)


def _names(text: str, glossary: "Glossary", threshold: float) -> set[str]:
    """The glossary names in ``text`` once the correction pass has run (threshold 1.0: spelled
    right already, or a known alias)."""
    from .glossary import correct

    fixed = correct(text, glossary, threshold).text
    folded = " ".join(fold(w) for w in fixed.replace("-", " ").split())
    found = set()
    for t in glossary.terms:
        name = " ".join(fold(w) for w in t.name.replace("-", " ").split())
        if name and re.search(rf"(?<!\S){re.escape(name)}(?!\S)", folded):
            found.add(t.name)
    return found


def _trimmed(mine: list[tuple[int, str]], span: list[str], name_words: set[str]):
    """Split a differing span at a sentence boundary both decodes agree on: a sentence that ends
    ("sync." / "sink.") or starts ("Do" / "Good" after "Q." / "queue.") outside the name keeps
    the unbiased words."""
    def ends(w: str) -> bool:
        return w.rstrip("\"')").endswith((".", "?", "!"))

    head: list[tuple[int, str]] = []
    tail: list[tuple[int, str]] = []
    while len(mine) > 1 and len(span) > 1 and fold(span[0]) not in name_words and ends(mine[0][1]) and ends(span[0]):
        head.append(mine[0])
        mine, span = mine[1:], span[1:]
    while (len(mine) > 1 and len(span) > 1 and fold(span[-1]) not in name_words
           and ends(mine[-2][1]) and ends(span[-2])):
        tail.insert(0, mine[-1])
        mine, span = mine[:-1], span[:-1]
    return head, mine, span, tail


def _no_stutter(taken: list[tuple[int, str]], before: list[tuple[int, str]], name_words: set[str]) -> list[tuple[int, str]]:
    """A name word the bias doubled ("Owen Owen") is said once."""
    out: list[tuple[int, str]] = []
    prev = fold(before[-1][1]) if before else None
    for s, w in taken:
        f = fold(w)
        if f in name_words and f == prev:
            continue
        out.append((s, w))
        prev = f
    return out


_SMALL = "zero one two three four five six seven eight nine".split()
_NUMBER_WORD = re.compile(r"\b(" + "|".join(sorted(NUMBERS, key=len, reverse=True)) + r")\b", re.I)
_LONE_DIGIT = re.compile(r"(?<![\w.:/,-])([0-9])(?![\w.:/%-]|,\d|\s*(?:am|pm|a\.m\.|p\.m\.|%|percent)\b)")
_TENS_UNITS = re.compile(r"\b(twenty|thirty|forty|fifty|sixty|seventy|eighty|ninety)[ -](one|two|three|four|five|six|seven|eight|nine)\b", re.I)


def normalise_numbers(text: str) -> str:
    """Numbers written one way, whichever way the decoder heard them: zero to nine in words, 10 and
    above in digits ("6 attempts" -> "six attempts", "twelve retries" -> "12 retries"); times
    ("2am"), dates, versions and percentages are left as they are."""
    def word(m: re.Match) -> str:
        n = int(NUMBERS[m.group(1).casefold()])
        return m.group(1) if n < 10 else str(n)

    text = _TENS_UNITS.sub(lambda m: str(int(NUMBERS[m.group(1).casefold()]) + int(NUMBERS[m.group(2).casefold()])), text)
    return _LONE_DIGIT.sub(lambda m: _SMALL[int(m.group(1))], _NUMBER_WORD.sub(word, text))
