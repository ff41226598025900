"""The seam every language-model provider sits behind.

A provider turns a system prompt and a user prompt into text. ``json=True`` asks for a JSON
object (providers that support a JSON mode use it; callers still validate what comes back).
Providers raise :class:`brain_core.errors.ProviderError` with one sentence when the service is
down, times out, or answers something that is not a completion.
"""

from __future__ import annotations

import re
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
    """The JSON of a JSON answer, from what models add around it even when told not to: a Markdown
    code fence, or a sentence before or after ("Here are the records: ```json ...```"). Only a part
    that parses as JSON is taken out; an answer with none is returned as it is (stripped), for the
    caller to reject."""
    import json

    t = text.strip()
    if t.startswith("```"):
        t = t.split("\n", 1)[1] if "\n" in t else ""
        if t.rstrip().endswith("```"):
            t = t.rstrip()[:-3]
        t = t.strip()
    if t[:1] in "{[" and t[-1:] in "}]":
        return t
    fenced = re.search(r"```(?:json)?\s*\n(.*?)\n\s*```", t, re.S)
    starts, ends = (t.find("{"), t.rfind("}")) if "{" in t else (-1, -1)
    for part in ([fenced.group(1).strip()] if fenced else []) + ([t[starts:ends + 1]] if 0 <= starts < ends else []):
        try:
            json.loads(part)
        except ValueError:
            continue
        return part
    return t
