"""Notifications: the follower reads what the brain appends to .aida/events.jsonl; bursts are grouped."""

from __future__ import annotations

import json

import pytest

pytest.importorskip("PySide6.QtWidgets")

from tests.helpers.app_fixtures import filled  # noqa: F401,E402  (fixture)

pytestmark = pytest.mark.gui


def ev(key, profile="codex", type_="decision", path=None, source="codex:session:1", unchecked=False):
    from app.events import Recent

    return Recent(key=key, path=path or f"memories/{profile}/{key}.json", profile=profile, type=type_,
                  first_line=f"about {key}", source=source, at="2026-08-22T19:44:02Z", unchecked=unchecked)


def test_group_folds_a_burst_per_profile():
    from app.notify import group

    notices = group([ev("a"), ev("b"), ev("c"), ev("d"), ev("e"), ev("m", profile="meeting")])
    assert [n.title for n in notices] == ["5 new memories from codex", "New memory: m"]
    assert notices[0].message == "a, b, c and 2 more"
    assert notices[0].target == "memories/codex"  # the folder they share
    assert notices[1].message == "about m" and notices[1].target == "memories/meeting/m.json"
    mixed = group([ev("x", path="memories/codex/x.json"), ev("y", path="events/codex/2026-08/y.json")])
    assert mixed[0].target is None  # no shared folder: a click opens the brain


def test_a_notice_says_when_the_memory_was_read_offline(brain):
    from app.events import parse_event
    from app.notify import group

    brain.remember_many([{"body": "Retries stop after six attempts.", "key": "retry-cap", "profile": "claude",
                          "type": "fact", "tags": ["harvest:offline"], "confidence": 0.5},
                         {"body": "Deploys go out on Tuesdays.", "key": "deploy-day", "profile": "claude",
                          "type": "decision"}])
    events = [parse_event(x) for x in (brain.root / ".aida" / "events.jsonl").read_text().splitlines()]
    assert [(e.key, e.unchecked) for e in events] == [("retry-cap", True), ("deploy-day", False)]
    assert [n.title for n in group(events[:1])] == ["New memory (unchecked): retry-cap"]
    assert [n.title for n in group(events[1:])] == ["New memory: deploy-day"]
    assert [n.title for n in group(events)] == ["2 new memories from claude (1 unchecked)"]
    assert [n.title for n in group([ev("a", unchecked=True), ev("b", unchecked=True)])] == \
        ["2 new memories from codex (unchecked)"]


def test_what_the_write_path_holds_gets_its_own_notice_saying_why(brain, tmp_path):
    from app.events import parse_event, read_recent
    from app.notify import group

    brain.remember_many([{"body": "The release tags are pushed by Dana from the workflow.", "key": "release-tags",
                          "profile": "claude", "type": "fact", "extra": {"unsaid": ["Dana"]}},
                         {"body": "Deploys go out on Tuesdays.", "key": "deploy-day", "profile": "claude",
                          "type": "decision"}])
    events_file = brain.root / ".aida" / "events.jsonl"
    events = [parse_event(x) for x in events_file.read_text().splitlines()]
    assert [(e.key, e.held) for e in events] == [("release-tags", True), ("deploy-day", False)]
    notices = group(events)
    assert [n.title for n in notices] == ["New memory: deploy-day", "Held for your review: release-tags"]
    assert notices[1].message == "It names Dana, which its session never says. `aida brain quarantine` lists it."
    assert notices[1].target == "quarantine/claude/release-tags.json"
    assert [r.key for r in read_recent(events_file)] == ["deploy-day"]  # "Recent memories": what is served
    brain.remember_many([{"body": f"Kept by {name} for the team.", "key": f"kept-{name.lower()}", "profile": "codex",
                          "type": "fact", "extra": {"unsaid": [name]}} for name in ("Dana", "Ravi")])
    later = [parse_event(x) for x in events_file.read_text().splitlines()][2:]
    assert [(n.title, n.message) for n in group(later)] == [
        ("2 records held for your review", "kept-dana, kept-ravi. `aida brain quarantine` lists them.")]


def test_follower_reads_appends_only_whole_lines_and_restarts_after_truncation(qtbot, tmp_path):
    from app.notify import EventFollower

    f = tmp_path / ".aida" / "events.jsonl"
    f.parent.mkdir()
    f.write_text(json.dumps({"event": "remembered", "path": "memories/me/old.json", "key": "old"}) + "\n")
    follower = EventFollower(f, settle_ms=50, poll_ms=60000)
    got = []
    follower.arrived.connect(got.append)
    follower.start()  # history is not news
    line = json.dumps({"event": "remembered", "path": "memories/me/new.json", "key": "new", "profile": "me",
                       "type": "fact", "first_line": "new", "source": "", "at": ""})
    with open(f, "a") as out:
        out.write("not json\n" + line[:20])  # a writer mid-line
    assert follower.drained()  # all read: the torn line waits for its end, "not json" is no event
    assert got == []
    with open(f, "a") as out:
        out.write(line[20:] + "\n" + json.dumps({"event": "something-else"}) + "\n")
    follower.check()
    qtbot.waitUntil(lambda: bool(got), timeout=2000)
    assert [e.key for e in got[0]] == ["new"]
    f.write_text(line.replace("new", "again") + "\n")  # replaced by a shorter file: read from its start
    follower.check()
    qtbot.waitUntil(lambda: len(got) == 2, timeout=2000)
    assert [e.key for e in got[1]] == ["again"]
    follower.stop()


def test_new_memories_written_by_the_brain_are_notified_grouped_and_open_on_click(qtbot, filled):
    from app.notify import EventFollower, Notifier

    shown, opened = [], []
    notifier = Notifier(lambda title, text: shown.append((title, text)), opened.append)
    follower = EventFollower(filled.root / ".aida" / "events.jsonl", settle_ms=300, poll_ms=200)
    follower.arrived.connect(notifier.on_events)
    follower.start()
    filled.remember_many([dict(body=f"Codex learned rule number {i}: keep functions short.", key=f"rule-{i}",
                               profile="codex", type="instruction") for i in range(5)])
    qtbot.waitUntil(lambda: bool(shown), timeout=5000)
    assert shown == [("5 new memories from codex", "rule-0, rule-1, rule-2 and 2 more")]
    notifier.clicked()
    assert opened == ["memories/codex"]

    filled.remember("Meetings end five minutes early.", key="meeting-length", profile="me")
    filled.remember("A thumbs-down question", type="lesson")  # the user's own feedback: not announced
    qtbot.waitUntil(lambda: len(shown) == 2, timeout=5000)
    qtbot.waitUntil(follower.drained, timeout=5000)  # every line handed on: the lesson was read, not announced
    assert shown[1] == ("New memory: meeting-length", "Meetings end five minutes early.")
    assert len(shown) == 2
    notifier.clicked()
    assert opened[-1] == "memories/me/meeting-length.json"
    follower.stop()


def test_recent_reads_the_newest_distinct_records_from_the_tail(tmp_path):
    from app.events import read_recent

    f = tmp_path / "events.jsonl"
    lines = [json.dumps({"event": "remembered", "path": f"memories/me/k{i % 7}.json", "key": f"k{i % 7}"})
             for i in range(5000)]
    f.write_text("\n".join(lines) + "\n")
    recent = read_recent(f, 5, tail_bytes=4096)
    assert [r.key for r in recent] == ["k1", "k0", "k6", "k5", "k4"]  # 4999 % 7 == 1, newest first
    assert read_recent(tmp_path / "missing.jsonl") == []


def test_a_meeting_in_progress_defers_its_profile_and_its_own_records_are_not_announced_twice():
    from app.notify import Notifier

    shown = []
    n = Notifier(lambda title, text: shown.append(title), lambda _p: None)
    n.defer("meeting")
    n.on_events([ev("decision-1", profile="meeting", source="meeting:abc"),
                 ev("other", profile="meeting", source="meeting:def"), ev("x")])
    assert shown == ["New memory: x"]  # other profiles are not held back
    n.release("meeting", "meeting:abc")
    assert shown == ["New memory: x", "New memory: other"]  # the other meeting's record, now
    n.on_events([ev("decision-2", profile="meeting", source="meeting:abc")])  # late arrivals of the same one
    assert shown == ["New memory: x", "New memory: other"]
