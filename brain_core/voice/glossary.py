"""The glossary: the names a brain's owner says, and the ways speech-to-text mishears them.

``glossary.yaml`` in the brain::

    terms:
      - name: Siobhan
        aliases: [Shivon, Siivon]

It works at both ends of a transcription. Before: the names are passed to the decoder as
``hotwords``, which biases it towards spelling them right (never as ``initial_prompt``: that made
the model drop half a meeting). After: :func:`correct` replaces what is still wrong, so the brain
remembers people, not phonetic accidents:

- an **alias** (a known mishearing, case-insensitive) is replaced by its name;
- a **fuzzy** match, a word or run of words whose spelling is close to a name or one of its
  aliases (``difflib`` ratio at or above the threshold), is replaced too, with guards that keep
  ordinary English alone: only whole words, never a common word, never the name plus an
  English ending ("controlled" is not a mishearing of "control"), names of at least five
  letters only.

Matching works on whole words: a word is a run of letters, digits or underscores, and a
multi-word name matches words separated only by spaces or hyphens, so nothing is ever replaced
inside another word. Every replacement is reported with where it started in the text it was
made on. A name already spelled right claims its words, so no other term rewrites part of it.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from difflib import SequenceMatcher
from pathlib import Path
from typing import Any, Iterable, Sequence

from brain_core.errors import BrainError, InvalidInput
from brain_core.text.stopwords import COMMON_WORDS as _COMMON

GLOSSARY_FILE = "glossary.yaml"
DEFAULT_THRESHOLD = 0.82
MIN_FUZZY_LETTERS = 5

_WORD = re.compile(r"\w+")  # letters, digits, underscore: "Thomas_var" is one word
_JOINER = re.compile(r"[ \t-]+")  # what may stand between the words of one multi-word name

# Words too common to be a mishearing of a name, whatever their spelling distance.


@dataclass(frozen=True)
class Term:
    """One name and the ways it has been misheard."""

    name: str
    aliases: tuple[str, ...] = ()


@dataclass(frozen=True)
class Replacement:
    """``heard`` was replaced by ``name``; ``start`` is its offset in the text given to correct."""

    heard: str
    name: str
    start: int
    kind: str  # "alias" | "fuzzy"
    score: float = 1.0

    def to_dict(self) -> dict[str, Any]:
        return {"from": self.heard, "to": self.name, "start": self.start, "kind": self.kind,
                "score": round(self.score, 3)}


@dataclass(frozen=True)
class Correction:
    text: str
    replacements: tuple[Replacement, ...] = ()


@dataclass(frozen=True)
class Glossary:
    terms: tuple[Term, ...] = ()

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(t.name for t in self.terms)

    def hotwords(self) -> str | None:
        """The names as faster-whisper's ``hotwords`` string (it truncates past its prompt budget).

        One short capitalised sentence per name: a comma-separated list primed tiny.en to write
        the whole meeting as one comma-spliced sentence, which the distiller cannot split. Any
        spelling can still make the model skip speech; :func:`brain_core.voice.hear.hear` checks.
        """
        return " ".join(n[:1].upper() + n[1:] + "." for n in self.names) or None

    def find(self, name: str) -> Term | None:
        folded = name.casefold()
        return next((t for t in self.terms if t.name.casefold() == folded), None)

    def to_yaml(self) -> str:
        import yaml

        data = {"terms": [{"name": t.name, "aliases": list(t.aliases)} for t in self.terms]}
        header = "# Proper nouns and the ways speech-to-text mishears them (`aida glossary add NAME ALIAS`).\n"
        return header + yaml.safe_dump(data, sort_keys=False, allow_unicode=True, default_flow_style=None)


# ---------------------------------------------------------------------------------------------
# loading and validating


def parse_glossary(text: str | None, where: str = GLOSSARY_FILE) -> Glossary:
    """A :class:`Glossary` from YAML text; empty text is an empty glossary."""
    import yaml

    from brain_core.text import yamlsafe

    if not text or not text.strip():
        return Glossary()
    try:
        data = yamlsafe.load(text)
    except yaml.YAMLError as e:
        raise BrainError(f"{where} is not valid YAML ({_first_line(e)}); fix the file or delete it.") from e
    if data is None:
        return Glossary()
    if not isinstance(data, dict) or not isinstance(data.get("terms", []), list):
        raise BrainError(f"{where} must be a mapping with a list under 'terms'; see `aida glossary list` for the shape.")
    terms: list[Term] = []
    for i, item in enumerate(data.get("terms") or []):
        if not isinstance(item, dict):
            raise BrainError(f"{where}: term {i + 1} is not a mapping with 'name' and 'aliases'; fix the file.")
        name = item.get("name")
        aliases = item.get("aliases") or []
        if isinstance(aliases, str):
            aliases = [aliases]
        if not isinstance(aliases, list):
            raise BrainError(f"{where}: the aliases of term {i + 1} must be a list of strings; fix the file.")
        terms.append(_make_term(name, aliases, f"{where}: term {i + 1}"))
    return _checked(terms, where)


def load_glossary(path: str | Path) -> Glossary:
    """The glossary in a file (``--glossary FILE``); a missing file is an error, not an empty glossary."""
    p = Path(path).expanduser()
    try:
        text = p.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise BrainError(f"The glossary file {p} does not exist; check the path.") from None
    except (OSError, UnicodeDecodeError) as e:
        raise BrainError(f"The glossary file {p} cannot be read ({e.__class__.__name__}); check the file.") from e
    return parse_glossary(text, str(p))


def brain_glossary(brain: Any) -> Glossary:
    """The brain's ``glossary.yaml``, or an empty glossary when it has none."""
    return parse_glossary(brain.read_text(GLOSSARY_FILE), GLOSSARY_FILE)


def add_alias(brain: Any, name: str, alias: str) -> Glossary:
    """Record that ``alias`` is how ``name`` gets misheard (a new name is added); returns the glossary.

    Written through ``brain.write_text`` so the change is committed like every other edit.
    Adding an alias the name already has changes nothing and writes nothing.
    """
    glossary = brain_glossary(brain)
    term = _make_term(name, [alias], "The new alias")
    name, alias = term.name, term.aliases[0]
    existing = glossary.find(name)
    if existing and any(a.casefold() == alias.casefold() for a in existing.aliases):
        return glossary
    terms = []
    for t in glossary.terms:
        terms.append(Term(t.name, t.aliases + (alias,)) if t is existing else t)
    if existing is None:
        terms.append(Term(name, (alias,)))
    updated = _checked(terms, "The new alias", error=InvalidInput)
    brain.write_text(GLOSSARY_FILE, updated.to_yaml(), f"glossary: {alias!r} means {name}")
    return updated


def _make_term(name: Any, aliases: Iterable[Any], where: str) -> Term:
    if not isinstance(name, str) or not _WORD.search(name):
        raise BrainError(f"{where} has no usable 'name' (a word or a few words); fix it.")
    cleaned: list[str] = []
    for a in aliases:
        if not isinstance(a, str) or not _WORD.search(a):
            raise BrainError(f"{where} ({name}) has an alias that is not a word or phrase: {a!r}; fix it.")
        a = " ".join(a.split())
        if a.casefold() == name.strip().casefold():
            raise InvalidInput(f"{where} ({name}) lists the name itself as an alias; an alias is a mishearing.")
        if a.casefold() not in (c.casefold() for c in cleaned):
            cleaned.append(a)
    return Term(" ".join(name.split()), tuple(cleaned))


def _checked(terms: list[Term], where: str, error: type[BrainError] = BrainError) -> Glossary:
    """Refuse a glossary where one spelling would mean two different names."""
    owner: dict[str, str] = {}
    for t in terms:
        key = _norm(t.name)
        if key in owner:
            raise error(f"{where}: the name {t.name!r} is listed twice; merge the two entries.")
        owner[key] = t.name
    for t in terms:
        for a in t.aliases:
            key = _norm(a)
            if key in owner and owner[key] != t.name:
                raise error(f"{where}: {a!r} is given for both {owner[key]} and {t.name}; keep it under one name.")
            owner[key] = t.name
    return Glossary(tuple(terms))


# ---------------------------------------------------------------------------------------------
# the correction pass


@dataclass(frozen=True)
class _Candidate:
    start: int
    end: int
    first: int  # index of the first word
    last: int  # index of the last word (inclusive)
    name: str
    kind: str
    score: float


class _Words:
    """The words of a text, found once: offsets, folded forms, which neighbours are joined."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.spans = [(m.start(), m.end(), m.group()) for m in _WORD.finditer(text)]
        self.folded = [w[2].casefold() for w in self.spans]
        # joined[i]: words i and i+1 are separated only by spaces or hyphens
        self.joined = [bool(_JOINER.fullmatch(text[a[1]:b[0]])) for a, b in zip(self.spans, self.spans[1:])]
        self.at: dict[str, list[int]] = {}
        for i, w in enumerate(self.folded):
            self.at.setdefault(w, []).append(i)
        self._starts: dict[int, list[int]] = {}
        self._grams: dict[int, dict[tuple[str, ...], list[int]]] = {}
        self._lengths: dict[int, dict[int, list[tuple[str, tuple[str, ...]]]]] = {}

    def starts(self, n: int) -> list[int]:
        """Indexes where a run of ``n`` joined words starts (computed once per length)."""
        if n not in self._starts:
            ok, broken = [], -1
            for i in range(len(self.spans)):
                if i > 0 and not self.joined[i - 1]:
                    broken = i - 1
                if i - n + 1 >= 0 and broken < i - n + 1:
                    ok.append(i - n + 1)
            self._starts[n] = ok
        return self._starts[n]

    def grams(self, n: int) -> dict[tuple[str, ...], list[int]]:
        """Distinct runs of ``n`` joined words (folded) -> where each starts: the fuzzy pass
        scores each distinct run once, however often it is said."""
        if n not in self._grams:
            out: dict[tuple[str, ...], list[int]] = {}
            for i in self.starts(n):
                out.setdefault(tuple(self.folded[i:i + n]), []).append(i)
            self._grams[n] = out
        return self._grams[n]

    def by_length(self, n: int) -> dict[int, list[tuple[str, tuple[str, ...]]]]:
        """Distinct all-letter runs of ``n`` words, joined, grouped by length (fuzzy candidates)."""
        if n not in self._lengths:
            out: dict[int, list[tuple[str, tuple[str, ...]]]] = {}
            for gram in self.grams(n):
                if all(w.isalpha() for w in gram):
                    heard = "".join(gram)
                    out.setdefault(len(heard), []).append((heard, gram))
            self._lengths[n] = out
        return self._lengths[n]

    def matches(self, target: list[str]):
        """Indexes where the folded words ``target`` stand, joined."""
        n = len(target)
        for i in self.at.get(target[0], ()):
            if self.folded[i:i + n] == target and all(self.joined[i:i + n - 1]):
                yield i

    def run(self, i: int, n: int) -> list[tuple[int, int, str]]:
        return self.spans[i:i + n]


def correct(text: str, glossary: Glossary, threshold: float = DEFAULT_THRESHOLD) -> Correction:
    """Replace known mishearings and close misspellings of the glossary's names in ``text``."""
    if not glossary.terms or not text:
        return Correction(text)
    words = _Words(text)
    scores: dict[tuple[str, str], float] = {}
    candidates: list[_Candidate] = []
    for term in glossary.terms:
        candidates.extend(_name_hits(words, term))
        candidates.extend(_alias_hits(words, term))
        if threshold < 1.0:
            candidates.extend(_fuzzy_hits(words, term, threshold, scores))
    chosen = _non_overlapping(candidates)
    out, pos, reps = [], 0, []
    for c in chosen:
        heard = text[c.start:c.end]
        new = _with_case(heard, c.name)
        if c.kind == "name" or new == heard:  # the name itself: its words are claimed, nothing changes
            continue
        out.append(text[pos:c.start])
        out.append(new)
        pos = c.end
        reps.append(Replacement(heard, new, c.start, c.kind, c.score))
    out.append(text[pos:])
    return Correction("".join(out), tuple(reps))


def _name_hits(words: _Words, term: Term):
    """The name itself, already there: claimed so no other term rewrites part of it."""
    target = [w.casefold() for w in _WORD.findall(term.name)]
    n = len(target)
    for i in words.matches(target):
        run = words.run(i, n)
        if _is_name(words.text, run, term.name):
            yield _Candidate(run[0][0], run[-1][1], i, i + n - 1, term.name, "name", 1.0)


def _alias_hits(words: _Words, term: Term):
    name = [w.casefold() for w in _WORD.findall(term.name)]
    for alias in term.aliases:
        target = [w.casefold() for w in _WORD.findall(alias)]
        n = len(target)
        # where the alias sits inside the name ("damage control" in "damage control board"), a hit
        # that is already part of the whole name must not be replaced again
        inside = [k for k in range(len(name) - n + 1) if name[k:k + n] == target]
        for i in words.matches(target):
            if any(i - k >= 0 and _is_name(words.text, words.run(i - k, len(name)), term.name) for k in inside):
                continue
            run = words.run(i, n)
            yield _Candidate(run[0][0], run[-1][1], i, i + n - 1, term.name, "alias", 1.0)


def _is_name(text: str, run, name: str) -> bool:
    """Do these words spell ``name`` exactly, separators included (any case)?"""
    if not run or len(run) != len(_WORD.findall(name)):
        return False
    return " ".join(text[run[0][0]:run[-1][1]].split()).casefold() == " ".join(name.split()).casefold()


def _fuzzy_hits(words: _Words, term: Term, threshold: float, scores: dict):
    name_key = _norm(term.name)
    name_words = {w.casefold() for w in _WORD.findall(term.name)}
    targets = {_norm(s) for s in (term.name, *term.aliases)}
    # one matcher per spelling: difflib indexes its second sequence once and reuses it
    matchers = [SequenceMatcher(None, "", t, autojunk=False) for t in targets if len(t) >= MIN_FUZZY_LETTERS]
    if len(name_key) < MIN_FUZZY_LETTERS or not matchers:
        return

    def best(heard: str) -> float:
        return max(_cached_score(heard, m, threshold, scores) for m in matchers)

    name_order = [w.casefold() for w in _WORD.findall(term.name)]
    n_name = len(name_order)
    # a one-word name may be heard as two fragments ("Shi von"); a longer name is matched word for
    # word, so a word said between its words ("damage six control") never joins it
    for n in (n_name, n_name + 1) if n_name == 1 else (n_name,):
        pool = words.by_length(n)
        # difflib's ratio is at most 2 * shorter / (sum of lengths): only these lengths can reach it.
        # Rounded outwards: a length whose best ratio is exactly the threshold (0.8 for 4 letters
        # against 6) must not be lost to float error; _cached_score rules out the extra ones exactly.
        # SequenceMatcher keeps its second sequence as .b; typeshed does not declare it
        lengths = {k for m in matchers for k in range(math.floor(len(m.b) * threshold / (2 - threshold)),  # type: ignore[attr-defined]
                                                       math.ceil(len(m.b) * (2 - threshold) / threshold) + 1)}  # type: ignore[attr-defined]
        for length in sorted(lengths):
            if length < MIN_FUZZY_LETTERS - 1:
                continue
            for heard, heard_words in pool.get(length, ()):
                # the name plus an English ending is another word, even when it is close to an
                # alias ("Alexandras" next to the alias "Alexandria"; "damaged controls")
                if heard == name_key or (n == n_name and _inflected(heard_words, name_order)):
                    continue
                if any(w in _COMMON and w not in name_words for w in heard_words):
                    continue  # "the letter queue", "damage the control": ordinary words, not a mishearing
                score = best(heard)
                if score < threshold:
                    continue
                if n > n_name and any(best("".join(part)) >= threshold for part in (heard_words[:-1], heard_words[1:])):
                    continue  # a close match plus a neighbouring word: the shorter run is the match
                for i in words.grams(n)[heard_words]:
                    run = words.run(i, n)
                    yield _Candidate(run[0][0], run[-1][1], i, i + n - 1, term.name, "fuzzy", score)


def _cached_score(heard: str, matcher: SequenceMatcher, threshold: float, scores: dict) -> float:
    target = matcher.b  # type: ignore[attr-defined]  # the matcher's second sequence; typeshed does not declare it
    # ratio = 2 * matches / total length <= 2 * shorter / total: most pairs are ruled out by length
    if 2 * min(len(heard), len(target)) < threshold * (len(heard) + len(target)):
        return 0.0
    key = (heard, target)
    if key not in scores:
        scores[key] = _score(heard, matcher, threshold)
    return scores[key]


_INFLECTIONS = frozenset("s es d ed led ing ling er ers ly ment ments ness ish".split())


def _inflected(heard_words: Sequence[str], name_words: Sequence[str]) -> bool:
    """Is one of the heard words a name word plus an English ending ("damaged controls")?"""
    return any(h != w and h.startswith(w) and h[len(w):] in _INFLECTIONS for h, w in zip(heard_words, name_words))


def _score(heard: str, matcher: SequenceMatcher, threshold: float) -> float:
    """difflib's ratio against the matcher's spelling, or any value under ``threshold`` once it
    is known to be under it."""
    target = matcher.b  # type: ignore[attr-defined]  # the matcher's second sequence; typeshed does not declare it
    # The target plus an English ending ("Owens", "controlled") is another word built on it, not
    # a mishearing: leave it alone (a known one belongs in the aliases).
    if heard.startswith(target) and heard[len(target):] in _INFLECTIONS:
        return 0.0
    matcher.set_seq1(heard)
    quick = matcher.quick_ratio()  # an upper bound from letter counts alone
    return quick if quick < threshold else matcher.ratio()


def _non_overlapping(cands: list[_Candidate]) -> list[_Candidate]:
    """No word is used by two candidates; the better candidate keeps it."""
    taken: set[int] = set()
    chosen: list[_Candidate] = []
    def rank(c: _Candidate):
        words = c.last - c.first
        # names already right, then the longest known alias, then the closest fuzzy match (shortest first)
        if c.kind in ("name", "alias"):
            return (0 if c.kind == "name" else 1, -words, c.start)
        return (2, -c.score, words, c.start)

    order = sorted(cands, key=rank)
    for c in order:
        span = set(range(c.first, c.last + 1))
        if span & taken:
            continue
        taken |= span
        chosen.append(c)
    return sorted(chosen, key=lambda c: c.start)


def _with_case(heard: str, name: str) -> str:
    """A proper noun keeps its own spelling; a lower-case term follows the case of what was heard."""
    if any(ch.isupper() for ch in name):
        return name
    letters = [ch for ch in heard if ch.isalpha()]
    if len(letters) > 1 and all(ch.isupper() for ch in letters):
        return name.upper()
    if heard[:1].isupper():
        return name[:1].upper() + name[1:]
    return name


def _norm(s: str) -> str:
    return "".join(_WORD.findall(s)).casefold()


def _first_line(e: Exception) -> str:
    return str(e).strip().splitlines()[0] if str(e).strip() else e.__class__.__name__
