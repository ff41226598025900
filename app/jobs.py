"""Work off the UI thread: one-shot jobs on a lane (a one-thread pool) that report by signals.

A :class:`Lane` is a :class:`QThreadPool` limited to one thread plus the state that must only be
touched by one thread at a time (its own :class:`~brain_core.brain.Brain`: a brain's write lock and
SQLite connection are per object, not per thread). The service has two lanes, so a meeting that
takes minutes never holds up a recall that takes milliseconds.

A :class:`Job` runs a plain function with the lane's state and emits ``done(result)`` or
``failed(message)`` from the worker thread; Qt queues the signal to the receivers' (UI) thread.
A :class:`~brain_core.errors.BrainError` becomes its one-sentence message; anything else becomes
"unexpected error" with the exception's type, logged with its traceback, so a bug shows a dialog
instead of killing the app.
"""

from __future__ import annotations

import logging
from typing import Any, Callable

from PySide6.QtCore import QObject, QRunnable, QThreadPool, Signal

from brain_core.errors import BrainError

log = logging.getLogger("aida.app")


class JobSignals(QObject):
    """Signals of one job (a QRunnable is not a QObject, so it carries one of these)."""

    done = Signal(object)
    failed = Signal(str)
    progress = Signal(float)


class Job(QRunnable):
    """``fn(lane_state, report)`` on a worker thread; ``report(fraction)`` emits ``progress``."""

    def __init__(self, name: str, fn: Callable[..., Any], state: Any) -> None:
        super().__init__()
        self.name = name
        self.fn = fn
        self.state = state
        self.signals = JobSignals()
        self.setAutoDelete(False)  # the lane keeps it until its signals are delivered

    def run(self) -> None:  # runs on the lane's thread
        try:
            result = self.fn(self.state, self.signals.progress.emit)
        except BrainError as e:
            self.signals.failed.emit(str(e))
        except Exception as e:  # noqa: BLE001 - the edge between a worker and the UI: report, never die
            log.exception("job %s failed", self.name)
            self.signals.failed.emit(f"Unexpected error while {self.name} ({e.__class__.__name__}: {e}); "
                                     "see the log and report it.")
        else:
            self.signals.done.emit(result)


class Lane:
    """One thread's worth of work, in order, with state only that thread touches."""

    def __init__(self, name: str, state_factory: Callable[[], Any]) -> None:
        self.name = name
        self.pool = QThreadPool()
        self.pool.setMaxThreadCount(1)
        self.pool.setExpiryTimeout(-1)  # keep the thread: its thread-locals (ONNX, CTranslate2) stay warm
        self._factory = state_factory
        self._state: Any = None
        self._live: set[Job] = set()  # a job's signals must outlive its run until delivered

    @property
    def pending(self) -> int:
        return len(self._live)

    def state(self) -> Any:
        """The lane's state, built on first use (on the lane's thread)."""
        if self._state is None:
            self._state = self._factory()
        return self._state

    def submit(self, name: str, fn: Callable[..., Any], on_done: Callable[[Any], None] | None = None,
               on_failed: Callable[[str], None] | None = None,
               on_progress: Callable[[float], None] | None = None) -> Job:
        job = Job(name, lambda _state, report: fn(self.state(), report), None)
        self._live.add(job)

        def finished(*_: Any) -> None:
            self._live.discard(job)

        job.signals.done.connect(finished)
        job.signals.failed.connect(finished)
        if on_done is not None:
            job.signals.done.connect(on_done)
        if on_failed is not None:
            job.signals.failed.connect(on_failed)
        if on_progress is not None:
            job.signals.progress.connect(on_progress)
        self.pool.start(job)
        return job

    def wait(self, msecs: int = -1) -> bool:
        return self.pool.waitForDone(msecs)

    def close(self) -> None:
        """Wait for the running job, then drop the state (closing a brain it holds)."""
        self.pool.clear()
        self.pool.waitForDone()
        state, self._state = self._state, None
        closer = getattr(state, "close", None)
        if callable(closer):
            closer()
