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
    """The records the offline sweep would write for this session."""
    src = get(case.tool)
    path = REAL / case.file
    sf = session_file(case.tool, src.file_id(path), path)
    outcome = harvest_session(src, sf, reason="file", llm=llm)
    assert outcome.error is None, outcome.error
    return outcome.records


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
