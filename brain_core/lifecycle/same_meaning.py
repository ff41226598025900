"""``aida brain consolidate`` with a model: records the word checks cannot call one fact are asked about.

The write path and the near-duplicate merge link two records only when sure (every informative word
of each on the other side, in the same roles; :func:`brain_core.brain.dedupe.compare`), so most true
rewordings stay two records: on the hand-written pair sets about one in eight is linked. A model
reads meaning rather than words. When ``llm.provider`` gives one, consolidate sends it the pairs the
word checks left in doubt: close in meaning (cosine >= ``dedupe.COSINE``), not the same words, and no
disagreement the checks can name (those are conflicts, kept apart and shown, never asked about). Each
pair the model calls the same fact is merged like a near-duplicate (the fuller wording survives, the
other becomes its source), recorded as judged by the model.

The model is asked strictly: "same" only when either note could replace the other with nothing lost
or changed; a detail on one side only, a swapped or changed value, a negation or a change over time
is "different". An answer that is not the expected JSON, a pair it does not answer, or a provider that
fails merges nothing. At most ``consolidate.model_pairs`` pairs a run (most alike first), ten to a call.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field

from brain_core.brain.dedupe import compared_pairs

SAME_PROMPT = (
    "You compare short notes from one software team's memory. For each numbered pair, say whether the two "
    "notes state the same fact: the same things, owners, roles, numbers, times, places and direction, so "
    "that either note could replace the other with nothing lost and nothing changed. Answer false when one "
    "note has a detail the other lacks, when a value, owner or order differs or is swapped, when one is "
    "negated, or when one says something used to be so. "
    'Answer JSON: {"pairs": [{"n": 1, "same": true}, {"n": 2, "same": false}]}'
)
DEFAULT_MODEL_PAIRS = 30
PER_CALL = 10


@dataclass
class Asked:
    """What the model was asked this run and what it said."""

    pairs: int = 0           # pairs sent
    calls: int = 0
    same: set = field(default_factory=set)   # {(path, path)} sorted pairs the model called one fact
    note: str | None = None  # why it was not asked, or stopped

    def to_json(self) -> dict:
        return {"pairs": self.pairs, "calls": self.calls, "same": sorted(list(p) for p in self.same),
                "note": self.note}


def doubtful(docs, vecs, neighbours: int = 8) -> list[tuple[int, int, float]]:
    """``(i, j, cosine)`` for the pairs the word checks leave in doubt, most alike first: close in
    meaning, not linked, and no disagreement the checks can name."""
    out = []
    for i, j, sim, ev in compared_pairs(docs, vecs, neighbours):
        if docs[i].record.type != docs[j].record.type:
            continue
        if ev.duplicate() or ev.conflict is not None:
            continue  # linked already, or a disagreement: never asked to call it one fact
        out.append((i, j, sim))
    return sorted(out, key=lambda t: -t[2])


def ask(llm, docs, vecs, limit: int = DEFAULT_MODEL_PAIRS) -> Asked:
    """The doubtful pairs the model calls one fact (paths, sorted)."""
    got = Asked()
    if llm is None:
        got.note = "no model configured (llm.provider)"
        return got
    todo = doubtful(docs, vecs)[:max(0, limit)]
    from brain_core.errors import ProviderError

    for start in range(0, len(todo), PER_CALL):
        chunk = todo[start:start + PER_CALL]
        text = "\n\n".join(f"Pair {n}:\nA: {docs[i].record.body}\nB: {docs[j].record.body}"
                           for n, (i, j, _) in enumerate(chunk, 1))
        try:
            answer = llm.complete(SAME_PROMPT, text, json=True, max_tokens=40 + 20 * len(chunk))
        except ProviderError as e:
            got.note = f"the model could not be asked ({e}); nothing more was merged by it"
            break
        got.calls += 1
        got.pairs += len(chunk)
        for n in _same_numbers(answer, len(chunk)):
            i, j, _ = chunk[n - 1]
            got.same.add(tuple(sorted((docs[i].path, docs[j].path))))
    return got


def _same_numbers(answer: str, n: int) -> set[int]:
    """The pair numbers the answer calls the same; nothing from an answer that is not the JSON asked."""
    try:
        obj = json.loads(answer)
        items = obj["pairs"]
    except (TypeError, ValueError, KeyError):
        return set()
    out = set()
    for it in items if isinstance(items, list) else ():
        if isinstance(it, dict) and it.get("same") is True and isinstance(it.get("n"), int) and 1 <= it["n"] <= n:
            out.add(it["n"])
    return out
