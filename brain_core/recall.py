"""Hybrid recall: bm25 over FTS5 and KNN over sqlite-vec, fused by weighted reciprocal rank,
then lowered by decay. ``explain`` keeps every stage's rank and score for each hit.

The fusion weights and decay live in the settings (``recall.*``) so a user can see and change
them; the defaults were chosen on LoCoMo (benchmarks/locomo.py, README "Recall quality").
"""

from __future__ import annotations

import json

import re
import time
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .records import Record

# English stopwords plus question words: a question's function words only add noise to bm25.
STOPWORDS = frozenset("""
a about above after again against all am an and any are as at be because been before being below between both
but by can could did do does doing down during each few for from further had has have having he her here hers
herself him himself his how i if in into is it its itself just me more most my myself no nor not now of off on
once only or other our ours ourselves out over own same she should so some such than that the their theirs them
themselves then there these they this those through to too under until up very was we were what when where which
while who whom why will with would you your yours yourself yourselves s t don didn doesn isn wasn weren won
ve ll re d m o y also ever tell know remember say said
""".split())
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

    def to_json(self) -> dict[str, Any]:
        r = self.record
        out = {"id": r.id, "key": r.key, "type": r.type, "profile": r.profile, "tags": r.tags, "body": r.body,
               "path": self.path, "created": r.created, "score": round(self.score, 6), "source": r.source}
        if r.expires:
            out["expires"] = r.expires
            out["stale"] = self.stale
        if self.explain is not None:
            out["explain"] = self.explain
        return out


@dataclass(frozen=True)
class RecallParams:
    bm25_weight: float = 1.0
    vector_weight: float = 0.5
    rrf_k: int = 60
    candidates: int = 100
    half_life_days: float = 180.0
    decay_floor: float = 0.6

    @classmethod
    def from_config(cls, config) -> "RecallParams":
        c = config.get("recall", {}) if config is not None else {}
        kw = {f: type(getattr(cls, f))(c[f]) for f in cls.__dataclass_fields__ if f in c and c[f] is not None}
        return cls(**kw)


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
    """1.0 for a fresh or often-used record, falling with age since creation or last use to
    ``decay_floor``; each use halves the remaining distance to 1. Never 0: stale is lower, not gone."""
    ref = max(created_ts or 0.0, last_used or 0.0)
    if ref <= 0:
        return 1.0
    age_days = max(0.0, (now - ref) / 86400.0)
    fresh = 0.5 ** (age_days / params.half_life_days) if params.half_life_days > 0 else 1.0
    fresh = 1 - (1 - fresh) * (0.5 ** min(uses, 20))
    return params.decay_floor + (1 - params.decay_floor) * fresh


def _filters(profile, type_, tag, shelves, alias: str = "d") -> tuple[str, list]:
    clauses, args = [], []
    clauses.append(f"{alias}.shelf IN ({','.join('?' * len(shelves))})")
    args += list(shelves)
    if profile:
        clauses.append(f"{alias}.profile = ?")
        args.append(profile)
    if type_:
        clauses.append(f"{alias}.type = ?")
        args.append(type_)
    if tag:
        clauses.append(f"EXISTS (SELECT 1 FROM json_each({alias}.tags) WHERE value = ?)")
        args.append(tag)
    return " AND ".join(clauses), args


def recall(index, usage, query: str, *, k: int = 5, profile: str | None = None, type: str | None = None,
           tag: str | None = None, recent: bool = False, explain: bool = False, shelves=None,
           params: RecallParams | None = None, query_vector: np.ndarray | None = None,
           touch: bool = True, now: float | None = None) -> list[Hit]:
    params = params or RecallParams()
    now = now or time.time()
    shelves = tuple(shelves or (("lessons",) if type == "lesson" else DEFAULT_SHELVES))
    conn = index.conn()
    t0 = time.perf_counter()
    where, wargs = _filters(profile, type, tag, shelves)
    n = max(params.candidates, k * 4)
    stages: dict[int, dict[str, Any]] = {}

    fq = fts_query(query)
    if fq:
        rows = conn.execute(
            f"SELECT f.rowid, bm25(docs_fts, 1.0, 1.0, 0.5) AS s FROM docs_fts f JOIN docs d ON d.rowid = f.rowid "
            f"WHERE docs_fts MATCH ? AND {where} ORDER BY s LIMIT ?", [fq, *wargs, n]).fetchall()
        for rank, (rowid, s) in enumerate(rows, 1):
            stages.setdefault(rowid, {})["bm25"] = (rank, -s)
    t_bm25 = time.perf_counter()

    has_words = bool(_WORD.search(query))
    if has_words and params.vector_weight > 0:
        vec = query_vector if query_vector is not None else index.embedder.embed([query])[0]
        vclauses, vargs = ["embedding MATCH ?", "k = ?"], [np.asarray(vec, dtype=np.float32).tobytes()]
        filtered = bool(profile or type or tag)
        vargs.append(n * 4 if filtered else n)
        if len(shelves) == 1:
            vclauses.append("shelf = ?")
            vargs.append(shelves[0])
        elif "lessons" not in shelves:
            vclauses.append("shelf != 'lessons'")
        if profile:
            vclauses.append("profile = ?")
            vargs.append(profile)
        if type:
            vclauses.append("type = ?")
            vargs.append(type)
        rows = conn.execute(f"SELECT rowid, distance FROM docs_vec WHERE {' AND '.join(vclauses)} ORDER BY distance",
                            vargs).fetchall()
        if tag or len(shelves) not in (1, len(DEFAULT_SHELVES)):
            keep = _rowids_matching(conn, [r for r, _ in rows], where, wargs)
            rows = [r for r in rows if r[0] in keep]
        for rank, (rowid, dist) in enumerate(rows[:n], 1):
            stages.setdefault(rowid, {})["vector"] = (rank, 1.0 - dist)
    t_vec = time.perf_counter()

    if not stages and not recent:
        return []
    if recent:
        return _recent(conn, usage, stages, where, wargs, k, explain, touch, now, params, bool(fq))

    fused: dict[int, float] = {}
    for rowid, st in stages.items():
        s = 0.0
        if "bm25" in st:
            s += params.bm25_weight / (params.rrf_k + st["bm25"][0])
        if "vector" in st:
            s += params.vector_weight / (params.rrf_k + st["vector"][0])
        fused[rowid] = s
    pool = sorted(fused, key=fused.get, reverse=True)[: max(k * 4, 40)]
    docs = _load(conn, pool)
    use = usage.get([docs[r]["path"] for r in pool if r in docs])
    scored = []
    for rowid in pool:
        d = docs.get(rowid)
        if d is None:
            continue
        uses, last = use.get(d["path"], (0, None))
        decay = decay_factor(now, d["created_ts"], last, uses, params)
        scored.append((fused[rowid] * decay, rowid, decay, uses))
    scored.sort(key=lambda x: x[0], reverse=True)
    hits = []
    for score, rowid, decay, uses in scored[:k]:
        d = docs[rowid]
        st = stages[rowid]
        ex = None
        if explain:
            ex = {"bm25": _stage(st.get("bm25")), "vector": _stage(st.get("vector")), "fused": fused[rowid],
                  "decay": round(decay, 4), "uses": uses, "path": d["path"], "fts_query": fq,
                  "ms": {"bm25": round((t_bm25 - t0) * 1000, 2), "vector": round((t_vec - t_bm25) * 1000, 2)}}
        hits.append(_hit(d, score, ex, now))
    if touch:
        usage.bump([h.path for h in hits], now)
    return hits


def _recent(conn, usage, stages, where, wargs, k, explain, touch, now, params, has_words) -> list[Hit]:
    """Newest first among what matches the rest of the question (all records when nothing does)."""
    if has_words and stages:
        # "matches": a word match, or close in meaning; else the few closest by meaning.
        pool = [r for r, st in stages.items() if "bm25" in st or st.get("vector", (0, 0.0))[1] >= RECENT_MIN_SIMILARITY]
        if not pool:
            pool = [r for r, st in stages.items() if st.get("vector", (10**9,))[0] <= 5]
        docs = _load(conn, pool)
        order = sorted(docs.values(), key=lambda d: (d["created_ts"], d["path"]), reverse=True)[:k]
    else:
        rows = conn.execute(f"SELECT d.rowid FROM docs d WHERE {where} ORDER BY d.created_ts DESC, d.path DESC LIMIT ?",
                            [*wargs, k]).fetchall()
        docs = _load(conn, [r for (r,) in rows])
        order = [docs[r] for (r,) in rows if r in docs]
    hits = []
    for i, d in enumerate(order, 1):
        ex = None
        if explain:
            st = stages.get(d["rowid"], {})
            ex = {"mode": "recency", "rank": i, "bm25": _stage(st.get("bm25")), "vector": _stage(st.get("vector")),
                  "created": d["created"], "path": d["path"]}
        hits.append(_hit(d, 1.0 / i, ex, now))
    if touch:
        usage.bump([h.path for h in hits], now)
    return hits


def _stage(v) -> dict | None:
    return None if v is None else {"rank": v[0], "score": round(float(v[1]), 4)}


def _rowids_matching(conn, rowids: list[int], where: str, wargs: list) -> set[int]:
    if not rowids:
        return set()
    out: set[int] = set()
    for start in range(0, len(rowids), 500):
        chunk = rowids[start:start + 500]
        q = f"SELECT d.rowid FROM docs d WHERE d.rowid IN ({','.join('?' * len(chunk))}) AND {where}"
        out |= {r for (r,) in conn.execute(q, [*chunk, *wargs])}
    return out


_COLS = "rowid, path, shelf, id, key, type, profile, tags, body, source, created, created_ts, expires"


def _load(conn, rowids: list[int]) -> dict[int, dict]:
    out: dict[int, dict] = {}
    for start in range(0, len(rowids), 500):
        chunk = rowids[start:start + 500]
        for row in conn.execute(f"SELECT {_COLS} FROM docs WHERE rowid IN ({','.join('?' * len(chunk))})", chunk):
            d = dict(zip(_COLS.split(", "), row))
            out[d["rowid"]] = d
    return out


def _hit(d: dict, score: float, explain: dict | None, now: float) -> Hit:
    from .records import parse_time

    rec = Record(id=d["id"], type=d["type"], key=d["key"], profile=d["profile"], body=d["body"],
                 tags=json.loads(d["tags"] or "[]"), source=d["source"] or "", created=d["created"] or "",
                 expires=d["expires"])
    stale = False
    if d["expires"]:
        exp = parse_time(d["expires"])
        stale = bool(exp and exp.timestamp() < now)
    return Hit(record=rec, path=d["path"], score=score, explain=explain, stale=stale)


