"""The distiller's labelled set: real sessions cut into segments, and what a careful person keeps.

``tests/fixtures/harvest_labels.json`` lists every case: a transcript file (a real one from
``tests/fixtures/real_sessions/`` or from the shared real captures, read in place, or one of the
project's session fixtures), the segment of it (segments are runs of at most ``segment_turns``
user/assistant turns, with the tool turns between them), its split (``tune`` or ``held_out``),
and the memories to keep, often none. A memory is matched by phrases that must all appear in a
proposed record's body (case-insensitive); a proposed record matching no memory of its case is
noise.

Used by ``tests/harvest/test_harvest_labelled.py`` and ``benchmarks/bench_harvest.py``.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path

from brain_core.harvest import Session, render_turns
from brain_core.harvest.sources import claude, codex, gemini
from tests.helpers.harvest_homes import FIXTURES, SHARED_REAL
from tests.helpers.paths import TESTS

HERE = TESTS
LABELS = HERE / "fixtures" / "harvest_labels.json"
REAL = HERE / "fixtures" / "real_sessions"
PARSERS = {"claude": claude.parse, "codex": codex.parse, "gemini": gemini.parse}
ROOTS = {"real": REAL, "shared": SHARED_REAL, "fixtures": FIXTURES}


@dataclass
class Case:
    id: str
    split: str
    tool: str
    file: str
    segment: int
    memories: list[dict]
    text: str = ""
    session: Session | None = None
    proposed: list[dict] = field(default_factory=list)


def resolve(ref: str) -> Path:
    root, _, rel = ref.partition(":")
    return ROOTS[root] / rel


def segments(session: Session, size: int) -> list[list]:
    """The session's turns in runs of at most ``size`` conversation turns."""
    out: list[list] = [[]]
    count = 0
    for t in session.turns:
        if t.role != "tool":
            if count == size:
                out.append([])
                count = 0
            count += 1
        out[-1].append(t)
    return [seg for seg in out if seg]


def load(split: str | None = None) -> list[Case]:
    """Every case whose file is present (shared captures may be absent), each with its text."""
    spec = json.loads(LABELS.read_text(encoding="utf-8"))
    size = spec["segment_turns"]
    cache: dict[str, Session] = {}
    cases = []
    for c in spec["cases"]:
        if split and c["split"] != split:
            continue
        path = resolve(c["file"])
        if not path.exists():
            continue
        if c["file"] not in cache:
            cache[c["file"]] = PARSERS[c["tool"]](path)
        session = cache[c["file"]]
        segs = segments(session, size)
        case = Case(c["id"], c["split"], c["tool"], c["file"], c["segment"], c["memories"], session=session)
        case.text = render_turns(segs[c["segment"]]) if c["segment"] < len(segs) else ""
        cases.append(case)
    return cases


def from_the_person(text: str, proposed: list[dict]) -> list[dict]:
    """The proposed records drawn from the person's own turns of ``text``. This set labels what the
    person said; what the agent found is labelled and scored on the whole-session set
    (``tests/helpers/distill_labelled.py``), so only these are judged here."""
    said = " ".join(" ".join(b.split()) for b in re.split(r"(?m)^\[(?:assistant|tool|plan)\] .*?(?=^\[user\] |\Z)", text, flags=re.S))
    said = said.lower()
    return [r for r in proposed if " ".join(r["body"].split())[:40].lower() in said]


def matches(memory: dict, body: str) -> bool:
    low = body.lower()
    return all(p.lower() in low for p in memory["all"])


@dataclass
class Score:
    cases: int
    proposed: int
    true_pos: int
    labelled: int
    found: int
    noise: list[tuple[str, str]]  # (case id, body)
    missed: list[tuple[str, str]]  # (case id, memory id)

    @property
    def precision(self) -> float | None:
        return self.true_pos / self.proposed if self.proposed else None

    @property
    def recall(self) -> float | None:
        return self.found / self.labelled if self.labelled else None


def score(cases: list[Case]) -> Score:
    proposed = true_pos = labelled = found = 0
    noise, missed = [], []
    for case in cases:
        hit = set()
        for rec in case.proposed:
            proposed += 1
            which = [m["id"] for m in case.memories if matches(m, rec["body"])]
            if which:
                true_pos += 1
                hit.update(which)
            else:
                noise.append((case.id, rec["body"]))
        labelled += len(case.memories)
        found += len(hit)
        missed += [(case.id, m["id"]) for m in case.memories if m["id"] not in hit]
    return Score(len(cases), proposed, true_pos, labelled, found, noise, missed)
