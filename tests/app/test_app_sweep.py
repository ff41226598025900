"""The tray's periodic sweep: `aida brain harvest` in a subprocess -> new records -> grouped notification.

A temporary home holds a Claude Code transcript (the demo's sample session); the sweep is the
real command, run the way the tray's timer runs it, and the notification comes from the events
file the brain appends to.
"""

from __future__ import annotations

import json
import os
import shutil
import time

import pytest

pytest.importorskip("PySide6.QtWidgets")

from tests.helpers.app_fixtures import filled, opened  # noqa: F401,E402  (fixtures)

pytestmark = pytest.mark.gui


@pytest.fixture
def home_with_a_session(tmp_path, monkeypatch):
    from brain_core.cli.demo import SAMPLES

    home = tmp_path / "home"
    project = home / ".claude" / "projects" / "-home-dev-damage-control"
    project.mkdir(parents=True)
    session = project / "5b8e1c2d-3f4a-4b6c-8d9e-0a1b2c3d4e5f.jsonl"
    shutil.copy(SAMPLES / "5b8e1c2d-3f4a-4b6c-8d9e-0a1b2c3d4e5f.jsonl", session)
    hour_ago = time.time() - 3600  # quiet for longer than the quiet window
    os.utime(session, (hour_ago, hour_ago))
    monkeypatch.setenv("HOME", str(home))
    for var in ("CLAUDE_CONFIG_DIR", "CODEX_HOME", "GEMINI_HOME"):
        monkeypatch.delenv(var, raising=False)
    return session


def test_the_periodic_sweep_harvests_in_a_subprocess_and_notifies(qtbot, filled, opened, home_with_a_session):
    from app.main import AidaApp
    from app.service import AidaService

    filled.config.set("tray.sweep_minutes", 7)
    filled.config.save()  # the sweep subprocess reads the same settings file
    svc = AidaService(filled.config, opener=opened.append, embedder=filled._embedder, llm=None)
    app = AidaApp(filled.config, service=svc, use_tray=False, hotkeys=False)
    shown = []
    app.notifier.shown.connect(shown.append)
    try:
        app.start()
        assert app.sweep.isActive() and app.sweep.interval() == 7 * 60_000
        with qtbot.waitSignal(svc.harvestFinished, timeout=120000) as done:
            app._sweep()  # what the timer calls
            assert svc.running("harvest") and svc.state() == "working"
        ok, last_line = done.args
        assert ok, last_line
        qtbot.waitUntil(lambda: bool(shown), timeout=10000)
        notice = shown[0]
        # The session's decision restates the codex record of the filled brain with a reason it lacks
        # ("because the ledger API rate-limits bursts"): not surely the same statement, so it is a record
        # of its own, not a source of the codex one (a link would lose the reason), and the notice
        # counts both of the session's records, read offline (no model here).
        assert notice.title == "2 new memories from claude (unchecked)", notice.title
        known = json.loads((filled.root / "memories" / "codex" / "webhook-retry-policy.json").read_text())
        assert not known.get("sources"), known
        mine = json.loads((filled.root / "memories" / "claude" / "cap-webhook-retries-six-attempts-exponential.json")
                          .read_text())
        assert "ledger API" in mine["body"]
        assert not svc.running("harvest")

        # Paused: the timer's sweep does nothing; "Harvest now" still runs on request.
        app.set_paused(True)
        assert svc.harvest_now(manual=False) is False
        assert svc.state() == "paused"
    finally:
        app.shutdown()
        app.window.hide()
