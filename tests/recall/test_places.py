"""Places before passages: the records written next to a strong match in its source (a conversation,
a meeting, an agent session) are lifted by it, and join the candidates when they share no word with
the question. Real brains (git repo, files, SQLite catalog); the vector stage is switched off where
a test needs exact candidates, so nothing depends on the embedding model's build."""

from __future__ import annotations

import pytest

from brain_core import Brain
from brain_core.recall.hybrid import DEFAULT_SHELVES
from brain_core.recall.places import asks, givers, neighbours, with_neighbours, with_questions
from brain_core.recall.sqlite import filters as _filters
from brain_core.records import new_id

TALK = ["We planted tomatoes in the garden this weekend.",
        "What are you researching these days?",
        "Adoption agencies, mostly. I want to give a child a home.",
        "That sounds meaningful, good luck with it.",
        "Thanks! I will tell you how it goes.",
        "By the way, the bakery on the corner closed."]


@pytest.fixture
def talk(tmp_path, embedder):
    b = Brain.init(tmp_path / "brain", embedder=embedder)
    b.config.set("recall.vector_weight", 0.0)  # keyword matches only: exact candidates
    recs = b.remember_many([dict(body=t, type="event", created="2026-03-02T10:00:00Z", source="chat:session-1")
                            for t in TALK], message="a conversation")
    yield b, [r.id for r in recs]
    b.close()


def _keys(hits):
    return [h.record.body for h in hits]


def test_ids_made_in_one_process_keep_the_order_they_were_made_in():
    ids = [new_id() for _ in range(3000)]  # far more than one a millisecond
    assert ids == sorted(ids)
    assert len({i[:18] for i in ids}) == len(ids)  # the time parts differ, not only the random tail


def test_the_answer_after_the_question_turn_is_found_without_sharing_a_word(talk):
    b, ids = talk
    hits = b.recall("what is she researching", k=10, explain=True)
    bodies = _keys(hits)
    assert bodies[0] == TALK[1]  # the keyword match stays first
    assert TALK[2] in bodies  # the answer: no word of the question
    assert TALK[0] in bodies and TALK[3] in bodies  # two on each side
    assert TALK[4] not in bodies and TALK[5] not in bodies  # three away: not lifted
    by_body = {h.record.body: h for h in hits}
    assert by_body[TALK[2]].explain["bm25"] is None
    assert by_body[TALK[2]].explain["neighbours"] > 0
    assert by_body[TALK[1]].explain["neighbours"] == 0


def test_a_weight_of_zero_switches_neighbours_off(talk):
    b, _ = talk
    b.config.set("recall.neighbour_weight", 0.0)
    b.config.set("recall.answer_weight", 0.0)
    assert _keys(b.recall("what is she researching", k=10)) == [TALK[1]]


def test_the_record_after_a_question_is_its_answer_and_alone_is_lifted_without_neighbours(talk):
    b, ids = talk
    b.config.set("recall.neighbour_weight", 0.0)
    b.config.set("recall.source_weight", 0.0)
    hits = b.recall("what is she researching", k=10, explain=True)
    assert _keys(hits) == [TALK[1], TALK[2]]  # the answer after it; nothing before it, nothing further
    question, answer = hits
    assert question.explain["asks"] and not answer.explain["asks"]
    assert answer.explain["bm25"] is None
    assert answer.explain["neighbours"] == pytest.approx(0.5 * question.explain["bm25"]["score"] /
                                                         question.explain["bm25"]["score"], abs=1e-4)  # 0.5 x its best
    b.config.set("recall.answer_weight", 0.9)  # the question counts 0.7: its answer can pass it
    assert _keys(b.recall("what is she researching", k=10)) == [TALK[2], TALK[1]]


def test_a_statement_gives_no_answer_lift(talk):
    b, _ = talk
    b.config.set("recall.neighbour_weight", 0.0)
    assert _keys(b.recall("tomatoes garden", k=10)) == [TALK[0]]  # TALK[1] after it is not its answer


def test_a_neighbour_that_asks_joins_lowered_like_any_record_that_asks(talk):
    b, _ = talk
    b.config.set("recall.source_weight", 0.0)
    hits = b.recall("tomatoes garden", k=10, explain=True)
    assert _keys(hits) == [TALK[0], TALK[2], TALK[1]]  # both joined by a lift of 0.2; the one that asks counts 0.7
    by_body = {h.record.body: h.explain for h in hits}
    assert by_body[TALK[1]]["asks"] and not by_body[TALK[2]]["asks"]
    assert by_body[TALK[1]]["fused"] == pytest.approx(0.7 * by_body[TALK[2]]["fused"])


def test_a_record_that_asks_counts_question_weight_of_its_score(tmp_path, embedder):
    b = Brain.init(tmp_path / "brain", embedder=embedder)
    for key, value in (("vector_weight", 0.0), ("source_weight", 0.0), ("neighbour_weight", 0.0),
                       ("answer_weight", 0.0)):
        b.config.set(f"recall.{key}", value)
    b.remember_many([dict(body="Which database holds the ledger?", type="event", created="2026-03-02T10:00:00Z"),
                     dict(body="The ledger database is Postgres.", type="event", created="2026-03-02T10:00:00Z")])
    asked = {h.record.body: h for h in b.recall("ledger database", k=5, explain=True)}
    b.config.set("recall.question_weight", 1.0)
    plain = {h.record.body: h for h in b.recall("ledger database", k=5, explain=True)}
    q, s = "Which database holds the ledger?", "The ledger database is Postgres."
    assert asked[q].explain["asks"] and not asked[s].explain["asks"]
    assert asked[q].score == pytest.approx(0.7 * plain[q].score)
    assert asked[s].score == pytest.approx(plain[s].score)
    b.close()


def test_neighbours_stay_inside_their_source_and_their_sitting(tmp_path, embedder):
    b = Brain.init(tmp_path / "brain", embedder=embedder)
    b.config.set("recall.vector_weight", 0.0)
    b.remember_many([
        dict(body="Another chat, written in between.", type="event", created="2026-03-02T10:00:00Z", source="chat:other"),
        dict(body="Which database did we pick for the ledger?", type="event", created="2026-03-02T10:00:00Z",
             source="chat:one"),
        dict(body="A week later, about something else.", type="event", created="2026-03-09T10:00:00Z",
             source="chat:one"),
        dict(body="Written by hand with no source.", type="event", created="2026-03-02T10:00:00Z"),
    ])
    assert _keys(b.recall("database ledger", k=10)) == ["Which database did we pick for the ledger?"]
    b.close()


def test_neighbours_obey_the_recall_filters(tmp_path, embedder):
    b = Brain.init(tmp_path / "brain", embedder=embedder)
    b.config.set("recall.vector_weight", 0.0)
    b.remember_many([dict(body="Her reply, in the work profile.", type="event", profile="work",
                          created="2026-03-02T10:00:00Z", source="chat:s"),
                     dict(body="What are you researching?", type="event", created="2026-03-02T10:00:00Z", source="chat:s"),
                     dict(body="The next turn, a note.", type="note", created="2026-03-02T10:00:00Z", source="chat:s")])
    assert _keys(b.recall("researching", k=10, profile="me")) == ["What are you researching?", "The next turn, a note."]
    assert _keys(b.recall("researching", k=10, type="event")) == ["What are you researching?",
                                                                  "Her reply, in the work profile."]
    b.close()


def test_the_catalog_query_returns_two_records_each_side_in_written_order(talk):
    b, ids = talk
    conn = b.index.conn()
    rowid = {i: r for r, i in conn.execute("SELECT rowid, id FROM docs")}
    where, wargs = _filters(None, None, None, DEFAULT_SHELVES)
    around = neighbours(conn, [rowid[ids[0]], rowid[ids[3]], rowid[ids[5]]], where, wargs)
    assert sorted(around[rowid[ids[0]]]) == sorted([rowid[ids[1]], rowid[ids[2]]])
    assert sorted(around[rowid[ids[3]]]) == sorted([rowid[ids[2]], rowid[ids[1]], rowid[ids[4]], rowid[ids[5]]])
    assert sorted(around[rowid[ids[5]]]) == sorted([rowid[ids[4]], rowid[ids[3]]])
    assert neighbours(conn, [rowid[ids[0]]], where, wargs, span=1) == {rowid[ids[0]]: [rowid[ids[1]]]}
    assert neighbours(conn, [], where, wargs) == {}
    after = neighbours(conn, [rowid[ids[1]], rowid[ids[5]]], where, wargs, span=1, sides=("after",))
    assert after == {rowid[ids[1]]: [rowid[ids[2]]], rowid[ids[5]]: []}  # the next one only; the last has none
    before = neighbours(conn, [rowid[ids[3]]], where, wargs, sides=("before",))
    assert sorted(before[rowid[ids[3]]]) == sorted([rowid[ids[1]], rowid[ids[2]]])
    assert neighbours(conn, [rowid[ids[0]]], where, wargs, span=0) == {}
    plan = " ".join(str(r) for r in conn.execute(
        "EXPLAIN QUERY PLAN SELECT d.rowid FROM docs d WHERE d.source = ? AND (d.created_ts, d.id) < (?, ?) "
        "ORDER BY d.created_ts DESC, d.id DESC LIMIT 2", ["chat:session-1", 0.0, ""]))
    assert "docs_place" in plan  # an index seek, not a scan of the source


def test_the_place_index_is_added_to_a_catalog_made_without_it(talk):
    b, _ = talk
    conn = b.index.conn()
    conn.execute("DROP INDEX docs_place")
    b.index.close()
    conn = b.index.conn()
    assert conn.execute("SELECT 1 FROM sqlite_master WHERE name = 'docs_place'").fetchone() is not None


def test_each_neighbour_takes_the_best_lift_and_no_match_lifts_itself():
    fused = {1: 1.0, 2: 0.4, 3: 0.0}
    around = {1: [2, 3, 4], 2: [1, 3]}
    out = with_neighbours(fused, around, 0.3)
    assert out[1] == pytest.approx(1.0 + 0.3 * 0.4)  # lifted by 2, not by itself
    assert out[2] == pytest.approx(0.4 + 0.3 * 1.0)
    assert out[3] == pytest.approx(0.3 * 1.0)  # the best of 1 and 2
    assert out[4] == pytest.approx(0.3)  # no candidate before: joins
    assert with_neighbours(fused, around, 0.0) is fused
    assert with_neighbours(fused, {}, 0.3) is fused
    assert with_neighbours({1: 0.5}, {9: [1]}, 0.3) == {1: 0.5}  # a match that is no candidate gives nothing
    assert with_neighbours({1: 0.5, 3: 0.0}, {3: [5]}, 0.3) == {1: 0.5, 3: 0.0}  # nor one that scored 0


def test_an_answer_takes_the_better_of_its_two_lifts():
    fused = {1: 1.0, 2: 0.2, 3: 0.6}
    around = {1: [2, 3], 3: [2]}
    out = with_neighbours(fused, around, 0.3, answers={1: [2]}, answer_weight=0.5)
    assert out[2] == pytest.approx(0.2 + 0.5 * 1.0)  # its question's answer lift, not 0.3 x 1.0
    assert out[3] == pytest.approx(0.6 + 0.3 * 1.0)  # a plain neighbour
    assert with_neighbours(fused, around, 0.3, answers={3: [2]}, answer_weight=0.4)[2] == pytest.approx(0.2 + 0.3)
    assert with_neighbours(fused, {}, 0.0, answers={1: [2]}, answer_weight=0.5) == {1: 1.0, 2: 0.7, 3: 0.6}
    assert with_neighbours(fused, {}, 0.3, answers={1: [2]}, answer_weight=0.0) is fused


def test_asking_is_a_question_mark_at_the_end():
    assert asks("How long have you been married?") and asks("Really?  \n")
    assert not asks("Why? Because the vendor limits bursts.") and not asks("") and not asks("5 years already!")
    assert with_questions({1: 1.0, 2: 0.5}, {2}, 0.7) == {1: 1.0, 2: pytest.approx(0.35)}
    fused = {1: 1.0}
    assert with_questions(fused, {1}, 1.0) is fused and with_questions(fused, set(), 0.7) is fused


def test_givers_are_the_best_matches_that_have_a_place():
    fused = {5: 0.9, 2: 0.9, 7: 0.8, 1: 0.7, 9: 0.0}
    sources = {5: "a", 2: "b", 7: "", 1: "c", 9: "d"}
    assert givers(fused, sources) == [2, 5, 1]  # ties by rowid; no source, or no score, gives nothing
    assert givers(fused, sources, n=2) == [2, 5]


def test_the_neighbours_of_many_matches_come_back_for_every_chunk(tmp_path, embedder):
    b = Brain.init(tmp_path / "brain", embedder=embedder)
    recs = b.remember_many([dict(body=f"Turn {i} of a long meeting.", type="event", created="2026-03-02T10:00:00Z",
                                 source="meeting:long") for i in range(260)])
    conn = b.index.conn()
    rowid = {i: r for r, i in conn.execute("SELECT rowid, id FROM docs")}
    order = [rowid[r.id] for r in recs]
    where, wargs = _filters(None, None, None, DEFAULT_SHELVES)
    around = neighbours(conn, order, where, wargs)  # 520 lookups: more than one SQLite compound allows
    assert len(around) == 260
    for i, r in enumerate(order):
        assert sorted(around[r]) == sorted(order[max(0, i - 2):i] + order[i + 1:i + 3])
    b.close()


def test_a_match_with_no_source_does_not_stop_the_lookup_of_the_others(tmp_path, embedder):
    b = Brain.init(tmp_path / "brain", embedder=embedder)
    lone = b.remember("Written by hand, with no source.", key="lone")
    recs = b.remember_many([dict(body=t, type="event", created="2026-03-02T10:00:00Z", source="chat:s")
                            for t in ("First turn.", "Second turn.", "Third turn.")])
    conn = b.index.conn()
    rowid = {i: r for r, i in conn.execute("SELECT rowid, id FROM docs")}
    assert rowid[lone.id] < rowid[recs[1].id]  # the one without a place comes first
    where, wargs = _filters(None, None, None, DEFAULT_SHELVES)
    around = neighbours(conn, [rowid[lone.id], rowid[recs[1].id]], where, wargs)
    assert around[rowid[lone.id]] == []
    assert sorted(around[rowid[recs[1].id]]) == sorted([rowid[recs[0].id], rowid[recs[2].id]])
    b.close()
