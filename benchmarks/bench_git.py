"""The git layer on the write path: remember -> recall, a commit alone, and HEAD reads, on a synthetic brain.

    python benchmarks/bench_git.py [--size 10000] [--writes 15]

Prints medians: remember then recall (the path ``aida brain remember`` + ``recall`` takes), one
commit of one changed file through ``brain.git.commit``, and ``brain.head()``.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from synth import write_brain  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--size", type=int, default=10000)
    ap.add_argument("--writes", type=int, default=15)
    args = ap.parse_args()
    os.environ.setdefault("AIDA_CONFIG", os.path.join(tempfile.gettempdir(), "aida-bench-config.yaml"))
    from brain_core import Brain

    with tempfile.TemporaryDirectory(prefix="aida-bench-git-") as tmp:
        root = Path(tmp) / "brain"
        write_brain(root, args.size)
        brain = Brain.open(root)
        brain.index.rebuild(quiet=True)
        brain.recall("warm up", k=5, touch=False)
        wr, commits, heads = [], [], []
        for i in range(args.writes):
            body = f"Fresh benchmark decision {i}: the zebra gateway rotates certificates on the {i + 3}th."
            t = time.perf_counter()
            brain.remember(body, key=f"fresh-{i}", profile="me")
            hits = brain.recall(f"zebra gateway certificates {i + 3}th", k=3, touch=False)
            wr.append(time.perf_counter() - t)
            assert any(h.record.key == f"fresh-{i}" for h in hits)
        for i in range(args.writes):
            (root / "notes.md").write_text(f"note {i}\n")
            t = time.perf_counter()
            with brain.lock():
                brain.git.commit(["notes.md"], f"bench: note {i}")
            commits.append(time.perf_counter() - t)
        for _ in range(args.writes):
            t = time.perf_counter()
            brain.head()
            heads.append(time.perf_counter() - t)
        brain.close()
    print(f"records {args.size:,} | remember->recall p50 {statistics.median(wr) * 1000:.1f} ms | "
          f"commit p50 {statistics.median(commits) * 1000:.1f} ms | head p50 {statistics.median(heads) * 1000:.2f} ms")


if __name__ == "__main__":
    main()
