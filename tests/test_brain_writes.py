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
