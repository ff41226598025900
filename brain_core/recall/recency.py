"""Recency within the topic: "what's the newest release of the mobile app?" is the newest record
*about releases of the mobile app*, not the newest record that shares one word with it.

- The question's topic is its content words less the words that ask for recency (``newest``,
  ``latest``, ``last`` ...): "the newest release of the mobile app" -> release, mobile, app.
- A **relevance floor** first: among what recall's stages found, the records whose share of the
  topic's (rarity-weighted) words is at least ``FLOOR`` of the best share, and the records with
  none of its words that are as close in meaning as those (a paraphrase: "shipping builds" for
  "deploys"); when no record holds a topic word, those close in meaning (cosine >=
  ``recall.RECENT_MIN_SIMILARITY``), else the five closest. Then **newest first**. A record that
  shares a word or two with the question but not its topic ("the mobile app's feature freeze" for
  "the newest release of the mobile app") stays out, however new.
- A question with no topic words ("what did I save last?") is answered newest-first from every record.

The offline answer names the date of the newest record (:func:`header`).
"""

from __future__ import annotations

import re
from typing import Any, Sequence

from brain_core.recall.confidence import content_words, word_stats

RECENCY_WORDS = frozenset("last latest newest recent recently lately most".split())
FLOOR = 0.8  # a record must hold this share of the best record's topic words
_WORD = re.compile(r"\w+", re.UNICODE)


def topic(question: str) -> str:
    """The question without the words that ask for recency ("the newest release of the mobile
    app" -> "the release of the mobile app")."""
    return " ".join(w for w in _WORD.findall(question or "") if w.lower() not in RECENCY_WORDS)


def topic_words(question: str) -> list[str]:
    return content_words(topic(question))


def pool(conn, stages: dict[int, dict[str, Any]], words: Sequence[str], min_similarity: float) -> list[int]:
    """The candidates about the topic (see the module docstring), in no order."""
    rowids = list(stages)
    if not rowids:
        return []
    weights, where = word_stats(conn, list(words), rowids)
    total = sum(weights.values())
    share = {r: sum(weights[w] for w in words if r in where.get(w, ())) / total if total else 0.0 for r in rowids}
    best = max(share.values(), default=0.0)
    if best > 0:
        about = [r for r in rowids if share[r] >= FLOOR * best]
        # a record with none of the words joins when it is as close in meaning as those that have them
        cos = [stages[r]["vector"][1] for r in about if "vector" in stages[r]]
        least = max(min_similarity, min(cos)) if cos else min_similarity
        return about + [r for r in rowids if share[r] == 0 and stages[r].get("vector", (0, -1.0))[1] >= least]
    near = [r for r, st in stages.items() if st.get("vector", (0, 0.0))[1] >= min_similarity]
    return near or [r for r, st in stages.items() if st.get("vector", (10**9,))[0] <= 5]


def header(hits: Sequence[Any]) -> str:
    """"The newest in your brain is from 2026-06-10:" (the first hit's date), for an answer newest first."""
    date = str(getattr(getattr(hits[0], "record", None), "created", "") or "")[:10] if hits else ""
    return f"The newest in your brain is from {date}:" if date else "From your brain, newest first:"
