"""Meeting recordings into the brain: transcript, glossary, distilled records, recognised twice."""

from __future__ import annotations

import hashlib
import json
import shutil
import subprocess
import wave
from pathlib import Path

import pytest
import yaml

from brain_core.errors import AudioError, InvalidInput
from brain_core.marks import OFFLINE_CONFIDENCE, OFFLINE_TAG
from brain_core.voice.meeting import MARKER, audio_sha256, harvest_meeting, harvested
from brain_core.voice.transcribe import WhisperTranscriber
from tests.helpers import paths as test_paths
from tests.helpers.keyring_memory import memory_keyring  # noqa: F401  (fixture: no test reaches the real OS keyring)
from tests.helpers.speech import says

FIXTURES = test_paths.FIXTURES / "audio"
MEETING = FIXTURES / "meeting_sync.wav"
SHORT = FIXTURES / "ask_recall.wav"  # a 5-second "meeting" where the content does not matter


@pytest.fixture(scope="module")
def transcriber() -> WhisperTranscriber:
    t = WhisperTranscriber(device="cpu")
    t.load()
    return t


@pytest.fixture
def glossary_brain(brain):
    brain.write_text("glossary.yaml", (FIXTURES / "glossary.yaml").read_text(), "glossary for the fixtures")
    return brain


def head(brain) -> str:
    return subprocess.run(["git", "-C", str(brain.root), "rev-parse", "HEAD"], capture_output=True, text=True,
                          check=True).stdout.strip()


def front_matter(path: Path) -> dict:
    text = path.read_text(encoding="utf-8")
    assert text.startswith("---\n")
    return yaml.safe_load(text.split("---\n", 2)[1])


class RecordingDistiller:
    """The distiller seam: proposes what it is given and remembers what it was asked."""

    def __init__(self, proposals: list[dict]) -> None:
        self.proposals = proposals
        self.calls: list[dict] = []

    def __call__(self, text, *, profile, source, context, llm=None):
        self.calls.append(dict(text=text, profile=profile, source=source, context=context, llm=llm))
        return [dict(p) for p in self.proposals]


def _silent_wav(path: Path, seconds: float) -> Path:
    with wave.open(str(path), "wb") as w:
        w.setnchannels(1)
        w.setsampwidth(2)
        w.setframerate(16000)
        w.writeframes(b"\x00\x00" * int(16000 * seconds))
    return path


# --- the whole path, from the command line, with the real distiller ------------------------------


@pytest.mark.slow
def test_aida_meeting_end_to_end_and_a_second_time_does_nothing(glossary_brain, capsys, tmp_path):
    from brain_core.cli import main

    brain = glossary_brain
    sha = hashlib.sha256(MEETING.read_bytes()).hexdigest()
    argv = ["--brain", str(brain.root), "meeting", "--title", "Damage-control weekly sync", "--date", "2026-08-24",
            "--attendees", "Siobhan, Tomasz,Owen", str(MEETING)]
    assert main(argv) == 0
    out, err = capsys.readouterr()
    percents = [int(line.rsplit(" ", 1)[1].rstrip("%")) for line in err.splitlines() if line.startswith("transcribing")]
    assert percents[0] == 0 and percents[-1] == 100 and percents == sorted(percents)
    assert "Transcript: meetings/2026-08-24-damage-control-weekly-sync.md" in out

    page = brain.root / "meetings" / "2026-08-24-damage-control-weekly-sync.md"
    meta = front_matter(page)
    assert meta["title"] == "Damage-control weekly sync" and meta["date"] == "2026-08-24"
    assert meta["attendees"] == ["Siobhan", "Tomasz", "Owen"]
    assert meta["audio_sha256"] == sha
    assert meta["transcribed_with"].startswith("tiny.en on ")
    body = page.read_text()
    assert "[00:00] " in body and "Siobhan" in body and "Tomasz" in body

    records = [r for _, r in brain.records() if r.profile == "meeting"]
    assert records, "the distiller kept nothing from a meeting full of decisions"
    assert sorted(meta["records"]) == sorted(r.key for r in records)
    for r in records:
        assert r.source == f"meeting:{sha}" and "meeting" in r.tags
        if r.type != "task":  # distilled with no model (an action item is found on its own: voice/actions.py)
            assert OFFLINE_TAG in r.tags and r.confidence == OFFLINE_CONFIDENCE
        assert r.extra.get("transcript") == "meetings/2026-08-24-damage-control-weekly-sync.md"
    assert any(says(r.body, "six attempts") for r in records), [r.body for r in records]
    assert harvested(brain)[sha]["transcript"] == "meetings/2026-08-24-damage-control-weekly-sync.md"

    # the same audio again, even renamed: recognised by its hash, nothing transcribed or written
    before = head(brain)
    again = tmp_path / "renamed-recording.wav"
    shutil.copy(MEETING, again)
    assert main(["--brain", str(brain.root), "meeting", str(again)]) == 0
    out, err = capsys.readouterr()
    assert "Already harvested" in out and "nothing to do" in out
    assert "transcribing" not in err
    assert head(brain) == before
    assert len([r for _, r in brain.records() if r.profile == "meeting"]) == len(records)


@pytest.mark.slow
def test_aida_meeting_json(glossary_brain, capsys):
    from brain_core.cli import main

    assert main(["--brain", str(glossary_brain.root), "meeting", "--json", "--date", "2026-08-25", str(SHORT)]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["skipped"] is False and data["transcript"] == "meetings/2026-08-25-ask-recall.md"
    assert data["sha256"] == audio_sha256(SHORT) and data["model"] == "tiny.en"


# --- with a language model (a local OpenAI-compatible server started by the test) ----------------


def _use_llm(url: str) -> None:
    from brain_core.config import Config

    cfg = Config.load()  # the isolated settings file of conftest
    for k, v in {"llm.provider": "openai-compatible", "llm.base_url": url + "/v1", "llm.model": "m",
                 "llm.retries": 0, "llm.timeout": 5}.items():
        cfg.set(k, v)
    cfg.save()


@pytest.mark.slow
def test_aida_meeting_distills_with_the_configured_model(brain, capsys, memory_keyring):
    from brain_core.cli import main
    from tests.helpers.fake_llm_server import FakeLLMServer

    answer = {"records": [{"type": "decision", "key": "webhook-retry-cap", "tags": ["webhooks"],
                           "body": "Webhook retries are capped at six attempts with exponential backoff."}]}
    with FakeLLMServer(json.dumps(answer)) as server:
        _use_llm(server.url)
        rc = main(["--brain", str(brain.root), "meeting", "--title", "Retry review", "--date", "2026-08-26", str(SHORT)])
        posts = server.posts()
    assert rc == 0, capsys.readouterr().err
    assert len(posts) == 1
    prompt = json.dumps(posts[0]["body"])
    assert "Retry review" in prompt and "policy" in prompt
    rec = brain.get("memories/meeting/webhook-retry-cap.json")
    assert rec.source == f"meeting:{audio_sha256(SHORT)}" and set(rec.tags) == {"webhooks", "meeting"}
    assert rec.extra["meeting_date"] == "2026-08-26"


@pytest.mark.slow
def test_a_model_answering_nonsense_falls_back_to_the_offline_distiller(brain, capsys, memory_keyring):
    from brain_core.cli import main
    from tests.helpers.fake_llm_server import FakeLLMServer

    with FakeLLMServer("Sure! Here are the records you asked for.") as server:
        _use_llm(server.url)
        rc = main(["--brain", str(brain.root), "meeting", "--date", "2026-08-27", str(SHORT)])
    out, err = capsys.readouterr()
    assert rc == 0
    assert "rejected" in err and "distilled offline instead" in err
    assert (brain.root / "meetings" / "2026-08-27-ask-recall.md").is_file()
    assert harvested(brain)[audio_sha256(SHORT)]["transcript"] == "meetings/2026-08-27-ask-recall.md"


# --- the pipeline, through the distiller seam ------------------------------------------------------


@pytest.mark.slow
def test_pipeline_passes_context_and_stamps_profile_and_source(glossary_brain, transcriber):
    brain = glossary_brain
    distiller = RecordingDistiller([
        {"type": "decision", "key": "retry-policy", "tags": ["project:damage-control"], "body": "Retries stay capped.",
         "profile": "codex", "source": "somewhere:else"},
        {"type": "fact", "key": "empty-one", "body": "   "},  # nothing to keep: skipped
    ])
    seen: list[float] = []
    result = harvest_meeting(brain, SHORT, title="Retry review", date="2026-08-22", attendees=["Siobhan", " "],
                             transcriber=transcriber, distiller=distiller, progress=seen.append)
    sha = audio_sha256(SHORT)
    call = distiller.calls[0]
    assert call["profile"] == "meeting" and call["source"] == f"meeting:{sha}"
    assert call["context"]["title"] == "Retry review" and call["context"]["date"] == "2026-08-22"
    assert call["context"]["attendees"] == ["Siobhan"]
    assert "policy" in call["text"]
    assert seen[0] == 0.0 and seen[-1] == 1.0

    assert result.keys == ("retry-policy",) and not result.skipped
    rec = brain.get("memories/meeting/retry-policy.json")
    assert (rec.profile, rec.source, rec.type) == ("meeting", f"meeting:{sha}", "decision")
    assert rec.extra == {"transcript": "meetings/2026-08-22-retry-review.md", "meeting_date": "2026-08-22"}
    assert set(rec.tags) == {"project:damage-control", "meeting"}
    assert result.transcript_path == "meetings/2026-08-22-retry-review.md"
    assert front_matter(brain.root / result.transcript_path)["records"] == ["retry-policy"]
    marker = json.loads(brain.read_text(MARKER))
    assert marker["meetings"][sha]["keys"] == ["retry-policy"]
    hits = brain.recall("retries capped", k=3, profile="meeting")
    assert hits and hits[0].record.key == "retry-policy"

    # second time: skipped before any transcription or distillation
    again = harvest_meeting(brain, SHORT, transcriber=transcriber, distiller=distiller)
    assert again.skipped and again.keys == ("retry-policy",) and again.heard is None
    assert len(distiller.calls) == 1


@pytest.mark.slow
def test_a_meeting_with_nothing_to_keep_still_keeps_its_transcript(brain, transcriber, tmp_path):
    copy = tmp_path / "standup.wav"
    shutil.copy(SHORT, copy)
    before = head(brain)
    result = harvest_meeting(brain, copy, date="2026-09-01", transcriber=transcriber, distiller=RecordingDistiller([]))
    assert result.keys == () and result.title == "Standup"
    assert (brain.root / "meetings" / "2026-09-01-standup.md").is_file()
    assert head(brain) != before
    assert not [r for _, r in brain.records() if r.profile == "meeting"]
    assert harvest_meeting(brain, copy, transcriber=transcriber, distiller=RecordingDistiller([])).skipped


@pytest.mark.slow
def test_two_meetings_with_the_same_title_and_day_get_two_pages(brain, transcriber):
    a = harvest_meeting(brain, SHORT, title="Sync", date="2026-09-02", transcriber=transcriber,
                        distiller=RecordingDistiller([]))
    b = harvest_meeting(brain, FIXTURES / "ask_weather.wav", title="Sync", date="2026-09-02", transcriber=transcriber,
                        distiller=RecordingDistiller([]))
    assert (a.transcript_path, b.transcript_path) == ("meetings/2026-09-02-sync.md", "meetings/2026-09-02-sync-2.md")


# --- refusals: nothing is written -------------------------------------------------------------------


@pytest.mark.parametrize("content, words", [
    (b"", "is empty"),
    (b"RIFF\x00\x00\x00\x00WAVEfmt " + bytes(range(200)), "could not be decoded"),
], ids=["empty", "corrupt"])
def test_bad_audio_is_one_clear_error_and_writes_nothing(brain, tmp_path, content, words):
    bad = tmp_path / "broken.wav"
    bad.write_bytes(content)
    before = head(brain)
    distiller = RecordingDistiller([{"type": "fact", "key": "x", "body": "never written"}])
    with pytest.raises(AudioError) as e:
        harvest_meeting(brain, bad, transcriber=WhisperTranscriber(device="cpu"), distiller=distiller)
    assert words in str(e.value) and "\n" not in str(e.value)
    assert head(brain) == before and brain.read_text(MARKER) is None and not distiller.calls


@pytest.mark.slow
def test_a_recording_without_speech_is_refused(brain, tmp_path, transcriber):
    silent = _silent_wav(tmp_path / "silence.wav", 3.0)
    with pytest.raises(AudioError, match="No speech was heard"):
        harvest_meeting(brain, silent, transcriber=transcriber, distiller=RecordingDistiller([]))
    assert brain.read_text(MARKER) is None


def test_missing_file_and_bad_date(brain, tmp_path):
    with pytest.raises(AudioError, match="does not exist"):
        harvest_meeting(brain, tmp_path / "nope.wav", distiller=RecordingDistiller([]))
    with pytest.raises(InvalidInput, match="YYYY-MM-DD"):
        harvest_meeting(brain, SHORT, date="last tuesday", distiller=RecordingDistiller([]))


def test_cli_meeting_bad_file_is_one_line(brain, capsys, tmp_path):
    from brain_core.cli import main

    bad = tmp_path / "empty.m4a"
    bad.write_bytes(b"")
    assert main(["--brain", str(brain.root), "meeting", str(bad)]) == 1
    err = capsys.readouterr().err
    assert err.startswith("aida: ") and err.count("\n") == 1
