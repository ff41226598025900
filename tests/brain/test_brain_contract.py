"""The Brain object's promises, each checked on its exact result: where init may put a brain and
what it commits, whose name the commits carry, what a write keeps of the caller's key, expiry and
extra fields, what a repeated write does, what the tray's event line holds, and what recall passes
on (explain, shelves, touch, a given query vector). Real brains: git repo, files, SQLite catalog."""

from __future__ import annotations

import json
import os
import stat
import subprocess

import pytest

from brain_core import Brain
from brain_core.config import Config
from brain_core.errors import InvalidInput


def _log(root) -> list[str]:
    out = subprocess.run(["git", "-C", str(root), "log", "--format=%an <%ae>|%s"], capture_output=True, text=True,
                         check=True).stdout
    return out.splitlines()


# -- init --------------------------------------------------------------------------------------------


def test_init_refuses_a_file_by_name(tmp_path, embedder):
    f = tmp_path / "notes.txt"
    f.write_text("not a folder")
    with pytest.raises(InvalidInput, match=r"notes\.txt exists and is not a folder"):
        Brain.init(f, embedder=embedder)
    assert f.read_text() == "not a folder"


def test_init_makes_missing_parents_and_takes_an_existing_empty_folder(tmp_path, embedder):
    deep = Brain.init(tmp_path / "a" / "b" / "brain", embedder=embedder)
    assert (deep.root / "memories" / ".gitkeep").exists()
    deep.close()
    (tmp_path / "empty").mkdir()
    b = Brain.init(tmp_path / "empty", embedder=embedder)
    assert _log(b.root) == ["Aida <aida@brain.invalid>|Initialise the brain"]
    b.close()


def test_init_again_restores_the_layout_in_one_commit_and_otherwise_commits_nothing(tmp_path, embedder):
    b = Brain.init(tmp_path / "brain", embedder=embedder)
    b.close()
    again = Brain.init(tmp_path / "brain", embedder=embedder)
    assert len(_log(again.root)) == 1  # nothing was missing: nothing to commit
    again.close()
    subprocess.run(["git", "-C", str(tmp_path / "brain"), "rm", "-q", "events/.gitkeep"], check=True)
    subprocess.run(["git", "-C", str(tmp_path / "brain"), "commit", "-q", "-m", "drop a folder"], check=True)
    restored = Brain.init(tmp_path / "brain", embedder=embedder)
    assert (restored.root / "events" / ".gitkeep").exists()
    assert _log(restored.root)[0].endswith("|Restore the brain's layout")
    restored.close()


def test_init_keeps_a_folders_own_gitignore_and_glossary_and_commits_them(tmp_path, embedder):
    root = tmp_path / "brain"
    root.mkdir()
    (root / ".gitignore").write_text(".aida/\nscratch/\n")
    (root / "glossary.yaml").write_text("terms:\n  - name: Ngozi\n    aliases: [Nagozi]\n")
    b = Brain.init(root, embedder=embedder)
    assert (root / ".gitignore").read_text() == ".aida/\nscratch/\n"
    assert (root / "glossary.yaml").read_text() == "terms:\n  - name: Ngozi\n    aliases: [Nagozi]\n"
    tracked = subprocess.run(["git", "-C", str(root), "ls-files"], capture_output=True, text=True,
                             check=True).stdout.split()
    assert {".gitignore", "glossary.yaml", "memories/.gitkeep", "events/.gitkeep"} <= set(tracked)
    assert (root / "memories" / ".gitkeep").read_bytes() == b""
    assert subprocess.run(["git", "-C", str(root), "status", "--porcelain"], capture_output=True, text=True,
                          check=True).stdout == ""  # nothing of init's is left uncommitted
    assert b.index.path.exists()  # the catalog is made with the brain, not on the first question
    b.close()


def test_a_writer_waits_for_the_brains_write_lock_held_by_another_process(brain):
    import threading

    from brain_core.store.locks import FileLock

    other = FileLock(brain.root / ".aida" / "write.lock", timeout=5)  # as another process would take it
    other.acquire()
    done = threading.Event()
    t = threading.Thread(target=lambda: (brain.remember("The lock is shared.", key="lock"), done.set()))
    t.start()
    assert not done.wait(0.5)  # the write waits while the lock is held...
    other.release()
    assert done.wait(30)  # ...and goes ahead once it is released
    t.join()
    assert (brain.root / "memories/me/lock.json").exists()


def test_init_uses_the_given_settings_and_model_and_signs_commits_with_the_identity(tmp_path, embedder):
    cfg = Config(path=tmp_path / "config.yaml", data={})
    cfg.set("identity.name", "Brain Keeper")
    cfg.set("identity.email", "keeper@example.org")
    b = Brain.init(tmp_path / "brain", config=cfg, embedder=embedder)
    assert b.config is cfg and b.embedder is embedder
    b.remember("The staging deploy runs at 2pm.", key="staging-deploy")
    assert {line.split("|")[0] for line in _log(b.root)} == {"Brain Keeper <keeper@example.org>"}
    b.close()


def test_open_shares_no_model_unless_given_and_refuses_a_folder_that_is_no_brain(tmp_path, embedder):
    Brain.init(tmp_path / "brain", embedder=embedder).close()
    b = Brain.open(tmp_path / "brain")
    assert b._embedder is None  # loaded lazily on the first text that needs it
    b.close()
    (tmp_path / "plain").mkdir()
    with pytest.raises(Exception, match="is not a brain"):
        Brain.open(tmp_path / "plain")
    subprocess.run(["git", "init", "-q", str(tmp_path / "repo")], check=True)  # a git repo, but no brain
    with pytest.raises(Exception, match=r"repo is not a brain; create one with `aida brain init` or point "
                                        r"--brain / \$AIDA_BRAIN at an existing one\.$"):
        Brain.open(tmp_path / "repo")


def test_open_uses_the_settings_it_is_given(tmp_path, embedder):
    Brain.init(tmp_path / "brain", embedder=embedder).close()
    cfg = Config(path=tmp_path / "config.yaml", data={})
    cfg.set("identity.name", "Brain Keeper")
    b = Brain.open(tmp_path / "brain", config=cfg)
    assert b.config is cfg and b.git.name == "Brain Keeper"
    b.close()


# -- the write path -----------------------------------------------------------------------------------


@pytest.fixture
def brain(tmp_path, embedder):
    b = Brain.init(tmp_path / "brain", embedder=embedder)
    yield b
    b.close()


def test_a_key_that_spells_a_secret_is_made_again_without_it(brain):
    rec = brain.remember("The deploy user rotates its key monthly.", key="deploy-AKIAIOSFODNN7EXAMPLE")
    assert "akia" not in rec.key.lower() and "iosfodnn7example" not in rec.key.lower()
    assert (brain.root / "memories" / "me" / f"{rec.key}.json").exists()
    assert not any("AKIAIOSFODNN7EXAMPLE" in line for line in _log(brain.root))


def test_the_callers_key_expiry_and_confidence_are_kept(brain):
    rec = brain.remember("The VPN certificate expires at the end of March.", key="vpn-cert",
                         expires="2027-03-31T00:00:00Z")
    data = json.loads((brain.root / "memories/me/vpn-cert.json").read_text())
    assert rec.key == "vpn-cert" and data["key"] == "vpn-cert"
    assert data["expires"] == "2027-03-31T00:00:00Z"
    assert data["confidence"] == 1
    with pytest.raises(InvalidInput, match="The expiry 'next spring' is not an ISO-8601 date"):
        brain.remember("Renew the domain.", key="domain", expires="next spring")
    with pytest.raises(InvalidInput, match="The date 'yesterday' is not ISO-8601"):
        brain.remember("Renew the domain.", key="domain", created="yesterday")


def test_the_same_write_again_changes_nothing_and_returns_the_record_on_disk(brain):
    first = brain.remember("Invoices are sent on the first weekday of the month.", key="invoices",
                           extra={"origin": "finance"})
    commits = len(_log(brain.root))
    again = brain.remember("Invoices are sent on the first weekday of the month.", key="invoices",
                           extra={"origin": "finance"})
    assert again.id == first.id and len(_log(brain.root)) == commits
    newer = brain.remember("Invoices are sent on the second weekday of the month.", key="invoices",
                           extra={"team": "billing"})
    data = json.loads((brain.root / "memories/me/invoices.json").read_text())
    assert newer.supersedes == first.id and data["supersedes"] == first.id
    assert newer.extra == {"origin": "finance", "team": "billing"}  # the old record's extra is kept
    assert (data["origin"], data["team"]) == ("finance", "billing")
    assert len(_log(brain.root)) == commits + 1


def test_each_write_tells_the_tray_in_one_json_line(brain):
    old = os.umask(0o022)
    try:
        first = brain.remember("Café opening hours: 8 to 4.", key="cafe-hours", source="claude:session-9")
        second = brain.remember("Café opening hours: 9 to 5.\nClosed on Sundays." + " x" * 150, key="cafe-hours",
                                source="claude:session-10")
    finally:
        os.umask(old)
    path = brain.state_dir / "events.jsonl"
    assert stat.S_IMODE(path.stat().st_mode) == 0o644
    raw = path.read_text(encoding="utf-8").splitlines()
    assert "Café" in raw[0]  # written as UTF-8, not \u escapes
    events = [json.loads(line) for line in raw]
    assert [e["event"] for e in events] == ["remembered", "remembered"]
    e = events[1]
    assert set(e) == {"event", "path", "key", "profile", "type", "first_line", "source", "supersedes", "at"}
    assert (e["path"], e["key"], e["profile"], e["type"]) == ("memories/me/cafe-hours.json", "cafe-hours", "me", "fact")
    assert e["first_line"] == "Café opening hours: 9 to 5."
    assert e["source"] == "claude:session-10" and e["supersedes"] == first.id and second.supersedes == first.id
    assert e["at"].endswith("Z") and events[0]["supersedes"] is None


def test_a_long_first_line_is_cut_at_200_characters_in_the_event(brain):
    rec = brain.remember("word " * 100, key="long-line")
    e = json.loads((brain.state_dir / "events.jsonl").read_text().splitlines()[-1])
    assert len(rec.body) > 400
    assert e["first_line"] == rec.body[:200] and len(e["first_line"]) == 200


def test_get_reads_a_record_by_its_path_and_never_outside_the_brain(brain):
    rec = brain.remember("The office wifi is called Lighthouse.", key="office-wifi")
    got = brain.get("memories/me/office-wifi.json")
    assert (got.id, got.key, got.body) == (rec.id, "office-wifi", "The office wifi is called Lighthouse.")
    with pytest.raises(InvalidInput):
        brain.get("../outside.json")


def test_records_written_together_are_findable_by_folder_at_once(brain):
    brain.remember_many([dict(body="Standup is at 9:30.", key="standup"),
                         dict(body="The retro is on Fridays.", type="event", created="2026-02-06T10:00:00Z"),
                         dict(body="Lunch and learn on Thursdays.", type="event", created="2026-03-05T10:00:00Z")])
    assert brain.index.stale_dirs() == []  # each written folder noted: no rescan on the next recall
    assert {h.record.body for h in brain.recall("standup retro lunch", k=5, catch_up=False)} == {
        "Standup is at 9:30.", "The retro is on Fridays.", "Lunch and learn on Thursdays."}


# -- recall passes on what it is given ----------------------------------------------------------------


def test_recall_explains_only_when_asked(brain):
    brain.remember("The release train leaves every second Thursday.", key="release-train")
    assert brain.recall("release train")[0].explain is None
    assert brain.recall("release train", explain=True)[0].explain["bm25"]["rank"] == 1


def test_recall_searches_the_shelves_it_is_given(brain):
    brain.remember("Deploys happen at 2pm.", key="deploys")
    brain.remember("Were deploys at 2pm too late for the team?", type="lesson", tags=["feedback:down"])
    assert [h.record.type for h in brain.recall("deploys 2pm", k=5)] == ["fact"]
    assert [h.record.type for h in brain.recall("deploys 2pm", k=5, shelves=["lessons"])] == ["lesson"]


def test_recall_counts_a_use_only_when_touch_is_asked(brain):
    brain.remember("The printer is on the third floor.", key="printer")
    path = "memories/me/printer.json"
    brain.recall("printer floor")
    assert brain.usage.get([path]).get(path, (0, None))[0] == 0
    brain.recall("printer floor", touch=True)
    assert brain.usage.get([path])[path][0] == 1


def test_recall_uses_the_query_vector_it_is_given(brain):
    brain.remember("Webhook retries back off exponentially, six attempts at most.", key="webhooks")
    brain.remember("The coffee machine is descaled on Mondays.", key="coffee")
    brain.config.set("recall.bm25_weight", 0.0)  # meaning only: the vector decides
    coffee = brain.embedder.embed(["coffee machine descaling"])[0]
    assert brain.recall("webhook retries", k=1)[0].record.key == "webhooks"
    assert brain.recall("webhook retries", k=1, query_vector=coffee)[0].record.key == "coffee"


# -- a catalog that fails while answering -------------------------------------------------------------


def _break_catalog(brain) -> None:
    """Damage the catalog under the open brain, as a bad disk or a crashed tool would: its table of
    records is gone. The files are untouched, so a rebuild from them gives every answer back."""
    from brain_core.catalog.sqlite import db

    conn = db.driver().connect(str(brain.index.path))
    conn.execute("DROP TABLE docs")
    conn.commit()
    conn.close()


@pytest.fixture
def team(brain):
    """Four records on one subject, with the profile, type, tags and dates to tell them apart."""
    brain.remember("The deploy window is 2pm on weekdays, agreed with the release team.", key="window",
                   profile="work", type="decision", tags=["infra"], created="2026-03-01T09:00:00Z")
    brain.remember("The deploy window on Fridays ends at noon.", key="friday", profile="work", type="decision",
                   tags=["ops"], created="2026-04-01T09:00:00Z")
    brain.remember("The garden app has no deploy window at all.", key="garden", profile="me", type="decision",
                   tags=["infra"], created="2026-05-01T09:00:00Z")
    brain.remember("Questions about a deploy window go to the release channel.", key="ask", profile="work",
                   tags=["infra"], created="2026-06-01T09:00:00Z")
    return brain


@pytest.mark.parametrize("failing", [False, True], ids=["healthy", "failing-catalog"])
def test_recall_passes_on_each_filter_even_when_the_catalog_fails_while_answering(team, failing, capsys):
    def keys(**kw):
        if failing:
            _break_catalog(team)
        return [h.record.key for h in team.recall("deploy window", **kw)]

    assert sorted(keys(k=10)) == ["ask", "friday", "garden", "window"]
    assert sorted(keys(k=10, profile="work")) == ["ask", "friday", "window"]
    assert sorted(keys(k=10, type="decision")) == ["friday", "garden", "window"]
    assert sorted(keys(k=10, tag="infra")) == ["ask", "garden", "window"]
    assert len(keys(k=2)) == 2
    assert keys(k=10, recent=True) == ["ask", "garden", "friday", "window"]  # newest first
    assert len(keys()) == 4  # five by default: all four
    notices = capsys.readouterr().err
    assert notices.count("the index failed while answering (no such table: docs)") == (7 if failing else 0)


@pytest.mark.parametrize("failing", [False, True], ids=["healthy", "failing-catalog"])
def test_recall_keeps_its_options_when_the_catalog_is_rebuilt_mid_answer(team, failing):
    def recall(*a, **kw):
        if failing:
            _break_catalog(team)
        return team.recall(*a, **kw)

    hits = recall("deploy window fridays", k=1, explain=True)
    assert hits[0].record.key == "friday" and hits[0].explain is not None
    assert recall("deploy window fridays", k=1)[0].explain is None
    team.remember("Was the Friday deploy window too short?", type="lesson", tags=["feedback:down"])
    assert [h.record.type for h in recall("Friday deploy window", k=5, shelves=["lessons"])] == ["lesson"]
    path = "memories/me/garden.json"
    recall("garden app deploy", k=1, touch=True)
    assert team.usage.get([path])[path][0] == 1
    team.config.set("recall.bm25_weight", 0.0)  # meaning only: the vector decides
    noon = team.embedder.embed(["a garden with no deploys"])[0]
    assert recall("release channel questions", k=1, query_vector=noon)[0].record.key == "garden"


def test_recall_catches_up_inline_only_as_many_files_as_the_setting_allows(brain):
    import time

    brain.remember("Anchor note about the ledger.", key="anchor")
    brain.config.set("index.catch_up_limit", 3)
    (brain.root / "memories/codex").mkdir()
    for i in range(5):  # arrived behind the index's back, as from `git pull`: more than the setting allows
        rec = {"id": f"20260101-000000000-{i:06x}", "type": "fact", "key": f"pulled-{i}", "profile": "codex",
               "body": f"Pulled memory {i}: the ledger closes at {i} pm.", "tags": []}
        (brain.root / f"memories/codex/pulled-{i}.json").write_text(json.dumps(rec))
    assert [h.record.key for h in brain.recall("ledger", k=20)] == ["anchor"]  # answered from the catalog as it is
    deadline = time.time() + 60
    while time.time() < deadline and brain.index.rebuild_running():  # the background rebuild (test_brain_core)
        time.sleep(0.1)
    brain.index.sync()
    assert len(brain.recall("ledger closes", k=20)) == 6


# -- the write path, continued ---------------------------------------------------------------------------


def _events(brain) -> list[dict]:
    f = brain.root / ".aida" / "events.jsonl"
    return [json.loads(line) for line in f.read_text().splitlines()] if f.exists() else []


def test_a_record_left_uncommitted_by_a_crash_is_committed_with_the_next_batch(brain):
    first = brain.remember("The backup runs nightly at 1am.", key="backup")
    # a crash after the file write, before the commit: the file is on disk, git has it as changed
    data = json.loads((brain.root / "memories/me/backup.json").read_text())
    (brain.root / "memories/me/restore.json").write_text(json.dumps(
        {**data, "id": first.id[:-1] + "0", "key": "restore", "body": "Restores are tested monthly."}))
    commits = len(_log(brain.root))
    brain.remember_many([dict(body="Restores are tested monthly.", key="restore"),
                         dict(body="The backup bucket is versioned.", key="bucket")])
    assert len(_log(brain.root)) == commits + 1
    assert subprocess.run(["git", "-C", str(brain.root), "status", "--porcelain"], capture_output=True, text=True,
                          check=True).stdout == ""
    assert sorted(e["key"] for e in _events(brain)[-2:]) == ["bucket", "restore"]


def test_a_write_that_changes_nothing_tells_the_tray_nothing(brain):
    brain.remember("The office closes at 6pm.", key="office")
    before = _events(brain)
    brain.remember("The office closes at 6pm.", key="office")
    brain.remember_many([dict(body="The office closes at 6pm.", key="office")])
    assert _events(brain) == before


def test_a_damaged_record_file_is_replaced_by_the_next_write_of_its_key(brain):
    (brain.root / "memories/me").mkdir()
    (brain.root / "memories/me/printer.json").write_text("{ not json")
    rec = brain.remember("The printer is on the third floor.", key="printer")
    data = json.loads((brain.root / "memories/me/printer.json").read_text())
    assert data["body"] == "The printer is on the third floor." and rec.supersedes is None


def test_a_supersede_never_takes_a_supersedes_field_from_the_callers_extra(brain):
    old = brain.remember("Standup is at 9:30.", key="standup")
    new = brain.remember("Standup is at 9:45.", key="standup", extra={"supersedes": "20200101-000000000-aaaaaa"})
    data = json.loads((brain.root / "memories/me/standup.json").read_text())
    assert new.supersedes == old.id and data["supersedes"] == old.id
    assert "supersedes" not in new.extra  # the record handed back says it once, as its field


def test_after_a_write_the_catalog_agrees_with_the_files_and_folders(brain):
    brain.remember_many([dict(body="The work VPN needs the hardware key.", key="vpn", profile="work"),
                         dict(body="The home VPN is off on weekends.", key="vpn", profile="home")])
    report = brain.index.scan(quick=True)
    assert (report.changes, report.touched, report.problems) == (0, (), ())
    assert brain.index.stale_dirs() == []  # both folders noted: the next recall scans nothing


def test_remember_many_takes_a_missing_confidence_as_certain(brain):
    (rec,) = brain.remember_many([dict(body="Payroll runs on the 25th.", key="payroll")])
    assert rec.confidence == 1
    assert json.loads((brain.root / "memories/me/payroll.json").read_text())["confidence"] == 1


@pytest.mark.parametrize("item, message", [
    (dict(body=None), "Nothing to remember: the body is empty."),
    (dict(body=42), "Nothing to remember: the body is empty."),
    (dict(body="Fine text.", key=42), "The key 42 is not a kebab-case slug"),
])
def test_a_body_or_key_that_is_not_text_is_refused_in_one_sentence(brain, item, message):
    with pytest.raises(InvalidInput) as e:
        brain.remember_many([item])
    assert str(e.value).startswith(message)
    assert _log(brain.root) == ["Aida <aida@brain.invalid>|Initialise the brain"]


def test_move_makes_new_folders_keeps_the_catalog_right_and_commits_every_move(brain):
    brain.remember("The lighthouse keeper retired in 1990.", key="lighthouse")
    brain.remember("The harbour master has a boat named Skylark.", key="harbour")
    brain.move([("memories/me/lighthouse.json", "archive/2026/q1/memories/me/lighthouse.json"),
                ("memories/me/harbour.json", "memories/port/harbour.json")], "archive one, file one elsewhere")
    assert (brain.root / "archive/2026/q1/memories/me/lighthouse.json").exists()
    assert subprocess.run(["git", "-C", str(brain.root), "status", "--porcelain"], capture_output=True, text=True,
                          check=True).stdout == ""
    assert _log(brain.root)[0].endswith("|archive one, file one elsewhere")
    paths = {p for (p,) in brain.index.conn().execute("SELECT path FROM docs")}
    assert paths == {"memories/port/harbour.json"}  # the archive is not searched; the moved record is
    assert [h.path for h in brain.recall("harbour master boat", k=3)] == ["memories/port/harbour.json"]


def test_a_use_is_a_citation_unless_said_otherwise(brain):
    brain.remember("The VPN certificate is renewed each March.", key="vpn")
    path = "memories/me/vpn.json"
    assert brain.mark_used(["", path, "   ", path]) == 1  # blanks are skipped, not the end of the list
    assert brain.mark_used([path], why="opened") == 1
    assert brain.usage.reasons(path) == {"cited": 1, "opened": 1}  # a path named twice in one call is one use
    with pytest.raises(InvalidInput, match="A use is one of cited, opened, copied, thumbs-up, not 'liked'"):
        brain.mark_used([path], why="liked")


def test_get_names_the_file_it_cannot_read(brain):
    from brain_core.errors import MalformedRecord

    (brain.root / "memories/me").mkdir()
    (brain.root / "memories/me/broken.json").write_text("{ not json")
    with pytest.raises(MalformedRecord, match="memories/me/broken.json"):
        brain.get("memories/me/broken.json")


def test_a_long_record_whose_file_has_an_empty_abstract_gets_one_at_recall(brain):
    body = ("The quarterly planning meeting moved the data migration to May. The vendor contract is renewed "
            "for two years with a price cap. Support hours stay nine to five on weekdays. The design review "
            "of the billing service found two races in the retry path. The on-call rota adds a second person "
            "at weekends. Hiring for the platform team is paused until July. The office move is set for the "
            "first week of September, and desks are booked through the new app. Travel needs approval by the "
            "team lead from now on.")
    brain.remember(body, key="planning")
    f = brain.root / "memories/me/planning.json"
    data = json.loads(f.read_text())
    assert data["abstract"]  # written with the record
    data["abstract"] = ""  # as an older Aida or a hand edit left it
    f.write_text(json.dumps(data))
    brain.index.sync()
    (hit,) = brain.recall("quarterly planning data migration", k=1)
    assert hit.record.abstract and hit.record.abstract.startswith("The quarterly planning meeting moved")


def test_recall_gives_five_hits_unless_asked_for_more(brain):
    brain.remember_many([dict(body=f"Greenhouse note {i}: the tomatoes need water every {i + 2} days.",
                              key=f"greenhouse-{i}") for i in range(7)])
    assert len(brain.recall("greenhouse tomatoes water")) == 5
    assert len(brain.recall("greenhouse tomatoes water", k=7)) == 7
