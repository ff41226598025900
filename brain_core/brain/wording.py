"""How the disagreement checks read a statement: its tokens in order, sentence by sentence and clause
by clause, what it affirms and rejects (``shape``), and its informative words in a canonical form
(``_content``: inflections, derivations, a few spellings of one word, times, units and arrows read as
the words they stand for), with the small tables these readings need. brain/disagreement.py compares
two statements through them."""
from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

_TOKEN = re.compile(r"\d+[-\u2013]\d+(?=\b)|[^\W_](?:(?:[\w'./+#-]|(?<=\d):(?=\d))*[^\W_])?", re.UNICODE)
_SENTENCE = re.compile(r"[.;!?]+(?=\s|$)|[;\n]|\s[-\u2013\u2014]\s")
_SEGMENT = re.compile(r"[,:()\[\]]|\b(?:and|but|while|whereas)\b", re.I)
# what is rejected: up to three words after the marker, not past a binding word
_OBJECT = r"((?:\s+(?:in|on|at|by|for|with|into|onto|from)(?=\s))?" \
          r"(?:\s+(?!(?:to|into|onto|with|for|by|and|but|in|on|at|when|because)\b)(?:the\s+|a\s+|an\s+)?[\w'./+#-]+){1,3})"
# (a preposition may open what is rejected: "stored in tests/fixtures/, not in tests/data/", "by schema, not by database")
_REJECT = re.compile(r"(?:[,;(]\s*(?:and\s+|but\s+)?not\b|\b(?:but|and)\s+not\b|\binstead\s+of\b|\b(?:rather|better)\s+than\b"
                     r"|\bin\s+place\s+of\b|\bno\s+longer\b|\bnot\s+anymore\b|\bnever\s+again\b"
                     r"|\b(?:switch|migrat|mov(?:e|es|ed|ing)\b)\w*\b[^.;!?\n]*?\b(?:from|off)\b"
                     r"|\b(?:away|off)\s+from\b|\breplac(?:e|es|ed|ing)\b(?!\s+by)(?:\s+the)?)" + _OBJECT, re.I)
_SAID_NOT = re.compile(r"[,;(]\s*(?:and\s+|but\s+)?not\b|(?:but|and)\s+not\b|instead\b|rather\b|better\b|in\s+place\b|no\s+longer"
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


# a comparison written as a symbol between spaces, read as its words (an arrow and a <placeholder> are no comparison)
_COMPARED = {"<": "below", ">": "above", "<=": "at most", ">=": "at least", "\u2264": "at most", "\u2265": "at least"}
_COMPARISON = re.compile(r"(?<=\s)(<=|>=|<|>|\u2264|\u2265)(?=\s)")


def arrows(text: str) -> str:
    """An arrow read as the words it stands for: "Auth: cookies -> JWTs" is "Auth: from cookies to
    JWTs" (the "from" where the arrow's clause begins), so the order and contrast checks read its
    direction as they read the words; "up to 3 times" is "at most 3 times", no direction."""
    text = re.sub(r"\bup\s+to\b(?=\s+\d)", "at most", text, flags=re.I)
    text = re.sub(r"(?<=\w)(<=|>=|<|>)(?=\d)", r" \1 ", text)  # "depth<500": a comparison, not a <placeholder>
    text = _COMPARISON.sub(lambda m: f" {_COMPARED[m.group(1)]} ", text)  # "version < 3": version below 3
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
_LITERAL = re.compile(r"[^\s,;()\[\]\"'`]*(?:[\w<>][/\\_@=:]+[\w<>]|[\w>]\.[\w<]|<\w[\w-]*>)[^\s,;()\[\]\"'`]*")


def literals(text: str) -> set[str]:
    """What ``text`` writes as one run of characters with a path's, an identifier's or an address's
    separators ("feature/<ticket-id>", "snake_case", "api.staging.internal") or a placeholder
    ("<domain>.<entity>.v<n>", "<team>-alerts"), lower case."""
    found = {m.group(0).rstrip(".:!?").lower() for m in _LITERAL.finditer(text or "")}
    return {x for x in found if re.search(r"[a-z]", x) and not re.fullmatch(r"(?:[a-z]\.)+[a-z]?", x)}  # "e.g."


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


# -- the informative words of a statement, for the alignment rule (brain/disagreement.py's unaligned) --------

# words that carry no claim of their own: articles, pronouns, the copula and auxiliaries, "and", the
# prepositions that only attach ("support for Europe" / "European support", "Kotlin on Android" /
# "Kotlin for Android")
_FUNCTION = frozenset("""
a an the this that these those it its they them their theirs we us our ours you your yours i my me he him his she
her hers one's is are was were be been being am has have had having do does did doing will would shall and also
as of for in on at with which who whom whose there here just s t ll ve re d m so
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


@lru_cache(maxsize=32768)
def every_word(text: str) -> tuple[str, ...]:
    """All of ``text``'s words in order as :func:`_content` reads them, the small words it skips
    included (each as written, lower case), but for articles and "and": for comparing two wordings
    token for token."""
    return tuple(_content_words(text, keep=True))


def _content_words(text: str, keep: bool = False) -> list[str]:
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
        prev = raws[i - 1].lower() if i else ""
        if low == "used" and nxt == "to" and i + 2 < len(raws) and raws[i + 2].lower() not in ("the", "a") \
                and prev not in _USED_AS:
            out.append("formerly")  # "we used to deploy on Fridays", "Tomasz used to be the admin": no longer so
            continue
        if low in ("will", "shall", "won't", "shan't") or (low == "going" and nxt == "to"):
            out.append("will")  # a plan is not yet a fact
            continue
        if low in ("a", "an") and i + 1 < len(raws) and _key(raws[i + 1].lower()) in {_key(p) for p in _PERIODS}:
            out.append("every")  # "100 requests a minute": per minute
            continue
        acronym = len(raw) >= 2 and raw.isupper() and raw.isalpha() and low not in _EMPHASIS
        if not low or (low in _FUNCTION and not acronym) or low in _FRAME or (contrast and low in _CONTRAST_WORDS):
            if keep and low and low not in _EVERY_EMPTY:
                out.append(_key(low) if low in _FRAME else low)
            continue  # but "US" is a place, not "us"
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


# what :func:`every_word` leaves out too: said or not, a sentence says the same
_EVERY_EMPTY = frozenset("a an the and is are it that which".split())

# words written in capitals for emphasis, not acronyms ("do NOT deploy"): read as the word they are
_EMPHASIS = frozenset("not no never always only must do don't all any none and or if it is be".split())

# "Redis is used to cache sessions": a use, not a habit that ended
_USED_AS = frozenset("is are was were be been being am get gets got getting".split())

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


def _spelled(text: str, w: str) -> str:
    """The word of ``text`` whose canonical form is ``w``, as written (``w`` itself when none is)."""
    for m in _TOKEN.finditer(text or ""):
        raw = m.group(0)
        low = raw.lower().strip("'.-")
        low = low[:-2] if low.endswith("'s") else low
        if low == w or _key(low) == w:
            return raw[:-2] if raw.endswith("'s") else raw
    return w
