"""The write path's promises, each checked where it lands: the file, the catalog, git and the event log."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

AWS_KEY = "AKIAIOSFODNN7EXAMPLE"


def git(root: Path, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=root, capture_output=True, text=True, check=True).stdout


def test_a_secret_in_a_tag_never_reaches_the_file_the_catalog_or_git(brain):
    rec = brain.remember("The deploy bot's credentials were rotated.", key="bot-creds",
                         tags=["ops", f"key {AWS_KEY}"], source=f"pasted {AWS_KEY}")
    assert rec.tags == ["ops", "key [REDACTED:aws-key]"]
    assert rec.source == "pasted [REDACTED:aws-key]"
    on_disk = json.loads((brain.root / "memories/me/bot-creds.json").read_text())
    assert on_disk["tags"] == ["ops", "key [REDACTED:aws-key]"]
    assert AWS_KEY not in git(brain.root, "log", "-p", "--all")
    assert AWS_KEY not in (brain.root / ".aida/events.jsonl").read_text()
    (tags,) = brain.index.conn().execute("SELECT tags FROM docs WHERE key = 'bot-creds'").fetchone()
    assert AWS_KEY not in tags and "[REDACTED:aws-key]" in tags


def test_superseding_keeps_the_old_records_extra_fields(brain):
    first = brain.remember("The retry cap is six.", key="retry-cap", extra={"origin": "import", "ticket": 7})
    second = brain.remember("The retry cap is eight.", key="retry-cap", extra={"ticket": 8})
    assert second.supersedes == first.id
    on_disk = json.loads((brain.root / "memories/me/retry-cap.json").read_text())
    assert on_disk["origin"] == "import"  # kept from the old record
    assert on_disk["ticket"] == 8         # the new value wins
    assert on_disk["supersedes"] == first.id and on_disk["body"] == "The retry cap is eight."
    third = brain.remember("The retry cap is nine.", key="retry-cap")
    on_disk = json.loads((brain.root / "memories/me/retry-cap.json").read_text())
    assert (on_disk["origin"], on_disk["ticket"], on_disk["supersedes"]) == ("import", 8, second.id)
    assert third.extra == {"origin": "import", "ticket": 8}


def test_an_extra_field_alone_is_a_change_and_the_same_extra_is_not(brain):
    brain.remember("Standup is at 9:30.", key="standup", extra={"room": "blue"})
    commits = git(brain.root, "rev-list", "--count", "HEAD")
    brain.remember("Standup is at 9:30.", key="standup", extra={"room": "blue"})
    assert git(brain.root, "rev-list", "--count", "HEAD") == commits
    rec = brain.remember("Standup is at 9:30.", key="standup", extra={"room": "green"})
    assert int(git(brain.root, "rev-list", "--count", "HEAD")) == int(commits) + 1
    assert json.loads((brain.root / "memories/me/standup.json").read_text())["room"] == "green"
    assert rec.supersedes is not None


def test_each_write_is_one_commit_and_one_event_line(brain):
    brain.remember_many([dict(body="Alpha runs on Mondays.", key="alpha"),
                         dict(body="Beta runs on Tuesdays.", key="beta", profile="codex")], message="two at once")
    assert git(brain.root, "log", "-1", "--format=%s").strip() == "two at once"
    assert sorted(git(brain.root, "show", "--name-only", "--format=", "HEAD").split()) == \
        ["memories/codex/beta.json", "memories/me/alpha.json"]
    events = [json.loads(line) for line in (brain.root / ".aida/events.jsonl").read_text().splitlines()]
    assert [(e["event"], e["path"], e["key"], e["profile"], e["first_line"]) for e in events] == [
        ("remembered", "memories/me/alpha.json", "alpha", "me", "Alpha runs on Mondays."),
        ("remembered", "memories/codex/beta.json", "beta", "codex", "Beta runs on Tuesdays.")]
    one = brain.remember("Gamma runs on Fridays.", key="gamma")
    assert git(brain.root, "log", "-1", "--format=%s").strip() == "remember: memories/me/gamma.json"
    assert one.key == "gamma"


@pytest.mark.parametrize("value", [5, 2.5, True, {"path": "x"}, ["a"]])
def test_a_brain_setting_that_is_not_a_path_is_refused_by_name(value, tmp_path):
    from brain_core.config import Config
    from brain_core.errors import BrainError

    cfg = Config(path=tmp_path / "c.yaml", data={"brain": value})
    with pytest.raises(BrainError, match=r"The `brain` setting in .*c\.yaml must be a folder path, not "):
        cfg.brain_path()


def test_a_brain_setting_that_is_a_path_is_used_with_home_expanded(tmp_path, monkeypatch):
    from brain_core.config import Config

    monkeypatch.setenv("HOME", str(tmp_path))
    assert Config(path=tmp_path / "c.yaml", data={"brain": "~/notes"}).brain_path() == tmp_path / "notes"
    assert Config(path=tmp_path / "c.yaml", data={"brain": "~/notes"}).brain_path(tmp_path / "cli") == tmp_path / "cli"
    monkeypatch.setenv("AIDA_BRAIN", str(tmp_path / "env"))
    assert Config(path=tmp_path / "c.yaml", data={"brain": "~/notes"}).brain_path() == tmp_path / "env"


# ------------------------------------------------------------------ what remember writes, field by field
LONG_BODY = ("The billing service deploys with blue-green switches; the old colour stays warm for an hour so a "
             "rollback is a switch back, not a redeploy. Database migrations run before the switch and must be "
             "backwards compatible for one release. The on-call engineer watches the error rate for fifteen "
             "minutes after each switch and rolls back on any rise above two percent. " * 2)


LONG_BODY = LONG_BODY.strip()


def test_remember_writes_every_field_it_is_given(brain):
    rec = brain.remember(LONG_BODY, type="decision", key="billing-deploys", profile="work", tags=["ops", "billing"],
                         source="codex:session:s9", created="2026-03-04T05:06:07Z", expires="2027-01-01T00:00:00Z",
                         provenance=["meeting:2026-03-04"], extra={"project": "billing"}, confidence=0.8,
                         message="decide billing deploys")
    path = brain.root / "memories" / "work" / "billing-deploys.json"
    data = json.loads(path.read_text())
    assert {k: data[k] for k in ("type", "key", "profile", "tags", "source", "created", "expires", "provenance",
                                 "confidence", "project", "body")} == {
        "type": "decision", "key": "billing-deploys", "profile": "work", "tags": ["ops", "billing"],
        "source": "codex:session:s9", "created": "2026-03-04T05:06:07Z", "expires": "2027-01-01T00:00:00Z",
        "provenance": ["meeting:2026-03-04"], "confidence": 0.8, "project": "billing", "body": LONG_BODY}
    assert data["abstract"] and len(data["abstract"]) < len(LONG_BODY)  # a long body gets its abstract
    assert rec.key == "billing-deploys" and rec.id == data["id"]
    assert git(brain.root, "log", "-1", "--format=%s").strip() == "decide billing deploys"


def test_remember_defaults(brain):
    import time

    from brain_core.records import parse_time

    before = time.time()
    brain.remember("Short and plain.", key="plain")
    data = json.loads((brain.root / "memories" / "me" / "plain.json").read_text())
    assert (data["type"], data["profile"], data["source"], data["confidence"], data["expires"]) == \
        ("fact", "me", "", 1, None)
    assert before - 2 <= parse_time(data["created"]).timestamp() <= time.time() + 1
    assert "abstract" not in data  # a short body is its own abstract
    assert git(brain.root, "log", "-1", "--format=%s").strip() == "remember: memories/me/plain.json"


def test_events_and_lessons_go_to_their_own_shelves(brain):
    ev = brain.remember("Quarterly review happened.", type="event", profile="work", created="2026-02-03T10:00:00Z")
    le = brain.remember("Run the migrations before the switch.", type="lesson")
    assert (brain.root / "events" / "work" / "2026-02" / f"{ev.id}.json").exists()
    assert (brain.root / "lessons" / f"{le.id}.json").exists()


@pytest.mark.parametrize("field, value, words", [
    ("created", "last tuesday", ["'last tuesday'", "ISO-8601"]),
    ("expires", "soon", ["'soon'", "ISO-8601"]),
])
def test_a_bad_date_is_refused_by_name_and_nothing_is_written(brain, field, value, words):
    from brain_core.errors import InvalidInput

    head = git(brain.root, "rev-parse", "HEAD")
    with pytest.raises(InvalidInput) as e:
        brain.remember("Dated thing.", key="dated", **{field: value})
    assert all(w in str(e.value) for w in words)
    assert not (brain.root / "memories" / "me" / "dated.json").exists()
    assert git(brain.root, "rev-parse", "HEAD") == head


def test_a_key_made_from_a_body_with_a_secret_keeps_no_part_of_it(brain):
    secret = "AKIAIOSFODNN7EXAMPLE"
    rec = brain.remember(f"{secret} is the deploy user's access key id", source=f"token {secret}")
    assert secret.lower()[:8] not in rec.key.lower() and "akia" not in rec.key.lower()
    data = json.loads((brain.root / "memories" / "me" / f"{rec.key}.json").read_text())
    assert secret not in json.dumps(data) and "deploy" in data["body"]


def test_several_records_in_one_commit_say_how_many(brain):
    brain.remember_many([dict(body="First fact.", key="first"), dict(body="Second fact.", key="second")])
    assert git(brain.root, "log", "-1", "--format=%s").strip() == "remember: 2 records"
    assert git(brain.root, "show", "--name-only", "--format=", "HEAD").split() == \
        ["memories/me/first.json", "memories/me/second.json"]


def test_the_same_record_again_is_no_commit_unless_a_crash_left_it_uncommitted(brain):
    brain.remember("Stable fact.", key="stable")
    head = git(brain.root, "rev-parse", "HEAD")
    brain.remember("Stable fact.", key="stable")
    assert git(brain.root, "rev-parse", "HEAD") == head  # nothing new: no commit
    # a crash after the file was written and before the commit: the same write commits it now
    (brain.root / "memories" / "me" / "stray.json").write_text(
        json.dumps(json.loads((brain.root / "memories" / "me" / "stable.json").read_text()) | {"key": "stray"}))
    brain.remember("Stable fact.", key="stray")
    assert git(brain.root, "log", "-1", "--format=%s").strip() == "remember: memories/me/stray.json"
    assert git(brain.root, "status", "--porcelain").strip() == ""


# ---------------------------------------------------------------------------- write_text: other brain files
def test_write_text_writes_commits_and_catalogs_a_knowledge_page(brain):
    text = "# Déploiements\n\nLe service de facturation bascule entre bleu et vert; naïve rollbacks are banned.\n"
    target = brain.write_text("knowledge/deploys.md", text, "knowledge: deploys")
    assert target == brain.root / "knowledge" / "deploys.md"
    assert target.read_bytes() == text.encode("utf-8") and brain.read_text("knowledge/deploys.md") == text
    assert git(brain.root, "log", "-1", "--format=%s").strip() == "knowledge: deploys"
    assert git(brain.root, "show", "--name-only", "--format=", "HEAD").split() == ["knowledge/deploys.md"]
    hits = brain.recall("facturation bascule", k=3)
    assert hits and hits[0].path == "knowledge/deploys.md"


def test_write_text_off_the_shelves_is_committed_but_not_catalogued(brain):
    brain.write_text("notes/todo.txt", "buy stamps for the facturation letters\n", "todo")
    assert git(brain.root, "show", "--name-only", "--format=", "HEAD").split() == ["notes/todo.txt"]
    assert brain.index.conn().execute("SELECT count(*) FROM docs WHERE path = 'notes/todo.txt'").fetchone()[0] == 0


def test_write_text_masks_a_secret_before_the_file_and_git(brain):
    key = "AKIAIOSFODNN7EXAMPLE"
    target = brain.write_text("knowledge/creds.md", f"# Creds\n\nThe deploy key id is {key}.\n", "creds")
    assert key not in target.read_text() and "deploy key id" in target.read_text()
    assert key not in git(brain.root, "log", "-p", "--all")


@pytest.mark.parametrize("rel", [".git/config", ".aida/index.sqlite", ".aida/x/y.txt"])
def test_write_text_refuses_git_and_aida_state(brain, rel):
    from brain_core.errors import InvalidInput

    target = brain.root / rel
    before = target.read_bytes() if target.exists() else None
    with pytest.raises(InvalidInput, match="own state"):
        brain.write_text(rel, "x", "nope")
    assert (target.read_bytes() if target.exists() else None) == before
