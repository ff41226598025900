"""The Anthropic provider: ``POST {base_url}/v1/messages`` with ``x-api-key`` and ``anthropic-version``.

The Messages API has no JSON mode, so ``json=True`` adds an instruction to the system prompt and
strips a code fence from the answer; callers validate the JSON either way.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from brain_core.llm.base import Completion
from brain_core.llm.http import Retry, complete_json

API_VERSION = "2023-06-01"
JSON_INSTRUCTION = "\n\nAnswer with one JSON object and nothing else: no prose, no code fence."


@dataclass(frozen=True)
class Anthropic:
    model: str
    api_key: str = field(default="", repr=False)
    base_url: str = "https://api.anthropic.com"
    name: str = "anthropic"
    retry: Retry = Retry()
    temperature: float = 0.2
    version: str = API_VERSION

    @property
    def url(self) -> str:
        base = self.base_url.rstrip("/")
        return base + ("/messages" if base.endswith("/v1") else "/v1/messages")

    def complete(self, system: str, user: str, *, json: bool = False, max_tokens: int = 800) -> str:
        return self.complete_full(system, user, json=json, max_tokens=max_tokens).text

    def complete_full(self, system: str, user: str, *, json: bool = False, max_tokens: int = 800) -> Completion:
        payload = {
            "model": self.model,
            "max_tokens": max_tokens,
            "temperature": self.temperature,
            "system": system + (JSON_INSTRUCTION if json else ""),
            "messages": [{"role": "user", "content": user}],
        }
        headers = {"x-api-key": self.api_key, "anthropic-version": self.version}
        return complete_json(self.url, service=f"The {self.name} provider", headers=headers, payload=payload,
                             retry=self.retry, model=self.model, text_of=_text, json=json,
                             missing="a text content block; check that base_url points at the Anthropic Messages API",
                             token_fields=("input_tokens", "output_tokens"))


def _text(obj: object) -> str | None:
    if not isinstance(obj, dict) or not isinstance(obj.get("content"), list):
        return None
    parts = [b["text"] for b in obj["content"] if isinstance(b, dict) and b.get("type") == "text" and isinstance(b.get("text"), str)]
    return "".join(parts) if parts else None

