"""One fact, one answer: when two records say the same thing.

Two records are **near-duplicates** when all of these hold:

- their stored vectors (the catalog's, from the bundled model) are close: cosine >= ``COSINE``;
- they share most of their content words: shared / smaller set >= ``OVERLAP`` (words after
  stopwords, with a plural ``s`` dropped);
- nothing tells them apart: no *distinctive* word on each side that the other lacks (a word with a
  digit, a capitalised word inside a sentence, or a word the model's vocabulary does not hold
  whole, which is how names such as "Datadog" and "Grafana" look), no different numbers, and both
  or neither negated.

- the words say it in the same order and with the same contrast (:func:`brain_core.brain.disagreement.disagreement`):
  "Siobhan reviews Tomasz's pull requests" and "Tomasz reviews Siobhan's" share every word and disagree;
- every informative word of each is on the other side (:func:`brain_core.brain.alignment.unaligned`):
  "owned by the payments team" / "by the platform team", "every night" / "every 6 hours" are not
  sure to be one fact, so they are never folded (``Evidence.unsure``), though nothing names a conflict.

The last checks are what keep "we chose Datadog for monitoring" and "we chose Grafana for
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
LINK_NEIGHBOURS = 10  # matches from other profiles a new record is checked against (per kind on PostgreSQL)
_CAPITAL = re.compile(r"\b[A-Z][\w'-]*")
_CONTRAST = re.compile(r"[,;(]\s*(?:and\s+|but\s+)?not\b|\b(?:but|and)\s+not\b|\bnot\s+only\b", re.I)  # "pytest, not unittest"
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
    # not a disagreement anyone can name, but not sure they say the same: a word on one side only
    # (:func:`brain_core.brain.alignment.unaligned`); such a pair is never folded, nor called a conflict
    unsure: str | None = None
    # which check found the difference ("numbers", "negated", "salient", or one of
    # :func:`brain_core.brain.disagreement.named_disagreement`'s), when one did
    check: str | None = None

    def duplicate(self, cosine: float = COSINE, overlap: float = OVERLAP) -> bool:
        if self.conflict is not None or self.unsure is not None:
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
        from brain_core.catalog.embed import model_files

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


@lru_cache(maxsize=32768)
def terms(text: str) -> Terms:
    from brain_core.brain.wording import spelled_out
    from brain_core.text.words import negated, numbers, words

    text = spelled_out(text)  # "48h" is "48 hour", "PR" is "pull request"
    ws = frozenset(_stem(w) for w in words(text))
    vocab = _vocab()
    salient = set()
    for m in _CAPITAL.finditer(text):
        j = m.start() - 1
        while j >= 0 and text[j] in " \t":
            j -= 1
        if j < 0 or text[j] in _STARTERS:
            continue  # a sentence or list item starts here: a capital says nothing
        w = _stem(m.group(0).lower().strip("'-"))
        w = _CALENDAR.get(w, w)  # "Apr" is April, "Sun" Sunday
        if w in ws or w in _CALENDAR.values():
            salient.add(w)
    for m in _CODEISH.finditer(text):
        salient.add(m.group(0).lower())
    if vocab:
        salient |= {w for w in ws if w.isalpha() and not _known(w, vocab)}
    nums = set(numbers(text)) | {_NUMBER_WORDS[m.group(1).lower()] for m in _NUMBER_WORD.finditer(text)}
    ws = frozenset(w for w in ws if w not in _NUMBER_WORDS)
    return Terms(ws, frozenset(salient - set(_NUMBER_WORDS)), frozenset(nums), negated(_CONTRAST.sub(",", text)))


_CALENDAR = {m[:3]: m for m in "january february march april may june july august september october november "
             "december monday tuesday wednesday thursday friday saturday sunday".split()} | {"sept": "september"}
_CALENDAR = {k: v for k, v in _CALENDAR.items() if k != "may"}


def _known(w: str, vocab: frozenset) -> bool:
    """Whether ``w`` or a common inflection of it is a whole word of the model's vocabulary ("expire" is
    there as "expired"): a word the vocabulary holds only in another form is no name."""
    stem = w[:-1] if w.endswith("e") else w
    return any(v in vocab for v in (w, w + "s", w + "d", w + "ed", w + "es", stem + "ing", stem + "ed", w + "ing"))


def _same_word(a: str, b: str) -> bool:
    """Equal, or one stem: "deploy"/"deploying", "paginate"/"pagination" share their first five letters,
    "lint"/"linting"/"linter" one root."""
    if a == b or (min(len(a), len(b)) >= 5 and a[:5] == b[:5]):
        return True
    from brain_core.brain.wording import _root

    return a.isalpha() and b.isalpha() and _root(a) == _root(b)


def _matched(ws, others) -> set:
    """The words of ``ws`` that :func:`_same_word` finds among ``others`` (one pass over each)."""
    from brain_core.brain.wording import _root

    others = set(others)
    heads = {o[:5] for o in others if len(o) >= 5}
    roots = {_root(o) for o in others if o.isalpha()}
    return {w for w in ws if w in others or (len(w) >= 5 and w[:5] in heads) or (w.isalpha() and _root(w) in roots)}


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
    conflict = check = None
    only_a = ta.salient - _matched(ta.salient, tb.words | tb.salient)
    only_b = tb.salient - _matched(tb.salient, ta.words | ta.salient)
    numbers_differ = bool(ta.numbers and tb.numbers and ta.numbers != tb.numbers)
    if numbers_differ:
        from brain_core.brain.wording import clock

        numbers_differ = terms(clock(a)).numbers != terms(clock(b)).numbers  # "2am" / "02:00": one time
    if numbers_differ and (ta.numbers - tb.numbers) and (tb.numbers - ta.numbers):
        conflict, check = f"different numbers ({', '.join(sorted(ta.numbers ^ tb.numbers))})", "numbers"
    elif numbers_differ:  # "P1 tickets" / "priority 1 tickets": a number on one side only is no other value
        return Evidence(cosine, overlap, None, f"a number on one side only ({', '.join(sorted(ta.numbers ^ tb.numbers))})")
    elif ta.negated != tb.negated and _no_in_a_word(b if ta.negated else a, a if ta.negated else b):
        # "forbids inline scripts" / "does not allow inline scripts": a "no" said in one word may be the same
        word = _no_in_a_word(b if ta.negated else a, a if ta.negated else b)
        return Evidence(cosine, overlap, None, f"one is negated, the other says no in a word ({word})", "negated")
    elif ta.negated != tb.negated:
        conflict, check = "one is negated", "negated"
    elif only_a and only_b:
        conflict, check = f"different names ({', '.join(sorted(only_a))} vs {', '.join(sorted(only_b))})", "salient"
    else:
        from brain_core.brain.alignment import unaligned
        from brain_core.brain.disagreement import named_disagreement

        found = named_disagreement(a, b)  # the same words in another order, or a contrast turned round
        if found is None:
            return Evidence(cosine, overlap, None, unaligned(a, b))  # when in doubt, two records
        check, conflict, sure = found
        if not sure:  # a check of order, and the words moved more than by a swap: two records, no claim
            return Evidence(cosine, overlap, None, f"worded otherwise, and {conflict}", check)
    from brain_core.brain.disagreement import minimal_pair

    if not minimal_pair(a, b):  # worded too differently to say which words disagree: two records, no claim
        return Evidence(cosine, overlap, None, f"worded otherwise, and {conflict}", check)
    return Evidence(cosine, overlap, conflict, None, check)


# verbs and adjectives that say "no" in one word: a sentence with one of them and another negated with "not"
# may say one thing ("Staging is unreachable without the VPN" / "Staging admin needs the VPN")
_NO_WORDS = frozenset("""forbid forbids forbidden forbidding block blocks blocked blocking ban bans banned prevent
prevents prevented deny denies denied disallow disallows disallowed prohibit prohibits prohibited refuse refuses
refused reject rejects rejected avoid avoids avoided disable disables disabled stop stops stopped unreachable
dropped retired removed held out instead rather
unavailable unsupported absent lacks lack skip skips skipped excluded exclude excludes omit omits omitted
until unless only required require requires must""".split())


def _no_in_a_word(plain: str, negated_text: str) -> str | None:
    """A word of ``plain`` (the text without "not") that says "no" or "only" itself, and that the negated
    text does not say: the two may say one thing, so that is a doubt, not a disagreement."""
    theirs = set(re.findall(r"[a-z]+", negated_text.lower()))
    return next((w for w in re.findall(r"[a-z]+", plain.lower()) if w in _NO_WORDS and w not in theirs), None)


def is_near_duplicate(a: str, b: str, cosine: float | None = None) -> bool:
    return compare(a, b, cosine).duplicate()


# -- vectors from the catalog -----------------------------------------------------------------------------


def stored_vectors(index, paths: Sequence[str]) -> dict[str, np.ndarray]:
    """The catalog's vectors for ``paths`` (L2-normalised, as the embedder makes them)."""
    out: dict[str, np.ndarray] = {}
    if index is None or not paths:
        return out
    return index.stored_vectors(list(dict.fromkeys(paths)))


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


# -- over the whole brain (lint, consolidate) ------------------------------------------------------------------


@dataclass(frozen=True)
class Pair:
    a: str              # paths, a < b
    b: str
    evidence: Evidence
    exact: bool         # the same text, letter for letter (case and spacing aside)


def _norm(text: str) -> str:
    return " ".join(text.lower().split())


def find_pairs(brain, shelves: Sequence[str] = ("memories",), docs=None, neighbours: int = 8) -> list[Pair]:
    """Every near-duplicate pair among the records on ``shelves`` (vectors from the catalog).

    Each record is compared with its ``neighbours`` nearest records above ``COSINE`` only, so a
    brain with many look-alike records costs at most that many word checks per record (a group
    larger than that is still found, through the chain of its members' neighbours)."""
    from brain_core.catalog.vectors import vectors
    from brain_core.store.shelves import load_docs

    docs = docs if docs is not None else load_docs(brain, shelves)
    if len(docs) < 2:
        return []
    out = []
    for i, j, _, ev in compared_pairs(docs, vectors(brain, docs), neighbours):
        a, b = docs[i], docs[j]
        exact = _norm(a.record.body) == _norm(b.record.body)
        if exact or ev.duplicate():
            pa, pb = sorted((a.path, b.path))
            out.append(Pair(pa, pb, ev, exact))
    return sorted(out, key=lambda p: (p.a, p.b))


def compared_pairs(docs, vecs: np.ndarray, neighbours: int = 8):
    """``(i, j, cosine, evidence)`` once for each pair of ``docs`` (i < j) that :func:`near_pairs` finds
    above ``COSINE``: what lint, consolidate and the model's questions (lifecycle/same_meaning.py) read."""
    seen: set[tuple[int, int]] = set()
    for i, j, sim in near_pairs(vecs, COSINE, neighbours):
        pair = (min(i, j), max(i, j))
        if pair in seen:
            continue
        seen.add(pair)
        yield pair[0], pair[1], sim, compare(docs[pair[0]].record.body, docs[pair[1]].record.body, sim)


def near_pairs(vecs: np.ndarray, floor: float, neighbours: int):
    """(i, j, cosine) for each row's ``neighbours`` nearest other rows at ``floor`` or above, in
    blocks of 512 rows, so a brain with many look-alike records costs at most that many checks a
    record. A pair can come twice (once from each side); callers keep the first."""
    for start in range(0, len(vecs), 512):
        sims = vecs[start:start + 512] @ vecs.T
        for r in range(sims.shape[0]):
            i = start + r
            row = sims[r]
            row[i] = -1.0
            above = np.flatnonzero(row >= floor - 1e-6)
            if len(above) > neighbours:
                above = above[np.argpartition(-row[above], neighbours)[:neighbours]]
            for j in above.tolist():
                yield i, j, float(row[j])


# -- the write path's link ------------------------------------------------------------------------------------


class Linker:
    """For one ``remember_many``: a new durable record that says what a record of *another*
    profile already says is not written; the existing record gains the writer's source instead.

    Why only across profiles: within one profile the key is the record's address. A writer that
    reuses a key supersedes (the path unchanged); a writer that picks a new key asks for a new
    record it may update by that key later, so it gets one, and lint, consolidate and the
    collapsed answers deal with the likeness. Across profiles (the same decision harvested from
    Claude, Codex and Gemini sessions) a copy would only be a second and third answer to the same
    question, so the sessions become provenance of one record.

    Nothing is lost by a link: the ``sources`` entry keeps the writer's profile, key, source, date,
    the id it would have had, and its wording when that differs.
    """

    def __init__(self, brain) -> None:
        self.brain = brain
        on = brain.config.get("dedupe.link_on_write", True)
        self.on = str(on).strip().lower() not in ("false", "no", "off", "0", "none")
        self.batch: list[tuple[Any, str, np.ndarray]] = []   # records written by this call so far
        self.primed: dict[str, np.ndarray] = {}  # text_sha -> vector, embedded for the whole write at once

    def prime(self, prepared) -> None:
        """Embed every new record of a write in one batch (``remember_many`` of 500 records pays one
        model call, not 500), before :meth:`link` looks at them one by one."""
        if not self.on:
            return
        from brain_core.store.shelves import load_doc

        docs = [load_doc(rel, rec.to_json().encode("utf-8"), 0, 0) for rec, rel in prepared
                if rel.startswith("memories/") and not (self.brain.root / rel).exists()]
        if len(docs) < 2:
            return
        idx = self.brain.index
        vecs, _ = idx.vectors_for(docs)
        self.primed = {d.text_sha: np.asarray(v, dtype=np.float32) for d, v in zip(docs, vecs)}

    def link(self, rec, rel: str):
        """A ``Written`` for the existing record ``rec`` was linked to, or None to write ``rec``."""
        if not self.on or not rel.startswith("memories/") or (self.brain.root / rel).exists():
            return None
        from brain_core.store.shelves import load_doc

        idx = self.brain.index
        conn = idx.conn()
        doc = load_doc(rel, rec.to_json().encode("utf-8"), 0, 0)
        vec = self.primed.pop(doc.text_sha, None)
        if vec is None:
            vec = np.asarray(idx.vectors_for([doc])[0][0], dtype=np.float32)
        idx.fresh_vectors[doc.text_sha] = vec   # the write that may follow embeds nothing again
        target = self._in_batch(rec, vec) or self._in_catalog(conn, rec, vec)
        if target is None:
            self.batch.append((rec, rel, vec))
            return None
        return self._add_source(target, rec)

    def _in_batch(self, rec, vec) -> str | None:
        for other, rel, ovec in self.batch:
            if other.profile == rec.profile:
                continue
            cos = float(np.dot(vec, ovec))
            if cos >= COSINE and compare(other.body, rec.body, cos).duplicate():  # the cheap test first
                return rel
        return None

    def _in_catalog(self, conn, rec, vec) -> str | None:
        """The best keyword matches from other profiles (a near-duplicate shares most content words,
        so it is among them), then their stored vectors: a few milliseconds at 10k records, where a
        vector scan of the whole catalog would cost as much as a recall. The search is the backend's
        (``link_candidates`` in :mod:`brain_core.recall.sqlite`; :mod:`brain_core.recall.postgres`'s
        takes the nearest in meaning too)."""
        from brain_core.recall.backends import statements
        from brain_core.recall.hybrid import fts_query

        fq = fts_query(rec.body)
        if not fq:
            return None
        best = None
        found = statements(self.brain.index.backend).link_candidates(conn, fq, rec.profile, vec, LINK_NEIGHBOURS)
        for path, body, cos in found:
            if cos >= COSINE and compare(body, rec.body, cos).duplicate() and (best is None or cos > best[0]):
                best = (cos, path)
        return best[1] if best else None

    def _add_source(self, path: str, rec):
        from brain_core.brain import Written
        from brain_core.errors import MalformedRecord
        from brain_core.marks import check, unchecked

        try:
            existing = self.brain.get(path)
        except (OSError, MalformedRecord):
            return None  # lint reports it; the new record is written as usual
        entry = {"profile": rec.profile, "key": rec.key, "source": rec.source, "created": rec.created, "id": rec.id}
        if rec.body != existing.body:
            entry["body"] = rec.body
        sources = linked_sources(existing.extra)
        if any((s.get("profile"), s.get("source"), s.get("body")) == (rec.profile, rec.source, entry.get("body"))
               for s in sources) or (existing.profile, existing.source) == (rec.profile, rec.source):
            return Written(existing, path, False)  # this writer's word is already there
        existing.extra["sources"] = sources + [entry]
        if unchecked(existing) and not unchecked(rec):
            check(existing)  # a model (or a person) wrote the same: no longer a lifted sentence alone
        self.brain._put(path, existing.to_json().encode("utf-8"))  # put back if the write fails
        return Written(existing, path, True)
