"""A learned chooser of the agent's sentences worth keeping, offline.

:func:`.findings.agent_findings` keeps a sentence of the agent's when hand-set rules say it states
a finding (a cause or a limit of something named). Those rules were written while reading a few
dozen sessions and miss most findings of sessions from other projects. This module reads every
prose sentence of the agent's replies, describes each by a few dozen signals (the findings rules'
own marks counted, not obeyed; what the sentence names and whether the rest of the session names
it too; where it stands in its reply and in the session; its person and tense) and weighs them
with a logistic regression fitted on the labelled real sessions (``selector.json`` beside this
file, written by ``benchmarks/train_selector.py``, which also reports its leave-one-project-out
figures). No model is loaded: the weights are a few dozen numbers and the signals are regular
expressions, so a session is read in milliseconds.
"""

from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from brain_core.harvest import findings as f
from brain_core.harvest.codeish import code_only

WEIGHTS = Path(__file__).with_name("selector.json")
LONGEST = 400  # a longer sentence is a paragraph; chosen on the cross-validation with 260 (the hand rules' cap)

_FIRST_PERSON = re.compile(r"\b(?:i|i'll|i've|i'm|me|my|let me|let's)\b", re.I)
_WE = re.compile(r"\b(?:we|we're|we've|our|us)\b", re.I)
_PAST = re.compile(r"\b\w{3,}ed\b")
_PRESENT = re.compile(r"\b(?:is|are|does|doesn't|don't|has|have|can't|cannot|won't)\b", re.I)
_NEGATION = re.compile(r"\b(?:not|no|never|doesn't|don't|isn't|aren't|can't|cannot|won't|without)\b", re.I)
_RULE_WORDS = re.compile(r"\b(?:must|always|never|should|only|required?|needs? to)\b", re.I)
_CAUSE = re.compile(r"\b(?:because|since|due to|caused by|root cause|the reason|which means|so that|otherwise)\b", re.I)
_FIX_WORDS = re.compile(r"\b(?:the fix|fixed by|workaround|solution|instead)\b", re.I)
_DONE_WORDS = re.compile(r"\b(?:works|worked|working|fixed|passes|passed|succeeded|done)\b", re.I)
_NOTE = re.compile(r"\b(?:note|important|key|gotcha|caveat|careful|beware|warning)\b", re.I)
_FILE = re.compile(r"[\w.-]+/[\w./-]+|\b\w+\.(?:py|ts|js|json|toml|ya?ml|md|rs|go|sh|ex|exs|lock|conf|sql|c|h|cpp)\b")
_DIGITS = re.compile(r"\d")
_NOW = re.compile(r"(?<=\w )now\b", re.I)
_DONE_LEAD = re.compile(r"^\W*(?:done|fixed|implemented|updated|added|created|changed|removed|summary|all set)\b", re.I)
# Never a finding: the agent announcing its next step or what it is doing ("I'm patching ...": 10 of 277
# training candidates right; one led by "Now", "Then", "Next" or "Here": a reader keeps 1 of 46),
# offering help or options (the person's pick is kept by .person.person_choices), or a line of JSON
# (an error payload). "Next.js" and "Here-doc" are names, not leads. What it just did is _DID.
_NOT_FINDING = re.compile(r"^(?:i'll|i will|let me|let's|i'm going|i am going|i(?:'m| am) (?:now |also |still |just )?\w+ing"
                          r"|(?:now|then|next|here)(?![.\w-])|first,? i|i need to"
                          r"|i can help|i'd (?:suggest|recommend)|would you|do you|options?|alternatives|approaches)\b|\{\"\w", re.I)
# Nor one that announces, past its first clause, what the agent does next ("..., so I'll fix it and
# verify", "First, let me ...", "... then I'll commit"): 10 of 206 training candidates right.
_ANNOUNCES = re.compile(r"(?:[,;:—–-]\s*|\b(?:so|and|now|then|first|next)\s*,?\s+)(?:let me|i'll|i will)\b|\bthen i'?ll\b"
                        r"|\bbefore i\b|\bi'?ll (?:then|now|next)\b", re.I)
# Nor a report of the agent's own work, led by its verb ("Added a `View Diff` row", "I've already
# verified the change builds"), nor a guess ("likely", "I suspect"): of the training candidates a reader
# judged, it would keep 3 of 101 and 0 of 28 (against 1 in 6 of all).
_DID = re.compile(r"^\W*(?:i(?:'ve| have)? (?:already |also |just |then |first |now )?\w+ed\b|i (?:also )?(?:wrote|ran|made)\b"
                  r"|(?:added|updated|removed|implemented"
                  r"|cherry-picked|cloned|reproduced|rebased|renamed|moved|replaced|wrote|created|changed|extended|refactored"
                  r"|dropped|restored|reverted|switched|tightened|wired|committed|pushed|merged|deleted|verified|confirmed|ran|made)\b)", re.I)
_GUESS = re.compile(r"\b(?:likely|probably|maybe|perhaps|possibly|i think|i suspect|i expect|i guess|my guess)\b", re.I)
# Never a finding either: a report of checks that passed or of where the work stands ("All 373 tests
# pass, credo clean", "ready to push", "draft PR #52"): true during the session only.
_CHECKED = re.compile(
    r"\b(?:tests? (?:pass|passed|passing)|all (?:\d+ )?tests (?:pass|passed)|suite pass(?:es|ed)"
    r"|(?:gofmt|vet|lint|ruff|mypy|clippy|golangci-lint|tsc|eslint|prettier|typecheck|build|credo)\W+(?:is |are )?(?:clean|passes|passed|green|ok)\b"
    r"|\b0 (?:issues|errors|failures|warnings)|working tree (?:is )?clean|nothing to commit|ready to (?:push|merge|review)"
    r"|draft PR|PR #\d+|pushed to|(?:is|are|all) green"
    r"|(?:validation|checks?|suites?|coverage|build|compile|smoke test|dry-run|run) (?:passed|passes|succeeded|remain green|stay green)"
    r"|now (?:completes|passes|succeeds|builds|runs cleanly|works)\b)", re.I)
# A verb that makes a sentence a statement: a copula, an auxiliary or a modal, a negation, or a word
# in -ed or -es. A line without one is a heading, a list item's label or a fragment ("Collapsing tool
# interactions by default"): 6% of those matched a labelled item against 11% of all.
_VERB = re.compile(r"\b(?:is|are|was|were|be|been|being|has|have|had|does|do|did|can|cannot|could|will|would|should"
                   r"|must|may|might|shall|\w{3,}(?:ed|es))\b|n't\b", re.I)
_WORD = re.compile(r"[a-z][a-z0-9]{3,}")
_TOKEN = re.compile(r"`([^`\n]{2,60})`|\b([A-Za-z_][\w]*(?:[._/-][\w]+)+|[a-z]+_\w+|[a-z]+[A-Z]\w+|[A-Z]\w*[A-Z]\w*)\b")

FEATURES = (
    "bias", "strong", "strong_more", "strong_how", "weak", "anchors", "named", "narrate", "report", "transient",
    "hedged", "not_claim", "vague", "labelled", "issue_is", "status", "yours", "length", "words", "first_in_reply",
    "last_in_reply", "place_in_reply", "place_in_session", "last_reply", "tokens_elsewhere", "tokens_by_person",
    "cause", "first_person", "we", "past", "present", "negation", "rule_words", "fix_words", "done_words",
    "note", "file", "digits", "colon_end", "reply_length", "finding_score", "person_overlap", "now", "done_lead", "no_verb",
)


@dataclass
class Candidate:
    turn: int
    index: int
    text: str
    x: list[float]


@lru_cache(maxsize=1)
def fitted() -> dict:
    """The weights (``selector.json``): means and scales of the signals, their weights, the chance
    a sentence needs, and how many a session may keep."""
    data = json.loads(WEIGHTS.read_text(encoding="utf-8"))
    if tuple(data["features"]) != FEATURES:
        raise ValueError(f"{WEIGHTS.name} was fitted on other signals; run benchmarks/train_selector.py --write.")
    return data


def _tokens(text: str) -> set[str]:
    return {(m.group(1) or m.group(2)).lower() for m in _TOKEN.finditer(text)}


def candidates(turns: list[tuple[str, str]]) -> list[Candidate]:
    """Every prose sentence of the agent's replies that could stand alone as a record, with its signals."""
    person_tokens: set[str] = set()
    person_words: set[str] = set()
    counts: dict[str, int] = {}
    said: list[tuple[int, list[str]]] = []
    replies = {n: k for k, n in enumerate(n for n, (role, _) in enumerate(turns) if role == "assistant")}
    for n, (role, body) in enumerate(turns):
        if role == "user":
            person_tokens |= _tokens(body)
            person_words |= set(_WORD.findall(body.lower()))
        elif role == "assistant":
            for tok in _tokens(body):
                counts[tok] = counts.get(tok, 0) + 1
            if not f._turned_down(turns, n):
                said.append((n, f.sentences(body, shortest=12)))
    out = []
    last = max(replies, default=-1)
    for n, items in said:
        reply_len = len(turns[n][1])
        for k, raw in enumerate(items):
            s = f.as_said(raw)
            if (len(s) < 20 or len(s) > LONGEST or len(s.split()) < 4 or s.rstrip()[-1:] in "?!"
                    or _NOT_FINDING.search(s) or _ANNOUNCES.search(s) or _CHECKED.search(s) or _DID.search(s)
                    or _GUESS.search(s) or code_only(s)):
                continue
            low = s.lower()
            toks = _tokens(s)
            elsewhere = sum(1 for t in toks if counts.get(t, 0) > 1)
            words = set(_WORD.findall(low))
            counted = f.marks(s)
            strong, strong_more, strong_how, weak, anchors, named = counted
            x = [
                1.0,
                min(strong, 3), min(strong_more, 2), min(strong_how, 2), min(weak, 3), min(anchors, 4), min(named, 4),
                float(bool(f._NARRATE.match(low))), float(bool(f._REPORT.search(low))), float(bool(f._TRANSIENT.search(low))),
                float(bool(f._HEDGED.search(re.sub(r"\([^)]*\)", "", low)))), float(bool(f._NOT_CLAIM.match(low))),
                float(bool(f._VAGUE.match(s))), float(bool(f._LABELLED.match(raw))), float(bool(f._ISSUE_IS.match(raw))),
                float(bool(f._STATUS_LABEL.match(s) or f._STATUS_ROW.search(s) or f._TITLED.match(s))),
                float(bool(f._YOURS.search(s))),
                math.log1p(len(s)) - 4.0, min(len(s.split()), 60) / 20.0,
                float(k == 0), float(k == len(items) - 1), k / max(len(items) - 1, 1),
                replies[n] / max(len(replies) - 1, 1), float(n == last),
                min(elsewhere, 4), min(len(toks & person_tokens), 3),
                min(len(_CAUSE.findall(s)), 2), float(bool(_FIRST_PERSON.search(s))), float(bool(_WE.search(s))),
                min(len(_PAST.findall(s)), 3), min(len(_PRESENT.findall(s)), 3), float(bool(_NEGATION.search(s))),
                float(bool(_RULE_WORDS.search(s))), float(bool(_FIX_WORDS.search(s))), float(bool(_DONE_WORDS.search(s))),
                float(bool(_NOTE.search(s))), float(bool(_FILE.search(s))), float(bool(_DIGITS.search(s))),
                float(raw.rstrip().endswith(":")), math.log1p(reply_len) - 7.0,
                f.finding_score(raw, s, counted),
                len(words & person_words) / max(len(words), 1), float(bool(_NOW.search(s))), float(bool(_DONE_LEAD.match(raw))),
                float(not _VERB.search(s)),
            ]
            out.append(Candidate(n, k, f.as_record(s, items[k + 1] if k + 1 < len(items) else ""), x))
    return out



def chance(x: list[float], model: dict) -> float:
    z = model["weights"][0]
    for xi, m, sd, w in zip(x[1:], model["mean"][1:], model["scale"][1:], model["weights"][1:]):
        z += w * (xi - m) / sd
    return 1.0 / (1.0 + math.exp(-max(min(z, 30.0), -30.0)))


def select(turns: list[tuple[str, str]], model: dict | None = None, more: int = 0) -> list[tuple[float, str]]:
    """(chance, sentence) of the agent's sentences worth keeping, best first: at most the fitted
    cap (and ``more`` past it), each at least the fitted chance, no two saying nearly the same words."""
    model = model or fitted()
    scored = sorted(((chance(c.x, model), c.text) for c in candidates(turns)), key=lambda p: -p[0])
    out: list[tuple[float, str]] = []
    seen: list[set[str]] = []
    for p, text in scored:
        if p < model["threshold"] or len(out) >= model["keep"] + more:
            break
        words = set(re.findall(r"[a-z0-9]{3,}", text.lower()))
        if any(len(words & w) > 0.5 * len(words | w) for w in seen):
            continue
        seen.append(words)
        out.append((p, text))
    return out
