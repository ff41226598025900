"""Watermarks, the quiet window (with an injected clock) and trimming."""

from __future__ import annotations

import json
import os

import pytest
from harvest_homes import CLAUDE_ID, make_homes, session_files

from brain_core.config import Config
from brain_core.harvest import SessionFile
from brain_core.harvest.run import sweep
from brain_core.harvest.trim import trim
from brain_core.harvest.watermark import Watermark, check, quiet_seconds

T0 = 1_787_000_000.0  # a fixed "now" for the file times


class Clock:
    def __init__(self, t: float) -> None:
        self.t = t

    def __call__(self) -> float:
        return self.t


def _sf(size=100, mtime=T0, path="/x/a.jsonl", sid="a"):
    from pathlib import Path

    return SessionFile("claude", sid, Path(path), size, mtime)


def test_quiet_window_and_growth_rules():
    wm = Watermark("claude")
    quiet = 600.0
    assert check(wm, _sf(), now=T0 + 599, quiet_s=quiet).reason == "active"
    due = check(wm, _sf(), now=T0 + 600, quiet_s=quiet)
    assert due.due and due.reason == "new"
    assert check(wm, _sf(), now=T0 + 1, quiet_s=quiet, ignore_quiet=True).due
    wm.mark(_sf(), now=T0 + 600, records=["memories/claude/x.json"])
    assert check(wm, _sf(), now=T0 + 9999, quiet_s=quiet).reason == "unchanged"
    grown = _sf(size=150, mtime=T0 + 700)
    assert check(wm, grown, now=T0 + 800, quiet_s=quiet).reason == "active"
    assert check(wm, grown, now=T0 + 1300, quiet_s=quiet).reason == "grew"
    zst = _sf(size=40, path="/x/a.jsonl.zst")  # compressed in place: not new
    assert check(wm, zst, now=T0 + 9999, quiet_s=quiet).reason == "unchanged"


def test_quiet_minutes_setting(tmp_path):
    cfg = Config(tmp_path / "c.yaml", {})
    assert quiet_seconds(cfg) == 600
    cfg.set("harvest.quiet_minutes", 2)
    assert quiet_seconds(cfg) == 120
    cfg.set("harvest.quiet_minutes", "soon")
    assert quiet_seconds(cfg) == 600


def test_watermark_round_trip_and_damaged_file(brain):
    wm = Watermark("codex")
    wm.mark(_sf(sid="s1"), now=T0, records=["memories/codex/b.json", "memories/codex/a.json"])
    wm.save(brain)
    data = json.loads((brain.root / "harvest" / "codex.json").read_text())
    assert data["sessions"]["s1"]["records"] == ["memories/codex/a.json", "memories/codex/b.json"]
    assert data["through"] == data["sessions"]["s1"]["mtime"]
    again = Watermark.load(brain, "codex")
    assert again.sessions == wm.sessions
    brain.write_text("harvest/codex.json", "{not json", "damage")
    assert Watermark.load(brain, "codex").sessions == {}


def test_sweep_harvests_once_after_quiet_and_again_when_grown(brain, tmp_path):
    roots = make_homes(tmp_path / "home", memory=False, mtime=T0)
    clock = Clock(T0 + 60)  # one minute after the last write: still active
    r = sweep(brain, sources=("claude",), roots=roots, clock=clock)
    assert r.outcomes == [] and r.skipped == {"active": 1}

    clock.t = T0 + 601  # quiet for ten minutes
    r = sweep(brain, sources=("claude",), roots=roots, clock=clock)
    assert [o.session for o in r.outcomes] == [CLAUDE_ID] and r.outcomes[0].reason == "new"
    assert r.written == 1
    wm = json.loads((brain.root / "harvest" / "claude.json").read_text())
    assert wm["sessions"][CLAUDE_ID]["size"] == session_files(roots)["claude"].stat().st_size

    clock.t = T0 + 5000
    r = sweep(brain, sources=("claude",), roots=roots, clock=clock)
    assert r.outcomes == [] and r.skipped == {"unchanged": 1}

    path = session_files(roots)["claude"]
    with path.open("a", encoding="utf-8") as f:  # the session is resumed and grows
        f.write(json.dumps({"type": "user", "uuid": "late", "parentUuid": "s1000000-0000-4000-8000-000000000002",
                            "isSidechain": False, "timestamp": "2026-08-20T15:00:00Z",
                            "message": {"role": "user", "content": "Thanks, that is all."}}) + "\n")
    os.utime(path, (T0 + 6000, T0 + 6000))
    clock.t = T0 + 6100
    assert sweep(brain, sources=("claude",), roots=roots, clock=clock).skipped == {"active": 1}
    clock.t = T0 + 6601
    r = sweep(brain, sources=("claude",), roots=roots, clock=clock)
    assert [o.reason for o in r.outcomes] == ["grew"]
    assert r.written == 0  # the same decision again: superseding by key writes nothing new


def test_now_ignores_the_quiet_window(brain, tmp_path):
    roots = make_homes(tmp_path / "home", memory=False, mtime=T0)
    r = sweep(brain, sources=("codex",), roots=roots, clock=Clock(T0 + 1), ignore_quiet=True)
    assert [o.tool for o in r.outcomes] == ["codex"]


# ------------------------------------------------------------------------------------ trimming
def test_trim_keeps_short_text_and_cuts_long_text_at_turns():
    short = "[user] hello\n\n[assistant] hi"
    assert trim(short) == short
    turns = [f"[user] turn {i} " + "word " * 200 for i in range(100)]
    text = "\n\n".join(turns)
    out = trim(text)
    assert len(text) > 90_000
    assert 27_000 < len(out) <= 30_100  # each cut moves at most SNAP characters to a turn boundary
    assert out.startswith("[user] turn 0 ") and out.endswith(turns[-1])
    assert "characters of the session left out" in out
    head, _, tail = out.partition("\n\n[... ")
    assert head.endswith("word") and tail.split("\n\n", 1)[1].startswith("[user] turn ")


@pytest.mark.parametrize("n", [30_000, 30_001, 45_000])
def test_trim_bounds(n):
    text = "x" * n
    out = trim(text)
    assert len(out) <= 30_000 + 80
    assert out.startswith("x" * 100) and out.endswith("x" * 100)
