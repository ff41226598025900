"""Drop a recording: a small window that takes audio and video files and harvests the meeting.

A tray icon cannot take drops on most desktops, so the menu opens this window (the quick-recall
popup takes drops too, through :func:`media_paths`). The meeting pipeline runs on the service's
back lane; the window shows its progress and the result, and can be closed meanwhile: the
notification says when it is done.
"""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QMimeData, Qt, Slot
from PySide6.QtGui import QDragEnterEvent, QDropEvent
from PySide6.QtWidgets import QFileDialog, QLabel, QProgressBar, QPushButton, QVBoxLayout, QWidget

from .service import MEDIA_SUFFIXES, AidaService


def media_paths(mime: QMimeData) -> list[Path]:
    """The local audio and video files in a drag, in order."""
    if not mime.hasUrls():
        return []
    out = []
    for url in mime.urls():
        if url.isLocalFile():
            p = Path(url.toLocalFile())
            if p.suffix.lower() in MEDIA_SUFFIXES:
                out.append(p)
    return out


def file_filter() -> str:
    return "Recordings (" + " ".join(f"*{s}" for s in sorted(MEDIA_SUFFIXES)) + ");;All files (*)"


class DropZone(QWidget):
    def __init__(self, service: AidaService, parent: QWidget | None = None) -> None:
        super().__init__(parent, Qt.WindowType.Window)
        self.service = service
        self.setWindowTitle("Aida: drop a recording")
        self.setAcceptDrops(True)
        self.setMinimumSize(360, 220)
        self.target = QLabel("Drop a meeting recording here\n(audio or video)")
        self.target.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.target.setObjectName("dropTarget")
        self.target.setMinimumHeight(110)
        self._style(False)
        self.choose = QPushButton("Choose a file…")
        self.choose.clicked.connect(self._choose)
        self.progress = QProgressBar()
        self.progress.setRange(0, 100)
        self.progress.hide()
        self.status = QLabel("")
        self.status.setWordWrap(True)
        self.status.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        layout = QVBoxLayout(self)
        layout.addWidget(self.target, 1)
        layout.addWidget(self.choose)
        layout.addWidget(self.progress)
        layout.addWidget(self.status)
        service.meetingStarted.connect(self._started)
        service.meetingProgress.connect(self._progress)
        service.meetingDone.connect(self._done)
        service.meetingFailed.connect(self._failed)

    def _style(self, hot: bool) -> None:
        border = "#14b8a6" if hot else "#8b8d98"
        self.target.setStyleSheet(f"#dropTarget {{ border: 2px dashed {border}; border-radius: 10px; "
                                  "font-size: 15px; padding: 12px; }")

    def take(self, paths: list[Path]) -> int:
        return self.service.drop(paths)

    # -- drag and drop ---------------------------------------------------------------------------

    def dragEnterEvent(self, event: QDragEnterEvent) -> None:
        if media_paths(event.mimeData()):
            event.acceptProposedAction()
            self._style(True)
        else:
            event.ignore()

    def dragLeaveEvent(self, event) -> None:
        self._style(False)

    def dropEvent(self, event: QDropEvent) -> None:
        self._style(False)
        paths = media_paths(event.mimeData())
        if not paths:
            event.ignore()
            return
        event.acceptProposedAction()
        self.take(paths)

    # -- progress ------------------------------------------------------------------------------------

    @Slot()
    def _choose(self) -> None:
        files, _ = QFileDialog.getOpenFileNames(self, "Choose a recording", str(Path.home()), file_filter())
        if files:
            self.take([Path(f) for f in files])

    @Slot(str)
    def _started(self, name: str) -> None:
        self.progress.setValue(0)
        self.progress.show()
        self.status.setText(f"Listening to {name}…")

    @Slot(float)
    def _progress(self, fraction: float) -> None:
        self.progress.setValue(int(round(max(0.0, min(1.0, fraction)) * 100)))

    @Slot(object)
    def _done(self, result) -> None:
        self.progress.setValue(100)
        self.status.setText(meeting_summary(result))

    @Slot(str, str)
    def _failed(self, _name: str, message: str) -> None:
        self.progress.hide()
        self.status.setText(message)


def meeting_summary(result) -> str:
    """One line for the window and the notification."""
    if result.skipped:
        return f"“{result.title}” was harvested before; nothing new was written."
    n = len(result.keys)
    memories = f"{n} memor{'y' if n == 1 else 'ies'}"
    return f"“{result.title}”: {memories} written, transcript in {result.transcript_path}."
