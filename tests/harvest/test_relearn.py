"""Relearn: sessions the offline distiller read are marked in the watermark; `aida brain backfill
--relearn` reads them again through a model (a fake `claude` on PATH), newest first, resumable,
superseding by key and retiring the offline records the model did not keep: no duplicates."""

from __future__ import annotations

import json
import os

import pytest

from brain_core.cli import main
from brain_core.errors import InvalidInput
from brain_core.harvest.backfill import backfill
from brain_core.marks import OFFLINE_CONFIDENCE, OFFLINE_TAG
from tests.helpers.fake_agents import calls, install, on_path

RULES = ("We decided to always run the billing migrations in a transaction because a half-applied one broke prod.",
         "We decided to never log card numbers, even masked, because the auditors flag it.",
         "We decided to always pin the webhook retry count at six because Stripe retries too.")


def _sessions(home, n=3):
    project = home / ".claude" / "projects" / "-home-dev-acme-billing"
    project.mkdir(parents=True)
    paths = []
    for i in range(n):
        sid = f"0000000{i}-aaaa-4bbb-8ccc-dddddddddddd"
        lines = [{"type": "user", "cwd": "/home/dev/acme-billing", "sessionId": sid, "uuid": f"u{i}",
                  "timestamp": f"2026-08-2{i}T10:00:00Z", "message": {"role": "user", "content": RULES[i]}},
                 {"type": "assistant", "cwd": "/home/dev/acme-billing", "sessionId": sid, "uuid": f"a{i}",
                  "parentUuid": f"u{i}", "timestamp": f"2026-08-2{i}T10:00:05Z",
                  "message": {"role": "assistant", "content": [{"type": "text", "text": "Noted; done."}]}}]
        p = project / f"{sid}.jsonl"
        p.write_text("".join(json.dumps(x) + "\n" for x in lines))
        os.utime(p, (1.7e9 + i * 100, 1.7e9 + i * 100))
        paths.append(p)
    return {"claude": home / ".claude"}, paths


@pytest.fixture
def fakes(tmp_path, monkeypatch, home):
    bin_dir = install(tmp_path / "bin")
    on_path(monkeypatch, bin_dir)
    monkeypatch.delenv("AIDA_CHILD", raising=False)
    return bin_dir


def _live(brain):
    return {p: r for p, r in brain.records() if p.startswith("memories/")}


def test_offline_sessions_are_marked_and_relearned_newest_first_without_duplicates(brain, home, fakes):
    roots, paths = _sessions(home)
    first = backfill(brain, roots=roots, sources=("claude",))
    assert first.done == 3 and first.offline == 3 and first.records == 3
    wm = json.loads((brain.root / "harvest" / "claude.json").read_text())
    assert all(s["offline"] for s in wm["sessions"].values())
    offline_paths = set(_live(brain))
    assert len(offline_paths) == 3
    assert all(OFFLINE_TAG in r.tags and r.confidence == OFFLINE_CONFIDENCE for r in _live(brain).values())

    brain.config.set("llm.provider", "claude-code")
    brain.config.set("llm.cli.batch_chars", 0)  # one call per session, to see the order
    seen = []
    p = backfill(brain, roots=roots, sources=("claude",), relearn=True, on_progress=lambda pr: seen.append(pr.done))
    assert p.done == 3 and p.offline == 0 and p.calls == 3 and seen == [0, 3]
    made = calls(fakes)
    assert [RULES.index(next(r for r in RULES if r[:40] in c["stdin"])) for c in made] == [2, 1, 0]  # newest first
    live = _live(brain)
    assert not offline_paths & set(live)  # the offline readings were retired...
    archived = {str(f.relative_to(brain.root)) for f in (brain.root / "archive").rglob("*.json")}
    assert {f"archive/{p}" for p in offline_paths} == archived  # ...to archive/, nothing deleted
    assert len(live) == 3 and len({r.body for r in live.values()}) == 3
    assert all(r.key.startswith("we-decided-to") for r in live.values())
    assert all(OFFLINE_TAG not in r.tags and r.confidence == 1 for r in live.values())  # a model read them
    wm = json.loads((brain.root / "harvest" / "claude.json").read_text())
    assert not any(s.get("offline") for s in wm["sessions"].values())
    assert backfill(brain, roots=roots, sources=("claude",), relearn=True).total == 0  # nothing left to relearn
    bf = json.loads((brain.root / "harvest" / "backfill.json").read_text())
    assert bf["relearn"] and bf["provider"] == "claude-code" and bf["calls"] == 3


def test_relearn_is_resumable_and_supersedes_by_key(brain, home, fakes):
    roots, paths = _sessions(home)
    backfill(brain, roots=roots, sources=("claude",))
    brain.config.set("llm.provider", "claude-code")
    brain.config.set("llm.cli.batch_chars", 0)
    one = backfill(brain, roots=roots, sources=("claude",), relearn=True, limit=1)
    assert one.done == 1 and len(calls(fakes)) == 1
    rest = backfill(brain, roots=roots, sources=("claude",), relearn=True)
    assert rest.total == 2 and rest.done == 2 and len(calls(fakes)) == 3
    # a session that is offline again (read while the model was away) is relearned onto the same key
    wm = json.loads((brain.root / "harvest" / "claude.json").read_text())
    sid = next(iter(wm["sessions"]))
    wm["sessions"][sid]["offline"] = True
    brain.write_text("harvest/claude.json", json.dumps(wm), "mark one offline again")
    before = len(_live(brain))
    again = backfill(brain, roots=roots, sources=("claude",), relearn=True)
    assert again.done == 1 and again.records == 0  # same key, same body: superseded by itself, nothing new
    assert len(_live(brain)) == before


def test_relearn_needs_a_model_and_says_so(brain, home, capsys):
    roots, _ = _sessions(home)
    backfill(brain, roots=roots, sources=("claude",))
    with pytest.raises(InvalidInput, match="needs a model|none is configured"):
        backfill(brain, roots=roots, relearn=True)


def test_relearn_from_the_cli_and_a_model_that_goes_away(brain, home, fakes, capsys):
    from tests.helpers.fake_agents import set_mode

    roots, _ = _sessions(home)
    brain.config.set("harvest.roots", {"claude": str(roots["claude"])})
    brain.config.save()
    assert main(["--brain", str(brain.root), "brain", "backfill"]) == 0
    assert "Backfill: 3 sessions read" in capsys.readouterr().out
    brain.config.set("llm.provider", "claude-code")
    brain.config.set("llm.cli.batch_chars", 0)
    brain.config.save()
    set_mode(fakes, "claude", "logged-out")
    assert main(["--brain", str(brain.root), "brain", "backfill", "--relearn"]) == 0
    out = capsys.readouterr().out
    assert "not logged in" in out and "Relearn: 0 sessions read" in out
    wm = json.loads((brain.root / "harvest" / "claude.json").read_text())
    assert all(s.get("offline") for s in wm["sessions"].values())  # still waiting for a model
    set_mode(fakes, "claude", "ok")
    assert main(["--brain", str(brain.root), "brain", "backfill", "--relearn"]) == 0
    assert "Relearn: 3 sessions read" in capsys.readouterr().out


def test_a_confirmed_record_outlives_relearn_and_a_later_offline_reading(brain, home, fakes):
    from brain_core.harvest.run import sweep
    from brain_core.lifecycle.forget import confirm

    roots, paths = _sessions(home)
    backfill(brain, roots=roots, sources=("claude",))
    offline = _live(brain)
    mine = next(p for p, r in offline.items() if "card numbers" in r.body)
    rel, rec, changed = confirm(brain, offline[mine].key)
    assert rel == mine and changed and OFFLINE_TAG not in rec.tags

    # the same sentence in a new session, read offline: the confirmed record stays as it is
    project = paths[0].parent
    sid = "00000009-aaaa-4bbb-8ccc-dddddddddddd"
    line = {"type": "user", "cwd": "/home/dev/acme-billing", "sessionId": sid, "uuid": "u9",
            "timestamp": "2026-08-29T10:00:00Z", "message": {"role": "user", "content": RULES[1]}}
    (project / f"{sid}.jsonl").write_text(json.dumps(line) + "\n")
    os.utime(project / f"{sid}.jsonl", (1.7e9 + 900, 1.7e9 + 900))
    sweep(brain, roots=roots, sources=("claude",), clock=lambda: 1.7e9 + 9000)
    again = brain.get(mine)
    assert again.id == rec.id and OFFLINE_TAG not in again.tags and again.confidence == 1

    # a model reads the sessions again: the unchecked records are retired, the confirmed one stays
    brain.config.set("llm.provider", "claude-code")
    brain.config.set("llm.cli.batch_chars", 0)
    backfill(brain, roots=roots, sources=("claude",), relearn=True)
    live = _live(brain)
    assert mine in live and live[mine].id == rec.id
    assert not (set(offline) - {mine}) & set(live)  # the two left unchecked went to archive/
    archived = {str(f.relative_to(brain.root)) for f in (brain.root / "archive").rglob("*.json")}
    assert f"archive/{mine}" not in archived and len(archived) == 2
