"""When two statements say opposite things: the order and the contrast that bind their words.

Two statements can share every name, number and word and still disagree: "Siobhan reviews Tomasz's
pull requests" / "Tomasz reviews Siobhan's", "from MySQL to PostgreSQL" / "from PostgreSQL to MySQL",
"staging at 2pm, production at 4pm" / the reverse, "Use Redis, not Memcached" / "Use Memcached,
not Redis". Compared as sets of words they are the same; :func:`disagreement` looks at the order
and the contrast that bind them, and :func:`brain_core.brain.dedupe.compare` treats what it finds as a
conflict, so such a pair is never folded into one record, nor collapsed in an answer.

What it cannot name still keeps two texts apart: :func:`brain_core.brain.alignment.unaligned` says "not sure" when an
informative word of one is not on the other side ("the payments team" / "the platform team", "every
night" / "every 6 hours", "reports to" / "manages"), and :func:`substitution` calls a word or two put in
place of others, all else the same, a disagreement.

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
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Sequence

from brain_core.brain.wording import (
    BINDERS,
    OPPOSITES,
    Shape,
    Tok,
    _by_clause,
    _by_sentence,
    _content,
    _same,
    _spelled,
    literals,
    shape,
)

SWAP_OTHER_WORDS = 0  # other words a swap may come with and still be named (:func:`_swap_only`)
SEGMENT_GAP = 10  # a word in the next clause counts as this many words further away


def _reversal(ta: Sequence[Tok], tb: Sequence[Tok], shared: set, names: set,
              mixed: bool = False, free: bool = False) -> tuple[str, str, str, bool] | None:
    """``(x, w, y, turned)`` with ``x .. w .. y`` in ``sa`` and ``y .. w .. x`` in ``sb`` (never the other way
    too): ``x`` and ``y`` two names or two other words (with ``mixed``, one of each), ``w`` said once in
    each and not a passive ("is reviewed by", which turns a sentence round without changing it); a name and a
    common word only as two words before one noun ("the SRE team" / "the platform team"), unless ``free``
    (the caller knows the two texts are one wording but for a swap); ``turned``
    when one side is the passive and the words keep their order."""
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

    def head(toks, pos, t) -> str | None:
        i = pos[t][0]
        return toks[i + 1].canon if i + 1 < len(toks) else None

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
        if w in names or w not in once:  # a word said twice sits between anything and anything
            continue
        turned = passive(sa, pa[w]) != passive(sb, pb[w])  # "X reviews Y" / "Y is reviewed by X"
        for x in once:
            if x == w or x in BINDERS:
                continue
            for y in once:
                if y in (x, w) or y in BINDERS or (((x in names) != (y in names)) != mixed):
                    continue
                if mixed and not free and not (head(ta, pa, x) and head(ta, pa, x) == head(ta, pa, y) == head(tb, pb, x)
                                  == head(tb, pb, y)):
                    continue  # a name and a common word: only as two words before one noun ("the SRE team")
                if turned:
                    if between(pa, x, w, y) and between(pb, x, w, y) and not clause_moved(x, w, y):
                        return x, w, y, True
                elif between(pa, x, w, y) and between(pb, y, w, x) and not clause_moved(x, w, y):
                    return x, w, y, False
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
    counts = _counts(sh)
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


def _regrouped(sa: Shape, sb: Shape) -> tuple[str, str, str] | None:
    """``(t, x, y)``: a word said once in each text whose sentence holds ``x`` (and not ``y``) in one and
    ``y`` (and not ``x``) in the other, all three said once in each ("The payments team is on call this
    week; the platform team next week" / the teams swapped): the sentences were not only split or
    joined, their words changed partners."""
    def once(sh: Shape) -> dict[str, int]:
        counts = _counts(sh)
        return {t.canon: t.sent for t in sh.toks if counts[t.canon] == 1 and not t.binder}

    return _partner_changed(once(sa), once(sb))


def _counts(sh: Shape) -> dict[str, int]:
    counts: dict[str, int] = {}
    for t in sh.toks:
        counts[t.canon] = counts.get(t.canon, 0) + 1
    return counts


def _partner_changed(oa: dict[str, int], ob: dict[str, int]) -> tuple[str, str, str] | None:
    """``(t, x, y)``: a word of both group maps (word -> its group) whose group holds ``x`` (and not
    ``y``) in one and ``y`` (and not ``x``) in the other."""
    common = sorted(set(oa) & set(ob))
    for t in common:
        with_a = {u for u in common if u != t and oa[u] == oa[t]}
        with_b = {u for u in common if u != t and ob[u] == ob[t]}
        lost, gained = sorted(with_a - with_b), sorted(with_b - with_a)
        if lost and gained:
            return t, lost[0], gained[0]
    return None


def _converse(sa: Shape, sb: Shape, p: str, q: str) -> bool:
    """Whether the opposite words ``p`` / ``q`` come with their sides swapped ("migrations before the
    API" / "the API after the migrations"; "the replica replicates from the primary" / "the primary
    replicates to the replica"): the nearest shared word before the one is after the other, and the
    nearest after it before."""
    if q in {t.canon for t in sa.toks}:
        p, q = q, p
    ca, cb = [t.canon for t in sa.toks if not t.binder or t.canon in (p, q)], [t.canon for t in sb.toks if not t.binder or t.canon in (p, q)]
    shared = (set(ca) & set(cb)) - {p, q}
    if ca.count(p) != 1 or cb.count(q) != 1:
        return False
    i, j = ca.index(p), cb.index(q)
    before = next((w for w in reversed(ca[:i]) if w in shared and cb.count(w) == 1), None)
    after = next((w for w in ca[i + 1:] if w in shared and cb.count(w) == 1), None)
    if before is None or after is None:
        return False
    if cb.index(before) > j and cb.index(after) < j:
        return True
    # or two other words said once that change sides ("the design team hands mockups to the frontend team"
    # / "the frontend team gets its mockups from the design team"), and no name that stays on its side
    # ("the primary in us-east-1 replicates to the replica in eu-west-1" / "the replica in us-east-1
    # replicates from the primary in eu-west-1": the regions stayed, so they changed partners)
    once = [w for w in shared if ca.count(w) == 1 and cb.count(w) == 1]
    crossed_back = [w for w in once if ca.index(w) < i and cb.index(w) > j]
    crossed_on = [w for w in once if ca.index(w) > i and cb.index(w) < j]
    names = {t.canon for t in sa.toks + sb.toks if t.name}
    stayed = [w for w in once if w in names and (ca.index(w) < i) == (cb.index(w) < j)]
    return bool(crossed_back and crossed_on) and not stayed


def _clauses(sh: Shape) -> list[set[str]]:
    """The words of each clause of ``sh``; a clause of one word (a list's item: "Siobhan and Owen
    review") joins the clause after it, or the one before when it is the last."""
    groups = [{t.canon for t in c if not t.binder} for c in _by_clause(sh)]
    out: list[set[str]] = []
    carry: set[str] = set()
    for g in groups:
        g = g | carry
        carry = set()
        if len(g) < 2:
            carry = g
            continue
        out.append(g)
    if carry:
        if out:
            out[-1] |= carry
        else:
            out.append(carry)
    return out


def _regrouped_clauses(sa: Shape, sb: Shape) -> tuple[str, str, str] | None:
    """As :func:`_regrouped`, clause by clause: a word said once in each text whose clause holds ``x``
    (and not ``y``) in one and ``y`` (and not ``x``) in the other. Clauses are also split and joined by
    a true rewording, so this is a doubt, never a named disagreement."""
    def once(sh: Shape) -> dict[str, int]:
        clause_of = {w: i for i, c in enumerate(_clauses(sh)) for w in c}
        return {w: clause_of[w] for w, n in _counts(sh).items() if n == 1 and w in clause_of}

    oa, ob = once(sa), once(sb)
    if len(set(oa.values())) < 2 or len(set(ob.values())) < 2:
        return None
    return _partner_changed(oa, ob)



_LABEL = re.compile(r"\w:\s")


def literal_turned(a: str, b: str) -> tuple[str, str] | None:
    """A literal of one text written with the same parts in another order in the other ("feature/<ticket-id>"
    / "<ticket-id>/feature"): as a path or a name, another value, though every word is on both sides."""
    la, lb = literals(a), literals(b)
    for x in sorted(la - lb):
        px = re.findall(r"[a-z0-9]+", x)
        for y in sorted(lb - la):
            py = re.findall(r"[a-z0-9]+", y)
            if len(px) > 1 and px != py and sorted(px) == sorted(py):
                return x, y
    return None


def _reversals(sa: Shape, sb: Shape, shared: set, names: set, mixed: bool,
               free: bool = False) -> tuple[str, tuple] | None:
    """The first :func:`_reversal` sentence by sentence ("reversal"), else clause by clause ("clause-reversal":
    a word said twice in a sentence, once in each clause, "the cache sits in front of the database, so
    reads hit the cache first")."""
    for check, split in (("reversal", _by_sentence), ("clause-reversal", _by_clause)):
        for x in split(sa):
            for y in split(sb):
                found = _reversal(x, y, shared, names, mixed, free)
                if found:
                    return check, found
    return None


def _exchanged(at_a: dict, at_b: dict, w: str) -> bool:
    """Whether ``w``'s partner in each text goes with another word that changed partners the other way
    ("logs in Loki, metrics in Prometheus" / "logs in Prometheus, metrics in Loki"): an exchange, which no
    rewording makes. A word said once that serves two clauses ("the importer reads CSV and writes
    Parquet") seems to change partners alone."""
    return any(o != w and at_a.get(o) == at_b[w] and at_b.get(o) == at_a[w] for o in set(at_a) & set(at_b))


def _once_in_order(sh: Shape, other: Shape) -> list[str]:
    """The words of ``sh`` said as many times in ``other``, in ``sh``'s order."""
    def counts(x: Shape) -> dict[str, int]:
        out: dict[str, int] = {}
        for t in x.toks:
            out[t.canon] = out.get(t.canon, 0) + 1
        return out

    mine, theirs = counts(sh), counts(other)
    return [t.canon for t in sh.toks if mine[t.canon] == theirs.get(t.canon)]


def _swap_only(a: str, b: str, most: int = SWAP_OTHER_WORDS) -> bool:
    """Whether ``a`` and ``b`` are one wording but for two runs of words swapped (:func:`_one_swap`), with
    at most ``most`` other informative words of each not on the other side: "X sits in front of Y" / "Y
    sits behind X" swaps its two sides too, and says the same."""
    ca, cb = set(_content(a)), set(_content(b))
    if len(ca - cb) > most or len(cb - ca) > most:
        return False
    sa, sb = shape(a), shape(b)
    if _one_swap(_once_in_order(sa, sb), _once_in_order(sb, sa)):
        return True
    # or a sentence of each, as a run of words ("Search depends on indexing: the search team relies on the
    # indexing team." / "The indexing team depends on the search team.")
    units_a = [sa.toks] + _by_sentence(sa) + _by_clause(sa)
    units_b = [sb.toks] + _by_sentence(sb) + _by_clause(sb)
    return any(_one_swap([t.canon for t in x], [t.canon for t in y]) for x in units_a for y in units_b
               if len(x) == len(y) >= 3)


def _one_swap(a: Sequence[str], b: Sequence[str]) -> bool:
    """Whether ``b`` is ``a`` with two runs of its words exchanged (or two words, wherever they are), all else in place ("Siobhan reviews
    Tomasz's pull requests" / "Tomasz reviews Siobhan's pull requests"; "from MySQL to PostgreSQL" / "from
    PostgreSQL to MySQL"): a swap and nothing else. A clause put first, adjectives in another order, a
    terse note against a sentence move more than that."""
    if len(a) != len(b) or list(a) == list(b):
        return False
    pairs = {(x, y) for x, y in zip(a, b) if x != y}
    if len(pairs) == 2 and all((y, x) in pairs for x, y in pairs):
        return True  # two words exchanged wherever they are ("the cache in front of the database, so reads hit
        # the cache first" / the database in front of the cache ...)
    if sorted(a) != sorted(b):
        return False
    i = 0
    while a[i] == b[i]:
        i += 1
    end = len(a)
    while a[end - 1] == b[end - 1]:
        end -= 1
    mid_a, mid_b = list(a[i:end]), list(b[i:end])
    n = len(mid_a)
    for j in range(1, n):          # mid_a = X M Y (X = mid_a[:j], Y = mid_a[k:]), mid_b = Y M X
        for k in range(j, n):
            if mid_b == mid_a[k:] + mid_a[j:k] + mid_a[:j]:
                return True
    return False


def disagreement(a: str, b: str) -> str | None:
    """Why ``a`` and ``b`` do not say the same thing although they share their words, or None."""
    got = named_disagreement(a, b)
    return got[1] if got else None


@lru_cache(maxsize=32768)
def named_disagreement(a: str, b: str) -> tuple[str, str, bool] | None:
    """:func:`disagreement` with the check that found it and whether it is sure: ``(check, why, sure)``,
    the check one of "literal", "flipped", "opposites", "names", "sequence", "local", "owner", "objects", "reversal",
    "clause-reversal", "attached", "regrouped", "substitution". A check of order (a reversal, a word that
    goes with another name, a binding word's object) is sure only when the two texts are one wording
    but for the swap (:func:`_one_swap`), or two words exchanged partners (:func:`_exchanged`); else the
    words were moved by a rewording as well as, maybe, by a disagreement. The first sure finding is the
    answer (a doubt of one check does not stop the next from naming what it is sure of), else the first
    doubt: two records, no claim."""
    doubt = None
    for found in _findings(a, b):
        if found[2]:
            return found
        doubt = doubt or found
    return doubt


def _findings(a: str, b: str):
    """Each ``(check, why, sure)`` of :func:`named_disagreement`, in the order the checks run."""
    turned = literal_turned(a, b)
    if turned:
        yield "literal", f"{turned[0]} in one, {turned[1]} in the other", True
    sa, sb = shape(a), shape(b)
    say = {**sb.spelled, **sa.spelled}.get
    flipped = sorted((sa.affirmed & sb.rejected) | (sa.rejected & sb.affirmed))
    if flipped:
        # named when both reject something (a contrast turned round), or one says "not" in so many words;
        # one side's "X over Y" may be a choice the other writes without its marker ("composition over
        # inheritance"): a doubt
        yield "flipped", f"one rejects what the other affirms ({', '.join(say(t, t) for t in flipped[:3])})", \
            bool(sa.rejected and sb.rejected) or bool(set(flipped) & (sa.contrasted | sb.contrasted))
    words_a = {t.canon for t in sa.toks}
    words_b = {t.canon for t in sb.toks}
    for p, q in OPPOSITES:
        if (p in words_a and q not in words_a and q in words_b and p not in words_b) or \
                (q in words_a and p not in words_a and p in words_b and q not in words_b):
            if not _converse(sa, sb, p, q):
                yield "opposites", f"opposite words ({say(p, p)} / {say(q, q)})", True
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
        yield "names", f"different names ({', '.join(say(t, t) for t in left)} / {', '.join(say(t, t) for t in right)})", True
    seq_a, seq_b = [t for t in sa.toks], [t for t in sb.toks]
    if len(seq_a) == len(seq_b):
        diff = [(x, y) for x, y in zip(seq_a, seq_b) if x.canon != y.canon]
        if diff and all(x.canon not in words_b and y.canon not in words_a for x, y in diff) and all((x.name or x.initial or x.unknown) and (y.name or y.initial or y.unknown) for x, y in diff):
            yield "sequence", f"{diff[0][0].raw} in one, {diff[0][1].raw} in the other", True
    swap = _local_substitution(sa, sb, words_a, words_b, strong)
    if swap:
        yield "local", f"{swap[0]} in one, {swap[1]} in the other", True
    shared = words_a & words_b
    own_a = {t.canon for t in sa.toks if t.owner} & shared & names
    own_b = {t.canon for t in sb.toks if t.owner} & shared & names
    if own_a and own_b and own_a != own_b:
        yield "owner", f"another owner ({', '.join(say(t, t) for t in sorted(own_a))}'s / " \
               f"{', '.join(say(t, t) for t in sorted(own_b))}'s)", True
    obj_a, obj_b = _objects(sa), _objects(sb)
    for w in sorted(set(obj_a) & set(obj_b)):
        if obj_a[w] != obj_b[w] and obj_a[w] in shared and obj_b[w] in shared and (
                obj_a[w] in obj_b.values() or obj_b[w] in obj_a.values()
                or (obj_a[w] not in _after(sb, w) and obj_b[w] not in _after(sa, w))):
            yield "objects", f"{w} {say(obj_a[w], obj_a[w])} in one, {w} {say(obj_b[w], obj_b[w])} in the other", \
                _exchanged(obj_a, obj_b, w) or _swap_only(a, b)
    lined = _swap_only(a, b)
    # a label ("Primary color: #1E40AF", "Maintainers: Helm charts - Owen") is no subject, and a note has no
    # verb to turn round: "X: Y" / "Y as X" and "charts - Owen" / "charts maintained by Owen" swap nothing
    labelled = bool(_LABEL.search(a) or _LABEL.search(b))
    found = _reversals(sa, sb, shared, names, False)
    if found:
        check, (x, w, y, turned) = found
        x, w, y = say(x, x), say(w, w), say(y, y)
        yield check, f"the same words in another order ({x} .. {w} .. {y} / {y} .. {w} .. {x})", \
            (turned and not labelled) or lined
    shared_names = names & shared
    if len(shared_names) >= 2:
        at_a, at_b = _attached(sa, shared_names), _attached(sb, shared_names)
        for w in sorted(set(at_a) & set(at_b) & shared):
            if at_a[w] != at_b[w]:
                yield "attached", f"{say(w, w)!r} goes with {say(at_a[w], at_a[w])} in one and with " \
                       f"{say(at_b[w], at_b[w])} in the other", _exchanged(at_a, at_b, w) or lined
    moved = _regrouped(sa, sb)
    if moved:
        t, x, y = (say(w, w) for w in moved)
        yield "regrouped", f"{t!r} goes with {x} in one and with {y} in the other", True
    # a name and a common word swapped ("the platform team" / "the SRE team", "Kafka feeds the warehouse" /
    # "the warehouse feeds Kafka"): named only as a swap and no more, and not in a note
    free = lined and not labelled
    found = _reversals(sa, sb, shared, names, True, free)
    if found:
        check, (x, w, y, _) = found
        x, w, y = say(x, x), say(w, w), say(y, y)
        yield check, f"the same words in another order ({x} .. {w} .. {y} / {y} .. {w} .. {x})", lined
    sub = substitution(a, b)
    if sub:
        yield "substitution", sub, True


def minimal_pair(a: str, b: str, most: int = 2) -> bool:
    """Whether ``a`` and ``b`` are worded alike enough to call a difference between them a
    disagreement: at most ``most`` informative words of each are not on the other side (the words that
    changed). Two wordings further apart ("Deploy order: migrations, then API" / "Run the migrations
    before deploying the API") may differ in a check's eyes and still say one thing: a doubt, not a
    conflict."""
    ca, cb = set(_content(a)), set(_content(b))  # a word said again adds nothing to tell apart
    return len(ca - cb) <= most and len(cb - ca) <= most


def substitution(a: str, b: str) -> str | None:
    """One or two informative words of ``a`` put in place of others in ``b``, all else the same and in
    the same order ("owned by the payments team" / "by the platform team", "every night" / "every 6
    hours", "reports to" / "manages"): a changed value, so a disagreement, not a doubt."""
    got = substituted(a, b)
    return f"{got[0]} in one, {got[1]} in the other" if got else None


_UNITS = "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen " \
         "seventeen eighteen nineteen".split()
_TENS = {"twenty": 20, "thirty": 30, "forty": 40, "fifty": 50, "sixty": 60, "seventy": 70, "eighty": 80, "ninety": 90,
         "hundred": 100}
_SAME_SMALL = [{"not", "don't", "dont", "doesn't", "do"}, {"without", "no"}, {"when", "if", "whenever"},
               {"can", "may"}]


def _number_of(w: str) -> int | None:
    w = w.lower()
    if w.isdigit():
        return int(w)
    if w in _UNITS:
        return _UNITS.index(w)
    return _TENS.get(w)


def _one_word_two_spellings(mid_a: Sequence[str], mid_b: Sequence[str]) -> bool:
    """One word each side that is one word written two ways: a number in digits and in words, British
    and American spelling ("-ise"/"-ize", "-our"/"-or"), or two small words for one thing ("without" /
    "no")."""
    if len(mid_a) != 1 or len(mid_b) != 1:
        return False
    x, y = mid_a[0].lower(), mid_b[0].lower()
    nx, ny = _number_of(x), _number_of(y)
    if nx is not None and nx == ny:
        return True
    if x.replace("is", "iz") == y.replace("is", "iz") or x.replace("our", "or") == y.replace("our", "or"):
        return True
    return any(x in g and y in g for g in _SAME_SMALL)


def substituted(a: str, b: str) -> tuple[str, str] | None:
    """The words of :func:`substitution`, as each text writes them ("payments", "platform")."""
    ca, cb = _content(a), _content(b)
    i = 0
    while i < min(len(ca), len(cb)) and _same(ca[i], cb[i]):
        i += 1
    j = 0
    while j < min(len(ca), len(cb)) - i and _same(ca[-1 - j], cb[-1 - j]):
        j += 1
    mid_a, mid_b = ca[i:len(ca) - j], cb[i:len(cb) - j]
    if not (mid_a and mid_b) or len(mid_a) > 2 or len(mid_b) > 2 or i + j == 0:
        return None
    if any(_same(w, o) for w in mid_a for o in cb) or any(_same(w, o) for w in mid_b for o in ca):
        return None
    if _one_word_two_spellings(mid_a, mid_b):
        return None  # "eight" / "8", "materialised" / "materialized", "don't" / "not": not another value
    value = any(ch.isdigit() for w in mid_a + mid_b for ch in w)  # "every night" / "every 6 hours"
    modifier = len(mid_a) == len(mid_b) == 1 and i > 0 and j > 0 and ca[len(ca) - j].isalpha() and \
        ca[len(ca) - j] not in BINDERS  # "the payments team" / "the platform team": another owner
    if not (value or modifier):
        return None  # "runs" / "starts": maybe only another verb for it (unaligned says: not sure)
    return " ".join(_spelled(a, w) for w in mid_a), " ".join(_spelled(b, w) for w in mid_b)
