"""An empty home folder for set-up tests: no agent folders, its own state folder, an in-memory keyring.

Import the fixture by name in a test module (``from tests.helpers.agent_homes import home  # noqa: F401``)."""

from __future__ import annotations

import pytest


@pytest.fixture
def home(tmp_path, monkeypatch):
    h = tmp_path / "home"
    h.mkdir()
    for var in ("CLAUDE_CONFIG_DIR", "CODEX_HOME", "GEMINI_CLI_HOME"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv("HOME", str(h))
    monkeypatch.setenv("AIDA_STATE_DIR", str(tmp_path / "state"))
    monkeypatch.setenv("PYTHON_KEYRING_BACKEND", "tests.helpers.keyring_memory.MemoryKeyring")
    return h
