"""Biased and unbiased decodes merged word by word: a name enters only where it sounds like what was heard.

Decoding with the glossary's names as ``hotwords`` spells them right ("Siobhan", "damage-control")
but can also pull an ordinary word towards them ("going to rain" heard as "going terrain"), put a
name where none was said ("pushes tags from the CI runner" heard as "from the Siobhan") or lose
speech. So both decodes are aligned word by word (``difflib`` on a folded form of each word,
where "six" and "6" are the same word) and the merged text is the unbiased decode, into which a
glossary name the biased decode spelled is put only when all of these hold:

- the unbiased words there do not have the name yet, even after the correction pass;
- some unbiased words against it (at most the name's length plus two, near where the alignment
  puts the name) sound and are spelled like the name or one of its aliases (:func:`sound_alike`:
  the letters' similarity and the similarity of their consonant skeletons, Soundex classes,
  at least :data:`SOUND_ALIKE`, tuned on the tune half of tests/helpers/spoken_names.py): "Shivon" ->
  "Siobhan", "net letter Q" -> "dead letter queue", "Oh" -> "Owen", never "CI runner" ->
  "Siobhan";
- and then only those words give way: the words around keep the unbiased decode ("what" never
  becomes "worked": "Carl Kasey, what about" against "Kowalczyk worked about" keeps "what about",
  and keeps "Carl Kasey" too, which is not alike enough).

A name with nothing unbiased against it (heard only with the bias) is never put in, and a name
the bias said twice ("Owen Owen") is put in once. Every place a name was put in is reported
(:class:`Choice`). Segments keep the unbiased decode's boundaries and timestamps (the biased
decode often comes back as two long paragraphs).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from difflib import SequenceMatcher
from typing import TYPE_CHECKING, Any, Sequence

from brain_core.voice.transcribe import Segment

if TYPE_CHECKING:
    from brain_core.voice.glossary import Glossary

_FOLD = re.compile(r"[^\w]+")
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
    """The unbiased segments, with a glossary name from the biased decode put in only where the
    unbiased words sound like it, and only in place of those words."""
    words: list[tuple[int, str]] = [(i, w) for i, s in enumerate(plain) for w in s.text.split()]
    theirs = [w for s in biased for w in s.text.split()]
    a, b = [fold(w) for _, w in words], [fold(w) for w in theirs]
    where = _mapping(SequenceMatcher(None, a, b, autojunk=False).get_opcodes(), len(b))
    put: dict[int, str | None] = {}  # unbiased word index -> the name put there (None: the name's other words)
    choices: list[Choice] = []
    used, previous = 0, None  # unbiased words up to ``used`` are spoken for; the last name put in
    for term, p, q in _occurrences(theirs, glossary):
        if previous and previous[0] == term.name and previous[1] == p:
            continue  # "Owen Owen": the bias said the name twice
        lo, hi, fixed, start, end = _region(where, p, q)
        if hi <= lo or hi <= used:
            continue  # nothing heard there without the bias: a name out of silence
        context = " ".join(w for _, w in words[max(0, lo - CONTEXT):hi + CONTEXT])
        if term.name in _names(context, glossary, threshold):
            continue  # the unbiased words have it already, or the correction pass will put it in
        best = _best_span(words, max(lo, used), hi, fixed, term, start, end)
        if best is None:
            continue  # nothing there sounds like the name: the bias invented it
        i, j, _ = best
        heard = " ".join(w for _, w in words[i:j])
        name = _spelled(theirs[p:q], words[j - 1][1])
        used, previous = j, (term.name, q)
        if fold_all(heard) == fold_all(name):
            continue
        put.update({k: None for k in range(i + 1, j)})
        put[i] = name
        choices.append(Choice(plain[words[i][0]].start, heard, name, (term.name,)))
    kept: dict[int, list[str]] = {}
    for k, (seg, w) in enumerate(words):
        said = put[k] if k in put else w
        if said:
            kept.setdefault(seg, []).append(said)
    segments = []
    for n, s in enumerate(plain):
        text = " ".join(kept.get(n, ()))
        if text:
            segments.append(Segment(s.start, s.end, text))
    return tuple(segments), tuple(choices)


SOUND_ALIKE = 0.55  # how alike by sound and spelling the unbiased words must be to a name they give way to
SHIFT = 0.1  # taken off per word a candidate lies away from where the alignment puts the name
_LETTERS = re.compile(r"[^0-9a-z]+")
_CLASSES = {c: str(d) for d, letters in enumerate(("", "bfpv", "cgjkqsxz", "dt", "l", "mn", "r"), 0) for c in letters}


def skeleton(text: str) -> str:
    """The consonants of ``text`` by Soundex class, the first included, one class said twice in a
    row once ("Siobhan" and "Shivon" are both 215, "Tomasz" and "Thomas" 352)."""
    out: list[str] = []
    for c in _LETTERS.sub("", text.casefold()):
        code = _CLASSES.get(c, "") if c.isalpha() else c
        if code and (not out or out[-1] != code):
            out.append(code)
    return "".join(out)


def sound_alike(heard: str, names: Sequence[str]) -> float:
    """How much ``heard`` sounds and is spelled like the closest of ``names``, 0 to 1: the better
    of the letters' similarity and a mix weighted to the similarity of the consonant skeletons
    (one minus their edit distance over the longer: a mishearing keeps the consonants more often
    than the letters, "Shivon" for "Siobhan", while "CI runner" has two consonants too many). An interjection ("Oh", "Ah") has no consonants: it
    sounds like a name that begins with its vowel ("Oh" for "Owen")."""
    h = _LETTERS.sub("", heard.casefold())
    best = 0.0
    for name in names:
        n = _LETTERS.sub("", name.casefold())
        if not h or not n:
            continue
        char = SequenceMatcher(None, h, n, autojunk=False).ratio()
        kh, kn = skeleton(h), skeleton(n)
        if kh or len(h) < 2:
            key = 1.0 - _distance(kh, kn) / max(len(kh), len(kn), 1)
        else:
            key = 1.0 if n[0] == h[0] else 0.0
        best = max(best, char, 0.6 * key + 0.4 * char)
    return best


def _distance(a: str, b: str) -> int:
    """Levenshtein distance."""
    prev = list(range(len(b) + 1))
    for i, x in enumerate(a, 1):
        cur = [i]
        for j, y in enumerate(b, 1):
            cur.append(min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (x != y)))
        prev = cur
    return prev[-1]


def fold_all(text: str) -> str:
    return "".join(fold(w) for w in text.split())


def _occurrences(tokens: Sequence[str], glossary: "Glossary"):
    """(term, p, q): the biased tokens p..q spell a glossary name (hyphens and case aside), left to
    right, the longest name first where two start at one token."""
    subs = [[fold(x) for x in w.split("-") if fold(x)] for w in tokens]
    terms = sorted(glossary.terms, key=lambda t: -len(t.name))
    found = []
    for p in range(len(tokens)):
        for term in terms:
            want = [fold(x) for x in re.split(r"[\s-]+", term.name) if fold(x)]
            got: list[str] = []
            q = p
            while q < len(tokens) and len(got) < len(want):
                got += subs[q]
                q += 1
            if want and got == want:
                found.append((term, p, q))
                break
    return found


def _mapping(opcodes, n: int) -> list[tuple[str, int, int, float, float]]:
    """For each biased word, the unbiased words the alignment puts against it: (tag, i1, i2, where
    it falls among them, how many of them it stands for)."""
    where: list[tuple[str, int, int, float, float]] = [("insert", 0, 0, 0.0, 0.0)] * n
    for tag, i1, i2, j1, j2 in opcodes:
        for j in range(j1, j2):
            if tag == "equal":
                i = i1 + j - j1
                where[j] = ("equal", i, i + 1, float(i), 1.0)
            elif i1 == i2:
                where[j] = ("insert", i1, i1, float(i1), 0.0)
            else:
                width = (i2 - i1) / (j2 - j1)
                where[j] = ("replace", i1, i2, i1 + (j - j1) * width, width)
    return where


def _region(where, p: int, q: int) -> tuple[int, int, list[int], float, float]:
    """The unbiased words against biased words p..q: (lo, hi, those equal to a word of the name,
    where the name is expected to start and end among them)."""
    spans = where[p:q]
    real = [s for s in spans if s[2] > s[1]]
    if not real:
        return 0, 0, [], 0.0, 0.0
    fixed = [s[1] for s in spans if s[0] == "equal"]
    return min(s[1] for s in real), max(s[2] for s in real), fixed, spans[0][3], spans[-1][3] + spans[-1][4]


def _best_span(words, lo: int, hi: int, fixed: list[int], term, start: float, end: float):
    """(i, j, score): the unbiased words i..j that sound most like ``term`` (its name or an alias),
    near where the alignment puts it, or None when none is alike enough."""
    names = (term.name, *term.aliases)
    longest = len(re.split(r"[\s-]+", term.name)) + 2
    best = None
    for i in range(lo, hi):
        for j in range(i + 1, min(hi, i + longest) + 1):
            if fixed and (i > min(fixed) or j <= max(fixed)):
                continue
            heard = " ".join(w for _, w in words[i:j])
            score = sound_alike(heard, names) - SHIFT * (abs(i - start) + abs(j - end))
            if best is None or score > best[2] + 1e-9:
                best = (i, j, score)
    return best if best is not None and best[2] >= SOUND_ALIKE else None


def _spelled(tokens: Sequence[str], last_heard: str) -> str:
    """The name as the biased decode spelled it, with the punctuation the unbiased words had."""
    text = " ".join(tokens)
    text = re.sub(r"[^\w]+$", "", text)
    tail = re.search(r"[^\w]*$", last_heard)
    assert tail is not None  # [^\w]*$ matches every string, if only the empty end
    return text + tail.group(0)


def _names(text: str, glossary: "Glossary", threshold: float) -> set[str]:
    """The glossary names in ``text`` once the correction pass has run (threshold 1.0: spelled
    right already, or a known alias)."""
    from brain_core.voice.glossary import correct

    fixed = correct(text, glossary, threshold).text
    folded = " ".join(fold(w) for w in fixed.replace("-", " ").split())
    found = set()
    for t in glossary.terms:
        name = " ".join(fold(w) for w in t.name.replace("-", " ").split())
        if name and re.search(rf"(?<!\S){re.escape(name)}(?!\S)", folded):
            found.add(t.name)
    return found


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
