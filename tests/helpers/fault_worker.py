"""A child process for the fault suite: writes records, rebuilds the index, or reads, on a real brain.

    python -m tests.helpers.fault_worker write BRAIN PREFIX COUNT [BATCH [STOP_AT]]
    python -m tests.helpers.fault_worker rebuild BRAIN
    python -m tests.helpers.fault_worker read BRAIN STOPFILE

``write`` prints ``ready`` once the brain is open, then ``ok <id> <path>`` after each ``remember``
(or ``remember_many`` of BATCH records) has returned, so the parent knows exactly which records
Aida reported as written before it kills the process. With STOP_AT > 0 it stops for good at its
STOP_AT-th *write moment* (a record file opened for writing, or a file renamed onto a record path),
right after the open or right before the rename, and prints ``paused open|replace <path>``: the
parent kills it there, at the moment a torn file would exist if writes were not atomic. ``read`` recalls in a loop until STOPFILE
exists and prints ``queries <n> errors <n>`` and one line per error.
"""

from __future__ import annotations

import sys
import time
import traceback
from pathlib import Path

from brain_core import Brain

WORDS = ("ledger invoice gateway certificate webhook retry queue cluster backup archive deploy "
         "schema migration billing payroll tokenizer embedding rollout canary").split()


def body_for(prefix: str, i: int) -> str:
    w = [WORDS[(i * 7 + j) % len(WORDS)] for j in range(4)]
    return f"Record {prefix}-{i}: the {w[0]} {w[1]} talks to the {w[2]} {w[3]} every {i % 9 + 1} minutes."


def stop_at_write_moment(root: str, k: int) -> None:
    """Hook every way Python opens or renames a file, and stop at the k-th one that touches a record
    file on the shelves (whatever way the write path chooses to write: temp file and rename, or in
    place)."""
    import builtins
    import io
    import os

    shelves = ("memories", "events", "lessons")
    top = Path(os.path.realpath(root))
    seen = [0]

    def moment(what: str, path) -> None:
        try:
            full = Path(os.path.realpath(os.fspath(path)))
            rel = full.relative_to(top)
        except (TypeError, ValueError):  # a file descriptor, or a path outside the brain
            return
        if not rel.parts or rel.parts[0] not in shelves:
            return
        seen[0] += 1
        if seen[0] == k:
            print(f"paused {what} {rel.as_posix()}", flush=True)
            while True:  # the parent kills the process here
                time.sleep(60)

    real_os_open, real_open, real_replace, real_rename = os.open, io.open, os.replace, os.rename
    writing = os.O_WRONLY | os.O_RDWR

    def os_open(path, flags, *args, **kwargs):
        fd = real_os_open(path, flags, *args, **kwargs)
        if flags & writing:
            moment("open", path)
        return fd

    def py_open(file, mode="r", *args, **kwargs):
        f = real_open(file, mode, *args, **kwargs)
        if any(c in mode for c in "wax+"):
            moment("open", file)
        return f

    def replace(src, dst, *args, **kwargs):
        moment("replace", dst)
        return real_replace(src, dst, *args, **kwargs)

    def rename(src, dst, *args, **kwargs):
        moment("replace", dst)
        return real_rename(src, dst, *args, **kwargs)

    os.open, os.replace, os.rename = os_open, replace, rename
    io.open = builtins.open = py_open


def write(root: str, prefix: str, count: int, batch: int = 1, stop_at: int = 0) -> None:
    brain = Brain.open(root)
    brain.embedder.embed(["warm up"])  # load the model before the parent starts its clock
    brain.head()  # and the git layer (GitPython is imported on first use)
    if stop_at > 0:
        stop_at_write_moment(root, stop_at)
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
        write(args[0], args[1], int(args[2]), int(args[3]) if len(args) > 3 else 1,
              int(args[4]) if len(args) > 4 else 0)
    elif cmd == "rebuild":
        rebuild(args[0])
    elif cmd == "read":
        read(args[0], args[1])
    else:
        raise SystemExit(f"unknown command {cmd}")
