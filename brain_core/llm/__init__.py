"""Language-model providers behind one interface (:class:`LLM`).

``make_provider(config)`` returns the configured provider, or **``None`` when the provider is
``none``** (the default): callers then use their offline path, e.g. :func:`extractive_answer` for
questions or the extractive distiller for harvests. A provider that needs a key and has none
raises :class:`brain_core.errors.ProviderError`; so does a provider that is down when called.
"""

from __future__ import annotations

from .base import LLM, Completion
from .factory import FLAVOURS, make_provider, provider_name
from .none import extractive_answer

__all__ = ["LLM", "Completion", "FLAVOURS", "make_provider", "provider_name", "extractive_answer"]
