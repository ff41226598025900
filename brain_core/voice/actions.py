"""Who does what by when: action items read from a meeting transcript, as ``task`` records.

A meeting's most useful line is often its shortest: "Action item: Owen owns the dead letter
queue, due next Friday." Read offline, by pattern, from the corrected transcript:

- an owner is a person the meeting knows (an attendee or a glossary name), never "we" or "I";
- the forms are "action item: X owns/takes/will/writes ..." (colon or not, fillers allowed:
  "Action item, um, Ngozi writes ..."), "X owns ...", "X will ..." / "X is going to ...", "X to
  ... by <day>" at the start of a sentence, and a question put to X that says by when ("Ngozi,
  can you ... by Friday?") followed within two sentences by an agreement ("Sure.", "Will do.");
  an explicit action item wins over a "will" sentence of the same owner about the same thing;
  "X will be out" is no task;
- the text is read as sentences of the joined transcript, never as the recogniser's segments
  (which split "Action item Ngozi writes the runbook" from "by Wednesday");
- a due date ("due next Friday", "by Thursday", "by 2026-12-04", "by the end of the week") is
  looked for in the sentence and the one after it (speech-to-text often splits "..., due next
  Friday" off, or hears "due" as "do" and "by" as "my" or "I") and resolved against the
  meeting's date: "this Friday" is the first Friday after the meeting, "next Friday" the Friday
  of the following week.

Each item becomes a record of type ``task`` with ``owner`` and ``due`` (ISO date or absent) in
its extra fields, so an agent can ask "what does Owen owe us".
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date as Date
from datetime import timedelta
from typing import Any, Iterable, Sequence

from brain_core.text.sentences import sentences as split_sentences
from brain_core.text.stopwords import ACTION_FILLER

WEEKDAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
_DAY = "|".join(WEEKDAYS)
_WHEN = (rf"(?:(?:this|next)\s+(?:{_DAY}|week|month)|(?:{_DAY})|tomorrow|today|"
         rf"(?:the\s+)?end\s+of\s+(?:the\s+)?(?:week|month)|\d{{4}}-\d{{2}}-\d{{2}})")
# "by" is often heard as "my", "buy" or "I" ("my next Monday", "I Friday"), "due" as "do".
_DUE = re.compile(rf"\b(?:due|by|before|until|do|my|buy|bye|i)\s+(?:on\s+)?(?P<when>{_WHEN})\b", re.I)


@dataclass(frozen=True)
class ActionItem:
    owner: str
    what: str  # "owns the dead letter queue", "will add a dead letter queue"
    due: str | None  # ISO date
    said: str  # the words as heard, due included
    explicit: bool  # said as an action item

    def record(self, meeting_date: str, title: str) -> dict[str, Any]:
        from brain_core.text.slug import slugify

        due = f", due {self.due}" if self.due else ""
        body = f"{self.owner} {self.what}{due} (action item from the meeting \"{title}\" on {meeting_date})."
        extra: dict[str, Any] = {"owner": self.owner}
        if self.due:
            extra["due"] = self.due
        return {"type": "task", "key": "task-" + slugify(f"{self.owner} {_object(self.what)}", max_words=8),
                "body": body, "tags": ["task", f"owner:{self.owner.casefold()}"], "extra": extra}


def action_items(text: str, people: Iterable[str], meeting_date: str) -> list[ActionItem]:
    """The action items in ``text`` (the whole transcript, segments joined) whose owner is one of
    ``people``, one per owner and thing."""
    names = sorted({p.strip() for p in people if p and p.strip()}, key=len, reverse=True)
    if not names:
        return []
    who = "|".join(re.escape(n) for n in names)
    lead = rf"(?:(?:{_FILLERS}|and|so|then|okay|ok|right|great)\b[\s,.]*)*"
    pause = rf"[\s,]*(?:(?:{_FILLERS})\b[\s,]*){{0,2}}"
    forms = (
        (True, re.compile(rf"\b(?i:action\s+items?)\b[\s:.,-]*(?i:{lead})(?P<owner>{who})\b{pause}"
                          rf"(?P<what>(?!(?i:and|or|but|the|a|an)\b)[a-zA-Z][^.!?]*)")),
        (True, re.compile(rf"\b(?P<owner>{who})\s+(?P<what>(?:owns|takes\s+on|is\s+on)\b[^.!?]*)")),
        (False, re.compile(rf"\b(?P<owner>{who})(?:{pause}(?P<what>(?:will|is\s+going\s+to)\b{pause}(?!{_NOT_A_TASK})[a-z][^.!?]*)"
                           rf"|'ll\s+(?!{_NOT_A_TASK})(?P<short>[^.!?]*))")),
        (False, re.compile(rf"^(?i:{lead})(?P<owner>{who}){pause}(?P<to>to\s+(?!{_NOT_A_TASK})[a-z][^.!?]*)")),
    )
    sentences = split_sentences(text)
    found: list[ActionItem] = []
    for i, sentence in enumerate(sentences):
        window = " ".join(sentences[max(0, i - 1):i + 1])  # "Action item. Owen owns ..." spans two
        after = sentences[i + 1] if i + 1 < len(sentences) else ""
        item = None
        for explicit, pattern in forms:
            m = pattern.search(window if explicit else sentence)
            if not m or (explicit and m.start("owner") < len(window) - len(sentence)):
                continue
            groups = m.groupdict()
            what = groups.get("what") or ""
            if groups.get("short"):
                what = f"will {groups['short']}"
            elif groups.get("to"):
                what = "will " + groups["to"][3:]
            item = _item(m.group("owner"), what, sentence, after, meeting_date, explicit)
            if item:
                break
        if item is None:
            item = _asked(sentence, sentences[i + 1:i + 3], who, meeting_date)
        if item:
            found.append(item)
    return _one_each(found)


# Said between a name and what the person does ("Owen, uh, owns..."), or before a sentence.
_FILLERS = "uh|um|erm|er|ah|oh|it|well|like|so"
# "Owen will be out next week" is no task.
_NOT_A_TASK = r"(?:be\s+(?:out|away|off|on\s+(?:holiday|leave|vacation)|late|back|here|there)|not|never|probably\s+not)\b"
_ASK = re.compile(r"\b(?:can|could|would|will)\s+you\s+(?:please\s+)?(?P<what>[a-z][^.!?]*)", re.I)
_AGREE = re.compile(rf"^(?:(?:{_FILLERS})\b[\s,.]*)*(?:sure|yes|yeah|yep|ok|okay|will\s+do|i\s+will|i'll|i\s+can|"
                    r"no\s+problem|of\s+course|absolutely|sounds\s+good|got\s+it|on\s+it|definitely|happy\s+to)\b", re.I)
_REFUSE = re.compile(r"\b(?:can't|cannot|won't|not\s+(?:this|today|now|yet|me))\b", re.I)  # "Sure, but not this week."


def _item(owner: str, what: str, sentence: str, after: str, meeting_date: str, explicit: bool) -> ActionItem | None:
    """An item from what was said, its due date looked for in the sentence and the one after it
    when that one is short or begins with it ("... for the export job." / "By Wednesday.")."""
    what = re.sub(r"\s*,?\s*\b(?:uh|um|erm|er|ah)\b,?", "", what, flags=re.I).strip(" ,;:")
    due_text = _DUE.search(what)
    tail = _LEAD_FILLER.sub("", after)
    if due_text is None and tail:
        due_text = _DUE.match(tail) or (_DUE.search(tail) if len(tail.split()) <= 6 else None)
    due = resolve(due_text.group("when"), meeting_date) if due_text else None
    what = _DUE.sub("", what).strip(" ,;:")
    if len(_content(what)) < 1:
        return None
    return ActionItem(owner, what, due, sentence, explicit)


_LEAD_FILLER = re.compile(rf"^(?:(?:{_FILLERS}|and|so|okay|ok)\b[\s,.]*)*", re.I)


def _asked(sentence: str, replies: Sequence[str], who: str, meeting_date: str) -> ActionItem | None:
    """"Ngozi, can you write the runbook by Friday?" and an agreement ("Sure.") in one of the next
    two sentences: a task for the person asked. No agreement, a refusal or no due date (a
    hand-over: "Siobhan, can you start with...?") is no task."""
    if not sentence.rstrip().endswith("?"):
        return None
    asked = re.match(rf"^(?:(?:{_FILLERS}|and|so|okay|ok)\b[\s,.]*)*(?P<a>{who})\b,?", sentence) or \
        re.search(rf",\s*(?P<a>{who})\s*\?$", sentence) or \
        re.search(rf"\b(?P<a>{who}),\s*(?:can|could|would|will)\s+you\b", sentence)  # after a run-on: "..., Tomasz, can you"
    ask = _ASK.search(sentence)
    if not asked or not ask:
        return None
    reply = next((r for r in replies if _LEAD_FILLER.sub("", r)), "")
    if not _AGREE.match(reply) or _REFUSE.search(reply):
        return None
    what = re.sub(rf",?\s*(?:{who})\s*$", "", ask.group("what").strip(), flags=re.I)
    item = _item(asked.group("a"), "will " + what, sentence, reply, meeting_date, True)
    # "Siobhan, can you start with the staging database?" "Sure." hands the floor over: an ask
    # is a task when it says by when.
    return item if item and item.due else None


def resolve(when: str, meeting_date: str) -> str | None:
    """An ISO date for "next Friday", "by Thursday", "end of the month"... said on ``meeting_date``."""
    try:
        day = Date.fromisoformat(meeting_date[:10])
    except ValueError:
        return None
    w = " ".join(when.casefold().split())
    if re.fullmatch(r"\d{4}-\d{2}-\d{2}", w):
        return w
    if w == "today":
        return day.isoformat()
    if w == "tomorrow":
        return (day + timedelta(days=1)).isoformat()
    w = w.removeprefix("the ")
    if w in ("end of week", "end of the week", "this week"):
        return (day + timedelta(days=(4 - day.weekday()) % 7)).isoformat()  # that week's Friday
    if w == "next week":
        return (day + timedelta(days=7 - day.weekday() + 4)).isoformat()  # the next week's Friday
    if w in ("end of month", "end of the month", "this month"):
        first_next = (day.replace(day=28) + timedelta(days=4)).replace(day=1)
        return (first_next - timedelta(days=1)).isoformat()
    if w == "next month":
        first_next = (day.replace(day=28) + timedelta(days=4)).replace(day=1)
        return ((first_next.replace(day=28) + timedelta(days=4)).replace(day=1) - timedelta(days=1)).isoformat()
    parts = w.split()
    if parts and parts[-1] in WEEKDAYS:
        target = WEEKDAYS.index(parts[-1])
        if parts[0] == "next":  # the weekday of the following week (Monday to Sunday)
            return (day + timedelta(days=7 - day.weekday() + target)).isoformat()
        ahead = (target - day.weekday()) % 7 or 7  # "this Friday", "by Friday": the first one after
        return (day + timedelta(days=ahead)).isoformat()
    return None


def _one_each(items: Sequence[ActionItem]) -> list[ActionItem]:
    """One item per owner and thing: an explicit action item absorbs a "will" sentence of the same
    owner that shares a content word with it (the plan said, then the owner named)."""
    kept: list[ActionItem] = []
    for item in sorted(items, key=lambda a: not a.explicit):
        same = next((k for k in kept if k.owner == item.owner and _content(k.what) & _content(item.what)), None)
        if same is None:
            kept.append(item)
        elif same.due is None and item.due:
            kept[kept.index(same)] = ActionItem(same.owner, same.what, item.due, same.said, same.explicit)
    order = {id(a): n for n, a in enumerate(items)}
    return sorted(kept, key=lambda a: order.get(id(a), 0))


def _content(text: str) -> set[str]:
    return {w for w in re.findall(r"[a-z]+", text.casefold()) if w not in ACTION_FILLER and len(w) > 2} - {
        "owns", "will", "take", "takes", "going", "add", "has"}


def _object(what: str) -> str:
    """"owns the dead letter queue" -> "dead letter queue" (for the key)."""
    words = what.split()
    if words and words[0].casefold() in ("owns", "will", "takes", "has", "is"):
        words = words[1:]
    return " ".join(w for w in words if w.casefold() not in ACTION_FILLER) or what
