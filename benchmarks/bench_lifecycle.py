"""Lifecycle figures on synthetic brains: INDEX.md, maintain, consolidate, cluster, as-of, sync.

    python benchmarks/bench_lifecycle.py [--sizes 2000] [--repeat 3]

Every figure is a median of ``--repeat`` runs, in seconds, except the as-of build (once: the
first build of a snapshot, then the cached second call). The brain is built once per size with
the synthetic sentences of ``synth.py``, one event per ten records (half of them sharing a key
with another event), and a bare remote for the sync figure.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from synth import sentence, write_brain  # noqa: E402


def timed(fn, repeat: int) -> float:
    xs = []
    for _ in range(repeat):
        t = time.perf_counter()
        fn()
        xs.append(time.perf_counter() - t)
    return statistics.median(xs)


def add_events(root: Path, n: int, seed: int = 11) -> None:
    rng = random.Random(seed)
    folder = root / "events" / "me" / "2025-06"
    folder.mkdir(parents=True, exist_ok=True)
    for i in range(n):
        key = f"ev{i // 2:05d}" if i % 4 < 2 else f"lone{i:05d}"
        rec = {"id": f"20250601-000000000-{i:06x}", "type": "event", "key": key, "profile": "me", "tags": [],
               "body": sentence(rng, 100000 + i // 2), "source": "bench", "created": f"2025-06-01T00:{i % 60:02d}:00Z",
               "confidence": 1, "provenance": [], "expires": None}
        (folder / f"{rec['id']}.json").write_text(json.dumps(rec, sort_keys=True, indent=2) + "\n")
    subprocess.run(["git", "add", "-A"], cwd=root, check=True)
    subprocess.run(["git", "-c", "user.name=Aida", "-c", "user.email=aida@brain.invalid", "commit", "-qm",
                    f"benchmark: {n} events"], cwd=root, check=True)


def bench(n: int, repeat: int, work: Path) -> dict:
    from brain_core import Brain
    from brain_core.lifecycle import cluster, consolidate, maintain, tier_index
    from brain_core.lifecycle.asof import recall_at
    from brain_core.sync import Counters, sync

    root = work / f"brain-{n}"
    write_brain(root, n)
    add_events(root, n // 10)
    brain = Brain.open(root)
    t = time.perf_counter()
    brain.index.rebuild(quiet=True)
    out = {"records": n, "events": n // 10, "index_build_s": time.perf_counter() - t}
    out["index_plan_s"] = timed(lambda: tier_index.plan(brain), repeat)
    out["index_regenerate_s"] = timed(lambda: tier_index.regenerate(brain), repeat)
    out["maintain_dry_run_s"] = timed(lambda: maintain.maintain(brain, dry_run=True), repeat)
    out["consolidate_dry_run_s"] = timed(lambda: consolidate.consolidate(brain, dry_run=True), repeat)
    out["cluster_propose_s"] = timed(lambda: cluster.propose(brain), repeat)
    stamp = time.strftime("%Y-%m-%d", time.gmtime())
    brain.remember("A record written after the snapshot date changes nothing there.", key="late")
    t = time.perf_counter()
    recall_at(brain, stamp, "how does the billing service handle failed requests", k=5)
    out["asof_first_s"] = time.perf_counter() - t
    out["asof_cached_s"] = timed(lambda: recall_at(brain, stamp, "webhook payloads", k=5), repeat)
    bare = work / f"remote-{n}.git"
    subprocess.run(["git", "init", "--bare", "-q", "-b", "main", str(bare)], check=True)
    brain.git.run("remote", "add", "origin", str(bare))
    t = time.perf_counter()
    sync(brain)
    out["sync_first_push_s"] = time.perf_counter() - t
    out["sync_noop_s"] = timed(lambda: sync(brain), repeat)
    counters = Counters(brain)
    counters.reseed()
    out["counter_allocate_s"] = timed(lambda: counters.allocate("task"), repeat)
    brain.close()
    return out


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--sizes", default="2000")
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as d:
        rows = [bench(int(s), args.repeat, Path(d)) for s in args.sizes.split(",")]
    keys = list(rows[0])
    print(f"{'figure':<24}" + "".join(f"{r['records']:>12}" for r in rows))
    for k in keys[2:]:
        print(f"{k:<24}" + "".join(f"{r[k]:>12.3f}" for r in rows))


if __name__ == "__main__":
    main()
