"""When two statements say opposite things: the order and the contrast that bind their words.

Two statements can share every name, number and word and still disagree: "Siobhan reviews Tomasz's
pull requests" / "Tomasz reviews Siobhan's", "from MySQL to PostgreSQL" / "from PostgreSQL to MySQL",
"staging at 2pm, production at 4pm" / the reverse, "Use Redis, not Memcached" / "Use Memcached,
not Redis". Compared as sets of words they are the same; :func:`disagreement` looks at the order
and the contrast that bind them, and :func:`brain_core.brain.dedupe.compare` treats what it finds as a
conflict, so such a pair is never folded into one record, nor collapsed in an answer.

What it cannot name still keeps two texts apart: :func:`unaligned` (below) says "not sure" when an
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
from dataclasses import dataclass
from functools import lru_cache
from typing import Sequence

_TOKEN = re.compile(r"\d+[-\u2013]\d+(?=\b)|[^\W_](?:(?:[\w'./+#-]|(?<=\d):(?=\d))*[^\W_])?", re.UNICODE)
_SENTENCE = re.compile(r"[.;!?]+(?=\s|$)|[;\n]|\s[-\u2013\u2014]\s")
_SEGMENT = re.compile(r"[,:()\[\]]|\b(?:and|but|while|whereas)\b", re.I)
# what is rejected: up to three words after the marker, not past a binding word
_OBJECT = r"((?:\s+(?!(?:to|into|onto|with|for|by|and|but|in|on|at|when|because)\b)(?:the\s+|a\s+|an\s+)?[\w'./+#-]+){1,3})"
_REJECT = re.compile(r"(?:[,;(]\s*(?:and\s+|but\s+)?not\b|\bbut\s+not\b|\binstead\s+of\b|\b(?:rather|better)\s+than\b"
                     r"|\bin\s+place\s+of\b|\bno\s+longer\b|\bnot\s+anymore\b|\bnever\s+again\b"
                     r"|\b(?:switch|migrat|mov(?:e|es|ed|ing)\b)\w*\b[^.;!?\n]*?\b(?:from|off)\b"
                     r"|\b(?:away|off)\s+from\b|\breplac(?:e|es|ed|ing)\b(?!\s+by)(?:\s+the)?)" + _OBJECT, re.I)
_SAID_NOT = re.compile(r"[,;(]\s*(?:and\s+|but\s+)?not\b|but\s+not\b|instead\b|rather\b|better\b|in\s+place\b|no\s+longer"
                       r"|not\s+anymore|never\s+again", re.I)
# "the v1 endpoint is replaced by v2": what comes before is rejected
_REPLACED_BY = re.compile(r"((?:[\w'./+#-]+\s+){1,2})(?:is|was|are|were|be|been|gets|got)\s+(?:being\s+)?replaced\s+by\b",
                          re.I)
_PREFER_OVER = re.compile(r"(?:\b(?:prefer\w*|chose|choose|chosen|pick\w*|favou?r\w*)\b|\w:\s)[^.;!?\n]*?\bover\b"
                          + _OBJECT, re.I)  # "rule: composition over inheritance" says the choice too
_BUT_NOT = re.compile(r"\bbut\s+not\b((?:\s+(?:the\s+|a\s+|an\s+)?[\w'./+#-]+){1,3})", re.I)  # "but not in transit"
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
SWAP_OTHER_WORDS = 0  # other words a swap may come with and still be named (:func:`_swap_only`)
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
    # rejected in so many words (", not X", "X instead of", "rather than", "no longer"), not by a choice's
    # or a move's verb ("prefer A over B", "replaced by", "moved from"), which another text may leave unsaid
    contrasted: frozenset = frozenset()


_ARROW = re.compile(r"\s*(?:-+>|=+>|\u2192|\u27f6|\u21d2|\u2794)\s*")


def arrows(text: str) -> str:
    """An arrow read as the words it stands for: "Auth: cookies -> JWTs" is "Auth: from cookies to
    JWTs" (the "from" where the arrow's clause begins), so the order and contrast checks read its
    direction as they read the words; "up to 3 times" is "at most 3 times", no direction."""
    text = re.sub(r"\bup\s+to\b(?=\s+\d)", "at most", text, flags=re.I)
    out, last = [], 0
    for m in _ARROW.finditer(text):
        head = text[last:m.start()]
        cut = max(head.rfind(c) for c in ",:;(")
        if "from" not in head[cut + 1:].lower().split():
            head = head[:cut + 1] + " from " + head[cut + 1:].lstrip()
        out.append(head + " to ")
        last = m.end()
    return "".join(out) + text[last:]


@lru_cache(maxsize=32768)
def shape(text: str) -> Shape:
    from brain_core.brain.dedupe import _vocab
    from brain_core.recall.hybrid import STOPWORDS

    text = _OWNED_ROLE.sub(r"\1 \3 \2", arrows(text or ""))  # "Owen is Siobhan's mentor": Owen mentors Siobhan
    text = spelled_out(_paired_list(text))
    vocab = _vocab()
    rejected_spans = [(m.start(1), m.end(1)) for m in _REJECT.finditer(text)]
    but_not = [(m.start(1), m.end(1)) for m in _BUT_NOT.finditer(text)]
    rejected_spans += but_not
    said_not = [(m.start(1), m.end(1)) for m in _REJECT.finditer(text) if _SAID_NOT.match(m.group(0))] + but_not
    rejected_spans += [(m.start(1), m.end(1)) for m in _PREFER_OVER.finditer(text)]
    rejected_spans += [(m.start(1), m.end(1)) for m in _REPLACED_BY.finditer(text)]
    seg_marks = [m.start() for m in _SEGMENT.finditer(text)]
    toks: list[Tok] = []
    rejected: set[str] = set()
    contrasted: set[str] = set()
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
            c = ("before" if low == "then" else low) if low in BINDERS else _canon(_SYNONYM_HEAD.get(low, raw))
            # "X, then Y": X before Y; "db" / "database", "relies" / "depends": one word
            if re.fullmatch(r"\d{1,2}(?::\d\d)?[ap]m|\d{1,2}:\d\d", low):
                c = clock(low).strip()  # "2am" / "02:00": one time, still said as written
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
                if any(a <= m.start() < b for a, b in said_not):
                    contrasted.add(c)
            else:
                affirmed.add(c)
        start = end
    sentences: dict[int, list[str]] = {}
    for t in toks:
        sentences.setdefault(t.sent, []).append(t.canon)
    return Shape(tuple(toks), tuple(tuple(v) for v in sentences.values()), frozenset(rejected - affirmed),
                 frozenset(affirmed - rejected), spelled, frozenset(contrasted - affirmed))


def _by_sentence(sh: Shape) -> list[list[Tok]]:
    out: dict[int, list[Tok]] = {}
    for t in sh.toks:
        out.setdefault(t.sent, []).append(t)
    return list(out.values())


def _by_clause(sh: Shape) -> list[list[Tok]]:
    out: dict[tuple[int, int], list[Tok]] = {}
    for t in sh.toks:
        out.setdefault((t.sent, t.seg), []).append(t)
    return list(out.values())


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


def _regrouped(sa: Shape, sb: Shape) -> tuple[str, str, str] | None:
    """``(t, x, y)``: a word said once in each text whose sentence holds ``x`` (and not ``y``) in one and
    ``y`` (and not ``x``) in the other, all three said once in each ("The payments team is on call this
    week; the platform team next week" / the teams swapped): the sentences were not only split or
    joined, their words changed partners."""
    def once(sh: Shape) -> dict[str, int]:
        counts: dict[str, int] = {}
        for t in sh.toks:
            counts[t.canon] = counts.get(t.canon, 0) + 1
        return {t.canon: t.sent for t in sh.toks if counts[t.canon] == 1 and not t.binder}

    oa, ob = once(sa), once(sb)
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
    # / "the frontend team gets its mockups from the design team")
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
        counts: dict[str, int] = {}
        for t in sh.toks:
            counts[t.canon] = counts.get(t.canon, 0) + 1
        clause_of = {w: i for i, c in enumerate(_clauses(sh)) for w in c}
        return {w: clause_of[w] for w, n in counts.items() if n == 1 and w in clause_of}

    oa, ob = once(sa), once(sb)
    if len(set(oa.values())) < 2 or len(set(ob.values())) < 2:
        return None
    common = sorted(set(oa) & set(ob))
    for t in common:
        with_a = {u for u in common if u != t and oa[u] == oa[t]}
        with_b = {u for u in common if u != t and ob[u] == ob[t]}
        lost, gained = sorted(with_a - with_b), sorted(with_b - with_a)
        if lost and gained:
            return t, lost[0], gained[0]
    return None



_LABEL = re.compile(r"\w:\s")
_LITERAL = re.compile(r"[^\s,;()\[\]\"'`]*(?:[\w<>][/\\_@=:]+[\w<>]|\w\.\w)[^\s,;()\[\]\"'`]*")


def literals(text: str) -> set[str]:
    """What ``text`` writes as one run of characters with a path's, an identifier's or an address's
    separators ("feature/<ticket-id>", "snake_case", "api.staging.internal"), lower case."""
    found = {m.group(0).rstrip(".:!?").lower() for m in _LITERAL.finditer(text or "")}
    return {x for x in found if re.search(r"[a-z]", x) and not re.fullmatch(r"(?:[a-z]\.)+[a-z]?", x)}  # "e.g."


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


_DASH = re.compile(r"\s[-\u2013\u2014]\s")


def _paired_list(text: str) -> str:
    """A list of pairs written with dashes ("Helm charts - Owen, Grafana dashboards - Tomasz") read with
    its dashes as the links inside each item, not as breaks between sentences."""
    out = []
    for part in re.split(r"(?<=[.;!?\n])", text):
        if len(_DASH.findall(part)) >= 2 and "," in part:
            part = _DASH.sub(" : ", part)
        out.append(part)
    return "".join(out)


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


# -- content alignment: link only when every informative word of each side is on the other ------------------
#
# The checks above find a disagreement they can name. What they cannot name still matters: "owned by the
# payments team" / "owned by the platform team", "every night" / "every 6 hours", "reports to" / "manages",
# "in front of" / "behind". :func:`unaligned` is the conservative rule behind them: two texts say the same
# thing only when every informative word of each (names, numbers, times, nouns, adjectives, verbs, the
# words of place, time and direction) is on the other side too, after inflections, a few spellings of one
# word ("db" / "database", "nightly" / "every night", "2pm" / "14:00") and a few frames that say nothing
# themselves ("use X", "prefer X over Y", "X is handled by Y"). A word on one side only, or a word the
# other side rejects, means "not sure": the records stay two.

# words that carry no claim of their own: articles, pronouns, the copula and auxiliaries, "and", the
# prepositions that only attach ("support for Europe" / "European support", "Kotlin on Android" /
# "Kotlin for Android")
_FUNCTION = frozenset("""
a an the this that these those it its they them their theirs we us our ours you your yours i my me he him his she
her hers one's is are was were be been being am has have had having do does did doing will would shall and also
as of for in on at with which who whom whose there here just s t ll ve re d m so both
""".split())
# frames that say "this is the choice" or "this is the rule" without adding to what is chosen
_FRAME = frozenset("""
user use uses used using prefer prefers preferred preferring choose chooses chose chosen pick picks picked go goes went
decide decides decided decision rule rules policy convention note always now currently should must please
""".split())
# the words of a contrast ("X, not Y", "X rather than Y", "X instead of Y", "X over Y" after a choice):
# they say nothing once the rejected words of both sides are the same
_CONTRAST_WORDS = frozenset("not instead rather than place over".split())
# copulas and auxiliaries before a participle: "is approved by X" turns "X approves" round (order checks above)
_PASSIVE_AUX = frozenset("is are was were be been being get gets got".split())
# one meaning, several spellings (each group's first word is the one kept)
_SYNONYMS = (
    ("every", "each", "per"), ("before", "then"), ("database", "databases", "db", "dbs"),
    ("repository", "repositories", "repo", "repos"), ("documentation", "docs", "doc"),
    ("production", "prod"), ("environment", "environments", "env", "envs"),
    ("configuration", "config", "configs"), ("depend", "depends", "depended", "rely", "relies", "relied"),
    ("require", "requires", "required", "need", "needs", "needed"), ("own", "owns", "owned", "belong",
                                                                      "belongs", "belonged"),
    ("minute", "minutes", "min", "mins"), ("second", "seconds", "sec", "secs"), ("hour", "hours", "hr", "hrs", "h"),
    ("millisecond", "milliseconds", "ms"), ("day", "days"), ("week", "weeks"), ("month", "months"),
    ("year", "years", "annual", "annually", "yearly"), ("begin", "begins", "began", "start", "starts", "started"),
    ("large", "big"), ("small", "little"), ("fast", "quick"), ("larger", "bigger"),
    ("faster", "quicker"), ("via", "through"), ("because", "since"), ("to", "into"),
)
# for the order checks, the same word in the same order only: "X owns Y" is "Y belongs to X", turned round
# ("start" keeps its name there, the opposite of "stop")
_SYNONYM_HEAD = {w: g[0] for g in _SYNONYMS for w in g[1:]
                 if g[0] not in BINDERS and w not in BINDERS and g[0] != "own"
                 and not any(x.startswith(o) for x in g for pair in OPPOSITES for o in pair)}
# irregular forms of common verbs, so "written" meets "write" and "led" meets "lead"
_IRREGULAR = {"goes": "go", "written": "write", "wrote": "write", "led": "lead", "shown": "show", "took": "take", "taken": "take",
              "ran": "run", "went": "go", "gone": "go", "got": "get", "gotten": "get", "gave": "give", "given": "give",
              "made": "make", "kept": "keep", "held": "hold", "built": "build", "sent": "send", "spent": "spend",
              "left": "leave", "met": "meet", "paid": "pay", "read": "read", "run": "run", "sat": "sit",
              "set": "set", "told": "tell", "thought": "think", "brought": "bring", "bought": "buy",
              "caught": "catch", "chose": "choose", "chosen": "choose", "began": "begin", "begun": "begin",
              "broke": "break", "broken": "break", "drove": "drive", "driven": "drive", "fell": "fall",
              "found": "find", "froze": "freeze", "frozen": "freeze", "grew": "grow", "grown": "grow", "hid": "hide",
              "hidden": "hide", "knew": "know", "known": "know", "lost": "lose", "meant": "mean", "rode": "ride",
              "rose": "rise", "saw": "see", "seen": "see", "sold": "sell", "shut": "shut", "stood": "stand",
              "taught": "teach", "understood": "understand", "woke": "wake", "won": "win", "wound": "wind"}
# "to" after these is the infinitive's ("decided to keep"), not a direction
_INFINITIVE_BEFORE = frozenset("need needs needed want wants wanted decide decides decided choose chose chosen prefer "
                               "prefers preferred have has had ought going used try tries tried plan plans "
                               "planned agree agreed".split())
_PERIODS = frozenset("second minute hour day week month year".split())
_ADVERB_EVERY = {"nightly": "night", "daily": "day", "weekly": "week", "monthly": "month", "hourly": "hour",
                 "yearly": "year", "annually": "year", "quarterly": "quarter"}
_ABBREVIATIONS = {"pr": ("pull", "request"), "prs": ("pull", "request"), "mr": ("merge", "request")}
_WEEKDAYS = ("monday tuesday wednesday thursday friday saturday sunday").split()
_MONTH_NAMES = ("january february march april may june july august september october november december").split()
_TIME = re.compile(r"\b(\d{1,2})(?:[:.](\d{2}))?\s*([ap])\.?m\.?(?![\w])|\b(\d{1,2}):(\d{2})\b", re.I)
_UNIT_GLUED = re.compile(r"\b(\d+(?:\.\d+)?)(ms|s|m|h|d|w|kb|mb|gb|tb|k)\b", re.I)
_UNITS = {"ms": "millisecond", "s": "second", "m": "minute", "h": "hour", "d": "day", "w": "week"}
_ABBREVIATED = re.compile(r"\b(" + "|".join(_ABBREVIATIONS) + r")\b", re.I)


def spelled_out(text: str) -> str:
    """``text`` with a unit glued to its number apart ("48h": "48 hour") and a few abbreviations in full
    ("PR": "pull request"), so that both checks, of words and of order, read them as the words they are."""
    text = _UNIT_GLUED.sub(lambda m: f"{m.group(1)} {_UNITS.get(m.group(2).lower(), m.group(2).lower())}", text)
    return _ABBREVIATED.sub(lambda m: " ".join(_ABBREVIATIONS[m.group(1).lower()]), text)


_INFLECTIONS = ("ingly", "edly", "ings", "ing", "ies", "ied", "es", "ed", "s", "ly")
# endings that make a noun or adjective of a word and leave its meaning ("approval" / "approve", "migration"
# / "migrate", "reviewer" / "review", "European" / "Europe"); "international" keeps "-nation", and "-ion"
# goes only after "-at", "-et", "-ut", "-it" (the verbs in "-ate", "-ete", "-ute", "-ite")
_DERIVATIONS = ("ion", "ment", "al", "er", "or", "ian", "an", "ity", "ance", "ence", "ic")


def _lemma(w: str) -> str:
    """``w`` without its inflection: "ships"/"shipping"/"shipped" -> "ship", "copies"/"copied" -> "copy"."""
    w = _IRREGULAR.get(w, w)
    if not w.isalpha():
        return w
    for suf in _INFLECTIONS:
        if w.endswith(suf) and len(w) - len(suf) >= 3:
            if suf in ("ies", "ied"):
                w = w[:-3] + "y"
            elif suf == "es" and not w[:-2].endswith(("s", "x", "z", "ch", "sh")):
                w = w[:-1]  # "handles": handle
            elif not (suf == "s" and w.endswith(("ss", "us", "is"))):
                w = w[:-len(suf)]
            break
    if len(w) > 3 and w[-1] == w[-2] and w[-1] not in "aeiouslz":
        w = w[:-1]  # "shipp": ship
    return w[:-1] if len(w) > 3 and w.endswith("e") else w


def _key(w: str) -> str:
    """What ``w`` (lower case) is compared by: one word of a synonym group, else its lemma without a
    derivational ending."""
    got = _synonym_map().get(w)
    return got if got is not None else _root(w)


@lru_cache(maxsize=65536)
def _root(w: str) -> str:
    stem = _lemma(w)
    if stem.endswith("y") and len(stem) >= 7:
        stem = stem[:-1]  # "allergy" / "allergic"
    for suf in _DERIVATIONS:
        if suf == "ion" and not stem[:-3].endswith(("at", "et", "ut", "it")):
            continue  # "migration" / "migrate", but "production" is no "product"
        if stem.endswith(suf) and len(stem) - len(suf) >= 3:
            stem = stem[:-len(suf)]
            return stem[:-1] if stem.endswith("e") else stem
    return stem


@lru_cache(maxsize=1)
def _synonym_map() -> dict[str, str]:
    out: dict[str, str] = {}
    for group in _SYNONYMS:
        head = _root(group[0])
        for w in group:
            out[w] = head
            out[_root(w)] = head
    return out


def _time(m: re.Match) -> str:
    if m.group(4):
        return f" {int(m.group(4)):02d}:{m.group(5)} "
    hour = int(m.group(1)) % 12 + (12 if m.group(3).lower() == "p" else 0)
    return f" {hour:02d}:{m.group(2) or '00'} "


def clock(text: str) -> str:
    """``text`` with its times of day written one way: "2pm", "2 p.m." and "14:00" all as "14:00"."""
    text = _TIME.sub(_time, text or "")
    text = re.sub(r"\bnoon\b", " 12:00 ", text, flags=re.I)
    return re.sub(r"\bmidnight\b", " 00:00 ", text, flags=re.I)


@lru_cache(maxsize=32768)
def _content(text: str) -> tuple[str, ...]:
    """The informative words of ``text`` in order, each as its canonical form."""
    return tuple(_content_words(text))


def _content_words(text: str) -> list[str]:
    text = spelled_out(clock(arrows(text)))
    text = re.sub(r",?\s*(?:and\s+)?not\s+the\s+other\s+way\s+a?round\b|,?\s*rather\s+than\s+the\s+reverse\b", "",
                  text, flags=re.I)  # what the sentence says already
    text = re.sub(r"\b(run|runs|running|ran)\s+on\b", "uses", text, flags=re.I)  # "runs on Redis": uses Redis
    contrast = bool(shape(text).rejected)
    spans = [(m.group(0), m.start()) for m in _TOKEN.finditer(text)]
    raws = [r for r, _ in spans]
    breaks = [m.end() for m in _SENTENCE.finditer(text)]
    out: list[str] = []
    passive = belong = -1  # the sentence in which a passive "by" / a "belongs to" was seen
    for i, (raw, at) in enumerate(spans):
        sent = sum(1 for b in breaks if b <= at)
        low = raw.lower().strip("'.-")
        if low.endswith("'s"):
            low = low[:-2]
        low = _IRREGULAR.get(low, low)
        nxt = raws[i + 1].lower() if i + 1 < len(raws) else ""
        if low == "used" and nxt == "to" and i + 2 < len(raws) and raws[i + 2].lower() not in ("be", "the", "a"):
            out.append("formerly")  # "we used to deploy on Fridays": no longer so
            continue
        if low in ("will", "shall", "won't", "shan't") or (low == "going" and nxt == "to"):
            out.append("will")  # a plan is not yet a fact
            continue
        if low in ("a", "an") and i + 1 < len(raws) and _key(raws[i + 1].lower()) in {_key(p) for p in _PERIODS}:
            out.append("every")  # "100 requests a minute": per minute
            continue
        if not low or low in _FUNCTION or low in _FRAME or (contrast and low in _CONTRAST_WORDS):
            continue
        prev = raws[i - 1].lower() if i else ""
        if low == "by" and (prev in _PASSIVE_AUX or prev in _IRREGULAR or re.search(r"(?:ed|en|wn)$", prev)
                            or passive == sent):
            passive = sent
            continue  # "approved by Tomasz" (and "..., the Warsaw team by Tomasz"): the passive, whose order the checks above read
        if low == "to" and (_key(prev) == _key("own") or belong == sent):
            belong = sent
            continue  # "belongs to X" (and "..., the billing service to Owen"): X owns it
        if low == "to" and prev in _INFINITIVE_BEFORE:
            continue
        if low in ("number", "no", "#") and i + 1 < len(raws) and raws[i + 1].isdigit():
            continue  # "fact number 2": fact 2
        if low in _ADVERB_EVERY:
            out += ["every", _ADVERB_EVERY[low]]
            continue
        if low in _ABBREVIATIONS:
            out += list(_ABBREVIATIONS[low])
            continue
        if low.endswith("s") and low[:-1] in _WEEKDAYS:  # "Mondays": every Monday
            out += ["every", low[:-1]]
            continue
        if len(low) >= 3 and any(m.startswith(low) for m in _MONTH_NAMES) and (low in _MONTH_NAMES or len(low) == 3) \
                and raw[:1].isupper():
            out.append(next(m for m in _MONTH_NAMES if m.startswith(low)))
            continue
        if re.fullmatch(r"\d+(?:,\d{3})+", low):
            low = low.replace(",", "")
        if re.fullmatch(r"\d+[-\u2013]\d+", low):  # "3-6": 3 to 6
            lo, hi = re.split(r"[-\u2013]", low)
            out += [lo, "to", hi]
            continue
        out.append(low if re.search(r"\d", low) else _key(low))
    return out


_PAST = frozenset("was were had".split())
_PRESENT = frozenset("is are am has have".split())


def _tense(text: str) -> set:
    """"past" and/or "present", for the copulas and "has"/"had" that ``text`` says."""
    out = set()
    for m in _TOKEN.finditer(text or ""):
        low = m.group(0).lower()
        if low in _PAST:
            out.add("past")
        elif low in _PRESENT:
            out.add("present")
    return out


def _same(a: str, b: str) -> bool:
    return a == b


def _near(a: str, b: str) -> bool:
    """For the light stems of :func:`shape`: equal, or their first five letters."""
    return a == b or (a.isalpha() and b.isalpha() and min(len(a), len(b)) >= 5 and a[:5] == b[:5])


def unaligned(a: str, b: str) -> str | None:
    """Why ``a`` and ``b`` may not say the same thing: an informative word on one side only, or a
    different choice rejected; None when every word of each is on the other side."""
    ca, cb = _content(a), _content(b)
    only_a = [w for w in dict.fromkeys(ca) if not any(_same(w, o) for o in cb)]
    only_b = [w for w in dict.fromkeys(cb) if not any(_same(w, o) for o in ca)]
    if "to" in ca and "to" in cb:  # "from MySQL to PostgreSQL" / "MySQL to PostgreSQL": the "to" says it
        only_a, only_b = [w for w in only_a if w != "from"], [w for w in only_b if w != "from"]
    for mine, seq in ((only_a, ca), (only_b, cb)):  # "A runs first, before B": "before" says it
        if _key("first") in mine and _key("before") in seq:
            mine.remove(_key("first"))
        if _key("last") in mine and _key("after") in seq:
            mine.remove(_key("last"))
    if only_a or only_b:
        return f"words on one side only ({', '.join(only_a[:3]) or '-'} / {', '.join(only_b[:3]) or '-'})"
    focus = _focus_moved(ca, cb)
    if focus:  # "Only maintainers can merge" / "Maintainers can only merge": it binds the word after it
        return f"'{focus[0]}' on another word ({focus[1]} / {focus[2]})"
    la, lb = literals(a), literals(b)
    if la != lb:  # "feature/<ticket-id>" / "feature ticket-id": a path or a name is what is written
        return f"a literal written otherwise ({', '.join(sorted(la - lb)[:2]) or '-'} / {', '.join(sorted(lb - la)[:2]) or '-'})"
    moved = _regrouped_clauses(shape(a), shape(b))
    if moved:  # "PRs on hosted runners; main on self-hosted ones" / "main on hosted, PRs on self-hosted"
        return f"words grouped otherwise ({moved[0]} with {moved[1]} in one, with {moved[2]} in the other)"
    ta, tb = _tense(a), _tense(b)
    if len(ta) == len(tb) == 1 and ta != tb:
        return f"another tense ({', '.join(ta)} / {', '.join(tb)})"  # "Owen was the lead" / "Owen is the lead"
    syn = _synonym_map()
    ra = {syn.get(w, w) for w in shape(a).rejected}
    rb = {syn.get(w, w) for w in shape(b).rejected}
    if any(not any(_near(w, o) for o in rb) for w in ra) or any(not any(_near(w, o) for o in ra) for w in rb):
        return "not the same words rejected"
    return None


_FOCUS = ("only", "even", "except", "just")


def _focus_moved(ca: Sequence[str], cb: Sequence[str]) -> tuple[str, str, str] | None:
    """``(focus, x, y)``: a focus word said once in each text ("only", "even", "except", "just") and
    followed by ``x`` in one and ``y`` in the other."""
    for f in _FOCUS:
        k = _key(f)
        if list(ca).count(k) == 1 and list(cb).count(k) == 1:
            i, j = list(ca).index(k), list(cb).index(k)
            x = ca[i + 1] if i + 1 < len(ca) else ""
            y = cb[j + 1] if j + 1 < len(cb) else ""
            if x != y:
                return f, x or "-", y or "-"
    return None


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
    value = any(ch.isdigit() for w in mid_a + mid_b for ch in w)  # "every night" / "every 6 hours"
    modifier = len(mid_a) == len(mid_b) == 1 and i > 0 and j > 0 and ca[len(ca) - j].isalpha() and \
        ca[len(ca) - j] not in BINDERS  # "the payments team" / "the platform team": another owner
    if not (value or modifier):
        return None  # "runs" / "starts": maybe only another verb for it (unaligned says: not sure)
    return " ".join(_spelled(a, w) for w in mid_a), " ".join(_spelled(b, w) for w in mid_b)


def _spelled(text: str, w: str) -> str:
    """The word of ``text`` whose canonical form is ``w``, as written (``w`` itself when none is)."""
    for m in _TOKEN.finditer(text or ""):
        raw = m.group(0)
        low = raw.lower().strip("'.-")
        low = low[:-2] if low.endswith("'s") else low
        if low == w or _key(low) == w:
            return raw[:-2] if raw.endswith("'s") else raw
    return w
