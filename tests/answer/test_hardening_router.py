"""A brain's own router.yaml cannot hang an answer, and no question is too long for the router:
user patterns run on a linear-time engine (a bad one reported and skipped), the built-in patterns
read at most ROUTE_CHARS characters, and ask refuses a question over MAX_QUESTION_CHARS."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from brain_core.answer.ask import MAX_QUESTION_CHARS
from brain_core.answer.router import ROUTE_CHARS, load_router
from tests.helpers.paths import REPO

HOSTILE = "recall:\n  hang: '^(\\w+\\s?)*$'\n  mine: '\\bpaperwork\\b'\n  look: '(?<=x)y'\n"


def aida(*args, brain):
    env = dict(os.environ, PYTHONPATH=str(REPO), AIDA_BRAIN=str(brain))
    # the deadline only keeps a regression from hanging the suite; nothing here asserts a time
    return subprocess.run([sys.executable, "-m", "brain_core", *args], capture_output=True, text=True, env=env,
                          timeout=600)


def test_a_catastrophic_user_pattern_is_refused_and_the_rest_still_routes(tmp_path):
    (tmp_path / "router.yaml").write_text(HOSTILE)
    told = []
    router = load_router(tmp_path, notice=told.append)
    labels = {p.label for ps in router.patterns.values() for p in ps}
    assert "recall:mine" in labels and "recall:look" not in labels
    assert any("recall:look" in t and "lookarounds" in t for t in told)
    # the exponential pattern either runs on the linear engine or is refused; both answer at once
    long_words = "word " * 40 + "!"
    route = router.decide(long_words)
    assert route.recall is ("recall:hang" in labels and "recall:hang" in route.fired)
    assert router.decide("where is the paperwork").recall is True


def test_ask_with_a_hostile_router_yaml_answers_through_the_cli(brain):
    brain.remember("The paperwork for the lease is in the blue folder.", key="lease-paperwork")
    (brain.root / "router.yaml").write_text(HOSTILE)
    question = "a" * 30 + " " + "b " * 25 + "!"  # what ^(\w+\s?)*$ backtracks on for ever
    run = aida("ask", question, brain=brain.root)
    assert run.returncode == 0, run.stderr
    assert "Traceback" not in run.stderr
    warnings = [line for line in run.stderr.splitlines() if line.startswith("aida: warning:")]
    assert any("recall:look" in w and "skipped" in w for w in warnings)
    found = aida("ask", "where is the paperwork?", brain=brain.root)
    assert found.returncode == 0 and "blue folder" in found.stdout
    rt = aida("route", "--json", "where is the paperwork?", brain=brain.root)
    assert rt.returncode == 0 and "recall:mine" in rt.stdout


def test_the_router_reads_only_the_start_of_a_long_question():
    router = load_router(None)
    start = "why did we pick kafka "
    long = start + "write headlines today " * 10_000  # 220 kB: what made the news pattern quadratic
    assert router.decide(long) == router.decide(long[:ROUTE_CHARS])
    late = "x " * ROUTE_CHARS + "why did we pick kafka"
    assert router.decide(late).recall is False  # past the documented length nothing is read


def test_ask_refuses_a_question_over_the_cap_in_one_sentence(brain):
    run = aida("ask", "q" * (MAX_QUESTION_CHARS + 1), brain=brain.root)
    assert run.returncode == 2
    lines = [line for line in run.stderr.splitlines() if line.startswith("aida:")]
    assert len(lines) == 1 and str(MAX_QUESTION_CHARS) in lines[0] and "Traceback" not in run.stderr


@pytest.mark.parametrize("q", ["write " * 20_000, "headlines " * 10_000, "how many " * 10_000])
def test_built_in_patterns_decide_on_hundred_kilobyte_questions(q):
    """The cases that were quadratic (news:headlines took 74 s on 100 kB): the decision is made, and
    equals the decision on the first ROUTE_CHARS characters (benchmarks/router_long.py times them)."""
    router = load_router(None)
    assert router.decide(q) == router.decide(q[:ROUTE_CHARS])
