"""Push-to-talk recording: audio from a key press to its release, into memory.

The tray holds an :class:`AudioSource`: ``start()`` when the hotkey goes down, ``stop()`` when it
comes up, and the samples (16 kHz mono float32, what Whisper eats) go straight to
:func:`brain_core.voice.transcribe.hear`: no temporary file, nothing written to disk.

:class:`SoundDeviceSource` records from a microphone through sounddevice (PortAudio). A machine
without PortAudio or without an input device is normal (a server, a container, CI): ``available()``
says so without raising, and ``start()`` raises :class:`AudioError` with one sentence, so the tray
can grey the feature out instead of crashing. :class:`WavFileSource` replays a file through the same
seam for tests and for "transcribe this file as if I had said it".
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

from brain_core.errors import AudioError, MissingDependency
from brain_core.voice.transcribe import SAMPLE_RATE

if TYPE_CHECKING:
    import numpy as np


@runtime_checkable
class AudioSource(Protocol):
    """Something that records between ``start()`` and ``stop()``."""

    def available(self) -> bool: ...

    def start(self) -> None: ...

    def stop(self) -> "np.ndarray":
        """The samples recorded since ``start()``: 16 kHz mono float32."""
        ...


@dataclass
class SoundDeviceSource:
    """The microphone, through sounddevice; imported only when recording is asked for.

    ``module`` replaces the ``sounddevice`` module (tests pass a stand-in with ``InputStream`` and
    ``query_devices``). ``max_seconds`` bounds memory if a key release is ever missed.
    """

    device: int | str | None = None
    sample_rate: int = SAMPLE_RATE
    max_seconds: float = 300.0
    module: Any = None
    _stream: Any = field(default=None, init=False, repr=False)
    _chunks: list = field(default_factory=list, init=False, repr=False)
    _frames: int = field(default=0, init=False, repr=False)
    _lock: threading.Lock = field(default_factory=threading.Lock, init=False, repr=False)

    def _sd(self) -> Any:
        if self.module is not None:
            return self.module
        try:
            import sounddevice
        except ImportError:
            raise MissingDependency("Recording needs the sounddevice package; run `pip install sounddevice`.") from None
        except OSError as e:  # sounddevice raises OSError when libportaudio cannot be found
            raise AudioError(
                f"The PortAudio library is missing ({e}); install it (Debian/Ubuntu: `apt install libportaudio2`) to talk to Aida."
            ) from e
        self.module = sounddevice
        return sounddevice

    def _errors(self) -> tuple[type[BaseException], ...]:
        """What the device layer raises: PortAudioError (a bare Exception subclass), OSError, ValueError."""
        port_audio = getattr(self._sd(), "PortAudioError", None)
        extra = (port_audio,) if isinstance(port_audio, type) and issubclass(port_audio, BaseException) else ()
        return (OSError, ValueError, *extra)

    def check(self) -> None:
        """Raise :class:`AudioError` unless an input device can be opened."""
        sd = self._sd()
        try:
            info = sd.query_devices(self.device, kind="input")
        except self._errors() as e:
            raise AudioError(f"No microphone was found ({_reason(e)}); plug one in, or choose another under "
                             f"Settings > Voice > Microphone (or `aida config set voice.input_device NAME`).") from e
        if not info or int(info.get("max_input_channels", 0)) < 1:
            raise AudioError("The chosen audio device cannot record; choose a microphone under Settings > Voice > "
                             "Microphone (or `aida config set voice.input_device NAME`).")

    def available(self) -> bool:
        try:
            self.check()
        except (AudioError, MissingDependency):
            return False
        return True

    @property
    def recording(self) -> bool:
        return self._stream is not None

    def start(self) -> None:
        if self._stream is not None:
            return  # a repeated key-down event while held
        self.check()
        sd = self._sd()
        with self._lock:
            self._chunks, self._frames = [], 0
        try:
            stream = sd.InputStream(samplerate=self.sample_rate, channels=1, dtype="float32",
                                    device=self.device, callback=self._on_audio)
            stream.start()
        except self._errors() as e:
            raise AudioError(f"The microphone could not be opened ({_reason(e)}); check that no other program holds it.") from e
        self._stream = stream

    def _on_audio(self, indata: Any, frames: int, time_info: Any, status: Any) -> None:
        # Runs on PortAudio's thread: copy and go (the buffer is reused after the callback).
        with self._lock:
            if self._frames >= self.max_seconds * self.sample_rate:
                return
            self._chunks.append(indata[:, 0].copy() if getattr(indata, "ndim", 1) > 1 else indata.copy())
            self._frames += frames

    def stop(self) -> "np.ndarray":
        import numpy as np

        stream, self._stream = self._stream, None
        if stream is not None:
            try:
                stream.stop()
                stream.close()
            except self._errors() as e:
                raise AudioError(f"The microphone stopped with an error ({_reason(e)}); try again.") from e
        with self._lock:
            chunks, self._chunks, self._frames = self._chunks, [], 0
        if not chunks:
            return np.zeros(0, dtype=np.float32)
        return np.concatenate(chunks).astype(np.float32, copy=False)


@dataclass
class WavFileSource:
    """Replays an audio file through the :class:`AudioSource` seam (tests, "say this file")."""

    path: str | Path
    _started: bool = field(default=False, init=False, repr=False)

    def available(self) -> bool:
        return Path(self.path).is_file()

    def start(self) -> None:
        if not self.available():
            raise AudioError(f"The audio file {self.path} does not exist; check the path.")
        self._started = True

    def stop(self) -> "np.ndarray":
        import numpy as np

        from brain_core.voice.transcribe import load_audio

        if not self._started:
            return np.zeros(0, dtype=np.float32)
        self._started = False
        return load_audio(self.path)


def _reason(e: BaseException) -> str:
    text = str(e).strip().splitlines()[0] if str(e).strip() else ""
    return f"{e.__class__.__name__}: {text}" if text else e.__class__.__name__
