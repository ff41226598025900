"""Link only when sure: whether two statements may say the same thing, word for word.

:mod:`.disagreement` finds a disagreement it can name (an order turned round, a value put in place of
another). What it cannot name still matters, and :func:`unaligned` is the conservative rule behind it:
two texts say the same thing only when every informative word of each is on the other side, bound the
same way. Each helper below reads one way two close texts can still differ (a word said more often, a
name said twice and exchanged, steps in another order, a soft word on one side, one wording edited in a
small word) and says why the two stay two records; none claims a disagreement.
"""

from __future__ import annotations

import re
from typing import Sequence

from brain_core.brain.disagreement import _regrouped_clauses
from brain_core.brain.wording import (
    _FRAME,
    _content,
    _key,
    _near,
    _same,
    _synonym_map,
    _tense,
    every_word,
    literals,
    shape,
)

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
    twice = _said_more(ca, cb, _names(a) | _names(b))
    if twice:  # "X owns A and the payments team owns B" / "X owns A and the payment topics": one word, two roles
        return f"'{twice[0]}' said {twice[1]} times in one, {twice[2]} in the other"
    role = _role_preposition(a, b)
    if role:  # "reviews API changes with the frontend team" / "for the frontend team": another role
        return f"'{role[0]}' in one, '{role[1]}' in the other"
    close = _close_copy_changed(a, b)
    if close:  # "we send the partner a file and the partner sends back a report" / with the parties swapped
        return f"nearly the same wording, with '{close[0]}' for '{close[1]}'"
    small = _small_word_changed(a, b)
    if small:  # "Owen also reviews the docs" / "Owen reviews the docs": a word the checks skip, and it says something
        return f"'{small}' on one side only"
    modal = _modal_changed(a, b)
    if modal:  # "PRs must have a ticket" / "PRs should have a ticket": a rule and a recommendation
        return f"{modal[0]} in one, {modal[1]} in the other"
    steps = _steps_moved(a, b, ca, cb)
    if steps:  # "build, then sign, then push" / "build, then push, then sign": a pipeline is its order
        return f"steps in another order ({steps})"
    again = _repeated_moved(ca, cb, _names(a) | _names(b))
    if again:  # "the EU cluster serves EU customers and the US cluster US customers" / with EU and US swapped
        return f"'{again}' said twice, next to other words"
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


def _said_more(ca: Sequence[str], cb: Sequence[str], names: set[str]) -> tuple[str, int, int] | None:
    """``(word, n, m)``: a word said ``n`` times in one text and ``m`` in the other, when that is a name
    or a number, or when two or more words are so. The same words say one thing only as often as each
    other: "the data team owns the cluster and the payments team owns the payment topics" says "team",
    "owns" and "payment" twice for two owners, "the data team owns the cluster and the payment topics"
    once. One common word said again alone is an ellipsis undone ("staging deploys at 2pm, production
    deploys at 4pm" / "deploy staging at 2pm and production at 4pm")."""
    from collections import Counter

    na, nb = Counter(ca), Counter(cb)
    differ = [w for w in dict.fromkeys([*ca, *cb]) if w not in _COUNTLESS and na[w] != nb[w]]
    for w in differ:
        if w in names or len(differ) >= 2:
            return w, max(na[w], nb[w]), min(na[w], nb[w])
    return None


_ROLE_PREP = re.compile(r"\b(with|for|against|without|alongside|instead of|on behalf of)\s+(?:the\s+|a\s+|an\s+|our\s+)?(\w+)",
                        re.I)


def _role_preposition(a: str, b: str) -> tuple[str, str] | None:
    """The same word after another role-giving preposition ("with the frontend team" / "for the
    frontend team"): prepositions are not compared as words, these few say who does what for whom."""
    pa = {(m.group(2).lower(), m.group(1).lower()) for m in _ROLE_PREP.finditer(a)}
    pb = {(m.group(2).lower(), m.group(1).lower()) for m in _ROLE_PREP.finditer(b)}
    for word, prep in sorted(pa - pb):
        other = next((q for w, q in sorted(pb - pa) if w == word), None)
        if other:
            return f"{prep} {word}", f"{other} {word}"
    return None


CLOSE_COPY = 0.7  # how alike two wordings are, token for token, to count as one wording edited


def _close_copy_changed(a: str, b: str) -> tuple[str, str] | None:
    """Two wordings that are one wording edited (most tokens the same, in order) and differ in a word
    the informative-word comparison skips or cannot place: "we" for "the partner", "on" for "off",
    "<" for ">". What two agents copy and edit says exactly what changed; only articles, "and" and
    punctuation may change freely, and a word only by its inflection or a synonym."""
    from difflib import SequenceMatcher

    ta, tb = list(every_word(a)), list(every_word(b))
    sm = SequenceMatcher(None, ta, tb, autojunk=False)
    if sm.ratio() < CLOSE_COPY:
        return None
    gone: list[tuple[str, ...]] = []  # what each text has that the other has not at that place
    came: list[tuple[str, ...]] = []
    for op, i1, i2, j1, j2 in sm.get_opcodes():
        if op == "equal" or set(ta[i1:i2] + tb[j1:j2]) <= _FRAMING:
            continue  # "we use", "our", "we chose" / "decision:": who says it and how, not what
        if op in ("insert", "delete") and set(ta[i1:i2] + tb[j1:j2]) <= _FIRST and _key("before") in ta + tb:
            continue  # "build first, then test": "then" says it
        if i2 > i1:
            gone.append(tuple(ta[i1:i2]))
        if j2 > j1:
            came.append(tuple(tb[j1:j2]))
    for chunk in [c for c in gone if len(c) >= 2 and c in came]:  # a phrase moved whole ("to PostgreSQL from
        gone.remove(chunk)                                         # MySQL"): its words keep their partners
        came.remove(chunk)
    if gone or came:
        return " ".join(gone[0]) if gone else "-", " ".join(came[0]) if came else "-"
    return None


_FIRST = frozenset(_key(w) for w in ("first", "last"))
_FRAMING = frozenset(_key(w) for w in {*"we our ours its their".split(), *_FRAME})


# words the informative-word comparison skips that still say something when one side has them and the
# other not: another case ("also"), a hedge ("would", "could", "might"), a person ("his", "her")
_SMALL = frozenset("also too just would could might his her hers him he she".split())


def _small_word_changed(a: str, b: str) -> str | None:
    from collections import Counter

    ta = Counter(w for w in re.findall(r"[a-z]+", a.lower()) if w in _SMALL)
    tb = Counter(w for w in re.findall(r"[a-z]+", b.lower()) if w in _SMALL)
    return next((w for w in sorted(set(ta) | set(tb)) if ta[w] != tb[w]), None)


_MUST = re.compile(r"\b(?:must|always|mandatory|have to|has to|required to|is required|are required)\b", re.I)
_SHOULD = re.compile(r"\b(?:should|prefer|prefers|preferred|preferably|recommended|recommend|ideally|usually|"
                     r"generally|typically|normally|mostly|often|sometimes|where possible|if possible)\b", re.I)


def _modal_changed(a: str, b: str) -> tuple[str, str] | None:
    """A soft word ("should", "prefer", "usually") in one text and not in the other: a recommendation
    or a habit is not a rule ("must", "always") and not a statement of what is done ("interviewers
    submit feedback within a day")."""
    ma, mb = _MUST.search(a), _MUST.search(b)
    sa, sb = _SHOULD.search(a), _SHOULD.search(b)
    if sa and not sb:
        return sa.group(0).lower(), mb.group(0).lower() if mb else "no such word"
    if sb and not sa:
        return ma.group(0).lower() if ma else "no such word", sb.group(0).lower()
    return None


_STEP = re.compile(r"->|\u2192|=>|\bthen\b|\bfollowed by\b|\bafter that\b|\bnext\b", re.I)


_ORDERED = re.compile(r"\b(?:steps?|order|sequence|stages?|phases?|pipeline|in turn)\b", re.I)


def _in_order(text: str) -> bool:
    """Whether ``text`` lists three or more steps in order: two or more of "->", "then", "followed by",
    or a list of three or more items after a word that says they are ordered ("steps: a, b, c")."""
    return len(_STEP.findall(text)) >= 2 or bool(_ORDERED.search(text) and text.count(",") >= 2)


def _steps_moved(a: str, b: str, ca: Sequence[str], cb: Sequence[str]) -> str | None:
    """When both texts list three or more steps in order, the words they share in another order: a
    sequence says its order, which sets of words do not."""
    if not (_in_order(a) and _in_order(b)):
        return None
    shared = set(ca) & set(cb)
    oa = [w for w in dict.fromkeys(ca) if w in shared]
    ob = [w for w in dict.fromkeys(cb) if w in shared]
    if oa == ob:
        return None
    i = next(k for k, (x, y) in enumerate(zip(oa, ob)) if x != y)
    return f"{oa[i]} / {ob[i]}"


def _names(text: str) -> set[str]:
    """The canonical forms of ``text``'s names and numbers (capitalised inside a sentence, acronyms,
    words with digits, words the model's vocabulary lacks)."""
    from brain_core.brain.dedupe import terms

    t = terms(text)
    return {_key(w) for w in t.salient if w.isalpha()} | {w for w in _content(text) if any(c.isdigit() for c in w)}


def _repeated_moved(ca: Sequence[str], cb: Sequence[str], names: set[str]) -> str | None:
    """A name or number said more than once in each text, and the names met one after another
    differently ("the EU cluster serves EU customers and the US cluster US customers" / "the EU cluster
    serves US customers and the US cluster EU customers"): the order checks read the words said once, and
    a name said twice binds two things, so which is which is read from the names next to each other (in
    either order, so that two clauses may trade places). Common words said twice ("the unit tests
    before the integration tests") move with their modifiers and are left to those checks."""
    from collections import Counter

    sa, sb = [w for w in ca if w in names], [w for w in cb if w in names]
    said = Counter(sa)
    twice = [w for w, n in said.items() if n >= 2]
    if not twice:
        return None

    def neighbours(seq: list[str]) -> Counter:
        return Counter(frozenset((x, y)) for x, y in zip(seq, seq[1:]))

    return twice[0] if neighbours(sa) != neighbours(sb) else None


_COUNTLESS = frozenset({"every", "to", "from"})  # said again by the readings above ("nightly": every night)


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
