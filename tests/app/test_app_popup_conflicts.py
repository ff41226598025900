"""The popup's answer says when two records disagree, the standing one first (it shows the answer's text)."""

from __future__ import annotations

import pytest

pytest.importorskip("PySide6.QtWidgets")

from PySide6.QtCore import Qt

pytestmark = pytest.mark.gui


@pytest.fixture
def service(brain, qtbot):
    from app.service import AidaService

    brain.remember("Use Redis for the session cache, not Memcached.", key="cache", profile="claude",
                   created="2026-03-10T09:00:00Z")
    brain.remember("Use Memcached for the session cache, not Redis.", key="cache", profile="codex",
                   created="2026-06-12T15:00:00Z")
    brain.config.set("brain", str(brain.root))
    brain.config.set("tray.warm_up", False)
    svc = AidaService(brain.config, opener=lambda p: None, embedder=brain._embedder, llm=None)
    yield svc
    svc.shutdown()


def test_the_popup_answer_says_two_records_disagree(qtbot, service):
    from app.popup import RecallPopup

    popup = RecallPopup(service, debounce_ms=20, hide_on_blur=False)
    qtbot.addWidget(popup)
    popup.show_popup("ask")
    qtbot.keyClicks(popup.search, "which cache do we use for sessions?")
    with qtbot.waitSignal(service.answerReady, timeout=20000):
        qtbot.keyClick(popup.search, Qt.Key.Key_Return)
    shown = popup.answer_view.text.text()
    assert "Two of your records disagree: Codex (June): Memcached; Claude (March): Redis." in shown
    assert shown.index("Use Memcached") < shown.index("Use Redis")
