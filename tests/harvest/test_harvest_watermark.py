"""Watermarks, the quiet window (with an injected clock) and trimming."""

from __future__ import annotations

import json
import os

import pytest

from brain_core.config import Config
from brain_core.harvest import SessionFile
from brain_core.harvest.run import sweep
from brain_core.harvest.trim import trim
from brain_core.harvest.watermark import Watermark, check, iso, quiet_seconds
from tests.helpers.harvest_homes import CLAUDE_ID, make_homes, session_files

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


# ------------------------------------------------------------------------------ the rules, one by one
def test_growth_of_the_same_file_is_strictly_more_bytes():
    wm = Watermark("claude")
    wm.mark(_sf(size=100), now=T0, records=[])
    assert not wm.grew(_sf(size=100))
    assert not wm.grew(_sf(size=99))  # truncated or rewritten smaller: not new material
    assert wm.grew(_sf(size=101))
    assert wm.grew(_sf(size=1, sid="other"))  # never seen


@pytest.mark.parametrize("path, size, grew", [
    ("/x/a.jsonl.zst", 40, False),    # compressed in place: smaller and not new
    ("/x/a.jsonl.zst", 400, False),   # compressed in place is never growth, whatever its size
    ("/y/a.jsonl", 100, False),       # moved elsewhere, nothing added
    ("/y/a.jsonl", 150, True),        # moved elsewhere with more in it
    ("/x/a.jsonl.gz", 150, True),     # another name is a move, not the in-place compression
    ("/x/a.jsonl.gz", 90, False),
    ("/x/a.zst", 150, True),          # the suffix must follow the whole old name
])
def test_a_session_file_that_moved_or_was_compressed(path, size, grew):
    wm = Watermark("codex")
    wm.mark(_sf(size=100, path="/x/a.jsonl"), now=T0, records=[])
    assert wm.grew(_sf(size=size, path=path)) is grew


def test_a_hand_edited_size_is_read_as_a_number_and_a_missing_one_as_zero():
    wm = Watermark("claude", {"a": {"path": "/x/a.jsonl", "size": "100"}, "b": {"path": "/x/b.jsonl"}})
    assert not wm.grew(_sf(size=100))
    assert wm.grew(_sf(size=101))
    assert wm.grew(_sf(size=1, sid="b", path="/x/b.jsonl"))
    assert not wm.grew(_sf(size=0, sid="b", path="/x/b.jsonl"))


def test_mark_records_the_session_and_through_only_moves_forward():
    wm = Watermark("claude")
    wm.mark(_sf(sid="new", size=7, mtime=T0 + 60, path="/x/new.jsonl"), now=T0 + 600, records=["m/b.json", "m/a.json"])
    assert wm.sessions["new"] == {"path": "/x/new.jsonl", "size": 7, "mtime": iso(T0 + 60),
                                  "harvested": iso(T0 + 600), "records": ["m/a.json", "m/b.json"]}
    assert wm.through == iso(T0 + 60)
    wm.mark(_sf(sid="old", mtime=T0 - 86400, path="/x/old.jsonl"), now=T0 + 700, records=[])
    assert wm.through == iso(T0 + 60)  # an older session harvested later does not move it back
    wm.mark(_sf(sid="newer", mtime=T0 + 120, path="/x/newer.jsonl"), now=T0 + 800, records=[])
    assert wm.through == iso(T0 + 120)
    assert iso(T0) == "2026-08-17T20:53:20Z" and iso(T0 + 0.9) == iso(T0)  # whole seconds, UTC, a Z


def test_the_stored_file_is_sorted_indented_json_with_names_kept_readable():
    wm = Watermark("gemini", through="2026-01-02T03:04:05Z")
    wm.mark(_sf(sid="s", path="/srv/café/chats/s.json", mtime=T0 - 10), now=T0, records=["memories/gemini/x.json"])
    text = wm.to_json()
    expected = {"version": 1, "tool": "gemini", "through": iso(T0 - 10), "sessions": wm.sessions}
    assert text == json.dumps(expected, ensure_ascii=False, sort_keys=True, indent=2) + "\n"
    assert "café" in text and text.endswith("}\n")
    assert wm.relpath == "harvest/gemini.json"


@pytest.mark.parametrize("text", ["", "[1, 2]", '{"sessions": [1]}', '{"tool": "claude"}', "null", "{not json"])
def test_a_damaged_or_foreign_watermark_loads_empty(brain, text):
    if text:
        brain.write_text("harvest/claude.json", text, "damage")
    wm = Watermark.load(brain, "claude")
    assert (wm.tool, wm.sessions, wm.through) == ("claude", {}, None)


def test_load_keeps_good_sessions_drops_bad_ones_and_keeps_through(brain):
    brain.write_text("harvest/claude.json", json.dumps({
        "version": 1, "tool": "claude", "through": "2026-08-01T00:00:00Z",
        "sessions": {"good": {"path": "/x/g.jsonl", "size": 5}, "bad": "not a dict", "7": {"size": 1}}}), "hand edit")
    wm = Watermark.load(brain, "claude")
    assert wm.sessions == {"good": {"path": "/x/g.jsonl", "size": 5}, "7": {"size": 1}}
    assert wm.through == "2026-08-01T00:00:00Z" and wm.tool == "claude"


def test_quiet_seconds_without_settings_and_with_odd_values(tmp_path):
    assert quiet_seconds(None) == 600
    cfg = Config(tmp_path / "c.yaml", {})
    cfg.set("harvest.quiet_minutes", -5)
    assert quiet_seconds(cfg) == 0
    cfg.set("harvest.quiet_minutes", 2.5)
    assert quiet_seconds(cfg) == 150
    cfg.set("harvest.quiet_minutes", None)
    assert quiet_seconds(cfg) == 600


def test_check_says_why_and_carries_the_file():
    wm = Watermark("claude")
    sf = _sf(size=10)
    due = check(wm, sf, now=T0 + 600, quiet_s=600)
    assert (due.file, due.due, due.reason) == (sf, True, "new")
    assert check(wm, sf, now=T0 + 599.5, quiet_s=600) == type(due)(sf, False, "active")
    assert check(wm, sf, now=T0 + 5, quiet_s=600, ignore_quiet=True).reason == "new"
    wm.mark(sf, now=T0 + 600, records=[])
    bigger = _sf(size=11, mtime=T0 + 10)
    assert check(wm, bigger, now=T0 + 20, quiet_s=600, ignore_quiet=True) == type(due)(bigger, True, "grew")
    assert check(wm, bigger, now=T0 + 20, quiet_s=0) == type(due)(bigger, True, "grew")
    assert check(wm, sf, now=T0 + 5, quiet_s=600, ignore_quiet=True) == type(due)(sf, False, "unchanged")


def test_times_are_written_in_utc_on_a_machine_in_another_time_zone(monkeypatch):
    import time

    monkeypatch.setenv("TZ", "America/New_York")
    time.tzset()
    try:
        assert iso(T0) == "2026-08-17T20:53:20Z"
    finally:
        monkeypatch.undo()
        time.tzset()
