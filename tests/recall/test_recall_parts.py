"""Recall's small parts, each against a real catalog: the filters applied to long lists of rows (they
are read in chunks of 500), the sources read the same way, and the explanation's stage figures."""

from __future__ import annotations

import pytest

from brain_core.recall.hybrid import DEFAULT_SHELVES, _load, gather
from brain_core.recall.places import sources as _sources
from brain_core.recall.sqlite import filters as _filters
from brain_core.recall.sqlite import rowids_matching as _rowids_matching


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


def test_loading_many_rowids_reads_every_chunk(rows):
    _, conn, ids = rows
    listed = spread([ids["invoices"], ids["standups"], ids["billing-dashboard"]])
    loaded = _load(conn, listed)
    assert sorted(d["key"] for d in loaded.values()) == ["billing-dashboard", "invoices", "standups"]


def test_a_hit_carries_every_field_of_its_record(brain):
    brain.remember("The deploy freeze starts on December 20th.", key="freeze", type="decision", profile="work",
                   tags=["release", "q4"], source="meeting:2026-11-30", created="2026-11-30T10:00:00Z",
                   expires="2099-01-01T00:00:00Z")
    brain.remember("The deploy checklist lives in the wiki.", key="checklist")
    (hit,) = [h for h in brain.recall("deploy freeze December", k=5) if h.record.key == "freeze"]
    r = hit.record
    assert (r.type, r.profile, r.tags, r.source, r.created, r.expires) == (
        "decision", "work", ["release", "q4"], "meeting:2026-11-30", "2026-11-30T10:00:00Z", "2099-01-01T00:00:00Z")
    assert hit.path == "memories/work/freeze.json" and not hit.stale
    (plain,) = [h for h in brain.recall("deploy checklist wiki", k=5) if h.record.key == "checklist"]
    assert (plain.record.tags, plain.record.source, plain.record.expires) == ([], "", None)


def test_the_keyword_stage_fills_its_candidates_when_lessons_crowd_the_best_matches(brain):
    """The default shelves leave lessons out. When more lessons than the slack (50) rank among the
    best keyword matches, the stage asks again with the filter joined in, so every fact still comes."""
    brain.remember_many([dict(body=f"Ledger ledger ledger: lesson {i}.", type="lesson") for i in range(120)]
                        + [dict(body=f"Fact {i} about the month-end close, which updates the ledger once.",
                                key=f"close-{i}") for i in range(80)])
    conn = brain.index.conn()
    shelf = dict(conn.execute("SELECT rowid, shelf FROM docs"))
    top = conn.execute("SELECT rowid FROM docs_fts WHERE docs_fts MATCH 'ledger' ORDER BY bm25(docs_fts) LIMIT 150")
    assert sum(shelf[r] == "lessons" for (r,) in top) > 50  # the premise: lessons crowd the best 150
    cand = gather(brain.index, "ledger", vectors=False)
    found = {r for r, st in cand.stages.items() if "bm25" in st}
    assert len(found) == 80 and {shelf[r] for r in found} == {"memories"}
