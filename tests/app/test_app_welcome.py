"""The welcome window (first run) and the overview window, offscreen, over real brains and fake homes."""

from __future__ import annotations

import json

import pytest

from tests.helpers.harvest_homes import make_homes

pytestmark = pytest.mark.gui


@pytest.fixture
def home(tmp_path, monkeypatch):
    h = tmp_path / "home"
    h.mkdir()
    for var in ("CLAUDE_CONFIG_DIR", "CODEX_HOME", "GEMINI_CLI_HOME"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv("HOME", str(h))
    monkeypatch.setenv("PYTHON_KEYRING_BACKEND", "tests.helpers.keyring_memory.MemoryKeyring")
    return h


@pytest.fixture
def config(tmp_path):
    from brain_core.config import Config

    c = Config.load()
    c.set("brain", str(tmp_path / "brain"))
    return c


def test_first_start_shows_the_welcome_once(qtbot, home, config, monkeypatch, tmp_path):
    from brain_core.agents.setup import needs_welcome

    monkeypatch.setenv("AIDA_STATE_DIR", str(tmp_path / "fresh-state"))
    assert needs_welcome()
    from app.main import AidaApp

    app = AidaApp(config, use_tray=False, hotkeys=False)
    try:
        app.start()
        qtbot.waitUntil(lambda: app._welcome is not None and app._welcome.isVisible(), timeout=10000)
        assert app._welcome.windowTitle() == "Welcome to Aida"
    finally:
        app.shutdown()
        app.window.hide()
        if app._welcome:
            app._welcome.close()


def test_welcome_lists_what_was_found_and_connects_the_checked_steps(qtbot, home, config):
    from app.welcome import WelcomeWindow

    make_homes(home, mtime=1.7e9)
    w = WelcomeWindow(config)
    qtbot.addWidget(w)
    w.show()
    text = w.found_label.text()
    assert "claude" in text and "codex" in text and "gemini" in text and "hook not installed" in text
    ids = [w.list.item(i).data(0x0100) for i in range(w.list.count())]
    assert ids[0] == "brain" and "hooks-codex" in ids and ids[-1] == "backfill"
    assert w.checked() == {"brain", "hooks-claude", "hooks-codex", "hooks-gemini", "backfill", "mcp-claude",
                           "mcp-codex", "mcp-gemini"}
    w.list.setCurrentRow(ids.index("hooks-claude"))
    assert "brain harvest --hook claude" in w.preview.toPlainText()
    w.set_checked("hooks-gemini", False)  # the user says no to one step
    with qtbot.waitSignal(w.done, timeout=120000) as got:
        w.go_button.click()
    outcome = got.args[0]
    assert outcome["brain"] == "created" and outcome["hooks-claude"] == "installed"
    assert outcome["hooks-gemini"] == "skipped" and not (home / ".gemini" / "settings.json").exists()
    assert outcome["backfill"].startswith("3 sessions read")
    assert "All set." in w.status.text()
    assert (config.brain_path() / "harvest" / "claude.json").is_file()


def test_overview_shows_the_brain_and_links_to_files(qtbot, brain):
    from app.overview_window import OverviewWindow

    for i, (body, typ) in enumerate((("We use Postgres 16 for billing.", "decision"),
                                     ("Deploys need two approvals.", "instruction"),
                                     ("I prefer pytest over unittest.", "preference"))):
        brain.remember(body, type=typ, key=f"k{i}", profile="codex", source=f"codex:session:s{i}")
    opened = []
    w = OverviewWindow(lambda: brain, opened.append)
    qtbot.addWidget(w)
    w.show()
    assert w.data["records"] == 3 and w.total.text() == "3 records in all"
    month = w.data["by_month"][-1]
    assert month["types"] == {"decision": 1, "instruction": 1, "preference": 1} and month["sources"] == {"codex": 3}
    first = w.newest.item(0)
    assert "from a Codex session" in first.text()
    w.newest.itemDoubleClicked.emit(first)
    assert opened == [first.data(0x0100)] and opened[0].startswith("memories/codex/")
    assert "INDEX.md" in w.budget.format() and "exit 3" in w.budget.format()  # no INDEX.md yet
    assert "3 records indexed" in w.catalog_label.text()
    image = w.chart.grab().toImage()
    colours = {image.pixelColor(x, y).name() for x in range(0, image.width(), 3) for y in range(0, image.height(), 3)}
    assert {"#4c78a8", "#f28e2b", "#b07aa1"} <= colours  # a bar segment per type, in its colour


def test_the_overview_confirms_and_forgets_what_was_read_offline(qtbot, brain):
    from app.overview_window import OverviewWindow
    from brain_core.marks import OFFLINE_TAG

    brain.remember_many([{"body": body, "key": key, "profile": "claude", "type": "fact", "tags": [OFFLINE_TAG],
                          "confidence": 0.5, "source": f"claude:session:{key}", "created": created}
                         for body, key, created in (
                             ("The ledger API rate-limits bursts above 50 requests a second.", "ledger-rate-limit",
                              "2026-08-20T10:00:00Z"),
                             ("We will move the office printers to the third floor.", "printer-move",
                              "2026-08-21T10:00:00Z"))])
    brain.remember("Deploys need two approvals.", type="instruction", key="two-approvals", profile="me")
    w = OverviewWindow(lambda: brain)
    qtbot.addWidget(w)
    assert w.total.text() == "3 records in all, 2 unchecked"
    rows = [w.unchecked.item(i).text() for i in range(w.unchecked.count())]
    assert len(rows) == 2 and rows[0].startswith("printer-move") and rows[1].startswith("ledger-rate-limit")
    assert not w.confirm_button.isEnabled() and not w.forget_button.isEnabled()  # nothing chosen yet
    assert any("; unchecked" in w.newest.item(i).text() for i in range(w.newest.count()))

    w.unchecked.setCurrentRow(1)
    assert w.confirm_button.isEnabled()
    w.confirm_button.click()
    assert "Confirmed ledger-rate-limit" in w.review_note.text()
    ledger = json.loads((brain.root / "memories/claude/ledger-rate-limit.json").read_text())
    assert OFFLINE_TAG not in ledger["tags"] and ledger["confidence"] == 1
    assert w.total.text() == "3 records in all, 1 unchecked" and w.unchecked.count() == 1

    w.unchecked.setCurrentRow(0)
    w.forget_button.click()
    assert "Forgot printer-move" in w.review_note.text()
    assert not (brain.root / "memories/claude/printer-move.json").exists()
    gone = [json.loads(f.read_text()) for f in (brain.root / "archive").rglob("printer-move*.json")]
    assert gone and gone[0]["forgotten"]["by"] == "overview"
    assert w.total.text() == "2 records in all"
    assert w.unchecked.item(0).text().startswith("Nothing to review") and not w.confirm_button.isEnabled()


def test_overview_of_an_empty_brain_says_so(qtbot, brain):
    from app.overview_window import OverviewWindow

    w = OverviewWindow(lambda: brain)
    qtbot.addWidget(w)
    assert w.newest.item(0).text() == "No memories yet." and w.harvest.item(0).text() == "No harvest has run yet."
    assert json.dumps(w.data)  # plain data all the way down


def test_a_window_whose_steps_outlive_it_is_let_go_on_the_ui_thread(qtbot, home, config, monkeypatch):
    """A worker thread must never drop the last reference to a Qt object (app.welcome._Worker):
    shiboken then hands the deletion to the UI thread, and that crashed it. Here the window is
    dropped while its steps still run, and its thread ends last."""
    import gc
    import threading
    import weakref

    import brain_core.agents.setup as setup
    from app.welcome import WelcomeWindow

    gate = threading.Event()

    def steps(*_args, **_kwargs):
        gate.wait(30)
        return {"brain": "created"}

    monkeypatch.setattr(setup, "apply", steps)
    w = WelcomeWindow(config)
    freed = []
    weakref.finalize(w, lambda: freed.append(threading.current_thread().name))
    w.start()
    del w
    gc.collect()
    assert freed == []  # its steps still run
    gate.set()
    qtbot.waitUntil(lambda: gc.collect() is not None and freed != [], timeout=20000)
    assert freed == ["MainThread"]
