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
