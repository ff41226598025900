"""Absolute relevance: is this record about the question, whatever else was found?

Recall's fused score ranks candidates against each other (each stage is scaled to its best
candidate), so the top of nothing looks like a match. This module gives every hit a
``confidence`` of ``strong``, ``weak`` or ``none`` from evidence that does not depend on the
other candidates:

- **words**: the question's content words (not stopwords, not the words people use to ask about
  their memory such as "decide", "remember", "what") that the record contains, each weighted by
  how rare it is in the brain (a word no record has weighs most: the brain does not know it);
  matched by the index's own stemmer, so "deploys" matches "deploy";
- **meaning**: the raw cosine between the question's and the record's embeddings, against
  thresholds calibrated for the bundled model (all-MiniLM-L6-v2, int8);
- **agreement**: both stages found the record.

The thresholds were chosen on the development half of ``benchmarks/answers_set.py`` and checked on
its held-out half (``benchmarks/bench_answers.py`` prints both).
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from typing import Any, Sequence

from brain_core.recall import backends
from brain_core.text.stopwords import FUNCTION_WORDS

STRONG, WEAK, NONE = "strong", "weak", "none"
LEVELS = (STRONG, WEAK, NONE)
RANK = {STRONG: 2, WEAK: 1, NONE: 0}

# Calibrated for all-MiniLM-L6-v2 (int8) on the labelled set; see the module docstring.
COSINE_STRONG = 0.55       # close in meaning ...
COSINE_WITH_WORDS = 0.35   # fairly close in meaning, and the record has most of the question's words
COVERAGE_STRONG = 0.65     # share of the question's (rarity-weighted) content words the record has
COVERAGE_WITH_MEANING = 0.45  # ... with at least this share of the question's words
COSINE_WEAK = 0.35         # below this a record is not even "the closest"
COVERAGE_WEAK = 0.30

_WORD = re.compile(r"\w+", re.UNICODE)
# Function words, and the words of asking about one's own memory: they match records by accident
# ("what did I decide" matches every decision).
IGNORED = FUNCTION_WORDS | frozenset("""
whats what's
tell told know knew remember remembered recall recalled say said says note noted notes save saved mention
mentioned decide decided decision decisions choose chose chosen choice pick picked agree agreed think thought
please aida again thing things stuff something anything use used using uses go went get got need needs needed
want like usually normally always currently now today anymore kind sort way ask asked talk talked discuss
discussed wrote write written brain memory memories record records info information happen happens
prefer prefers preferred preference preferences new
""".split())


@dataclass(frozen=True)
class Evidence:
    """What a confidence was judged on (kept in ``Hit.evidence`` for ``--explain`` and the answer's
    "searched:" line)."""

    words: tuple[str, ...]      # the question's content words, in order
    matched: tuple[str, ...]    # those the record contains
    coverage: float             # rarity-weighted share of ``words`` matched (0..1)
    cosine: float | None        # raw cosine to the question (None: the vector stage did not see it)
    agree: bool                 # both stages found it
    missing: tuple[str, ...] = ()  # what the question asks that the record lacks (brain_core.recall.coverage)

    def to_json(self) -> dict[str, Any]:
        out = {"words": list(self.words), "matched": list(self.matched), "coverage": round(self.coverage, 3),
               "cosine": None if self.cosine is None else round(self.cosine, 4), "agree": self.agree}
        if self.missing:
            out["missing"] = list(self.missing)
        return out


def content_words(text: str, limit: int = 12) -> list[str]:
    """The question's words that can say what it is about, lowercased, in order, without repeats."""
    out: list[str] = []
    for w in _WORD.findall((text or "").lower()):
        if w in IGNORED or w in out or (len(w) < 2 and not w.isdigit()):
            continue
        out.append(w)
    return out[:limit]


_NAME = re.compile(r"(?<=\s)[A-Z][a-z]+[A-Za-z]*\b|\b\w*\d\w*\b")


def names(text: str) -> list[str]:
    """The things a question names: capitalised words inside it ("Porto", "GraphQL"; not
    acronyms such as "UI", not its first word) and words with a digit ("16", "Q4"), lowercased."""
    out = []
    for m in _NAME.finditer(text or ""):
        w = m.group(0).lower()
        if w not in IGNORED and w not in out:
            out.append(w)
    return out


def judge(cosine: float | None, coverage: float, agree: bool, has_words: bool = True) -> str:
    """The confidence from the evidence alone (pure: the calibration script calls it too)."""
    c = -1.0 if cosine is None else cosine
    if not has_words:  # nothing to match on: meaning alone decides
        return STRONG if c >= COSINE_STRONG else WEAK if c >= COSINE_WEAK else NONE
    if c >= COSINE_STRONG and coverage >= COVERAGE_WITH_MEANING:
        return STRONG
    if coverage >= COVERAGE_STRONG and agree and c >= COSINE_WITH_WORDS:
        return STRONG
    if (c >= COSINE_WEAK and coverage > 0) or coverage >= COVERAGE_WEAK or c >= COSINE_STRONG:
        return WEAK
    return NONE


DF_CAP = 500  # counting stops here: a word in 500 records weighs little either way


def word_stats(conn, words: Sequence[str], rowids: Sequence[int], counts: tuple[dict[str, float], int] | None = None
               ) -> tuple[dict[str, float], dict[str, set[int]]]:
    """``(weight by word, matching rowids among rowids by word)``, through the index's own stemmer:
    per word a capped count (its rarity) and one seek per candidate, so a common word costs no more
    than a rare one in a big brain. ``counts``: (records holding each word, the highest rowid) as the
    server's keyword stage found them (brain_core.recall.postgres.keyword_terms), so they are not counted
    again. The counts are the backend's (``word_counts``); the weights are worked out here."""
    weights: dict[str, float] = {}
    where: dict[str, set[int]] = {}
    if not words:
        return weights, where
    total, df, where = backends.of(conn).word_counts(conn, words, rowids, DF_CAP, counts)
    for w, n in df.items():
        weights[w] = math.log(1 + (total + 1) / (n + 0.5))
    return weights, where


def on_postgres(conn) -> bool:
    """Is this the PostgreSQL catalog's connection (brain_core.catalog.postgres) rather than SQLite's?
    A :class:`~brain_core.catalog.postgres.index.PgConn` says so in its ``backend``, as the catalog
    does; a SQLite connection is the driver's own class, which carries none."""
    return getattr(conn, "backend", "sqlite") == "postgres"


def matching(conn, fts: str, rowids: Sequence[int], filled: bool = False) -> set[int]:
    """The rowids among ``rowids`` whose text matches ``fts`` (an FTS5 query on SQLite; one word,
    quoted, maybe with a prefix ``*``, on the PostgreSQL catalog). ``filled``: the candidates' text is
    already in SQLite's temporary table for these rowids (:func:`brain_core.recall.sqlite.matching`)."""
    return backends.of(conn).matching(conn, fts, rowids, filled=filled)


def fill_candidates(conn, rowids: Sequence[int]) -> None:
    """Make the candidates' text ready for :func:`matching` (SQLite's temporary table; nothing on the server)."""
    backends.of(conn).fill_candidates(conn, rowids)


def assess(conn, query: str, hits: Sequence[Any], rowids: Sequence[int], stages: Sequence[dict],
           recent: bool = False, counts: tuple[dict[str, float], int] | None = None) -> None:
    """Set ``confidence`` and ``evidence`` on each hit (``stages[i]`` is what recall's stages found for
    ``rowids[i]``: ``{"bm25": (rank, score), "vector": (rank, cosine)}``). Newest-first recall of a
    question with no content words ("my latest notes") is answered by any record: all strong.
    ``counts``: the words' counts the keyword stage already has (:func:`word_stats`)."""
    words = content_words(query)
    if recent and not words:
        for hit in hits:
            hit.evidence, hit.confidence = Evidence((), (), 0.0, None, False), STRONG
        return
    weights, where = word_stats(conn, words, list(rowids), counts)
    total = sum(weights.values())
    named = [w for w in names(query) if w in weights]
    # a prefix: "Postgres" is mentioned by "PostgreSQL"
    mentions = {w: matching(conn, f'"{w}"*', rowids, filled=True) for w in named}
    for hit, rowid, st in zip(hits, rowids, stages):
        matched = tuple(w for w in words if rowid in where.get(w, ()))
        coverage = sum(weights[w] for w in matched) / total if total else 0.0
        vec = st.get("vector")
        cosine = float(vec[1]) if vec else None
        ev = Evidence(tuple(words), matched, coverage, cosine, "bm25" in st and vec is not None)
        hit.evidence = ev
        hit.confidence = judge(cosine, coverage, ev.agree, bool(words))
        if hit.confidence == STRONG and any(rowid not in mentions[w] for w in named):
            hit.confidence = WEAK  # the question names something this record does not mention
    asked_fact(conn, query, hits, rowids, where)


def asked_fact(conn, query: str, hits: Sequence[Any], rowids: Sequence[int], where: dict[str, set[int]]) -> None:
    """A strong hit that lacks what the question asks for (its slot, a modifier, an entity the brain
    names: :mod:`brain_core.recall.coverage`) is only the closest; ``evidence.missing`` says what it lacks."""
    from dataclasses import replace

    from brain_core.recall.coverage import check

    def demote(hit, lacks: tuple[str, ...]) -> None:
        hit.confidence = WEAK
        hit.evidence = replace(hit.evidence, missing=lacks)
        if isinstance(getattr(hit, "explain", None), dict):
            hit.explain["missing"] = list(lacks)  # shown by --explain

    check(conn, query, hits, rowids, where, demote)


def best(hits: Sequence[Any], level: str = STRONG) -> list[Any]:
    """The hits at ``level`` or above, in their order (hits without a confidence count as strong:
    they come from a recall that does not judge, such as a test double)."""
    floor = RANK[level]
    return [h for h in hits if RANK.get(getattr(h, "confidence", None) or STRONG, 2) >= floor]
