"""Build the configured provider from the settings.

Settings (all optional; the default is no provider at all):

``llm.provider``   ``none`` (default) | ``auto`` | ``claude-code`` | ``codex`` | ``gemini-cli`` |
                   ``openai`` | ``anthropic`` | ``ollama`` | ``llamacpp`` | ``vllm`` | ``lmstudio`` |
                   ``openai-compatible`` (the last five speak OpenAI's wire format with a local
                   default URL and no key required; the agents' CLIs are in :mod:`.agent_cli`;
                   ``auto`` is the first agent CLI installed and logged in, then an API key
                   for anthropic or openai, then none)
``llm.model``      the model name (a default per provider)
``llm.base_url``   where the server is (a default per provider)
``llm.timeout``    seconds per attempt (30), ``llm.retries`` extra attempts (2),
                   ``llm.backoff`` first pause between attempts in seconds (0.5, doubling)
``llm.max_tokens_field``  ``max_tokens`` or ``max_completion_tokens`` (OpenAI reasoning models)

Keys never live in the settings: :mod:`brain_core.config.keys` reads the OS keyring, then the env.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping

from brain_core.config import non_negative
from brain_core.errors import InvalidInput, ProviderError
from brain_core.llm.anthropic import Anthropic
from brain_core.llm.base import LLM
from brain_core.llm.http import Retry
from brain_core.llm.openai_compat import OpenAICompatible


@dataclass(frozen=True)
class Flavour:
    wire: str  # "openai" | "anthropic"
    base_url: str
    model: str
    key_required: bool


FLAVOURS: dict[str, Flavour] = {
    "openai": Flavour("openai", "https://api.openai.com/v1", "gpt-4o-mini", True),
    "anthropic": Flavour("anthropic", "https://api.anthropic.com", "claude-haiku-4-5", True),
    "ollama": Flavour("openai", "http://127.0.0.1:11434/v1", "llama3.2", False),
    "llamacpp": Flavour("openai", "http://127.0.0.1:8080/v1", "default", False),
    "vllm": Flavour("openai", "http://127.0.0.1:8000/v1", "default", False),
    "lmstudio": Flavour("openai", "http://127.0.0.1:1234/v1", "default", False),
    "openai-compatible": Flavour("openai", "http://127.0.0.1:8080/v1", "default", False),
}
ALIASES = {"openai_compat": "openai-compatible", "openai-compat": "openai-compatible", "llama.cpp": "llamacpp",
           "llama-cpp": "llamacpp", "claude": "anthropic", "off": "none", "offline": "none", "": "none",
           "claude-cli": "claude-code", "claude_code": "claude-code", "gemini": "gemini-cli", "codex-cli": "codex"}
OFFLINE = "none"
AUTO = "auto"


def provider_name(config: Any) -> str:
    """The configured provider's canonical name (``"none"`` when unset)."""
    raw = str(setting(config, "llm.provider", OFFLINE) or OFFLINE).strip().lower()
    name = ALIASES.get(raw, raw)
    from brain_core.llm.agent_cli import AGENTS

    if name not in (OFFLINE, AUTO) and name not in FLAVOURS and name not in AGENTS:
        raise InvalidInput(
            f"llm.provider is {raw!r}, which Aida does not know; use one of none, auto, {', '.join(AGENTS)}, "
            f"{', '.join(FLAVOURS)}."
        )
    return name


def resolve_auto(env: Mapping[str, str] | None = None) -> str:
    """What ``auto`` means on this machine now: the first agent CLI installed and logged in, then
    a provider whose API key is stored, then ``none``."""
    from brain_core.config.keys import get_key
    from brain_core.llm.agent_cli import first_logged_in

    agent = first_logged_in(env)
    if agent:
        return agent
    for name in ("anthropic", "openai"):
        try:
            if get_key(name, env):
                return name
        except Exception:  # noqa: BLE001 - a broken keyring means: no key
            continue
    return OFFLINE


def make_provider(config: Any, *, env: Mapping[str, str] | None = None) -> LLM | None:
    """The provider the settings ask for, or ``None`` for ``none`` (answer offline, extractively).

    ``config`` is a :class:`brain_core.config.Config`, a nested dict, or ``None`` (no settings).
    Raises :class:`ProviderError` when a provider that needs a key has none, so the caller can say
    so and fall back to its offline path.
    """
    name = provider_name(config)
    if name == AUTO:
        name = resolve_auto(env)
    if name == OFFLINE:
        return None
    from brain_core.llm.agent_cli import AGENTS, from_config

    if name in AGENTS:
        return from_config(name, config, env)
    from brain_core.config.keys import env_names, get_key

    flavour = FLAVOURS[name]
    base_url = str(setting(config, "llm.base_url", None) or flavour.base_url)
    model = str(setting(config, "llm.model", None) or flavour.model)
    retry = Retry(
        timeout=_number(config, "llm.timeout", 30.0),
        retries=int(_number(config, "llm.retries", 2)),
        backoff=_number(config, "llm.backoff", 0.5),
    )
    key = get_key(name, env)
    needs_key = flavour.key_required and base_url.rstrip("/") == flavour.base_url.rstrip("/")
    if needs_key and not key:
        raise ProviderError(
            f"No API key for {name} was found; run `aida config set-key {name}` or set {env_names(name)[-1]}."
        )
    if flavour.wire == "anthropic":
        return Anthropic(model=model, api_key=key or "", base_url=base_url, name=name, retry=retry)
    field = str(setting(config, "llm.max_tokens_field", "max_tokens"))
    if field not in ("max_tokens", "max_completion_tokens"):
        raise InvalidInput("llm.max_tokens_field must be max_tokens or max_completion_tokens.")
    return OpenAICompatible(model=model, base_url=base_url, api_key=key, name=name, retry=retry, max_tokens_field=field)


def setting(config: Any, dotted: str, default: Any) -> Any:
    if config is None:
        return default
    if hasattr(config, "get") and not isinstance(config, Mapping):
        return config.get(dotted, default)
    node: Any = config
    for part in dotted.split("."):
        if not isinstance(node, Mapping) or part not in node:
            return default
        node = node[part]
    return default if node is None else node


def _number(config: Any, dotted: str, default: float) -> float:
    return float(non_negative(setting(config, dotted, default), dotted))
