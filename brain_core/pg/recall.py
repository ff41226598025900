"""Hybrid recall on the PostgreSQL catalog: the same two candidate stages as
:func:`brain_core.recall.gather` (keyword: ``ts_rank_cd`` over a weighted ``tsvector``; meaning:
pgvector's HNSW cosine), then recall.py's own fusion, source context, shortlist, decay, date lift,
recency mode and hits, so the ranking rules are shared, not copied.

Statements are written in the shared code's dialect (``?`` placeholders) and run through
:class:`brain_core.pg.index.PgConn`.
"""

from __future__ import annotations

import re
import time
from typing import Any

import numpy as np

from ..embed import later
from ..places import NEIGHBOUR_SPAN, NEIGHBOUR_WINDOW_S, SIDES
from ..recall import _WORD, DEFAULT_SHELVES, Candidates, Hit, RecallParams, _filters, fts_query
from ..when import find_dates
from .index import vec_param

_QUOTED = re.compile(r'"(\w+)"')


def filters(profile, type_, tag, shelves, alias: str = "d") -> tuple[str, list]:
    """The WHERE clause of :func:`brain_core.recall._filters` for PostgreSQL (tags are JSON text)."""
    return _filters(profile, type_, tag, shelves, alias,
                    "EXISTS (SELECT 1 FROM jsonb_array_elements_text({a}.tags::jsonb) AS t(v) WHERE t.v = ?)")


COMMON = 2000  # a word in more records than this is "common" for the keyword stage (below)
_STATS = ("SELECT s.most_common_elems::text::text[], s.most_common_elem_freqs, c.reltuples, "
          "ARRAY(SELECT coalesce((SELECT string_agg(lexeme, ' ') FROM unnest(to_tsvector('english', w))), '') "
          "FROM unnest(?::text[]) WITH ORDINALITY AS t(w, i) ORDER BY i) "
          "FROM pg_class c LEFT JOIN pg_stats s ON s.schemaname = current_schema() AND s.tablename = 'docs' "
          "AND s.attname = 'fts' WHERE c.oid = 'docs'::regclass")


def common_words(conn, words: list[str], more_than: int) -> tuple[set[str], set[str]]:
    """(the ``words`` that the table's statistics, ``pg_stats``' most common lexemes kept by
    ``ANALYZE``, put in more than ``more_than`` records; the ``words`` with no lexeme, stop words).
    No common words on a catalog that small or without statistics yet."""
    if not words:
        return set(), set()
    elems, freqs, total, lexemes = conn.execute(_STATS, [list(words)]).fetchone()
    stop = {w for w, lex in zip(words, lexemes) if not lex}
    if not elems or not total or total <= more_than:
        return set(), stop
    share = dict(zip(elems, freqs))
    return {w for w, lex in zip(words, lexemes)
            if lex and any(share.get(x, 0.0) * total > more_than for x in lex.split())}, stop


def ts_query(fq: str | None, conn=None) -> str | None:
    """recall.fts_query's safe words (each only word characters) as a ``to_tsquery`` OR-query.

    ``ts_rank_cd`` scores every record the query matches, so a word found in tens of thousands of
    records made the keyword stage take half a second at 100,000 records, while adding little to
    the ranking (such a word's rarity weight is small). Given the catalog's connection, the words
    the table's statistics (``pg_stats``' most common lexemes, kept by ``ANALYZE``) put in more than
    ``COMMON`` records are asked for together: ``rare | rarer | (common & common)``. One common
    word alone joins the OR only when no rarer word is left. Small brains, and a catalog without
    statistics, get the plain OR, as on SQLite."""
    words = _QUOTED.findall(fq or "")
    if not words:
        return None
    plain = " | ".join(words)
    if conn is None or len(words) < 2:
        return plain
    common_set, stop = common_words(conn, words, COMMON)
    if not common_set:
        return plain
    common, rare = [], []
    for word in words:
        if word in common_set:
            common.append(word)
        elif word not in stop:  # to_tsquery drops a stop word anyway
            rare.append(word)
    if len(common) > 1:
        rare.append("(" + " & ".join(common) + ")")
    elif not rare:
        rare = common
    return " | ".join(rare)


def gather(index, query: str, *, profile: str | None = None, type: str | None = None, tag: str | None = None,
           shelves=DEFAULT_SHELVES, params: RecallParams | None = None, query_vector: np.ndarray | None = None,
           n: int | None = None, bm25: bool = True, vectors: bool = True) -> Candidates:
    """The keyword and the vector stage on the server; a stage whose weight is 0 is not run.
    The keyword stage's score is ``ts_rank_cd`` (key, tags and body weighted as in the settings),
    stored under the stage name ``bm25`` that fusion and ``--explain`` use."""
    params = params or RecallParams()
    conn = index.conn()
    shelves = tuple(shelves)
    where, wargs = filters(profile, type, tag, shelves)
    n = n or params.candidates
    stages: dict[int, dict[str, Any]] = {}
    t0 = time.perf_counter()
    want_vector = vectors and _WORD.search(query)
    # The vector stage runs on a worker thread and a second connection: the question is embedded and
    # its nearest records found while the server runs the keyword stage on the first (each waits
    # without the GIL), so a recall takes the longer of the two stages, not their sum.
    vector_stage = later(_nearest, index, query, query_vector, where, wargs, n) if want_vector else None
    dates, words = find_dates(query) if params.date_boost > 0 else ([], query)
    fq = fts_query(words) or (fts_query(query) if words != query else None)
    tq = ts_query(fq, conn) if bm25 else None
    if tq and bm25:
        weights = "{1.0,0.0,%r,%r}" % (float(params.tags_weight), float(params.key_weight))
        rows = conn.execute(
            f"SELECT d.rowid, ts_rank_cd(?::float4[], d.fts, q, 1) AS s FROM docs d, to_tsquery('english', ?) q "
            f"WHERE d.fts @@ q AND {where} ORDER BY s DESC, d.rowid LIMIT ?", [weights, tq, *wargs, n]).fetchall()
        for rank, (rowid, s) in enumerate(rows, 1):
            stages.setdefault(rowid, {})["bm25"] = (rank, float(s))
    t_bm25 = time.perf_counter()

    vector_ms = 0.0
    if vector_stage is not None:
        rows, vector_ms = vector_stage.result()
        for rank, (rowid, dist) in enumerate(rows, 1):
            stages.setdefault(rowid, {})["vector"] = (rank, 1.0 - float(dist))
    return Candidates(stages, fq, dates, {"bm25": round((t_bm25 - t0) * 1000, 2), "vector": round(vector_ms, 2)})


def _nearest(index, query: str, query_vector, where: str, wargs: list, n: int) -> tuple[list, float]:
    """The vector stage on the catalog's second connection: (rowid, cosine distance) of the ``n``
    nearest records, and the milliseconds the search took (the question's embedding not included)."""
    vec = index.embedder.embed([query])[0] if query_vector is None else query_vector
    qv = vec_param(vec)
    t = time.perf_counter()
    rows = index.side_conn().execute(f"SELECT d.rowid, d.embedding <=> ?::vector AS dist FROM docs d WHERE {where} "
                                     f"ORDER BY d.embedding <=> ?::vector LIMIT ?", [qv, *wargs, qv, n]).fetchall()
    return rows, (time.perf_counter() - t) * 1000


def neighbours(conn, rowids: list[int], where: str, wargs: list, span: int = NEIGHBOUR_SPAN,
               window_s: float = NEIGHBOUR_WINDOW_S, sides: tuple[str, ...] = ("before", "after")) -> dict[int, list[int]]:
    """:func:`brain_core.places.neighbours` as one lateral join over the matches (a UNION of two
    SELECTs per match plans 2-3x slower on the server)."""
    if not rowids or span <= 0:
        return {}
    rows = [r for r in conn.execute("SELECT rowid, source, created_ts, id FROM docs WHERE rowid = ANY(?)",
                                    [list(rowids)]).fetchall() if r[1] and r[2] is not None]
    out: dict[int, list[int]] = {r: [] for r in rowids}
    if not rows:
        return out
    given = [[r[0] for r in rows], [r[1] for r in rows], [r[2] for r in rows], [r[3] or "" for r in rows]]
    parts = []
    for cmp, edge, sign, order in (SIDES[side] for side in sides):
        parts.append("SELECT g.giver, x.rowid FROM unnest(?::bigint[], ?::text[], ?::float8[], ?::text[]) "
                     "AS g(giver, source, ts, id) CROSS JOIN LATERAL (SELECT d.rowid FROM docs d "
                     f"WHERE d.source = g.source AND (d.created_ts, d.id) {cmp} (g.ts, g.id) "
                     f"AND d.created_ts {edge} g.ts + ? AND {where} "
                     f"ORDER BY d.created_ts {order}, d.id {order} LIMIT {int(span)}) x")
    args = [a for _, _, sign, _ in (SIDES[side] for side in sides) for a in (*given, sign * float(window_s), *wargs)]
    for giver, near in conn.execute(" UNION ALL ".join(parts), args).fetchall():
        out[giver].append(near)
    return out


def recall(index, usage, query: str, **kwargs) -> list[Hit]:
    """:func:`brain_core.recall.recall` on this catalog: it runs :func:`gather` on the server and
    shares everything after the two stages (fusion, decay, confidence)."""
    from .. import recall as base

    return base.recall(index, usage, query, **kwargs)
