"""Recall's settings read into its parameters, and the edges of what a recall returns: the default
number of hits, the candidate pool when many are asked for, ties, a record gone between the stages
and the load, and each hit's expiry and date fields. Each test pins a value a small slip in the
code would change (docs/MUTATION.md lists the mutants these were written against)."""

from __future__ import annotations

import json
import time
from datetime import datetime, timezone

import numpy as np
import pytest

from brain_core.config import Config
from brain_core.errors import BrainError
from brain_core.recall.hybrid import RecallParams, fts_query, recall, rescore

NOW = 1_800_000_000.0


def settings(tmp_path, recall_section) -> Config:
    """Settings as `aida config` and `aida doctor` hold them: not checked against the schema."""
    return Config(path=tmp_path / "settings.yaml", data={"recall": recall_section})


# -- settings --------------------------------------------------------------------------------------


def test_no_settings_give_the_defaults(tmp_path):
    assert RecallParams.from_config(None) == RecallParams()
    assert RecallParams.from_config(Config(path=tmp_path / "absent.yaml")) == RecallParams()


def test_settings_reach_the_params_as_their_own_kinds(tmp_path):
    p = RecallParams.from_config(settings(tmp_path, {"fusion": "rrf", "vector_weight": "0.25", "rrf_k": 30.7,
                                                     "candidates": "150", "half_life_days": 1e9}))
    assert (p.fusion, p.vector_weight, p.rrf_k, p.candidates, p.half_life_days) == ("rrf", 0.25, 30, 150, 1e9)
    assert type(p.rrf_k) is int and type(p.candidates) is int and type(p.vector_weight) is float
    assert p.bm25_weight == RecallParams().bm25_weight   # what the file leaves out keeps its default


@pytest.mark.parametrize("value", [True, False, [0.5], {"x": 1}, "half", float("nan"), float("inf"), -1e10,
                                   1_000_000_000.5])
def test_a_value_that_is_not_a_finite_number_is_refused_by_name(tmp_path, value):
    with pytest.raises(BrainError) as e:
        RecallParams.from_config(settings(tmp_path, {"vector_weight": value}))
    assert str(e.value) == f"The setting recall.vector_weight = {value!r} is not a finite float; fix the settings file."


def test_a_billion_is_still_a_number(tmp_path):
    assert RecallParams.from_config(settings(tmp_path, {"candidates": -1e9})).candidates == -1_000_000_000


def test_a_recall_setting_that_is_not_a_section_is_refused(tmp_path):
    with pytest.raises(BrainError) as e:
        RecallParams.from_config(settings(tmp_path, [0.5, 0.3]))
    assert str(e.value) == ("The setting `recall` must be a section of keys (recall.vector_weight: 0.5 ...); "
                            "fix the settings file.")


@pytest.mark.parametrize("fusion, shown", [("bogus", "'bogus'"), (5, "'5'"), ("Score", "'Score'")])
def test_an_unknown_fusion_is_refused_by_name(tmp_path, fusion, shown):
    with pytest.raises(BrainError) as e:
        RecallParams.from_config(settings(tmp_path, {"fusion": fusion}))
    assert str(e.value) == f"The setting recall.fusion = {shown} is not 'score' or 'rrf'; fix the settings file."


# -- the keyword query -------------------------------------------------------------------------------


@pytest.mark.parametrize("text, query", [
    ("What is the Deploy window?", '"deploy" OR "window"'),
    ("what is it", '"what" OR "is" OR "it"'),            # only stopwords: they are all there is to search
    ("deploy, DEPLOY and deploy-window", '"deploy" OR "window"'),
    ('"); DROP TABLE docs; --', '"drop" OR "table" OR "docs"'),
    ("?! ...", None),
])
def test_the_keyword_query_keeps_each_content_word_once_in_lower_case(text, query):
    assert fts_query(text) == query


def test_the_keyword_query_takes_the_first_32_words():
    words = [f"word{i}" for i in range(40)]
    assert fts_query(" ".join(words)) == " OR ".join(f'"{w}"' for w in words[:32])


# -- rescoring -------------------------------------------------------------------------------------


def test_rescore_skips_a_record_gone_since_the_stages_and_keeps_the_rest():
    fused = {1: 0.9, 2: 0.8, 3: 0.7}
    meta = {1: (NOW, 0, None), 3: (NOW, 0, None)}   # 2 was deleted between the stages and the load
    assert [r for _, r, *_ in rescore([1, 2, 3], fused, meta, [], RecallParams(), NOW)] == [1, 3]


def test_rescore_keeps_the_pools_order_between_equal_scores():
    fused = {9: 0.5, 4: 0.5, 7: 0.5}
    meta = {r: (NOW, 0, None) for r in fused}
    assert [r for _, r, *_ in rescore([4, 9, 7], fused, meta, [], RecallParams(), NOW)] == [4, 9, 7]


# -- through a brain -------------------------------------------------------------------------------


def test_recall_gives_five_hits_unless_asked_for_more(brain):
    for i in range(8):
        brain.remember(f"Deploy note number {i} about the staging cluster.", key=f"deploy-{i}")
    assert len(recall(brain.index, brain.usage, "deploy staging cluster")) == 5


def test_asking_for_more_hits_than_candidates_widens_the_pool(brain):
    for i in range(14):
        brain.remember(f"Invoice batch {i} was exported to the ledger.", key=f"invoice-{i}")
    few = RecallParams(candidates=2, source_weight=0, neighbour_weight=0)
    hits = recall(brain.index, brain.usage, "invoice batch exported ledger", k=12, params=few)
    assert len(hits) == 12   # each stage looked at 4 x 12 candidates, not 2


def _put(brain, key: str, body: str, **fields) -> None:
    rec = {"id": f"20260301-090000000-{abs(hash(key)) % 16**6:06x}", "type": "fact", "key": key, "profile": "me",
           "body": body, "tags": [], **fields}
    (brain.root / "memories/me").mkdir(parents=True, exist_ok=True)
    (brain.root / f"memories/me/{key}.json").write_text(json.dumps(rec), encoding="utf-8")


def test_a_hit_with_no_expiry_is_not_stale_and_one_with_no_date_has_none(brain):
    _put(brain, "undated", "The parking garage closes at midnight.")
    assert brain.index.catch_up() == "caught-up"
    (hit,) = recall(brain.index, brain.usage, "parking garage closes", k=1, now=NOW)
    assert hit.record.key == "undated" and hit.record.created == "" and hit.record.expires is None
    assert hit.stale is False and hit.to_json().get("stale") is None


def test_a_hit_is_stale_only_after_its_expiry(brain):
    expires = "2026-06-01T12:00:00Z"
    at = datetime(2026, 6, 1, 12, tzinfo=timezone.utc).timestamp()
    brain.remember("The conference badge pickup desk is in hall B.", key="badges", expires=expires)
    stale = {when: recall(brain.index, brain.usage, "conference badge pickup", k=1, now=when)[0].stale
             for when in (at - 1, at, at + 1)}
    assert stale == {at - 1: False, at: False, at + 1: True}


def test_the_explanation_names_no_backend_on_the_default_catalog(brain):
    brain.remember("The coffee machine is descaled every month.", key="coffee")
    (hit,) = recall(brain.index, brain.usage, "coffee machine descaled", k=1, explain=True)
    assert set(hit.explain) == {"bm25", "vector", "fused", "neighbours", "decay", "uses", "path", "fts_query", "asks",
                                "kind", "dated", "ms"}


def test_a_question_vector_the_caller_has_is_used_as_it_is(brain):
    brain.remember("The coffee machine is descaled every month.", key="coffee")
    brain.remember("Quarterly taxes are filed by the accountant.", key="taxes")
    vec = brain.embedder.embed(["taxes: Quarterly taxes are filed by the accountant."])[0]
    hits = recall(brain.index, brain.usage, "coffee machine", k=2, query_vector=vec,
                  params=RecallParams(bm25_weight=0))
    assert [h.record.key for h in hits][0] == "taxes"


# -- places and recency mode through recall ---------------------------------------------------------

TALK = ["What are you researching these days?",
        "Adoption agencies, mostly.",
        "Researching them takes months.",
        "The bakery on the corner closed."]


@pytest.fixture
def talk(brain):
    brain.config.set("recall.vector_weight", 0.0)   # keyword matches only: exact candidates
    brain.remember_many([dict(body=t, type="event", created="2026-03-02T10:00:00Z", source="chat:session-1",
                              tags=["chat"] if i != 1 else ["reply"]) for i, t in enumerate(TALK)])
    return brain


NO_QUESTIONS = dict(answer_weight=0.0, question_weight=1.0)  # TALK[0] asks: these tests weigh the other lifts


def _bodies(hits):
    return [h.record.body for h in hits]


@pytest.mark.parametrize("source_weight, neighbour_weight, lifted", [(0.0, 0.3, True), (0.3, 0.0, False),
                                                                     (0.0, 0.0, False), (0.3, 0.3, True)])
def test_neighbours_follow_their_own_weight_whatever_the_source_weight(talk, source_weight, neighbour_weight, lifted):
    p = RecallParams(vector_weight=0.0, source_weight=source_weight, neighbour_weight=neighbour_weight, **NO_QUESTIONS)
    bodies = _bodies(recall(talk.index, talk.usage, "researching", k=10, params=p))
    assert set(bodies) == ({TALK[0], TALK[1], TALK[2], TALK[3]} if lifted else {TALK[0], TALK[2]})


def test_the_explanation_gives_each_hit_its_neighbour_lift(talk):
    p = RecallParams(vector_weight=0.0, source_weight=0.0, **NO_QUESTIONS)
    hits = {h.record.body: h.explain for h in recall(talk.index, talk.usage, "researching", k=10, params=p, explain=True)}
    assert set(hits) == set(TALK)
    for near in (hits[TALK[1]], hits[TALK[3]]):   # neighbours only: all of their score is the lift
        assert near["bm25"] is None and near["neighbours"] == round(near["fused"], 4) > 0
    for match in (hits[TALK[0]], hits[TALK[2]]):   # matches, each lifted by the other one
        assert 0 < match["neighbours"] < match["fused"]
    alone = recall(talk.index, talk.usage, "researching", k=10, explain=True,
                   params=RecallParams(vector_weight=0.0, neighbour_weight=0.0, **NO_QUESTIONS))
    assert [h.explain["neighbours"] for h in alone] == [0.0, 0.0]


def test_neighbours_obey_the_tag_filter(talk):
    p = RecallParams(vector_weight=0.0)
    assert set(_bodies(recall(talk.index, talk.usage, "researching", k=10, params=p, tag="chat"))) == \
        {TALK[0], TALK[2], TALK[3]}
    assert _bodies(recall(talk.index, talk.usage, "researching", k=10, params=p, tag="reply")) == []


def test_recency_mode_with_no_words_obeys_every_filter(brain):
    brain.remember_many([
        dict(body="Oldest, mine.", key="a", created="2026-03-01T10:00:00Z", tags=["x"]),
        dict(body="Middle, codex's decision.", key="b", type="decision", profile="codex", created="2026-03-02T10:00:00Z"),
        dict(body="Newest, mine.", key="c", created="2026-03-03T10:00:00Z")])
    words = RecallParams(vector_weight=0.0)   # "latest" matches no record: the newest of all that pass the filters
    def latest(**kw):
        return [h.record.key for h in recall(brain.index, brain.usage, "the latest", k=5, recent=True, params=words, **kw)]

    assert latest() == ["c", "b", "a"]
    assert latest(profile="me") == ["c", "a"]
    assert latest(type="decision") == ["b"]
    assert latest(tag="x") == ["a"]


def test_source_context_lifts_matches_that_share_a_place_with_neighbours_off(talk):
    def fused(source_weight):
        p = RecallParams(vector_weight=0.0, neighbour_weight=0.0, source_weight=source_weight, **NO_QUESTIONS)
        return {h.record.body: h.explain["fused"] for h in recall(talk.index, talk.usage, "researching", k=10,
                                                                   params=p, explain=True)}
    plain, lifted = fused(0.0), fused(0.3)
    assert set(plain) == set(lifted) == {TALK[0], TALK[2]}
    for body in plain:   # each lifted by 0.3 x (its own score + the other match's)
        assert lifted[body] == pytest.approx(plain[body] + 0.3 * sum(plain.values()), rel=1e-9)


def test_a_bm25_weight_of_zero_leaves_the_keyword_stage_out(talk):
    p = RecallParams(bm25_weight=0.0, neighbour_weight=0.0)
    hits = recall(talk.index, talk.usage, "researching adoption", k=10, params=p, explain=True)
    assert hits and all(h.explain["bm25"] is None and h.explain["vector"] is not None for h in hits)


def test_neighbours_join_their_place_for_the_source_context(talk):
    def fused(source_weight, neighbour_weight):
        p = RecallParams(vector_weight=0.0, neighbour_weight=neighbour_weight, source_weight=source_weight,
                         **NO_QUESTIONS)
        return {h.record.body: h.explain["fused"] for h in recall(talk.index, talk.usage, "researching", k=10,
                                                                   params=p, explain=True)}
    plain = fused(0.0, 0.0)
    a, b = plain[TALK[0]], plain[TALK[2]]
    lifted = {TALK[0]: a + 0.3 * b, TALK[2]: b + 0.3 * a, TALK[1]: 0.3 * max(a, b), TALK[3]: 0.3 * b}
    best_three = sum(sorted(lifted.values())[-3:])   # all four share one conversation
    both = fused(0.3, 0.3)
    assert both == pytest.approx({t: v + 0.3 * best_three for t, v in lifted.items()}, rel=1e-9)
    p = RecallParams(vector_weight=0.0, neighbour_weight=1.0, source_weight=0.0, **NO_QUESTIONS)
    whole = {h.record.body: h.explain for h in recall(talk.index, talk.usage, "researching", k=10, params=p,
                                                       explain=True)}
    assert max(a, b) == 1.0 and whole[TALK[1]]["neighbours"] == 1.0   # a lift of a whole score is still shown


def test_a_question_that_names_a_date_looks_further_down_the_matches(brain):
    brain.config.set("recall.vector_weight", 0.0)
    brain.remember_many([dict(body=f"Deploy deploy checklist item {i}: deploy the deploy scripts.", key=f"item-{i}",
                              created="2026-01-10T10:00:00Z") for i in range(60)])
    brain.remember("The deploy went out late.", key="late", created="2026-03-05T18:00:00Z")
    p = RecallParams(vector_weight=0.0, source_weight=0.0, neighbour_weight=0.0)
    undated = [h.record.key for h in recall(brain.index, brain.usage, "deploy", k=5, params=p)]
    assert "late" not in undated
    dated = [h.record.key for h in recall(brain.index, brain.usage, "the deploy on March 5, 2026", k=5, params=p)]
    assert dated[0] == "late"


def test_a_candidate_that_scores_nothing_is_never_shown(talk):
    p = RecallParams(bm25_weight=0.0, vector_weight=1.0, neighbour_weight=0.0, source_weight=0.0)
    hits = recall(talk.index, talk.usage, "adoption agencies", k=10, params=p)
    assert len(hits) == len(TALK) - 1 and all(h.score > 0 for h in hits)   # the least close scores 0
    assert all(h.explain is None for h in hits)


def test_explained_lifts_and_decay_are_rounded_to_four_places(talk):
    p = RecallParams(vector_weight=0.0, source_weight=0.0)
    for h in recall(talk.index, talk.usage, "researching", k=10, params=p, explain=True, now=NOW):
        assert h.explain["neighbours"] == round(h.explain["neighbours"], 4)
        # 2026-03-02 10:00 seen from NOW (2027-01-15), 318.9 days: 0.6 + 0.4 x 0.5 ** (318.9 / 180) = 0.71714
        assert h.explain["decay"] == 0.7171


def test_each_hit_is_judged_on_its_own_words_and_closeness(talk):
    talk.config.set("recall.vector_weight", 0.5)
    p = RecallParams(neighbour_weight=0.0, source_weight=0.0)
    hits = recall(talk.index, talk.usage, "what is she researching", k=10, params=p, explain=True)
    top = hits[0]
    assert top.record.body in (TALK[0], TALK[2])
    assert top.evidence.words == ("researching",) and top.evidence.matched == ("researching",)
    assert top.evidence.coverage == 1.0 and top.evidence.agree is True
    assert top.evidence.cosine == pytest.approx(top.explain["vector"]["score"], abs=1e-4)
    assert top.confidence == "strong"


def test_a_recall_that_touches_counts_a_use_of_each_hit_as_recalled(talk):
    p = RecallParams(vector_weight=0.0, neighbour_weight=0.0, source_weight=0.0, **NO_QUESTIONS)
    hits = recall(talk.index, talk.usage, "researching", k=10, params=p, touch=True, now=NOW)
    paths = [h.path for h in hits]
    assert len(paths) == 2
    assert talk.usage.get(paths) == {path: (1, NOW) for path in paths}
    assert all(talk.usage.reasons(path) == {"recalled": 1} for path in paths)
    recall(talk.index, talk.usage, "researching", k=10, params=p, now=NOW)   # not touching: no use
    assert talk.usage.get(paths) == {path: (1, NOW) for path in paths}


def test_a_question_vector_of_another_float_width_is_read_alike(brain):
    brain.remember("The coffee machine is descaled every month.", key="coffee")
    brain.remember("Quarterly taxes are filed by the accountant.", key="taxes")
    vec = brain.embedder.embed(["taxes: Quarterly taxes are filed by the accountant."])[0]
    p = RecallParams(bm25_weight=0.0)
    wide = recall(brain.index, brain.usage, "zz", k=2, query_vector=vec.astype(np.float64), params=p)
    assert [h.record.key for h in wide] == [h.record.key for h in recall(brain.index, brain.usage, "zz", k=2,
                                                                          query_vector=vec, params=p)]
    assert wide[0].record.key == "taxes"


def test_lessons_asked_for_with_another_shelf_are_found_by_meaning(brain):
    brain.remember("When a migration fails, restore the snapshot before retrying.", type="lesson", key="migrations")
    brain.remember("The coffee machine is descaled every month.", key="coffee")
    p = RecallParams(bm25_weight=0.0, neighbour_weight=0.0, source_weight=0.0)
    hits = recall(brain.index, brain.usage, "database upgrade went wrong", k=2, shelves=("memories", "lessons"),
                  params=p)
    assert "migrations" in [h.record.key for h in hits]
    plain = recall(brain.index, brain.usage, "database upgrade went wrong", k=2, params=p)
    assert "migrations" not in [h.record.key for h in plain]   # not on the default shelves


# -- the two stages ----------------------------------------------------------------------------------


def test_a_vector_weight_of_zero_embeds_nothing_and_a_given_vector_is_not_replaced(tmp_path, embedder):
    from brain_core import Brain
    from tests.helpers.counting import CountingEmbedder

    counter = CountingEmbedder(embedder)
    b = Brain.init(tmp_path / "brain", embedder=counter)
    b.remember("The coffee machine is descaled every month.", key="coffee")
    n = len(counter.texts)
    recall(b.index, b.usage, "coffee machine", k=1, params=RecallParams(vector_weight=0.0))
    vec = embedder.embed(["coffee machine"])[0]
    recall(b.index, b.usage, "coffee machine", k=1, query_vector=vec)
    assert counter.texts[n:] == []
    recall(b.index, b.usage, "coffee machine", k=1)
    assert counter.texts[n:] == ["coffee machine"]
    b.close()


def test_a_question_that_is_only_a_date_still_looks_for_its_words(brain):
    brain.remember("The March offsite was held in Lisbon.", key="offsite", created="2026-01-10T10:00:00Z")
    p = RecallParams(vector_weight=0.0, neighbour_weight=0.0, source_weight=0.0)
    assert [h.record.key for h in recall(brain.index, brain.usage, "March 2026", k=3, params=p)] == ["offsite"]


def test_the_keyword_stage_finds_lessons_when_only_lessons_are_asked_for(brain):
    brain.remember("When a migration fails, restore the snapshot before retrying.", type="lesson", key="migrations")
    brain.remember("The migration window is on Sunday.", key="window")
    p = RecallParams(vector_weight=0.0, neighbour_weight=0.0, source_weight=0.0)
    assert [h.record.key for h in recall(brain.index, brain.usage, "migration", k=3, params=p,
                                         shelves=("lessons",))] == ["migrations"]
    assert [h.record.key for h in recall(brain.index, brain.usage, "migration", k=3, params=p)] == ["window"]


def test_a_tag_filter_looks_further_down_the_vector_matches(brain):
    brain.remember_many([dict(body=f"Database backup note {i}: the nightly database backup finished.",
                              key=f"backup-{i}") for i in range(12)])
    brain.remember("Snapshots of the storage volumes are copied offsite.", key="snapshots", tags=["ops"])
    p = RecallParams(bm25_weight=0.0, candidates=2, neighbour_weight=0.0, source_weight=0.0)
    every = [h.record.key for h in recall(brain.index, brain.usage, "database backup", k=5, params=p)]
    assert "snapshots" not in every   # farther than the untagged notes
    tagged = recall(brain.index, brain.usage, "database backup", k=1, params=p, tag="ops")
    assert [h.record.key for h in tagged] == ["snapshots"]


@pytest.mark.parametrize("in_memory", [True, False])
def test_the_vector_search_obeys_the_profile_and_type_filters(brain, in_memory):
    brain.remember("The nightly database backup finished.", key="mine")
    brain.remember("The nightly database backup failed twice.", key="theirs", profile="codex", type="decision")
    p = RecallParams(bm25_weight=0.0, neighbour_weight=0.0, source_weight=0.0)
    if not in_memory:
        brain.index.vector_cache_mb = 0   # searched in the catalog file, as a one-shot command does
    for _ in range(3):   # the second vector search on loads the vectors in memory
        recall(brain.index, brain.usage, "database backup", k=2, params=p)
    assert (brain.index._vcache is not None) is in_memory
    def keys(**kw):
        return [h.record.key for h in recall(brain.index, brain.usage, "database backup", k=2, params=p, **kw)]

    assert keys(profile="codex") == ["theirs"] and keys(profile="me") == ["mine"]
    assert keys(type="decision") == ["theirs"] and keys(type="fact") == ["mine"]


def test_some_shelves_look_further_down_the_vector_matches(brain):
    for i in range(8):
        brain.write_text(f"knowledge/backup-{i}.md", f"# Backups {i}\n\nThe nightly database backup finished, run {i}.\n",
                         "a knowledge page")
    brain.remember("Snapshots of the storage volumes are copied offsite.", key="snapshots")
    p = RecallParams(bm25_weight=0.0, candidates=2, neighbour_weight=0.0, source_weight=0.0)
    for _ in range(3):   # searched in the catalog file, then in memory
        hits = recall(brain.index, brain.usage, "database backup", k=1, params=p, shelves=("memories", "events"))
        assert [h.record.key for h in hits] == ["snapshots"]
    every = [h.path for h in recall(brain.index, brain.usage, "database backup", k=4, params=p)]
    assert all(path.startswith("knowledge/") for path in every)   # the pages are closer


def test_the_explanation_times_each_stage_in_milliseconds(brain):
    brain.remember("The coffee machine is descaled every month.", key="coffee")
    t0 = time.perf_counter()
    (hit,) = recall(brain.index, brain.usage, "coffee machine descaled", k=1, explain=True)
    wall_ms = (time.perf_counter() - t0) * 1000
    ms = hit.explain["ms"]
    assert set(ms) == {"bm25", "vector"} and all(type(v) is float for v in ms.values())
    assert all(v == round(v, 2) for v in ms.values())
    assert 0 < ms["bm25"] and 0 < ms["vector"] and ms["bm25"] + ms["vector"] <= wall_ms + 0.01


def test_three_shelves_that_are_not_the_default_keep_the_fourth_out(brain):
    brain.write_text("knowledge/backups.md", "# Backups\n\nThe nightly database backup finished.\n", "a page")
    brain.remember("Restore the database backup before retrying a migration.", type="lesson", key="restore")
    brain.remember("The database backup runs at two.", key="backup-time")
    brain.remember("The coffee machine is descaled every month.", key="coffee")   # the farthest: it scores 0
    p = RecallParams(bm25_weight=0.0, neighbour_weight=0.0, source_weight=0.0)
    for _ in range(3):   # in the catalog file, then in memory
        hits = recall(brain.index, brain.usage, "database backup", k=5, params=p,
                      shelves=("memories", "events", "lessons"))
        assert sorted(h.record.key for h in hits) == ["backup-time", "restore"]
