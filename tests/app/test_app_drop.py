"""Drop a recording: a QDropEvent with a file URL -> the meeting pipeline -> records, transcript, notification.

The transcriber is a fake (the seam the meeting pipeline takes), so the test runs in a second;
the rest is real: the distiller, the one write path, git, the events file and the notifier.
"""

from __future__ import annotations

import json
import shutil
import subprocess

import pytest

pytest.importorskip("PySide6.QtWidgets")

from PySide6.QtCore import QMimeData, QPoint, QPointF, Qt, QUrl  # noqa: E402
from PySide6.QtGui import QDragEnterEvent, QDropEvent  # noqa: E402
from PySide6.QtWidgets import QApplication  # noqa: E402

from tests.helpers.app_fixtures import FIXTURES, MEETING_TEXT, FakeTranscriber, filled, opened  # noqa: F401,E402

pytestmark = pytest.mark.gui


def drop_files(widget, paths):
    mime = QMimeData()
    mime.setUrls([QUrl.fromLocalFile(str(p)) for p in paths])
    how = (Qt.DropAction.CopyAction, mime, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier)
    try:
        enter = QDragEnterEvent(QPointF(20, 20), *how)  # PySide6 6.12 and later
    except TypeError:
        enter = QDragEnterEvent(QPoint(20, 20), *how)  # before 6.12, a QPoint only
    QApplication.sendEvent(widget, enter)
    drop = QDropEvent(QPointF(20, 20), *how)
    QApplication.sendEvent(widget, drop)
    return enter.isAccepted(), drop.isAccepted()


@pytest.fixture
def app(filled, opened, tmp_path, qtbot):
    from app.main import AidaApp
    from app.service import AidaService

    fake = FakeTranscriber(MEETING_TEXT)
    svc = AidaService(filled.config, opener=opened.append, embedder=filled._embedder, llm=None, transcriber=fake)
    aida = AidaApp(filled.config, service=svc, use_tray=False, hotkeys=False)
    aida.start()
    yield aida, fake
    aida.shutdown()
    aida.window.hide()


def test_dropping_a_recording_harvests_the_meeting_and_notifies(qtbot, app, filled, tmp_path, opened):
    aida, fake = app
    recording = tmp_path / "Weekly sync.wav"
    shutil.copy(FIXTURES / "meeting_sync.wav", recording)
    aida.drop_recording()
    zone = aida._dropzone
    shown, progress = [], []
    aida.notifier.shown.connect(shown.append)
    aida.service.meetingProgress.connect(progress.append)
    with qtbot.waitSignal(aida.service.meetingDone, timeout=30000) as done:
        accepted = drop_files(zone, [recording])
    assert accepted == (True, True)
    result = done.args[0]
    assert fake.calls, "the pipeline never asked the transcriber"
    assert not result.skipped and result.title == "Weekly sync"
    assert result.keys
    written = f"{len(result.keys)} memor{'y' if len(result.keys) == 1 else 'ies'} written"
    assert progress and progress[-1] == pytest.approx(1.0)
    assert zone.progress.value() == 100
    assert written in zone.status.text()

    # What was written: records with profile meeting, a transcript page, all committed.
    for key in result.keys:
        rec = json.loads((filled.root / "memories" / "meeting" / f"{key}.json").read_text())
        assert rec["source"] == f"meeting:{result.sha256}" and "meeting" in rec["tags"]
    page = (filled.root / result.transcript_path).read_text()
    assert "Weekly sync" in page and "dead letter queue" in page
    status = subprocess.run(["git", "status", "--porcelain"], cwd=filled.root, capture_output=True, text=True)
    assert status.stdout.strip() == ""

    # One notification says how many memories the meeting gave; the per-record ones are folded in.
    qtbot.waitUntil(lambda: any(n.title == "Meeting harvested" for n in shown), timeout=3000)
    qtbot.waitUntil(aida.follower.drained, timeout=10000)  # every event line read and handed on: no duplicate to come
    titles = [n.title for n in shown]
    assert titles == ["Meeting harvested"], titles
    assert written in shown[0].message
    assert written in aida.window.notices.text()
    aida.notifier.clicked()
    assert opened[-1] == filled.root / result.transcript_path

    # The same recording again (renamed, dropped on the popup this time): recognised, nothing written.
    again = tmp_path / "copy.wav"
    shutil.copy(recording, again)
    aida.quick_recall()
    before = len(fake.calls)
    with qtbot.waitSignal(aida.service.meetingDone, timeout=30000) as second:
        drop_files(aida.popup, [again])
    assert second.args[0].skipped
    assert len(fake.calls) == before  # not transcribed again
    assert "harvested before" in aida.popup.status.text()


def test_a_dropped_file_that_is_not_a_recording_is_refused(qtbot, app, tmp_path):
    aida, fake = app
    notes = tmp_path / "notes.txt"
    notes.write_text("not audio")
    aida.drop_recording()
    accepted = drop_files(aida._dropzone, [notes])
    assert accepted == (False, False)  # the drag itself is refused: the cursor says no
    with qtbot.waitSignal(aida.service.failed, timeout=2000) as failed:
        assert aida.service.drop([notes]) == 0
    assert "not an audio or video file" in failed.args[1]
    assert "not an audio or video file" in aida._dropzone.status.text()
    assert not fake.calls
