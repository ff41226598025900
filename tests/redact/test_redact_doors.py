"""Every door Aida writes through masks a planted secret: record fields, keys and file names,
pages and watermarks, meeting transcripts, lessons and compiled pages, INDEX.md, run records,
events and commit messages. After each door the whole brain is searched: its files (names and
bytes, ``.aida/`` included), ``git log -p --all`` and every commit message."""

from __future__ import annotations

import json
import subprocess
import wave
from pathlib import Path

import pytest

from brain_core.answer import lessons, runs
from brain_core.lifecycle.common import rewrite_in_place, write_files
from brain_core.lifecycle.compile import compile_lessons
from brain_core.lifecycle.tier_index import regenerate
from brain_core.records import Record
from brain_core.voice.meeting import MARKER, harvest_meeting, masked_lines
from brain_core.voice.transcribe import Segment, Transcript

# Fakes, built in pieces so no whole key sits in this file.
AWS = "AKIA" + "Q3W7ZRT2XKPLM4NB"
GITHUB = "ghp_" + "Zx8Qm2Lp5Rt7Vw1Ny4Kb6Hd9Jf3Gs0Ac2Ue5"
TWILIO = "SK" + "9f3c2a7e4b1d8c6f0a5e9d2b7c4f1a8e"
MAILGUN = "key-" + "3f9a2c7e1b4d8f6a0c5e9b2d7f4a1c8e"
AZURE = "xY7" + "8Q~" + "Ab3dE6gH9jK2mN5pQ8sT1vW4yZ7bC0eF3h"
PASSWORD = "zq9Xh2mPw7"
REDIS_PW = "Rp4ssWd77x"
SPOKEN = "hunter2xyz"
ALL = (AWS, GITHUB, TWILIO, MAILGUN, AZURE, PASSWORD, REDIS_PW, SPOKEN)


def leaks(brain) -> list[str]:
    """Every place in the brain where a planted secret (or its lowercase, as in a slug) is found."""
    root = Path(brain.root)
    needles = [s for s in ALL] + [s.lower() for s in ALL]
    found = []
    for p in root.rglob("*"):
        if ".git" in p.relative_to(root).parts[:1]:
            continue
        rel = p.relative_to(root).as_posix()
        found += [f"name {rel}: {n}" for n in needles if n in rel]
        if p.is_file():
            data = p.read_bytes()
            found += [f"file {rel}: {n}" for n in needles if n.encode() in data]
    git = subprocess.run(["git", "log", "-p", "--all", "--format=%H%n%B", "--name-only"], cwd=root,
                         capture_output=True, text=True, check=True).stdout
    found += [f"git log: {n}" for n in needles if n in git]
    return found


@pytest.fixture
def assert_clean(brain):
    yield lambda: (lambda bad: pytest.fail("\n".join(bad)) if bad else None)(leaks(brain))


def test_remember_masks_body_every_field_key_message_and_event(brain, assert_clean):
    rec = brain.remember(f"deploys sign with {AWS} and the cache is redis://:{REDIS_PW}@cache:6379",
                         tags=[f"creds {GITHUB}", "deploy"], source=f"chat password={PASSWORD}",
                         extra={"note": f"twilio {TWILIO}", "nested": [{"k": f"mailgun {MAILGUN}"}]},
                         provenance=[f"azure {AZURE}"], message=f"remember: sk {GITHUB}")
    assert "[REDACTED:aws-key]" in rec.body and "[REDACTED:url-password]" in rec.body
    assert rec.extra["note"] == "twilio [REDACTED:twilio-api-key]"
    assert rec.extra["nested"][0]["k"] == "mailgun [REDACTED:mailgun-key]"
    events = (brain.root / ".aida" / "events.jsonl").read_text()
    assert "[REDACTED:aws-key]" in events
    assert_clean()


@pytest.mark.parametrize("key", [MAILGUN, "my-password-is-" + PASSWORD.lower(), "cache-" + SPOKEN])
def test_a_key_that_spells_a_secret_never_becomes_a_file_name(brain, assert_clean, key):
    body = f"my password is {SPOKEN} for the cache" if SPOKEN in key else "the staging cache settings"
    rec = brain.remember(body, key=key)
    assert rec.key != key
    assert (brain.root / "memories" / "me" / f"{rec.key}.json").exists()
    assert_clean()


def test_write_text_masks_text_name_and_message_and_keeps_json_valid(brain, assert_clean):
    page = brain.write_text(f"wiki/notes-{MAILGUN}.md", f"# Notes\n\nthe twilio key is {TWILIO}\n",
                            f"notes: {AZURE}")
    assert page.exists() and MAILGUN not in page.name and "[REDACTED:twilio-api-key]" in page.read_text()
    wm = brain.write_text("harvest/codex.json", json.dumps({"sessions": {"s1": {"path": f"/tmp/{GITHUB}/x.jsonl",
                                                                               "password": PASSWORD}}}), "wm")
    data = json.loads(wm.read_text())  # still JSON
    assert data["sessions"]["s1"]["password"].startswith("[REDACTED")
    brain.move([(page.relative_to(brain.root).as_posix(), f"archive/old-{AWS}.md")], f"archive {AWS}")
    assert_clean()


def test_watermark_door(brain, assert_clean):
    from brain_core.harvest.watermark import Watermark

    wm = Watermark("codex", {"sess": {"path": f"/home/u/{GITHUB}/rollout.jsonl", "size": 3, "records": []}})
    wm.save(brain, message=f"harvest: {TWILIO}")
    again = Watermark.load(brain, "codex")
    assert "[REDACTED:github-token]" in again.sessions["sess"]["path"]
    assert_clean()


class ScriptedTranscriber:
    """Hands the meeting writer a transcript given as text (what would have been said aloud)."""

    def __init__(self, lines: list[str]) -> None:
        self.lines = lines

    def transcribe(self, audio, *, hotwords=None, vad=None, progress=None) -> Transcript:
        segs = tuple(Segment(float(i * 3), float(i * 3 + 3), t) for i, t in enumerate(self.lines))
        return Transcript(" ".join(self.lines), segs, "en", "scripted", "cpu", "none", 3.0 * len(segs),
                          3.0 * len(segs), 0.0, 0.0)


def _wav(path: Path) -> Path:
    with wave.open(str(path), "wb") as w:
        w.setnchannels(1), w.setsampwidth(2), w.setframerate(16000)
        w.writeframes(b"\x01\x00" * 16000)
    return path


def test_meeting_door_masks_transcript_front_matter_title_attendees_marker_and_file_name(brain, assert_clean, tmp_path):
    said = ["Okay, the new cache password is", f"{SPOKEN}. And the AWS key is {AWS}.",
            f"Twilio uses {TWILIO} from now on."]
    seen = {}

    def distiller(text, *, profile, source, context, llm=None):
        seen["text"], seen["context"] = text, context
        return [{"body": text, "type": "fact"}]

    result = harvest_meeting(brain, _wav(tmp_path / "standup.wav"), title=f"Rotation {MAILGUN}",
                             attendees=["Dana", f"ops {GITHUB}"], date="2026-09-03",
                             transcriber=ScriptedTranscriber(said), distiller=distiller)
    assert SPOKEN not in seen["text"] and AWS not in seen["text"]  # the distiller (an LLM, maybe) never hears it
    assert MAILGUN not in json.dumps(seen["context"])
    page = (brain.root / result.transcript_path).read_text()
    assert "[REDACTED:password-in-prose]" in page and "[REDACTED:aws-key]" in page and "Dana" in page
    assert MAILGUN not in result.transcript_path and result.transcript_path.startswith("meetings/2026-09-03-rotation")
    marker = json.loads((brain.root / MARKER).read_text())
    assert all(MAILGUN not in m["title"] for m in marker["meetings"].values())
    assert_clean()


def test_masked_lines_join_segments():
    out = masked_lines(["my password is", f"{SPOKEN} ok", "plain words"])
    assert out == ["my password is", "[REDACTED:password-in-prose] ok", "plain words"]


def _feedback(brain, question, verdict, why, answer, about):
    run_id = runs.new_run_id()
    runs.save(brain.root, {"id": run_id, "question": question, "answer": answer, "consulted": [about]})
    return lessons.record_feedback(brain, run_id, verdict, why=why), run_id


def test_feedback_lessons_compiled_pages_and_run_records(brain, assert_clean):
    rec = brain.remember("The staging cache runs on port 6379.", key="staging-cache")
    about = {"id": rec.id, "key": rec.key, "path": "memories/me/staging-cache.json", "cited": True}
    for q in ("how do I reach the staging cache", "what is the staging cache address", "where is the staging cache"):
        _, run_id = _feedback(brain, f"{q} with password={PASSWORD}", "down",
                              why=f"the password is {SPOKEN} now, and the key {TWILIO}",
                              answer=f"use redis://:{REDIS_PW}@cache:6379 and {AWS}", about=about)
        run = json.loads((brain.root / ".aida" / "runs" / f"{run_id}.json").read_text())
        assert PASSWORD not in run["question"] and AWS not in run["answer"]
    lesson = next(r for _, r in brain.records(shelves=("lessons",)))
    assert "[REDACTED:" in lesson.extra["why"] and "[REDACTED:" in lesson.extra["answer"]
    report = compile_lessons(brain)
    assert report.written == ("knowledge/staging-cache.md",), report
    assert "[REDACTED:password-in-prose]" in (brain.root / report.written[0]).read_text()
    assert_clean()


def test_index_md_and_lifecycle_writers(brain, assert_clean):
    brain.remember(f"The cache password is {SPOKEN}.", key="cache-password")
    rec_path = "memories/me/hand-made.json"
    hand = Record(id="20260901-101010123-aa11bb", type="fact", key="hand-made", profile="me",
                  body=f"hand edited with {GITHUB}", tags=[], source="", created="2026-09-01T10:10:10Z")
    (brain.root / rec_path).write_text(hand.to_json())
    rewrite_in_place(brain, [(rec_path, hand)], f"maintain: mark {AZURE}")
    assert "[REDACTED:github-token]" in (brain.root / rec_path).read_text()
    write_files(brain, {f"knowledge/page-{MAILGUN}.md": f"# Page\n\n{TWILIO}\n"}, f"publish {AWS}")
    regenerate(brain)
    assert (brain.root / "INDEX.md").exists()
    assert_clean()


def test_commit_messages_are_masked_at_the_git_layer(brain, assert_clean):
    (brain.root / "wiki" / "x.md").write_text("plain\n")
    brain.git.commit(["wiki/x.md"], f"hand: {AWS} {GITHUB}")
    assert_clean()
