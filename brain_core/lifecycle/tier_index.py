"""INDEX.md: the tier-one index an agent loads at start-up, within a character budget.

It is a projection of the files, regenerated from them (by ``aida brain maintain``, after a sync
that pulled, and by ``regenerate``), so it can't drift. One line per entry: a **trigger** written
as the symptom, the thought an agent has just before it makes the mistake the record prevents
("About to force-push to main"), then a link to the record::

    - About to force-push to main → [git-force-push](memories/me/git-force-push.json)

Triggers come from the record: ``extra["trigger"]`` when a person or an LLM wrote one, else from
the first sentence and the type ("Never X" -> "About to X", "Always X" -> "Forgetting to X", another
instruction -> its own first sentence, a decision -> "Reopening the decision on ...", a fact ->
"Unsure about ..." followed by the key's words, or by the first sentence when the key was made of
the body's own words, its slug or the offline distiller's first content words, which in a row read
as a word list).

Order depends on the files only (type, then newest first; what the offline distiller wrote, tagged
``harvest:offline``, after the rest, and expired records last), never on one machine's usage, so two
machines generate the same file and a sync does not ping-pong it. Entries are taken in that order
until the next one would pass ``tier_index.budget_chars`` (6000 by default); that one and all after
it go to the shelf file ``INDEX.shelf.md``, which recall's records cover and a person or agent can
grep, but which is not loaded at start-up. Budgets count **characters**, not bytes, so a Japanese
or German brain gets the same room as an English one.

``aida brain budget`` checks the file on disk (a person may have edited it): exit 0 within the
cap, 1 over the cap, 2 past ``tier_index.truncate_chars`` (10000: where a loader would cut it
off), 3 when there is no INDEX.md.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from brain_core.lifecycle.common import (
    EXPIRED_TAG,
    first_sentence,
    load_docs,
    md_link,
    split_front_matter,
    write_files,
)
from brain_core.marks import OFFLINE_TAG
from brain_core.records import Record
from brain_core.text.slug import slugify

INDEX = "INDEX.md"
SHELF = "INDEX.shelf.md"
DEFAULT_BUDGET = 6000
DEFAULT_TRUNCATE = 10000
TRIGGER_CHARS = 100
TYPE_ORDER = {"instruction": 0, "decision": 1, "preference": 2, "fact": 3, "note": 4}
HEADER = ("# Brain index\n\n"
          "<!-- Generated from the records by `aida brain maintain`; edit the records, not this file. -->\n"
          "When a line below is what you are about to do or wonder, read the linked record first.\n\n")
SHELF_HEADER = ("# Brain index: the shelf\n\n"
                "<!-- Generated; entries that did not fit INDEX.md's budget. Not loaded at start-up; "
                "`aida brain recall` searches the records themselves. -->\n\n")
_NEVER = re.compile(r"^(?:please\s+)?(?:never|don'?t|do not|avoid|stop|no longer)\s+(.+)$", re.I)
_ALWAYS = re.compile(r"^(?:please\s+)?(?:always|make sure (?:to|that|you)|remember to|be sure to|must|you must)"
                     r"\s+(.+)$", re.I)


@dataclass(frozen=True)
class Entry:
    trigger: str
    label: str
    path: str
    rank: tuple

    @property
    def line(self) -> str:
        return f"- {self.trigger} → {md_link(self.label, self.path)}\n"


@dataclass(frozen=True)
class Plan:
    index_text: str
    shelf_text: str
    loaded: int
    shelved: int
    written: tuple[str, ...] = ()

    @property
    def chars(self) -> int:
        return len(self.index_text)


@dataclass(frozen=True)
class BudgetCheck:
    code: int        # 0 within, 1 over the cap, 2 past truncation, 3 no INDEX.md
    chars: int
    cap: int
    truncate: int
    message: str


def budgets(config) -> tuple[int, int]:
    cap = int(config.get("tier_index.budget_chars", DEFAULT_BUDGET))
    trunc = int(config.get("tier_index.truncate_chars", DEFAULT_TRUNCATE))
    return cap, max(cap, trunc)


def trigger_for(record: Record, title: str | None = None) -> str:
    """The symptom line for one record (see the module docstring)."""
    own = record.extra.get("trigger") if isinstance(record.extra, dict) else None
    if isinstance(own, str) and own.strip():
        return _clip(" ".join(own.split()))
    first = first_sentence(record.body, 200)
    explicit_key = not _derived(record.key, record.body) and not record.key.startswith("knowledge-")
    topic = title or (record.key.replace("-", " ") if explicit_key else first)
    if title:
        return _clip(f"Working on {title}")
    if record.type == "instruction":
        m = _NEVER.match(first)
        if m:
            return _clip("About to " + m.group(1))
        m = _ALWAYS.match(first)
        if m:
            return _clip("Forgetting to " + m.group(1))
        return _clip(first)  # no cue to turn around: the rule itself is the reminder
    if record.type == "decision":
        return _clip("Reopening the decision on " + topic)
    if record.type == "preference":
        return _clip("Unsure what I prefer about " + topic)
    if record.type == "fact":
        return _clip("Unsure about " + topic)
    return _clip("Looking for " + topic)


def _derived(key: str, body: str) -> bool:
    """Whether ``key`` was made from the body's own words (its slug, or the offline distiller's
    first content words): then its words in a row read as a list ("Unsure about two side notes
    cache misses see"), and the first sentence says more."""
    if key == slugify(body):
        return True
    words = iter(re.findall(r"[a-z0-9]+", body.lower()))
    return all(any(w == part for w in words) for part in key.split("-") if part)


def _clip(text: str) -> str:
    text = " ".join(text.split()).rstrip(" .\u3002")
    if len(text) <= TRIGGER_CHARS:
        return text
    return text[:TRIGGER_CHARS - 1].rsplit(" ", 1)[0].rstrip(" ,;:") + "…"


def entries(brain) -> list[Entry]:
    """Every durable record and curated page, in index order (files only)."""
    out = []
    for doc in load_docs(brain, ("memories", "knowledge")):
        r = doc.record
        title = None
        if doc.shelf == "knowledge":
            meta, _ = split_front_matter((brain.root / doc.path).read_text(encoding="utf-8"))
            if str(meta.get("status", "")).lower() in ("proposed", "rejected"):
                continue
            title = str(meta.get("title") or r.key.replace("-", " "))
            order = 2.5  # curated pages sit between preferences and facts
        else:
            order = TYPE_ORDER.get(r.type, 5)
        stale = EXPIRED_TAG in r.tags
        unchecked = OFFLINE_TAG in r.tags  # read offline: after what a model or a person wrote
        label = title or r.key
        out.append(Entry(trigger_for(r, title), label, doc.path,
                         (stale, unchecked, order, _neg_time(r.created), doc.path)))
    return sorted(out, key=lambda e: e.rank)


def _neg_time(created: str) -> str:
    # newest first with a plain string sort: invert each digit
    return "".join(chr(ord("9") - ord(c) + ord("0")) if c.isdigit() else c for c in created or "")


def plan(brain, cap: int | None = None) -> Plan:
    """What INDEX.md and its shelf file would hold; writes nothing."""
    if cap is None:
        cap = budgets(brain.config)[0]
    es = entries(brain)
    used = len(HEADER)
    loaded: list[str] = []
    for i, e in enumerate(es):
        rest = len(es) - i - 1
        footer = _footer(rest) if rest else ""
        if used + len(e.line) + len(footer) > cap:
            break
        loaded.append(e.line)
        used += len(e.line)
    shelved = [e.line for e in es[len(loaded):]]
    index_text = HEADER + "".join(loaded) + (_footer(len(shelved)) if shelved else "")
    if not es:
        index_text += "_Nothing durable yet: records written with `aida brain remember` appear here._\n"
    shelf_text = SHELF_HEADER + ("".join(shelved) or "_Everything fits in INDEX.md._\n")
    return Plan(index_text, shelf_text, len(loaded), len(shelved))


def _footer(n: int) -> str:
    return f"\n{n} more on the shelf: {SHELF} (not loaded at start-up).\n"


def regenerate(brain, dry_run: bool = False) -> Plan:
    """Write INDEX.md and INDEX.shelf.md from the files (one commit, none when unchanged)."""
    p = plan(brain)
    if dry_run:
        return p
    written = write_files(brain, {INDEX: p.index_text, SHELF: p.shelf_text}, "index: regenerate INDEX.md")
    return Plan(p.index_text, p.shelf_text, p.loaded, p.shelved, tuple(written))


def check_budget(brain) -> BudgetCheck:
    cap, trunc = budgets(brain.config)
    text = brain.read_text(INDEX)
    if text is None:
        return BudgetCheck(3, 0, cap, trunc, f"There is no {INDEX}; run `aida brain maintain` to generate it.")
    n = len(text)
    if n > trunc:
        return BudgetCheck(2, n, cap, trunc, f"{INDEX} has {n} characters, past the truncation point of {trunc}: "
                                             "a loader will cut it off; run `aida brain maintain` to regenerate it.")
    if n > cap:
        return BudgetCheck(1, n, cap, trunc, f"{INDEX} has {n} characters, over the budget of {cap}; run "
                                             "`aida brain maintain` to regenerate it within the budget.")
    return BudgetCheck(0, n, cap, trunc, f"{INDEX} has {n} characters of {cap} ({100 * n // max(cap, 1)}%).")
