"""Fault scenarios shared by tests/integration/test_faults.py (small) and benchmarks/stress_faults.py (large).

Each scenario runs real child processes (tests/helpers/fault_worker.py) against a real brain, injects the
fault (SIGKILL of the whole process group, damage to the index file, four writers at once) and
returns counts; the checks that no reported record was lost are in :func:`audit`, used by both,
and the checks made at the moment of each kill are in :func:`check_at_kill`.

Kills are placed by events, not by clocks, so a loaded machine changes nothing but the run time:
a child is killed at its k-th write moment (it stops there and says so), or after its n-th
acknowledged write plus a fraction of the time that write took.
"""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

from tests.helpers.paths import REPO

SHELF_GLOBS = ("memories/*/*.json", "events/*/*/*.json", "lessons/*.json")


@dataclass
class Child:
    proc: subprocess.Popen
    lines: list[str] = field(default_factory=list)
    times: list[float] = field(default_factory=list)  # time.monotonic() of each line
    err: list[str] = field(default_factory=list)
    ready: threading.Event = field(default_factory=threading.Event)
    changed: threading.Condition = field(default_factory=threading.Condition)
    closed: bool = False
    threads: list[threading.Thread] = field(default_factory=list)

    def reported(self) -> list[tuple[str, str]]:
        """(id, path) of every record the child said ``remember`` returned for."""
        return [tuple(line.split()[1:3]) for line in self.lines if line.startswith("ok ")]

    def wait_for(self, predicate, timeout: float = 600) -> bool:
        """Wait until ``predicate(self)`` holds or the child's output ends; whether it held."""
        deadline = time.monotonic() + timeout
        with self.changed:
            while not predicate(self):
                if self.closed or time.monotonic() > deadline:
                    return predicate(self)
                self.changed.wait(1.0)
        return True

    def paused(self) -> str | None:
        return next((line for line in self.lines if line.startswith("paused ")), None)

    def join(self) -> None:
        for t in self.threads:
            t.join(timeout=10)


def spawn(*args: str, env: dict | None = None) -> Child:
    proc = subprocess.Popen([sys.executable, "-m", "tests.helpers.fault_worker", *args],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, cwd=str(REPO), start_new_session=True, env=env)
    child = Child(proc)

    def pump_out() -> None:
        for line in proc.stdout:  # type: ignore[union-attr]
            with child.changed:
                child.lines.append(line.strip())
                child.times.append(time.monotonic())
                child.changed.notify_all()
            if line.startswith("ready"):
                child.ready.set()
        with child.changed:
            child.closed = True
            child.changed.notify_all()
        child.ready.set()

    def pump_err() -> None:
        for line in proc.stderr:  # type: ignore[union-attr]
            child.err.append(line)

    child.threads = [threading.Thread(target=pump_out, daemon=True), threading.Thread(target=pump_err, daemon=True)]
    for t in child.threads:
        t.start()
    return child


def kill_group(child: Child) -> None:
    """SIGKILL the child and every process it started (git), as a crash or power cut would."""
    try:
        os.killpg(child.proc.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass
    child.proc.wait()
    child.join()


def finish(child: Child, timeout: float = 300) -> str:
    """Wait for the child to exit; returns its stderr."""
    try:
        child.proc.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        kill_group(child)
        raise
    child.join()
    return "".join(child.err)


def git(root: Path, *args: str, input: str | None = None) -> str:
    return subprocess.run(["git", *args], cwd=root, capture_output=True, text=True, check=True, input=input).stdout


# -- the audit: nothing reported is lost --------------------------------------------------------------------


@dataclass
class Audit:
    record_files: int = 0
    reported: int = 0
    lost_on_disk: list[str] = field(default_factory=list)
    lost_in_git: list[str] = field(default_factory=list)
    torn: list[str] = field(default_factory=list)
    temp_files: int = 0
    index_docs: int = 0
    index_mismatch: list[str] = field(default_factory=list)
    git_lock_left: bool = False
    uncommitted: int = 0
    kills_checked: int = 0  # kills after which check_at_kill looked at the files at once

    @property
    def lost(self) -> int:
        return len(set(self.lost_on_disk) | set(self.lost_in_git))


def check_at_kill(root: Path, reported: list[tuple[str, str]]) -> tuple[list[str], list[str]]:
    """``(torn, missing)`` right after a kill, before any other process touches the brain: every
    record file present must parse completely, and every acknowledged write must be on disk with
    the id that was reported. A write that is not atomic leaves a truncated or empty file here."""
    from brain_core.errors import MalformedRecord
    from brain_core.records import Record

    torn, ids = [], {}
    for pattern in SHELF_GLOBS:
        for p in root.glob(pattern):
            if p.name.startswith("."):
                continue  # a temp file of an interrupted atomic write: never read as a record
            rel = p.relative_to(root).as_posix()
            try:
                ids[rel] = Record.from_bytes(p.read_bytes(), rel).id
            except (MalformedRecord, OSError) as e:
                torn.append(f"{rel} ({e})")
    missing = [f"{rel} ({rid})" for rid, rel in reported if ids.get(rel) != rid]
    return torn, missing


def audit(root: Path, reported: list[tuple[str, str]]) -> Audit:
    """Compare what was reported with the files, git's HEAD and (after a sync) the index."""
    from brain_core import Brain
    from brain_core.errors import MalformedRecord
    from brain_core.records import Record

    a = Audit(reported=len(reported))
    on_disk: dict[str, str] = {}
    for pattern in SHELF_GLOBS:
        for p in root.glob(pattern):
            rel = p.relative_to(root).as_posix()
            if p.name.startswith("."):
                continue
            a.record_files += 1
            try:
                on_disk[rel] = Record.from_bytes(p.read_bytes(), rel).id
            except MalformedRecord:
                a.torn.append(rel)
    a.temp_files = sum(1 for p in root.rglob(".*.tmp-*") if ".git" not in p.parts)
    tree = {}
    for line in git(root, "ls-tree", "-r", "HEAD").splitlines():
        meta, path = line.split("\t", 1)
        tree[path] = meta.split()[2]
    blobs = [tree[p] for _, p in reported if p in tree]
    contents = _cat_blobs(root, blobs)
    for rid, rel in reported:
        if on_disk.get(rel) != rid:
            a.lost_on_disk.append(f"{rel} ({rid})")
        blob = tree.get(rel)
        if blob is None or rid not in contents.get(blob, ""):
            a.lost_in_git.append(f"{rel} ({rid})")
    a.uncommitted = len([p for p in git(root, "status", "--porcelain", "--untracked-files=all", "--",
                                        "memories", "events", "lessons").splitlines() if p.strip()])
    brain = Brain.open(root)
    try:
        brain.index.sync()
        report = brain.index.scan()
        if report.changes:
            a.index_mismatch.append("a second scan still finds changes: " + report.summary())
        conn = brain.index.conn()
        rows = dict(conn.execute("SELECT path, id FROM docs WHERE shelf IN ('memories','events','lessons')"))
        a.index_docs = len(rows)
        good = {p: i for p, i in on_disk.items() if p not in a.torn}
        if rows != good:
            missing = sorted(set(good) - set(rows))[:5]
            extra = sorted(set(rows) - set(good))[:5]
            a.index_mismatch.append(f"index != files: missing {missing}, extra {extra}")
    finally:
        brain.close()
    a.git_lock_left = (root / ".git" / "index.lock").exists()
    return a


def _cat_blobs(root: Path, blobs: list[str]) -> dict[str, str]:
    if not blobs:
        return {}
    out = subprocess.run(["git", "cat-file", "--batch"], cwd=root, input=("\n".join(blobs) + "\n").encode(),
                         capture_output=True, check=True).stdout
    res, i = {}, 0
    while i < len(out):
        nl = out.index(b"\n", i)
        sha, _kind, size = out[i:nl].decode().split()
        body = out[nl + 1: nl + 1 + int(size)]
        res[sha] = body.decode("utf-8", "replace")
        i = nl + 1 + int(size) + 1
    return res


# -- scenarios -----------------------------------------------------------------------------------------------


def crash_writes(root: Path, trials: int, rng: random.Random, per_child: int = 40, window: float | None = None,
                 batch_every: int = 3, moments: int = 12, acks: int = 4) -> dict:
    """``trials`` writer children, each SIGKILLed mid-run; then one clean write (the recovery) and
    the audit. Every third child writes in batches of 5; every other child redoes the same list of
    records from the start (as a harvester re-runs after a crash), so what an earlier child left
    half-done is met again.

    Where each kill lands is decided by events: half the children stop at their k-th write moment
    (k in 1..``moments``: a record file just opened for writing, or about to be renamed into place)
    and are killed there; the others are killed after their n-th acknowledged write (n in
    1..``acks``) plus a random fraction of the time that write took, inside the next one (its
    index row, its git commit). With ``window`` (seconds), children are killed at a random time
    instead (the long benchmark). At every kill :func:`check_at_kill` looks at the files at once;
    what it finds goes into the audit (``torn``, ``lost_on_disk``), prefixed with the kill."""
    reported: list[tuple[str, str]] = []
    kills = finished = paused = min_acks = 0
    torn_at_kill: list[str] = []
    missing_at_kill: list[str] = []
    for t in range(trials):
        batch = 5 if t % batch_every == batch_every - 1 else 1
        prefix = "redo" if t % 2 else f"t{t}"
        mode = "window" if window is not None else ("moment" if t % 4 in (0, 3) else "acks")
        stop_at = rng.randint(1, moments) if mode == "moment" else 0
        child = spawn("write", str(root), prefix, str(per_child), str(batch), str(stop_at))
        if not child.ready.wait(300):
            kill_group(child)
            raise RuntimeError("the writer never became ready: " + "".join(child.err))
        if mode == "moment":
            child.wait_for(lambda c: c.paused() is not None)
            paused += child.paused() is not None
        elif mode == "acks":
            n = rng.randint(1, acks)
            if child.wait_for(lambda c: len(c.reported()) >= n):
                min_acks += n
                oks = [tm for line, tm in zip(child.lines, child.times) if line.startswith(("ok ", "ready"))]
                time.sleep(rng.uniform(0.0, max(0.0, oks[-1] - oks[-2]) if len(oks) > 1 else 0.0))
        else:
            time.sleep(rng.uniform(0.0, window))
        if child.proc.poll() is None:
            kill_group(child)
            kills += 1
        else:
            finish(child)
            finished += 1
        reported += child.reported()
        torn, missing = check_at_kill(root, reported)
        torn_at_kill += [f"at kill {t + 1}: {x}" for x in torn]
        missing_at_kill += [f"at kill {t + 1}: {x}" for x in missing]
    # recovery: the next ordinary write must succeed (stale git locks, hot journals, temp files)
    child = spawn("write", str(root), "recovery", "2")
    err = finish(child)
    if child.proc.returncode != 0:
        raise RuntimeError("the write after the crashes failed: " + err[-2000:])
    reported += child.reported()
    a = audit(root, reported)
    a.torn = torn_at_kill + a.torn
    a.lost_on_disk = missing_at_kill + a.lost_on_disk
    a.kills_checked = trials
    return {"trials": trials, "kills": kills, "finished": finished, "paused": paused, "min_acks": min_acks,
            "audit": a}


def hand_edit(root: Path, rng: random.Random, n: int) -> None:
    """Change ``n`` record files behind Aida's back (as a person with an editor would), so the next
    rebuild has text to embed and takes long enough to be killed in every phase."""
    files = sorted(p for p in (root / "memories").glob("*/*.json") if not p.name.startswith("."))
    for p in rng.sample(files, min(n, len(files))):
        data = json.loads(p.read_text())
        if data.get("key") == "lighthouse":
            continue
        data["body"] = f"{data['body'].split(' Edited')[0]} Edited by hand, revision {rng.randrange(10**6)}."
        p.write_text(json.dumps(data))


def crash_rebuilds(root: Path, trials: int, rng: random.Random, query: str, expect_key: str,
                   edits: int = 0) -> dict:
    """``trials`` full rebuilds, each SIGKILLed at a random moment; after each the index must
    answer, and at most one rebuild temp file may exist; then one rebuild must complete and
    leave the catalog matching the files. ``edits`` files are hand-edited before each trial."""
    from brain_core import Brain

    if edits:
        hand_edit(root, rng, edits)
    child = spawn("rebuild", str(root))
    child.ready.wait(120)
    t0 = time.monotonic()
    finish(child)
    span = max(0.01, time.monotonic() - t0)  # the rebuild itself, from "ready" to exit
    kills = answered = 0
    max_tmp = 0
    failures: list[str] = []
    for _ in range(trials):
        if edits:
            hand_edit(root, rng, edits)
        child = spawn("rebuild", str(root))
        child.ready.wait(120)
        time.sleep(rng.uniform(0.0, span))
        if child.proc.poll() is None:
            kill_group(child)
            kills += 1
        else:
            finish(child)
        tmp = list((root / ".aida").glob("index.sqlite.tmp-*"))
        max_tmp = max(max_tmp, len([p for p in tmp if not p.name.endswith("-journal")]))
        brain = Brain.open(root)
        try:
            hits = brain.recall(query, k=3, touch=False, catch_up=False)
            if hits and hits[0].record.key == expect_key:
                answered += 1
            else:
                failures.append(f"top hit {hits[0].record.key if hits else None}")
        finally:
            brain.close()
    child = spawn("rebuild", str(root))
    err = finish(child)
    completed = child.proc.returncode == 0 and any(line.startswith("rebuilt ") for line in child.lines)
    left = [p.name for p in (root / ".aida").glob("index.sqlite.tmp-*")]
    brain = Brain.open(root)
    try:
        stale = brain.index.scan().summary() if brain.index.scan().changes else ""
    finally:
        brain.close()
    return {"trials": trials, "kills": kills, "answered": answered, "failures": failures, "max_tmp": max_tmp,
            "final_rebuild": completed, "final_err": err[-500:], "tmp_left": left, "first_rebuild_s": span,
            "stale_after": stale}


def concurrent_writers(root: Path, writers: int, each: int, readers: int = 1) -> dict:
    """``writers`` processes writing ``each`` records at once while ``readers`` processes recall."""
    stop = root.parent / f"{root.name}.stop"
    rs = [spawn("read", str(root), str(stop)) for _ in range(readers)]
    for r in rs:
        r.ready.wait(120)
    heads_before = int(git(root, "rev-list", "--count", "HEAD").strip())
    ws = [spawn("write", str(root), f"w{i}", str(each)) for i in range(writers)]
    errs = [finish(w, timeout=1800) for w in ws]
    stop.write_text("stop")
    for r in rs:
        finish(r, timeout=120)
    reported = [x for w in ws for x in w.reported()]
    read_lines = [line for r in rs for line in r.lines]
    queries = sum(int(line.split()[1]) for line in read_lines if line.startswith("queries "))
    read_errors = [line for line in read_lines if not line.startswith(("queries ", "ready"))]
    commits = int(git(root, "rev-list", "--count", "HEAD").strip()) - heads_before
    a = audit(root, reported)
    return {"writers": writers, "each": each, "exit_codes": [w.proc.returncode for w in ws],
            "writer_errors": [e[-500:] for e in errs if e.strip()], "reported": len(reported), "commits": commits,
            "queries": queries, "read_errors": read_errors, "audit": a}


def damage_index(path: Path, kind: str, rng: random.Random) -> None:
    """Damage an index file the ways disks and people do."""
    data = bytearray(path.read_bytes())
    size = len(data)
    if kind == "garbage":
        path.write_bytes(os.urandom(size))
    elif kind == "zeroed":
        path.write_bytes(b"\0" * size)
    elif kind == "truncated":
        path.write_bytes(bytes(data[: size // 3]))
    elif kind == "empty":
        path.write_bytes(b"")
    elif kind == "page-truncated":  # a whole number of pages gone: the header's page count disagrees
        page = int.from_bytes(data[16:18], "big")
        path.write_bytes(bytes(data[: max(page, (size // page // 2) * page)]))
    elif kind == "middle-garbage":  # header intact, pages after the first overwritten
        page = int.from_bytes(data[16:18], "big")
        start = page
        data[start:] = os.urandom(size - start)
        path.write_bytes(bytes(data))
    elif kind == "middle-zeroed":
        page = int.from_bytes(data[16:18], "big")
        data[page:] = b"\0" * (size - page)
        path.write_bytes(bytes(data))
    elif kind == "flipped":  # a few random bytes changed anywhere after the header
        for _ in range(64):
            i = rng.randrange(100, size)
            data[i] = rng.randrange(256)
        path.write_bytes(bytes(data))
    elif kind == "header-page-size":
        data[16:18] = (3000).to_bytes(2, "big")
        path.write_bytes(bytes(data))
    elif kind == "directory":
        path.unlink()
        path.mkdir()
    else:
        raise ValueError(kind)


DAMAGE = ("garbage", "zeroed", "truncated", "empty", "page-truncated", "middle-garbage", "middle-zeroed",
          "flipped", "header-page-size")


def summary_json(result: dict) -> str:
    def conv(v):
        if isinstance(v, Audit):
            return {**v.__dict__, "lost": v.lost}
        return v
    return json.dumps({k: conv(v) for k, v in result.items()}, indent=2, default=str)
