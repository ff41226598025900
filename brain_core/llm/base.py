"""The seam every language-model provider sits behind.

A provider turns a system prompt and a user prompt into text. ``json=True`` asks for a JSON
object (providers that support a JSON mode use it; callers still validate what comes back).
Providers raise :class:`brain_core.errors.ProviderError` with one sentence when the service is
down, times out, or answers something that is not a completion.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol, runtime_checkable


@runtime_checkable
class LLM(Protocol):
    # read-only (the providers are frozen dataclasses)
    @property
    def name(self) -> str: ...  # "none", "openai", "anthropic"; shown in run records

    @property
    def model(self) -> str: ...

    def complete(self, system: str, user: str, *, json: bool = False, max_tokens: int = 800) -> str: ...


@dataclass(frozen=True)
class Completion:
    """What a provider answered, with the usage it reported (``None`` when the server did not say).

    :meth:`LLM.complete` returns only ``text``; callers that keep run records (``ask``) call
    ``complete_full`` where a provider has it, so tokens and timings land in the record.
    """

    text: str
    model: str
    input_tokens: int | None = None
    output_tokens: int | None = None
    elapsed_s: float = 0.0
    attempts: int = 1


def strip_fences(text: str) -> str:
    """Drop a Markdown code fence around a JSON answer (models add one even when told not to)."""
    t = text.strip()
    if t.startswith("```"):
        t = t.split("\n", 1)[1] if "\n" in t else ""
        if t.rstrip().endswith("```"):
            t = t.rstrip()[:-3]
    return t.strip()
