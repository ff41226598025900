"""An in-memory keyring backend for tests: ``PYTHON_KEYRING_BACKEND=tests.helpers.keyring_memory.MemoryKeyring``."""

from __future__ import annotations

from keyring.backend import KeyringBackend
from keyring.errors import PasswordDeleteError


class MemoryKeyring(KeyringBackend):
    priority = 1  # selected explicitly, never by discovery
    store: dict[tuple[str, str], str] = {}

    def get_password(self, service: str, username: str) -> str | None:
        return self.store.get((service, username))

    def set_password(self, service: str, username: str, password: str) -> None:
        self.store[(service, username)] = password

    def delete_password(self, service: str, username: str) -> None:
        if self.store.pop((service, username), None) is None:
            raise PasswordDeleteError("no such password")


try:
    import pytest
except ImportError:  # imported as a keyring backend outside pytest
    pytest = None

if pytest is not None:

    @pytest.fixture
    def memory_keyring(monkeypatch):
        """Select this backend through ``PYTHON_KEYRING_BACKEND`` for one test; no API keys in the env."""
        import keyring.core

        previous = keyring.core._keyring_backend
        MemoryKeyring.store = {}
        monkeypatch.setenv("PYTHON_KEYRING_BACKEND", "tests.helpers.keyring_memory.MemoryKeyring")
        for name in ("OPENAI_API_KEY", "ANTHROPIC_API_KEY", "AIDA_OPENAI_API_KEY", "AIDA_ANTHROPIC_API_KEY",
                     "AIDA_OLLAMA_API_KEY", "AIDA_OPENAI_COMPATIBLE_API_KEY"):
            monkeypatch.delenv(name, raising=False)
        keyring.core.init_backend()  # re-reads PYTHON_KEYRING_BACKEND
        assert type(keyring.get_keyring()).__name__ == "MemoryKeyring"
        yield MemoryKeyring.store
        MemoryKeyring.store = {}  # a key set here must not be found by a later test's setup
        keyring.core._keyring_backend = previous
