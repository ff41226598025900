"""Two clones of one brain syncing through a bare repository in tmp_path: real git, real files."""

from __future__ import annotations

import json
import subprocess

import pytest

from brain_core import Brain
from brain_core.cli import main
from brain_core.config import Config
from brain_core.errors import BrainError
from brain_core.sync import Counters, machine_role, require_writer, sync


def _git(*args, cwd=None, check=True):
    return subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True, check=check).stdout


@pytest.fixture
def pair(tmp_path, embedder):
    """Machine A (created the brain and pushed it) and machine B (cloned it)."""
    bare = tmp_path / "remote.git"
    _git("init", "--bare", "-q", "-b", "main", str(bare))
    a = Brain.init(tmp_path / "a", config=_config(tmp_path, "a"))
    a._embedder = embedder
    a.git.run("remote", "add", "origin", str(bare))
    a.remember("Webhook delivery retries with exponential backoff.", key="webhook-retries", profile="codex")
    sync(a)
    _git("clone", "-q", str(bare), str(tmp_path / "b"))
    b = Brain.open(tmp_path / "b", config=_config(tmp_path, "b"))
    b._embedder = embedder
    yield a, b, bare
    a.close()
    b.close()


def _config(tmp_path, name, role="writer"):
    cfg = Config(path=tmp_path / f"{name}.yaml", data={})
    cfg.set("machine.role", role)
    cfg.set("machine.name", f"host-{name}")
    return cfg


def _bodies(brain, key, profile="me"):
    folder = brain.root / "memories" / profile
    return {p.name: json.loads(p.read_text())["body"] for p in folder.glob(f"{key}*.json")}


def test_concurrent_edits_of_different_records_both_arrive(pair):
    a, b, _ = pair
    assert b.recall("webhook backoff", k=1)[0].record.key == "webhook-retries"
    assert _git("config", "--get", "core.fsync", cwd=b.root, check=False).strip() == ""  # a plain clone lacks it
    a.remember("The staging database is restored every Monday.", key="staging-restore")
    b.remember("Release notes are written in the pull request.", key="release-notes")
    ra = sync(a)
    assert ra.pushed == 1 and ra.pulled == 0
    rb = sync(b)
    assert rb.pulled == 1 and rb.pushed == 1 and not rb.conflicts
    sync(a)
    for brain in (a, b):
        assert (brain.root / "memories/me/staging-restore.json").exists()
        assert (brain.root / "memories/me/release-notes.json").exists()
        # the catalog caught up with what the pull brought
        assert brain.recall("when is staging restored", k=1)[0].record.key == "staging-restore"
        assert brain.recall("where do release notes go", k=1)[0].record.key == "release-notes"
    assert a.head() == b.head()
    assert _git("status", "--porcelain", cwd=b.root) == ""
    assert _git("config", "--get", "core.fsync", cwd=b.root).strip() == "committed,index"  # set by the sync


def test_both_machines_edit_one_record_and_both_versions_are_kept(pair):
    a, b, _ = pair
    a.remember("The retry cap is six attempts.", key="retry-cap")
    sync(a)
    sync(b)
    a.remember("The retry cap is eight attempts.", key="retry-cap")
    b.remember("The retry cap is ten attempts.", key="retry-cap")
    sync(a)
    report = sync(b)
    assert len(report.conflicts) == 1
    c = report.conflicts[0]
    assert c.path == "memories/me/retry-cap.json" and c.copy and ".sync-conflict-" in c.copy and "host-b" in c.copy
    bodies = _bodies(b, "retry-cap")
    assert bodies["retry-cap.json"] == "The retry cap is eight attempts."          # the remote's, at the path
    assert bodies[c.copy.rsplit("/", 1)[1]] == "The retry cap is ten attempts."  # this machine's, beside it
    assert not (b.root / ".git" / "rebase-merge").exists()
    sync(a)
    assert sorted(_bodies(a, "retry-cap").values()) == ["The retry cap is eight attempts.",
                                                        "The retry cap is ten attempts."]
    # lint lists the copy until the user merges it; the index skips it
    from brain_core.lifecycle.lint import lint

    assert any(".sync-conflict-" in p.path for p in lint(a))
    assert [h.record.body for h in a.recall("retry cap attempts", k=5) if h.record.key == "retry-cap"] == [
        "The retry cap is eight attempts."]


def test_edit_of_a_record_the_other_machine_archived_survives(pair):
    a, b, _ = pair
    a.remember("Deploys happen on Tuesdays.", key="deploy-day")
    sync(a)
    sync(b)
    a.move([("memories/me/deploy-day.json", "archive/memories/me/deploy-day.json")], "archive deploy-day")
    b.remember("Deploys happen on Thursdays now.", key="deploy-day")
    sync(a)
    report = sync(b)
    assert any(c.path == "memories/me/deploy-day.json" and c.copy is None for c in report.conflicts)
    assert _bodies(b, "deploy-day") == {"deploy-day.json": "Deploys happen on Thursdays now."}
    archived = json.loads((b.root / "archive/memories/me/deploy-day.json").read_text())
    assert archived["body"] == "Deploys happen on Tuesdays."


def test_counters_are_reseeded_after_a_pull(pair):
    a, b, _ = pair
    ca, cb = Counters(a), Counters(b)
    assert cb.peek("task") == 1
    n1, n2 = ca.allocate("task"), ca.allocate("task")
    assert (n1, n2) == (1, 2)
    a.remember("Task 1: migrate the billing cron.", key="task-1", tags=["task:1"])
    a.remember("Task 2: rotate the webhook secret.", key="task-2", extra={"task": 2})
    sync(a)
    report = sync(b)
    assert report.counters["task"] == 3
    assert cb.allocate("task") == 3
    # numbers seen only in history-changing pulls made outside Aida are caught too
    a.remember("Task 7 was created by hand.", key="task-7", extra={"task": "T-7"})
    sync(a)
    _git("pull", "-q", "--rebase", "origin", "main", cwd=b.root)
    assert cb.allocate("task") == 8


def test_offline_duplicates_are_listed(pair):
    a, b, _ = pair
    a.remember("Fix the login redirect.", key="login-redirect", extra={"task": 5})
    b.remember("Update the pricing page.", key="pricing-page", extra={"task": 5})
    sync(a)
    report = sync(b)
    assert list(report.duplicates) == ["task"] and list(report.duplicates["task"]) == [5]
    assert sorted(report.duplicates["task"][5]) == ["memories/me/login-redirect.json", "memories/me/pricing-page.json"]
    assert report.counters["task"] == 6


def test_stale_index_lock_is_cleared(pair):
    a, _, _ = pair
    a.config.set("sync.lock_wait", 0.1)
    a.remember("The on-call rota lives in the wiki.", key="on-call-rota")
    lock = a.root / ".git" / "index.lock"
    lock.write_text("")  # what a crashed git leaves behind; no process holds it
    report = sync(a)
    assert report.lock_cleared and not lock.exists() and report.pushed >= 1


def test_hand_edits_are_committed_before_pulling(pair):
    a, b, _ = pair
    (b.root / "knowledge" / "runbook.md").write_text("# Runbook\n\nRestart the worker first.\n")
    report = sync(b)
    assert report.committed_local_edits == 1 and report.pushed == 1
    sync(a)
    assert (a.root / "knowledge" / "runbook.md").read_text().startswith("# Runbook")
    assert a.recall("restart the worker", k=1)[0].path == "knowledge/runbook.md"


def test_reader_pulls_but_never_pushes(pair, tmp_path):
    a, b, bare = pair
    reader = Brain.open(b.root, config=_config(tmp_path, "r", role="reader"))
    reader._embedder = b._embedder
    assert machine_role(reader.config) == "reader"
    with pytest.raises(BrainError, match="reader"):
        require_writer(reader.config, "consolidate records")
    a.remember("Invoices are sent on the first of the month.", key="invoice-day")
    sync(a)
    reader.remember("A note made on the reader.", key="reader-note")
    report = sync(reader)
    assert report.pulled == 1 and report.pushed == 0 and report.held_back == 1
    assert "reader-note" not in _git("log", "--format=%s", "main", cwd=bare)
    assert (reader.root / "memories/me/invoice-day.json").exists()
    reader.close()


def test_missing_remote_says_what_to_do(brain):
    with pytest.raises(BrainError, match="git -C .* remote add origin"):
        sync(brain)


def test_sync_cli(pair, tmp_path, monkeypatch, capsys):
    a, b, _ = pair
    a.remember("Backups are encrypted with age.", key="backup-encryption")
    monkeypatch.setenv("AIDA_BRAIN", str(a.root))
    assert main(["brain", "sync", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["pushed"] == 1 and out["role"] == "writer"
    monkeypatch.setenv("AIDA_BRAIN", str(b.root))
    assert main(["brain", "counter", "task", "--peek"]) == 0
    assert capsys.readouterr().out.strip() == "1"
    assert main(["brain", "sync"]) == 0
    assert "Pulled 1 commit(s)" in capsys.readouterr().out
    assert main(["brain", "counter", "task"]) == 0 and capsys.readouterr().out.strip() == "1"
    assert main(["brain", "counter", "task"]) == 0 and capsys.readouterr().out.strip() == "2"
    assert main(["brain", "counter", "nope"]) == 2
