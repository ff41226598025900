"""The nightly pass on a real brain: expiry marks, decay to archive (nothing deleted), lint, INDEX.md."""

from __future__ import annotations

import json
import time

import pytest

from brain_core.cli import main
from brain_core.errors import InvalidInput
from brain_core.lifecycle.common import EXPIRED_TAG
from brain_core.lifecycle.maintain import due, maintain

OLD = "2024-01-15T09:00:00Z"
INDEX_BUDGET = 545


def _days_ago(n):
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(time.time() - n * 86400))


def _seed(brain):
    brain.remember("The old staging host was stage-7.", key="old-staging-host", created=OLD)
    brain.remember("Never store secrets in the repo.", type="instruction", key="no-secrets", created=OLD)
    brain.remember("The billing export runs nightly.", key="billing-export", created=OLD)
    brain.remember("The design review is on Thursday.", key="design-review")
    brain.remember("Standup notes from a day long ago.", type="event", created=OLD)
    brain.remember("The CDN does not support HTTP/3 yet.", key="cdn-http3", created=_days_ago(60),
                   expires=_days_ago(2))
    # the billing export was used recently (an answer cited it): used records do not fade
    brain.usage.bump(["memories/me/billing-export.json"], time.time() - 86400)
    # a small INDEX.md: the instruction and the newest facts are loaded, the oldest fact is shelved
    # (maintain never archives an entry INDEX.md loads on usage alone)
    brain.config.set("tier_index.budget_chars", INDEX_BUDGET)


def test_dry_run_writes_nothing(brain):
    _seed(brain)
    head = brain.head()
    files = sorted(p.relative_to(brain.root).as_posix() for p in brain.root.rglob("*.json") if ".git" not in p.parts
                   and ".aida" not in p.parts)
    report = maintain(brain, dry_run=True)
    assert report.dry_run and len(report.archived) == 2 and report.expired == ("memories/me/cdn-http3.json",)
    assert brain.head() == head and not (brain.root / "INDEX.md").exists()
    assert files == sorted(p.relative_to(brain.root).as_posix() for p in brain.root.rglob("*.json")
                           if ".git" not in p.parts and ".aida" not in p.parts)
    assert due(brain)


def test_maintain_marks_archives_lints_and_indexes(brain):
    _seed(brain)
    event = next(p for p in brain.root.glob("events/me/*/*.json")).relative_to(brain.root).as_posix()
    cdn_id = brain.get("memories/me/cdn-http3.json").id
    (brain.root / "memories/me/broken.json").write_text("{not json")
    report = maintain(brain)

    # expired dated negative: marked in place, same id
    cdn = brain.get("memories/me/cdn-http3.json")
    assert EXPIRED_TAG in cdn.tags and cdn.id == cdn_id
    # low-value and long unused: moved to archive/, never deleted
    moved = dict(report.archived)
    assert moved == {"memories/me/old-staging-host.json": "archive/memories/me/old-staging-host.json",
                     event: f"archive/{event}"}
    for src, dst in moved.items():
        assert not (brain.root / src).exists() and (brain.root / dst).exists()
    # protected by type, by recent use, by age
    for kept in ("no-secrets", "billing-export", "design-review"):
        assert (brain.root / f"memories/me/{kept}.json").exists()
    assert report.scores["memories/me/billing-export.json"] > report.scores["memories/me/old-staging-host.json"]
    # lint ran, INDEX.md regenerated, all committed
    assert any("broken.json" in p for p in report.problems)
    index = (brain.root / "INDEX.md").read_text()
    assert "old-staging-host" not in index and "no-secrets" in index
    assert index.index("design-review") < index.index("cdn-http3")  # the expired one goes last
    assert brain.git.uncommitted(["memories", "events", "archive", "INDEX.md"]) == ["memories/me/broken.json"]
    assert all(h.path != "memories/me/old-staging-host.json" for h in brain.recall("old staging host", k=5))
    assert not due(brain)
    state = json.loads((brain.root / ".aida/maintain.json").read_text())
    assert state["report"]["archived"][0]["to"].startswith("archive/")
    # a second pass has nothing left to do
    again = maintain(brain)
    assert again.archived == () and again.expired == ()


def test_grace_period_and_threshold_are_settings(brain):
    _seed(brain)
    brain.config.set("maintain.grace_days", 5000)
    assert maintain(brain, dry_run=True).archived == ()
    brain.config.set("maintain.grace_days", 30)
    brain.config.set("maintain.keep_types", [])
    report = maintain(brain, dry_run=True)
    # no longer protected by its type, but INDEX.md loads it: kept, and said so
    assert "memories/me/no-secrets.json" not in dict(report.archived)
    assert "memories/me/no-secrets.json" in report.kept_in_index
    brain.config.set("tier_index.budget_chars", 200)  # nothing fits: everything is on the shelf
    report = maintain(brain, dry_run=True)
    assert "memories/me/no-secrets.json" in dict(report.archived) and report.kept_in_index == ()


def test_an_index_entry_is_never_archived_on_usage_alone(brain):
    _seed(brain)
    brain.config.set("tier_index.budget_chars", 6000)  # everything fits INDEX.md
    report = maintain(brain)
    assert "memories/me/old-staging-host.json" in report.kept_in_index
    assert (brain.root / "memories/me/old-staging-host.json").exists()
    assert all(not src.startswith("memories/") for src, _ in report.archived)  # the event still goes


def test_reader_only_reports(brain):
    _seed(brain)
    brain.config.set("machine.role", "reader")
    head = brain.head()
    report = maintain(brain)
    assert report.reader and report.dry_run and report.archived and brain.head() == head
    assert (brain.root / "memories/me/old-staging-host.json").exists()


def test_maintain_cli(brain, monkeypatch, capsys):
    _seed(brain)
    brain.config.save()  # the CLI reads the settings file: the small INDEX.md budget with it
    monkeypatch.setenv("AIDA_BRAIN", str(brain.root))
    assert main(["brain", "maintain", "--dry-run"]) == 0
    out = capsys.readouterr().out
    assert "memories/me/old-staging-host.json -> archive/memories/me/old-staging-host.json" in out
    assert main(["brain", "maintain", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert len(data["archived"]) == 2 and data["index"]["loaded"] >= 2 and data["kept_in_index"] == []
    assert main(["brain", "budget"]) == 0


@pytest.mark.parametrize("setting", ["maintain.grace_days", "maintain.archive_below"])
def test_bad_setting_is_one_sentence(brain, setting):
    brain.config.set(setting, "soon")
    with pytest.raises(InvalidInput) as e:
        maintain(brain, dry_run=True)
    assert setting in str(e.value) and "aida config set" in str(e.value) and "\n" not in str(e.value)
