"""Spoken questions, written as the brain writes them, before recall.

Speech-to-text writes what it hears: "what are the r p o and r t o for the infra", "p n p m",
"cube control", "post gress". The words are then nowhere in the brain, and the question misses
records that the written question finds. :func:`normalise` rewrites, in this order:

1. **spoken forms** from :data:`SPOKEN` ("cube control" -> kubectl, "post gress" -> Postgres,
   "NATO base" -> database), each only when the brain does not itself write the heard words
   together (a brain about NATO bases keeps them);
2. **spelled-out letters**: a run of two or more single letters ("r p o", "I-O-S", "s.s.o.") becomes
   one word, cased as :data:`LETTERS` says or as the brain writes it, else in capitals (RPO); a run
   of two that holds "a" or "i" ("did I a") only when the brain knows the word;
3. **the brain's own words by sound**: a word, or two adjacent words, that no record holds, becomes
   the brain's word that sounds the same (:func:`sound`: a consonant skeleton), when exactly one
   does ("kubernetees" -> Kubernetes).

It is applied to every question ``ask`` answers: spoken ones (push-to-talk, ``aida ptt``) and,
harmlessly, typed ones (a typed question has no letter runs, and its words are in the brain or
sound like none of its words). Without a catalog connection only steps 1 and 2 apply.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from difflib import SequenceMatcher
from typing import Any, Sequence

# heard (lowercase, single spaces) -> written
SPOKEN = {
    "cube control": "kubectl", "cube cuddle": "kubectl", "cube cuttle": "kubectl", "cube ctl": "kubectl",
    "kube control": "kubectl", "kube cuddle": "kubectl", "kube ctl": "kubectl", "cube c t l": "kubectl",
    "post gress": "Postgres", "post grass": "Postgres", "post gres": "Postgres", "post grease": "Postgres",
    "postgres q l": "PostgreSQL", "postgre sequel": "PostgreSQL", "post gray sequel": "PostgreSQL",
    "my sequel": "MySQL", "sequel light": "SQLite", "sequel lite": "SQLite", "s q lite": "SQLite",
    "nato base": "database", "data base": "database",
    "engine x": "nginx", "engine ex": "nginx", "get hub": "GitHub", "git hub": "GitHub", "git lab": "GitLab",
    "pie test": "pytest", "pi test": "pytest", "pie torch": "PyTorch", "num pie": "NumPy",
    "terra form": "Terraform", "type script": "TypeScript", "java script": "JavaScript",
    "open search": "OpenSearch", "graph q l": "GraphQL", "graph ql": "GraphQL", "dev ops": "DevOps",
    "read is": "Redis", "kuber netes": "Kubernetes", "cooper netes": "Kubernetes", "k eights": "k8s",
    "web socket": "websocket", "web sockets": "websockets", "j son": "JSON", "yam l": "YAML",
}
# letters joined -> written (else capitals)
LETTERS = {"ios": "iOS", "pnpm": "pnpm", "npm": "npm", "kubectl": "kubectl", "macos": "macOS", "ipados": "iPadOS",
           "uv": "uv", "k8s": "k8s", "sqs": "SQS"}
_LETTER_RUN = re.compile(r"(?<![\w.-])([A-Za-z])(?:(?:[ .-]|\. ?)([A-Za-z])(?![\w]))+\.?(?![\w-])")
_WORD = re.compile(r"[A-Za-z][A-Za-z0-9]*")
MIN_SOUND_LETTERS = 5
MIN_SPELLING = 0.75  # difflib ratio between the heard word and the brain's


@dataclass(frozen=True)
class Change:
    heard: str
    written: str
    why: str  # "spoken form" | "letters" | "sound"


def normalise(text: str, conn=None) -> str:
    """``text`` with spoken forms, spelled-out letters and sound-alikes written as the brain does."""
    return rewrite(text, conn)[0]


def rewrite(text: str, conn=None) -> tuple[str, list[Change]]:
    """:func:`normalise` and what it changed."""
    brain = _Brain(conn)
    changes: list[Change] = []
    out = _spoken_forms(text or "", brain, changes)
    out = _letters(out, brain, changes)
    out = _by_sound(out, brain, changes)
    return out, changes


def _spoken_forms(text: str, brain: "_Brain", changes: list[Change]) -> str:
    for heard in sorted(SPOKEN, key=len, reverse=True):
        pattern = re.compile(r"(?<![\w])" + r"[ -]+".join(map(re.escape, heard.split())) + r"(?![\w])", re.I)
        m = pattern.search(text)
        if not m or brain.phrase(heard):
            continue
        written = SPOKEN[heard]
        text = pattern.sub(written, text)
        changes.append(Change(m.group(0), written, "spoken form"))
    return text


def _letters(text: str, brain: "_Brain", changes: list[Change]) -> str:
    def joined(m: re.Match) -> str:
        letters = re.findall(r"[A-Za-z]", m.group(0))
        word = "".join(letters).lower()
        if len(letters) == 2 and set(word) & {"a", "i"} and not brain.knows(word) and word not in LETTERS:
            return m.group(0)
        written = LETTERS.get(word) or brain.spelling(word) or word.upper()
        changes.append(Change(m.group(0).strip(), written, "letters"))
        return written + (" " if m.group(0).endswith(" ") else "")
    return _LETTER_RUN.sub(joined, text)


def _by_sound(text: str, brain: "_Brain", changes: list[Change]) -> str:
    if brain.words is None:
        return text
    words = list(_WORD.finditer(text))
    out, last, i = [], 0, 0
    while i < len(words):
        done = False
        for span in (2, 1):
            group = words[i:i + span]
            if len(group) < span:
                continue
            if span == 2 and text[group[0].end():group[1].start()] not in (" ", "-"):
                continue
            heard = " ".join(m.group(0) for m in group)
            joined = "".join(m.group(0) for m in group).lower()
            if len(joined) < MIN_SOUND_LETTERS or any(brain.knows(m.group(0).lower()) for m in group) \
                    or any(m.group(0).lower() in _COMMON for m in group):
                continue
            found = brain.sounds_like(joined)
            if found:
                out.append(text[last:group[0].start()] + found)
                last = group[-1].end()
                changes.append(Change(heard, found, "sound"))
                i += span
                done = True
                break
        if not done:
            i += 1
    out.append(text[last:])
    return "".join(out)


def sound(word: str) -> str:
    """A consonant skeleton that spellings of one sound share: "postgress" and "Postgres" ->
    "pstkrs", "kubernetees" and "Kubernetes" -> "kprnts"."""
    w = word.lower()
    for a, b in (("ph", "f"), ("ck", "k"), ("qu", "k"), ("x", "ks"), ("sch", "sk"), ("ch", "k"), ("sh", "s"),
                 ("th", "t"), ("wh", "w"), ("gh", "g"), ("kn", "n")):
        w = w.replace(a, b)
    w = re.sub(r"[^a-z]", "", w)
    w = w.translate(str.maketrans("cqgjzdbv", "kkkkstpf"))
    head, rest = w[:1], re.sub(r"[aeiouyhw]", "", w[1:])
    if head in "aeiouyhw":
        head = "a" if head else ""
    return re.sub(r"(.)\1+", r"\1", head + rest)


class _Brain:
    """What the catalog says about a word (memoised; nothing without a connection)."""

    def __init__(self, conn) -> None:
        from brain_core.recall.backends import of

        # None without a connection, or on a backend that keeps no cheap lookups (the server's catalog)
        self.words: Any = of(conn).words(conn) if conn is not None else None
        self._memo: dict[tuple, object] = {}
        self._terms_by_letter: dict[str, list[str]] = {}

    def _q(self, key: tuple, fn, default):
        if self.words is None:
            return default
        if key not in self._memo:
            try:
                self._memo[key] = fn()
            except Exception:  # an index being rebuilt: no rewriting from it
                self._memo[key] = default
        return self._memo[key]

    def knows(self, word: str) -> bool:
        return bool(self._q(("knows", word), lambda: self.words.holds(word), False))

    def phrase(self, words: str) -> bool:
        return bool(self._q(("phrase", words), lambda: self.words.holds(words), False))

    def spelling(self, word: str, stem: bool = False) -> str | None:
        """How the brain writes ``word`` ("ios" -> "iOS"; with ``stem``, the index's stem "kubernet"
        -> "Kubernetes"), when a record's text holds it."""
        def look():
            found = self.words.bodies(word, 1, body_only=False)
            tail = r"\w*" if stem else ""
            m = re.search(rf"(?i)(?<!\w){re.escape(word)}{tail}(?!\w)", found[0]) if found else None
            return m.group(0) if m else None
        return self._q(("spelling", word, stem), look, None)

    def sounds_like(self, joined: str) -> str | None:
        """The one word of the brain that sounds like ``joined`` (as the brain writes it), or None."""
        def look():
            key = sound(joined)
            # the index keeps stems ("kubernet" of Kubernetes): a stem's sound may lack the end of the word's
            same = {t for t in self._vocabulary(joined)
                    if sound(t) == key or (len(sound(t)) >= 4 and key.startswith(sound(t)) and len(key) - len(sound(t)) <= 1)}
            if len(same) != 1:
                return None
            term = same.pop()
            written = self.spelling(term, stem=True) or term
            # and close in spelling: a sound key alone makes "watch" of "webhook"
            return written if SequenceMatcher(None, joined, written.lower()).ratio() >= MIN_SPELLING else None
        return self._q(("sound", joined), look, None)

    def _vocabulary(self, joined: str) -> list[str]:
        """The catalog's words (the full-text index's vocabulary: stems) that may sound like
        ``joined``: of a similar length, starting with a letter that sounds like its first. Read by
        ranges of the vocabulary, so a big brain is not read whole."""
        first = joined[:1]
        letters = next((g for g in _SAME_SOUND if first in g), first)
        out: list[str] = []
        for letter in letters:
            if letter not in self._terms_by_letter:
                self._terms_by_letter[letter] = [t for t in self.words.terms(letter, MIN_SOUND_LETTERS - 1, VOCAB_CAP)
                                                 if t.isalpha()]
            out += [t for t in self._terms_by_letter[letter] if abs(len(t) - len(joined)) <= 3]
        return out


_SAME_SOUND = ("ckq", "sz", "dt", "bp", "fv", "gj", "aeiouy")
VOCAB_CAP = 50_000  # words read per first letter


def _common() -> frozenset[str]:
    from brain_core.recall.confidence import IGNORED
    from brain_core.text.stopwords import COMMON_WORDS

    return IGNORED | COMMON_WORDS


_COMMON = _common()  # never rewritten by sound: "my most" is not "must"


def words_changed(changes: Sequence[Change]) -> str:
    return ", ".join(f"{c.heard!r} -> {c.written}" for c in changes)
