"""The session-start hook: time of the real hook command and the size of what it prints.

Builds a brain of N durable records over a few projects (plus standing instructions), generates
INDEX.md, installs Aida's Claude Code hooks into a temporary home, and runs the SessionStart
command they hold, through a shell, 20 times with Claude Code's SessionStart JSON on stdin (the
session's cwd a git checkout of one project). Prints the median and slowest wall time, the
characters of the block (and of the JSON around it) and, as the floor, the median time of the
same interpreter starting the CLI for `--help`.

    PYTHONPATH=. python benchmarks/bench_session_start.py [--records N] [--runs 20]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

PROJECTS = ["billing", "search", "mobile-app", "data-pipeline"]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--records", type=int, default=500)
    ap.add_argument("--runs", type=int, default=20)
    args = ap.parse_args()
    from brain_core import Brain
    from brain_core.agents.hooks import apply, plan_install
    from brain_core.config import Config
    from brain_core.lifecycle.tier_index import regenerate

    tmp = Path(tempfile.mkdtemp(prefix="aida-start-"))
    os.environ["AIDA_CONFIG"] = str(tmp / "config.yaml")
    brain = Brain.init(tmp / "brain", config=Config.load(tmp / "config.yaml"))
    items = [dict(body=f"Never {verb} without asking first.", key=f"rule-{i}", type="instruction")
             for i, verb in enumerate(["force-push to main", "drop a table", "rotate the keys", "skip the tests"])]
    for i in range(args.records):
        p = PROJECTS[i % len(PROJECTS)]
        items.append(dict(body=f"The {p} service {i} keeps its queue {i} on port {9000 + i}, decided after incident {i}.",
                          key=f"{p}-fact-{i}", type=("decision", "fact", "preference")[i % 3], profile="claude",
                          tags=[f"project:{p}"], created=f"2026-{1 + i % 12:02d}-{1 + i % 28:02d}T10:00:00Z"))
    brain.remember_many(items, message="bench: session start")
    plan = regenerate(brain)
    brain.close()
    home = tmp / "home"
    (home / ".claude").mkdir(parents=True)
    apply(plan_install("claude", str(tmp / "brain"), home / ".claude"))
    settings = json.loads((home / ".claude" / "settings.json").read_text())
    [cmd] = [h["command"] for g in settings["hooks"]["SessionStart"] for h in g["hooks"]]
    repo = tmp / "code" / "billing"
    (repo / "src").mkdir(parents=True)
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    payload = json.dumps({"session_id": "5b0c7c86-4a52-4d0e-9a1b-2f7f3c1d8e10",
                          "transcript_path": str(home / ".claude" / "projects" / "x.jsonl"), "cwd": str(repo / "src"),
                          "hook_event_name": "SessionStart", "source": "startup"})
    env = {**os.environ, "HOME": str(home)}

    def timed(command: str, stdin: str) -> tuple[float, str]:
        t0 = time.perf_counter()
        out = subprocess.run(command, shell=True, input=stdin, capture_output=True, text=True, cwd=str(repo / "src"),
                             env=env, check=True).stdout
        return (time.perf_counter() - t0) * 1000, out

    runs = [timed(cmd, payload) for _ in range(args.runs)]
    floor = [timed(f"{sys.executable} -m brain_core --help", "")[0] for _ in range(args.runs)]
    from brain_core.agents.session_start import build

    inside = []
    for _ in range(args.runs):
        t0 = time.perf_counter()
        build(tmp / "brain", 6000, "billing")
        inside.append((time.perf_counter() - t0) * 1000)
    ms = [t for t, _ in runs]
    out = runs[-1][1]
    block = json.loads(out)["hookSpecificOutput"]["additionalContext"]
    print(f"brain: {len(items)} records, INDEX.md {plan.chars} characters ({plan.loaded} entries, "
          f"{plan.shelved} on the shelf)")
    print(f"hook command: {cmd}")
    print(f"session-start hook, {args.runs} runs: median {statistics.median(ms):.0f} ms, slowest {max(ms):.0f} ms; "
          f"python -m brain_core --help: median {statistics.median(floor):.0f} ms; "
          f"the block itself (in-process build): median {statistics.median(inside):.1f} ms")
    print(f"block: {len(block)} characters (budget {6000}), JSON printed {len(out)} characters; "
          f"sections: {', '.join(line[3:] for line in block.splitlines() if line.startswith('## '))}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
