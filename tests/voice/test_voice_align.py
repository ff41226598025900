"""Biasing that never makes things worse, meetings that keep who does what by when, and no words
invented on near-silence. Unit tests on the shapes tiny.en really produced (see the fixture
README), then the real model on the fixture recordings (slow)."""

from __future__ import annotations

import json
import re
import shutil
import wave

import pytest

from brain_core.voice.actions import action_items, resolve
from brain_core.voice.align import fold, merge, normalise_numbers
from brain_core.voice.glossary import Glossary, load_glossary, parse_glossary
from brain_core.voice.people import attendee_glossary, soundex
from brain_core.voice.transcribe import Segment, hallucinated
from tests.helpers import paths as test_paths

FIXTURES = test_paths.FIXTURES / "audio"
GLOSSARY = load_glossary(FIXTURES / "glossary.yaml")


def segs(*texts: str) -> tuple[Segment, ...]:
    return tuple(Segment(5.0 * i, 5.0 * i + 5, t) for i, t in enumerate(texts))


# --- alignment ----------------------------------------------------------------------------------


def test_a_biased_word_the_glossary_does_not_explain_is_never_taken():
    """tiny.en with any glossary: "going to rain" came out "going terrain"."""
    out, choices = merge(segs("Is it going to rain in Lisbon this afternoon?"),
                         segs("Is it going terrain in Lisbon this afternoon?"), GLOSSARY, 0.82)
    assert " ".join(s.text for s in out) == "Is it going to rain in Lisbon this afternoon?" and choices == ()


def test_a_hostile_glossary_changes_nothing_it_does_not_name():
    hostile = parse_glossary("terms:\n  - name: Terrain\n  - name: Lisbonne\n    aliases: [Lisbon]\n  - name: Afternoon Tea\n")
    out, choices = merge(segs("Is it going to rain in Lisbon this afternoon?"),
                         segs("Is it going Terrain in Lisbonne this Afternoon Tea?"), hostile, 0.82)
    text = " ".join(s.text for s in out)
    # what the biased decode brought in is a glossary name, and each use is reported with it
    for c in choices:
        assert c.names and all(n in hostile.names for n in c.names)
        assert any(fold(w) in {fold(x) for n in c.names for x in re.findall(r"\w+", n)} for w in c.biased.split())
    changed = set(text.split()) - set("Is it going to rain in Lisbon this afternoon?".split())
    assert changed <= {"Terrain", "Lisbonne", "Afternoon", "Tea?"}, changed
    assert "in" in text.split() and "this" in text.split()  # the words around the names stay


PLAIN = ("Good morning, everyone. This is the damage control weekly sink.", "Siobhan, can you start with the staging database?",
         "Sure. The staging database restores every night.",
         "Thomas, welcome out to the webhook retries.", "We decided to cap webhook retry the six attempts with exponential mark-off.",
         "Oh, and we'll add a net letter Q instead of raising the cap.", "Great. Action item. Oh, it owns the net letter Q.",
         "Do next Friday. Let's wrap up.")
BIASED = ("Good morning, everyone. This is the damage-control weekly sync. Siobhan. Can you start with the staging database? "
          "Sure. The staging database restores every night. "
          "Tomasz, we're talking about the webhook retries. We decided to cap webhook retry my 6 attempts with exponential "
          "mark-off. Owen will add an end letter queue.",
          "Instead of raising the cap. Great. Action item. Owen Owen is the dead letter queue. Good next Friday. Let's wrap up.")


def test_the_meeting_keeps_the_unbiased_words_and_segments_and_takes_the_names():
    out, choices = merge(segs(*PLAIN), segs(*BIASED), GLOSSARY, 0.82)
    assert [s.start for s in out] == [s.start for s in segs(*PLAIN)]  # one timestamped line per segment
    text = " ".join(s.text for s in out)
    # the name goes where "Oh" was heard; the words around it stay as heard without the bias
    assert "Owen, and we'll add" in text and "Owen, it owns the dead letter queue" in text
    assert "will add" not in text and "Owen Owen" not in text
    assert "six attempts" in text and "my 6" not in text  # "six" and "6" are one word: no change
    assert "weekly sink" in text and "Good next Friday" not in text  # not explained by a name: unbiased kept
    assert {n for c in choices for n in c.names} == {"Owen", "dead letter queue"}
    assert all(c.to_dict()["why"].startswith("brings in") for c in choices)


def test_numbers_are_written_one_way():
    assert normalise_numbers("capped at 6 attempts, twelve retries at 2am") == "capped at six attempts, 12 retries at 2am"
    assert normalise_numbers("version 3.1 on 2026-11-30, 1,000 rows, 50%") == "version 3.1 on 2026-11-30, 1,000 rows, 50%"
    assert normalise_numbers("twenty-five, 6, 7 or 8") == "25, six, seven or eight"


# --- near-silence -------------------------------------------------------------------------------


def test_stock_phrases_on_a_clip_are_dropped_and_real_thanks_are_kept():
    assert hallucinated("Thank you.", 0.1, 0.83, -0.97)
    assert hallucinated("Let's go.", 0.5, 0.65, -0.7)  # a fragment Whisper itself doubts
    assert hallucinated(" . .", 10.0, 0.95, -0.5)
    assert not hallucinated("Thank you.", 39.0, 0.05, -0.3)  # said at the end of a meeting
    assert not hallucinated("Is it going to rain in Lisbon?", 3.0, 0.1, -0.2)


# --- attendees and action items -----------------------------------------------------------------


def test_attendees_claim_the_words_that_sound_like_them():
    assert soundex("Siobhan") == soundex("Shivon") and soundex("Tomasz") == soundex("Thomas")
    g = attendee_glossary(Glossary(), ["Siobhan", "Tomasz"], "Thanks Shivon. Thomas, the retries? The Station is fine.")
    terms = {t.name: t.aliases for t in g.terms}
    assert terms == {"Siobhan": ("Shivon",), "Tomasz": ("Thomas",)}
    from brain_core.voice.glossary import correct

    assert correct("Thanks Shivon. Thomas, the retries?", g).text == "Thanks Siobhan. Tomasz, the retries?"


def test_speaker_turns_follow_a_hand_over_by_name():
    from brain_core.voice.meeting import speaker_turns

    lines = ["Good morning.", "Siobhan, can you start with the staging database?", "Sure. It restores nightly.",
             "Thanks Siobhan.", "Over to you, Tomasz.", "Retries are capped.", "Owens will call."]
    assert speaker_turns(lines, ["Siobhan", "Tomasz"]) == [None, None, "Siobhan", None, None, "Tomasz", None]
    assert speaker_turns(lines, []) == [None] * len(lines)


def test_due_dates_resolve_from_the_meeting_date():
    monday = "2026-11-30"
    assert resolve("next Friday", monday) == "2026-12-11"  # the Friday of the following week
    assert resolve("Friday", monday) == resolve("this Friday", monday) == "2026-12-04"
    assert resolve("tomorrow", monday) == "2026-12-01" and resolve("end of the month", monday) == "2026-11-30"
    assert resolve("2027-01-15", monday) == "2027-01-15" and resolve("someday", monday) is None


def test_action_items_name_an_owner_a_thing_and_a_due_date():
    text = ("We decided to cap webhook retries at six attempts. Owen will add a net letter Q instead of raising the cap. "
            "Great. Action item. Owen owns the dead letter queue. Do next Friday. We will review it later. "
            "Action item: Priya will migrate the billing database by Thursday.")
    items = action_items(text, ["Owen", "Priya", "Siobhan"], "2026-11-30")
    assert [(a.owner, a.what, a.due) for a in items] == [
        ("Owen", "owns the dead letter queue", "2026-12-11"), ("Priya", "will migrate the billing database", "2026-12-03")]
    rec = items[0].record("2026-11-30", "Weekly sync")
    assert rec["type"] == "task" and rec["extra"] == {"owner": "Owen", "due": "2026-12-11"}
    assert rec["key"] == "task-owen-dead-letter-queue" and "due 2026-12-11" in rec["body"]
    assert action_items("We will ship it. I will check.", ["Owen"], "2026-11-30") == []  # no owner the meeting knows


def test_the_meeting_writes_tasks_and_no_filler(brain, tmp_path):
    from brain_core.voice.meeting import harvest_meeting
    from brain_core.voice.transcribe import Transcript

    class Fixed:
        def transcribe(self, audio, *, hotwords=None, vad=None, progress=None):
            s = segs(*PLAIN) if not hotwords else segs(*BIASED)
            return Transcript(" ".join(x.text for x in s), s, "en", "fixed", "cpu", "int8", 39.0, 39.0, 0.0, 0.5)

    def distiller(text, **_):
        return [{"type": "note", "key": "oh-always", "body": "Oh it always the dead letter queue"},
                {"type": "decision", "key": "retry-cap", "body": "We decided to cap webhook retries at six attempts with exponential backoff."}]

    shutil.copy(FIXTURES / "glossary.yaml", brain.root / "glossary.yaml")
    wav = tmp_path / "sync.wav"
    with wave.open(str(wav), "wb") as w:
        w.setnchannels(1), w.setsampwidth(2), w.setframerate(16000), w.writeframes(bytes(32000))
    r = harvest_meeting(brain, wav, title="Weekly sync", date="2026-11-30", attendees=["Siobhan", "Tomasz"],
                        transcriber=Fixed(), distiller=distiller)
    assert set(r.keys) == {"task-owen-dead-letter-queue", "retry-cap"}  # the filler half sentence is gone
    task = json.loads((brain.root / "memories" / "meeting" / "task-owen-dead-letter-queue.json").read_text())
    assert (task["type"], task["owner"], task["due"]) == ("task", "Owen", "2026-12-11")
    page = (brain.root / r.transcript_path).read_text()
    assert "[00:00] Good morning" in page and "[00:15] Tomasz, welcome" in page  # a line per segment, names fixed
    assert "[00:10] Siobhan: Sure. The staging database" in page  # the hand-over by name shows who speaks
    assert "Thomas" not in page.split("---")[-1]


# --- the real model (slow) ----------------------------------------------------------------------


@pytest.fixture(scope="module")
def transcriber():
    from brain_core.voice.transcribe import WhisperTranscriber

    t = WhisperTranscriber(device="cpu")
    t.load()
    return t


@pytest.mark.slow
def test_the_weather_question_survives_any_glossary(transcriber):
    from brain_core.answer.router import route
    from brain_core.voice.hear import hear

    crowded = parse_glossary((FIXTURES / "glossary.yaml").read_text() + "".join(
        f"  - name: {n}\n" for n in ("Lisbon", "Kubernetes", "Priya", "Grafana", "Terraform")))
    for g in (GLOSSARY, crowded):
        heard = hear(transcriber, FIXTURES / "ask_weather.wav", g)
        words = re.findall(r"[a-z]+", heard.text.lower())
        assert "rain" in words and "terrain" not in words, heard.text
        assert route(heard.text).live == "weather", heard.text
        assert all(c.names and set(c.names) <= set(g.names) for c in heard.choices)


@pytest.mark.slow
def test_a_clipped_recording_hears_nothing_rather_than_thank_you(transcriber, tmp_path):
    from brain_core.voice.transcribe import load_audio

    clip = load_audio(FIXTURES / "ask_weather.wav")[:1600]  # 0.1 s
    assert transcriber.transcribe(clip).text == ""


@pytest.mark.slow
def test_the_real_meeting_becomes_a_task_with_owner_and_due(brain, transcriber):
    from brain_core.voice.meeting import harvest_meeting

    shutil.copy(FIXTURES / "glossary.yaml", brain.root / "glossary.yaml")
    r = harvest_meeting(brain, FIXTURES / "meeting_sync.wav", title="Weekly sync", date="2026-11-30",
                        attendees=["Siobhan", "Tomasz"], transcriber=transcriber,
                        distiller=lambda text, **_: [])
    tasks = [json.loads(p.read_text()) for p in (brain.root / "memories").rglob("*.json")]
    tasks = [t for t in tasks if t["type"] == "task"]
    assert tasks and tasks[0]["owner"] == "Owen" and "dead letter queue" in tasks[0]["body"], tasks
    assert tasks[0].get("due") == "2026-12-11", tasks  # "due next Friday", said on a Monday
    page = (brain.root / r.transcript_path).read_text()
    assert len(re.findall(r"^\[\d\d:\d\d\] ", page, re.M)) >= 5  # a timestamped line per segment
    assert "Siobhan" in page and "Tomasz" in page
