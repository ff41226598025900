"""``aida brain consolidate``: L2 events -> durable records, in three steps; then durable records
that say the same thing (near-duplicates, often one fact from several agents) become one record
with the others as its sources (:mod:`.duplicates`).

**Propose.** Events are grouped when they share a profile and key, or when their embeddings are
near-duplicates (cosine >= ``consolidate.similarity``, 0.9; vectors come from the catalog). A
group also takes in the durable record already at its key (``memories/<profile>/<key>.json``), so
the merged record replaces it with nothing of it lost. The draft is made from the originals' own
sentences (the durable one first, then the events oldest first, repeats dropped), so a draft never
says anything the originals did not; ``provenance`` lists every original's id.

**Judge** (:mod:`.judge`). A draft must pass before anything moves. With an LLM configured
(``llm.provider``), the model judges it (JSON ``{"verdict": "pass"|"fail", "reasons": [...]}``;
an answer it cannot parse, or no answer, is a fail). Without one, deterministic checks: no fact
lost (every number, name and negated statement of the originals is in the draft), no
contradiction introduced (no number the originals lack, no statement flipped), and the body
within ``consolidate.max_chars`` (2000). Length and provenance are checked before the LLM too.

**Apply.** A passing draft is written through ``brain.remember`` (the one write path: it
supersedes the durable record by key, indexes and commits), and only then are its events moved
to ``archive/`` in one commit. A failing draft moves nothing, not one line.

Groups whose originals contradict each other (the same statement with different numbers, or once
negated and once not) are never merged: they are listed for the user, who picks the version to
keep with ``aida brain consolidate --keep PATH`` (:func:`resolve`).
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass
from typing import Any, Sequence

import numpy as np

from brain_core.errors import BrainError, InvalidInput, MalformedRecord
from brain_core.lifecycle.common import (
    archive_path,
    load_docs,
    negated,
    numbers,
    sentences,
    setting,
    vectors,
    words,
)
from brain_core.lifecycle.judge import DEFAULT_MAX_CHARS, Judge, Verdict, conflicts_between, make_judge
from brain_core.records import Record, now_iso
from brain_core.store.shelves import Doc
from brain_core.text.slug import slugify

DEFAULT_SIMILARITY = 0.9
_INSTRUCTION = re.compile(r"\b(?:always|never|must|don'?t|do not|make sure|avoid|remember to)\b", re.I)


@dataclass(frozen=True)
class Original:
    path: str
    record: Record
    base: bool = False   # the durable record already at the group's key (superseded, not archived)


@dataclass(frozen=True)
class Draft:
    type: str
    key: str
    profile: str
    body: str
    tags: tuple[str, ...]
    provenance: tuple[str, ...]


@dataclass(frozen=True)
class Proposal:
    originals: tuple[Original, ...]
    draft: Draft
    why: str   # "same key" | "near-duplicates (0.94)"

    @property
    def events(self) -> tuple[Original, ...]:
        return tuple(o for o in self.originals if not o.base)


@dataclass(frozen=True)
class Contradiction:
    profile: str
    key: str
    paths: tuple[str, ...]
    details: tuple[str, ...]

    def to_json(self) -> dict:
        return {"profile": self.profile, "key": self.key, "paths": list(self.paths), "details": list(self.details)}


@dataclass(frozen=True)
class Outcome:
    proposal: Proposal
    verdict: Verdict
    written: str | None = None
    archived: tuple[tuple[str, str], ...] = ()

    def to_json(self) -> dict:
        p = self.proposal
        return {"key": p.draft.key, "profile": p.draft.profile, "type": p.draft.type, "why": p.why,
                "originals": [o.path for o in p.originals], "body": p.draft.body,
                "verdict": "pass" if self.verdict.ok else "fail", "judge": self.verdict.judge,
                "reasons": list(self.verdict.reasons), "written": self.written,
                "archived": [{"from": a, "to": b} for a, b in self.archived]}


@dataclass(frozen=True)
class Report:
    dry_run: bool
    judge: str
    outcomes: tuple[Outcome, ...] = ()
    contradictions: tuple[Contradiction, ...] = ()
    duplicates: tuple = ()   # durable near-duplicates merged (lifecycle/duplicates.py)
    asked: Any = None        # what the model was asked about records in doubt (lifecycle/same_meaning.py)

    def to_json(self) -> dict:
        return {"dry_run": self.dry_run, "judge": self.judge, "proposals": [o.to_json() for o in self.outcomes],
                "contradictions": [c.to_json() for c in self.contradictions],
                "duplicates": [m.to_json() for m in self.duplicates],
                "asked_model": self.asked.to_json() if self.asked is not None else None}


@dataclass(frozen=True)
class Settings:
    similarity: float = DEFAULT_SIMILARITY
    max_chars: int = DEFAULT_MAX_CHARS

    @classmethod
    def from_config(cls, config) -> "Settings":
        return cls(setting(config, "consolidate.similarity", DEFAULT_SIMILARITY),
                   setting(config, "consolidate.max_chars", DEFAULT_MAX_CHARS, int))


# -- propose -----------------------------------------------------------------------------------------------


def draft(originals: Sequence[Original], key: str, profile: str) -> Draft:
    """The merged record, made of the originals' own sentences (see the module docstring)."""
    ordered = sorted(originals, key=lambda o: (not o.base, o.record.created, o.path))
    kept: list[tuple[frozenset, frozenset, bool, str]] = []
    for o in ordered:
        for s in sentences(o.record.body):
            ws, ns, neg = frozenset(words(s)), frozenset(numbers(s)), negated(s)
            if any(ws <= k[0] and ns <= k[1] and neg == k[2] and (ws or s == k[3]) for k in kept):
                continue
            kept = [k for k in kept if not (k[0] < ws and k[1] <= ns and k[2] == neg)]  # a fuller one replaces
            kept.append((ws, ns, neg, s if s[-1:] in ".!?\u3002" else s + "."))
    body = " ".join(k[3] for k in kept)
    base = next((o for o in originals if o.base), None)
    if base is not None:
        type_ = base.record.type
    else:
        type_ = "instruction" if any(_INSTRUCTION.search(o.record.body) for o in originals) else "fact"
    tags: list[str] = []
    for o in ordered:
        tags += [t for t in o.record.tags if t not in tags]
    return Draft(type_, key, profile, body, tuple(tags[:20]), tuple(o.record.id for o in ordered))


def _components(n: int, pairs: list[tuple[int, int]]) -> list[list[int]]:
    parent = list(range(n))

    def find(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    for a, b in pairs:
        ra, rb = find(a), find(b)
        if ra != rb:
            parent[max(ra, rb)] = min(ra, rb)
    groups: dict[int, list[int]] = {}
    for i in range(n):
        groups.setdefault(find(i), []).append(i)
    return list(groups.values())


def _near_pairs(vecs: np.ndarray, idx: list[int], threshold: float) -> list[tuple[int, int, float]]:
    out: list[tuple[int, int, float]] = []
    if len(idx) < 2:
        return out
    sub = vecs[idx]
    for start in range(0, len(idx), 512):
        sims = sub[start:start + 512] @ sub.T
        rows, cols = np.nonzero(sims >= threshold)
        for r, c in zip(rows, cols):
            i, j = start + int(r), int(c)
            if i < j:
                out.append((idx[i], idx[j], float(sims[r, c])))
    return out


def propose(brain, settings: Settings | None = None) -> tuple[list[Proposal], list[Contradiction]]:
    """Group the events and draft a merge for each group; writes nothing."""
    settings = settings or Settings.from_config(brain.config)
    events: list[Doc] = [d for d in load_docs(brain, ("events",)) if d.record.type == "event"]
    if not events:
        return [], []
    pairs: list[tuple[int, int]] = []
    near: dict[frozenset, float] = {}
    by_key: dict[tuple[str, str], list[int]] = {}
    for i, d in enumerate(events):
        r = d.record
        if not (r.key == "note" and slugify(r.body) == "note"):  # "note" is the slug of text with no ASCII word
            by_key.setdefault((r.profile, r.key), []).append(i)
    for same_key in by_key.values():
        pairs += [(same_key[0], m) for m in same_key[1:]]
    vecs = vectors(brain, events)
    for profile in {d.record.profile for d in events}:
        idx = [i for i, d in enumerate(events) if d.record.profile == profile]
        for a, b, sim in _near_pairs(vecs, idx, settings.similarity):
            pairs.append((a, b))
            near[frozenset((a, b))] = sim
    durable = [d for d in load_docs(brain, ("memories",))]
    dvecs = vectors(brain, durable) if durable else None
    proposals, contradictions = [], []
    for comp in _components(len(events), pairs):
        members = [events[i] for i in comp]
        profile = members[0].record.profile
        keys = Counter(d.record.key for d in members)
        key = sorted(keys, key=lambda k: (-keys[k], min(d.record.created for d in members if d.record.key == k)))[0]
        if dvecs is not None and (len(keys) > 1 or not (brain.root / f"memories/{profile}/{key}.json").exists()):
            key = _durable_match(durable, dvecs, vecs[comp], profile, settings.similarity) or key
        originals = [Original(d.path, d.record) for d in members]
        base_rel = f"memories/{profile}/{key}.json"
        try:
            originals.insert(0, Original(base_rel, brain.get(base_rel), base=True))
        except FileNotFoundError:
            pass
        except MalformedRecord:
            continue  # lint reports the broken durable record; never overwrite what cannot be read
        if len(originals) < 2:
            continue
        details: list[str] = []
        for i, one in enumerate(originals):
            for other in originals[i + 1:]:
                details += conflicts_between(one.record.body, other.record.body)
        if details:
            contradictions.append(Contradiction(profile, key, tuple(o.path for o in originals), tuple(details)))
            continue
        sims = [near[frozenset((x, y))] for x in comp for y in comp if x < y and frozenset((x, y)) in near]
        why = "same key" if len(keys) == 1 else f"near-duplicates ({max(sims):.2f})" if sims else "same key"
        proposals.append(Proposal(tuple(originals), draft(originals, key, profile), why))
    return proposals, contradictions


def _durable_match(durable: list[Doc], dvecs: np.ndarray, evecs: np.ndarray, profile: str,
                   threshold: float) -> str | None:
    """The key of the durable record (same profile) the events are near-duplicates of, if any."""
    idx = [i for i, d in enumerate(durable) if d.record.profile == profile]
    if not idx:
        return None
    sims = (evecs @ dvecs[idx].T).max(axis=0)
    best = int(np.argmax(sims))
    return durable[idx[best]].record.key if sims[best] >= threshold else None


# -- apply -------------------------------------------------------------------------------------------------


def consolidate(brain, *, dry_run: bool = False, judge: Judge | None = None,
                drafter=None, settings: Settings | None = None, same_llm=None) -> Report:
    """Propose -> judge -> apply. ``drafter(originals, key, profile) -> Draft`` replaces the
    default drafter (the judge must still pass what it makes). The model that is asked about records
    the word checks doubt (:mod:`.same_meaning`) is the judge's, or ``same_llm``."""
    from brain_core.config.machine import require_writer

    if not dry_run:
        require_writer(brain.config, "consolidate records")
    settings = settings or Settings.from_config(brain.config)
    judge = judge or make_judge(brain.config)
    proposals, contradictions = propose(brain, settings)
    outcomes = []
    for p in proposals:
        if drafter is not None:
            p = Proposal(p.originals, drafter(p.originals, p.draft.key, p.draft.profile), p.why)
        verdict = judge.judge(p)
        if dry_run or not verdict.ok:
            outcomes.append(Outcome(p, verdict))
            continue
        outcomes.append(apply(brain, p, verdict))
    from brain_core.lifecycle import duplicates
    from brain_core.lifecycle.same_meaning import Asked

    asked = Asked()
    merges = duplicates.propose(brain, llm=getattr(judge, "llm", None) if same_llm is None else same_llm,
                                asked=asked)
    if not dry_run:
        merges = duplicates.apply(brain, merges)
    return Report(dry_run, judge.name, tuple(outcomes), tuple(contradictions), tuple(merges), asked)


def apply(brain, p: Proposal, verdict: Verdict) -> Outcome:
    """Write the merged record, then archive the events (a crash between the two leaves a
    duplicate, never a loss)."""
    d = p.draft
    extra = {"consolidated": {"from": [o.path for o in p.originals], "at": now_iso(), "judge": verdict.judge}}
    rec = brain.remember(d.body, type=d.type, key=d.key, profile=d.profile, tags=list(d.tags),
                         source="aida:consolidate", provenance=list(d.provenance), extra=extra,
                         message=f"consolidate: {len(p.originals)} records into {d.profile}/{d.key}")
    moves = [(o.path, archive_path(brain, o.path, o.record.id)) for o in p.events]
    if moves:
        brain.move(moves, f"consolidate: archive {len(moves)} event(s) merged into {d.profile}/{d.key}")
    return Outcome(p, verdict, f"memories/{rec.profile}/{rec.key}.json", tuple(moves))


def resolve(brain, keep: str) -> Outcome:
    """The user's choice for a listed contradiction: keep the record at ``keep`` as the durable
    one for its key and archive the group's events (nothing is judged: the user decided)."""
    from brain_core.config.machine import require_writer

    require_writer(brain.config, "consolidate records")
    _, contradictions = propose(brain)
    for c in contradictions:
        if keep in c.paths:
            break
    else:
        raise InvalidInput(f"{keep} is not part of a listed contradiction; run `aida brain consolidate --dry-run` "
                           "to see them.")
    originals = []
    for path in c.paths:
        try:
            originals.append(Original(path, brain.get(path), base=path.startswith("memories/")))
        except (OSError, MalformedRecord) as e:
            raise BrainError(f"{path} cannot be read ({e}); fix it, then choose again.") from e
    chosen = next(o for o in originals if o.path == keep)
    base = next((o for o in originals if o.base), None)
    ids = [o.record.id for o in originals]
    tags: list[str] = []
    for o in originals:
        tags += [t for t in o.record.tags if t not in tags]
    type_ = base.record.type if base else ("instruction" if _INSTRUCTION.search(chosen.record.body) else "fact")
    proposal = Proposal(tuple(originals), Draft(type_, c.key, c.profile, chosen.record.body, tuple(tags[:20]),
                                                tuple(ids)), "chosen by the user")
    return apply(brain, proposal, Verdict(True, "user", (f"kept {keep}",)))
