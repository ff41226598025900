"""What the near-duplicate checks cost on a brain of 10k records (benchmarks/synth.py, mixed profiles).

- remember -> recall (bench_core's "write->recall" step) with the write-time link on and off,
  interleaved in one process so both see the same machine load; the median of each and the ratio;
- the link check alone (embedding the new record is shared with the write that follows);
- ``find_pairs`` over every durable record (what ``aida brain lint`` and ``consolidate`` add).

    PYTHONPATH=. python benchmarks/bench_dedupe_write.py [--n 10000] [--reps 9]
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from synth import write_brain  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=10000)
    ap.add_argument("--reps", type=int, default=9)
    ap.add_argument("--dir", help="keep the synthetic brain here and reuse it on the next run")
    args = ap.parse_args()
    os.environ.setdefault("AIDA_CONFIG", os.path.join(tempfile.gettempdir(), "aida-bench-config.yaml"))
    from brain_core import Brain
    from brain_core.brain.dedupe import Linker, find_pairs

    with tempfile.TemporaryDirectory(prefix="aida-bench-dedupe-") as tmp:
        root = Path(args.dir or tmp) / f"brain-{args.n}"
        if not (root / ".aida" / "index.sqlite").exists():
            write_brain(root, args.n)
            brain = Brain.open(root)
            t = time.perf_counter()
            brain.index.rebuild(quiet=True)
            print(f"[{args.n}] index built in {time.perf_counter() - t:.0f} s", file=sys.stderr, flush=True)
        brain = Brain.open(root)
        brain.recall("warm up", k=5, touch=False)
        times: dict[bool, list[float]] = {True: [], False: []}
        for i in range(args.reps):
            for on in (i % 2 == 0, i % 2 != 0):
                brain.config.set("dedupe.link_on_write", on)
                body = f"Fresh benchmark decision {i}{int(on)}: the zebra gateway rotates certificates on the {i + 3}th."
                t = time.perf_counter()
                brain.remember(body, key=f"fresh-{i}-{int(on)}-{time.time_ns()}", profile="me")
                hits = brain.recall(f"zebra gateway certificates {i + 3}th", k=3, touch=False)
                times[on].append(time.perf_counter() - t)
                assert any(h.record.key.startswith(f"fresh-{i}-{int(on)}-") for h in hits)
        on, off = statistics.median(times[True]) * 1000, statistics.median(times[False]) * 1000

        # the link check alone, for a record not yet written (its vector already computed)
        from brain_core.records import Record

        check = []
        for i in range(args.reps):
            rec = Record(id=f"x{i}", type="fact", key=f"probe-{i}", profile="me",
                         body=f"Probe {i}: the walrus service drains its queue every {i + 2} minutes.")
            linker = Linker(brain)
            linker.link(rec, f"memories/me/probe-{i}.json")  # embeds it: not timed
            brain.index.fresh_vectors.clear()
            vec, conn = brain.embedder.embed([rec.body])[0], brain.index.conn()
            t = time.perf_counter()
            linker._in_catalog(conn, rec, vec)
            check.append(time.perf_counter() - t)

        t = time.perf_counter()
        pairs = find_pairs(brain)
        pairs_s = time.perf_counter() - t
        brain.close()
    print(f"records: {args.n:,}; remember -> recall p50: link off {off:.1f} ms, link on {on:.1f} ms "
          f"(x{on / off:.2f}); link check alone p50 {statistics.median(check) * 1000:.2f} ms "
          f"(keyword matches from other profiles, their stored vectors, word checks; excludes the embedding)")
    print(f"find_pairs over {args.n:,} records: {pairs_s:.1f} s, {len(pairs)} near-duplicate pairs "
          "(synthetic records share templates)")


if __name__ == "__main__":
    main()
