"""The quick-recall popup, the tray menu and the fallback window against a real brain (offscreen Qt)."""

from __future__ import annotations

import pytest

pytest.importorskip("PySide6.QtWidgets")

from PySide6.QtCore import QCoreApplication, Qt  # noqa: E402
from PySide6.QtGui import QGuiApplication  # noqa: E402

from tests.helpers.app_fixtures import filled, opened, popup, service  # noqa: F401,E402  (fixtures)

pytestmark = pytest.mark.gui


def type_and_wait(qtbot, popup, service, text):
    with qtbot.waitSignal(service.recallReady, timeout=20000,
                          check_params_cb=lambda r: r.query == text.strip()) as blocker:
        qtbot.keyClicks(popup.search, text)
    qtbot.waitUntil(lambda: popup.last_result is not None and popup.last_result.query == text.strip(), timeout=5000)
    return blocker.args[0]


def test_search_shows_results_with_type_key_date_snippet_and_why(qtbot, popup, service):
    result = type_and_wait(qtbot, popup, service, "webhook retry cap")
    assert result.hits, "recall found nothing in a brain that holds the answer"
    assert popup.results.count() == len(result.hits)
    card = popup.current_card()
    assert card.hit.record.key == "webhook-retry-policy"
    assert "DECISION" in card.type_label.text()
    assert "webhook-retry-policy" in card.key_label.text()
    assert "2026-08-22" in card.meta_label.text() and "codex" in card.meta_label.text()
    assert "six attempts" in card.snippet.text()
    # The why toggle shows the explain trace (both recall stages, by rank), and hides it again.
    assert not card.trace.isVisible()
    qtbot.keyClick(popup.search, Qt.Key.Key_E, Qt.KeyboardModifier.ControlModifier)
    assert card.trace.isVisible()
    assert "meaning (vector): rank" in card.trace.text()
    assert "words (bm25): rank" in card.trace.text()
    card.why.click()
    assert not card.trace.isVisible()
    assert "result" in popup.status.text()


def test_enter_copies_the_body_and_closes_ctrl_enter_opens_the_file(qtbot, popup, service, opened, filled):
    type_and_wait(qtbot, popup, service, "commit message style")
    assert popup.current_card().hit.record.key == "commit-style"
    qtbot.keyClick(popup.search, Qt.Key.Key_Return, Qt.KeyboardModifier.ControlModifier)
    assert opened == [filled.root / "memories" / "me" / "commit-style.json"]
    assert opened[0].is_file()
    with qtbot.waitSignal(popup.copied, timeout=2000):
        qtbot.keyClick(popup.search, Qt.Key.Key_Return)
    assert QGuiApplication.clipboard().text().startswith("My preferred commit message style")
    assert not popup.isVisible()


def test_arrow_keys_choose_and_escape_closes(qtbot, popup, service):
    result = type_and_wait(qtbot, popup, service, "webhook retries and the job queue")
    assert len(result.hits) >= 2
    qtbot.keyClick(popup.search, Qt.Key.Key_Down)
    assert popup.results.currentRow() == 1
    assert popup.current_card().hit.record.key == result.hits[1].record.key
    qtbot.keyClick(popup.search, Qt.Key.Key_Up)
    assert popup.results.currentRow() == 0
    qtbot.keyClick(popup.search, Qt.Key.Key_Escape)
    assert not popup.isVisible()


def test_only_the_latest_query_is_shown(qtbot, service):
    """Typing over a query: the stale one is dropped (not shown), the last one arrives."""
    seen = []
    service.recallReady.connect(lambda r: seen.append(r.query))
    service.recall("staging")
    service.recall("staging database")
    last = service.recall("staging database snapshot")
    qtbot.waitUntil(lambda: bool(seen), timeout=20000)
    assert service.front.wait(10000)
    QCoreApplication.sendPostedEvents()  # deliver every result the finished thread queued
    assert seen == ["staging database snapshot"]
    assert last == service._latest_recall


def test_alt_enter_asks_and_the_answer_cites_memories(qtbot, popup, service):
    qtbot.keyClicks(popup.search, "what did we decide about the job queue")
    with qtbot.waitSignal(service.answerReady, timeout=20000) as blocker:
        qtbot.keyClick(popup.search, Qt.Key.Key_Return, Qt.KeyboardModifier.AltModifier)
    answer = blocker.args[0]
    assert "SQS" in answer.text
    assert popup.answer_view.isVisible() and not popup.results.isVisible()
    assert "SQS" in popup.answer_view.text.text()
    cited = [popup.answer_view.cited.item(i).text() for i in range(popup.answer_view.cited.count())]
    assert any("queue-choice" in c for c in cited)


def test_unrelated_records_are_not_shown_and_the_status_says_nothing_close(qtbot, popup, service):
    result = type_and_wait(qtbot, popup, service, "office printer toner")
    assert result.hits == () and popup.results.count() == 0
    assert popup.status.text().startswith("Nothing close in your memory")


def test_weak_hits_are_greyed_as_closest(qtbot, popup, service):
    result = type_and_wait(qtbot, popup, service, "webhook retries and the job queue")
    levels = [h.confidence for h in result.hits]
    assert levels == sorted(levels, key=["strong", "weak"].index)  # strong first, never none
    for i in range(popup.results.count()):
        card = popup.results.itemWidget(popup.results.item(i))
        assert card.closest == (card.hit.confidence == "weak")
        assert ("closest" in card.meta_label.text()) == card.closest


def test_an_answer_the_brain_lacks_says_so_in_plain_words(qtbot, popup, service):
    popup.set_mode("ask")
    qtbot.keyClicks(popup.search, "which cloud provider did we choose for the analytics cluster")
    with qtbot.waitSignal(service.answerReady, timeout=20000) as blocker:
        qtbot.keyClick(popup.search, Qt.Key.Key_Return)
    answer = blocker.args[0]
    assert answer.confidence in ("weak", "none") and "SQS" not in answer.text
    view = popup.answer_view
    assert "answered offline" in view.route_label.text() and "answered by none" not in view.route_label.text()
    if answer.confidence == "none":
        assert answer.text.startswith("I have nothing about cloud provider analytics cluster in your brain")
        assert view.cited_title.text() == "Nothing close in your memory." and not view.cited.isVisible()
    else:
        assert "closest" in answer.text and view.cited.item(0).text().startswith("closest: ")


def test_tray_menu_is_rebuilt_from_live_state(qtbot, service, filled):
    from app.tray import TrayMenu

    class Recorder:
        def __init__(self):
            self.calls = []

        def __getattr__(self, name):
            return lambda *a: self.calls.append((name, a))

    actions = Recorder()
    menu = TrayMenu(service, actions)
    labels = [a.text() for a in menu.menu.actions()]
    for wanted in ("Ask…", "Quick recall", "Drop a recording…", "Harvest now", "Open brain folder",
                   "Recent memories", "Settings…", "Pause harvesting", "Quit"):
        assert wanted in labels
    recent = menu.action("Recent memories").menu()
    keys = [a.text().split(" · ")[0] for a in recent.actions()]
    assert set(keys) == {m["key"] for m in __import__("tests.helpers.app_fixtures", fromlist=["_"]).MEMORIES}
    assert not menu.action("Pause harvesting").isChecked()

    # New state appears the next time the menu opens.
    filled.remember("The release train leaves every second Tuesday.", key="release-train", profile="gemini")
    service.set_paused(True)
    menu.menu.aboutToShow.emit()
    recent = menu.action("Recent memories").menu()
    assert recent.actions()[0].text() == "release-train · gemini"
    assert menu.action("Pause harvesting").isChecked()
    assert menu.menu.actions()[0].text() == "Aida: harvesting paused"
    recent.actions()[0].trigger()
    assert ("open_memory", ("memories/gemini/release-train.json",)) in actions.calls
    menu.action("Quick recall").trigger()
    assert ("quick_recall", ()) in actions.calls


def test_without_a_tray_a_window_offers_the_same_actions(qtbot, service, opened, filled):
    from app.main import AidaApp

    app = AidaApp(filled.config, service=service, use_tray=False, hotkeys=False)
    try:
        app.start()
        assert app.tray is None and app.window.isVisible()
        w = app.window
        assert set(w.buttons) >= {"Ask…", "Quick recall", "Drop a recording…", "Harvest now", "Open brain folder",
                                  "Settings…"}
        assert w.recent.count() == 4
        w.buttons["Quick recall"].click()
        assert app.popup.isVisible() and app.popup.mode == "recall"
        w.buttons["Ask…"].click()
        assert app.popup.mode == "ask"
        w.buttons["Open brain folder"].click()
        assert opened[-1] == filled.root
        w.buttons["Drop a recording…"].click()
        assert app._dropzone is not None and app._dropzone.isVisible()
        w.pause.setChecked(True)
        assert service.paused and filled.config.get("tray.harvest_paused") is True
    finally:
        app.shutdown()
        app.window.hide()


def test_opening_or_copying_a_result_counts_as_a_use_showing_does_not(qtbot, popup, service, opened, filled):
    from brain_core.catalog.usage import Usage

    type_and_wait(qtbot, popup, service, "commit message style")
    path = popup.current_card().hit.path
    usage = Usage(filled.root / ".aida" / "usage.sqlite")
    assert usage.reasons(path) == {}  # shown, not used
    qtbot.keyClick(popup.search, Qt.Key.Key_Return, Qt.KeyboardModifier.ControlModifier)
    qtbot.waitUntil(lambda: usage.reasons(path) == {"opened": 1}, timeout=10000)
    with qtbot.waitSignal(popup.copied, timeout=2000):
        qtbot.keyClick(popup.search, Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: usage.reasons(path) == {"opened": 1, "copied": 1}, timeout=10000)
    usage.close()


def test_a_card_says_when_its_memory_was_read_offline(qtbot):
    from app.cards import ResultCard
    from brain_core.marks import OFFLINE_TAG
    from brain_core.recall.hybrid import Hit
    from brain_core.records import Record

    def card(tags):
        rec = Record(id="20260820-100000000-abcdef", type="fact", key="ledger-rate-limit", profile="claude",
                     body="The ledger API rate-limits bursts.", tags=tags, created="2026-08-20T10:00:00Z")
        c = ResultCard(Hit(rec, "memories/claude/ledger-rate-limit.json", 1.0, confidence="strong"))
        qtbot.addWidget(c)
        return c

    unchecked = card([OFFLINE_TAG])
    assert unchecked.meta_label.text().endswith(" · unchecked") and "no one has checked" in unchecked.meta_label.toolTip()
    assert unchecked.confirm is not None and card([]).confirm is None
    assert "unchecked" not in card([]).meta_label.text()
