"""A child process for the fault suite: writes records, rebuilds the index, or reads, on a real brain.

    python tests/fault_worker.py write BRAIN PREFIX COUNT [BATCH]
    python tests/fault_worker.py rebuild BRAIN
    python tests/fault_worker.py read BRAIN STOPFILE

``write`` prints ``ready`` once the brain is open, then ``ok <id> <path>`` after each ``remember``
(or ``remember_many`` of BATCH records) has returned, so the parent knows exactly which records
Aida reported as written before it kills the process. ``read`` recalls in a loop until STOPFILE
exists and prints ``queries <n> errors <n>`` and one line per error.
"""

from __future__ import annotations

import sys
import time
import traceback
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from brain_core import Brain  # noqa: E402

WORDS = ("ledger invoice gateway certificate webhook retry queue cluster backup archive deploy "
         "schema migration billing payroll tokenizer embedding rollout canary").split()


def body_for(prefix: str, i: int) -> str:
    w = [WORDS[(i * 7 + j) % len(WORDS)] for j in range(4)]
    return f"Record {prefix}-{i}: the {w[0]} {w[1]} talks to the {w[2]} {w[3]} every {i % 9 + 1} minutes."


def write(root: str, prefix: str, count: int, batch: int = 1) -> None:
    brain = Brain.open(root)
    brain.embedder.embed(["warm up"])  # load the model before the parent starts its clock
    brain.head()  # and the git layer (GitPython is imported on first use)
    print("ready", flush=True)
    i = 0
    while i < count:
        items = []
        for j in range(i, min(i + batch, count)):
            if j % 5 == 4:  # every fifth record is an event, on the id-named shelf
                items.append(dict(body=body_for(prefix, j), type="event", key=f"{prefix}-{j}"))
            else:
                items.append(dict(body=body_for(prefix, j), key=f"{prefix}-{j}", tags=["fault-suite"]))
        recs = brain.remember_many(items)
        for rec in recs:
            rel = (f"events/me/{rec.created[:7]}/{rec.id}.json" if rec.type == "event"
                   else f"memories/me/{rec.key}.json")
            print(f"ok {rec.id} {rel}", flush=True)
        i += len(items)
    print("done", flush=True)


def rebuild(root: str) -> None:
    brain = Brain.open(root)
    print("ready", flush=True)
    stats = brain.index.rebuild(quiet=True)
    print(f"rebuilt {stats.written if stats else -1}", flush=True)


def read(root: str, stopfile: str) -> None:
    brain = Brain.open(root)
    brain.embedder.embed(["warm up"])
    print("ready", flush=True)
    queries, errors = 0, []
    stop = Path(stopfile)
    while not stop.exists():
        try:
            brain.recall(WORDS[queries % len(WORDS)] + " record", k=5, touch=queries % 2 == 0)
            if queries % 7 == 0:
                brain.recall("", recent=True, k=3)
        except BaseException as e:  # noqa: BLE001 - the point is to report any error at all
            errors.append(f"{e.__class__.__name__}: {e} | {traceback.format_exc(limit=3)!r}")
        queries += 1
        time.sleep(0.01)
    print(f"queries {queries} errors {len(errors)}", flush=True)
    for e in errors:
        print(e, flush=True)


if __name__ == "__main__":
    cmd, args = sys.argv[1], sys.argv[2:]
    if cmd == "write":
        write(args[0], args[1], int(args[2]), int(args[3]) if len(args) > 3 else 1)
    elif cmd == "rebuild":
        rebuild(args[0])
    elif cmd == "read":
        read(args[0], args[1])
    else:
        raise SystemExit(f"unknown command {cmd}")
