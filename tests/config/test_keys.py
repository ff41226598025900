"""API keys: the keyring (an in-memory backend chosen through PYTHON_KEYRING_BACKEND), then the env."""

from __future__ import annotations

import io

import keyring.core
import pytest

from brain_core.config import keys
from brain_core.errors import BrainError, InvalidInput
from tests.helpers.keyring_memory import memory_keyring  # noqa: F401  (fixture)


def test_set_get_delete_through_the_keyring(memory_keyring):
    assert keys.get_key("openai") is None
    assert "MemoryKeyring" in keys.set_key("openai", "  sk-abc123\n")
    assert memory_keyring[("aida", "openai")] == "sk-abc123"
    assert keys.lookup("openai") == ("sk-abc123", "keyring")
    assert keys.delete_key("openai") is True
    assert keys.delete_key("openai") is False
    assert keys.get_key("openai") is None


def test_env_fallback_order(memory_keyring, monkeypatch):
    monkeypatch.setenv("ANTHROPIC_API_KEY", "from-conventional")
    assert keys.lookup("anthropic") == ("from-conventional", "env:ANTHROPIC_API_KEY")
    monkeypatch.setenv("AIDA_ANTHROPIC_API_KEY", "from-aida")
    assert keys.lookup("anthropic") == ("from-aida", "env:AIDA_ANTHROPIC_API_KEY")
    keys.set_key("anthropic", "from-keyring")
    assert keys.lookup("anthropic") == ("from-keyring", "keyring")
    assert keys.get_key("anthropic", env={}) == "from-keyring"


def test_refuses_bad_names_and_empty_keys(memory_keyring):
    for name in ("", "Open AI", "../x", "a" * 60):
        with pytest.raises(InvalidInput):
            keys.get_key(name)
    with pytest.raises(InvalidInput):
        keys.set_key("openai", "   ")
    with pytest.raises(InvalidInput):
        keys.set_key("openai", "sk one")
    assert memory_keyring == {}


@pytest.fixture
def no_keyring(monkeypatch):
    previous = keyring.core._keyring_backend
    monkeypatch.setenv("PYTHON_KEYRING_BACKEND", "keyring.backends.fail.Keyring")
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.delenv("AIDA_OPENAI_API_KEY", raising=False)
    keyring.core.init_backend()
    yield
    keyring.core._keyring_backend = previous


def test_no_keyring_backend_says_how_to_fix(no_keyring, monkeypatch):
    with pytest.raises(BrainError) as e:
        keys.set_key("openai", "sk-abc")
    msg = str(e.value)
    assert "No OS keyring" in msg and "AIDA_OPENAI_API_KEY" in msg and "\n" not in msg
    assert keys.get_key("openai") is None  # reading falls through instead of failing
    monkeypatch.setenv("OPENAI_API_KEY", "sk-env")
    assert keys.lookup("openai") == ("sk-env", "env:OPENAI_API_KEY")


def _cli(argv, monkeypatch, stdin_text, tmp_path):
    from brain_core.cli import main

    monkeypatch.setenv("AIDA_CONFIG", str(tmp_path / "config.yaml"))
    monkeypatch.setattr("sys.stdin", io.StringIO(stdin_text))
    return main(argv)


def test_cli_set_key_reads_stdin_and_never_echoes(memory_keyring, monkeypatch, tmp_path, capsys):
    assert _cli(["config", "set-key", "openai"], monkeypatch, "sk-secret-value\n", tmp_path) == 0
    out = capsys.readouterr()
    assert "sk-secret-value" not in out.out + out.err
    assert "openai" in out.out and "tests.helpers.keyring_memory.MemoryKeyring" in out.out  # which backend stored it
    assert memory_keyring[("aida", "openai")] == "sk-secret-value"
    assert not (tmp_path / "config.yaml").exists() or "sk-secret" not in (tmp_path / "config.yaml").read_text()


def test_cli_set_key_without_keyring_exits_nonzero(no_keyring, monkeypatch, tmp_path, capsys):
    assert _cli(["config", "set-key", "openai"], monkeypatch, "sk-secret-value\n", tmp_path) == 1
    err = capsys.readouterr().err
    assert "No OS keyring" in err and "sk-secret-value" not in err


def test_cli_config_get_set(monkeypatch, tmp_path, capsys):
    assert _cli(["config", "set", "llm.provider", "ollama"], monkeypatch, "", tmp_path) == 0
    assert _cli(["config", "set", "llm.timeout", "12.5"], monkeypatch, "", tmp_path) == 0
    capsys.readouterr()
    assert _cli(["config", "get", "llm.provider"], monkeypatch, "", tmp_path) == 0
    assert capsys.readouterr().out.strip() == "ollama"
    assert _cli(["config", "get", "llm"], monkeypatch, "", tmp_path) == 0
    out = capsys.readouterr().out
    assert "timeout: 12.5" in out and "provider: ollama" in out
    assert _cli(["config", "get", "no.such.key"], monkeypatch, "", tmp_path) == 2
    # secrets never go into the settings file
    assert _cli(["config", "set", "llm.api_key", "sk-x"], monkeypatch, "", tmp_path) == 2
    assert "set-key" in capsys.readouterr().err
    assert "sk-x" not in (tmp_path / "config.yaml").read_text()
    assert _cli(["config", "set", "github.token", "ghp-x"], monkeypatch, "", tmp_path) == 2
    assert _cli(["config", "set", "llm.max_tokens_field", "max_completion_tokens"], monkeypatch, "", tmp_path) == 0


@pytest.fixture(params=["keyring.backends.null.Keyring", "keyring.backends.fail.Keyring"])
def useless_keyring(request, monkeypatch):
    """A backend that throws keys away (null) or refuses every call (fail)."""
    previous = keyring.core._keyring_backend
    monkeypatch.setenv("PYTHON_KEYRING_BACKEND", request.param)
    for name in ("OPENAI_API_KEY", "AIDA_OPENAI_API_KEY"):
        monkeypatch.delenv(name, raising=False)
    keyring.core.init_backend()
    yield request.param
    keyring.core._keyring_backend = previous


def test_set_key_refuses_a_backend_that_cannot_keep_it(useless_keyring, monkeypatch, tmp_path, capsys):
    assert _cli(["config", "set-key", "openai"], monkeypatch, "sk-secret-value\n", tmp_path) == 1
    out = capsys.readouterr()
    err = out.err.strip()
    assert out.out == "" and "Stored" not in err and "sk-secret-value" not in err
    assert err.count("\n") == 0 and ("was not stored" in err or "nothing was stored" in err)
    assert useless_keyring in err and "AIDA_OPENAI_API_KEY" in err  # which backend, and the fix
    assert keys.get_key("openai") is None
