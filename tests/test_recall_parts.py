"""Recall's small parts, each against a real catalog: the filters applied to long lists of rows (they
are read in chunks of 500), the sources read the same way, and the explanation's stage figures."""

from __future__ import annotations

import pytest

from brain_core.places import sources as _sources
from brain_core.recall import DEFAULT_SHELVES, _filters, _rowids_matching, gather


@pytest.fixture
def rows(brain):
    brain.remember("Invoices go out on the first workday of the month.", key="invoices", tags=["billing"],
                   source="claude:session-1")
    brain.remember("The billing dashboard lives behind the VPN.", key="billing-dashboard", tags=["billing"],
                   source="codex:session-2")
    brain.remember("Standups are at 9:30 on weekdays.", key="standups", tags=["team"], source="gemini:session-3")
    conn = brain.index.conn()
    ids = dict(conn.execute("SELECT key, rowid FROM docs"))
    return brain, conn, ids


def spread(real: list[int]) -> list[int]:
    """1,200 rowids, the real ones first in the first, second and third chunk of 500 (positions 0,
    500 and 1,100)."""
    fake = [10_000_000 + i for i in range(1197)]
    out = fake[:]
    for at, rowid in zip((0, 500, 1100), real):
        out.insert(at, rowid)
    return out


def test_filters_over_many_rowids_keep_exactly_the_matching_ones_in_every_chunk(rows):
    _, conn, ids = rows
    where, wargs = _filters(None, None, "billing", DEFAULT_SHELVES)
    listed = spread([ids["invoices"], ids["standups"], ids["billing-dashboard"]])
    assert len(listed) == 1200
    assert _rowids_matching(conn, listed, where, wargs) == {ids["invoices"], ids["billing-dashboard"]}
    where, wargs = _filters(None, None, "team", DEFAULT_SHELVES)
    assert _rowids_matching(conn, listed, where, wargs) == {ids["standups"]}
    assert _rowids_matching(conn, [], where, wargs) == set()
    assert _rowids_matching(conn, [ids["standups"]], where, wargs) == {ids["standups"]}


def test_sources_over_many_rowids_come_back_for_every_chunk(rows):
    _, conn, ids = rows
    listed = spread([ids["invoices"], ids["standups"], ids["billing-dashboard"]])
    assert _sources(conn, listed) == {ids["invoices"]: "claude:session-1", ids["standups"]: "gemini:session-3",
                                      ids["billing-dashboard"]: "codex:session-2"}
    assert _sources(conn, []) == {}


def test_the_explanation_gives_each_stage_its_rank_and_score(rows):
    brain, conn, ids = rows
    question = "when do invoices go out"
    hits = brain.recall(question, k=3, explain=True)
    top = hits[0]
    assert top.record.key == "invoices"
    cand = gather(brain.index, question)
    for stage in ("bm25", "vector"):
        rank, score = cand.stages[ids["invoices"]][stage]
        assert top.explain[stage] == {"rank": rank, "score": round(float(score), 4)}
        assert set(top.to_json()["explain"][stage]) == {"rank", "score"}
    assert top.explain["bm25"]["rank"] == 1
    # a stage that did not find the record says so with null
    only_vector = [h for h in brain.recall("what hour is the morning huddle", k=3, explain=True)
                   if h.record.key == "standups"]
    assert only_vector and only_vector[0].explain["bm25"] is None
    assert only_vector[0].explain["vector"]["rank"] >= 1
