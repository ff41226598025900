"""Conflicts: records on one subject whose words disagree (:func:`brain_core.brain.disagreement.disagreement`).

Records that disagree are **conflicts** (:func:`find_conflicts`): two records on the same subject
(the same key from two profiles, or records close in meaning) whose words disagree. ``aida brain
lint`` lists them, ``aida brain consolidate`` proposes which one stands (the newer, unless the user
chose with ``--keep``) and merges neither, and the answers say "Two of your records disagree: ...",
the standing one first (:func:`mark_hits`, :func:`conflict_line`).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Sequence

from brain_core.brain.wording import shape

# -- conflicts between records ----------------------------------------------------------------------------

SUBJECT = 0.5       # cosine: two records at one key from two profiles are about one subject above this
NEAR = 0.8          # cosine: two records at different keys are about one subject above this ...
SAME_WORDS = 0.7    # ... and when this share of their content words is the same
CHOSEN = "chosen_over"  # a record's field: the records the user kept it over (``consolidate --keep``)
AGENTS = {"claude": "Claude", "codex": "Codex", "gemini": "Gemini", "me": "You"}
MONTHS = ("January February March April May June July August September October November December").split()


@dataclass(frozen=True)
class Side:
    path: str
    record: Any

    def to_json(self) -> dict:
        r = self.record
        return {"path": self.path, "profile": r.profile, "key": r.key, "created": r.created, "source": r.source,
                "body": r.body}


@dataclass(frozen=True)
class Conflict:
    """Two records on one subject that disagree; ``sides[0]`` stands (the user's choice, else the newer)."""

    sides: tuple[Side, Side]
    why: str
    chosen: bool = False   # the user chose sides[0] with ``aida brain consolidate --keep``

    @property
    def paths(self) -> tuple[str, str]:
        return self.sides[0].path, self.sides[1].path

    def to_json(self) -> dict:
        return {"stands": self.sides[0].to_json(), "other": self.sides[1].to_json(), "why": self.why,
                "chosen_by_user": self.chosen, "line": conflict_line(self.sides[0].record, self.sides[1].record)}


def _ts(rec) -> float:
    dt = getattr(rec, "created_dt", None)
    return dt.timestamp() if dt else 0.0


def _age(rec) -> tuple:
    """When a record was written: its date, then its id (the time to the millisecond) for a tie."""
    return _ts(rec), str(getattr(rec, "id", "") or "")


def chosen_over(rec) -> set:
    got = (getattr(rec, "extra", None) or {}).get(CHOSEN)
    return {c.get("path") for c in got if isinstance(c, dict)} if isinstance(got, list) else set()


def standing(a: Side, b: Side) -> tuple[Side, Side, bool]:
    """``(stands, other, chosen)``: the one the user kept, else the newer (a tie: the first)."""
    if b.path in chosen_over(a.record):
        return a, b, True
    if a.path in chosen_over(b.record):
        return b, a, True
    return (b, a, False) if _age(b.record) > _age(a.record) else (a, b, False)


def disagree(a: str, b: str, cosine: float | None, same_key: bool) -> str | None:
    """Why two record bodies on one subject disagree, or None (unrelated, or saying the same)."""
    from brain_core.brain.dedupe import COSINE, OVERLAP, compare

    if " ".join(a.lower().split()) == " ".join(b.lower().split()):
        return None
    if not same_key and (cosine is None or cosine < max(COSINE, NEAR)):
        return None  # the cheap test first
    ev = compare(a, b, cosine)
    if ev.conflict is None or ev.conflict == "no content words":
        return None
    if ev.conflict.startswith("different numbers"):
        from brain_core.brain.dedupe import terms

        ids = _ids(a) | _ids(b)
        na, nb = terms(a).numbers - ids, terms(b).numbers - ids
        if not (na and nb and na != nb):
            return None  # "(ticket 37)" / "(ticket 383)": two tickets, two subjects
    if same_key:
        return ev.conflict if cosine is None or cosine >= SUBJECT else None
    if cosine is None or cosine < max(COSINE, NEAR) or ev.overlap < OVERLAP:
        return None
    # records on one subject say the same but for what conflicts; "(ticket 969)" / "(ticket 1998)" on
    # two records that say different things is two subjects, not a disagreement
    from brain_core.brain.dedupe import _matched, terms

    wa, wb = terms(a).words, terms(b).words
    same = len(_matched(wa, wb) | _matched(wb, wa)) / max(1, len(wa | wb))
    return ev.conflict if same >= SAME_WORDS else None


_ID = re.compile(r"(?:\b(?:ticket|issue|pr|pull request|bug|case|incident|invoice|order|run|build|commit|id)\s*#?|#)\s*(\d+)\b",
                 re.I)


def _ids(text: str) -> set:
    """Numbers that name something ("ticket 37", "#412") rather than state a quantity."""
    return set(_ID.findall(text or ""))


def find_conflicts(brain, docs=None, neighbours: int = 8) -> list[Conflict]:
    """Every pair of durable records that disagree: the same key from two profiles, or records as close
    as near-duplicates whose names, numbers, order or negation disagree."""

    from brain_core.catalog.vectors import vectors
    from brain_core.store.shelves import load_docs

    docs = docs if docs is not None else load_docs(brain, ("memories",))
    if len(docs) < 2:
        return []
    vecs = vectors(brain, docs)
    found: dict[tuple[str, str], Conflict] = {}

    def consider(i: int, j: int, same_key: bool) -> None:
        a, b = docs[i], docs[j]
        pair = tuple(sorted((a.path, b.path)))
        if pair in found or a.path == b.path:
            return
        why = disagree(a.record.body, b.record.body, float(vecs[i] @ vecs[j]), same_key)
        if why:
            first, second, chosen = standing(Side(a.path, a.record), Side(b.path, b.record))
            found[pair] = Conflict((first, second), why, chosen)

    by_key: dict[str, list[int]] = {}
    for i, d in enumerate(docs):
        by_key.setdefault(d.record.key, []).append(i)
    for members in by_key.values():
        for x, i in enumerate(members):
            for j in members[x + 1:]:
                if docs[i].record.profile != docs[j].record.profile:
                    consider(i, j, True)
    from brain_core.brain.dedupe import COSINE, near_pairs

    for i, j, _ in near_pairs(vecs, max(COSINE, NEAR), neighbours):
        consider(min(i, j), max(i, j), False)
    return sorted(found.values(), key=lambda c: c.paths)


def choose(brain, keep: str) -> Conflict:
    """The user's choice: the record at ``keep`` stands over the records it disagrees with. Written
    in its file (``chosen_over``), so answers lead with it; nothing is merged or moved."""
    from brain_core.config.machine import require_writer
    from brain_core.errors import InvalidInput
    from brain_core.records import now_iso

    require_writer(brain.config, "consolidate records")
    mine = [c for c in find_conflicts(brain) if keep in c.paths]
    if not mine:
        raise InvalidInput(f"{keep} is not part of a listed conflict; run `aida brain lint` to see them.")
    others = [c.sides[1].path if c.sides[0].path == keep else c.sides[0].path for c in mine]
    with brain.writing(f"consolidate: keep {keep} over {', '.join(others)}") as tx:  # the one write path
        rec = brain.get(keep)
        kept = [c for c in (rec.extra.get(CHOSEN) or []) if isinstance(c, dict) and c.get("path") not in others]
        rec.extra[CHOSEN] = kept + [{"path": p, "at": now_iso()} for p in others]
        tx.put(keep, rec.to_json())
        for p in others:  # a choice the other way round, made earlier, no longer holds
            other = brain.get(p)
            if keep in chosen_over(other):
                other.extra[CHOSEN] = [c for c in other.extra[CHOSEN] if c.get("path") != keep]
                if not other.extra[CHOSEN]:
                    other.extra.pop(CHOSEN)
                tx.put(p, other.to_json())
    return next(c for c in find_conflicts(brain) if keep in c.paths)


# -- in answers ------------------------------------------------------------------------------------------------


def who(rec) -> str:
    p = str(getattr(rec, "profile", "") or "me")
    return AGENTS.get(p, p)


def _when(rec, other) -> str:
    a, b = getattr(rec, "created_dt", None), getattr(other, "created_dt", None)
    if a is None:
        return str(getattr(rec, "created", ""))[:10]
    month = MONTHS[a.month - 1]
    if b is not None and (a.year, a.month) == (b.year, b.month):
        if a.day == b.day:
            return f"{a.day} {month} {a:%H:%M}"
        return f"{a.day} {month}"
    return month if b is None or a.year == b.year else f"{month} {a.year}"


def gist(rec, other) -> str:
    """What ``rec`` says that ``other`` does not, short: the words it has in place of the other's
    ("payments" / "platform"), its own names ("Redis"), else its first sentence."""
    from brain_core.brain.disagreement import substituted
    from brain_core.text.words import first_sentence

    swapped = substituted(rec.body, other.body)  # "payments" / "platform", "night" / "6 hours"
    if swapped:
        return swapped[0]
    sa, sb = shape(rec.body), shape(other.body)
    mine = [t for t in sa.toks if t.canon in sa.affirmed and (t.name or t.unknown)
            and t.canon not in sb.affirmed]
    words = list(dict.fromkeys(t.raw for t in mine))
    if words and len(words) <= 3:
        return ", ".join(words)
    return first_sentence(rec.body, 80)


def conflict_line(stands, other) -> str:
    """"Two of your records disagree: Codex (June): Memcached; Claude (March): Redis." (the standing one first)."""
    return (f"Two of your records disagree: {who(stands)} ({_when(stands, other)}): {gist(stands, other)}; "
            f"{who(other)} ({_when(other, stands)}): {gist(other, stands)}.")


def mark_hits(hits: list, brain) -> list:
    """Each hit that disagrees with another hit, or with a record at its key from another profile,
    gets ``disagrees`` (the other records, each with ``stands``); the standing one is moved before
    the others it disagrees with."""
    import dataclasses

    import numpy as np

    from brain_core.brain.dedupe import stored_vectors

    if not hits:
        return hits
    index = getattr(brain, "index", None)
    vecs = stored_vectors(index, [h.path for h in hits]) if index is not None else {}
    side_of = {h.path: Side(h.path, h.record) for h in hits}
    rivals: dict[str, list[tuple[Side, str]]] = {h.path: [] for h in hits}
    for i, h in enumerate(hits):
        for g in hits[i + 1:]:
            if not h.path.startswith("memories/") or not g.path.startswith("memories/"):
                continue
            va, vb = vecs.get(h.path), vecs.get(g.path)
            cos = float(np.dot(va, vb)) if va is not None and vb is not None else None
            why = disagree(h.record.body, g.record.body, cos, h.record.key == g.record.key
                           and h.record.profile != g.record.profile)
            if why:
                rivals[h.path].append((side_of[g.path], why))
                rivals[g.path].append((side_of[h.path], why))
        for side in _same_key_elsewhere(brain, h):
            if side.path not in side_of and disagree(h.record.body, side.record.body, None, True):
                rivals[h.path].append((side, "the same key from another profile"))
    if not any(rivals.values()):
        return hits
    out = []
    for h in hits:
        marks = []
        for other, why in rivals[h.path]:
            mine = Side(h.path, _from_file(brain, h))  # the user's choice is in the file, not the catalog row
            if other.path in side_of:
                other = Side(other.path, _from_file(brain, next(x for x in hits if x.path == other.path)))
            first, _, chosen = standing(mine, other)
            marks.append({**other.to_json(), "why": why, "stands": first.path == other.path, "chosen": chosen})
        out.append(dataclasses.replace(h, disagrees=marks) if marks else h)
    # the standing record first: a superseded one moves after the record that stands over it
    order = list(out)
    for h in out:
        for m in h.disagrees if getattr(h, "disagrees", None) else ():
            if m["stands"]:
                pos = {x.path: k for k, x in enumerate(order)}
                if m["path"] in pos and pos[m["path"]] > pos[h.path]:
                    winner = order.pop(pos[m["path"]])
                    order.insert(pos[h.path], winner)
    return order


def _from_file(brain, hit):
    try:
        return brain.get(hit.path)
    except Exception:  # noqa: BLE001 - the catalog's copy will do
        return hit.record


def _same_key_elsewhere(brain, hit) -> list[Side]:
    """The records at the hit's key under the other profiles (``memories/*/<key>.json``)."""
    from brain_core.records import Record

    root = Path(getattr(brain, "root", "."))
    if not hit.path.startswith("memories/"):
        return []
    out = []
    for d in sorted((root / "memories").iterdir()) if (root / "memories").is_dir() else ():
        rel = f"memories/{d.name}/{hit.record.key}.json"
        if d.name == hit.record.profile or not (root / rel).is_file():
            continue
        try:
            out.append(Side(rel, Record.from_bytes((root / rel).read_bytes(), rel)))
        except Exception:  # noqa: BLE001 - a broken file is lint's business
            continue
    return out


# -- records folded wrongly by earlier versions -----------------------------------------------------------


@dataclass(frozen=True)
class Fold:
    path: str        # the record that holds the source
    source: dict     # the ``sources`` entry, with the words its writer said
    why: str

    @property
    def restore_to(self) -> str:
        return f"memories/{self.source.get('profile') or 'me'}/{self.source.get('key')}.json"


def _restorable(entry: dict) -> bool:
    from brain_core.records import KEY_RE, PROFILE_RE

    key, profile = entry.get("key"), entry.get("profile") or "me"
    return isinstance(key, str) and bool(KEY_RE.match(key)) and isinstance(profile, str) \
        and bool(PROFILE_RE.match(profile))


def wrong_folds(brain, docs=None) -> list[Fold]:
    """Sources whose own words disagree with the record that took them in (a link or a merge made
    before the order checks)."""
    from brain_core.brain.dedupe import compare, linked_sources
    from brain_core.store.shelves import load_docs

    docs = docs if docs is not None else load_docs(brain, ("memories",))
    out = []
    for d in docs:
        for s in linked_sources(d.record.extra):
            body = s.get("body")
            if not isinstance(body, str) or not body.strip() or not _restorable(s):
                continue  # a hand-made entry with no valid key or profile cannot become a record
            why = compare(d.record.body, body).conflict
            if why and why != "no content words":
                out.append(Fold(d.path, s, why))
    return out


def split(brain, dry_run: bool = False) -> list[tuple[Fold, str]]:
    """Restore every wrongly folded source as a record of its own, with its original key, date,
    profile, source and id, and drop it from the record that took it in: one commit. Returns each
    fold with what was done (``restored``, ``already there`` or ``kept: <path> holds other words``)."""
    from brain_core.config.machine import require_writer
    from brain_core.records import Record

    folds = wrong_folds(brain)
    if dry_run or not folds:
        return [(f, "would restore") for f in folds]
    require_writer(brain.config, "split records")
    done: list[tuple[Fold, str]] = []
    with brain.writing() as tx:  # the one write path (store/writes.py)
        holders: dict[str, Any] = {}
        for f in folds:
            target = f.restore_to
            holder = holders.get(f.path) or brain.get(f.path)
            holders[f.path] = holder
            s = f.source
            if (brain.root / target).exists():
                there = brain.get(target)
                if " ".join(there.body.split()) != " ".join(s["body"].split()):
                    done.append((f, f"kept: {target} holds other words"))
                    continue
                what = "already there"
            else:
                from brain_core.redact import redact  # the redaction gate, as on every write

                rec = Record(id=str(s.get("id") or holder.id), type=holder.type, key=str(s["key"]),
                             profile=str(s.get("profile") or "me"), body=redact(s["body"]).text,
                             tags=list(holder.tags), source=redact(str(s.get("source") or "")).text,
                             created=str(s.get("created") or holder.created), extra={"split_from": f.path})
                tx.put(target, rec.to_json())
                what = "restored"
            holder.extra["sources"] = [x for x in holder.extra.get("sources", []) if x is not s and x != s]
            if not holder.extra["sources"]:
                holder.extra.pop("sources")
            if s.get("id") in holder.provenance:
                holder.provenance = [p for p in holder.provenance if p != s.get("id")]
            done.append((f, what))
        for path, holder in holders.items():
            tx.put(path, holder.to_json())
        n = sum(1 for _, w in done if w == "restored")
        tx.message = f"consolidate --split: {n} record(s) folded into others restored at their keys"
    return done


def rival(m: dict):
    """A ``disagrees`` entry back as a record (for its words, profile and date)."""
    from brain_core.records import Record

    return Record(id="", type="fact", key=str(m.get("key") or ""), profile=str(m.get("profile") or "me"),
                  body=str(m.get("body") or ""), source=str(m.get("source") or ""), created=str(m.get("created") or ""))


def answer_notes(hits: Sequence) -> tuple[list[str], dict[str, str]]:
    """For the offline answer: the "Two of your records disagree" lines, and for each superseded hit
    what supersedes it ("superseded by Codex's record of June")."""
    lines: list[str] = []
    superseded: dict[str, str] = {}
    for h in hits:
        for m in getattr(h, "disagrees", None) or ():
            other = rival(m)
            if m.get("stands"):
                how = "your choice" if m.get("chosen") else "newer"
                superseded.setdefault(h.path, f"superseded by {who(other)}'s record of {_when(other, h.record)}, "
                                              f"{how}")
            else:
                lines.append(conflict_line(h.record, other))
    return list(dict.fromkeys(lines)), superseded


def prompt_notes(hits: Sequence) -> str:
    """For the LLM: which numbered records disagree and which one stands ("" when none do)."""
    num = {h.path: i for i, h in enumerate(hits, 1)}
    out = []
    for h in hits:
        for m in getattr(h, "disagrees", None) or ():
            how = "the user chose it" if m.get("chosen") else "it is newer"
            if m["path"] not in num:
                rival = f"{AGENTS.get(m['profile'], m['profile'])}, {str(m['created'])[:10]}"
                out.append(f"- [{num[h.path]}] ({who(h.record)}, {str(h.record.created)[:10]}) disagrees with a record "
                           f"not listed ({rival}): {m['body'][:300]}; "
                           + (f"that one stands, as {how}." if m.get("stands") else f"[{num[h.path]}] stands, as {how}."))
                continue
            if m.get("stands"):
                continue
            out.append(f"- [{num[h.path]}] ({who(h.record)}, {str(h.record.created)[:10]}) stands over "
                       f"[{num[m['path']]}] ({AGENTS.get(m['profile'], m['profile'])}, {str(m['created'])[:10]}), "
                       f"as {how}; [{num[m['path']]}] is superseded.")
    if not out:
        return ""
    return ("\n\nRecords that disagree (say so, lead with the one that stands, and name the other as "
            "superseded):\n" + "\n".join(out))


def lint_conflicts(brain, notices: list | None) -> list:
    """For ``aida brain lint``: a problem for each source folded into a record whose words it
    contradicts (``consolidate --split`` restores it); a notice for each pair of records that disagree."""
    from brain_core.store.shelves import Problem

    try:
        folds = wrong_folds(brain)
        conflicts = find_conflicts(brain) if notices is not None else []
    except Exception:  # noqa: BLE001 - a broken catalog is reported by lint itself
        return []
    problems = [Problem(f.path, f"holds {f.source.get('profile') or 'me'}/{f.source.get('key')} as a source, but its "
                                f"words disagree ({f.why}); `aida brain consolidate --split` restores it at "
                                f"{f.restore_to}") for f in folds]
    if notices is not None:
        for c in conflicts:
            first, second = c.sides
            how = "you chose it" if c.chosen else "the newer"
            notices.append(Problem(second.path, f"disagrees with {first.path} ({c.why}); {first.path} stands ({how}); "
                                                "`aida brain consolidate --keep PATH` chooses"))
    return problems


# -- the judge's check of which record stands -------------------------------------------------------------

JUDGE_PROMPT = """Two memory records about one subject disagree. Say which one should stand as what is true now.
Answer with JSON only: {"stands": 1 or 2, "why": "short reason"}.
Prefer the newer record unless the records themselves show that the older one is right."""


@dataclass(frozen=True)
class Check:
    agrees: bool     # the judge agrees that sides[0] stands
    judge: str
    why: str

    def to_json(self) -> dict:
        return {"agrees": self.agrees, "judge": self.judge, "why": self.why}


def check(c: Conflict, llm=None) -> Check:
    """The judge's word on the proposal that ``c.sides[0]`` stands. The user's choice is not judged;
    without an LLM the rule is the dates; an LLM that prefers the other record is reported, and
    nothing changes until the user chooses (``consolidate --keep``)."""
    first, second = c.sides
    if c.chosen:
        return Check(True, "user", "you chose it")
    if llm is None:
        if _age(first.record) == _age(second.record):
            return Check(False, "rules", "both have the same date: choose one with --keep")
        return Check(True, "rules", f"newer ({str(first.record.created)[:10]} after {str(second.record.created)[:10]})")
    from brain_core.errors import ProviderError

    name = f"llm:{getattr(llm, 'name', 'llm')}"
    text = "\n".join(f"{i}. ({who(s.record)}, {s.record.created or 'undated'}): {s.record.body}"
                     for i, s in enumerate(c.sides, 1))
    try:
        answer = llm.complete(JUDGE_PROMPT, text, json=True, max_tokens=200)
        obj = json.loads(answer)
        stands = int(obj.get("stands"))
        why = str(obj.get("why") or "")
    except ProviderError as e:
        return Check(False, name, f"the judge could not be asked ({e}); the newer stands until you choose")
    except (TypeError, ValueError, AttributeError):
        return Check(False, name, "the judge's answer was not {\"stands\": 1|2}; the newer stands until you choose")
    if stands not in (1, 2):
        return Check(False, name, "the judge named neither record; the newer stands until you choose")
    return Check(stands == 1, name, why or ("agrees" if stands == 1 else f"prefers {second.path}"))
