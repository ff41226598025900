"""How long the router takes on long questions: ``python benchmarks/router_long.py``.

Prints, for question shapes that made built-in patterns slow (many verbs before "headlines", many
repeats of a pattern's first words), the median seconds of ``Router.decide`` over three runs at
1 kB, 10 kB and 100 kB. Linear patterns and the ROUTE_CHARS cap keep every figure near the 1 kB one.
"""

from __future__ import annotations

import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from brain_core.answer.router import load_router  # noqa: E402

SHAPES = {
    "prose": "the quick brown fox jumps over the lazy dog ",
    "verbs": "write ",
    "verbs-then-headlines": "write the headlines ",
    "how-many": "how many ",
    "which": "which ",
}


def main() -> None:
    router = load_router(None)
    print(f"{'shape':<22}" + "".join(f"{n // 1000:>8} kB" for n in (1_000, 10_000, 100_000)))
    for name, unit in SHAPES.items():
        row = []
        for size in (1_000, 10_000, 100_000):
            q = (unit * (size // len(unit) + 1))[:size]
            times = []
            for _ in range(3):
                t = time.perf_counter()
                router.decide(q)
                times.append(time.perf_counter() - t)
            row.append(statistics.median(times))
        print(f"{name:<22}" + "".join(f"{t:>9.4f}s" for t in row))


if __name__ == "__main__":
    main()
