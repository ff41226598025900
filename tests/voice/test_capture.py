"""Push-to-talk capture: no device is a clear AudioError, and recorded audio feeds transcription."""

from __future__ import annotations

import re

import numpy as np
import pytest

from brain_core.errors import AudioError
from brain_core.voice.capture import AudioSource, SoundDeviceSource, WavFileSource
from brain_core.voice.glossary import load_glossary
from brain_core.voice.hear import hear
from brain_core.voice.transcribe import WhisperTranscriber, load_audio
from tests.helpers import paths as test_paths

FIXTURES = test_paths.FIXTURES / "audio"
QUESTION = FIXTURES / "ask_recall.wav"


class FakeSoundDevice:
    """Stands in for the ``sounddevice`` module: a microphone that 'hears' the given samples."""

    class PortAudioError(Exception):
        pass

    def __init__(self, samples=None, *, devices: bool = True, open_fails: bool = False, block: int = 1600):
        self.samples = np.zeros(0, np.float32) if samples is None else samples
        self.devices = devices
        self.open_fails = open_fails
        self.block = block
        self.opened: list[dict] = []

    def query_devices(self, device=None, kind=None):
        if not self.devices:
            raise self.PortAudioError("Error querying device -1")
        return {"name": "fake microphone", "max_input_channels": 1}

    def InputStream(self, **kwargs):
        if self.open_fails:
            raise self.PortAudioError("Device unavailable [PaErrorCode -9985]")
        self.opened.append(kwargs)
        return _FakeStream(self, kwargs["callback"])


class _FakeStream:
    def __init__(self, sd: FakeSoundDevice, callback) -> None:
        self.sd, self.callback, self.active = sd, callback, False

    def start(self) -> None:  # deliver everything at once, in PortAudio-sized (frames, 1) blocks
        self.active = True
        s = self.sd.samples
        for i in range(0, s.size, self.sd.block):
            chunk = s[i:i + self.sd.block].reshape(-1, 1)
            self.callback(chunk, chunk.shape[0], None, None)

    def stop(self) -> None:
        self.active = False

    def close(self) -> None:
        pass


def test_real_backend_without_a_device_is_a_clear_audio_error():
    """On this machine either PortAudio is missing or the named device does not exist."""
    source = SoundDeviceSource(device="aida-test-no-such-microphone")
    assert source.available() is False
    with pytest.raises(AudioError) as e:
        source.start()
    message = str(e.value)
    assert ("PortAudio" in message or "microphone" in message) and "\n" not in message
    assert not source.recording


def test_no_input_device_is_an_audio_error_not_a_crash():
    source = SoundDeviceSource(module=FakeSoundDevice(devices=False))
    assert source.available() is False
    with pytest.raises(AudioError, match="No microphone was found"):
        source.start()


def test_a_device_that_cannot_be_opened_is_an_audio_error():
    source = SoundDeviceSource(module=FakeSoundDevice(open_fails=True))
    assert source.available() is True
    with pytest.raises(AudioError, match="could not be opened"):
        source.start()
    assert not source.recording


def test_records_16k_mono_float32_between_start_and_stop():
    samples = load_audio(QUESTION)
    sd = FakeSoundDevice(samples)
    source = SoundDeviceSource(module=sd)
    assert isinstance(source, AudioSource)
    source.start()
    assert source.recording
    source.start()  # key auto-repeat while held: still one stream
    audio = source.stop()
    assert len(sd.opened) == 1
    assert sd.opened[0]["samplerate"] == 16000 and sd.opened[0]["channels"] == 1 and sd.opened[0]["dtype"] == "float32"
    assert audio.dtype == np.float32 and audio.ndim == 1
    np.testing.assert_array_equal(audio, samples)
    assert source.stop().size == 0  # nothing more recorded after the release


def test_recording_is_bounded():
    source = SoundDeviceSource(module=FakeSoundDevice(np.ones(16000 * 3, np.float32)), max_seconds=1.0)
    source.start()
    assert source.stop().size == 16000


def test_an_empty_recording_is_a_clear_error():
    source = SoundDeviceSource(module=FakeSoundDevice())
    source.start()
    audio = source.stop()
    with pytest.raises(AudioError, match="recording is empty"):
        hear(WhisperTranscriber(device="cpu"), audio)


def test_wav_source():
    source = WavFileSource(QUESTION)
    assert source.available()
    assert source.stop().size == 0  # not started
    source.start()
    assert abs(source.stop().size / 16000 - 4.79) < 0.05
    missing = WavFileSource(FIXTURES / "nope.wav")
    assert not missing.available()
    with pytest.raises(AudioError, match="does not exist"):
        missing.start()


@pytest.mark.slow
@pytest.mark.parametrize("make_source", [
    lambda: WavFileSource(QUESTION),
    lambda: SoundDeviceSource(module=FakeSoundDevice(load_audio(QUESTION))),
], ids=["wav", "microphone"])
def test_captured_audio_feeds_the_question_path(make_source):
    """Key down -> start, key up -> stop -> samples in memory -> text, no file in between."""
    source = make_source()
    source.start()
    audio = source.stop()
    heard = hear(WhisperTranscriber(device="cpu"), audio, load_glossary(FIXTURES / "glossary.yaml"))
    said = re.findall(r"[a-z]+", heard.text.lower())
    assert {"decide", "policy"} <= set(said), heard.text
    assert heard.transcript.device == "cpu"
