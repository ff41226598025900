""""Forget this" in the popup: the record leaves the results and the brain's shelves, Undo brings it back."""

from __future__ import annotations

import json

import pytest

pytest.importorskip("PySide6.QtWidgets")

from PySide6.QtCore import Qt  # noqa: E402

from tests.helpers.app_fixtures import filled, opened, popup, service  # noqa: F401,E402  (fixtures)

pytestmark = pytest.mark.gui


def _search(qtbot, popup, service, text):
    with qtbot.waitSignal(service.recallReady, timeout=20000, check_params_cb=lambda r: r.query == text):
        qtbot.keyClicks(popup.search, text)
    qtbot.waitUntil(lambda: popup.last_result is not None and popup.last_result.query == text, timeout=5000)


def _keys(popup):
    return [popup.results.itemWidget(popup.results.item(i)).hit.record.key for i in range(popup.results.count())]


def test_forget_this_then_undo(qtbot, popup, service, filled):
    _search(qtbot, popup, service, "commit message style")
    card = popup.current_card()
    assert card.hit.record.key == "commit-style" and card.forget.text() == "Forget this"
    live = filled.root / "memories" / "me" / "commit-style.json"
    with qtbot.waitSignal(service.forgotten, timeout=20000) as got:
        card.forget.click()
    moved = got.args[0]
    assert moved.src == "memories/me/commit-style.json" and moved.dst.startswith("archive/")
    assert "commit-style" not in _keys(popup)
    assert popup.notice_bar.isVisible() and "Forgot commit-style" in popup.notice.text()
    assert popup.undo.isVisible() and popup.undo.isEnabled()
    assert not live.exists()
    mark = json.loads((filled.root / moved.dst).read_text())["forgotten"]
    assert mark["by"] == "popup"

    # the same search no longer finds it
    popup.search.clear()
    _search(qtbot, popup, service, "commit message style")
    assert "commit-style" not in _keys(popup)

    # Undo in the notice: back on its shelf, and in the results again
    with qtbot.waitSignal(service.restored, timeout=20000):
        popup.undo.click()
    assert live.is_file() and not (filled.root / moved.dst).exists()
    assert "Restored commit-style" in popup.notice.text()
    qtbot.waitUntil(lambda: "commit-style" in _keys(popup), timeout=20000)


def test_ctrl_delete_forgets_the_selected_result(qtbot, popup, service, filled):
    _search(qtbot, popup, service, "webhook retry cap")
    assert popup.current_card().hit.record.key == "webhook-retry-policy"
    with qtbot.waitSignal(service.forgotten, timeout=20000):
        qtbot.keyClick(popup.search, Qt.Key.Key_Delete, Qt.KeyboardModifier.ControlModifier)
    assert not (filled.root / "memories" / "codex" / "webhook-retry-policy.json").exists()
    assert "webhook-retry-policy" not in _keys(popup)


def test_its_right_confirms_a_memory_read_offline(qtbot, popup, service, filled):
    from brain_core.marks import OFFLINE_TAG

    filled.remember_many([{"body": "The staging database is restored from the nightly snapshot at 02:00 UTC.",
                           "key": "staging-restore", "profile": "claude", "type": "fact", "tags": [OFFLINE_TAG],
                           "confidence": 0.5}])
    _search(qtbot, popup, service, "staging database nightly snapshot")
    cards = [popup.results.itemWidget(popup.results.item(i)) for i in range(popup.results.count())]
    card = next(c for c in cards if c.hit.record.key == "staging-restore")
    assert card.confirm is not None and card.meta_label.text().endswith(" · unchecked")
    assert all(c.confirm is None for c in cards if c is not card)  # a checked memory has no such button
    with qtbot.waitSignal(service.confirmed, timeout=20000) as got:
        card.confirm.click()
    assert got.args == ["memories/claude/staging-restore.json", "staging-restore"]
    on_disk = json.loads((filled.root / "memories" / "claude" / "staging-restore.json").read_text())
    assert OFFLINE_TAG not in on_disk["tags"] and on_disk["confidence"] == 1
    assert card.confirm.isHidden() and "unchecked" not in card.meta_label.text()
    assert popup.notice_bar.isVisible() and "Confirmed staging-restore" in popup.notice.text()
    assert not popup.undo.isVisible()
