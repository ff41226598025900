"""The one object through which the tray's windows reach the brain.

Windows never import ``brain_core`` for work: they call a method here and listen for a signal.
Everything that can take longer than a frame runs off the UI thread:

- the *front* lane (one thread, its own :class:`~brain_core.brain.Brain`): recall, ask, feedback,
  and push-to-talk transcription, in order, so a question never waits behind a meeting;
- the *back* lane (one thread, a second Brain: a brain's lock and SQLite connection are per
  object, and two objects in one process exclude each other through the lock file like two
  processes do): meetings dropped on the tray;
- subprocesses (``aida brain harvest``, ``aida brain index``) for the periodic sweep and the index
  rebuild after the brain changed underneath (a ``git pull``), so a crash or a slow sweep never
  touches the app.

Seams (passed to the constructor, so tests hand in fakes instead of patching): the transcriber, the
microphone (an :class:`~brain_core.voice.capture.AudioSource`), the LLM, the meeting pipeline, the
command that runs the CLI, and the function that opens a file.
"""

from __future__ import annotations

import logging
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Sequence

from PySide6.QtCore import QObject, QTimer, QUrl, Signal, Slot
from PySide6.QtGui import QDesktopServices

from brain_core.config import Config
from brain_core.errors import BrainError, BrainNotFound

from .events import Recent, read_recent
from .jobs import Lane
from .processes import Processes, aida_command

log = logging.getLogger("aida.app")
DEFAULT = object()  # "the configured provider" / "the real thing"
MEDIA_SUFFIXES = frozenset(
    ".wav .mp3 .m4a .ogg .oga .opus .flac .aac .wma .webm .mp4 .mkv .mov .avi .m4v .3gp".split())


@dataclass(frozen=True)
class RecallResult:
    token: int
    query: str
    hits: tuple
    seconds: float


def shown_hits(brain, hits) -> tuple:
    """What the popup shows of a recall: strong hits, then weak ones (the closest), never unrelated
    ones; near-duplicates folded into one hit that lists the others' sources."""
    from brain_core.brain.dedupe import collapse_hits

    order = {"strong": 0, "weak": 1}
    kept = sorted((h for h in hits if (h.confidence or "strong") in order), key=lambda h: order[h.confidence or "strong"])
    return tuple(collapse_hits(kept, brain.index))


def open_with_desktop(path: Path) -> None:
    QDesktopServices.openUrl(QUrl.fromLocalFile(str(path)))


class AidaService(QObject):
    """The brain, the microphone and the workers behind the tray's windows."""

    recallReady = Signal(object)  # RecallResult
    heard = Signal(object)  # brain_core.voice.transcribe.Heard
    answerReady = Signal(object)  # brain_core.answer.ask.Answer
    asking = Signal(str)  # a question went to the front lane
    recordingChanged = Signal(bool)
    meetingStarted = Signal(str)  # file name
    meetingProgress = Signal(float)  # 0..1
    meetingDone = Signal(object)  # brain_core.voice.meeting.MeetingResult
    meetingFailed = Signal(str, str)  # file name, message
    feedbackSaved = Signal(object)  # the lesson Record
    forgotten = Signal(object)  # brain_core.lifecycle.forget.Moved: a record the user forgot (to archive/)
    restored = Signal(object)  # brain_core.lifecycle.forget.Moved: a forgotten record brought back
    confirmed = Signal(str, str)  # path, key: a record read offline the user found right
    harvestFinished = Signal(bool, str)  # ok, the sweep's last output line
    failed = Signal(str, str)  # (what was being done, one-sentence message)
    stateChanged = Signal(str)
    settingsChanged = Signal()

    def __init__(self, config: Config, *, transcriber: Any = None, audio_source: Any = None, llm: Any = DEFAULT,
                 meeting: Callable[..., Any] | None = None, command: Callable[..., list[str]] = aida_command,
                 opener: Callable[[Path], None] = open_with_desktop, embedder: Any = None,
                 parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.config = config
        self._transcriber = transcriber
        self._audio_source = audio_source
        self._own_audio = audio_source is None  # rebuilt from the settings when they change
        self._own_transcriber = transcriber is None
        self._llm = llm
        self._meeting = meeting
        self._opener = opener
        self._embedder = embedder
        self._embedder_lock = threading.Lock()
        self.front = Lane("front", self._open_brain)
        self.back = Lane("back", self._open_brain)
        self._latest_recall = 0
        self._recording = False
        self.processes = Processes(command, self)
        self.processes.changed.connect(self._refresh_state)
        self._last_error_at = 0.0
        self._last_head: str | None = None
        self._state = "idle"
        self.root = config.brain_path()

    # -- the brain --------------------------------------------------------------------------------

    def _open_brain(self):
        """Open (or, the first time, create) the brain; runs on a lane's thread."""
        from brain_core.brain import Brain

        with self._embedder_lock:  # loaded once, shared by both lanes (stateless per call)
            try:
                brain = Brain.open(self.root, config=self.config, embedder=self._embedder)
            except BrainNotFound:
                if self.root.exists() and any(self.root.iterdir()):
                    raise BrainNotFound(f"{self.root} is not empty and is not a brain; choose another brain folder "
                                        "in the settings.") from None
                brain = Brain.init(self.root, config=self.config, embedder=self._embedder)
            if self._embedder is None:
                self._embedder = brain.embedder
        return brain

    @property
    def events_file(self) -> Path:
        return self.root / ".aida" / "events.jsonl"

    def warm_up(self) -> None:
        """Open the brain and load the embedder now, so the first keystroke is quick."""
        self.front.submit("opening the brain", lambda brain, _r: brain.embedder.embed(["warm up"]) is not None,
                          on_failed=lambda m: self._fail("opening the brain", m))

    def recent(self, n: int = 5) -> list[Recent]:
        return read_recent(self.events_file, n)

    def abs_path(self, rel: str) -> Path:
        from brain_core.store.fsutil import contained

        return contained(self.root, rel)

    def open_path(self, rel: str | None = None) -> None:
        """Open a file of the brain (or the brain folder) with the desktop's default program."""
        try:
            target = self.abs_path(rel) if rel else self.root
        except BrainError as e:
            self._fail("opening a file", str(e))
            return
        self._opener(target)

    # -- recall, ask, feedback ------------------------------------------------------------------------

    def recall(self, query: str, k: int = 8) -> int:
        """Start a recall; ``recallReady`` brings it back unless a newer one was asked meanwhile."""
        self._latest_recall += 1
        token = self._latest_recall
        query = query.strip()

        def work(brain, _report):
            if token != self._latest_recall:
                return None  # typed over: skip the stale query instead of queueing behind it
            t0 = time.perf_counter()
            hits = shown_hits(brain, brain.recall(query, k=k, explain=True)) if query else ()
            return RecallResult(token, query, hits, time.perf_counter() - t0)

        def done(result):
            if result is not None and result.token == self._latest_recall:
                self.recallReady.emit(result)

        self.front.submit("recalling", work, done, lambda m: self._fail("recalling", m))
        return token

    def ask(self, question: str) -> None:
        question = " ".join((question or "").split())
        if not question:
            self._fail("asking", "The question is empty; type or say something first.")
            return
        from brain_core.answer.ask import DEFAULT as ASK_DEFAULT
        from brain_core.answer.ask import ask

        llm = ASK_DEFAULT if self._llm is DEFAULT else self._llm
        self.asking.emit(question)
        self._busy()
        self.front.submit("answering", lambda brain, _r: ask(brain, question, llm=llm, explain=True),
                          self._answered, lambda m: self._fail("answering", m))

    def _answered(self, answer) -> None:
        self.answerReady.emit(answer)
        self._refresh_state()

    def mark_used(self, rel: str, why: str) -> None:
        """A result the user opened or copied helped: note it (``Brain.mark_used``), in the background."""
        self.front.submit("noting a use", lambda brain, _r: brain.mark_used([rel], why),
                          on_failed=lambda m: self._fail("noting a use", m))

    def forget(self, rel: str, reason: str = "") -> None:
        """Forget a result ("Forget this" in the popup): archived, never deleted; :meth:`restore` undoes it."""
        from brain_core.lifecycle.forget import forget

        self.front.submit("forgetting", lambda brain, _r: forget(brain, rel, reason=reason, by="popup"),
                          self.forgotten.emit, lambda m: self._fail("forgetting", m))

    def confirm(self, rel: str) -> None:
        """"It's right" on a record read offline: no longer unchecked (:func:`brain_core.lifecycle.forget.confirm`)."""
        from brain_core.lifecycle.forget import confirm

        self.front.submit("confirming", lambda brain, _r: confirm(brain, rel)[:2],
                          lambda done: self.confirmed.emit(done[0], done[1].key),
                          lambda m: self._fail("confirming", m))

    def restore(self, rel: str) -> None:
        """Undo a forget: the archived record (``rel`` under ``archive/``) goes back where it lived."""
        from brain_core.lifecycle.forget import restore

        self.front.submit("restoring", lambda brain, _r: restore(brain, rel), self.restored.emit,
                          lambda m: self._fail("restoring", m))

    def feedback(self, run_id: str, verdict: str, why: str = "") -> None:
        """Thumbs up/down on an answer: a lesson in the brain (see :mod:`brain_core.answer.lessons`)."""
        from brain_core.answer.lessons import record_feedback

        self.front.submit("saving the feedback",
                          lambda brain, _r: record_feedback(brain, run_id, verdict, why=why or None),
                          self.feedbackSaved.emit, lambda m: self._fail("saving the feedback", m))

    # -- push to talk ----------------------------------------------------------------------------------

    @property
    def recording(self) -> bool:
        return self._recording

    def audio_source(self):
        if self._audio_source is None:
            from brain_core.voice.capture import SoundDeviceSource

            device = self.config.get("voice.input_device", None)
            self._audio_source = SoundDeviceSource(device=device)
        return self._audio_source

    def transcriber(self):
        if self._transcriber is None:
            from brain_core.voice.transcribe import WhisperTranscriber

            self._transcriber = WhisperTranscriber.from_config(self.config)
        return self._transcriber

    @Slot()
    def ptt_start(self) -> None:
        if self._recording:
            return
        try:
            self.audio_source().start()
        except BrainError as e:
            self._fail("listening", str(e))
            return
        self._recording = True
        self.recordingChanged.emit(True)
        self._refresh_state()

    @Slot()
    def ptt_stop(self) -> None:
        if not self._recording:
            return
        self._recording = False
        self.recordingChanged.emit(False)
        try:
            samples = self.audio_source().stop()
        except BrainError as e:
            self._fail("listening", str(e))
            return
        self._hear_then_ask(samples)

    @Slot()
    def ptt_toggle(self) -> None:
        """For a desktop shortcut that cannot report a key release (``aida ptt``)."""
        if self._recording:
            self.ptt_stop()
        else:
            self.ptt_start()

    def ask_audio(self, path: str | Path) -> None:
        """Transcribe a file as if it had been said to the push-to-talk key, then ask it."""
        from brain_core.voice.capture import WavFileSource

        source = WavFileSource(path)
        try:
            source.start()
            samples = source.stop()
        except BrainError as e:
            self._fail("reading the recording", str(e))
            return
        self._hear_then_ask(samples)

    def _hear_then_ask(self, samples) -> None:
        from brain_core.voice.glossary import brain_glossary
        from brain_core.voice.hear import hear

        transcriber = self.transcriber()
        hotwords = bool(self.config.get("voice.hotwords", True))
        threshold = self.config.get("voice.glossary_threshold", None)
        threshold = float(threshold) if threshold is not None else None

        def work(brain, _report):
            return hear(transcriber, samples, brain_glossary(brain), hotwords=hotwords, threshold=threshold)

        self._busy()
        self.front.submit("transcribing", work, self._heard, lambda m: self._fail("transcribing", m))

    def _heard(self, heard) -> None:
        self.heard.emit(heard)
        if heard.text.strip():
            self.ask(heard.text)
        else:
            self._fail("transcribing", "No speech was heard; hold the key down while you speak.")

    # -- meetings ---------------------------------------------------------------------------------------

    def drop(self, paths: Sequence[str | Path]) -> int:
        """Start the meeting pipeline for each audio or video file; returns how many were taken."""
        taken = 0
        for raw in paths:
            path = Path(raw)
            problem = None
            if path.suffix.lower() not in MEDIA_SUFFIXES:
                kinds = ", ".join(sorted(s.lstrip(".") for s in MEDIA_SUFFIXES)[:8])
                problem = f"{path.name} is not an audio or video file; drop a recording ({kinds}...)."
            elif not path.is_file():
                problem = f"{path} does not exist or is not a file; drop the recording itself."
            if problem:
                self.meetingFailed.emit(path.name, problem)
                self._fail("taking the file", problem)
                continue
            self._start_meeting(path)
            taken += 1
        return taken

    def _start_meeting(self, path: Path) -> None:
        meeting = self._meeting
        if meeting is None:
            from brain_core.voice.meeting import harvest_meeting as meeting
        transcriber = self.transcriber()
        llm = self._distill_llm()

        def work(brain, report):
            return meeting(brain, path, transcriber=transcriber, llm=llm, progress=report)

        self.meetingStarted.emit(path.name)
        self._busy()

        def failed(message: str) -> None:
            self.meetingFailed.emit(path.name, message)
            self._fail(f"harvesting {path.name}", message)

        self.back.submit(f"harvesting the meeting {path.name}", work, self._meeting_done, failed,
                         self.meetingProgress.emit)

    def _meeting_done(self, result) -> None:
        self.meetingDone.emit(result)
        self._refresh_state()

    def _distill_llm(self):
        """The configured provider for distilling, or None (the offline distiller) when there is none."""
        if self._llm is not DEFAULT:
            return self._llm
        from brain_core.errors import ProviderError
        from brain_core.llm import make_provider

        try:
            return make_provider(self.config)
        except ProviderError:
            return None

    # -- the sweep and the index, in subprocesses ----------------------------------------------------------

    @property
    def paused(self) -> bool:
        return bool(self.config.get("tray.harvest_paused", False))

    def set_paused(self, paused: bool) -> None:
        self.config.set("tray.harvest_paused", bool(paused))
        self._save_config()
        self._refresh_state()

    def harvest_now(self, *, manual: bool = True) -> bool:
        """Run ``aida brain harvest`` in a subprocess; False when one is already running or paused."""
        if not manual and (self.paused or self.config.get("machine.role", "writer") == "reader"):
            return False
        args = ["--brain", str(self.root), "brain", "harvest"] + (["--now", "--force"] if manual else [])
        return self.processes.start("harvest", args, self._harvested)

    def _harvested(self, ok: bool, out: str) -> None:
        self.harvestFinished.emit(ok, out)
        if not ok:
            self._fail("harvesting", out or "The harvest sweep failed; run `aida brain harvest` to see why.")

    def check_head(self) -> bool:
        """Rebuild the catalog in the background when HEAD moved (a pull, a hand edit committed)."""
        from types import SimpleNamespace

        from brain_core.answer.ask import git_head

        if not (self.root / ".git").exists():
            return False
        head = git_head(SimpleNamespace(root=self.root, head=lambda: None))  # reads .git, no subprocess
        moved = self._last_head is not None and head != self._last_head
        self._last_head = head
        if moved:
            return self.processes.start("index", ["--brain", str(self.root), "brain", "index"])
        return False

    def running(self, name: str) -> bool:
        return self.processes.running(name)

    # -- settings ------------------------------------------------------------------------------------------

    def _save_config(self) -> None:
        try:
            self.config.save()
        except (BrainError, OSError) as e:
            self._fail("saving the settings", f"The settings could not be saved ({e}); check that "
                       f"{self.config.path.parent} is writable.")

    def apply_settings(self) -> None:
        """The settings dialog saved: rebuild what depends on them on next use."""
        new_root = self.config.brain_path()
        if self._own_transcriber:
            self._transcriber = None
        if self._own_audio and not self._recording:
            self._audio_source = None
        if new_root != self.root:
            self.front.close()
            self.back.close()
            self.root = new_root
            self._last_head = None
        self.settingsChanged.emit()
        self._refresh_state()

    # -- state -----------------------------------------------------------------------------------------------

    def state(self) -> str:
        if self._recording:
            return "listening"
        if self.front.pending or self.back.pending or self.processes.running():
            return "working"
        if time.monotonic() - self._last_error_at < 10:
            return "error"
        if self.paused:
            return "paused"
        return "idle"

    def _busy(self) -> None:
        QTimer.singleShot(0, self._refresh_state)  # after the job is queued

    def _refresh_state(self) -> None:
        state = self.state()
        if state != self._state:
            self._state = state
            self.stateChanged.emit(state)
        if state == "error":
            QTimer.singleShot(10_500, self._refresh_state)  # the error badge fades by itself

    def _fail(self, what: str, message: str) -> None:
        self._last_error_at = time.monotonic()
        self.failed.emit(what, message)
        QTimer.singleShot(0, self._refresh_state)

    def shutdown(self) -> None:
        self.processes.stop_all()
        if self._recording:
            self._recording = False
            try:
                self.audio_source().stop()
            except BrainError as e:  # quitting anyway: the device is released with the process
                log.info("the microphone did not close cleanly: %s", e)
        self.front.close()
        self.back.close()
