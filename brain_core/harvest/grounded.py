"""Whether a model's record names only what its session says.

A model that distills a transcript paraphrases, which is its job; what it must not do is put a name
there that nobody said: a file, a flag, a function, a version, a person or a product where the
transcript says "the CI runner". :func:`unsaid` lists the names in a record's body that the text the
model was given never contains. A name is a word with the shape of one: inline code, a path or a file
name, a flag, an identifier (``snake_case``, ``camelCase``, ``a.b``), a number of two digits or more,
or a capitalised word inside a sentence, or at its start when what follows shows it acting ("Dana
pushes", "Dana's", "Dana and Lee"; "Despite" or "Keep" there is an ordinary word). Common words and
short acronyms ("the CLI", "a PR") are not names. The test is lenient on form and strict on content:
case, punctuation and separators are ignored ("GoGit" is said by "go-git"), and a name whose every part is said as a word passes; a short
name must be said as a word ("Dana" is not said by "standard analysis").

:func:`mark` puts what a model's record names unsaid in its ``extra`` (``unsaid``); the write path
then holds the record in ``quarantine/`` (:mod:`brain_core.brain.quarantine`) instead of serving it,
where ``aida brain quarantine accept`` lets a person keep it.
"""

from __future__ import annotations

import re

from brain_core.marks import UNSAID
from brain_core.text.stopwords import COMMON_WORDS, FUNCTION_WORDS

_CODE = re.compile(r"`([^`\n]+)`")
_TOKEN = re.compile(r"(?<![\w])(?:\d{1,3}(?:,\d{3})+(?!\d)|(?:--?)?[A-Za-z0-9_@~][\w.\-/@~+#:]*)")
_THOUSANDS = re.compile(r"(?<=\d),(?=\d{3}(?!\d))")
_ROUGHLY = re.compile(r"(?:\b(?:about|around|roughly|nearly|approximately|almost|over|under|some)|~)\s*\Z", re.I)
_ABBREVIATIONS = frozenset({"e.g", "i.e", "etc", "vs", "a.k.a", "cf", "n.b"})
_SLOTS = re.compile(r"^v?[A-Z](?:\.[A-Z])+$|(?<![A-Za-z])(?:x{3,}|X{3,}|N{3,})(?![A-Za-z])")  # vX.Y.Z, AP-xxx: a shape
_SENTENCE_START = re.compile(r"(?:\A|[.!?:(\[\"'\n]|\n\s*[-*]|\A\s*[-*])\s*\Z")
_PLACEHOLDER = re.compile(r"<[^<>`]*>|\{[^{}`]*\}")
_PARTS = re.compile(r"[A-Z]?[a-z]+|[A-Z]+(?![a-z])|\d+")
_HYPHENED = re.compile(r"[A-Za-z]+(?:-[A-Za-z]+)+")
_ALNUM = re.compile(r"[^a-z0-9]+")
AGENTS = "Aida Claude Code Codex CLI Gemini CLI"  # the agents whose sessions are read: said by being read
# capitalised in a sentence without being a name the session must say
_COMMON = FUNCTION_WORDS | COMMON_WORDS | frozenset(
    "i'm i've i'll monday tuesday wednesday thursday friday saturday sunday january february march april may june "
    "july august september october november december when where while if because since so then however instead "
    "none true false null "  # a language's literals ("may be None")
    "windows mac macos linux".split())  # the machine's system: its paths show it more often than a turn names it


def _norm(text: str) -> str:
    return _ALNUM.sub("", text.lower())


class Said:
    """The text a model was given, ready to be asked about many names."""

    def __init__(self, text: str) -> None:
        self.flat = _norm(text)
        words = re.findall(r"[a-z0-9]+", text.lower())
        self.words = set(words)
        self.words |= {a + b for a, b in zip(words, words[1:])}  # "go git" says GoGit
        self.words |= {a + b + c for a, b, c in zip(words, words[1:], words[2:])}
        self.words |= {p.lower() for p in _PARTS.findall(text)}  # MINGW64_NT says MINGW
        plain = _THOUSANDS.sub("", text)  # 42,042 is 42042
        self.numbers = set(re.findall(r"\d+", plain))
        self.values = [float(v) for v in re.findall(r"\d+(?:\.\d+)?", plain)]

    def _word(self, w: str) -> bool:
        return w in self.words or w + "s" in self.words or (w.endswith("s") and w[:-1] in self.words) \
            or (w.endswith("es") and w[:-2] in self.words)  # a plural, either way

    def says(self, name: str, *, roughly: bool = False) -> bool:
        number = _THOUSANDS.sub("", name)
        if number.isdigit():
            if roughly:  # "about 75 MB" for 74.70 MB: within a tenth
                return any(abs(v - int(number)) <= 0.1 * int(number) for v in self.values)
            return number in self.numbers  # a count, a port, a year: exactly
        if re.fullmatch(r"[vV]\d[\d.]*", name):
            name = name[1:]  # v2.11.4 is said by "version 2.11.4"
        name = re.sub(r"^\$?HOME(?=/)", "~", name)  # $HOME/.bun/bin is said by "~/.bun/bin"
        flat = _norm(name)
        if not flat or self._word(flat):
            return True
        if (len(flat) >= 8 or not name.isalpha()) and flat in self.flat:
            return True  # said with other separators ("src app.py"); a short word must be said as one
        parts = [p for p in _PARTS.findall(name) if len(p) >= 3]
        if _HYPHENED.fullmatch(name):
            parts = [p for p in parts if not p.islower()]  # "Manager-held": the name is "Manager"
            if not parts:
                return True  # "DB-loaded": no name in it
        return bool(parts) and all(self._word(p.lower()) for p in parts)  # every part said: "MSYS2/MINGW64"


def names(body: str) -> list[str]:
    """The words of ``body`` that have the shape of a name (see the module's doc), in order, once each."""
    return list(dict.fromkeys(t for t, _ in _names(body)))


def _names(body: str) -> list[tuple[str, bool]]:
    """(name, whether the body gives it as a round figure: "about 75 MB")."""
    out: list[tuple[str, bool]] = []
    for m in _CODE.finditer(body):
        code = _PLACEHOLDER.sub(" ", m.group(1))  # `bd dep add <child> <blocker>`: a slot, not a name
        toks = (t.rstrip(".:,;-/+#") for t in _TOKEN.findall(code))
        out += [(t, False) for t in toks if len(_norm(t)) >= 2 and not _SLOTS.search(t)]
    prose = _CODE.sub(" ", body)
    for m in _TOKEN.finditer(prose):
        tok = m.group(0).rstrip(".:,;-/+#")
        before = prose[:m.start()]
        if tok and _is_name(tok, at_start=bool(_SENTENCE_START.search(before)), after=prose[m.start() + len(tok):]):
            out.append((tok, bool(_ROUGHLY.search(before))))
    return out


# What follows a sentence's first word when that word is someone or something acting: "Dana's",
# "Dana and Lee", "Dana pushes", "Dana said". An ordinary first word ("Despite", "Keep", "Several
# tests", "Installer output") is followed by none of these, so it is not taken for a name. A word
# that looks plural ("Deploys", "Builds") is a name only before a verb that takes one subject.
_ONE_ACTS = re.compile(
    r"(?:'s|\u2019s)\b|\s+(?:and|&) [A-Z][a-z]+\b|\s+(?:is|was|has|does|says|wants|prefers|owns|asks|decides|agrees"
    r"|likes|thinks|tells|writes|reviews|approves|handles|manages|maintains|runs|pushes|merges|deploys|needs"
    r"|uses|leads|works|sets|signs|rotates|builds|releases|publishes|checks|requires|chooses|picks|insists"
    r"|confirms|reports)\b")
_ANY_ACTS = re.compile(
    r"\s+(?:will|would|should|must|can|did|had|said|wanted|preferred|owned|asked|decided|agreed|liked|thought"
    r"|told|wrote|reviewed|approved|handled|managed|maintained|ran|pushed|merged|deployed|needed|used|led"
    r"|worked|signed|rotated|built|released|published|checked|required|chose|picked|insisted|confirmed"
    r"|reported)\b")
_PLURAL = re.compile(r"[^su]s$")


def _acts(word: str, after: str) -> bool:
    """Whether ``word``, a capitalised word that starts a sentence, acts in what follows (see _ONE_ACTS)."""
    return word.isalpha() and bool(_ONE_ACTS.match(after) or (not _PLURAL.search(word) and _ANY_ACTS.match(after)))


def _is_name(tok: str, *, at_start: bool, after: str = "") -> bool:
    core = tok.lstrip("-")
    if _SLOTS.search(core) or core.lower() in _ABBREVIATIONS:
        return False
    if tok.startswith("-") and len(core) >= 2:
        return True  # a flag
    if any(c in core for c in "_/@~#") or re.search(r"\w\.\w", core):
        return True  # an identifier, a path, a file name, a dotted name
    if re.search(r"\d", core):
        return not core.isdigit() or len(core) >= 2  # a version, a port, a count, 42,000; a single digit is not
    if core.lower() in _COMMON:
        return False
    if re.search(r"[a-z][A-Z]|[A-Z]{2,}[a-z]", core):
        return True  # camelCase, GitHub, ASTNode
    if core.isupper():
        return len(core) > 5  # "CLI", "JSON", "HTTPS": generic; a long one names something
    if core[0].isupper():
        return not at_start or _acts(core, after)
    return False


def unsaid(body: str, said: Said | str) -> list[str]:
    """The names in ``body`` that ``said`` (the text the model was given) never says."""
    said = said if isinstance(said, Said) else Said(said)
    return list(dict.fromkeys(n for n, roughly in _names(body) if not said.says(n, roughly=roughly)))


def mark(records: list[dict], text: str) -> list[dict]:
    """``records`` (a model's, from ``text``: what it was given) with the names each one's body says
    and ``text`` does not under ``extra["unsaid"]``; the others as they are."""
    said = Said(AGENTS + "\n" + text)
    for rec in records:
        miss = unsaid(rec["body"], said)
        if miss:
            rec["extra"] = {**(rec.get("extra") or {}), UNSAID: miss[:8]}
    return records
