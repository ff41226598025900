"""The git layer on the write path: remember -> recall, and a cold ``aida brain remember``, on a 10k brain.

    python benchmarks/bench_git.py [--size 10000] [--writes 15] [--keep DIR] [--code DIR ...]

The synthetic brain (records, commit, index) is built once (in ``--keep DIR`` when given, reused by
later runs); every measured run works on a fresh copy of it. ``--code`` names checkouts whose
``brain_core`` is measured (default: this one), each in its own process, in turn, twice, so a
before/after comparison sees the same machine load: e.g. ``--code /path/to/main .``.
Prints the median of each run and, with two checkouts, the ratio of the medians.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent


def build(root: Path, size: int) -> None:
    sys.path.insert(0, str(HERE))
    from synth import write_brain

    from brain_core import Brain

    write_brain(root, size)
    brain = Brain.open(root)
    brain.index.rebuild(quiet=True)
    brain.close()


def measure(src: Path, writes: int) -> dict:
    sys.path.insert(0, str(HERE))
    from synth import write_then_recall

    from brain_core import Brain

    work = Path(tempfile.mkdtemp(prefix="aida-bench-git-")) / "brain"
    try:
        shutil.copytree(src, work, symlinks=True)
        brain = Brain.open(work)
        brain.recall("warm up", k=5, touch=False)
        brain.remember("A warm-up write.", key="warm-up")
        wr = write_then_recall(brain, writes)
        brain.close()
        env = dict(os.environ, AIDA_BRAIN=str(work), PYTHONPATH=os.environ.get("PYTHONPATH", ""))
        cold = []
        for i in range(5):
            t = time.perf_counter()
            subprocess.run([sys.executable, "-m", "brain_core", "brain", "remember", "--key", f"cold-{i}",
                            f"Cold write {i} about the quartz relay."], env=env, check=True, capture_output=True)
            cold.append(time.perf_counter() - t)
        return {"remember_recall_ms": statistics.median(wr) * 1000, "cold_remember_ms": statistics.median(cold) * 1000}
    finally:
        shutil.rmtree(work.parent, ignore_errors=True)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--size", type=int, default=10000)
    ap.add_argument("--writes", type=int, default=15)
    ap.add_argument("--keep", help="build the synthetic brain here once and reuse it")
    ap.add_argument("--code", nargs="*", default=[str(HERE.parent)], help="checkouts whose brain_core is measured")
    ap.add_argument("--child", nargs=2, metavar=("MODE", "BRAIN"), help=argparse.SUPPRESS)
    args = ap.parse_args()
    os.environ.setdefault("AIDA_CONFIG", os.path.join(tempfile.gettempdir(), "aida-bench-config.yaml"))
    if args.child:
        mode, brain = args.child
        if mode == "build":
            build(Path(brain), args.size)
        else:
            print(json.dumps(measure(Path(brain), args.writes)))
        return
    tmp = None
    src = Path(args.keep) if args.keep else Path(tempfile.mkdtemp(prefix="aida-bench-git-src-")) / "brain"
    tmp = None if args.keep else src.parent
    codes = [str(Path(c).resolve()) for c in args.code]

    def child(code: str, mode: str) -> str:
        env = dict(os.environ, PYTHONPATH=code)
        proc = subprocess.run([sys.executable, str(Path(__file__).resolve()), "--size", str(args.size), "--writes",
                               str(args.writes), "--child", mode, str(src)], env=env, capture_output=True, text=True,
                              cwd=tempfile.gettempdir())
        if proc.returncode != 0:
            raise SystemExit(proc.stderr[-2000:])
        return proc.stdout

    try:
        if not (src / ".aida" / "index.sqlite").exists():
            child(codes[0], "build")
        runs: dict[str, list[dict]] = {c: [] for c in codes}
        for _ in range(2):
            for c in codes:
                runs[c].append(json.loads(child(c, "measure").strip().splitlines()[-1]))
                r = runs[c][-1]
                print(f"{c}: remember->recall p50 {r['remember_recall_ms']:.1f} ms, cold `aida brain remember` "
                      f"p50 {r['cold_remember_ms']:.0f} ms", flush=True)
        meds = {c: {k: statistics.median(r[k] for r in runs[c]) for k in runs[c][0]} for c in codes}
        print(f"records {args.size:,} | " + " | ".join(
            f"{c}: remember->recall {m['remember_recall_ms']:.1f} ms, cold remember {m['cold_remember_ms']:.0f} ms"
            for c, m in meds.items()))
        if len(codes) == 2:
            a, b = (meds[c] for c in codes)
            print(f"ratio (second / first): remember->recall {b['remember_recall_ms'] / a['remember_recall_ms']:.2f}, "
                  f"cold remember {b['cold_remember_ms'] / a['cold_remember_ms']:.2f}")
    finally:
        if tmp is not None:
            shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
