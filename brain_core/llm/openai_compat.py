"""The OpenAI-compatible chat provider: ``POST {base_url}/chat/completions``.

One wire format covers OpenAI itself and the local servers people actually run (Ollama at
``http://127.0.0.1:11434/v1``, llama.cpp's ``llama-server``, vLLM, LM Studio). A key is sent as a
Bearer token when there is one; local servers need none.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from brain_core.llm.base import Completion
from brain_core.llm.http import Retry, complete_json


@dataclass(frozen=True)
class OpenAICompatible:
    """A chat-completions endpoint. ``name`` is what run records show ("openai", "ollama"...)."""

    model: str
    base_url: str = "https://api.openai.com/v1"
    api_key: str | None = field(default=None, repr=False)
    name: str = "openai"
    retry: Retry = Retry()
    temperature: float = 0.2
    # OpenAI's reasoning models want "max_completion_tokens"; local servers know "max_tokens".
    max_tokens_field: str = "max_tokens"

    @property
    def url(self) -> str:
        return self.base_url.rstrip("/") + "/chat/completions"

    def complete(self, system: str, user: str, *, json: bool = False, max_tokens: int = 800) -> str:
        return self.complete_full(system, user, json=json, max_tokens=max_tokens).text

    def complete_full(self, system: str, user: str, *, json: bool = False, max_tokens: int = 800) -> Completion:
        payload: dict = {
            "model": self.model,
            "messages": [{"role": "system", "content": system}, {"role": "user", "content": user}],
            "temperature": self.temperature,
            self.max_tokens_field: max_tokens,
        }
        if json:
            payload["response_format"] = {"type": "json_object"}
        headers = {"Authorization": f"Bearer {self.api_key}"} if self.api_key else {}
        return complete_json(self.url, service=f"The {self.name} provider", headers=headers, payload=payload,
                             retry=self.retry, model=self.model, text_of=_content, json=json,
                             missing="choices[0].message.content; check that base_url points at an "
                                     "OpenAI-compatible /v1 endpoint",
                             token_fields=("prompt_tokens", "completion_tokens"))


def _content(obj: object) -> str | None:
    if not isinstance(obj, dict):
        return None
    choices = obj.get("choices")
    if not isinstance(choices, list) or not choices or not isinstance(choices[0], dict):
        return None
    message = choices[0].get("message")
    if isinstance(message, dict) and isinstance(message.get("content"), str):
        return message["content"]
    if isinstance(choices[0].get("text"), str):  # legacy completions shape, still served by some
        return choices[0]["text"]
    return None

