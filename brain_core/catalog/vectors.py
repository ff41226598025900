"""Vectors for a set of documents: from the catalog by text checksum (either backend), else embedded now."""

from __future__ import annotations

from typing import Sequence

import numpy as np

from brain_core.store.shelves import Doc


def vectors(brain, docs: Sequence[Doc]) -> np.ndarray:
    """One L2-normalised vector per doc: from the catalog by text checksum, else embedded now."""
    out = np.zeros((len(docs), brain.index.dim), dtype=np.float32)
    if not docs:
        return out
    if brain.index.backend == "postgres":  # the server catalog's own checksum reuse
        found, _ = brain.index._vectors_for(brain.index.conn(), list(docs))
        return np.stack(found).astype(np.float32)
    conn = brain.index.conn()
    need: list[int] = []
    for i, d in enumerate(docs):
        row = conn.execute("SELECT v.embedding FROM docs x JOIN docs_vec v ON v.rowid = x.rowid "
                           "WHERE x.text_sha = ? LIMIT 1", (d.text_sha,)).fetchone()
        if row is None:
            need.append(i)
        else:
            out[i] = np.frombuffer(row[0], dtype=np.float32)
    if need:
        fresh = brain.embedder.embed([docs[i].embed_text for i in need])
        for j, i in enumerate(need):
            out[i] = fresh[j]
    return out
