"""The catalog's vectors in memory (brain_core/catalog/sqlite/vcache.py): the same neighbours as sqlite-vec, kept in
step with this process's writes and with other processes' commits, and off when it should be."""

from __future__ import annotations

import numpy as np
import pytest

from brain_core import Brain
from brain_core.catalog.sqlite import vcache
from brain_core.config import Config
from brain_core.recall.hybrid import DEFAULT_SHELVES
from brain_core.recall.sqlite import vec0_search as _vec0_search

FACTS = [
    ("me", "fact", "The staging database is restored from the nightly snapshot at 02:00."),
    ("me", "decision", "We deploy the billing service with blue-green switches, never in place."),
    ("me", "preference", "Code review comments are written as questions, not orders."),
    ("work", "fact", "The payments gateway retries a failed webhook five times with backoff."),
    ("work", "decision", "Feature flags older than ninety days are removed in the cleanup sprint."),
    ("work", "fact", "The search cluster keeps three replicas of every shard."),
    ("home", "fact", "The router's admin page lives at the gateway address on port 8080."),
    ("home", "preference", "Groceries are ordered on Thursday evenings for Friday delivery."),
]
QUESTIONS = ["how is the database restored", "webhook retries", "what do we do with old feature flags",
             "where is the admin page", "how do we deploy billing"]


@pytest.fixture
def filled(brain):
    for i, (profile, type_, body) in enumerate(FACTS):
        brain.remember(body, type=type_, key=f"fact-{i}", profile=profile)
    brain.remember("When a migration fails, restore the snapshot before retrying.", type="lesson", key="lesson-1")
    brain.write_text("knowledge/deploys.md", "# Deploys\n\nBilling deploys switch blue and green environments.\n",
                     "knowledge page")
    return brain


def _both(brain, q, **kw):
    conn = brain.index.conn()
    vec = brain.embedder.embed([q])[0]
    cache = vcache.VectorCache.load(conn, brain.index.dim)
    shelves = kw.pop("shelves", DEFAULT_SHELVES)
    return cache.search(vec, 50, shelves, **kw), _vec0_search(conn, vec, 50, shelves, kw.get("profile"),
                                                              kw.get("type_"))


@pytest.mark.parametrize("filters", [{}, {"profile": "work"}, {"type_": "fact"}, {"profile": "me", "type_": "decision"},
                                     {"shelves": ("lessons",)}, {"shelves": ("knowledge",)}])
def test_the_cache_finds_the_same_neighbours_as_sqlite_vec(filled, filters):
    for q in QUESTIONS:
        mine, theirs = _both(filled, q, **dict(filters))
        assert [r for r, _ in mine] == [r for r, _ in theirs], q
        assert np.allclose([d for _, d in mine], [d for _, d in theirs], atol=1e-5)
        assert mine, q


def test_an_unknown_profile_or_type_finds_nothing(filled):
    mine, theirs = _both(filled, "the database", profile="nobody")
    assert mine == [] and theirs == []
    mine, theirs = _both(filled, "the database", type_="nonsense")
    assert mine == [] and theirs == []


def test_reading_row_by_row_gives_the_same_matrix_as_reading_the_chunks(filled, monkeypatch):
    conn = filled.index.conn()
    fast = vcache.VectorCache.load(conn, filled.index.dim)
    monkeypatch.setattr(vcache, "CHUNK_FORMAT_VERSIONS", ())
    slow = vcache.VectorCache.load(conn, filled.index.dim)
    assert len(fast) == len(slow) == len(FACTS) + 2
    for rowid, i in fast.slot.items():
        assert np.allclose(fast.matrix[i], slow.matrix[slow.slot[rowid]])


def test_the_cache_is_loaded_at_the_second_search_and_recall_is_unchanged(filled, tmp_path, embedder):
    index = filled.index
    assert index._vcache is None
    first = [h.record.key for h in filled.recall(QUESTIONS[0], k=5)]
    assert index._vcache is None  # a one-shot command searches the file
    second = [h.record.key for h in filled.recall(QUESTIONS[0], k=5)]
    assert index._vcache is not None and len(index._vcache) == len(FACTS) + 2
    assert first == second
    off = Brain.open(filled.root, config=Config(path=tmp_path / "off.yaml", data={"index": {"vector_cache_mb": 0}}), embedder=embedder)
    try:
        for q in QUESTIONS:
            with_cache, without = filled.recall(q, k=5), off.recall(q, k=5)
            assert [h.record.key for h in with_cache] == [h.record.key for h in without], q
            assert np.allclose([h.score for h in with_cache], [h.score for h in without], atol=1e-5), q
        assert off.index._vcache is None
    finally:
        off.close()


def test_own_writes_reach_the_cache_without_a_reload(filled, monkeypatch):
    filled.recall("warm", k=1)
    filled.recall("warm again", k=1)
    cache = filled.index._vcache
    assert cache is not None
    loads = []
    real = vcache.VectorCache.load
    monkeypatch.setattr(vcache.VectorCache, "load", classmethod(lambda cls, *a: loads.append(1) or real(*a)))
    filled.remember("The lighthouse keeper logs the fog horn tests every Sunday.", key="lighthouse")
    hits = filled.recall("fog horn tests", k=3)
    assert hits and hits[0].record.key == "lighthouse"
    assert filled.index._vcache is cache and loads == []
    rowid = filled.index.conn().execute("SELECT rowid FROM docs WHERE key='lighthouse'").fetchone()[0]
    assert rowid in cache.slot
    filled.move([("memories/me/lighthouse.json", "archive/memories/me/lighthouse.json")], "archive it")
    assert rowid not in cache.slot
    assert all(h.record.key != "lighthouse" for h in filled.recall("fog horn tests", k=3))
    assert loads == []


def test_another_brains_commit_is_seen_by_a_reload(filled, embedder):
    filled.recall("warm", k=1)
    filled.recall("warm again", k=1)
    before = filled.index._vcache
    other = Brain.open(filled.root, embedder=embedder)
    try:
        other.remember("The greenhouse vents open when it is warmer than twenty-six degrees.", key="greenhouse")
    finally:
        other.close()
    hits = filled.recall("when do the greenhouse vents open", k=3, explain=True)
    assert filled.index._vcache is not before
    top = hits[0]
    assert top.record.key == "greenhouse" and top.explain["vector"]["rank"] == 1


def test_with_no_memory_budget_the_file_is_searched(filled):
    filled.index.vector_cache_mb = 0
    for _ in range(3):
        filled.recall("the database", k=3)
    assert filled.index._vcache is None


def test_a_small_budget_still_holds_a_small_brain(filled):
    filled.index.vector_cache_mb = 1  # 1 MB: ten records of 1.5 kB fit
    filled.recall("the database", k=3)
    filled.recall("the database", k=3)
    assert filled.index._vcache is not None


def test_a_catalog_beyond_the_budget_is_searched_in_the_file(filled):
    conn = filled.index.conn()
    # rowids that reached a million (a long-lived catalog): a million vectors of 1.5 kB exceed 256 MB
    with conn:
        conn.execute("UPDATE docs SET rowid = 1000000 WHERE rowid = (SELECT max(rowid) FROM docs)")
    for _ in range(3):
        assert filled.index.vectors() is None
    filled.index.vector_cache_mb = 2048
    filled.index.vectors()
    assert filled.index.vectors() is not None


def test_bytes_that_are_no_embedding_are_refused():
    good = np.full(384, 0.05, dtype=np.float32)
    assert vcache.plausible_vector(good.tobytes(), 384)
    assert not vcache.plausible_vector(good[:383].tobytes(), 384)  # the wrong length
    bad = good.copy()
    bad[7] = np.nan
    assert not vcache.plausible_vector(bad.tobytes(), 384)
    bad[7] = 3.0e38  # a flipped exponent bit
    assert not vcache.plausible_vector(bad.tobytes(), 384)
    assert not vcache.plausible_vector(None, 384)


def test_a_damaged_vector_in_the_file_is_reported_as_a_damaged_catalog(filled):
    from brain_core.catalog.sqlite import db as dbmod

    conn = filled.index.conn()
    rowid = conn.execute("SELECT rowid FROM docs LIMIT 1").fetchone()[0]
    garbage = np.full(384, 1.0e30, dtype=np.float32).tobytes()
    with conn:
        conn.execute("UPDATE docs_vec SET embedding = ? WHERE rowid = ?", (garbage, rowid))
    with pytest.raises(dbmod.database_errors(), match="damaged"):
        vcache.VectorCache.load(conn, 384)
