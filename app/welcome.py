"""The welcome window: `aida setup` as a window, shown once at first start and from the menu.

It shows what :func:`brain_core.agents.setup.detect` found (the agents with their versions and
sessions, the microphone, speech on GPU or CPU, the keyring), one check box per step of
:func:`brain_core.agents.setup.plan` (checked by default, greyed when already done), the preview of the
step under the cursor (the diff of a hook install, the MCP command to run), and carries out the
checked steps on a worker thread, with the backfill's progress in a bar. Each outcome is one
line; a failed step says its fix and the others still run. Closing the window skips everything
(the menu brings it back).
"""

from __future__ import annotations

import threading
from pathlib import Path

from PySide6.QtCore import QObject, Qt, QTimer, Signal, Slot
from PySide6.QtWidgets import (
    QHBoxLayout,
    QLabel,
    QListWidget,
    QListWidgetItem,
    QPlainTextEdit,
    QProgressBar,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from brain_core.config import Config

from .jobs import harden_imports, main_thread_gc


class _Worker(QObject):
    """The signals a worker thread sends. It lives on the UI thread and has no parent, so it
    outlives a window closed (and deleted) while the thread still runs.

    A worker thread must never drop the last reference to a Qt object: shiboken then hands the
    deletion to the UI thread, and that hand-over crashed it (a segfault in
    ``BindingManager::runDeletionInMainThread``, seen when a test ended while the thread that ran
    its steps was ending). So the UI thread keeps each thread's window until the thread is over:
    ``released`` is the thread's last act, and its slot joins the thread, then lets the window go on
    the event loop's next turn (not inside a slot of an object the window owns)."""

    progress = Signal(int, int, str)  # done, total, line
    line = Signal(str)
    finished = Signal(dict)
    released = Signal(object)  # the ending thread's ident (a C int would not hold it)

    def __init__(self) -> None:
        super().__init__()
        self._busy: dict[int, tuple[threading.Thread, QObject]] = {}  # ident -> (thread, its window)

    def run(self, work, owner: QObject) -> None:
        """``work()`` on a thread of its own; ``work`` must call :meth:`done` last."""
        thread = threading.Thread(target=work, name="aida-welcome", daemon=True)
        thread.start()
        self._busy[thread.ident] = (thread, owner)  # before the thread's release can be delivered here

    def done(self) -> None:
        """The worker thread's last act."""
        self.released.emit(threading.get_ident())

    @Slot(object)
    def release(self, ident: int) -> None:
        thread, owner = self._busy.pop(ident, (None, None))
        if thread is not None:
            thread.join()  # it has emitted its last signal: this only waits for it to drop its references
            QTimer.singleShot(0, lambda _kept=owner: None)  # the window lives until the loop's next turn
        main_thread_gc.release()  # queued here, on the UI thread, where the collector's timer lives


class WelcomeWindow(QWidget):
    done = Signal(dict)  # step id -> outcome

    def __init__(self, config: Config, *, homes: dict[str, Path] | None = None, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        from brain_core.agents.setup import detect, plan

        self.config = config
        self.setWindowTitle("Welcome to Aida")
        self.setMinimumSize(640, 520)
        self.found = detect(config, config.brain_path(), homes=homes)
        self.steps = plan(self.found)
        self._worker = _Worker()
        self._worker.progress.connect(self._progress)
        self._worker.line.connect(self._say)
        self._worker.finished.connect(self._finished)
        self._worker.released.connect(self._worker.release)
        self.outcome: dict[str, str] = {}

        layout = QVBoxLayout(self)
        intro = QLabel("<b>Aida keeps what your coding agents and meetings teach, in one brain every agent can "
                       "recall from.</b> Here is what this machine has; choose what to connect.")
        intro.setWordWrap(True)
        layout.addWidget(intro)
        self.found_label = QLabel(self._found_text())
        self.found_label.setWordWrap(True)
        self.found_label.setTextFormat(Qt.TextFormat.RichText)
        layout.addWidget(self.found_label)

        self.list = QListWidget()
        for s in self.steps:
            item = QListWidgetItem(("Done: " if s.done else "") + s.title + (" (shown, you run it)" if s.manual else ""))
            item.setData(Qt.ItemDataRole.UserRole, s.id)
            flags = Qt.ItemFlag.ItemIsEnabled | Qt.ItemFlag.ItemIsSelectable
            if not s.done:
                flags |= Qt.ItemFlag.ItemIsUserCheckable
            item.setFlags(flags)
            item.setCheckState(Qt.CheckState.Checked if s.default and not s.done else Qt.CheckState.Unchecked)
            self.list.addItem(item)
        self.list.currentRowChanged.connect(self._preview_step)
        layout.addWidget(self.list)
        self.preview = QPlainTextEdit()
        self.preview.setReadOnly(True)
        self.preview.setPlaceholderText("Select a step to see exactly what it changes.")
        layout.addWidget(self.preview, 1)
        self.bar = QProgressBar()
        self.bar.hide()
        layout.addWidget(self.bar)
        self.status = QLabel("")
        self.status.setWordWrap(True)
        layout.addWidget(self.status)

        buttons = QHBoxLayout()
        self.mic_button = QPushButton("Test the microphone")
        self.mic_button.clicked.connect(self.test_microphone)
        self.skip_button = QPushButton("Skip for now")
        self.skip_button.clicked.connect(self.close)
        self.go_button = QPushButton("Connect")
        self.go_button.setDefault(True)
        self.go_button.clicked.connect(self.start)
        buttons.addWidget(self.mic_button)
        buttons.addStretch(1)
        buttons.addWidget(self.skip_button)
        buttons.addWidget(self.go_button)
        layout.addLayout(buttons)
        if self.steps:
            self.list.setCurrentRow(0)

    # -- what it shows ---------------------------------------------------------------------------

    def _found_text(self) -> str:
        f = self.found
        rows = []
        for a in f.agents:
            if not a.present:
                rows.append(f"{a.tool}: not found")
            elif a.error:
                rows.append(f"{a.tool}: {a.error}")
            else:
                hook = "hook installed" if a.hook_installed else "hook not installed"
                version = f" {a.version}" if a.version else ""
                plural = "" if a.sessions == 1 else "s"
                rows.append(f"{a.tool}{version}: {a.sessions} session{plural} ({a.session_bytes / 1e6:.1f} MB), {hook}")
        mic = ", ".join(f.microphones[:2]) if f.microphones else f.microphone_error
        keys = "keeps API keys" if f.keyring_keeps_keys else "cannot keep API keys (environment variables work)"
        rows += [f"Microphone: {mic}", f"Speech on {f.speech_device}; embeddings on {f.embed_provider}",
                 f"Keyring: {keys}", f"Brain: {f.brain}" + ("" if f.brain_exists else " (will be created)")]
        return "<br>".join(rows)

    def checked(self) -> set[str]:
        out = set()
        for i in range(self.list.count()):
            item = self.list.item(i)
            if item.checkState() == Qt.CheckState.Checked:
                out.add(item.data(Qt.ItemDataRole.UserRole))
        return out

    def set_checked(self, step_id: str, on: bool) -> None:
        for i in range(self.list.count()):
            item = self.list.item(i)
            if item.data(Qt.ItemDataRole.UserRole) == step_id:
                item.setCheckState(Qt.CheckState.Checked if on else Qt.CheckState.Unchecked)

    @Slot(int)
    def _preview_step(self, row: int) -> None:
        if 0 <= row < len(self.steps):
            s = self.steps[row]
            notes = "\n".join(s.notes)
            self.preview.setPlainText((s.preview or "(nothing to preview)") + (f"\n\n{notes}" if notes else ""))

    # -- doing it --------------------------------------------------------------------------------

    @Slot()
    def test_microphone(self) -> None:
        from brain_core.agents.setup import mic_level

        self.status.setText("Listening for 2 seconds: say something…")
        self.mic_button.setEnabled(False)
        self._off_ui_thread()

        def work() -> None:
            try:
                peak, verdict = mic_level()
                self._worker.line.emit(f"Microphone test: {verdict}" + (f" (peak {peak:.2f})" if peak is not None else ""))
            finally:
                self._worker.done()

        self._worker.run(work, self)

    @Slot()
    def start(self) -> None:
        from brain_core.agents.setup import apply

        chosen = self.checked()
        self.go_button.setEnabled(False)
        self.skip_button.setText("Close")
        self.status.setText("Working…")

        def progress(p) -> None:
            self._worker.progress.emit(p.done, p.total, p.line())

        self._off_ui_thread()

        def work() -> None:
            try:
                outcome = apply(self.steps, chosen, self.found, self.config, say=self._worker.line.emit,
                                on_progress=progress)
            except Exception as e:  # noqa: BLE001 - a bug says so in the window instead of killing the thread
                outcome = {"setup": f"failed: unexpected error ({e.__class__.__name__}: {e})"}
            self._worker.finished.emit(outcome)
            self._worker.done()

        self._worker.run(work, self)

    def _off_ui_thread(self) -> None:
        """Python work on another thread: imports made safe and the cycle collector kept here
        (see app.jobs) until the worker says it is done."""
        harden_imports()
        main_thread_gc.hold()

    @Slot(int, int, str)
    def _progress(self, done: int, total: int, line: str) -> None:
        self.bar.show()
        self.bar.setMaximum(max(total, 1))
        self.bar.setValue(done)
        self.bar.setFormat(line)

    @Slot(str)
    def _say(self, line: str) -> None:
        self.status.setText(line.splitlines()[0] if line else "")
        self.mic_button.setEnabled(True)

    @Slot(dict)
    def _finished(self, outcome: dict) -> None:
        self.outcome = outcome
        failed = [k for k, v in outcome.items() if v.startswith("failed")]
        lines = [f"{k}: {v}" for k, v in outcome.items() if v != "skipped"]
        self.status.setText(("Some steps failed; each says how to fix it.\n" if failed else "All set.\n")
                            + "\n".join(lines))
        self.done.emit(outcome)
