"""Link only when sure: two agents that say opposite things with the same words each keep their
record at its own key; a true rewording from another agent still joins the record it repeats."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from brain_core.brain.dedupe import compare
from brain_core.brain.disagreement import disagreement
from brain_core.cli import main
from tests.helpers.paths import REPO

# (kind, what claude wrote, what codex wrote): each pair shares its names, numbers and words
CONTRADICTIONS = [
    ("contrast", "Use Redis for the session cache, not Memcached.", "Use Memcached for the session cache, not Redis."),
    ("swapped roles", "Siobhan reviews Tomasz's pull requests.", "Tomasz reviews Siobhan's pull requests."),
    ("swapped numbers", "Deploy staging at 2pm and production at 4pm.", "Deploy staging at 4pm and production at 2pm."),
    ("reversed direction", "We are migrating the orders database from MySQL to PostgreSQL.",
     "We are migrating the orders database from PostgreSQL to MySQL."),
    ("swapped places", "Siobhan leads the Lisbon team and Tomasz leads the Warsaw team.",
     "Siobhan leads the Warsaw team and Tomasz leads the Lisbon team."),
    ("swapped owners", "Tomasz owns the search service; Owen owns the billing service.",
     "Tomasz owns the billing service; Owen owns the search service."),
    ("changed owner", "The billing service is owned by Siobhan's team.", "The billing service is owned by Owen's team."),
    ("changed number", "Sessions expire after 30 minutes of inactivity.", "Sessions expire after 60 minutes of inactivity."),
    ("negation", "The nightly job runs at 02:00 UTC.", "The nightly job no longer runs at 02:00 UTC."),
    ("instead of", "Write new services in Go instead of Java.", "Write new services in Java instead of Go."),
]
REWORDINGS = [
    ("We are migrating the orders database from MySQL to PostgreSQL.",
     "We are migrating the orders database to PostgreSQL from MySQL."),
    ("We chose Datadog for monitoring because its APM tracing is better.",
     "Decision: Datadog for monitoring, because its APM tracing is better."),
    ("Siobhan mentors Owen on the payments code.", "Owen is mentored by Siobhan on the payments code."),
]


@pytest.mark.parametrize("kind,first,second", CONTRADICTIONS, ids=[c[0] for c in CONTRADICTIONS])
def test_opposite_statements_from_two_agents_each_stay_at_their_key(brain, capsys, kind, first, second):
    # the two are close enough to be linked by their vectors and words alone: only their order tells them apart
    assert compare(first, second).conflict is not None or compare(first, second, 0.95).conflict is not None
    root = str(brain.root)
    assert main(["--brain", root, "brain", "remember", "--key", "fact", "--profile", "claude", first]) == 0
    assert main(["--brain", root, "brain", "remember", "--key", "fact", "--profile", "codex", second]) == 0
    out = capsys.readouterr().out
    assert "Remembered claude/fact" in out and "Remembered codex/fact" in out and "Already known" not in out
    for profile, body in (("claude", first), ("codex", second)):
        data = json.loads((brain.root / f"memories/{profile}/fact.json").read_text())
        assert data["body"] == body and "sources" not in data


@pytest.mark.parametrize("first,second", REWORDINGS)
def test_a_true_rewording_from_another_agent_joins_the_record(brain, capsys, first, second):
    assert disagreement(first, second) is None
    root = str(brain.root)
    assert main(["--brain", root, "brain", "remember", "--key", "fact", "--profile", "claude", first]) == 0
    assert main(["--brain", root, "brain", "remember", "--key", "fact", "--profile", "codex", second]) == 0
    out = capsys.readouterr().out
    assert "Already known as claude/fact (memories/claude/fact.json)" in out
    assert not (brain.root / "memories/codex/fact.json").exists()
    (src,) = json.loads((brain.root / "memories/claude/fact.json").read_text())["sources"]
    assert src["profile"] == "codex" and src["body"] == second


WRITER = """
import sys
from brain_core import Brain
brain = Brain.open(sys.argv[1])
for line in sys.argv[3:]:
    key, body = line.split("=", 1)
    rec = brain.remember(body, key=key, profile=sys.argv[2], source="test:writer")
    print(f"{rec.profile}/{rec.key}")
brain.close()
"""


@pytest.mark.slow
def test_four_writers_at_once_each_record_at_its_key(brain, tmp_path):
    """100 distinct records that differ only by swapped numbers, from 4 processes writing at once: every
    write that says it remembered P/K leaves memories/P/K.json with its own words."""
    pairs = [(a, b) for a in range(1, 12) for b in range(a + 1, 12)][:50]
    jobs: dict[int, list[str]] = {w: [] for w in range(4)}
    for i, (a, b) in enumerate(pairs):  # the swapped twin goes to another writer (another profile)
        jobs[i % 2].append(f"fact-{a}-{b}=Writer {a} stored fact number {b}")
        jobs[2 + i % 2].append(f"fact-{b}-{a}=Writer {b} stored fact number {a}")
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    procs = [subprocess.Popen([sys.executable, "-c", WRITER, str(brain.root), f"writer{w}", *lines],
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
             for w, lines in jobs.items()]
    said = []
    for p in procs:
        out, err = p.communicate(timeout=900)
        assert p.returncode == 0, err
        said += out.split()
    assert len(said) == 100
    expected = {f"writer{w}/{line.split('=')[0]}": line.split("=", 1)[1] for w, lines in jobs.items() for line in lines}
    assert sorted(said) == sorted(expected)  # each write reported its own key
    for pk, body in expected.items():
        data = json.loads((brain.root / f"memories/{pk}.json").read_text())
        assert data["body"] == body and "sources" not in data
    assert subprocess.run(["git", "status", "--porcelain", "memories"], cwd=brain.root, capture_output=True,
                          text=True).stdout == ""
