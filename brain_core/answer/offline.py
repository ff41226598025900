"""The offline answer, worded by confidence: what the brain knows, what is only close, or that it
has nothing, and what it tried.

- ``strong`` hits: the sentence(s) of each that answer the question, with key, date and origin
  ("from a Codex session on 2026-04-20") when an agent or a meeting wrote it, and "unchecked: read
  offline" when the offline distiller did;
- only ``weak`` hits: "The closest I have is ...", the one closest record, marked as such;
- nothing: "I have nothing about <topic> in your brain (searched: <words tried>)": an empty search
  says what it searched for, so the user can tell a gap in the brain from a bad question.
"""

from __future__ import annotations

import re
from typing import Any, Iterable, Sequence

from brain_core.llm.none import Extract, best_sentences, citation, terms
from brain_core.marks import OFFLINE_TAG
from brain_core.recall.confidence import IGNORED, STRONG, WEAK, content_words
from brain_core.recall.coverage import near_miss_text
from brain_core.recall.recency import header as recency_header
from brain_core.records import origin as source_origin

_TOPIC_WORD = re.compile(r"[\w][\w'.-]*[\w]|\w", re.UNICODE)


def origin(record) -> str:
    """Where a record came from, in words, when not from the user directly (else "")."""
    return source_origin(str(getattr(record, "source", "") or ""), str(getattr(record, "created", "") or ""))


def topic(question: str) -> str:
    """The question's content words as the user wrote them ("the Postgres 16 migration" ->
    "Postgres 16 migration"); "that" when it has none."""
    words = [w for w in _TOPIC_WORD.findall(question or "") if w.lower() not in IGNORED and len(w) > 1]
    return " ".join(words[:8]) or "that"


def searched(question: str) -> str:
    words = content_words(question)
    return ", ".join(words) + ", and by meaning" if words else "by meaning only"


def _line(question: str, hit, superseded: str = "") -> str:
    record = getattr(hit, "record", hit)
    sentence = best_sentences(question, str(getattr(record, "body", "")))
    unchecked = "unchecked: read offline" if OFFLINE_TAG in (getattr(record, "tags", None) or ()) else ""
    where = "; ".join(filter(None, [origin(record), unchecked, superseded]))
    others = [o for o in (_also(a) for a in getattr(hit, "also", None) or ()) if o]
    if others:
        where = "; ".join(filter(None, [where, "also " + ", ".join(dict.fromkeys(others))]))
    return f"{sentence} {citation(record)}" + (f" ({where})" if where else "")


def _also(entry: dict) -> str:
    """A folded near-duplicate's source in words: where it came from, or its key and date."""
    return source_origin(str(entry.get("source") or ""), str(entry.get("created") or "")) or f"{entry.get('profile') or 'me'}/{entry.get('key')} ({str(entry.get('created') or '')[:10]})"


def compose(question: str, hits: Sequence[Any], *, corrections: Iterable[str] = (), left_out: Sequence[str] = (),
            max_records: int = 3, newest: bool = False) -> Extract:
    """The offline answer from ``hits`` (best first, each with a ``confidence``); ``newest``: they
    are newest first (a recency question), and the answer names the newest one's date."""
    strong = [h for h in hits if getattr(h, "confidence", STRONG) == STRONG]
    weak = [h for h in hits if getattr(h, "confidence", None) == WEAK]
    cited: list[str] = []
    if strong:
        from brain_core.brain.conflicts import answer_notes

        q = terms(question)
        disagree, superseded = answer_notes(strong[:max_records])  # the standing record comes first
        lines = []
        for i, hit in enumerate(strong[:max_records]):
            body = str(getattr(hit.record, "body", ""))
            if i and q and not q & terms(body) and getattr(hit, "path", None) not in superseded:
                continue  # below the best, a record that shares no word with the question is noise
            path = getattr(hit, "path", None)
            lines.append(f"- {_line(question, hit, superseded.get(path, '') if path is not None else '')}")
            cited.append(str(hit.record.id))
        text = (recency_header(strong) if newest else "From your brain:") + "\n" \
            + "".join(f"{d}\n" for d in disagree) + "\n".join(lines)
    elif weak:
        line = _line(question, weak[0])
        text = near_miss_text(question, weak[0], line) or \
            f"I have nothing that answers that directly. The closest I have is: {line}"
        cited.append(str(weak[0].record.id))
    else:
        text = f"I have nothing about {topic(question)} in your brain (searched: {searched(question)})."
    if left_out:
        text += f"\nLeft out, as you marked it not helpful for this question: {', '.join(left_out)}."
    notes = [c.strip() for c in corrections if c and c.strip()]
    if notes:
        text += "\nEarlier feedback on a similar question: " + " / ".join(notes)
    return Extract(text=text, cited=tuple(cited))
