"""An embedder that keeps the texts it is asked to embed, around the real one."""

from __future__ import annotations


class CountingEmbedder:
    """The real embedder, keeping the texts it is asked to embed."""

    def __init__(self, inner):
        self.inner, self.texts = inner, []
        self.model_id, self.dim = inner.model_id, inner.dim

    def embed(self, texts):
        self.texts += list(texts)
        return self.inner.embed(texts)
