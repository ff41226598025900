"""Faults a user cannot see coming: a crash mid-write or mid-rebuild, a damaged index, four writers at
once. Real child processes, real SIGKILLs, a real brain; the long runs are benchmarks/stress_faults.py."""

from __future__ import annotations

import os
import random

import pytest

from brain_core import Brain
from tests.helpers.faultlib import DAMAGE, concurrent_writers, crash_rebuilds, crash_writes, damage_index, git

pytestmark = pytest.mark.timeout(300)


def _assert_nothing_lost(a) -> None:
    assert a.lost_on_disk == [], a.lost_on_disk
    assert a.lost_in_git == [], a.lost_in_git
    assert a.torn == [], a.torn
    assert a.index_mismatch == [], a.index_mismatch
    assert not a.git_lock_left


@pytest.mark.slow
def test_records_reported_written_survive_sigkill_at_random_points(tmp_path):
    """Eight writers killed mid-run: four at a write moment (a record file just opened, or about to
    be renamed into place), four inside the write after an acknowledged one. Counted by events,
    so a loaded machine only makes it slower. At each kill every record file must parse and every
    acknowledged write must be there: an in-place (non-atomic) write fails this."""
    root = tmp_path / "brain"
    Brain.init(root).close()
    res = crash_writes(root, trials=8, rng=random.Random(8), per_child=400)
    a = res["audit"]
    assert res["kills"] == 8  # every child was killed mid-run: none could finish 400 records first
    assert res["paused"] == 4  # four of them exactly at a write moment
    assert a.kills_checked == 8 and a.reported >= res["min_acks"] >= 4  # acknowledged writes, counted
    _assert_nothing_lost(a)
    assert git(root, "fsck", "--no-dangling", "--no-progress") == ""  # a killed commit may leave dangling objects, never broken ones
    # the recovery write cleared whatever the crashes left in git's way
    assert not (root / ".git/index.lock").exists()


@pytest.mark.slow
def test_a_rebuild_killed_at_random_points_leaves_the_old_index_answering(tmp_path, embedder):
    root = tmp_path / "brain"
    brain = Brain.init(root)
    brain._embedder = embedder
    brain.remember_many([dict(body=f"Rebuild drill note {i}: shard {i} of the cold archive.", key=f"drill-{i}")
                         for i in range(120)])
    brain.remember("The lighthouse keeper logs the fog horn tests every Tuesday.", key="lighthouse")
    brain.close()
    res = crash_rebuilds(root, trials=6, rng=random.Random(6), query="lighthouse fog horn", expect_key="lighthouse",
                         edits=10)
    assert res["kills"] >= 4
    assert res["answered"] == res["trials"], res["failures"]
    assert res["max_tmp"] <= 1  # each rebuild clears the last one's leftovers: they never pile up
    assert res["final_rebuild"], res["final_err"]
    assert res["tmp_left"] == [] and res["stale_after"] == ""


@pytest.mark.slow
def test_four_processes_writing_at_once_lose_nothing_and_readers_see_no_error(tmp_path):
    root = tmp_path / "brain"
    Brain.init(root).close()
    res = concurrent_writers(root, writers=4, each=12, readers=1)
    assert res["exit_codes"] == [0, 0, 0, 0], res["writer_errors"]
    assert res["reported"] == 48
    assert res["commits"] == 48  # one commit per remember: none lost, none merged away
    assert res["read_errors"] == [] and res["queries"] > 0
    a = res["audit"]
    _assert_nothing_lost(a)
    assert a.record_files == 48 and a.index_docs == 48
    assert a.uncommitted == 0


@pytest.mark.parametrize("kind", DAMAGE + ("directory",))
def test_any_damage_to_the_index_is_survived_by_recall(brain, kind, capsys):
    for i in range(40):
        brain.remember(f"Damage drill record {i} about the harbour crane schedule.", key=f"crane-{i}")
    brain.remember("The spare keys hang behind the boiler room door.", key="spare-keys")
    brain.close()
    damage_index(brain.root / ".aida/index.sqlite", kind, random.Random(kind))
    b2 = Brain.open(brain.root)
    b2._embedder = brain._embedder
    hits = b2.recall("where are the spare keys", k=3)
    assert hits and hits[0].record.key == "spare-keys"
    crane = {h.record.key for h in b2.recall("harbour crane schedule", k=50)}  # recall never pads with score 0
    assert crane - {"spare-keys"} == {f"crane-{i}" for i in range(40)}
    assert b2.index.counts()["by_shelf"]["memories"] == 41
    err = capsys.readouterr().err
    assert "Traceback" not in err
    notices = [line for line in err.splitlines() if line.strip()]
    assert len(notices) <= 1 and all(line.startswith("aida: ") for line in notices)
    b2.close()


def test_the_index_damaged_under_an_open_brain_is_rebuilt_without_an_error(brain, capsys):
    for i in range(40):
        brain.remember(f"Live damage record {i} on the tide gauge.", key=f"tide-{i}")
    assert len(brain.recall("tide gauge", k=50)) == 40  # a connection is open now
    path = brain.root / ".aida/index.sqlite"
    damage_index(path, "middle-garbage", random.Random(1))
    os.utime(path)  # same inode: the open connection keeps reading the damaged file
    hits = brain.recall("tide gauge", k=50)
    assert len(hits) == 40
    assert "Traceback" not in capsys.readouterr().err


def test_a_damaged_usage_file_never_fails_recall(brain):
    brain.remember("Usage is advisory: the kettle descaler is under the sink.", key="descaler")
    brain.recall("kettle descaler")
    brain.close()
    usage = brain.root / ".aida/usage.sqlite"
    usage.write_bytes(os.urandom(max(4096, usage.stat().st_size)))
    for extra in ("usage.sqlite-wal", "usage.sqlite-shm"):
        (brain.root / ".aida" / extra).write_bytes(os.urandom(4096))
    b2 = Brain.open(brain.root)
    b2._embedder = brain._embedder
    assert b2.recall("kettle descaler", k=1)[0].record.key == "descaler"


def test_a_garbage_hot_journal_beside_the_index_is_survived(brain):
    brain.remember("Journal drill: the fuse box is in the hallway cupboard.", key="fuse-box")
    brain.close()
    (brain.root / ".aida/index.sqlite-journal").write_bytes(os.urandom(8192))
    b2 = Brain.open(brain.root)
    b2._embedder = brain._embedder
    assert b2.recall("fuse box", k=1)[0].record.key == "fuse-box"
    b2.remember("Another write after the journal drill.", key="after-journal")
    assert b2.recall("after the journal drill", k=1)[0].record.key == "after-journal"
