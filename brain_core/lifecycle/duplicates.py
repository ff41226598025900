"""``aida brain consolidate``, second part: durable records that say the same thing become one.

Near-duplicate pairs come from :func:`brain_core.brain.dedupe.find_pairs` (the predicate answers and the
write path use). Pairs are joined into groups; a group keeps only the records that are each a
near-duplicate of its **survivor**, the record with the most content words (the fullest wording),
the oldest on a tie, so a chain A~B~C never merges A with a C it does not match.

The survivor is rewritten as a new version of itself (a new id that ``supersedes`` the old one,
``provenance`` listing every merged id) whose ``sources`` name each merged record's profile, key,
source, date, id and wording, so nothing said is lost; the others move to ``archive/``. All of a
run's merges are one commit.

No judge is needed: the survivor's text is kept word for word, nothing is drafted. With a model
configured, the pairs the word checks leave in doubt are asked about first (:mod:`.same_meaning`), and
the pairs it calls one fact are merged the same way, recorded as judged by the model.
"""

from __future__ import annotations

from dataclasses import dataclass

from brain_core.brain.dedupe import compare, find_pairs, linked_sources, terms
from brain_core.errors import MalformedRecord
from brain_core.lifecycle.common import archive_path, load_docs, setting, vectors
from brain_core.records import Record, new_id, now_iso


@dataclass(frozen=True)
class Merge:
    keep: str                      # the survivor's path (rewritten in place, a new version)
    merged: tuple[str, ...]        # the others' paths (moved to archive/)
    cosines: tuple[float, ...]
    archived: tuple[tuple[str, str], ...] = ()
    written: bool = False
    # per merged record, who found it the same: "words" (the checks) or "model:NAME" (:mod:`.same_meaning`)
    judged: tuple[str, ...] = ()

    def to_json(self) -> dict:
        return {"keep": self.keep, "merged": list(self.merged), "cosines": [round(c, 3) for c in self.cosines],
                "judged": list(self.judged) or ["words"] * len(self.merged),
                "written": self.written, "archived": [{"from": a, "to": b} for a, b in self.archived]}


def propose(brain, llm=None, asked=None) -> list[Merge]:
    """The groups to merge; writes nothing. With ``llm``, the pairs the word checks doubt are asked
    about (at most ``consolidate.model_pairs``); what it was asked is put in ``asked`` (a
    :class:`~brain_core.lifecycle.same_meaning.Asked`) when given."""
    from brain_core.lifecycle import same_meaning

    docs = load_docs(brain, ("memories",))
    pairs = [(p.a, p.b) for p in find_pairs(brain, docs=docs)]
    model_same: set = set()
    if llm is not None and len(docs) >= 2:
        limit = setting(brain.config, "consolidate.model_pairs", same_meaning.DEFAULT_MODEL_PAIRS, int)
        got = same_meaning.ask(llm, docs, vectors(brain, docs), limit)
        model_same = got.same
        pairs += sorted(model_same)
        if asked is not None:
            asked.__dict__.update(got.__dict__)
    elif llm is None and asked is not None:
        asked.note = "no model configured (llm.provider)"
    if not pairs:
        return []
    by_path = {d.path: i for i, d in enumerate(docs)}
    parent = {p: p for pair in pairs for p in pair}

    def find(x: str) -> str:
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    for a, b in pairs:
        ra, rb = find(a), find(b)
        if ra != rb:
            parent[max(ra, rb)] = min(ra, rb)
    groups: dict[str, list[str]] = {}
    for p in parent:
        groups.setdefault(find(p), []).append(p)
    members_of = {p: docs[by_path[p]] for p in parent}
    vecs = vectors(brain, list(members_of.values()))
    vec_of = dict(zip(members_of, vecs))
    out = []
    for paths in groups.values():
        ds = [members_of[p] for p in paths]
        keep = max(ds, key=lambda d: (len(terms(d.record.body).words), -_ts(d.record), d.path))
        merged, cosines, judged = [], [], []
        for d in sorted(ds, key=lambda d: d.path):
            if d is keep:
                continue
            cos = float(vec_of[keep.path] @ vec_of[d.path])
            same = " ".join(d.record.body.lower().split()) == " ".join(keep.record.body.lower().split())
            if same or compare(keep.record.body, d.record.body, cos).duplicate():
                judged.append("words")
            elif tuple(sorted((keep.path, d.path))) in model_same:
                judged.append(f"model:{getattr(llm, 'name', 'llm')}")
            else:
                continue  # alike to another member only: a chain is no reason to merge it with the survivor
            merged.append(d.path)
            cosines.append(cos)
        if merged:
            out.append(Merge(keep.path, tuple(merged), tuple(cosines), judged=tuple(judged)))
    return sorted(out, key=lambda m: m.keep)


def _ts(rec: Record) -> float:
    dt = rec.created_dt
    return dt.timestamp() if dt else 0.0


def entry(rec: Record) -> dict:
    return {"profile": rec.profile, "key": rec.key, "source": rec.source, "created": rec.created, "id": rec.id,
            "body": rec.body}


def merged_record(keep: Record, others: list[Record], paths: list[str], judged: tuple[str, ...] = ()) -> Record:
    """The survivor's new version: same words, every merged record in its sources and provenance; the
    records a model found the same (``judged``, per other record) are named in ``consolidated.by_model``."""
    sources = linked_sources(keep.extra)
    for o in others:
        e = entry(o)
        if o.body == keep.body:
            e.pop("body")
        sources += [e] + linked_sources(o.extra)
    tags = list(keep.tags)
    for o in others:
        tags += [t for t in o.tags if t not in tags]
    prov = list(dict.fromkeys([*keep.provenance, keep.id, *(i for o in others for i in (*o.provenance, o.id))]))
    by_model = [p for p, j in zip(paths[1:], judged) if j.startswith("model:")]
    done = {"from": paths, "at": now_iso(), "judge": "near-duplicates"}
    if by_model:
        done |= {"judge": next(j for j in judged if j.startswith("model:")), "by_model": by_model}
    extra = {**keep.extra, "sources": sources, "consolidated": done}
    return Record(id=new_id(), type=keep.type, key=keep.key, profile=keep.profile, body=keep.body, tags=tags[:20],
                  source=keep.source, created=keep.created, confidence=keep.confidence, provenance=prov,
                  expires=keep.expires, supersedes=keep.id, extra=extra)


def apply(brain, merges: list[Merge]) -> list[Merge]:
    """Write every survivor's new version and archive the others, in one commit."""
    if not merges:
        return []
    done = []
    with brain.writing() as tx:  # the one write path (store/writes.py)
        for m in merges:
            try:
                keep = brain.get(m.keep)
                others = [brain.get(p) for p in m.merged]
            except (OSError, MalformedRecord):
                continue  # changed under us: the next run proposes it again
            rec = merged_record(keep, others, [m.keep, *m.merged], m.judged)
            tx.put(m.keep, rec.to_json())
            moves = [(path, tx.move(path, archive_path(brain, path, o.id))) for path, o in zip(m.merged, others)]
            done.append(Merge(m.keep, m.merged, m.cosines, tuple(moves), True, m.judged))
        n = sum(len(m.merged) + 1 for m in done)
        tx.message = f"consolidate: {n} near-duplicate records into {len(done)}"
    return done
