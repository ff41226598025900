"""One fact, one answer: when two records say the same thing.

Two records are **near-duplicates** when all of these hold:

- their stored vectors (the catalog's, from the bundled model) are close: cosine >= ``COSINE``;
- they share most of their content words: shared / smaller set >= ``OVERLAP`` (words after
  stopwords, with a plural ``s`` dropped);
- nothing tells them apart: no *distinctive* word on each side that the other lacks (a word with a
  digit, a capitalised word inside a sentence, or a word the model's vocabulary does not hold
  whole, which is how names such as "Datadog" and "Grafana" look), no different numbers, and both
  or neither negated.

The last check is what keeps "we chose Datadog for monitoring" and "we chose Grafana for
monitoring" apart, which are close in meaning to any sentence model. The thresholds were chosen
on half of a labelled set of pairs and checked on the other half
(``tests/fixtures/dedupe_pairs.jsonl``, ``benchmarks/bench_dedupe.py``).

The same predicate serves every place that meets duplicates: answers collapse them
(:func:`collapse_hits`), ``aida brain lint`` reports them, ``aida brain consolidate`` merges them,
and the write path links a new record to an existing one from another profile instead of writing a
copy (:func:`link_target`).
"""

from __future__ import annotations

import dataclasses
import json
import re
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any, Sequence

import numpy as np

COSINE = 0.74      # chosen on the calibration half of the pair set (benchmarks/bench_dedupe.py)
OVERLAP = 0.40
LEXICAL_ONLY = 0.80  # Jaccard of content words when no vectors are at hand
LINK_NEIGHBOURS = 5
_CAPITAL = re.compile(r"\b[A-Z][\w'-]*")
_CONTRAST = re.compile(r"[,;(]\s*(?:and\s+|but\s+)?not\b|\bnot\s+only\b", re.I)  # "pytest, not unittest"
_STARTERS = ".!?:;#*->\n\"'(`"
_CODEISH = re.compile(r"[\w./+#-]*[./_+#][\w./+-]*\w|\b(?=\w*[a-z])(?=\w*\d)\w+", re.I)
_NUMBER_WORDS = {w: str(i) for i, w in enumerate(
    "zero one two three four five six seven eight nine ten eleven twelve".split())}
_NUMBER_WORD = re.compile(r"\b(" + "|".join(_NUMBER_WORDS) + r")\b", re.I)


@dataclass(frozen=True)
class Evidence:
    """Why two texts are (or are not) near-duplicates."""

    cosine: float | None
    overlap: float
    conflict: str | None

    def duplicate(self, cosine: float = COSINE, overlap: float = OVERLAP) -> bool:
        if self.conflict is not None:
            return False
        if self.cosine is None:
            return self.overlap >= LEXICAL_ONLY
        return self.cosine >= cosine and self.overlap >= overlap


@dataclass(frozen=True)
class Terms:
    """A text's content words and what makes it distinctive."""

    words: frozenset
    salient: frozenset
    numbers: frozenset
    negated: bool


@lru_cache(maxsize=1)
def _vocab() -> frozenset:
    """The bundled model's whole-word vocabulary (about 30k common words); empty when absent."""
    try:
        from .embed import model_files

        _, tok = model_files()
        vocab = json.loads(Path(tok).read_text(encoding="utf-8"))["model"]["vocab"]
    except Exception:  # noqa: BLE001 - without it, capitals and digits still mark names
        return frozenset()
    return frozenset(w for w in vocab if w.isalpha() and w.islower())


def _stem(w: str) -> str:
    if w.endswith("'s"):
        w = w[:-2]
    if len(w) > 4 and w.endswith(("ies", "ied")):
        return w[:-3] + "y"
    if len(w) > 3 and w.endswith("s") and not w.endswith(("ss", "us", "is")):
        w = w[:-1]
    return w


@lru_cache(maxsize=4096)
def terms(text: str) -> Terms:
    from .lifecycle.common import negated, numbers, words

    ws = frozenset(_stem(w) for w in words(text))
    vocab = _vocab()
    salient = set()
    for m in _CAPITAL.finditer(text):
        before = text[:m.start()].rstrip(" \t")
        if not before or before[-1] in _STARTERS:
            continue  # a sentence or list item starts here: a capital says nothing
        w = _stem(m.group(0).lower().strip("'-"))
        if w in ws:
            salient.add(w)
    for m in _CODEISH.finditer(text):
        salient.add(m.group(0).lower())
    if vocab:
        salient |= {w for w in ws if w.isalpha() and w not in vocab and w + "s" not in vocab}
    nums = set(numbers(text)) | {_NUMBER_WORDS[m.group(1).lower()] for m in _NUMBER_WORD.finditer(text)}
    ws = frozenset(w for w in ws if w not in _NUMBER_WORDS)
    return Terms(ws, frozenset(salient - set(_NUMBER_WORDS)), frozenset(nums), negated(_CONTRAST.sub(",", text)))


def _same_word(a: str, b: str) -> bool:
    """Equal, or one stem: "deploy"/"deploying", "paginate"/"pagination" share their first five letters."""
    return a == b or (min(len(a), len(b)) >= 5 and a[:5] == b[:5])


def _matched(ws, others) -> set:
    return {w for w in ws if w in others or any(_same_word(w, o) for o in others)}


def compare(a: str, b: str, cosine: float | None = None) -> Evidence:
    """The evidence for ``a`` and ``b`` (record bodies) being near-duplicates."""
    ta, tb = terms(a), terms(b)
    if not ta.words or not tb.words:
        same = a.strip().lower() == b.strip().lower()
        return Evidence(cosine, 1.0 if same else 0.0, None if same else "no content words")
    small, large = sorted((ta.words, tb.words), key=len)
    shared = _matched(small, large)
    overlap = len(shared) / len(small)
    if cosine is None:
        overlap = len(_matched(ta.words, tb.words)) / len(ta.words | tb.words)
    conflict = None
    only_a = ta.salient - _matched(ta.salient, tb.words | tb.salient)
    only_b = tb.salient - _matched(tb.salient, ta.words | ta.salient)
    if ta.numbers and tb.numbers and ta.numbers != tb.numbers:
        conflict = f"different numbers ({', '.join(sorted(ta.numbers ^ tb.numbers))})"
    elif ta.negated != tb.negated:
        conflict = "one is negated"
    elif only_a and only_b:
        conflict = f"different names ({', '.join(sorted(only_a))} vs {', '.join(sorted(only_b))})"
    return Evidence(cosine, overlap, conflict)


def is_near_duplicate(a: str, b: str, cosine: float | None = None) -> bool:
    return compare(a, b, cosine).duplicate()


# -- vectors from the catalog -----------------------------------------------------------------------------


def stored_vectors(index, paths: Sequence[str]) -> dict[str, np.ndarray]:
    """The catalog's vectors for ``paths`` (L2-normalised, as the embedder makes them)."""
    out: dict[str, np.ndarray] = {}
    if index is None or not paths:
        return out
    conn = index.conn()
    paths = list(dict.fromkeys(paths))
    for start in range(0, len(paths), 500):
        chunk = paths[start:start + 500]
        rows = conn.execute(f"SELECT d.path, v.embedding FROM docs d JOIN docs_vec v ON v.rowid = d.rowid "
                            f"WHERE d.path IN ({','.join('?' * len(chunk))})", chunk).fetchall()
        out.update((p, np.frombuffer(e, dtype=np.float32)) for p, e in rows)
    return out


# -- answers --------------------------------------------------------------------------------------------------


def source_entry(record, path: str | None = None) -> dict[str, Any]:
    out = {"key": record.key, "profile": record.profile, "source": record.source, "created": record.created}
    if path:
        out["path"] = path
    return out


def collapse_hits(hits: list, index=None) -> list:
    """Fold near-duplicate hits into the best-ranked one of each group, order kept.

    Each kept hit comes back as a copy whose ``also`` lists the sources of the hits folded into it
    (``{key, profile, source, created, path}``), followed by the sources its record already links
    (``sources`` written by the write-time link, without ``path``). With ``index`` the stored
    vectors decide; without it only nearly identical wording folds."""
    if len(hits) < 2 and index is None:
        return list(hits)
    vecs = stored_vectors(index, [h.path for h in hits])
    groups: list[tuple[Any, list[dict]]] = []
    for h in hits:
        v = vecs.get(h.path)
        for head, also in groups:
            if head.path == h.path:
                break
            hv = vecs.get(head.path)
            cos = float(np.dot(v, hv)) if v is not None and hv is not None else None
            if compare(head.record.body, h.record.body, cos).duplicate():
                also.append(source_entry(h.record, h.path))
                break
        else:
            groups.append((h, []))
    out = []
    for head, also in groups:
        linked = _linked_sources(index, head.path)
        seen = {(a["profile"], a["source"]) for a in also} | {(head.record.profile, head.record.source)}
        also += [s for s in linked if (s.get("profile"), s.get("source")) not in seen]
        out.append(dataclasses.replace(head, also=also))
    return out


def _linked_sources(index, path: str) -> list[dict]:
    if index is None:
        return []
    try:
        data = json.loads((Path(index.root) / path).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return []
    return [s for s in linked_sources(data) if isinstance(s, dict)]


def linked_sources(data: dict) -> list[dict]:
    """The ``sources`` a record file lists (other writers that said the same thing)."""
    srcs = data.get("sources") if isinstance(data, dict) else None
    return [s for s in srcs if isinstance(s, dict)] if isinstance(srcs, list) else []
