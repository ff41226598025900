"""Action items as people say them, read from the sentences of the joined transcript: with or
without "action item", "<name> will", "<name> to ... by <day>", an agreed question with a due date,
fillers, and sentences the recogniser cut in two. Unit tests on text, a meeting harvested from
fixed segments, then a spoken meeting through the real model (slow)."""

from __future__ import annotations

import json
import wave

import pytest

from brain_core.voice.actions import action_items
from brain_core.voice.transcribe import Segment, Transcript
from tests.helpers.spoken_meetings import DATE, MEETINGS, score, spoken_lines
from tests.helpers.spoken_names import can_speak, speak_lines

PEOPLE = ["Ngozi", "Tomasz", "Siobhan", "Owen", "Priya"]


def items(text: str) -> list[tuple[str, str, str | None]]:
    return [(a.owner, a.what, a.due) for a in action_items(text, PEOPLE, DATE)]


def test_an_action_item_without_a_colon_and_its_due_date_in_the_next_sentence():
    assert items("Action item Ngozi writes the runbook for the export job. By Wednesday.") == [
        ("Ngozi", "writes the runbook for the export job", "2026-12-02")]
    assert items("So, action item, um, Tomasz fixes the flaky test. Due next Tuesday.") == [
        ("Tomasz", "fixes the flaky test", "2026-12-08")]


def test_name_to_do_by_a_day_and_will_with_fillers():
    assert items("Priya to migrate the invoice tables by next Monday.") == [
        ("Priya", "will migrate the invoice tables", "2026-12-07")]
    assert items("Um, Siobhan will, uh, clean up the old exports before Thursday.") == [
        ("Siobhan", "will clean up the old exports", "2026-12-03")]


def test_a_question_with_a_due_date_is_a_task_once_agreed_to():
    assert items("Tomasz, can you add an alert on disk usage by Friday? Sure, will do.") == [
        ("Tomasz", "will add an alert on disk usage", "2026-12-04")]
    assert items("Can you rotate the keys by Monday, Owen? Yes, no problem.") == [
        ("Owen", "will rotate the keys", "2026-12-07")]
    assert items("Tomasz, can you add an alert by Friday? Sorry, I can't this week.") == []  # refused
    assert items("Tomasz, can you add an alert by Friday? What for?") == []  # not agreed
    assert items("Siobhan, can you start with the staging database? Sure.") == []  # a hand-over, no due date


def test_what_is_no_task():
    assert items("Owen will be out next week. We will ship it. I will check the logs.") == []
    assert items("I talked to Owen about the release.") == []


def test_a_split_action_item_becomes_a_task_record(brain, tmp_path):
    """The recogniser's segments: "Action item Ngozi writes the runbook for the export job" and
    "by Wednesday" apart, no colon; the task comes from the joined sentences."""
    from brain_core.voice.meeting import harvest_meeting

    said = ("Good morning, this is the export job review.", "Action item Ngozi writes the runbook for the export job",
            "by Wednesday.", "Tomasz, can you add an alert on disk usage by Friday?", "Sure, will do.")
    segments = tuple(Segment(4.0 * i, 4.0 * i + 4, t) for i, t in enumerate(said))

    class Fixed:
        def transcribe(self, audio, *, hotwords=None, vad=None, progress=None):
            return Transcript(" ".join(s.text for s in segments), segments, "en", "fixed", "cpu", "int8",
                              20.0, 20.0, 0.0, 0.1)

    wav = tmp_path / "review.wav"
    with wave.open(str(wav), "wb") as w:
        w.setnchannels(1), w.setsampwidth(2), w.setframerate(16000), w.writeframes(bytes(32000))
    r = harvest_meeting(brain, wav, title="Export job review", date=DATE, attendees=["Ngozi", "Tomasz"],
                        transcriber=Fixed(), distiller=lambda text, **_: [])
    tasks = {json.loads((brain.root / "memories" / "meeting" / f"{k}.json").read_text())["owner"]:
             json.loads((brain.root / "memories" / "meeting" / f"{k}.json").read_text()) for k in r.keys}
    assert set(tasks) == {"Ngozi", "Tomasz"}
    assert tasks["Ngozi"]["type"] == "task" and tasks["Ngozi"]["due"] == "2026-12-02"
    assert "runbook" in tasks["Ngozi"]["body"] and tasks["Tomasz"]["due"] == "2026-12-04"


def test_the_spoken_meetings_are_a_labelled_set_with_a_held_out_half():
    for half in ("tune", "held"):
        mine = [m for m in MEETINGS if m["half"] == half]
        assert len(mine) >= 4 and sum(len(m["items"]) for m in mine) >= 12
        assert any(not a.rstrip().endswith((".", "?", "!")) for m in mine for a in m["lines"])  # cut sentences
    m = MEETINGS[0]
    perfect = [{"owner": o, "due": d, "body": f"{o} does the {t}"} for o, t, d in m["items"]]
    assert score(m, perfect + [{"owner": "Owen", "body": "Owen is out"}]) == {
        "items": 3, "found": 3, "owner_right": 3, "due_right": 3, "junk": ["Owen is out"]}


# A short meeting for the real model: a cut action item without a colon, an agreed ask, "X to ...
# by <day>", and a sentence that is no task. tiny.en on espeak-ng often mishears the owners' names
# (benchmarks/bench_action_items.py: 5 of 24 items found when spoken, 23 of 24 on the scripts), so
# the test asks for one item with owner and due date right and no junk; the ask ("Tomasz, can you
# ... by Friday?" "Sure.") is the one heard on this machine.
SPOKEN = {"half": "test", "title": "Weekly sync", "attendees": ["Priya", "Tomasz", "Owen"],
          "lines": ["Good morning, this is the weekly sync.",
                    "Action item Priya writes the runbook for the export job", "by Wednesday.",
                    "Tomasz, can you add an alert on disk usage by Friday?", "Sure, will do.",
                    "Owen to rotate the signing process by tomorrow.",
                    "Owen will be out next week."],
          "items": [("Priya", "runbook", "2026-12-02"), ("Tomasz", "alert", "2026-12-04"),
                    ("Owen", "rotate", "2026-12-01")]}


@pytest.mark.slow
def test_a_spoken_meeting_gives_its_action_items_with_owners_and_dates(brain, tmp_path):
    if not can_speak():
        pytest.skip("espeak-ng and sox are needed to speak the meeting")
    from brain_core.voice.meeting import harvest_meeting
    from brain_core.voice.transcribe import WhisperTranscriber

    wav = tmp_path / "meeting.wav"
    speak_lines(spoken_lines(SPOKEN), wav)
    r = harvest_meeting(brain, wav, title=SPOKEN["title"], date=DATE, attendees=SPOKEN["attendees"],
                        transcriber=WhisperTranscriber(device="cpu"), distiller=lambda text, **_: [])
    records = [json.loads((brain.root / "memories" / "meeting" / f"{k}.json").read_text()) for k in r.keys]
    s = score(SPOKEN, [x for x in records if x["type"] == "task"])
    heard = r.heard.text if r.heard else ""
    assert s["owner_right"] >= 1 and s["due_right"] >= 1, (s, heard)
    assert s["junk"] == [], (s, heard)  # "Owen will be out next week" is no task
