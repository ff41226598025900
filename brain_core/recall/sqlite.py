"""Recall's statements on the SQLite catalog (FTS5 + sqlite-vec): the two candidate stages, the
filters, the neighbours in a source, the rows the lifts and the hits read, the words' counts the
confidence check weighs, and the vocabulary lookups of the spoken forms and the asked-fact check.

:mod:`brain_core.recall.postgres` has a function of the same name and meaning for each; the shared
code (:mod:`~brain_core.recall.hybrid`, :mod:`~brain_core.recall.places`,
:mod:`~brain_core.recall.confidence`, :mod:`~brain_core.recall.coverage`) holds no SQL and asks the
module :func:`brain_core.recall.backends.statements` chooses by the catalog's backend.
"""

from __future__ import annotations

import time
from typing import Any, Sequence

import numpy as np

from brain_core.catalog.embed import embed_later
from brain_core.recall.hybrid import (
    _WORD,
    DEFAULT_SHELVES,
    Candidates,
    RecallParams,
    fts_query,
)
from brain_core.recall.places import NEIGHBOUR_CHUNK, NEIGHBOUR_SPAN, NEIGHBOUR_WINDOW_S, SIDES
from brain_core.store.shelves import SHELVES
from brain_core.text.when import find_dates

BM25_SLACK = 50  # extra keyword matches fetched so that dropping the lessons among them leaves enough
_FILTERED_INSIDE = (frozenset(DEFAULT_SHELVES), frozenset(SHELVES))  # shelf sets the vector search filters itself
TOKENIZER = "porter unicode61 remove_diacritics 2"  # the catalog's (brain_core/catalog/sqlite/db.py)


def filters(profile, type_, tag, shelves, alias: str = "d") -> tuple[str, list]:
    """The WHERE clause for recall's filters on alias ``alias`` of ``docs``, and its arguments."""
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


# -- the two stages -------------------------------------------------------------------------------

def gather(index, query: str, *, profile: str | None = None, type: str | None = None, tag: str | None = None,
           shelves=DEFAULT_SHELVES, params: RecallParams | None = None, query_vector: np.ndarray | None = None,
           n: int | None = None, bm25: bool = True, vectors: bool = True) -> Candidates:
    """Run the keyword and the vector stage; a stage whose weight is 0 is not run."""
    params = params or RecallParams()
    conn = index.conn()
    shelves = tuple(shelves)
    where, wargs = filters(profile, type, tag, shelves)
    n = n or params.candidates
    stages: dict[int, dict[str, Any]] = {}
    t0 = time.perf_counter()
    want_vector = vectors and _WORD.search(query)
    # the question is embedded while the keyword stage runs: both wait in C code without the GIL
    embedding = embed_later(index.embedder, [query]) if want_vector and query_vector is None else None
    dates, words = find_dates(query) if params.date_boost > 0 else ([], query)
    fq = fts_query(words) or (fts_query(query) if words != query else None)
    if fq and bm25:
        rows = None
        if not (profile or type or tag) and set(shelves) == set(DEFAULT_SHELVES):
            rows = bm25_all_but_lessons(conn, fq, params, n)
        if rows is None:
            rows = conn.execute(
                f"SELECT f.rowid, bm25(docs_fts, ?, 1.0, ?) AS s FROM docs_fts f JOIN docs d ON d.rowid = f.rowid "
                f"WHERE docs_fts MATCH ? AND {where} ORDER BY s, f.rowid LIMIT ?",
                [params.key_weight, params.tags_weight, fq, *wargs, n]).fetchall()
        for rank, (rowid, s) in enumerate(rows, 1):
            stages.setdefault(rowid, {})["bm25"] = (rank, -s)
    t_bm25 = time.perf_counter()

    if want_vector:
        vec = query_vector if embedding is None else embedding.result()[0]
        # profile, type and one shelf, the default shelves or all of them are filtered inside the search;
        # a tag and other sets of shelves only after it, so the search looks further for them
        kept = frozenset(shelves)
        after = bool(tag) or not (len(kept) == 1 or kept in _FILTERED_INSIDE)
        want = n * 4 if after else n
        cache = index.vectors()
        if cache is not None:
            rows = cache.search(vec, want, shelves, profile, type)
        else:
            rows = vec0_search(conn, vec, want, shelves, profile, type)
        if after:
            keep = rowids_matching(conn, [r for r, _ in rows], where, wargs)
            rows = [r for r in rows if r[0] in keep]
        for rank, (rowid, dist) in enumerate(rows[:n], 1):
            stages.setdefault(rowid, {})["vector"] = (rank, 1.0 - dist)
    t_vec = time.perf_counter()
    return Candidates(stages, fq, dates, {"bm25": round((t_bm25 - t0) * 1000, 2),
                                          "vector": round((t_vec - t_bm25) * 1000, 2)})


def bm25_all_but_lessons(conn, fq: str, params: RecallParams, n: int) -> list | None:
    """The default shelves' best keyword matches from the full-text table alone (no join with
    ``docs`` for every match: twice as fast when a common word matches thousands of records), the
    lessons among them dropped afterwards. None when too many were lessons to be sure of ``n``."""
    rows = conn.execute("SELECT rowid, bm25(docs_fts, ?, 1.0, ?) AS s FROM docs_fts WHERE docs_fts MATCH ? "
                        "ORDER BY s, rowid LIMIT ?", [params.key_weight, params.tags_weight, fq, n + BM25_SLACK]).fetchall()
    if not rows:
        return rows
    ids = [r for r, _ in rows]
    lessons = {r for (r,) in conn.execute(f"SELECT rowid FROM docs WHERE shelf = 'lessons' AND rowid IN "
                                          f"({','.join('?' * len(ids))})", ids)}
    kept = [row for row in rows if row[0] not in lessons]
    if len(kept) < n and len(rows) == n + BM25_SLACK:
        return None  # more lessons than the slack among the best: ask with the join
    return kept[:n]


def vec0_search(conn, vec, want: int, shelves: tuple, profile, type_) -> list[tuple[int, float]]:
    """sqlite-vec's nearest neighbours (rowid, cosine distance); shelves other than one or all but the
    lessons are filtered afterwards by the caller."""
    vclauses, vargs = ["embedding MATCH ?", "k = ?"], [np.asarray(vec, dtype=np.float32).tobytes(), want]
    if len(shelves) == 1:
        vclauses.append("shelf = ?")
        vargs.append(shelves[0])
    elif "lessons" not in shelves:
        vclauses.append("shelf != 'lessons'")
    if profile:
        vclauses.append("profile = ?")
        vargs.append(profile)
    if type_:
        vclauses.append("type = ?")
        vargs.append(type_)
    return conn.execute(f"SELECT rowid, distance FROM docs_vec WHERE {' AND '.join(vclauses)} ORDER BY distance",
                        vargs).fetchall()


def rowids_matching(conn, rowids: list[int], where: str, wargs: list) -> set[int]:
    """The rowids among ``rowids`` that pass recall's filters (``where`` on alias ``d``)."""
    if not rowids:
        return set()
    out: set[int] = set()
    for start in range(0, len(rowids), 500):
        chunk = rowids[start:start + 500]
        q = f"SELECT d.rowid FROM docs d WHERE d.rowid IN ({','.join('?' * len(chunk))}) AND {where}"
        out |= {r for (r,) in conn.execute(q, [*chunk, *wargs])}
    return out


# -- what the lifts and the hits read -----------------------------------------------------------------

def rows(conn, rowids: list[int], columns: Sequence[str]) -> list[tuple]:
    """(rowid, *columns) of the catalog's rows for the given rowids (500 to a query), in no order."""
    cols = ", ".join(columns)
    out: list[tuple] = []
    for start in range(0, len(rowids), 500):
        chunk = rowids[start:start + 500]
        out += conn.execute(f"SELECT rowid, {cols} FROM docs WHERE rowid IN ({','.join('?' * len(chunk))})",
                            chunk).fetchall()
    return out


def newest(conn, where: str, wargs: list, k: int) -> list[int]:
    """The ``k`` newest rowids passing recall's filters: by created, then id, then path."""
    return [r for (r,) in conn.execute(f"SELECT d.rowid FROM docs d WHERE {where} ORDER BY d.created_ts DESC, "
                                       "coalesce(d.id, '') DESC, d.path DESC LIMIT ?", [*wargs, k]).fetchall()]


def neighbours(conn, rowids: list[int], where: str, wargs: list, span: int = NEIGHBOUR_SPAN,
               window_s: float = NEIGHBOUR_WINDOW_S, sides: tuple[str, ...] = ("before", "after"),
               known: dict | None = None) -> dict[int, list[int]]:
    """rowid -> the records up to ``span`` before and after it in its source (by created, then id),
    written within ``window_s`` of it and passing recall's filters (``where`` on alias ``d``); only
    the ``sides`` asked for. One query per 100 rowids: an index seek on (source, created_ts, id) for
    each side of each. ``known`` is for the server's catalog, which returns the neighbours' text with
    them (brain_core.recall.postgres.neighbours); here, in process, reading it later costs no round trip."""
    if not rowids or span <= 0:
        return {}
    edges = tuple(SIDES[side] for side in sides)
    out: dict[int, list[int]] = {r: [] for r in rowids}
    for start in range(0, len(rowids), NEIGHBOUR_CHUNK):
        chunk = rowids[start:start + NEIGHBOUR_CHUNK]
        placed = conn.execute(f"SELECT rowid, source, created_ts, id FROM docs WHERE rowid IN ({','.join('?' * len(chunk))})",
                              chunk).fetchall()
        parts, args = [], []
        for rowid, source, ts, rid in placed:
            if not source or ts is None:
                continue
            for cmp, edge, sign, order in edges:
                bound = ts + sign * window_s
                parts.append(f"SELECT ? AS giver, x.rowid FROM (SELECT d.rowid FROM docs d WHERE d.source = ? "
                             f"AND (d.created_ts, d.id) {cmp} (?, ?) AND d.created_ts {edge} ? AND {where} "
                             f"ORDER BY d.created_ts {order}, d.id {order} LIMIT {int(span)}) x")  # a literal: 2x faster
                args += [rowid, source, ts, rid or "", bound, *wargs]
        if parts:
            for giver, near in conn.execute(" UNION ALL ".join(parts), args):
                out[giver].append(near)
    return out


# -- the confidence check's word counts -----------------------------------------------------------------

def word_counts(conn, words: Sequence[str], rowids: Sequence[int], cap: int,
                counts: tuple[dict[str, float], int] | None = None) -> tuple[int, dict[str, float], dict[str, set[int]]]:
    """(the highest rowid, records holding each word counted up to ``cap``, the rowids among
    ``rowids`` holding each word), through FTS5's stemmer; a word no record holds matches nothing.
    ``counts`` is the server's keyword stage's (unused here: SQLite counts for itself)."""
    total = conn.execute("SELECT max(rowid) FROM docs").fetchone()[0] or 0
    fill_candidates(conn, rowids)
    df: dict[str, float] = {}
    where: dict[str, set[int]] = {}
    for w in words:
        df[w] = conn.execute("SELECT count(*) FROM (SELECT 1 FROM docs_fts WHERE docs_fts MATCH ? LIMIT ?)",
                             (f'"{w}"', cap)).fetchone()[0]
        where[w] = matching(conn, f'"{w}"', rowids, filled=True) if df[w] else set()
    return total, df, where


def matching(conn, fts: str, rowids: Sequence[int], filled: bool = False) -> set[int]:
    """The rowids among ``rowids`` whose text matches the FTS5 query ``fts``. The candidates' text is
    copied into a small temporary full-text table with the catalog's tokenizer (:func:`fill_candidates`;
    ``filled``: already done for these rowids), so a word that a hundred thousand records contain
    costs no more than a rare one."""
    rowids = list(rowids)
    if not rowids:
        return set()
    if not filled:
        fill_candidates(conn, rowids)
    found = {r for (r,) in conn.execute("SELECT rowid FROM temp.candidates_fts WHERE candidates_fts MATCH ?", (fts,))}
    return found & set(rowids)


def fill_candidates(conn, rowids: Sequence[int]) -> None:
    """Put exactly ``rowids``' text into ``temp.candidates_fts``."""
    ids = sorted(set(rowids))
    conn.execute(f"CREATE VIRTUAL TABLE IF NOT EXISTS temp.candidates_fts USING fts5(key, body, tags, "
                 f"tokenize='{TOKENIZER}')")
    conn.execute("DELETE FROM temp.candidates_fts")
    for start in range(0, len(ids), 500):
        chunk = ids[start:start + 500]
        conn.execute(f"INSERT INTO temp.candidates_fts(rowid, key, body, tags) SELECT rowid, key, body, tags "
                     f"FROM docs_fts WHERE rowid IN ({','.join('?' * len(chunk))})", chunk)


# -- link on write ------------------------------------------------------------------------------------

def link_candidates(conn, words: str, profile: str, vec, n: int) -> list[tuple[str, str, float]]:
    """Link on write's neighbour search (:mod:`brain_core.brain.dedupe`): the best ``n`` keyword
    matches of ``words`` (recall's FTS5 query of a new record's text) among the memories of profiles
    other than ``profile``, best first, as (path, body, cosine to ``vec``); one without a vector is
    left out."""
    rows = conn.execute("SELECT d.rowid, d.path, d.body FROM docs_fts f JOIN docs d ON d.rowid = f.rowid "
                        "WHERE docs_fts MATCH ? AND d.shelf = 'memories' AND d.profile != ? "
                        "ORDER BY bm25(docs_fts) LIMIT ?", (words, profile, n)).fetchall()
    out = []
    for rowid, path, body in rows:
        # one point lookup each: sqlite-vec answers ``rowid = ?`` at once, ``rowid IN (...)`` by a scan
        found = conn.execute("SELECT embedding FROM docs_vec WHERE rowid = ?", (rowid,)).fetchone()
        if found is not None:
            out.append((path, body, float(np.dot(vec, np.frombuffer(found[0], dtype=np.float32)))))
    return out


# -- the vocabulary -------------------------------------------------------------------------------------

class Words:
    """The brain's own words, asked of the full-text index: what the spoken forms
    (:mod:`brain_core.answer.spoken`) and the asked-fact check (:mod:`brain_core.recall.coverage`) read.
    Each lookup is one FTS5 query; the callers memoise them."""

    def __init__(self, conn) -> None:
        self.conn = conn

    def holds(self, words: str) -> bool:
        """Some record holds ``words`` (one word, or several written together)."""
        return self.conn.execute("SELECT 1 FROM docs_fts WHERE docs_fts MATCH ? LIMIT 1",
                                 (f'"{words}"',)).fetchone() is not None

    def holding(self, words: str, least: int) -> int:
        """How many records hold ``words`` written together, counted up to ``least``."""
        return len(self.conn.execute("SELECT 1 FROM docs_fts WHERE docs_fts MATCH ? LIMIT ?",
                                     (f'"{words}"', least)).fetchall())

    def tagged(self, word: str) -> bool:
        """Some record's tags hold ``word``."""
        return self.conn.execute("SELECT 1 FROM docs_fts WHERE docs_fts MATCH ? LIMIT 1",
                                 (f'tags : "{word}"',)).fetchone() is not None

    def bodies(self, word: str, n: int, body_only: bool = True) -> list[str]:
        """The texts of up to ``n`` records holding ``word`` (in their body alone, unless not
        ``body_only``), as written."""
        q = f'body : "{word}"' if body_only else f'"{word}"'
        return [body or "" for (body,) in self.conn.execute("SELECT body FROM docs_fts WHERE docs_fts MATCH ? "
                                                            "LIMIT ?", (q, n)).fetchall()]

    def terms(self, letter: str, least: int, cap: int) -> list[str]:
        """The index's words (stems) starting with ``letter``, at least ``least`` letters long, up to ``cap``."""
        self.conn.execute("CREATE VIRTUAL TABLE IF NOT EXISTS temp.spoken_vocab USING fts5vocab(main, 'docs_fts', 'row')")
        return [t for (t,) in self.conn.execute(
            "SELECT term FROM temp.spoken_vocab WHERE term >= ? AND term < ? AND length(term) >= ? LIMIT ?",
            (letter, chr(ord(letter) + 1), least, cap))]


def words(conn) -> Words:
    """The vocabulary lookups on this catalog."""
    return Words(conn)
