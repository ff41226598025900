"""A meeting's attendees as glossary names: "--attendees Siobhan,Tomasz" fixes "Shivon" and "Thomas".

An attendee's name is a hotword for that meeting and a term of its correction pass. Spelling
distance alone does not connect "Shivon" to "Siobhan" (the letters differ too much), so an
attendee also claims the capitalised words of the transcript that *sound* like it: the same
Soundex code (first letter and consonant classes, the way English spellings of one sound
differ) and a similar length. Only capitalised words that are not common English are
considered, and only for the names the user gave for this meeting, so ordinary words are left
alone.
"""

from __future__ import annotations

import re
from typing import Iterable, Sequence

_CODES = {c: str(d) for d, letters in enumerate(("", "bfpv", "cgjkqsxz", "dt", "l", "mn", "r"), 0) for c in letters}
_CAPITALISED = re.compile(r"\b[A-Z][a-z]{2,}\b")


def soundex(word: str) -> str:
    """The classic four-character Soundex code ("Siobhan" and "Shivon" are both S150)."""
    letters = [c for c in word.casefold() if c.isalpha()]
    if not letters:
        return ""
    out, last = [letters[0].upper()], _CODES.get(letters[0], "")
    for c in letters[1:]:
        code = _CODES.get(c, "")
        if code and code != last:
            out.append(code)
        if c not in "hw":  # h and w do not separate two consonants of one class
            last = code
    return ("".join(out) + "000")[:4]


def attendee_glossary(glossary, attendees: Sequence[str], text: str):
    """``glossary`` plus each attendee as a term, with the words of ``text`` that sound like them
    as aliases."""
    from brain_core.text.stopwords import COMMON_WORDS
    from brain_core.voice.glossary import Glossary, Term

    known = {t.name.casefold(): t for t in glossary.terms}
    heard = set(_CAPITALISED.findall(text))
    terms = list(glossary.terms)
    for person in _names(attendees):
        code = soundex(person)
        alike = tuple(sorted(w for w in heard if w != person and w.casefold() not in COMMON_WORDS
                             and soundex(w) == code and abs(len(w) - len(person)) <= 3))
        term = known.get(person.casefold())
        if term is None:
            terms.append(Term(person, alike))
        elif alike:
            terms[terms.index(term)] = Term(term.name, tuple(dict.fromkeys((*term.aliases, *alike))))
    return Glossary(tuple(terms))


def _names(attendees: Iterable[str]) -> list[str]:
    """Attendees as written by the user, each once ("Siobhan Kelly" counts as its first name too)."""
    out: list[str] = []
    for a in attendees:
        a = " ".join(str(a).split())
        for n in (a, a.split(" ")[0]) if " " in a else (a,):
            if n and n not in out:
                out.append(n)
    return out
