"""The quick-recall popup: type and the brain answers as you type; hold the mic and ask aloud.

A small frameless window. Typing starts a recall after a short pause (debounced, and the service
drops a query that was typed over before it ran). Keys:

==================  ===================================================================
Enter               copy the selected (or first) result's body and close
Ctrl+Enter, Ctrl+O  open the selected result's file
Alt+Enter           ask the text as a question (in Ask mode, plain Enter does)
Ctrl+E              show or hide the selected result's "why" (the recall trace)
Ctrl+Delete         forget the selected result (archived; the notice's Undo brings it back)
Up / Down           move through the results
Esc                 close
==================  ===================================================================

The mic button records while it is held (push-to-talk); the transcript, the answer, the memories
it cites and thumbs up/down appear in the answer view. Recordings dropped on the popup go to the
meeting pipeline like the drop window's.
"""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QEvent, QObject, QSize, Qt, QTimer, Signal, Slot
from PySide6.QtGui import QCursor, QGuiApplication, QKeyEvent
from PySide6.QtWidgets import (
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QListWidget,
    QListWidgetItem,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from .cards import AnswerView, ResultCard
from .dropzone import media_paths, meeting_summary
from .icons import mic_icon
from .service import AidaService, RecallResult

HINT = "Enter copies · Ctrl+Enter opens · Alt+Enter asks · Ctrl+E why · hold the mic to talk · Esc closes"
ASK_HINT = "Enter asks · hold the mic to talk · Esc closes"


def results_line(result: RecallResult) -> str:
    """The status line under the search box: how many close results, or that only the closest or
    nothing close was found (weak hits are shown greyed, as "closest")."""
    strong = sum(1 for h in result.hits if (h.confidence or "strong") == "strong")
    weak = len(result.hits) - strong
    ms = f"{result.seconds * 1000:.0f} ms"
    if strong:
        extra = f", then {weak} closest" if weak else ""
        return f"{strong} result{'s' if strong != 1 else ''}{extra} in {ms}"
    if weak:
        return f"Nothing matches well; the closest {'one' if weak == 1 else weak} in {ms}, greyed."
    return "Nothing close in your memory; try other words, or Alt+Enter to ask."


class RecallPopup(QWidget):
    """The popup; ``mode`` is ``"recall"`` (search as you type) or ``"ask"`` (Enter asks)."""

    copied = Signal(str)  # the body put on the clipboard

    def __init__(self, service: AidaService, *, debounce_ms: int = 150, hide_on_blur: bool = True,
                 parent: QWidget | None = None) -> None:
        flags = Qt.WindowType.Tool | Qt.WindowType.FramelessWindowHint | Qt.WindowType.WindowStaysOnTopHint
        super().__init__(parent, flags)
        self.service = service
        self.mode = "recall"
        self.hide_on_blur = hide_on_blur
        self.last_result: RecallResult | None = None
        self.setObjectName("aidaPopup")
        self.setWindowTitle("Aida")
        self.setAcceptDrops(True)
        self.resize(660, 480)
        self.setStyleSheet("#aidaPopup { background: palette(window); border: 1px solid #9ca3af; }"
                           "#resultCard { background: transparent; }"
                           "QListWidget#results::item:selected { background: #d7f0ec; }")

        self.search = QLineEdit()
        self.search.setPlaceholderText("Search your memory…")
        self.search.setClearButtonEnabled(True)
        self.search.setMinimumHeight(34)
        font = self.search.font()
        font.setPointSizeF(font.pointSizeF() * 1.25)
        self.search.setFont(font)
        self.search.textEdited.connect(self._edited)
        self.search.installEventFilter(self)
        self.mic = QToolButton()
        self.mic.setIcon(mic_icon())
        self.mic.setIconSize(QSize(22, 22))
        self.mic.setMinimumSize(36, 34)
        self.mic.setToolTip("Hold to talk: release to ask")
        self.mic.setCheckable(False)
        self.mic.pressed.connect(service.ptt_start)
        self.mic.released.connect(service.ptt_stop)
        top = QHBoxLayout()
        top.addWidget(self.search, 1)
        top.addWidget(self.mic)

        self.status = QLabel("")
        self.status.setStyleSheet("color: #6b7280; font-size: 11px;")
        self.status.setWordWrap(True)
        self.status.setTextFormat(Qt.TextFormat.PlainText)
        self.results = QListWidget()
        self.results.setObjectName("results")
        self.results.setVerticalScrollMode(QListWidget.ScrollMode.ScrollPerPixel)
        self.results.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        self.results.itemDoubleClicked.connect(lambda _i: self.open_current())
        self.answer_view = AnswerView()
        self.answer_view.hide()
        self.answer_view.feedback.connect(service.feedback)
        self.answer_view.openPath.connect(service.open_path)
        # the notice after "Forget this": what was forgotten, and Undo
        self.notice = QLabel("")
        self.notice.setStyleSheet("color: #374151; font-size: 11px;")
        self.notice.setTextFormat(Qt.TextFormat.PlainText)
        self.undo = QToolButton()
        self.undo.setText("Undo")
        self.undo.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        self.undo.clicked.connect(self.undo_forget)
        self.notice_bar = QWidget()
        bar = QHBoxLayout(self.notice_bar)
        bar.setContentsMargins(0, 0, 0, 0)
        bar.addWidget(self.notice, 1)
        bar.addWidget(self.undo)
        self.notice_bar.hide()
        self.last_forgotten = None  # brain_core.lifecycle.forget.Moved: what Undo restores
        self.hint = QLabel(HINT)
        self.hint.setStyleSheet("color: #9ca3af; font-size: 10px;")

        frame = QVBoxLayout(self)
        frame.setContentsMargins(10, 10, 10, 8)
        frame.setSpacing(6)
        frame.addLayout(top)
        frame.addWidget(self.status)
        frame.addWidget(self.results, 1)
        frame.addWidget(self.answer_view, 1)
        frame.addWidget(self.notice_bar)
        frame.addWidget(self.hint)

        self._debounce = QTimer(self, singleShot=True, interval=debounce_ms)
        self._debounce.timeout.connect(self._fire)
        service.recallReady.connect(self._results)
        service.recordingChanged.connect(self._recording)
        service.heard.connect(self._heard)
        service.asking.connect(self._asking)
        service.answerReady.connect(self._answer)
        service.feedbackSaved.connect(self.answer_view.saved)
        service.meetingStarted.connect(lambda name: self._say(f"Harvesting the meeting {name}…"))
        service.meetingProgress.connect(lambda f: self._say(f"Harvesting the meeting… {int(f * 100)}%"))
        service.meetingDone.connect(lambda r: self._say(meeting_summary(r)))
        service.failed.connect(self._failed)
        service.forgotten.connect(self._forgotten)
        service.restored.connect(self._restored)
        service.confirmed.connect(self._confirmed)

    # -- showing ------------------------------------------------------------------------------------

    def show_popup(self, mode: str = "recall", query: str = "") -> None:
        self.set_mode(mode)
        if query:
            self.search.setText(query)
            self._edited(query)
        screen = QGuiApplication.screenAt(QCursor.pos()) or QGuiApplication.primaryScreen()
        if screen is not None:
            g = screen.availableGeometry()
            self.move(g.x() + (g.width() - self.width()) // 2, g.y() + g.height() // 5)
        self.show()
        self.raise_()
        self.activateWindow()
        self.search.setFocus()
        self.search.selectAll()

    def toggle(self) -> None:
        if self.isVisible():
            self.hide()
        else:
            self.show_popup("recall")

    def set_mode(self, mode: str) -> None:
        self.mode = mode
        self.search.setPlaceholderText("Ask Aida a question…" if mode == "ask" else "Search your memory…")
        self.hint.setText(ASK_HINT if mode == "ask" else HINT)

    def changeEvent(self, event: QEvent) -> None:
        super().changeEvent(event)
        if (event.type() == QEvent.Type.ActivationChange and self.hide_on_blur and self.isVisible()
                and not self.isActiveWindow() and not self.service.recording):
            self.hide()

    # -- typing and keys -------------------------------------------------------------------------------

    @Slot(str)
    def _edited(self, _text: str) -> None:
        self._show_results_view()
        if self.mode == "recall":
            self._debounce.start()

    @Slot()
    def _fire(self) -> None:
        query = self.search.text().strip()
        if not query:
            self.results.clear()
            self._say("")
            return
        self.service.recall(query)

    def eventFilter(self, obj: QObject, event: QEvent) -> bool:
        if obj is self.search and event.type() == QEvent.Type.KeyPress:
            return self._key(event)  # type: ignore[arg-type]
        return super().eventFilter(obj, event)

    def keyPressEvent(self, event: QKeyEvent) -> None:
        if not self._key(event):
            super().keyPressEvent(event)

    def _key(self, event: QKeyEvent) -> bool:
        key, mods = event.key(), event.modifiers()
        ctrl = bool(mods & Qt.KeyboardModifier.ControlModifier)
        alt = bool(mods & Qt.KeyboardModifier.AltModifier)
        if key == Qt.Key.Key_Escape:
            self.hide()
            return True
        if key in (Qt.Key.Key_Return, Qt.Key.Key_Enter):
            if ctrl:
                self.open_current()
            elif alt or self.mode == "ask":
                self.ask_current()
            else:
                self.copy_current()
            return True
        if ctrl and key == Qt.Key.Key_O:
            self.open_current()
            return True
        if ctrl and key == Qt.Key.Key_E:
            self.toggle_why()
            return True
        if ctrl and key == Qt.Key.Key_Delete:
            self.forget_current()
            return True
        if key in (Qt.Key.Key_Down, Qt.Key.Key_Up) and self.results.count():
            row = self.results.currentRow() + (1 if key == Qt.Key.Key_Down else -1)
            self.results.setCurrentRow(max(0, min(self.results.count() - 1, row)))
            return True
        return False

    # -- actions ------------------------------------------------------------------------------------------

    def current_card(self) -> ResultCard | None:
        item = self.results.currentItem() or self.results.item(0)
        return self.results.itemWidget(item) if item is not None else None

    def copy_current(self) -> None:
        card = self.current_card()
        if card is None:
            self._say("Nothing to copy yet: type a few words first.")
            return
        body = card.hit.record.body
        QGuiApplication.clipboard().setText(body)
        self.service.mark_used(card.hit.path, "copied")
        self.copied.emit(body)
        self._say(f"Copied {card.hit.record.key}.")
        self.hide()

    def open_current(self) -> None:
        card = self.current_card()
        if card is not None:
            self.service.open_path(card.hit.path)
            self.service.mark_used(card.hit.path, "opened")

    def toggle_why(self) -> None:
        card = self.current_card()
        if card is not None:
            card.why.toggle()

    def forget_current(self, card: ResultCard | None = None) -> None:
        """"Forget this": archive the result's record (never deleted); the notice offers Undo."""
        card = card or self.current_card()
        if card is None:
            self._say("Nothing to forget yet: type a few words first.")
            return
        self._say(f"Forgetting {card.hit.record.key}…")
        self.service.forget(card.hit.path)

    def undo_forget(self) -> None:
        moved = self.last_forgotten
        if moved is not None:
            self.undo.setEnabled(False)
            self.service.restore(moved.dst)

    @Slot(object)
    def _forgotten(self, moved: Any) -> None:
        self.last_forgotten = moved
        for i in range(self.results.count()):
            card = self.results.itemWidget(self.results.item(i))
            if card is not None and card.hit.path == moved.src:
                self.results.takeItem(i)
                break
        self.notice.setText(f"Forgot {moved.record.key} (moved to the archive).")
        self.undo.setEnabled(True)
        self.undo.show()
        self.notice_bar.show()
        self._say("")

    @Slot(str, str)
    def _confirmed(self, rel: str, key: str) -> None:
        for i in range(self.results.count()):
            card = self.results.itemWidget(self.results.item(i))
            if card is not None and card.hit.path == rel:
                card.confirmed()
        self.notice.setText(f"Confirmed {key}: no longer unchecked.")
        self.undo.hide()
        self.notice_bar.show()

    @Slot(object)
    def _restored(self, moved: Any) -> None:
        self.last_forgotten = None
        self.notice.setText(f"Restored {moved.record.key}.")
        self.undo.hide()
        query = self.search.text().strip()
        if query and self.mode == "recall":
            self.service.recall(query)

    def ask_current(self) -> None:
        question = self.search.text().strip()
        if question:
            self.answer_view.clear_heard()
            self.service.ask(question)

    # -- what the service says -----------------------------------------------------------------------------

    @Slot(object)
    def _results(self, result: RecallResult) -> None:
        if result.query != self.search.text().strip():
            return  # typed on since: the next result is on its way
        self.last_result = result
        self.results.clear()
        for hit in result.hits:
            item = QListWidgetItem()
            card = ResultCard(hit)
            card.whyToggled.connect(lambda _on: self._sync_sizes())
            card.forget.clicked.connect(lambda _c=False, c=card: self.forget_current(c))
            if card.confirm is not None:
                card.confirm.clicked.connect(lambda _c=False, c=card: self.service.confirm(c.hit.path))
            self.results.addItem(item)
            self.results.setItemWidget(item, card)
        if self.results.count():
            self.results.setCurrentRow(0)
        self._sync_sizes()
        self._say(results_line(result))

    def _sync_sizes(self) -> None:
        width = max(200, self.results.viewport().width() - 4)
        for i in range(self.results.count()):
            item = self.results.item(i)
            card = self.results.itemWidget(item)
            card.setFixedWidth(width)
            h = card.layout().totalHeightForWidth(width) if card.layout().hasHeightForWidth() else card.sizeHint().height()
            item.setSizeHint(QSize(width, max(h, card.minimumSizeHint().height())))

    def resizeEvent(self, event) -> None:
        super().resizeEvent(event)
        self._sync_sizes()

    @Slot(bool)
    def _recording(self, on: bool) -> None:
        self.mic.setStyleSheet("background: #e5484d; border-radius: 4px;" if on else "")
        if on:
            self._show_answer_view()
            self.answer_view.clear_heard()
            self._say("Listening… release to ask.")

    @Slot(object)
    def _heard(self, heard: Any) -> None:
        self.search.setText(heard.text)
        self._show_answer_view()
        self.answer_view.show_heard(heard)

    @Slot(str)
    def _asking(self, question: str) -> None:
        self._say(f"Thinking about “{question}”…")

    @Slot(object)
    def _answer(self, answer: Any) -> None:
        self._show_answer_view()
        self.answer_view.show_answer(answer)
        self._say("")

    @Slot(str, str)
    def _failed(self, what: str, message: str) -> None:
        self._say(f"{what[:1].upper()}{what[1:]} failed: {message}", error=True)

    def _say(self, text: str, error: bool = False) -> None:
        self.status.setStyleSheet(f"color: {'#b91c1c' if error else '#6b7280'}; font-size: 11px;")
        self.status.setText(text)

    def _show_answer_view(self) -> None:
        self.results.hide()
        self.answer_view.show()

    def _show_results_view(self) -> None:
        self.answer_view.hide()
        self.results.show()

    # -- drops ------------------------------------------------------------------------------------------------

    def dragEnterEvent(self, event) -> None:
        if media_paths(event.mimeData()):
            event.acceptProposedAction()
        else:
            event.ignore()

    def dropEvent(self, event) -> None:
        paths = media_paths(event.mimeData())
        if paths:
            event.acceptProposedAction()
            self.service.drop(paths)
        else:
            event.ignore()
