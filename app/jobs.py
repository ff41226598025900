"""Work off the UI thread: one-shot jobs on a lane (one thread, in order) that report by signals.

A :class:`Lane` is one long-lived thread that runs jobs in order, plus the state that must only be
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

import gc
import logging
import threading
from collections import deque
from typing import Any, Callable

from PySide6.QtCore import QCoreApplication, QObject, QTimer, Signal

from brain_core.errors import BrainError

log = logging.getLogger("aida.app")
_imports_hardened = False


def harden_imports() -> None:
    """Make ``import`` in a worker thread safe under PySide6.

    shiboken replaces ``__import__`` and, for every newly imported ``.py`` module, reads the
    module's source with :func:`inspect.getsource` to see whether it uses PySide6 (for its
    opt-in ``from __feature__ import ...`` switches). Done on a worker thread while the UI
    thread runs, that corrupts memory and the UI thread crashes later (seen here as a segfault
    in the event loop the first time a worker imported ``brain_core.recall.hybrid``). Aida never uses
    ``__feature__``, so every module is simply marked "ignore", which is what the check returns
    for modules without PySide6 in their source.
    """
    global _imports_hardened
    if _imports_hardened:
        return
    try:
        from shibokensupport import feature  # type: ignore[import-not-found]
    except ImportError:  # another Qt binding or a PySide6 without the hook: nothing to do
        _imports_hardened = True
        return
    if hasattr(feature, "_mod_uses_pyside"):
        feature._mod_uses_pyside = lambda _module: False
    _imports_hardened = True


class MainThreadGC:
    """Keep Python's cycle collector on the UI thread while other threads run Python code.

    The collector runs in whichever thread happens to allocate when a threshold is crossed. If
    that is a worker (or the microphone's or the hotkey listener's thread), it may destroy Qt
    objects that live in the UI thread (an old window, a finished job's signals) from the wrong
    thread, and the UI thread crashes later on an event for the freed object. So, while anything
    else runs (``hold`` .. ``release``; the app holds for its whole life), automatic collection is
    off and a timer on the UI thread collects as the thresholds would have.
    """

    def __init__(self) -> None:
        self._holds = 0
        self._disabled_here = False
        self._timer: QTimer | None = None

    def hold(self) -> None:
        assert threading.current_thread() is threading.main_thread(), "hold() belongs on the UI thread"
        self._holds += 1
        if self._holds == 1 and gc.isenabled():
            gc.disable()
            self._disabled_here = True
        if self._timer is None and QCoreApplication.instance() is not None:
            self._timer = QTimer(QCoreApplication.instance())
            self._timer.setInterval(250)
            self._timer.timeout.connect(self.collect)
        if self._timer is not None and not self._timer.isActive():
            self._timer.start()

    @property
    def holds(self) -> int:
        """How many holders keep automatic collection off now."""
        return self._holds

    def release(self) -> None:
        self._holds = max(0, self._holds - 1)
        if self._holds == 0:
            if self._timer is not None:
                self._timer.stop()
            if self._disabled_here:
                self._disabled_here = False
                gc.enable()

    def collect(self) -> None:
        """What automatic collection would do now, done here, on the UI thread."""
        t0, t1, t2 = gc.get_threshold()
        c0, c1, c2 = gc.get_count()
        if c2 > t2 and t2:
            gc.collect(2)
        elif c1 > t1 and t1:
            gc.collect(1)
        elif c0 > t0 and t0:
            gc.collect(0)


main_thread_gc = MainThreadGC()


class JobSignals(QObject):
    """Signals of one job (a QRunnable is not a QObject, so it carries one of these)."""

    done = Signal(object)
    failed = Signal(str)
    progress = Signal(float)


class Job:
    """``fn(lane_state, report)`` on a lane's thread; ``report(fraction)`` emits ``progress``."""

    def __init__(self, name: str, fn: Callable[..., Any], state: Any) -> None:
        self.name = name
        self.fn = fn
        self.state = state
        self.signals = JobSignals()

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


class _Returns(QObject):
    """The lane's thread says, once it holds a job no more, that the UI thread may let it go."""

    returned = Signal(object)


class Lane:
    """One thread's worth of work, in order, with state only that thread touches.

    The thread is a plain Python thread that lives until :meth:`close` (its thread-locals, ONNX's and
    CTranslate2's, stay warm), not a ``QThreadPool``: PySide's pool (6.11 and 6.12) keeps a reference
    to every ``QRunnable`` started on it for the pool's whole life, so each job a lane ran stayed in
    memory, and 6.12.0's ``start(callable)`` releases the callable's return value once too often."""

    def __init__(self, name: str, state_factory: Callable[[], Any]) -> None:
        harden_imports()
        self.name = name
        self._factory = state_factory
        self._state: Any = None
        self._queue: deque[object] = deque()  # tickets waiting, in order
        self._busy = False  # the thread is running a job
        self._stopping = False
        self._cond = threading.Condition()
        self._thread: threading.Thread | None = None
        # A job stays in ``_held``, on the UI thread, until the lane's thread has let go of it: a Qt
        # object (its signals) whose last reference drops on another thread is deleted through
        # shiboken's hand-over to the UI thread, which crashed it (see app/welcome.py).
        self._held: dict[object, Job] = {}
        self._undelivered: set[object] = set()  # jobs whose done or failed has not reached its slot
        self._returns = _Returns()
        self._returns.returned.connect(self._let_go)

    @property
    def pending(self) -> int:
        """Jobs submitted whose result has not been delivered yet (a done slot sees itself delivered)."""
        return len(self._undelivered)

    def state(self) -> Any:
        """The lane's state, built on first use (on the lane's thread)."""
        if self._state is None:
            self._state = self._factory()
        return self._state

    def submit(self, name: str, fn: Callable[..., Any], on_done: Callable[[Any], None] | None = None,
               on_failed: Callable[[str], None] | None = None,
               on_progress: Callable[[float], None] | None = None) -> Job:
        job = Job(name, lambda _state, report: fn(self.state(), report), None)
        ticket = object()  # the connections and the queue hold this, not the job: no cycle through Qt
        self._held[ticket] = job
        self._undelivered.add(ticket)
        main_thread_gc.hold()
        # One connection per signal: bookkeeping first, then the caller's slot, in one delivery.
        job.signals.done.connect(lambda result: self._deliver(ticket, on_done, result))
        job.signals.failed.connect(lambda message: self._deliver(ticket, on_failed, message))
        if on_progress is not None:
            job.signals.progress.connect(on_progress)
        with self._cond:
            self._queue.append(ticket)
            if self._thread is None:
                self._thread = threading.Thread(target=self._serve, name=f"aida-lane-{self.name}", daemon=True)
                self._thread.start()
            self._cond.notify_all()
        return job

    def _serve(self) -> None:
        """The lane's thread: each job in turn; after each, drop this thread's hold on it, then say
        so (queued after the job's own signal, so the UI thread lets it go after its slot ran)."""
        while True:
            with self._cond:
                while not self._queue and not self._stopping:
                    self._cond.wait()
                if not self._queue:
                    return
                ticket = self._queue.popleft()
                self._busy = True
            job = self._held.get(ticket)
            try:
                if job is not None:
                    job.run()
            except BaseException:  # noqa: BLE001 - a job's SystemExit must not end the lane's thread
                log.exception("a job on the %s lane ended without a result", self.name)
            finally:
                del job
                with self._cond:
                    self._busy = False
                    self._cond.notify_all()
                self._returns.returned.emit(ticket)

    def _deliver(self, ticket: object, callback: Callable[[Any], None] | None, value: Any) -> None:
        self._undelivered.discard(ticket)
        if callback is not None:
            callback(value)

    def _let_go(self, ticket: object) -> None:
        """Once per job, on the UI thread: forget it and let the collector go."""
        self._undelivered.discard(ticket)
        if self._held.pop(ticket, None) is not None:
            main_thread_gc.release()

    def wait(self, msecs: int = -1) -> bool:
        """Wait until every submitted job has run (not for its slots); False if ``msecs`` ran out."""
        with self._cond:
            return self._cond.wait_for(lambda: not self._queue and not self._busy,
                                       None if msecs < 0 else msecs / 1000)

    def close(self) -> None:
        """Drop the jobs not yet started, wait for the running one and the thread, then drop the
        state (closing a brain it holds). The lane takes jobs again afterwards, on a new thread."""
        with self._cond:
            self._queue.clear()
            self._stopping = True
            self._cond.notify_all()
            thread, self._thread = self._thread, None
        if thread is not None:
            thread.join()
        with self._cond:
            self._stopping = False
        for ticket in list(self._held):  # dropped before they ran, or their signals not yet delivered
            self._let_go(ticket)
        state, self._state = self._state, None
        closer = getattr(state, "close", None)
        if callable(closer):
            closer()
