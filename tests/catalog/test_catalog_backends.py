"""The card catalog on both backends: SQLite (the default) and PostgreSQL + pgvector on a real
server the tests start (tests/helpers/pg_server.py). The core recall and incremental-index behaviour must
be the same on both; the server-only parts (brains sharing a database, a connection lost
mid-rebuild or mid-apply, migration) are tested on PostgreSQL."""

from __future__ import annotations

import json
import os
import uuid

import pytest
import yaml

from brain_core import Brain
from tests.helpers.pg_server import pg_dsn  # noqa: F401 - the session's server fixture

BACKENDS = ["sqlite", "postgres"]


def settings(backend: str, dsn: str | None = None, brain_id: str | None = None) -> None:
    """Write the settings file every Brain in this test (and its subprocesses) reads."""
    data = {"index": {"backend": backend}}
    if backend == "postgres":
        data["index"].update({"dsn": dsn, "brain_id": brain_id})
    with open(os.environ["AIDA_CONFIG"], "w") as f:
        yaml.safe_dump(data, f)


@pytest.fixture(params=BACKENDS)
def any_brain(request, tmp_path, embedder):
    backend = request.param
    dsn = request.getfixturevalue("pg_dsn") if backend == "postgres" else None
    settings(backend, dsn, "t" + uuid.uuid4().hex[:12])
    b = Brain.init(tmp_path / "brain", embedder=embedder)
    assert b.index.backend == backend
    yield b
    b.close()


def reopen(brain) -> Brain:
    other = Brain.open(brain.root)
    other._embedder = brain._embedder
    return other


# -- the same behaviour on both ------------------------------------------------------------------


def test_recall_finds_by_meaning_without_shared_words(any_brain):
    b = any_brain
    b.remember("Webhook delivery retries with exponential backoff, capped at six attempts.", key="webhook-retry-policy")
    b.remember("The office coffee machine is descaled on Mondays.", key="coffee")
    b.remember("Our CI pipeline runs on two cores.", key="ci-cores")
    assert b.recall("how many times do we resend failed notifications", k=1)[0].record.key == "webhook-retry-policy"
    assert b.recall("coffee descaled", k=1, explain=True)[0].explain["bm25"]["rank"] == 1


def test_filters_and_k(any_brain):
    b = any_brain
    b.remember("Deploys happen on Tuesdays.", key="deploy-day", profile="codex", tags=["ops"])
    b.remember("Deploys need two approvals.", key="deploy-approvals", profile="claude", type="instruction")
    b.remember("Deploys are frozen in December.", key="deploy-freeze", profile="claude", tags=["ops"])
    assert {h.record.key for h in b.recall("deploys", profile="claude")} == {"deploy-approvals", "deploy-freeze"}
    assert [h.record.key for h in b.recall("deploys", type="instruction")] == ["deploy-approvals"]
    assert {h.record.key for h in b.recall("deploys", tag="ops")} == {"deploy-day", "deploy-freeze"}
    assert len(b.recall("deploys", k=2)) == 2


def test_recent_mode_and_decay(any_brain):
    b = any_brain
    b.remember("Decided to use Postgres for billing.", key="db-choice-1", created="2026-01-10T10:00:00Z")
    b.remember("Decided to move billing to Postgres 16.", key="db-choice-2", created="2026-06-10T10:00:00Z")
    b.remember("Lunch is at noon.", key="lunch", created="2026-09-10T10:00:00Z")
    assert [h.record.key for h in b.recall("postgres billing", recent=True, k=2)] == ["db-choice-2", "db-choice-1"]
    assert b.recall("", recent=True, k=1)[0].record.key == "lunch"
    old = b.remember("The deploy script lives in tools/deploy.sh.", key="deploy-script-old", created="2023-01-01T00:00:00Z")
    new = b.remember("The deploy script lives in tools/deploy.sh.", key="deploy-script-new")
    hits = b.recall("where is the deploy script", k=2, explain=True, touch=False)
    assert [h.record.id for h in hits] == [new.id, old.id]
    assert hits[1].explain["decay"] < hits[0].explain["decay"] == 1.0


def test_records_written_in_the_same_second_come_newest_first(any_brain):
    """``created`` has seconds: two memories written in one second (an agent's two notes) tied, and
    the path decided, so "recent" could put the older first. Their ids keep the order written."""
    b = any_brain
    second = "2026-09-10T10:00:00Z"
    b.remember("Webhook retries are capped at six attempts.", key="webhook-retry-policy", profile="codex", created=second)
    b.remember("Staging uses sk_test_ keys only.", key="staging-keys", profile="agent", created=second)
    b.remember("Webhook signing uses HMAC.", key="webhook-signing", profile="claude", created=second)
    expected = ["webhook-signing", "staging-keys", "webhook-retry-policy"]
    assert [h.record.key for h in b.recall("", recent=True, k=3)] == expected
    assert [h.record.key for h in b.recall("webhook", recent=True, k=2)] == ["webhook-signing", "webhook-retry-policy"]


@pytest.mark.parametrize("query", ['"unbalanced', "retry-cap", "key:value", "retr*", "NOT OR AND", "(", "'; DROP TABLE docs; --",
                                   "", "🙂", "a | b & !c", "foo_bar:*"])
def test_query_syntax_never_errors(any_brain, query):
    any_brain.remember("The retry cap is six.", key="retry-cap")
    assert isinstance(any_brain.recall(query), list)


def test_the_records_written_next_to_a_match_are_lifted_on_both(any_brain):
    b = any_brain
    b.config.set("recall.vector_weight", 0.0)  # keyword matches only: the same candidates on both
    turns = ["We planted tomatoes.", "What are you researching these days?", "Adoption agencies, mostly.",
             "That sounds meaningful.", "Thanks!", "The bakery closed."]
    b.remember_many([dict(body=t, type="event", created="2026-03-02T10:00:00Z", source="chat:1") for t in turns])
    hits = b.recall("researching", k=10, explain=True)
    assert [h.record.body for h in hits][0] == turns[1]
    assert sorted(h.record.body for h in hits[1:]) == sorted(turns[0:1] + turns[2:4])
    assert all(h.explain["neighbours"] > 0 for h in hits[1:])
    lift = {h.record.body: h.explain["neighbours"] for h in hits}  # the only match's fused score is 1
    assert lift == {turns[0]: 0.2, turns[1]: 0.0, turns[2]: 0.5, turns[3]: 0.2}  # after a question: its answer
    assert [h.explain["asks"] for h in hits] == [True, False, False, False]


def test_a_when_question_lifts_the_record_that_names_a_time_on_both(any_brain):
    b = any_brain
    b.config.set("recall.vector_weight", 0.0)
    b.remember_many([dict(body="The CI runners are slow.", key="slow"),
                     dict(body="We moved the CI runners last week.", key="moved")])
    hits = {h.record.key: h.explain for h in b.recall("When did the CI runners move?", k=5, explain=True)}
    assert hits["moved"]["kind"] and not hits["slow"]["kind"]


def test_a_rare_word_outweighs_a_common_one_in_the_keyword_stage_on_both(any_brain):
    """bm25 weighs each word by its rarity. On PostgreSQL, ts_rank alone counts every word the
    same: the records that say a common name three times outranked the one that holds the rare word."""
    b = any_brain
    for i in range(8):
        b.remember(f"Caroline: Caroline's painting class {i} ran late, so Caroline took the night bus.", key=f"class-{i}")
    b.remember("Melanie: I started volunteering at the adoption agency downtown.", key="adoption")
    hits = b.recall("caroline adoption", k=9, explain=True)
    by_key = {h.record.key: h.explain["bm25"] for h in hits}
    assert by_key["adoption"]["rank"] == 1
    assert all(by_key[f"class-{i}"]["score"] < by_key["adoption"]["score"] for i in range(8))
    assert hits[0].record.key == "adoption"


MONITORING = [f"We chose {tool} for monitoring the {team} cluster because it is cheaper."
              for tool in ("Grafana", "Prometheus", "Zabbix", "Nagios") for team in ("analytics", "billing", "search")]


def test_a_copy_from_another_profile_links_among_records_alike_on_both(any_brain, monkeypatch):
    """Link on write (dedupe.Linker) finds the record a copy repeats among twelve that share most
    of its words, from only the best two candidates of each kind."""
    import brain_core.brain.dedupe as dedupe

    monkeypatch.setattr(dedupe, "LINK_NEIGHBOURS", 2)
    b = any_brain
    b.remember_many([dict(body=body, type="decision", profile="gemini", key=f"m{i}") for i, body in enumerate(MONITORING)])
    first = b.remember("We chose Datadog for monitoring because its APM tracing is better.",
                       type="decision", profile="claude", source="claude:session:s1")
    # in other words, each of them on both sides (a looser rewording is written as a record of its own)
    linked = b.remember("Decision: Datadog for monitoring, because its APM tracing is better.",
                        type="decision", profile="codex", source="codex:session:s2")
    assert linked.id == first.id and not (b.root / "memories" / "codex").exists()
    data = json.loads((b.root / "memories" / "claude" / f"{first.key}.json").read_text())
    assert [s["source"] for s in data["sources"]] == ["codex:session:s2"]
    # a different tool for the same job is not a copy
    other = b.remember("We chose Splunk for monitoring the search cluster because it is cheaper.",
                       type="decision", profile="codex", source="codex:session:s3")
    assert other.profile == "codex"


def test_incremental_index_catches_hand_edits_and_deletions_without_reembedding(any_brain):
    b = any_brain
    for i in range(5):
        b.remember(f"Fact number {i} about the billing service.", key=f"fact-{i}")
    p = b.root / "memories/me/fact-1.json"
    d = json.loads(p.read_text())
    d["body"] = "Fact one now says the billing service runs on ARM."
    p.write_text(json.dumps(d))
    new = dict(d, id="20260101-000000000-abcdef", key="hand-made", body="A hand-made note about invoices.")
    (b.root / "memories/me/hand-made.json").write_text(json.dumps(new))
    (b.root / "memories/me/fact-3.json").unlink()
    report, stats = b.index.sync()
    assert (len(report.new), len(report.modified), len(report.deleted), report.unchanged) == (1, 1, 1, 3)
    assert stats.embedded == 2
    report, stats = b.index.sync()
    assert report.changes == 0 and stats.embedded == 0
    assert b.recall("ARM", k=1)[0].record.key == "fact-1"
    assert b.index.counts()["by_shelf"] == {"memories": 5}


def test_recall_catches_up_with_a_file_added_behind_its_back(any_brain):
    b = any_brain
    b.remember("Existing note.", key="existing")
    assert b.index.stale_dirs() == []
    rec = {"id": "20260101-000000000-abcdef", "type": "fact", "key": "pulled", "profile": "codex",
           "body": "A memory that arrived by git pull: the cluster is named orca.", "tags": []}
    (b.root / "memories/codex").mkdir()
    (b.root / "memories/codex/pulled.json").write_text(json.dumps(rec))
    assert b.index.stale_dirs() == ["memories/codex"]
    assert b.recall("cluster name orca", k=1)[0].record.key == "pulled"
    assert b.index.stale_dirs() == []


def test_a_moved_file_keeps_its_vector_and_a_deleted_folder_is_forgotten(any_brain):
    b = any_brain
    b.remember("Invoices go out on the first of the month.", key="invoices", profile="codex")
    b.remember("The staging cluster is rebuilt on Sundays.", key="staging", profile="gemini")
    (b.root / "memories/claude").mkdir()
    os.replace(b.root / "memories/codex/invoices.json", b.root / "memories/claude/invoices.json")
    report, stats = b.index.sync()
    assert (len(report.new), report.deleted, stats.embedded, stats.reused) == (
        1, ("memories/codex/invoices.json",), 0, 1)
    for folder in ("claude", "codex", "gemini"):
        for f in (b.root / "memories" / folder).iterdir():
            f.unlink()
        (b.root / "memories" / folder).rmdir()
    assert b.index.catch_up() == "caught-up"
    assert b.index.counts()["by_shelf"] == {}
    stored = set(b.index._stored_dirs(b.index.conn()))
    assert not stored & {"memories/claude", "memories/codex", "memories/gemini"}
    assert b.index.catch_up() == "fresh"   # nothing left that looks changed


def test_full_rebuild_reuses_vectors_and_an_open_reader_keeps_answering(any_brain):
    b = any_brain
    for i in range(10):
        b.remember(f"Record {i}: the ingest worker batches {i * 10} rows.", key=f"rec-{i}")
    reader = reopen(b)
    assert len(reader.recall("ingest worker rows", k=10)) == 10
    stats = b.index.rebuild()
    assert (stats.written, stats.embedded, stats.reused) == (10, 0, 10)
    assert len(reader.recall("ingest worker rows", k=10)) == 10
    reader.close()


CORPUS = [
    ("billing-db", "The billing service stores invoices in Postgres 16 on the eu-west cluster."),
    ("deploy-day", "Production deploys happen on Tuesdays after the standup."),
    ("oncall", "The on-call rotation changes every Monday at 9am."),
    ("coffee", "The office coffee machine is descaled on Mondays."),
    ("webhook", "Webhook delivery retries with exponential backoff, capped at six attempts."),
    ("ci", "Our CI pipeline runs on two cores and takes twelve minutes."),
    ("vpn", "The VPN certificate expires in March; renew it with the security team."),
    ("cache", "Redis caches session tokens for thirty minutes."),
    ("search", "Search uses BM25 with a vector reranker."),
    ("holiday", "The team is off between Christmas and New Year."),
]
QUERIES = ["where are invoices stored", "when do we deploy", "who is on call", "how many retries for webhooks",
           "how long does CI take", "VPN certificate renewal", "session token cache", "office coffee"]


def test_both_backends_give_the_same_answers_on_the_same_brain(tmp_path, embedder, pg_dsn):  # noqa: F811
    settings("sqlite")
    b = Brain.init(tmp_path / "brain", embedder=embedder)
    for key, body in CORPUS:
        b.remember(body, key=key)
    sqlite_top = {q: [h.record.key for h in b.recall(q, k=3, touch=False, explain=True)] for q in QUERIES}
    sqlite_judged = {q: [(h.record.key, h.confidence, h.evidence.matched) for h in b.recall(q, k=3)] for q in QUERIES}
    sqlite_vec = {q: sorted((h.record.key, h.explain["vector"]["rank"]) for h in b.recall(q, k=10, touch=False, explain=True)
                            if h.explain["vector"]) for q in QUERIES}
    b.close()
    settings("postgres", pg_dsn, "same" + uuid.uuid4().hex[:8])
    p = reopen(b)
    stats = p.index.rebuild()
    assert stats.embedded == 0 and stats.reused == len(CORPUS)  # the SQLite catalog's vectors, by text checksum
    pg_top = {q: [h.record.key for h in p.recall(q, k=3, touch=False, explain=True)] for q in QUERIES}
    pg_judged = {q: [(h.record.key, h.confidence, h.evidence.matched) for h in p.recall(q, k=3)] for q in QUERIES}
    pg_vec = {q: sorted((h.record.key, h.explain["vector"]["rank"]) for h in p.recall(q, k=10, touch=False, explain=True)
                        if h.explain["vector"]) for q in QUERIES}
    p.close()
    assert pg_vec == sqlite_vec  # same vectors, same neighbours
    assert {q: v[0] for q, v in pg_top.items()} == {q: v[0] for q, v in sqlite_top.items()}
    # the same words found in the same records, so the same confidence (one query to the server for
    # all the words on PostgreSQL, a small full-text table of the candidates on SQLite)
    assert {q: v[0] for q, v in pg_judged.items()} == {q: v[0] for q, v in sqlite_judged.items()}


def test_the_catalog_interface_answers_alike_on_both(any_brain):
    """What the write path, link on write and the project lift ask of the catalog (catalog/base.py)."""
    import numpy as np

    from brain_core.store.shelves import load_doc

    b = any_brain
    b.remember("The staging database is restored from Sunday's snapshot.", key="staging-restore",
               tags=["project:atlas-web"])
    b.remember("Invoices are sent on the first working day of the month.", key="invoices")
    paths = sorted(p.relative_to(b.root).as_posix() for p in (b.root / "memories").rglob("*.json"))
    assert len(paths) == 2
    stored = b.index.stored_vectors(paths + ["memories/me/not-there.json"])
    assert sorted(stored) == paths  # written through index_written, the one apply of a write
    for vec in stored.values():
        assert vec.dtype == np.float32 and abs(float(np.linalg.norm(vec)) - 1) < 1e-3
    docs = [load_doc(p, (b.root / p).read_bytes(), 0, 0) for p in paths]
    vecs, reused = b.index.vectors_for(docs)
    assert reused == 2  # by text checksum: nothing embedded again
    for doc, vec in zip(docs, vecs):
        assert float(np.dot(np.asarray(vec, dtype=np.float32), stored[doc.path])) > 0.999
    assert b.index.has_project("atlas-web")
    # SQLite can tell cheaply that no record carries a project; the server catalog always looks further
    assert b.index.has_project("no-such-project") is (b.index.backend == "postgres")
    counts = b.index.counts()["by_shelf"]
    assert counts.get("memories") == 2
    # the router's probe: one record holding every word of one group
    assert b.index.holds_words([("staging", "snapshot")])
    assert not b.index.holds_words([("staging", "invoices")])
    assert b.index.holds_words([("staging", "invoices"), ("invoices", "month")])


def test_the_server_catalogs_own_statements_need_no_translation(tmp_path, embedder, pg_dsn, monkeypatch):  # noqa: F811
    """PgIndex's counts, folder times, staleness check, scan, apply, transactions, stored vectors and
    word probe are written in PostgreSQL: the connection has no SQLite-dialect ``execute`` left (the
    translation of ``?`` into ``%s`` is gone), so a statement of SQLite's would fail here."""
    from brain_core.catalog.postgres.index import PgConn

    settings("postgres", pg_dsn, "t" + uuid.uuid4().hex[:12])
    b = Brain.init(tmp_path / "brain", embedder=embedder)
    try:
        b.remember("The staging database is restored from Sunday's snapshot.", key="staging-restore")
        rel = next((b.root / "memories").rglob("*.json")).relative_to(b.root).as_posix()
        conn = b.index.conn()

        assert not hasattr(PgConn, "execute") and not hasattr(PgConn, "executemany")
        assert b.index.counts()["by_shelf"] == {"memories": 1}
        assert list(b.index.stored_vectors([rel])) == [rel]
        assert b.index.holds_words([("staging", "snapshot")]) and not b.index.holds_words([("staging", "invoice")])
        folder = rel.rsplit("/", 1)[0]
        conn.pg("DELETE FROM dirs WHERE path = %s", (folder,))
        b.index._note_dirs(conn, rel)
        stored = dict(conn.pg("SELECT path, mtime_ns FROM dirs").fetchall())
        assert stored[folder] == os.stat(b.root / folder).st_mtime_ns
        # the staleness check and its bookkeeping
        from brain_core.store.shelves import dir_mtimes

        assert b.index.stale_dirs(conn) == []
        (b.root / "memories" / "me" / "dropped-in.json").write_text("{}")
        os.utime(b.root / "memories" / "me", ns=(1, 1))  # a folder time no scan has seen
        assert b.index.stale_dirs(conn) == ["memories/me"]
        assert b.index._paths_like(conn, "memories/%") == [rel] and b.index._problem_paths(conn) == set()
        b.index._store_dirs(conn, dir_mtimes(b.root))
        assert b.index.stale_dirs(conn) == []
        # the scan's reads, of everything and of one folder
        report = b.index.scan(conn=conn)
        assert [p.path for p in report.problems] == ["memories/me/dropped-in.json"] and report.unchanged == 1
        one = b.index.scan(dirs=["memories/me"], conn=conn)
        assert one.unchanged == 1 and not one.new and not one.deleted
        # apply: the bad file is noted, the scan time stored, and a second scan knows the problem
        with b.lock():
            stats = b.index.apply(report, conn=conn)
        assert stats.written == 0 and stats.deleted == 0
        assert [p.path for p in b.index.counts()["problems"]] == ["memories/me/dropped-in.json"]
        assert b.index.counts()["scanned"] is not None
        again = b.index.scan(conn=conn)
        assert [p.message for p in again.problems] == [p.message for p in report.problems]
        # catch-up and the write path's index_written, transactions included
        rec = {"id": "20260101-000000000-abc001", "type": "fact", "key": "pulled", "profile": "me",
               "body": "A pulled note about the warehouse robots.", "tags": []}
        (b.root / "memories/me/pulled.json").write_text(json.dumps(rec))
        assert b.index.catch_up() == "caught-up"
        assert b.index.counts()["by_shelf"] == {"memories": 2}
        from brain_core.store.shelves import load_doc

        data = (b.root / rel).read_bytes()
        with b.lock():
            b.index.index_written([load_doc(rel, data, len(data), os.stat(b.root / rel).st_mtime_ns)])
        assert b.index.stale_dirs(conn) == []
    finally:
        b.close()


def test_a_failed_statement_in_a_server_transaction_is_the_error_told_and_is_rolled_back(tmp_path, embedder, pg_dsn):  # noqa: F811
    import psycopg

    from brain_core.catalog.postgres.index import pg_tx as tx

    settings("postgres", pg_dsn, "t" + uuid.uuid4().hex[:12])
    b = Brain.init(tmp_path / "brain", embedder=embedder)
    try:
        conn = b.index.conn()
        assert not conn.in_transaction
        with pytest.raises(psycopg.errors.DivisionByZero):  # not an AttributeError from the rollback
            with tx(conn):
                assert conn.in_transaction
                conn.pg("INSERT INTO meta VALUES('probe', 'x')")
                conn.pg("SELECT 1 / 0")
        assert not conn.in_transaction
        assert conn.pg("SELECT v FROM meta WHERE k = 'probe'").fetchone() is None  # rolled back; usable again
    finally:
        b.close()
