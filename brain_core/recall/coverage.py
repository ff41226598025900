"""Coverage of the asked fact, not only the topic.

A record can share a question's topic and still not hold what it asks: "who is the QA lead for the
docs editor?" against "Siobhan is the QA lead for the mobile app"; "the tech lead" against the QA
lead; the internal API's rate limit against the public one's; a node count against a version.
Words and meaning (:mod:`brain_core.recall.confidence`) call such a record strong; this module finds what
the question asks for that the record lacks, and the answer then says so.

What a question asks for, and must find in the record:

- **the slot**: a role or an attribute it names (``SLOTS``: lead, owner, version, limit, nodes ...);
  a version is also held by a version number;
- **a modifier**: of two adjacent words ("tech lead", "internal API"), the record has the second
  but not the first, and another record writes the two together: this one speaks of another
  lead, another API;
- **an entity**: a project or a person as the brain itself names them, whatever the question's
  case: two adjacent words that at least two records write together ("docs editor", "mobile
  app"), a word that is a tag, or a word the brain writes with a capital inside a sentence
  ("siobhan" -> Siobhan).

Only the question's own words are looked up, a few capped queries, and only for the hits that
are strong or weak. On the PostgreSQL catalog the brain's vocabulary is not consulted (the
slot and modifier rules still apply with what the stages matched).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Callable, Sequence

from brain_core.recall.confidence import IGNORED, content_words
from brain_core.recall.kinds import TIME

_TOKEN = re.compile(r"\w+", re.UNICODE)
_NUMBERED = re.compile(r"\b\d+(?:\.\d+)*\b|\bv\d")
# the roles and attributes a question asks for precisely; value: what else in a record holds one
SLOTS: dict[str, re.Pattern | None] = {w: None for w in """
lead leads owner owners own owns manager maintainer maintainers contact admin reviewer reviewers approver
approvers designer limit limits quota quotas nodes node count timeout port price cost budget deadline
region retention capacity
""".split()}
SLOTS.update({"version": _NUMBERED, "versions": _NUMBERED, "time": TIME, "date": TIME, "day": TIME})
SAMPLE = 20  # records read to see how the brain writes a word


@dataclass(frozen=True)
class Token:
    word: str      # lowercased
    text: str      # as the question wrote it
    pos: int       # position among the question's words (single letters and "'s" skipped)
    start: int = 0  # where it stands in the question
    end: int = 0


def tokens(question: str) -> list[Token]:
    """The question's content words with their place, so that adjacency can be told."""
    out: list[Token] = []
    keep = set(content_words(question, limit=64))
    pos = 0
    for m in _TOKEN.finditer(question or ""):
        w = m.group(0).lower()
        if len(w) < 2 and not w.isdigit():
            continue  # "API's" -> api (the s does not break "internal API's rate")
        if w in keep and w not in IGNORED:
            out.append(Token(w, m.group(0), pos, m.start(), m.end()))
        pos += 1
    return out


def pairs(toks: Sequence[Token]) -> list[tuple[Token, Token]]:
    """Adjacent content words: (modifier, head) as English writes a noun phrase."""
    return [(a, b) for a, b in zip(toks, toks[1:]) if b.pos == a.pos + 1 and a.word != b.word]


class Vocabulary:
    """The brain's own names, looked up word by word (memoised for one question)."""

    def __init__(self, conn) -> None:
        from brain_core.recall.backends import of

        self.words = of(conn).words(conn)  # None: the backend keeps no cheap lookups (the server's catalog)
        self._memo: dict[tuple, bool] = {}

    def _once(self, key: tuple, fn: Callable[[], bool]) -> bool:
        if key not in self._memo:
            try:
                self._memo[key] = bool(fn())
            except Exception:  # an index being rebuilt, an odd word: no vocabulary, no demotion
                self._memo[key] = False
        return self._memo[key]

    def known(self, word: str) -> bool:
        """Some record holds the word."""
        words = self.words
        if words is None:
            return False
        return self._once(("known", word), lambda: words.holds(word))

    def phrase(self, a: str, b: str, least: int = 2) -> bool:
        """At least ``least`` records write the two words together ("docs editor")."""
        words = self.words
        if words is None:
            return False
        return self._once(("phrase", a, b, least), lambda: words.holding(f"{a} {b}", least) >= least)

    def name(self, word: str) -> bool:
        """A tag, or a word the brain writes with a capital inside a sentence (a person, a
        product) in at least half the records that hold it ("Time Machine" does not make "time"
        a name)."""
        words = self.words
        if words is None or word.isdigit():
            return False

        def look() -> bool:
            if words.tagged(word):
                return True
            return written_as_name(word, words.bodies(word, SAMPLE))
        return self._once(("name", word), look)


def written_as_name(word: str, bodies: Sequence[str]) -> bool:
    """The brain never writes ``word`` in lowercase, and writes it with a capital on its own at
    least once ("Siobhan", "OpenSearch"; not "Time" of "Time Machine" or "Code" of "VS Code")."""
    alone = False
    for body in bodies:
        for m in re.finditer(rf"(?i)(?<!\w){re.escape(word)}(?!\w)", body):
            form = m.group(0)
            if form[0].islower():
                return False
            before = body[:m.start()].rstrip().split(" ")[-1:] or [""]
            nxt = re.match(r"(?:['’]s)?\s+(\S+)", body[m.end():])
            after = nxt.group(1) if nxt else ""
            if not (before[0][:1].isupper() and not before[0].endswith(".")) and not after[:1].isupper():
                alone = True
    return alone


def missing(question: str, has: Callable[[str], bool], body: str, vocab: Vocabulary) -> list[str]:
    """The phrases of ``question`` (as written) that a record lacks though the question asks for
    them; ``has(word)``: the record holds the word (by the index's stemmer), ``body``: its text."""
    toks = tokens(question)
    plain = has

    def holds(word: str) -> bool:  # the record holds the word, or what its slot asks for
        alt = SLOTS.get(word)
        return plain(word) or (alt is not None and bool(alt.search(body)))

    out: list[str] = []
    seen: set[str] = set()

    def add(phrase: str, *words: str) -> None:
        if phrase.lower() not in seen:
            out.append(phrase)
            seen.add(phrase.lower())
            seen.update(words)

    ps = pairs(toks)
    for t in toks:  # the slot
        if t.word not in SLOTS or holds(t.word):
            continue
        mod = next((a for a, b in ps if b is t and not holds(a.word) and vocab.phrase(a.word, b.word, least=1)), None)
        add(f"{mod.text} {t.text}" if mod else t.text, t.word, *((mod.word,) if mod else ()))
    for a, b in ps:  # a modifier the record lacks, or an entity of two words
        if a.word in seen or b.word in seen:
            continue
        if holds(b.word) and not holds(a.word) and vocab.phrase(a.word, b.word, least=1):
            add(f"{a.text} {b.text}", a.word, b.word)
        elif not (holds(a.word) and holds(b.word)) and vocab.phrase(a.word, b.word):
            add(f"{a.text} {b.text}", a.word, b.word)
    for t in toks:  # an entity of one word
        if t.word not in seen and not holds(t.word) and vocab.name(t.word):
            add(t.text, t.word)
    return out


def check(conn, question: str, hits: Sequence[Any], rowids: Sequence[int], where: dict[str, set[int]],
          demote: Callable[[Any, tuple[str, ...]], None]) -> None:
    """For each hit judged strong or weak, what the question asks that it lacks; ``demote(hit,
    missing)`` is called for those that lack something (a weak hit stays weak, and the answer can
    say what it lacks). ``where``: the rowids among ``rowids`` holding each
    content word (:func:`brain_core.recall.confidence.word_stats`)."""
    vocab = Vocabulary(conn)
    for hit, rowid in zip(hits, rowids):
        if getattr(hit, "confidence", None) not in ("strong", "weak"):
            continue
        body = str(getattr(hit.record, "body", "") or "")

        def has(w: str, r: int = rowid) -> bool:
            return r in where.get(w, ())

        lacks = missing(question, has, body, vocab)
        if lacks:
            demote(hit, tuple(lacks))


def near_miss_text(question: str, hit, line: str) -> str | None:
    """"I know about QA lead, but nothing about docs editor ..." for a hit demoted by :func:`check`,
    or None when it was not."""
    ev = getattr(hit, "evidence", None)
    lacks = tuple(getattr(ev, "missing", ()) or ())
    if not lacks:
        return None
    gone = {w for p in lacks for w in p.lower().split()}
    matched = set(getattr(ev, "matched", ()) or ())
    runs: list[list[str]] = []
    last = -2
    for t in tokens(question):
        if t.word in gone or t.word not in matched:
            last = -2
            continue
        if t.pos == last + 1 and runs:
            runs[-1].append(t.text)
        else:
            runs.append([t.text])
        last = t.pos
    have = ", ".join(" ".join(r) for r in runs)
    lack = " or ".join(lacks)
    asked = _asked(question, gone | matched)
    if have and asked:
        head = f"I know about {have}, but not {lack}: nothing about {asked} in your brain."
    elif have:
        head = f"I know about {have}, but nothing about {lack} in your brain."
    else:
        head = f"I have nothing about {asked or lack} in your brain."
    return f"{head} The closest I have is: {line}"


_NOUN_PHRASE_GLUE = frozenset("for of the a an in on at with to s".split())


def _asked(question: str, words: set[str]) -> str | None:
    """The question's words from the first to the last of ``words``, when they read as one noun
    phrase ("QA lead for the docs editor"); None when a verb stands between ("nodes does the
    search cluster")."""
    toks = [t for t in tokens(question) if t.word in words]
    if not toks:
        return None
    span = question[toks[0].start:toks[-1].end]
    inside = {t.word for t in toks}
    if all(w.lower() in inside or w.lower() in _NOUN_PHRASE_GLUE for w in _TOKEN.findall(span)):
        return span
    return None
