"""Hybrid recall: bm25 over FTS5 and KNN over sqlite-vec, fused (normalised scores, or weighted
reciprocal ranks), lifted by matches from the same source and by a date the question names, then
lowered by decay. ``explain`` keeps every stage's rank and score for each hit.

The fusion weights and decay live in the settings (``recall.*``) so a user can see and change
them; the defaults were chosen on half of LoCoMo and checked on the other half
(benchmarks/locomo.py, docs/RECALL.md).
"""

from __future__ import annotations

import json
import re
import time
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from brain_core.errors import BrainError, InvalidInput
from brain_core.recall.confidence import assess
from brain_core.recall.kinds import wanted, with_kind
from brain_core.recall.places import (
    asks,
    givers,
    sources_and_texts,
    with_neighbours,
    with_questions,
    with_source_context,
)
from brain_core.records import Record

# English function words plus question words: a question's function words only add noise to bm25.
from brain_core.text.stopwords import (
    STOPWORDS,  # noqa: E402,F401 - recall's stop words, kept here by name
)

_WORD = re.compile(r"\w+", re.UNICODE)
DEFAULT_SHELVES = ("memories", "events", "knowledge")
RECENT_MIN_SIMILARITY = 0.4  # cosine; below this a vector neighbour is not "about" the question


@dataclass
class Hit:
    record: Record
    path: str
    score: float
    explain: dict[str, Any] | None = None
    stale: bool = False
    also: list[dict[str, Any]] = field(default_factory=list)  # near-duplicates folded in (dedupe.collapse_hits)
    confidence: str | None = None  # strong | weak | none (brain_core.recall.confidence)
    evidence: Any = None
    disagrees: list[dict[str, Any]] = field(default_factory=list)  # records that say otherwise (conflicts.mark_hits)

    def to_json(self, depth: str = "full") -> dict[str, Any]:
        """The hit as JSON. ``depth="abstract"``: a long record's body is its abstract (about 100
        tokens) and ``"depth": "abstract"`` says so; ``"full"``: the whole body."""
        r = self.record
        short = depth == "abstract" and bool(r.abstract)
        out: dict[str, Any] = {"id": r.id, "key": r.key, "type": r.type, "profile": r.profile, "tags": r.tags,
               "body": r.abstract if short else r.body,
               "path": self.path, "created": r.created, "score": round(self.score, 6), "source": r.source}
        if depth == "abstract":
            out["depth"] = "abstract" if short else "full"
        if r.expires:
            out["expires"] = r.expires
            out["stale"] = self.stale
        if self.explain is not None:
            out["explain"] = self.explain
        if self.also:
            out["also"] = self.also
        if self.disagrees:
            out["disagrees"] = self.disagrees
        if self.confidence is not None:
            out["confidence"] = self.confidence
        return out


@dataclass(frozen=True)
class RecallParams:
    fusion: str = "score"        # "score" (normalised scores) or "rrf" (reciprocal ranks)
    bm25_weight: float = 1.0
    vector_weight: float = 0.5
    rrf_k: int = 60
    source_weight: float = 0.3   # lift from other matches with the same source (0: off)
    neighbour_weight: float = 0.2  # lift for the records written next to a match in its source (0: off)
    answer_weight: float = 0.5   # lift for the record right after a match that asks, its answer (0: off)
    question_weight: float = 0.7  # what a record that asks (ends in "?") counts (1: as much as any other)
    candidates: int = 200          # matches each stage passes to fusion (a recall of k: at least 4 k)
    half_life_days: float = 180.0
    decay_floor: float = 0.6
    key_weight: float = 1.0      # bm25 weight of the key column (the body weighs 1)
    tags_weight: float = 0.5     # bm25 weight of the tags column
    date_boost: float = 1.0      # lift for records made on a date the question names (0: off)
    kind_boost: float = 0.4      # lift for records holding the kind of answer asked for: a time, a number (0: off)
    use_lift: float = 0.1        # the most that uses (cited, opened, copied, thumbs-up) lift a record

    @classmethod
    def from_config(cls, config) -> "RecallParams":
        c = config.get("recall", {}) if config is not None else {}
        if not isinstance(c, dict):
            raise BrainError("The setting `recall` must be a section of keys (recall.vector_weight: 0.5 ...); "
                             "fix the settings file.")
        kw: dict[str, Any] = {}
        for f in cls.__dataclass_fields__:
            if c.get(f) is None:
                continue
            kind = type(getattr(cls, f))
            try:
                kw[f] = kind(c[f]) if kind is str else _number(kind, c[f])
            except (TypeError, ValueError):
                raise BrainError(f"The setting recall.{f} = {c[f]!r} is not a finite {kind.__name__}; "
                                 "fix the settings file.") from None
        if kw.get("fusion", "score") not in ("score", "rrf"):
            raise BrainError(f"The setting recall.fusion = {kw['fusion']!r} is not 'score' or 'rrf'; fix the settings file.")
        return cls(**kw)


def _number(kind: type, value: Any) -> float | int:
    if isinstance(value, bool) or not isinstance(value, (int, float, str)):
        raise TypeError(value)
    number = float(value)
    if not np.isfinite(number) or abs(number) > 1e9:
        raise ValueError(value)
    return kind(number)


def fts_query(text: str) -> str | None:
    """The user's words as a safe FTS5 query: each word quoted, stopwords dropped, OR-ed.

    Only word characters survive, so quotes, ``-``, ``:``, ``*``, parentheses and bare
    ``AND``/``NOT`` can never be read as FTS5 syntax."""
    words = [w.lower() for w in _WORD.findall(text)]
    content = [w for w in words if w not in STOPWORDS]
    chosen = content or words
    seen: list[str] = []
    for w in chosen:
        if w not in seen:
            seen.append(w)
    if not seen:
        return None
    return " OR ".join(f'"{w}"' for w in seen[:32])


def decay_factor(now: float, created_ts: float, last_used: float | None, uses: int, params: RecallParams) -> float:
    """Age times use: ``age_factor`` (1.0 fresh, falling with age since creation to ``decay_floor``)
    times ``1 + use_lift(...)``. A use is a sign the record helped (cited, opened, copied,
    thumbs-up), never that it was shown; its lift is at most ``params.use_lift`` (10%), so a record
    used a thousand times never outranks a match more than that much better."""
    return age_factor(now, created_ts, params) * (1.0 + use_lift(now, last_used, uses, params))


def age_factor(now: float, created_ts: float, params: RecallParams) -> float:
    """1.0 for a fresh record, halving its distance to ``decay_floor`` every ``half_life_days``.
    Never 0: stale is lower, not gone."""
    if not created_ts or created_ts <= 0:
        return 1.0
    age_days = max(0.0, (now - created_ts) / 86400.0)
    fresh = 0.5 ** (age_days / params.half_life_days) if params.half_life_days > 0 else 1.0
    return params.decay_floor + (1 - params.decay_floor) * fresh


def use_lift(now: float, last_used: float | None, uses: int, params: RecallParams) -> float:
    """Between 0 and ``params.use_lift``: each use halves the distance to the bound, and the lift
    fades with the time since the last use (``half_life_days``)."""
    if params.use_lift <= 0 or not uses or not last_used:
        return 0.0
    since = max(0.0, (now - last_used) / 86400.0)
    fade = 0.5 ** (since / params.half_life_days) if params.half_life_days > 0 else 1.0
    return params.use_lift * (1 - 0.5 ** min(int(uses), 30)) * fade


@dataclass
class Candidates:
    """What each stage found for one question: rowid -> {"bm25": (rank, score), "vector": (rank, cosine)}."""

    stages: dict[int, dict[str, Any]]
    fts: str | None
    dates: list
    ms: dict[str, float]
    # rowid -> (source, body) of candidates a stage already read (the server's stages return them
    # with their matches: one round trip fewer), so the lifts after fusion look up only the others
    known: dict[int, tuple[Any, Any]] = field(default_factory=dict)
    # (records holding each word of the question, the highest rowid) as the server's keyword stage
    # counted or estimated them, for the confidence check; None: it counts for itself
    counts: tuple[dict[str, float], int] | None = None


def gather(index, query: str, **kwargs) -> Candidates:
    """Run the keyword and the vector stage on ``index``'s backend (:func:`brain_core.recall.sqlite.gather`,
    :func:`brain_core.recall.postgres.gather`); a stage whose weight is 0 is not run."""
    from brain_core.recall.backends import statements

    return statements(index.backend).gather(index, query, **kwargs)


def fuse(stages: dict[int, dict[str, Any]], params: RecallParams) -> dict[int, float]:
    """One score per candidate from the two stages, by ``params.fusion``:

    - ``"score"``: bm25_weight * bm25 / best bm25 + vector_weight * cosine scaled to [0, 1] over the
      candidates (the best 1, the worst 0). Scores keep how much better the first match is than the
      tenth, which ranks throw away.
    - ``"rrf"``: weighted reciprocal-rank fusion, each stage adding weight / (rrf_k + rank).
    A candidate a stage did not return gets nothing from it."""
    fused: dict[int, float] = {}
    if params.fusion == "rrf":
        for rowid, st in stages.items():
            s = 0.0
            if "bm25" in st:
                s += params.bm25_weight / (params.rrf_k + st["bm25"][0])
            if "vector" in st:
                s += params.vector_weight / (params.rrf_k + st["vector"][0])
            fused[rowid] = s
        return fused
    bm = [st["bm25"][1] for st in stages.values() if "bm25" in st]
    vs = [st["vector"][1] for st in stages.values() if "vector" in st]
    top = max(bm) if bm and max(bm) > 0 else 1.0
    lo, hi = (min(vs), max(vs)) if vs else (0.0, 1.0)
    for rowid, st in stages.items():
        s = 0.0
        if "bm25" in st:
            s += params.bm25_weight * max(st["bm25"][1], 0.0) / top
        if "vector" in st:
            s += params.vector_weight * ((st["vector"][1] - lo) / (hi - lo) if hi > lo else 1.0)
        fused[rowid] = s
    return fused


def adjust(fused: float, created_ts: float, dates: list, decay: float, params: RecallParams) -> tuple[float, bool]:
    """The fused score lowered by decay and lifted when the record was made on a date the question names."""
    dated = bool(dates) and any(d.contains(created_ts) for d in dates)
    return fused * decay * (1 + params.date_boost if dated else 1.0), dated


def shortlist(fused: dict[int, float], k: int, dated: bool) -> list[int]:
    """The best fused candidates that go on to decay and the date lift (more when a date is named:
    a record made that day may sit below the usual cut)."""
    return sorted(fused, key=fused.__getitem__, reverse=True)[: max(k * 8, 80) if dated else max(k * 4, 40)]


def rescore(pool: list[int], fused: dict[int, float], meta: dict[int, tuple], dates: list, params: RecallParams,
            now: float) -> list[tuple[float, int, float, int, bool]]:
    """(score, rowid, decay, uses, dated) best first; ``meta`` maps rowid -> (created_ts, uses, last_used)."""
    scored = []
    for rowid in pool:
        if rowid not in meta:
            continue
        created_ts, uses, last = meta[rowid]
        decay = decay_factor(now, created_ts, last, uses, params)
        score, dated = adjust(fused[rowid], created_ts, dates, decay, params)
        scored.append((score, rowid, decay, uses, dated))
    scored.sort(key=lambda x: x[0], reverse=True)
    return scored


def recall(index, usage, query: str, *, k: int = 5, profile: str | None = None, type: str | None = None,
           tag: str | None = None, recent: bool = False, explain: bool = False, shelves=None,
           params: RecallParams | None = None, query_vector: np.ndarray | None = None,
           touch: bool = False, now: float | None = None) -> list[Hit]:
    """The best ``k`` records for ``query``. ``touch`` counts the returned hits as used: off by
    default, since being shown is not being used (:meth:`Brain.mark_used` records real uses)."""
    params = params or RecallParams()
    now = now or time.time()
    shelves = tuple(shelves or (("lessons",) if type == "lesson" else DEFAULT_SHELVES))
    n = max(params.candidates, k * 4)
    backend = index.backend
    from brain_core.recall.backends import statements

    # the two stages, the filters and the neighbours are the backend's statements; everything else is shared
    sql = statements(backend)
    where_of, stages_of, near_of = sql.filters, sql.gather, sql.neighbours
    # recency mode needs the keyword matches to know what the question is about, whatever the weights
    cand = stages_of(index, query, profile=profile, type=type, tag=tag, shelves=shelves, params=params,
                     query_vector=query_vector, n=n, bm25=recent or params.bm25_weight > 0,
                     vectors=params.vector_weight > 0)
    stages, fq = cand.stages, cand.fts
    conn = index.conn()
    if not stages and not recent:
        return []
    if recent:
        where, wargs = where_of(profile, type, tag, shelves)
        return _recent(conn, usage, stages, where, wargs, k, explain, touch, now, params, bool(fq), query)

    fused = fuse(stages, params)
    near: dict[int, float] = {}
    asked: set[int] = set()
    holders: set[int] = set()
    kind = wanted(query) if params.kind_boost > 0 else None
    if params.source_weight > 0 or params.neighbour_weight > 0 or params.answer_weight > 0 or \
            params.question_weight != 1 or kind is not None:
        where, wargs = where_of(profile, type, tag, shelves)
        fused, near, asked, holders = _lifts(conn, fused, params, near_of, where, wargs, kind, cand.known)
    pool = shortlist(fused, k, bool(cand.dates))
    docs = _load(conn, pool)
    use = usage.get([docs[r]["path"] for r in pool if r in docs])
    scored = rescore(pool, fused, {r: (d["created_ts"], *use.get(d["path"], (0, None))) for r, d in docs.items()},
                     cand.dates, params, now)
    hits = []
    scored = [s for s in scored if s[0] > 0]  # a score of 0 matched nothing: never padding
    for score, rowid, decay, uses, dated in scored[:k]:
        d = docs[rowid]
        st = stages.get(rowid, {})
        ex = None
        if explain:
            ex = {"bm25": _stage(st.get("bm25")), "vector": _stage(st.get("vector")), "fused": fused[rowid],
                  "neighbours": round(near.get(rowid, 0.0), 4), "asks": rowid in asked,
                  "kind": rowid in holders,
                  "decay": round(decay, 4), "uses": uses, "path": d["path"], "fts_query": fq,
                  "dated": dated, "ms": cand.ms}
            if backend != "sqlite":
                ex["backend"] = backend
        hits.append(_hit(d, score, ex, now))
    assess(conn, query, hits, [s[1] for s in scored[:k]], [stages.get(s[1], {}) for s in scored[:k]], counts=cand.counts)
    if touch:
        usage.bump([h.path for h in hits], now, why="recalled")
    return hits


def _lifts(conn, fused: dict[int, float], params: RecallParams, near_of, where: str, wargs: list, kind,
           known: dict[int, tuple[Any, Any]] | None = None
           ) -> tuple[dict[int, float], dict[int, float], set[int], set[int]]:
    """The lifts after fusion: neighbours and answers of the best matches (``places``), the records
    that ask lowered, the source context, then the records that hold the kind of answer the
    question asks for (``kinds``). Returns (scores, each record's lift from its neighbours or
    question, the records that ask, the records holding the kind asked for). ``known``: rowid ->
    (source, body) that the stages already read."""
    questions = params.answer_weight > 0 or params.question_weight != 1
    bodies = questions or kind is not None
    known = dict(known or {})

    def read(rowids: list[int]) -> tuple[dict[int, Any], dict[int, str]]:
        """Sources and bodies: what a stage already read, the rest from the catalog."""
        src, text = sources_and_texts(conn, [r for r in rowids if r not in known], bodies)
        for r in rowids:
            if r in known:
                src[r] = known[r][0]
                if bodies:
                    text[r] = known[r][1]
        return src, text

    src, text = read(list(fused))
    asked = {r for r, body in text.items() if asks(body)} if questions else set()
    lifted = fused
    if params.neighbour_weight > 0 or params.answer_weight > 0:
        top = givers(fused, src)
        around = near_of(conn, top, where, wargs, known=known) if params.neighbour_weight > 0 else {}
        ask = [g for g in top if g in asked]
        answers = near_of(conn, ask, where, wargs, span=1, sides=("after",), known=known) \
            if ask and params.answer_weight > 0 else {}
        lifted = with_neighbours(fused, around, params.neighbour_weight, answers, params.answer_weight)
        more_src, more = read([r for r in lifted if r not in fused])
        src.update(more_src)
        text.update(more)
        asked |= {r for r, body in more.items() if questions and asks(body)}
    near = {r: f - fused.get(r, 0.0) for r, f in lifted.items() if f != fused.get(r, 0.0)}
    placed = with_source_context(with_questions(lifted, asked, params.question_weight), src, params)
    scores, holders = with_kind(placed, text, kind, params.kind_boost)
    return scores, near, asked, holders


def _recent(conn, usage, stages, where, wargs, k, explain, touch, now, params, has_words, query="") -> list[Hit]:
    """Newest first among the records about the rest of the question (all records when it has no
    topic words; :mod:`brain_core.recall.recency`).
    Records created in the same second (``created`` has seconds) come in the order they were
    written, which their ids keep to the millisecond."""
    from brain_core.recall.recency import pool as topic_pool
    from brain_core.recall.recency import topic, topic_words

    words = topic_words(query)  # the topic: the question less "newest", "last" ...
    if has_words and words and stages:
        # about the topic (a relevance floor, brain_core.recall.recency), then newest first
        docs = _load(conn, topic_pool(conn, stages, words, RECENT_MIN_SIMILARITY))
        order = sorted(docs.values(), key=lambda d: (d["created_ts"], d["id"] or "", d["path"]), reverse=True)[:k]
    else:
        from brain_core.recall.backends import of

        newest = of(conn).newest(conn, where, wargs, k)
        docs = _load(conn, newest)
        order = [docs[r] for r in newest if r in docs]
    hits = []
    for i, d in enumerate(order, 1):
        ex = None
        if explain:
            st = stages.get(d["rowid"], {})
            ex = {"mode": "recency", "rank": i, "bm25": _stage(st.get("bm25")), "vector": _stage(st.get("vector")),
                  "created": d["created"], "path": d["path"]}
        hits.append(_hit(d, 1.0 / i, ex, now))
    assess(conn, topic(query), hits, [d["rowid"] for d in order], [stages.get(d["rowid"], {}) for d in order], recent=True)
    if touch:
        usage.bump([h.path for h in hits], now, why="recalled")
    return hits


def _stage(v) -> dict | None:
    return None if v is None else {"rank": v[0], "score": round(float(v[1]), 4)}


_COLS = ("path", "shelf", "id", "key", "type", "profile", "tags", "body", "source", "created", "created_ts", "expires")


def _load(conn, rowids: list[int]) -> dict[int, dict]:
    """rowid -> the record's columns a hit is made of."""
    from brain_core.recall.backends import of

    out: dict[int, dict] = {}
    for row in of(conn).rows(conn, rowids, _COLS):
        d = dict(zip(("rowid", *_COLS), row))
        out[d["rowid"]] = d
    return out


def _hit(d: dict, score: float, explain: dict | None, now: float) -> Hit:
    from brain_core.records import parse_time

    rec = Record(id=d["id"], type=d["type"], key=d["key"], profile=d["profile"], body=d["body"],
                 tags=json.loads(d["tags"] or "[]"), source=d["source"] or "", created=d["created"] or "",
                 expires=d["expires"])
    stale = False
    if d["expires"]:
        exp = parse_time(d["expires"])
        stale = bool(exp and exp.timestamp() < now)
    return Hit(record=rec, path=d["path"], score=score, explain=explain, stale=stale)


MAX_K = 10_000  # more than any answer reads; SQLite's LIMIT cannot take an unbounded int


def check_query(query: Any, k: Any) -> None:
    """What every recall (live or ``--as-of``) refuses before it looks: a query that is not text, a k below 1."""
    if not isinstance(query, str):
        raise InvalidInput("The query must be text.")
    if k < 1:
        raise InvalidInput("-k must be at least 1.")
    if k > MAX_K:
        raise InvalidInput(f"-k must be at most {MAX_K}; ask for fewer results.")
