"""Providers against a real HTTP server on 127.0.0.1: both wire formats, and every way to fail."""

from __future__ import annotations

import time

import pytest

from brain_core.errors import InvalidInput, ProviderError
from brain_core.llm import LLM, extractive_answer, make_provider, provider_name
from brain_core.llm.anthropic import Anthropic
from brain_core.llm.http import Retry
from brain_core.llm.none import NOTHING_FOUND, extract
from brain_core.llm.openai_compat import OpenAICompatible
from tests.helpers.fake_llm_server import FakeLLMServer
from tests.helpers.keyring_memory import memory_keyring  # noqa: F401  (fixture)

FAST = Retry(timeout=0.3, retries=2, backoff=0.01)


@pytest.fixture
def server():
    with FakeLLMServer() as s:
        yield s


def openai(server, **kw):
    return OpenAICompatible(model="m1", base_url=server.url + "/v1", api_key="sk-test", retry=kw.pop("retry", FAST), **kw)


def anthropic(server, **kw):
    return Anthropic(model="claude-x", api_key="ak-test", base_url=server.url, retry=kw.pop("retry", FAST), **kw)


def test_openai_wire_format_good_answer(server):
    p = openai(server)
    assert isinstance(p, LLM)
    done = p.complete_full("be brief", "why six?", max_tokens=50)
    assert done.text == server.answer
    assert (done.input_tokens, done.output_tokens, done.attempts) == (100, 10, 1)
    req = server.posts()[0]
    assert req["path"] == "/v1/chat/completions"
    assert req["headers"]["authorization"] == "Bearer sk-test"
    assert req["body"]["messages"] == [{"role": "system", "content": "be brief"}, {"role": "user", "content": "why six?"}]
    assert req["body"]["max_tokens"] == 50 and req["body"]["model"] == "m1"
    assert "response_format" not in req["body"]


def test_openai_json_mode_and_fence_stripping(server):
    server.answer = '```json\n{"ok": true}\n```'
    assert openai(server).complete("s", "u", json=True) == '{"ok": true}'
    assert server.posts()[0]["body"]["response_format"] == {"type": "json_object"}


@pytest.mark.parametrize("answer", [
    'Here are the records:\n```json\n{"ok": true}\n```',
    'Here are the records: {"ok": true}\nThat is all I found.',
    '```\n{"ok": true}\n```\nLet me know if you need more.',
])
def test_a_json_answer_wrapped_in_prose_is_taken_out(server, answer):
    server.answer = answer
    assert openai(server).complete("s", "u", json=True) == '{"ok": true}'


def test_a_json_answer_with_no_json_in_it_is_left_for_the_caller_to_reject(server):
    server.answer = "Sure! Retries are capped at six {per the runbook"
    assert openai(server).complete("s", "u", json=True) == "Sure! Retries are capped at six {per the runbook"


def test_openai_without_key_sends_no_authorization(server):
    OpenAICompatible(model="m", base_url=server.url + "/v1", retry=FAST).complete("s", "u")
    assert "authorization" not in server.posts()[0]["headers"]


def test_anthropic_wire_format_good_answer(server):
    done = anthropic(server).complete_full("sys", "question", json=True, max_tokens=77)
    req = server.posts()[0]
    assert req["path"] == "/v1/messages"
    assert req["headers"]["x-api-key"] == "ak-test"
    assert req["headers"]["anthropic-version"] == "2023-06-01"
    assert req["body"]["system"].startswith("sys") and "JSON" in req["body"]["system"]
    assert req["body"]["messages"] == [{"role": "user", "content": "question"}]
    assert req["body"]["max_tokens"] == 77
    assert (done.text, done.input_tokens, done.output_tokens) == (server.answer, 120, 12)


@pytest.mark.parametrize("make", [openai, anthropic])
def test_500_is_retried_then_succeeds(server, make):
    server.script = ["500", "503"]
    done = make(server).complete_full("s", "u")
    assert done.text == server.answer and done.attempts == 3
    assert len(server.posts()) == 3


@pytest.mark.parametrize("make", [openai, anthropic])
def test_500_every_time_gives_one_sentence_error(server, make):
    server.script = ["500"] * 3
    with pytest.raises(ProviderError) as e:
        make(server).complete("s", "u")
    msg = str(e.value)
    assert "HTTP 500" in msg and "scripted 500" in msg and "3 tries" in msg and "\n" not in msg


@pytest.mark.parametrize("make", [openai, anthropic])
def test_timeout_is_retried_and_reported(server, make):
    server.script = ["slow", "slow"]
    server.slow_s = 1.0
    start = time.monotonic()
    with pytest.raises(ProviderError) as e:
        make(server, retry=Retry(timeout=0.2, retries=1, backoff=0.01)).complete("s", "u")
    assert "did not answer within 0.2s" in str(e.value)
    assert time.monotonic() - start < 1.5  # two short waits, not two full sleeps


@pytest.mark.parametrize("make", [openai, anthropic])
def test_malformed_json_is_not_retried(server, make):
    server.script = ["malformed"]
    with pytest.raises(ProviderError) as e:
        make(server).complete("s", "u")
    assert "not JSON" in str(e.value)
    assert len(server.posts()) == 1


@pytest.mark.parametrize("make", [openai, anthropic])
def test_json_without_a_completion_is_an_error(server, make):
    server.script = ["empty"]
    with pytest.raises(ProviderError):
        make(server).complete("s", "u")


def test_refused_key_is_not_retried(server):
    server.script = ["401"]
    with pytest.raises(ProviderError) as e:
        openai(server).complete("s", "u")
    assert "set-key" in str(e.value) and len(server.posts()) == 1


def test_backoff_doubles(refused_port):
    slept = []
    retry = Retry(timeout=0.2, retries=3, backoff=0.5, sleep=slept.append)
    with pytest.raises(ProviderError) as e:
        OpenAICompatible(model="m", base_url=f"http://127.0.0.1:{refused_port}/v1", retry=retry).complete("s", "u")
    assert slept == [0.5, 1.0, 2.0]
    assert "could not be reached" in str(e.value) and "4 tries" in str(e.value)


# --- the factory -------------------------------------------------------------------------------


def test_none_provider_is_none():
    assert make_provider(None) is None
    assert make_provider({}) is None
    assert make_provider({"llm": {"provider": "none"}}) is None
    assert provider_name({"llm": {"provider": "Offline"}}) == "none"


def test_unknown_provider_is_refused():
    with pytest.raises(InvalidInput):
        make_provider({"llm": {"provider": "gpt-9000"}})


def test_key_required_for_hosted_providers(memory_keyring):
    with pytest.raises(ProviderError) as e:
        make_provider({"llm": {"provider": "anthropic"}})
    assert "aida config set-key anthropic" in str(e.value) and "ANTHROPIC_API_KEY" in str(e.value)


def test_factory_reads_key_from_keyring_and_settings(memory_keyring, server):
    memory_keyring[("aida", "anthropic")] = "ak-from-keyring"
    p = make_provider({"llm": {"provider": "anthropic", "base_url": server.url, "model": "claude-y",
                               "timeout": 2, "retries": 0}})
    assert isinstance(p, Anthropic) and p.model == "claude-y" and p.retry.retries == 0
    assert "ak-from-keyring" not in repr(p)
    p.complete("s", "u")
    assert server.posts()[0]["headers"]["x-api-key"] == "ak-from-keyring"


def test_factory_env_key_and_local_servers(memory_keyring, monkeypatch, server):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-env")
    p = make_provider({"llm": {"provider": "openai"}})
    assert isinstance(p, OpenAICompatible) and p.api_key == "sk-env" and p.base_url == "https://api.openai.com/v1"
    local = make_provider({"llm": {"provider": "ollama"}})
    assert local.base_url == "http://127.0.0.1:11434/v1" and local.api_key is None and local.name == "ollama"
    custom = make_provider({"llm": {"provider": "openai-compatible", "base_url": server.url + "/v1", "model": "qwen"}})
    assert custom.complete("s", "u") == server.answer


def test_factory_accepts_a_config_object(memory_keyring, tmp_path):
    from brain_core.config import Config

    cfg = Config.load(tmp_path / "config.yaml")
    cfg.set("llm.provider", "llamacpp")
    cfg.set("llm.timeout", "abc")
    with pytest.raises(InvalidInput):
        make_provider(cfg)
    cfg.set("llm.timeout", 5)
    assert make_provider(cfg).retry.timeout == 5.0


# --- the offline answer ------------------------------------------------------------------------


class _Rec:
    def __init__(self, id, key, body, created="2026-08-22T19:44:02Z"):
        self.id, self.key, self.body, self.created = id, key, body, created


class _Hit:
    def __init__(self, record):
        self.record = record


def test_extractive_answer_quotes_and_cites():
    hits = [
        _Hit(_Rec("r1", "webhook-retry-policy", "Webhooks are signed. Delivery retries use exponential backoff, capped at six attempts. Ops owns it.")),
        _Hit(_Rec("r2", "queue-choice", "We chose SQS for the queue.", created="2026-07-01T00:00:00Z")),
        _Hit(_Rec("r3", "old-retry-cap", "Until 2025 the retry cap was ten.", created="2025-01-05T00:00:00Z")),
    ]
    out = extract("why is the retry cap six attempts", hits)
    assert "capped at six attempts" in out.text and "[webhook-retry-policy, 2026-08-22]" in out.text
    assert "Webhooks are signed" not in out.text  # the sentence that shares no words is left out
    assert "queue-choice" not in out.text  # a lower hit sharing no word with the question is noise
    assert "[old-retry-cap, 2025-01-05]" in out.text
    assert out.cited == ("r1", "r3")
    # the best hit is quoted even when it shares no word (recall found it by meaning)
    assert extract("which message broker", hits[1:2]).cited == ("r2",)


def test_extractive_answer_is_honest_when_empty():
    assert extractive_answer("what is my cat's name", []) == NOTHING_FOUND
    assert "Earlier feedback" in extractive_answer("q", [], corrections=["the cat is called Miso"])
