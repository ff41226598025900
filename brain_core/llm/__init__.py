"""Language-model providers behind one interface (:class:`LLM`).

``make_provider(config)`` returns the configured provider, or **``None`` when the provider is
``none``** (the default): callers then use their offline path, e.g. :func:`extractive_answer` for
questions or the extractive distiller for harvests. A provider that needs a key and has none
raises :class:`brain_core.errors.ProviderError`; so does a provider that is down when called.
"""

from __future__ import annotations

from brain_core.llm.base import LLM, Completion
from brain_core.llm.factory import FLAVOURS, make_provider, provider_name
from brain_core.llm.none import extractive_answer

__all__ = ["LLM", "Completion", "FLAVOURS", "make_provider", "provider_name", "extractive_answer"]
