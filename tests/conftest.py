"""Shared fixtures: a real brain (git repo, files, SQLite index) in tmp_path, with settings isolated."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.helpers.paths import SHARED

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
os.environ.setdefault("HF_HUB_OFFLINE", "1")


@pytest.fixture(autouse=True)
def _isolated_settings(tmp_path_factory, monkeypatch):
    """Every test gets its own settings file and no stray brain from the environment."""
    cfg = tmp_path_factory.mktemp("config") / "config.yaml"
    monkeypatch.setenv("AIDA_CONFIG", str(cfg))
    state = tmp_path_factory.mktemp("state")  # first-run state: the welcome was already shown
    (state / "setup.json").write_text('{"setup": "test"}\n')
    monkeypatch.setenv("AIDA_STATE_DIR", str(state))
    monkeypatch.delenv("AIDA_BRAIN", raising=False)
    yield


@pytest.fixture(autouse=True)
def _qt_garbage_collected_on_the_ui_thread(request):
    """A Qt test runs as the app does (app.jobs.MainThreadGC): no automatic collection while it runs,
    and what it leaves is collected here, on the UI thread, before the next test starts, so no test
    inherits another's windows and lanes waiting in cycles for a collection on some other thread."""
    if request.node.get_closest_marker("gui") is None:
        yield
        return
    import gc

    request.getfixturevalue("qapp")
    from app.jobs import main_thread_gc

    main_thread_gc.hold()
    try:
        yield
    finally:
        from PySide6.QtCore import QCoreApplication, QEvent

        QCoreApplication.sendPostedEvents(None, QEvent.Type.DeferredDelete.value)
        gc.collect()
        main_thread_gc.release()


@pytest.fixture(scope="session")
def embedder():
    from brain_core.catalog.embed import OnnxEmbedder

    return OnnxEmbedder()


@pytest.fixture
def brain(tmp_path, embedder):
    from brain_core import Brain

    b = Brain.init(tmp_path / "brain", embedder=embedder)  # the model is loaded once per test session
    yield b
    b.close()


@pytest.fixture
def shared_dir() -> Path:
    return SHARED


@pytest.fixture
def refused_port():
    """A 127.0.0.1 port where a connection is refused: bound for the test's length (so nothing else can
    take it) but never listening. Tests that need "nothing answers there" use it, not a fixed port."""
    import socket

    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.bind(("127.0.0.1", 0))
    try:
        yield sock.getsockname()[1]
    finally:
        sock.close()


def _hypothesis_database_outside_the_repo() -> None:
    """Hypothesis keeps failing examples between runs: in the temp folder, never in the checkout."""
    import tempfile

    from hypothesis import settings
    from hypothesis.database import DirectoryBasedExampleDatabase

    settings.register_profile("aida", database=DirectoryBasedExampleDatabase(
        os.path.join(tempfile.gettempdir(), "aida-hypothesis")))
    settings.load_profile("aida")


_hypothesis_database_outside_the_repo()


@pytest.fixture
def home(tmp_path, monkeypatch):
    """An empty home folder with no agent folders pointed elsewhere (hooks and instruction files)."""
    h = tmp_path / "home"
    h.mkdir()
    monkeypatch.setenv("HOME", str(h))
    for var in ("CLAUDE_CONFIG_DIR", "CODEX_HOME", "GEMINI_CLI_HOME"):
        monkeypatch.delenv(var, raising=False)
    return h
