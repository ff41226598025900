"""The local embedder: real model, normalised vectors, long texts represented whole."""

from __future__ import annotations

import numpy as np


def test_vectors_are_normalised_and_batch_independent(embedder):
    texts = ["why is the retry cap six", "Webhook retries are capped at six attempts.", "I like pizza", ""]
    together = embedder.embed(texts)
    alone = np.vstack([embedder.embed([t]) for t in texts])
    assert together.shape == (4, 384)
    assert np.allclose(np.linalg.norm(together, axis=1), 1.0, atol=1e-5)
    assert np.allclose(together, alone, atol=1e-5)
    assert together[0] @ together[1] > together[0] @ together[2] + 0.2


def test_a_long_text_is_embedded_from_all_of_it_not_just_its_opening(embedder):
    opening = "The quarterly offsite covered catering, travel budgets and the seating plan. " * 25
    fact = "The payments team decided to cap webhook retries at six attempts with exponential backoff. "
    long_text = opening + fact * 8
    assert len(embedder._tok.encode(long_text).ids) > 450  # well past the model's 256-token window
    query = embedder.embed(["how many times are webhooks retried"])[0]
    whole = embedder.embed([long_text])[0]
    head_only = embedder.embed([opening])[0]
    assert whole @ query > head_only @ query + 0.1
