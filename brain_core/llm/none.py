"""The ``none`` provider: an answer without a model, as sentences lifted from the recalled records,
each cited by key and date (:mod:`brain_core.answer.offline` words it by confidence).

The best hit is always quoted (recall found it by meaning); the next ones only when they share a
word with the question, so a far neighbour is not passed off as an answer.

It invents nothing, so it is also what an answer falls back to when a provider is down. When
nothing was recalled it says so instead of guessing. Corrections from earlier feedback on similar
questions are shown under the answer, the same text an LLM would be given.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Iterable, Sequence

from brain_core.text.sentences import sentences as split_sentences
from brain_core.text.stopwords import ANSWER_STOP

NOTHING_FOUND = "I found nothing in your brain about that, so I have no answer from memory."
_WORD = re.compile(r"[a-z0-9][a-z0-9'_-]*")


@dataclass(frozen=True)
class Extract:
    """The offline answer and the ids of the records it quoted (for the run record and lessons)."""

    text: str
    cited: tuple[str, ...]


def terms(text: str) -> set[str]:
    """Content words, lowercased, with a plural ``s`` dropped: enough to pick a sentence."""
    out = set()
    for w in _WORD.findall(text.lower()):
        if w in ANSWER_STOP or len(w) < 2:
            continue
        out.add(w[:-1] if len(w) > 3 and w.endswith("s") and not w.endswith("ss") else w)
    return out


def best_sentences(question: str, body: str, limit: int = 2, max_chars: int = 320) -> str:
    """The one or two sentences of ``body`` that share most words with ``question``, in body order."""
    sentences = split_sentences(body)
    if not sentences:
        return ""
    q = terms(question)
    scored = [(len(q & terms(s)), -i, i) for i, s in enumerate(sentences)]
    scored.sort(reverse=True)
    chosen = sorted(i for overlap, _, i in scored[:limit] if overlap > 0) or [0]
    text = " ".join(sentences[i] for i in chosen)
    return text if len(text) <= max_chars else text[: max_chars - 1].rstrip() + "…"


def citation(record: object) -> str:
    created = str(getattr(record, "created", "") or "")[:10]
    key = getattr(record, "key", None) or getattr(record, "id", "?")
    return f"[{key}, {created}]" if created else f"[{key}]"


def extract(question: str, hits: Sequence[object], *, corrections: Iterable[str] = (), max_records: int = 3) -> Extract:
    """Build the offline answer from ``hits`` (objects with ``.record``), best first."""
    lines: list[str] = []
    cited: list[str] = []
    q = terms(question)
    for i, hit in enumerate(list(hits)[:max_records]):
        record = getattr(hit, "record", hit)
        body = str(getattr(record, "body", ""))
        sentence = best_sentences(question, body)
        if not sentence or (i and q and not q & terms(body)):
            continue  # below the best hit, a record that shares no word with the question is noise
        lines.append(f"- {sentence} {citation(record)}")
        cited.append(str(getattr(record, "id", "")))
    text = ("From your brain:\n" + "\n".join(lines)) if lines else NOTHING_FOUND
    notes = [c.strip() for c in corrections if c and c.strip()]
    if notes:
        text += "\nEarlier feedback on a similar question: " + " / ".join(notes)
    return Extract(text=text, cited=tuple(cited))


def extractive_answer(question: str, hits: Sequence[object], *, corrections: Iterable[str] = ()) -> str:
    """Just the text of :func:`extract`."""
    return extract(question, hits, corrections=corrections).text
