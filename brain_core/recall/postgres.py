"""Hybrid recall on the PostgreSQL catalog: the same two candidate stages as
:func:`brain_core.recall.hybrid.gather` (keyword: each word's ``ts_rank`` over a weighted ``tsvector``
times its rarity, as bm25 weighs it; meaning: pgvector's HNSW cosine), then recall.py's own
fusion, source context, shortlist, decay, date lift, recency mode and hits, so the ranking rules
are shared, not copied.

Every statement here is PostgreSQL as written (``%s`` placeholders), run by
:meth:`brain_core.catalog.postgres.index.PgConn.pg`; :mod:`brain_core.recall.sqlite` has a function of
the same name and meaning for each (:mod:`brain_core.recall.backends` chooses).
"""

from __future__ import annotations

import math
import re
import time
from typing import Any, Sequence

import numpy as np

from brain_core.catalog.embed import later
from brain_core.catalog.postgres.index import vec_param
from brain_core.recall.hybrid import (
    _WORD,
    DEFAULT_SHELVES,
    Candidates,
    Hit,
    RecallParams,
    fts_query,
)
from brain_core.recall.places import NEIGHBOUR_SPAN, NEIGHBOUR_WINDOW_S, SIDES
from brain_core.text.when import find_dates

_QUOTED = re.compile(r'"(\w+)"')


def filters(profile, type_, tag, shelves, alias: str = "d") -> tuple[str, list]:
    """The WHERE clause for recall's filters on alias ``alias`` of ``docs`` (tags are JSON text), and
    its arguments."""
    clauses, args = [f"{alias}.shelf = ANY(%s::text[])"], [list(shelves)]
    if profile:
        clauses.append(f"{alias}.profile = %s")
        args.append(profile)
    if type_:
        clauses.append(f"{alias}.type = %s")
        args.append(type_)
    if tag:
        clauses.append(f"EXISTS (SELECT 1 FROM jsonb_array_elements_text({alias}.tags::jsonb) AS t(v) WHERE t.v = %s)")
        args.append(tag)
    return " AND ".join(clauses), args


COMMON = 2000  # a word in more records than this is "common" for the keyword stage (below)
# The table's statistics, as the CTE ``s``: ``pg_stats``' most common lexemes of the catalog's text
# (kept by ANALYZE; e), the share of records holding each (f), and the table's row estimate (n).
STATS_CTE = ("s AS (SELECT s.most_common_elems::text::text[] AS e, s.most_common_elem_freqs AS f, "
             "greatest(c.reltuples, 0) AS n FROM pg_class c LEFT JOIN pg_stats s ON s.schemaname = current_schema() "
             "AND s.tablename = 'docs' AND s.attname = 'fts' WHERE c.oid = 'docs'::regclass)")


def estimate(word: str) -> str:
    """SQL for the records the statistics (:data:`STATS_CTE`, joined as ``s``) put the word (an SQL
    expression) in: its most common lexeme's share times the row estimate; NULL when none is listed."""
    return f"(SELECT max(s.f[array_position(s.e, x.lexeme)]) * s.n FROM unnest(to_tsvector('english', {word})) x)"


# Each word of a question (the first parameter): how many lexemes it has (none: a stop word), the
# records the statistics put it in, the records counted holding it unless that estimate is over the
# second parameter (counting would collect every match from the GIN index), the highest rowid and
# the table's row estimate.
_TERMS = (
    f"WITH {STATS_CTE}, w AS (SELECT t.w, t.i, length(to_tsvector('english', t.w)) AS nlex, {estimate('t.w')} AS est "
    "FROM unnest(%s::text[]) WITH ORDINALITY AS t(w, i) CROSS JOIN s) "
    "SELECT w.w, w.nlex, w.est, CASE WHEN w.nlex = 0 OR coalesce(w.est, 0) > %s THEN NULL "
    "ELSE (SELECT count(*) FROM docs WHERE fts @@ to_tsquery('english', w.w)) END, "
    "(SELECT max(rowid) FROM docs), (SELECT n FROM s) FROM w ORDER BY w.i")


def _or_query(words: list[str]) -> str | None:
    return " | ".join(words) or None


def keyword_terms(fq: str | None, conn) -> tuple[str | None, list[tuple[str, float]], tuple[dict[str, float], int]]:
    """The keyword stage's ``to_tsquery`` match query for recall.fts_query's safe words (each only
    word characters), and each word's weight, its rarity as bm25 has it
    (``ln(1 + (N - df + 0.5) / (df + 0.5))``, N records, df of them holding the word), and
    (df by word, 0 for a stop word; the highest rowid), which the confidence check reuses.

    ``ts_rank`` has no notion of rarity: every word of a question counts the same, so a name that
    half of a conversation's turns start with outranked the one word that mattered. The stage scores
    a record by each word's ``ts_rank`` times the word's rarity, summed, as SQLite's bm25 does.
    A word's df is counted, except for a word the table's statistics (``pg_stats``' most common
    lexemes, kept by ``ANALYZE``) put in more than ``COMMON`` records: counting it would collect
    every match from the GIN index, so its estimate stands in.

    Ranking scores every record the query matches, so a word found in tens of thousands of records
    made the keyword stage take half a second at 100,000 records, while adding little to the ranking.
    The common words are asked for together: ``rare | rarer | (common & common)``. One common word
    alone joins the OR only when no rarer word is left. Small brains, and a catalog without
    statistics, get the plain OR, as on SQLite."""
    words = _QUOTED.findall(fq or "")
    if not words:
        return None, [], ({}, 0)
    rows = conn.pg(_TERMS, [list(words), COMMON]).fetchall()
    df = {w: float(est if counted is None else counted) if lexemes else 0.0 for w, lexemes, est, counted, *_ in rows}
    top = int(rows[0][4] or 0)
    n = max([float(top), float(rows[0][5] or 0)] + list(df.values()))
    # a word no record holds matches nothing and weighs nothing: it leaves the query
    terms = [(w, math.log(1 + (n - df[w] + 0.5) / (df[w] + 0.5))) for w in words if df.get(w)]
    found = [w for w, _ in terms]
    common_set = {w for w, _, est, counted, *_ in rows if w in found and counted is None} if len(found) > 1 else set()
    if not common_set:
        return _or_query(found), terms, (df, top)
    common: list[str] = []
    rare: list[str] = []
    for word in found:
        (common if word in common_set else rare).append(word)
    if len(common) > 1:
        rare.append("(" + " & ".join(common) + ")")
    elif not rare:
        rare = common
    return " | ".join(rare), terms, (df, top)


def rarity_score(terms: list[tuple[str, float]], weights: str = "{1.0,0.0,1.0,1.0}") -> tuple[str, list, str, list]:
    """The keyword stage's score of a record ``d`` for :func:`keyword_terms`' ``terms``: the sum of each
    word's rarity times its ``ts_rank`` (``weights`` for the D, C, B, A parts of the text; normalised
    by the log of the record's length). Returns the score expression and its arguments, and the FROM
    items ``, to_tsquery(..) q0, ..`` it reads and theirs."""
    score = " + ".join(f"%s::float8 * ts_rank(%s::float4[], d.fts, q{i}, 1)" for i in range(len(terms)))
    each = "".join(f", to_tsquery('english', %s) q{i}" for i in range(len(terms)))
    return score, [a for _, idf in terms for a in (idf, weights)], each, [w for w, _ in terms]


def gather(index, query: str, *, profile: str | None = None, type: str | None = None, tag: str | None = None,
           shelves=DEFAULT_SHELVES, params: RecallParams | None = None, query_vector: np.ndarray | None = None,
           n: int | None = None, bm25: bool = True, vectors: bool = True) -> Candidates:
    """The keyword and the vector stage on the server; a stage whose weight is 0 is not run.
    The keyword stage's score is the sum over the question's words of the word's rarity times its
    ``ts_rank`` (key, tags and body weighted as in the settings; normalised by the log of the
    record's length, as bm25 favours shorter records), stored under the stage name ``bm25`` that
    fusion and ``--explain`` use. (``ts_rank_cd``, cover density over the whole question, ranked
    worse on LoCoMo and took twice the time: docs/POSTGRES.md.)"""
    params = params or RecallParams()
    conn = index.conn()
    shelves = tuple(shelves)
    where, wargs = filters(profile, type, tag, shelves)
    n = n or params.candidates
    stages: dict[int, dict[str, Any]] = {}
    known: dict[int, tuple[Any, Any]] = {}  # rowid -> (source, body), read with the matches
    t0 = time.perf_counter()
    want_vector = vectors and _WORD.search(query)
    # The vector stage runs on a worker thread and a second connection: the question is embedded and
    # its nearest records found while the server runs the keyword stage on the first (each waits
    # without the GIL), so a recall takes the longer of the two stages, not their sum.
    vector_stage = later(_nearest, index, query, query_vector, where, wargs, n) if want_vector else None
    dates, words = find_dates(query) if params.date_boost > 0 else ([], query)
    fq = fts_query(words) or (fts_query(query) if words != query else None)
    tq, terms, counts = keyword_terms(fq, conn) if bm25 else (None, [], None)
    if tq and terms:
        weights = "{1.0,0.0,%r,%r}" % (float(params.tags_weight), float(params.key_weight))
        score, score_args, each, each_args = rarity_score(terms, weights)
        rows = conn.pg(
            f"SELECT d.rowid, {score} AS s, d.source, d.body FROM docs d, to_tsquery('english', %s) q{each} "
            f"WHERE d.fts @@ q AND {where} ORDER BY s DESC, d.rowid LIMIT %s",
            score_args + [tq, *each_args, *wargs, n]).fetchall()
        for rank, (rowid, s, source, body) in enumerate(rows, 1):
            stages.setdefault(rowid, {})["bm25"] = (rank, float(s))
            known[rowid] = (source, body)
    t_bm25 = time.perf_counter()

    vector_ms = 0.0
    if vector_stage is not None:
        rows, vector_ms, qv = vector_stage.result()
        for rowid, _, source, body in rows:
            known[rowid] = (source, body)
        nearest = [(rowid, 1.0 - float(dist)) for rowid, dist, *_ in rows]
        found = {rowid for rowid, _ in nearest}
        nearest += _missed(conn, qv, [r for r in stages if r not in found],  # the keyword matches
                           nearest[-1][1] if len(rows) >= n else -1.0)
        nearest.sort(key=lambda rc: -rc[1])  # stable: the index's order among equals
        for rank, (rowid, cos) in enumerate(nearest[:n], 1):
            stages.setdefault(rowid, {})["vector"] = (rank, cos)
    return Candidates(stages, fq, dates, {"bm25": round((t_bm25 - t0) * 1000, 2), "vector": round(vector_ms, 2)},
                      known, counts)


def _missed(conn, qv, rowids: list[int], floor: float) -> list[tuple[int, float]]:
    """The keyword stage's matches that HNSW, an approximate search, left out although they are as
    close in meaning as what it returned (cosine >= ``floor``, its last one's): (rowid, cosine).

    A record written into a big graph can be poorly linked to its neighbours: at a million records, a
    memory written a moment before was its question's best keyword match and closest vector (0.85;
    the search's best was 0.84), yet absent from the 200 the index returned, so fusion counted its
    meaning as nothing and it fell out of the top three. Its exact distance is one lookup by rowid."""
    if not rowids:
        return []
    rows = conn.pg("SELECT rowid, embedding <=> %s::vector FROM docs WHERE rowid = ANY(%s::bigint[]) "
                        "AND embedding IS NOT NULL", [qv, rowids]).fetchall()
    return [(rowid, 1.0 - float(dist)) for rowid, dist in rows if 1.0 - float(dist) >= floor]


def _nearest(index, query: str, query_vector, where: str, wargs: list, n: int) -> tuple[list, float, Any]:
    """The vector stage on the catalog's second connection: (rowid, cosine distance, source, body)
    of the ``n`` nearest records, the milliseconds the search took (the question's embedding not
    included), and the question's vector."""
    vec = index.embedder.embed([query])[0] if query_vector is None else query_vector
    qv = vec_param(vec)
    t = time.perf_counter()
    rows = index.side_conn().pg(
        f"SELECT d.rowid, d.embedding <=> %s::vector AS dist, d.source, d.body FROM docs d WHERE {where} "
        f"ORDER BY d.embedding <=> %s::vector LIMIT %s", [qv, *wargs, qv, n]).fetchall()
    return rows, (time.perf_counter() - t) * 1000, qv


def neighbours(conn, rowids: list[int], where: str, wargs: list, span: int = NEIGHBOUR_SPAN,
               window_s: float = NEIGHBOUR_WINDOW_S, sides: tuple[str, ...] = ("before", "after"),
               known: dict[int, tuple[Any, Any]] | None = None) -> dict[int, list[int]]:
    """:func:`brain_core.recall.places.neighbours` as one lateral join over the matches, their places read
    on the server (a UNION of two SELECTs per match plans 2-3x slower there, and reading the places
    first took a round trip of its own). The neighbours' (source, body) go into ``known``, so the
    lifts need not ask for them again."""
    if not rowids or span <= 0:
        return {}
    out: dict[int, list[int]] = {r: [] for r in rowids}
    parts = []
    for cmp, edge, sign, order in (SIDES[side] for side in sides):
        parts.append("SELECT g.rowid, x.rowid, x.source, x.body FROM docs g CROSS JOIN LATERAL "
                     "(SELECT d.rowid, d.source, d.body FROM docs d "
                     f"WHERE d.source = g.source AND (d.created_ts, d.id) {cmp} (g.created_ts, coalesce(g.id, '')) "
                     f"AND d.created_ts {edge} g.created_ts + %s AND {where} "
                     f"ORDER BY d.created_ts {order}, d.id {order} LIMIT {int(span)}) x "
                     "WHERE g.rowid = ANY(%s::bigint[]) AND g.source <> '' AND g.created_ts IS NOT NULL")
    args = [a for _, _, sign, _ in (SIDES[side] for side in sides) for a in (sign * float(window_s), *wargs, list(rowids))]
    for giver, near, source, body in conn.pg(" UNION ALL ".join(parts), args).fetchall():
        out[giver].append(near)
        if known is not None:
            known[near] = (source, body)
    return out


# -- what the lifts and the hits read -----------------------------------------------------------------

def rows(conn, rowids: list[int], columns: Sequence[str]) -> list[tuple]:
    """(rowid, *columns) of the catalog's rows for the given rowids, in no order."""
    if not rowids:
        return []
    return conn.pg(f"SELECT rowid, {', '.join(columns)} FROM docs WHERE rowid = ANY(%s::bigint[])",
                   (list(rowids),)).fetchall()


def newest(conn, where: str, wargs: list, k: int) -> list[int]:
    """The ``k`` newest rowids passing recall's filters: by created, then id, then path."""
    return [r for (r,) in conn.pg(f"SELECT d.rowid FROM docs d WHERE {where} ORDER BY d.created_ts DESC, "
                                  "coalesce(d.id, '') DESC, d.path DESC LIMIT %s", [*wargs, k]).fetchall()]


# -- the confidence check's word counts -----------------------------------------------------------------

# Every word's capped count and its matches among the candidates, in one round trip to the server.
# A word the table's statistics (pg_stats' most common lexemes and their shares, times the table's row
# estimate) put in more than twice the cap is not counted (its capped count is the cap: on a GIN
# index, counting even 500 matches first collects all of them, 17 ms for a word in 50,000 of a million
# records). The candidates' rows are read once, and each word is matched against them in memory (asked
# of the whole table, the GIN index again collected every match).
_WORD_STATS = (f"WITH c AS MATERIALIZED (SELECT rowid, fts FROM docs WHERE rowid = ANY(%s::bigint[])), {STATS_CTE} "
               f"SELECT t.w, CASE WHEN {estimate('t.w')} > %s THEN %s ELSE "
               "(SELECT count(*) FROM (SELECT 1 FROM docs WHERE fts @@ plainto_tsquery('english', t.w) LIMIT %s) x) END, "
               "ARRAY(SELECT rowid FROM c WHERE fts @@ plainto_tsquery('english', t.w)), "
               "(SELECT max(rowid) FROM docs) FROM unnest(%s::text[]) WITH ORDINALITY AS t(w, i) CROSS JOIN s ORDER BY t.i")

_MATCHES = ("WITH c AS MATERIALIZED (SELECT rowid, fts FROM docs WHERE rowid = ANY(%s::bigint[])) "
            "SELECT t.w, ARRAY(SELECT rowid FROM c WHERE fts @@ plainto_tsquery('english', t.w)) "
            "FROM unnest(%s::text[]) WITH ORDINALITY AS t(w, i) ORDER BY t.i")


def word_counts(conn, words: Sequence[str], rowids: Sequence[int], cap: int,
                counts: tuple[dict[str, float], int] | None = None) -> tuple[int, dict[str, float], dict[str, set[int]]]:
    """(the highest rowid, records holding each word counted up to ``cap``, the rowids among
    ``rowids`` holding each word), in one round trip. ``counts``: the keyword stage's (records holding
    each word, the highest rowid), so only the matches among the candidates are left to find."""
    df: dict[str, float] = {}
    where: dict[str, set[int]] = {}
    if counts is not None and all(w in counts[0] for w in words):
        found_df, total = counts
        for w, found in conn.pg(_MATCHES, (list(rowids), list(words))).fetchall():
            df[w] = min(found_df[w], cap)
            where[w] = set(found)
        return total, df, where
    total = 0
    for w, n, found, top in conn.pg(_WORD_STATS, (list(rowids), 2 * cap, cap, cap, list(words))).fetchall():
        df[w] = n
        where[w] = set(found)
        total = top or 0
    return total, df, where


def matching(conn, fts: str, rowids: Sequence[int], filled: bool = False) -> set[int]:
    """The rowids among ``rowids`` whose text holds the word ``fts`` (quoted, maybe with a ``*``:
    ``plainto_tsquery`` keeps the word). ``filled`` is SQLite's (:func:`fill_candidates`)."""
    sql = "SELECT rowid FROM docs WHERE rowid = ANY(%s::bigint[]) AND fts @@ plainto_tsquery('english', %s)"
    return {r for (r,) in conn.pg(sql, (list(rowids), fts)).fetchall()}


def fill_candidates(conn, rowids: Sequence[int]) -> None:
    """Nothing: the server matches the candidates' own ``tsvector`` (:func:`matching`)."""


def words(conn) -> None:
    """None: the server catalog keeps no cheap lookups of single words, phrases or its vocabulary, so
    the spoken forms are not rewritten from it and the asked-fact check demotes nothing."""
    return None


# -- link on write ------------------------------------------------------------------------------------

def link_candidates(conn, words: str, profile: str, vec, n: int) -> list[tuple[str, str, float]]:
    """Link on write's neighbour search on a catalog whose records can number millions: the ``n``
    memories of profiles other than ``profile`` closest in meaning to ``vec`` (pgvector's HNSW index),
    then the ``n`` best matches of the rarer of ``words`` (each in at most :data:`COMMON` records,
    ranked by rarity as the keyword stage ranks them), without repeats, each as (path, body, cosine
    to ``vec``) computed by the server.

    Ranking every record that holds any of a record's words, as the SQLite catalog does, took 6.9 s
    a write at 1,000,000 records (docs/POSTGRES.md); a near-duplicate is close in meaning, and
    shares its rarer words, so it is among these."""
    qv = vec_param(vec)
    mine = "d.shelf = 'memories' AND d.profile != %s AND d.embedding IS NOT NULL"
    rows = conn.pg(f"SELECT d.rowid, d.path, d.body, 1 - (d.embedding <=> %s::vector) FROM docs d "
                   f"WHERE {mine} ORDER BY d.embedding <=> %s::vector LIMIT %s", [qv, profile, qv, n]).fetchall()
    _, terms, (df, _) = keyword_terms(words, conn)
    rare = [(w, idf) for w, idf in terms if df.get(w, 0) <= COMMON]
    if rare:
        score, score_args, each, each_args = rarity_score(rare)
        rows += conn.pg(f"SELECT d.rowid, d.path, d.body, 1 - (d.embedding <=> %s::vector), {score} AS s "
                        f"FROM docs d, to_tsquery('english', %s) q{each} WHERE d.fts @@ q AND {mine} "
                        "ORDER BY s DESC, d.rowid LIMIT %s",
                        [qv, *score_args, " | ".join(w for w, _ in rare), *each_args, profile, n]).fetchall()
    seen: dict[int, tuple[str, str, float]] = {}
    for r, p, b, c, *_ in rows:
        seen.setdefault(r, (p, b, float(c)))
    return list(seen.values())


def recall(index, usage, query: str, **kwargs) -> list[Hit]:
    """:func:`brain_core.recall.hybrid.recall` on this catalog: it runs :func:`gather` on the server and
    shares everything after the two stages (fusion, decay, confidence)."""
    from brain_core.recall import hybrid as base

    return base.recall(index, usage, query, **kwargs)
