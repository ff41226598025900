"""The distiller's whole-session labelled set: 171 real sessions and what a careful engineer keeps.

``tests/fixtures/distill_labels.json`` labels each file of ``tests/fixtures/real_sessions/`` (see the
PROVENANCE.md there) by hand: the agent's findings (root causes, "X stores Y in Z", commands that
worked, file and function facts) and the person's rules and choices, each as 2-4 keywords. A kept
record matches an item when every keyword occurs in its body (case-insensitive; ``a|b`` is either).
Precision is strict: a kept record that matches no item of its session counts as noise, however
reasonable it reads. The split is fixed (file-name order, every second session held out); two later
splits, ``fresh`` and ``unseen``, were labelled before the distiller ran on them (``unseen`` was read
for rules once its blind figures were reported); ``blind2``, ``blind3`` and ``blind4``, labelled the same way
after those rules, were each scored blind once (blind2 was then read for rules, and blind3 chose
between two sets of them; see benchmarks/bench_distill.py).

Each session goes through the path the sweep takes offline (:func:`brain_core.harvest.run.harvest_session`:
parse, the whole transcript, redact, distill, redact the bodies again).

Used by ``tests/harvest/test_distill_sessions.py`` and ``benchmarks/bench_distill.py``.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field

from brain_core.brain.quarantine import reason
from brain_core.harvest import session_file
from brain_core.harvest.run import harvest_session
from brain_core.harvest.sources import get
from tests.helpers.paths import TESTS

HERE = TESTS
LABELS = HERE / "fixtures" / "distill_labels.json"
REAL = HERE / "fixtures" / "real_sessions"


@dataclass
class Labelled:
    file: str
    tool: str
    split: str
    items: list[dict]
    kept: list[dict] = field(default_factory=list)


def load(split: str | None = None) -> list[Labelled]:
    spec = json.loads(LABELS.read_text(encoding="utf-8"))
    return [Labelled(s["file"], s["tool"], s["split"], s["items"]) for s in spec["sessions"]
            if split is None or s["split"] == split]


def harvest(case: Labelled, llm=None) -> list[dict]:
    """The records the sweep would write for this session (offline, or through ``llm``)."""
    src = get(case.tool)
    path = REAL / case.file
    sf = session_file(case.tool, src.file_id(path), path)
    outcome = harvest_session(src, sf, reason="file", llm=llm)
    assert outcome.error is None, outcome.error
    # what the write path holds in quarantine/ (a standing order, a name the session never says) is not kept
    return [r for r in outcome.records if reason(r["body"], (r.get("extra") or {}).get("unsaid")) is None]


def given_text(case: Labelled) -> str:
    """The text the offline distiller is given for this session on the sweep's path ("" when none)."""
    from brain_core.harvest import distill

    seen: list[str] = []
    real = distill.extractive

    def capture(text, **_kw):
        seen.append(text)
        return []  # only the text is wanted

    distill.extractive = capture
    try:
        harvest(case)
    finally:
        distill.extractive = real
    return seen[-1] if seen else ""


def matches(item: dict, body: str) -> bool:
    low = body.lower()
    return all(any(alt.lower() in low for alt in kw.split("|")) for kw in item["all"])


@dataclass
class Score:
    sessions: int = 0
    kept: int = 0
    right: int = 0
    labelled: int = 0
    found: int = 0
    noise: list[tuple[str, str]] = field(default_factory=list)  # (file, body)
    missed: list[tuple[str, str]] = field(default_factory=list)  # (file, item id)
    most_per_session: int = 0

    @property
    def precision(self) -> float | None:
        return self.right / self.kept if self.kept else None

    @property
    def recall(self) -> float | None:
        return self.found / self.labelled if self.labelled else None


def score(cases: list[Labelled]) -> Score:
    sc = Score()
    for c in cases:
        sc.sessions += 1
        sc.most_per_session = max(sc.most_per_session, len(c.kept))
        hit: set[str] = set()
        for rec in c.kept:
            sc.kept += 1
            which = [i["id"] for i in c.items if matches(i, rec["body"])]
            if which:
                sc.right += 1
                hit.update(which)
            else:
                sc.noise.append((c.file, rec["body"]))
        sc.labelled += len(c.items)
        sc.found += len(hit)
        sc.missed += [(c.file, i["id"]) for i in c.items if i["id"] not in hit]
    return sc


MODEL_ANSWERS = HERE / "fixtures" / "distill_model_answers.json"


def sha(text: str) -> str:
    import hashlib

    return hashlib.sha256(text.encode("utf-8")).hexdigest()


class Replay:
    """A provider that gives each text the answer a model once gave it (tests/fixtures/distill_model_answers.json,
    looked up by the text's hash); a text it has no answer for gets an empty list, counted in ``missing``."""

    name = "replay"

    def __init__(self, path=MODEL_ANSWERS) -> None:
        data = json.loads(path.read_text(encoding="utf-8"))
        self.answers = {a["sent_sha"]: a["answer"] for a in data["answers"]}
        self.splits = {a["split"] for a in data["answers"]}
        self.system_sha = data["system_sha"]
        self.used = self.missing = 0
        self.stale = False  # the system prompt has changed since the answers were recorded

    def complete(self, system: str, user: str, **_kw) -> str:
        self.stale |= sha(system) != self.system_sha
        answer = self.answers.get(sha(user))
        if answer is None:
            self.missing += 1
            return '{"records": []}'
        self.used += 1
        return answer


class Recording:
    """Wraps a provider and keeps, per call, what it was sent and what it answered (``--record``)."""

    def __init__(self, llm) -> None:
        self.llm, self.name = llm, llm.name
        self.case = ("", "")  # (file, split) of the session being read: set by the caller
        self.calls: list[tuple[str, str, str, str, str]] = []  # (file, split, system, user, answer)

    def complete(self, system: str, user: str, **kw) -> str:
        answer = self.llm.complete(system, user, **kw)
        self.calls.append((*self.case, system, user, answer))
        return answer
