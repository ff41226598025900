"""Router decisions per second: the default patterns over a mix of memory, plain and live questions.

    .venv/bin/python benchmarks/bench_router.py [--rounds 7] [--n 20000]

Prints the median over rounds (each round decides ``n`` questions) and the per-decision time.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from brain_core.answer.router import load_router  # noqa: E402

QUESTIONS = [
    "What did I say about Postgres vacuum settings?",
    "why did we pick SQLite over Postgres",
    "what was my decision on the ORM",
    "how do I reverse a list in Python?",
    "explain the difference between TCP and UDP",
    "what's the latest version of React",
    "what did we discuss in yesterday's standup",
    "is it raining?",
    "any news about the Rust foundation",
    "write a bash loop over files and print each name with its size in a table, sorted by size",
    "remind me what we chose for the queue",
    "my code throws a NullPointerException when the config file is missing",
]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=7)
    ap.add_argument("--n", type=int, default=20000)
    args = ap.parse_args()
    t0 = time.perf_counter()
    router = load_router(None)
    first = time.perf_counter() - t0
    qs = (QUESTIONS * (args.n // len(QUESTIONS) + 1))[: args.n]
    rates = []
    for _ in range(args.rounds):
        start = time.perf_counter()
        for q in qs:
            router.decide(q)
        rates.append(args.n / (time.perf_counter() - start))
    med = statistics.median(rates)
    print(f"router: loading and compiling the default patterns: {first * 1000:.1f} ms (once per process)")
    print(f"router: {med:,.0f} decisions/s median over {args.rounds} rounds of {args.n} "
          f"({1e6 / med:.1f} µs per decision; min {min(rates):,.0f}, max {max(rates):,.0f})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
