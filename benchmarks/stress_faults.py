"""The long fault runs: hundreds of SIGKILLs mid-write and mid-rebuild, four writers at once, damaged indexes.

    python benchmarks/stress_faults.py                       # the full run (about half an hour on 2 cores)
    python benchmarks/stress_faults.py --write-kills 40 --rebuild-kills 20 --writers 4 --each 50 --damage 20

Prints the counts (trials, faults injected, records reported written, records lost) that
docs/RELIABILITY.md quotes, and exits non-zero if anything was lost. The scenarios are the same
code as tests/integration/test_faults.py (tests/helpers/faultlib.py), at larger sizes.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.helpers.faultlib import DAMAGE, concurrent_writers, crash_rebuilds, crash_writes, damage_index  # noqa: E402


def audit_line(a) -> str:
    return (f"reported {a.reported}, on disk {a.record_files}, in index {a.index_docs}, lost {a.lost}, "
            f"torn {len(a.torn)}, index mismatches {len(a.index_mismatch)}, temp files left {a.temp_files}, "
            f"uncommitted {a.uncommitted}, git lock left {a.git_lock_left}")


def damage_trials(workdir: Path, trials: int, rng: random.Random) -> dict:
    import io
    from contextlib import redirect_stderr

    from brain_core import Brain

    brain = Brain.init(workdir / "damage")
    brain.remember_many([dict(body=f"Damage stress record {i}: bay {i} of the grain silo.", key=f"silo-{i}")
                         for i in range(60)])
    brain.remember("The spare fuses are in the red tin on the top shelf.", key="fuses")
    embedder = brain.embedder
    brain.close()
    ok = raised = notices_over_one = 0
    kinds: dict[str, int] = {}
    for t in range(trials):
        kind = DAMAGE[t % len(DAMAGE)]
        kinds[kind] = kinds.get(kind, 0) + 1
        damage_index(brain.root / ".aida/index.sqlite", kind, rng)
        err = io.StringIO()
        b = Brain.open(brain.root)
        b._embedder = embedder
        try:
            with redirect_stderr(err):
                hits = b.recall("where are the spare fuses", k=3, touch=False)
                every = b.recall("grain silo bay", k=100, touch=False)
            if hits and hits[0].record.key == "fuses" and len(every) == 61:
                ok += 1
        except Exception as e:  # noqa: BLE001 - counting any error is the point
            raised += 1
            print(f"  recall raised after {kind}: {e.__class__.__name__}: {e}", file=sys.stderr)
        finally:
            b.close()
        if len([line for line in err.getvalue().splitlines() if line.strip()]) > 1:
            notices_over_one += 1
    return {"trials": trials, "kinds": kinds, "answered": ok, "raised": raised, "noisy": notices_over_one}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--write-kills", type=int, default=200)
    ap.add_argument("--rebuild-kills", type=int, default=50)
    ap.add_argument("--writers", type=int, default=4)
    ap.add_argument("--each", type=int, default=250)
    ap.add_argument("--damage", type=int, default=45)
    ap.add_argument("--seed", type=int, default=20260822)
    ap.add_argument("--json", type=Path)
    args = ap.parse_args(argv)
    rng = random.Random(args.seed)
    out: dict = {}
    failed = False
    from brain_core import Brain

    with tempfile.TemporaryDirectory(prefix="aida-stress-") as tmp:
        work = Path(tmp)
        if args.write_kills:
            t = time.perf_counter()
            root = work / "writes"
            Brain.init(root).close()
            res = crash_writes(root, args.write_kills, rng, per_child=60, window=2.5)
            a = res["audit"]
            print(f"crash during write: {res['trials']} children, {res['kills']} SIGKILLed mid-run, "
                  f"{res['finished']} finished first; {audit_line(a)} ({time.perf_counter() - t:.0f} s)")
            out["write"] = {**{k: v for k, v in res.items() if k != "audit"}, **a.__dict__, "lost": a.lost}
            failed |= bool(a.lost or a.torn or a.index_mismatch or a.git_lock_left)
        if args.rebuild_kills:
            t = time.perf_counter()
            root = work / "rebuilds"
            brain = Brain.init(root)
            brain.remember_many([dict(body=f"Rebuild stress note {i}: pallet {i} in the cold store.", key=f"pallet-{i}")
                                 for i in range(400)])
            brain.remember("The lighthouse keeper logs the fog horn tests every Tuesday.", key="lighthouse")
            brain.close()
            res = crash_rebuilds(root, args.rebuild_kills, rng, "lighthouse fog horn", "lighthouse", edits=40)
            print(f"crash during rebuild: {res['trials']} rebuilds, {res['kills']} SIGKILLed mid-run; the old index "
                  f"answered after {res['answered']}/{res['trials']}; at most {res['max_tmp']} temp file at a time; "
                  f"final rebuild completed: {res['final_rebuild']} ({res['stale_after'] or 'catalog matches the files'}); "
                  f"temp files left: {len(res['tmp_left'])}; 40 files hand-edited before each "
                  f"({time.perf_counter() - t:.0f} s)")
            out["rebuild"] = res
            failed |= (res["answered"] != res["trials"] or not res["final_rebuild"] or bool(res["tmp_left"])
                       or bool(res["stale_after"]))
        if args.writers:
            t = time.perf_counter()
            root = work / "concurrent"
            Brain.init(root).close()
            res = concurrent_writers(root, args.writers, args.each, readers=1)
            a = res["audit"]
            print(f"concurrency: {res['writers']} processes x {res['each']} records; exit codes {res['exit_codes']}; "
                  f"{res['commits']} commits; reader: {res['queries']} queries, {len(res['read_errors'])} errors; "
                  f"{audit_line(a)} ({time.perf_counter() - t:.0f} s)")
            for e in res["read_errors"][:5] + res["writer_errors"][:5]:
                print("  " + e, file=sys.stderr)
            out["concurrency"] = {**{k: v for k, v in res.items() if k != "audit"}, **a.__dict__, "lost": a.lost}
            failed |= bool(a.lost or a.index_mismatch or a.git_lock_left or res["read_errors"]
                           or res["commits"] != args.writers * args.each)
        if args.damage:
            t = time.perf_counter()
            res = damage_trials(work, args.damage, rng)
            print(f"corrupt index: {res['trials']} damaged indexes ({', '.join(f'{k} x{v}' for k, v in res['kinds'].items())}); "
                  f"recall answered right after {res['answered']}, raised {res['raised']}, "
                  f"more than one notice {res['noisy']} ({time.perf_counter() - t:.0f} s)")
            out["damage"] = res
            failed |= res["answered"] != res["trials"] or bool(res["raised"])
    if args.json:
        args.json.write_text(json.dumps(out, indent=2, default=str))
    print("FAILED: see above" if failed else "all fault runs passed: nothing reported written was lost")
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
