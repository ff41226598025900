"""The judges of a consolidation: a merged record must pass one before anything moves.

:class:`RuleJudge` is deterministic: no fact lost (every number, name and negated statement of the
originals is in the draft), no contradiction introduced (no number the originals lack, no
statement flipped), the body within ``consolidate.max_chars``, every original in ``provenance``.
:class:`LLMJudge` asks the configured model (JSON ``{"verdict": "pass"|"fail", "reasons": [...]}``);
an answer it cannot parse, or no answer at all, is a fail: doubt never merges. Length and
provenance are checked before the model is asked. A judge is anything with ``name`` and
``judge(proposal) -> Verdict``, so a test or another policy slots in without patching.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol, Sequence

from brain_core.errors import ProviderError
from brain_core.lifecycle.common import negated, numbers, sentences, setting, words

if TYPE_CHECKING:
    from brain_core.lifecycle.consolidate import Proposal
    from brain_core.llm.base import LLM

DEFAULT_MAX_CHARS = 2000
_NAME = re.compile(r"(?<![\w])(?:[A-Z][\w-]*[A-Za-z0-9]|\w+(?:[._/:]\w+)+)")


@dataclass(frozen=True)
class Verdict:
    ok: bool
    judge: str
    reasons: tuple[str, ...] = ()


class Judge(Protocol):
    @property
    def name(self) -> str: ...  # read-only: RuleJudge is frozen, LLMJudge computes it

    def judge(self, proposal: Proposal) -> Verdict: ...


@dataclass(frozen=True)
class RuleJudge:
    """The deterministic checks (see the module docstring)."""

    max_chars: int = DEFAULT_MAX_CHARS
    name: str = "rules"

    def judge(self, proposal: Proposal) -> Verdict:
        reasons = structural(proposal, self.max_chars) + facts_lost(proposal) + contradictions_introduced(proposal)
        return Verdict(not reasons, self.name, tuple(reasons))


@dataclass(frozen=True)
class LLMJudge:
    llm: LLM
    max_chars: int = DEFAULT_MAX_CHARS

    @property
    def name(self) -> str:
        return f"llm:{getattr(self.llm, 'name', 'llm')}"

    def judge(self, proposal: Proposal) -> Verdict:
        reasons = structural(proposal, self.max_chars)
        if reasons:
            return Verdict(False, self.name, tuple(reasons))
        try:
            answer = self.llm.complete(JUDGE_PROMPT, judge_input(proposal), json=True, max_tokens=300)
        except ProviderError as e:
            return Verdict(False, self.name, (f"the judge could not be asked: {e}",))
        return parse_verdict(answer, self.name)


JUDGE_PROMPT = """You check a proposed merge of several memory records into one durable record.
Answer with JSON only: {"verdict": "pass" or "fail", "reasons": ["short reason", ...]}.
Fail when the merged text loses any fact of the originals (a number, a name, a date, a reason, a
negation), says anything the originals do not, or merges records that contradict each other or
are not about the same thing. Pass only when it is a faithful, complete merge."""


def judge_input(p: Proposal) -> str:
    lines = ["Originals:"]
    for o in p.originals:
        lines.append(f"- id {o.record.id} ({o.record.created or 'undated'}): {o.record.body}")
    lines += ["", f"Merged record ({p.draft.type}, key {p.draft.key}):", p.draft.body]
    return "\n".join(lines)


def parse_verdict(answer: str, name: str) -> Verdict:
    try:
        obj = json.loads(answer)
    except (TypeError, ValueError):
        return Verdict(False, name, ("the judge's answer was not JSON, so nothing was merged",))
    verdict = str(obj.get("verdict", "")).strip().lower() if isinstance(obj, dict) else ""
    reasons = obj.get("reasons") if isinstance(obj, dict) else None
    reasons = tuple(str(r) for r in reasons) if isinstance(reasons, list) else ()
    if verdict not in ("pass", "fail"):
        return Verdict(False, name, ("the judge gave no pass/fail verdict, so nothing was merged",))
    return Verdict(verdict == "pass", name, reasons if verdict == "fail" else ())


def make_judge(config) -> Judge:
    """The LLM when one is configured, else the deterministic checks."""
    from brain_core.llm import make_provider

    max_chars = setting(config, "consolidate.max_chars", DEFAULT_MAX_CHARS, int)
    from brain_core.errors import ProviderError

    try:
        llm = make_provider(config)
    except ProviderError:
        llm = None  # a provider configured without its key: the deterministic checks still judge safely
    return LLMJudge(llm, max_chars) if llm is not None else RuleJudge(max_chars)


def structural(p: Proposal, max_chars: int) -> list[str]:
    out = []
    if len(p.draft.body) > max_chars:
        out.append(f"the merged body has {len(p.draft.body)} characters, over consolidate.max_chars ({max_chars})")
    missing = [o.record.id for o in p.originals if o.record.id not in p.draft.provenance]
    if missing:
        out.append(f"provenance lacks {', '.join(missing)}")
    if not p.draft.body.strip():
        out.append("the merged body is empty")
    return out


def names(text: str) -> set[str]:
    """Proper names and identifiers, skipping a capital that only starts a sentence."""
    out = set()
    for s in sentences(text):
        for m in _NAME.finditer(s):
            token = m.group(0)
            if m.start() == 0 and token.isalpha() or m.start() == 0 and token.replace("-", "").isalpha():
                continue  # a capital that starts the sentence says nothing
            out.add(token)
    return out


def _covered(sentence: str, pool: Sequence[str], want_negated: bool) -> bool:
    ws = set(words(sentence))
    for s in pool:
        if negated(s) != want_negated:
            continue
        other = set(words(s))
        if not ws or len(ws & other) >= 0.8 * len(ws):
            return True
    return False


def facts_lost(p: Proposal) -> list[str]:
    body = p.draft.body
    have_nums, have_names, draft_s = numbers(body), names(body), sentences(body)
    out = []
    for o in p.originals:
        lost = sorted(numbers(o.record.body) - have_nums)
        if lost:
            out.append(f"numbers of {o.record.id} are missing: {', '.join(lost)}")
        gone = sorted(names(o.record.body) - have_names)
        if gone:
            out.append(f"names of {o.record.id} are missing: {', '.join(gone)}")
        for s in sentences(o.record.body):
            if negated(s) and not _covered(s, draft_s, True):
                out.append(f"the negation in {s!r} ({o.record.id}) is missing")
    return out


def contradictions_introduced(p: Proposal) -> list[str]:
    orig_text = " ".join(o.record.body for o in p.originals)
    orig_s = sentences(orig_text)
    out = []
    new_nums = sorted(numbers(p.draft.body) - numbers(orig_text))
    if new_nums:
        out.append(f"the merged body has numbers no original has: {', '.join(new_nums)}")
    for s in sentences(p.draft.body):
        if not _covered(s, orig_s, negated(s)):
            out.append(f"{s!r} is not what any original says")
    return out


def conflicts_between(a: str, b: str) -> list[str]:
    """Sentences of ``a`` and ``b`` about the same thing that disagree (numbers or negation)."""
    out = []
    for sa in sentences(a):
        wa = set(words(sa))
        for sb in sentences(b):
            wb = set(words(sb))
            if not wa or not wb:
                continue
            overlap = len(wa & wb) / len(wa | wb)
            na, nb = numbers(sa), numbers(sb)
            if overlap >= 0.5 and na and nb and na != nb:
                out.append(f"{sa!r} vs {sb!r}: different numbers")
            elif overlap >= 0.6 and negated(sa) != negated(sb):
                out.append(f"{sa!r} vs {sb!r}: one says the opposite")
    return out
