"""When two records say opposite things: the order of what a statement says, and conflicts kept.

Two statements can share every name, number and word and still disagree: "Alice reviews Bob's
pull requests" / "Bob reviews Alice's", "from MySQL to PostgreSQL" / "from PostgreSQL to MySQL",
"staging at 2pm, production at 4pm" / the reverse, "Use Redis, not Memcached" / "Use Memcached,
not Redis". Compared as sets of words they are the same; :func:`disagreement` looks at the order
and the contrast that bind them, and :func:`brain_core.brain.dedupe.compare` treats what it finds as a
conflict, so such a pair is never folded into one record, nor collapsed in an answer.

It finds three things, in this order:

- **contrast reversed**: a word one side affirms and the other rejects, where a rejection is what
  follows ", not" (or "and not", "but not"), "instead of", "rather than", "in place of" and "no
  longer", up to the end of its clause;
- **order reversed**: two words in the same sentence of both, with a third shared word between them,
  on its one side in one text and on its other side in the other (``X reviews Y`` / ``Y reviews X``,
  ``X to Y`` / ``Y to X``, ``2pm ... production ... 4pm`` / ``4pm ... production ... 2pm``);
- **moved between sentences**: a word that is in the sentence of a name or number in one text and
  in the sentence of another name or number in the other (``Staging deploys at 2pm. Production at
  4pm.`` / the reverse).

When in doubt it says they differ: a true rewording that turns a sentence around ("PostgreSQL
replaced MySQL" / "MySQL was replaced by PostgreSQL") is then kept as two records, which lint,
consolidate and the answers still show side by side; a false merge would hide one of them.

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
from functools import lru_cache
from pathlib import Path
from typing import Any, Sequence

_TOKEN = re.compile(r"\d+[-\u2013]\d+(?=\b)|[^\W_](?:(?:[\w'./+#-]|(?<=\d):(?=\d))*[^\W_])?", re.UNICODE)
_SENTENCE = re.compile(r"[.;!?]+(?=\s|$)|[;\n]|\s[-\u2013\u2014]\s")
_SEGMENT = re.compile(r"[,:()\[\]]|\b(?:and|but|while|whereas)\b", re.I)
# what is rejected: up to three words after the marker, not past a binding word
_OBJECT = r"((?:\s+(?!(?:to|into|onto|with|for|by|and|but|in|on|at|when|because)\b)(?:the\s+|a\s+|an\s+)?[\w'./+#-]+){1,3})"
_REJECT = re.compile(r"(?:[,;(]\s*(?:and\s+|but\s+)?not\b|\binstead\s+of\b|\b(?:rather|better)\s+than\b"
                     r"|\bin\s+place\s+of\b|\bno\s+longer\b|\bnot\s+anymore\b|\bnever\s+again\b"
                     r"|\b(?:switch|migrat)\w*\b[^.;,!?\n]*?\b(?:from|off)\b"
                     r"|\b(?:away|off)\s+from\b|\breplac(?:e|es|ed|ing)\b(?!\s+by)(?:\s+the)?)" + _OBJECT, re.I)
# "the v1 endpoint is replaced by v2": what comes before is rejected
_REPLACED_BY = re.compile(r"((?:[\w'./+#-]+\s+){1,2})(?:is|was|are|were|be|been|gets|got)\s+(?:being\s+)?replaced\s+by\b",
                          re.I)
_PREFER_OVER = re.compile(r"\b(?:prefer\w*|chose|choose|chosen|pick\w*|favou?r\w*)\b[^.;!?\n]*?\bover\b" + _OBJECT,
                          re.I)
_OWNED_ROLE = re.compile(r"\b([^\W\d_][\w-]*)\s+(?:is|was|are|were)\s+([^\W\d_][\w-]*)'s\s+([a-z][\w-]*)\b")
BINDERS = frozenset("on from to into onto before after over under than by then above below against vs versus "
                    "instead rather until".split())
OPPOSITES = (("before", "after"), ("from", "to"), ("above", "below"), ("over", "under"), ("first", "last"),
             ("earlier", "later"), ("more", "less"), ("higher", "lower"), ("upgrade", "downgra"),
             ("enable", "disabl"), ("allow", "deny"), ("start", "stop"), ("minimu", "maximu"), ("min", "max"),
             ("increa", "decrea"), ("faster", "slower"), ("add", "remove"), ("open", "close"))
_DROP = frozenset("a an the".split())
_NUMBER_WORDS = {w: str(i) for i, w in enumerate(
    "zero one two three four five six seven eight nine ten eleven twelve".split())}
SEGMENT_GAP = 10  # a word in the next clause counts as this many words further away


_SUFFIXES = ("ingly", "ings", "ing", "edly", "ed", "ions", "ion", "ments", "ment", "ers", "er", "ies", "es", "s",
             "al")


def _canon(w: str) -> str:
    """A light stem, so "ships"/"shipping", "approves"/"approval", "handled"/"handles" meet."""
    w = w.lower().strip("'.-")
    if w in _NUMBER_WORDS:
        return _NUMBER_WORDS[w]
    if w.endswith("'s"):
        w = w[:-2]
    if not w.isalpha():
        return w
    for suf in _SUFFIXES:
        if w.endswith(suf) and len(w) - len(suf) >= 3:
            w = w[:-len(suf)]
            break
    if len(w) > 3 and w[-1] == w[-2] and w[-1] not in "aeiousl":
        w = w[:-1]
    if len(w) > 3 and w.endswith("e"):
        w = w[:-1]
    return w[:6]


@dataclass(frozen=True)
class Tok:
    canon: str
    sent: int
    seg: int
    pos: int
    raw: str
    name: bool      # capitalised inside a sentence, with a digit or a number word
    initial: bool   # capitalised at the start of a sentence (may be a name, may not)
    binder: bool
    unknown: bool   # capitalised, and a word the model's vocabulary lacks (how names such as "Siobhan" look)
    owner: bool     # written with 's


@dataclass(frozen=True)
class Shape:
    """A text's tokens in order, sentence by sentence, and what it affirms and rejects."""

    toks: tuple
    sentences: tuple[tuple[str, ...], ...]
    rejected: frozenset
    affirmed: frozenset
    spelled: dict        # token -> the word as first written


@lru_cache(maxsize=32768)
def shape(text: str) -> Shape:
    from brain_core.brain.dedupe import _vocab
    from brain_core.recall.hybrid import STOPWORDS

    text = _OWNED_ROLE.sub(r"\1 \3 \2", text or "")  # "Owen is Siobhan's mentor": Owen mentors Siobhan
    vocab = _vocab()
    rejected_spans = [(m.start(1), m.end(1)) for m in _REJECT.finditer(text)]
    rejected_spans += [(m.start(1), m.end(1)) for m in _PREFER_OVER.finditer(text)]
    rejected_spans += [(m.start(1), m.end(1)) for m in _REPLACED_BY.finditer(text)]
    seg_marks = [m.start() for m in _SEGMENT.finditer(text)]
    toks: list[Tok] = []
    rejected: set[str] = set()
    affirmed: set[str] = set()
    spelled: dict[str, str] = {}
    start = 0
    bounds = [m.end() for m in _SENTENCE.finditer(text)] + [len(text)]
    for sent, end in enumerate(bounds):
        first = True
        for m in _TOKEN.finditer(text, start, end):
            raw = m.group(0)
            if re.fullmatch(r"\d+[-\u2013]\d+", raw):  # "3-6": 3 to 6
                raw = re.split(r"[-\u2013]", raw)[0]
            low = raw.lower()
            initial = first
            first = False
            if low in _DROP or (low in STOPWORDS and low not in BINDERS):
                continue
            c = ("before" if low == "then" else low) if low in BINDERS else _canon(raw)  # "X, then Y": X before Y
            if not c:
                continue
            binder = low in BINDERS
            word = raw[:-2] if raw.endswith("'s") else raw
            capital = raw[:1].isupper()
            name = not binder and (any(ch.isdigit() for ch in raw) or low in _NUMBER_WORDS
                                   or (capital and not initial))
            unknown = capital and bool(vocab) and word.isalpha() and not binder and not any(
                v in vocab for v in (word.lower(), c, c + "e", c + "s", c + "ing", c + "ion"))
            seg = sum(1 for x in seg_marks if x < m.start())
            toks.append(Tok(c, sent, seg, len(toks), word, name, capital and initial, binder, unknown,
                            raw.endswith("'s")))
            spelled.setdefault(c, word)
            if binder:
                continue
            if any(a <= m.start() < b for a, b in rejected_spans):
                rejected.add(c)
            else:
                affirmed.add(c)
        start = end
    sentences: dict[int, list[str]] = {}
    for t in toks:
        sentences.setdefault(t.sent, []).append(t.canon)
    return Shape(tuple(toks), tuple(tuple(v) for v in sentences.values()), frozenset(rejected - affirmed),
                 frozenset(affirmed - rejected), spelled)


def _by_sentence(sh: Shape) -> list[list[Tok]]:
    out: dict[int, list[Tok]] = {}
    for t in sh.toks:
        out.setdefault(t.sent, []).append(t)
    return list(out.values())


def _reversal(ta: Sequence[Tok], tb: Sequence[Tok], shared: set, names: set) -> tuple[str, str, str] | None:
    """``(x, w, y)`` with ``x .. w .. y`` in ``sa`` and ``y .. w .. x`` in ``sb`` (never the other way too):
    ``x`` and ``y`` two names or two other words, ``w`` said once in each and not a passive ("is
    reviewed by", which turns a sentence round without changing it)."""
    sa, sb = [t.canon for t in ta], [t.canon for t in tb]
    pa: dict[str, list[int]] = {}
    pb: dict[str, list[int]] = {}
    for i, t in enumerate(sa):
        if t in shared:
            pa.setdefault(t, []).append(i)
    for i, t in enumerate(sb):
        if t in shared:
            pb.setdefault(t, []).append(i)
    common = [t for t in pa if t in pb]
    if len(common) < 3:
        return None

    def passive(seq, pos) -> bool:
        return any(j + 1 < len(seq) and seq[j + 1] == "by" for j in pos)

    def between(pos, x, w, y) -> bool:
        return any(i < j < k for i in pos[x] for j in pos[w] for k in pos[y])

    once = {t for t in common if len(pa[t]) == 1 and len(pb[t]) == 1}

    def seg(toks, pos, t):
        return toks[pos[t][0]].seg

    def clause_moved(x, w, y) -> bool:
        """x or y never in w's clause: a clause put first ("Before X, run Y"), not a role swapped."""
        if w in BINDERS:
            return False
        x_with = seg(ta, pa, x) == seg(ta, pa, w) or seg(tb, pb, x) == seg(tb, pb, w)
        y_with = seg(ta, pa, y) == seg(ta, pa, w) or seg(tb, pb, y) == seg(tb, pb, w)
        return not (x_with and y_with)
    for w in common:
        if w in names or (w not in BINDERS and w not in once):
            continue
        turned = passive(sa, pa[w]) != passive(sb, pb[w])  # "X reviews Y" / "Y is reviewed by X"
        for x in once:
            if x == w or x in BINDERS:
                continue
            for y in once:
                if y in (x, w) or y in BINDERS or ((x in names) != (y in names)):
                    continue
                if turned:
                    if between(pa, x, w, y) and between(pb, x, w, y) and not clause_moved(x, w, y):
                        return x, w, y
                elif between(pa, x, w, y) and between(pb, y, w, x) and not clause_moved(x, w, y):
                    return x, w, y
    return None


def _local_substitution(sa: Shape, sb: Shape, words_a: set, words_b: set, strong: set) -> tuple[str, str] | None:
    """A capitalised word in one text where the other has another capitalised word, next to the same
    word ("the Austin office" / "the Denver office"), one of them a name for sure."""
    def around(sh: Shape, theirs: set) -> dict[str, tuple[set, str]]:
        out = {}
        toks = sh.toks
        for i, t in enumerate(toks):
            if t.binder or not (t.name or t.initial or t.unknown) or any(
                    t.canon == o or (min(len(t.canon), len(o)) >= 5 and t.canon[:5] == o[:5]) for o in theirs):
                continue
            near = {o.canon for o in (toks[i - 1] if i else None, toks[i + 1] if i + 1 < len(toks) else None)
                    if o is not None and o.sent == t.sent and o.canon in theirs}
            out[t.canon] = (near, t.raw)
        return out

    xa, xb = around(sa, words_b), around(sb, words_a)
    for x, (near_x, raw_x) in xa.items():
        for y, (near_y, raw_y) in xb.items():
            if (x in strong or y in strong) and near_x & near_y:
                return raw_x, raw_y
    return None


def _after(sh: Shape, w: str, n: int = 2) -> set:
    """The ``n`` words after the binding word ``w`` (said once) in its sentence."""
    toks = sh.toks
    for i, t in enumerate(toks):
        if t.canon == w:
            return {o.canon for o in toks[i + 1:i + 1 + n] if o.sent == t.sent}
    return set()


def _objects(sh: Shape) -> dict[str, str]:
    """What each binding word said once binds: the next word after it in its sentence."""
    out: dict[str, str] = {}
    seen: dict[str, int] = {}
    toks = sh.toks
    for i, t in enumerate(toks):
        if not t.binder:
            continue
        seen[t.canon] = seen.get(t.canon, 0) + 1
        nxt = next((o for o in toks[i + 1:] if not o.binder), None)
        if nxt is not None and nxt.sent == t.sent:
            out[t.canon] = nxt.canon
    return {w: o for w, o in out.items() if seen[w] == 1}


def _attached(sh: Shape, names: set) -> dict[str, str]:
    """Each word's name: for a name, the nearest other name in its sentence (a clause away counts
    :data:`SEGMENT_GAP` words); for a word said once, the one name in its clause. Ties: none."""
    out: dict[str, str] = {}
    counts: dict[str, int] = {}
    for t in sh.toks:
        counts[t.canon] = counts.get(t.canon, 0) + 1
    for t in sh.toks:
        if t.binder or counts[t.canon] != 1:
            continue
        if t.canon in names:  # the one other name of its clause, else of its sentence
            cands = [(0, o.canon) for o in sh.toks
                     if o.sent == t.sent and o.seg == t.seg and o.canon in names and o.canon != t.canon]
            if not cands:
                cands = [(0, o.canon) for o in sh.toks if o.sent == t.sent and o.canon in names and o.canon != t.canon]
            if len({c for _, c in cands}) != 1:
                continue
        else:  # the one name of its clause, else of its sentence
            cands = [(0, o.canon) for o in sh.toks if o.sent == t.sent and o.seg == t.seg and o.canon in names]
            if not cands:
                cands = [(0, o.canon) for o in sh.toks if o.sent == t.sent and o.canon in names]
            if len({c for _, c in cands}) != 1:
                continue
        if not cands:
            continue
        cands.sort()
        if len(cands) > 1 and cands[0][0] == cands[1][0] and cands[0][1] != cands[1][1]:
            continue
        out[t.canon] = cands[0][1]
    return out


@lru_cache(maxsize=32768)
def disagreement(a: str, b: str) -> str | None:
    """Why ``a`` and ``b`` do not say the same thing although they share their words, or None."""
    sa, sb = shape(a), shape(b)
    say = {**sb.spelled, **sa.spelled}.get
    flipped = sorted((sa.affirmed & sb.rejected) | (sa.rejected & sb.affirmed))
    if flipped:
        return f"one rejects what the other affirms ({', '.join(say(t, t) for t in flipped[:3])})"
    words_a = {t.canon for t in sa.toks}
    words_b = {t.canon for t in sb.toks}
    for p, q in OPPOSITES:
        if (p in words_a and q not in words_a and q in words_b and p not in words_b) or \
                (q in words_a and p not in words_a and p in words_b and q not in words_b):
            return f"opposite words ({say(p, p)} / {say(q, q)})"
    lower = {t.canon for t in sa.toks + sb.toks if not t.name and not t.initial}
    names = {t.canon for t in sa.toks + sb.toks if t.name}
    names |= ({t.canon for t in sa.toks + sb.toks if t.unknown}
              | ({t.canon for t in sa.toks if t.initial} & {t.canon for t in sb.toks if t.initial})) - lower

    def unmatched(mine, theirs):
        return {w for w in mine if not any(w == o or (min(len(w), len(o)) >= 5 and w[:5] == o[:5]) for o in theirs)}

    only_a = unmatched({t.canon for t in sa.toks if not t.binder}, words_b)
    only_b = unmatched({t.canon for t in sb.toks if not t.binder}, words_a)
    caps_a = {t.canon for t in sa.toks if t.name or t.unknown}
    caps_b = {t.canon for t in sb.toks if t.name or t.unknown}
    strong = {t.canon for t in sa.toks + sb.toks if t.name}
    named_a, named_b = only_a & names, only_b & names
    if (named_a & strong and only_b & caps_b) or (named_b & strong and only_a & caps_a):
        left = sorted(named_a or (only_a & caps_a))
        right = sorted(named_b or (only_b & caps_b))
        return f"different names ({', '.join(say(t, t) for t in left)} / {', '.join(say(t, t) for t in right)})"
    seq_a, seq_b = [t for t in sa.toks], [t for t in sb.toks]
    if len(seq_a) == len(seq_b):
        diff = [(x, y) for x, y in zip(seq_a, seq_b) if x.canon != y.canon]
        if diff and all(x.canon not in words_b and y.canon not in words_a for x, y in diff) and all((x.name or x.initial or x.unknown) and (y.name or y.initial or y.unknown) for x, y in diff):
            return f"{diff[0][0].raw} in one, {diff[0][1].raw} in the other"
    swap = _local_substitution(sa, sb, words_a, words_b, strong)
    if swap:
        return f"{swap[0]} in one, {swap[1]} in the other"
    shared = words_a & words_b
    own_a = {t.canon for t in sa.toks if t.owner} & shared & names
    own_b = {t.canon for t in sb.toks if t.owner} & shared & names
    if own_a and own_b and own_a != own_b:
        return f"another owner ({', '.join(say(t, t) for t in sorted(own_a))}'s / " \
               f"{', '.join(say(t, t) for t in sorted(own_b))}'s)"
    obj_a, obj_b = _objects(sa), _objects(sb)
    for w in sorted(set(obj_a) & set(obj_b)):
        if obj_a[w] != obj_b[w] and obj_a[w] in shared and obj_b[w] in shared and (
                obj_a[w] in obj_b.values() or obj_b[w] in obj_a.values()
                or (obj_a[w] not in _after(sb, w) and obj_b[w] not in _after(sa, w))):
            return f"{w} {say(obj_a[w], obj_a[w])} in one, {w} {say(obj_b[w], obj_b[w])} in the other"
    for x in _by_sentence(sa):
        for y in _by_sentence(sb):
            found = _reversal(x, y, shared, names)
            if found:
                x, w, y = (say(t, t) for t in found)
                return f"the same words in another order ({x} .. {w} .. {y} / {y} .. {w} .. {x})"
    shared_names = names & shared
    if len(shared_names) >= 2:
        at_a, at_b = _attached(sa, shared_names), _attached(sb, shared_names)
        for w in sorted(set(at_a) & set(at_b) & shared):
            if at_a[w] != at_b[w]:
                return f"{say(w, w)!r} goes with {say(at_a[w], at_a[w])} in one and with {say(at_b[w], at_b[w])} " \
                       "in the other"
    return None



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
    import numpy as np

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
    from brain_core.brain.dedupe import COSINE

    for start in range(0, len(docs), 512):
        sims = vecs[start:start + 512] @ vecs.T
        for r in range(sims.shape[0]):
            i = start + r
            row = sims[r]
            row[i] = -1.0
            above = np.flatnonzero(row >= max(COSINE, NEAR) - 1e-6)
            if len(above) > neighbours:
                above = above[np.argpartition(-row[above], neighbours)[:neighbours]]
            for j in above.tolist():
                consider(min(i, j), max(i, j), False)
    return sorted(found.values(), key=lambda c: c.paths)


def choose(brain, keep: str) -> Conflict:
    """The user's choice: the record at ``keep`` stands over the records it disagrees with. Written
    in its file (``chosen_over``), so answers lead with it; nothing is merged or moved."""
    from brain_core.config.machine import require_writer
    from brain_core.errors import InvalidInput
    from brain_core.records import now_iso
    from brain_core.store.fsutil import atomic_write_bytes

    require_writer(brain.config, "consolidate records")
    mine = [c for c in find_conflicts(brain) if keep in c.paths]
    if not mine:
        raise InvalidInput(f"{keep} is not part of a listed conflict; run `aida brain lint` to see them.")
    with brain.lock():
        brain.git.ensure_writable()
        rec = brain.get(keep)
        others = [c.sides[1].path if c.sides[0].path == keep else c.sides[0].path for c in mine]
        kept = [c for c in (rec.extra.get(CHOSEN) or []) if isinstance(c, dict) and c.get("path") not in others]
        rec.extra[CHOSEN] = kept + [{"path": p, "at": now_iso()} for p in others]
        touched = [keep]
        data = rec.to_json().encode("utf-8")
        atomic_write_bytes(brain.root / keep, data)
        brain.index.upsert_file(keep, data)
        for p in others:  # a choice the other way round, made earlier, no longer holds
            other = brain.get(p)
            if keep in chosen_over(other):
                other.extra[CHOSEN] = [c for c in other.extra[CHOSEN] if c.get("path") != keep]
                if not other.extra[CHOSEN]:
                    other.extra.pop(CHOSEN)
                data = other.to_json().encode("utf-8")
                atomic_write_bytes(brain.root / p, data)
                brain.index.upsert_file(p, data)
                touched.append(p)
        brain.git.commit(touched, f"consolidate: keep {keep} over {', '.join(others)}")
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
    """What ``rec`` says that ``other`` does not, short: its own names ("Redis"), else its first sentence."""
    from brain_core.text.words import first_sentence

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
    from brain_core.store.fsutil import atomic_write_bytes

    folds = wrong_folds(brain)
    if dry_run or not folds:
        return [(f, "would restore") for f in folds]
    require_writer(brain.config, "split records")
    done: list[tuple[Fold, str]] = []
    with brain.lock():
        brain.git.ensure_writable()
        touched: list[str] = []
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
                (brain.root / target).parent.mkdir(parents=True, exist_ok=True)
                data = rec.to_json().encode("utf-8")
                atomic_write_bytes(brain.root / target, data)
                brain.index.upsert_file(target, data)
                touched.append(target)
                what = "restored"
            holder.extra["sources"] = [x for x in holder.extra.get("sources", []) if x is not s and x != s]
            if not holder.extra["sources"]:
                holder.extra.pop("sources")
            if s.get("id") in holder.provenance:
                holder.provenance = [p for p in holder.provenance if p != s.get("id")]
            done.append((f, what))
        for path, holder in holders.items():
            data = holder.to_json().encode("utf-8")
            atomic_write_bytes(brain.root / path, data)
            brain.index.upsert_file(path, data)
            touched.append(path)
        if touched:
            n = sum(1 for _, w in done if w == "restored")
            brain.git.commit(touched, f"consolidate --split: {n} record(s) folded into others restored at their keys")
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
