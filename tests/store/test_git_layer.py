"""The git layer: Aida commits only what Aida wrote, under its own identity and safe defaults, and stops
writing on a detached HEAD or a rebase/merge under way instead of losing the write."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from brain_core.errors import GitError


def git(root, *args, check=True):
    env = dict(os.environ, GIT_AUTHOR_NAME="Person", GIT_AUTHOR_EMAIL="p@example.org",
               GIT_COMMITTER_NAME="Person", GIT_COMMITTER_EMAIL="p@example.org")
    return subprocess.run(["git", *args], cwd=root, capture_output=True, text=True, check=check, env=env).stdout


def cli(root, *args):
    env = dict(os.environ, AIDA_BRAIN=str(root))
    return subprocess.run([sys.executable, "-m", "brain_core", *args], capture_output=True, text=True, env=env)


def committed_paths(root, rev="HEAD"):
    return set(git(root, "show", "--name-only", "--format=", rev).split())


def test_the_users_staged_work_stays_staged_and_out_of_aidas_commit(brain):
    (brain.root / "notes.txt").write_text("my own notes, not ready\n")
    git(brain.root, "add", "notes.txt")
    brain.remember("The deploy freeze starts on Friday.", key="deploy-freeze")
    assert committed_paths(brain.root) == {"memories/me/deploy-freeze.json"}
    assert git(brain.root, "diff", "--cached", "--name-only").split() == ["notes.txt"]  # still staged
    assert "notes.txt" not in git(brain.root, "ls-tree", "-r", "--name-only", "HEAD")
    # the same through the CLI, and a record the user had staged an older version of is Aida's to commit
    proc = cli(brain.root, "brain", "remember", "--key", "cli-note", "Written from the command line.")
    assert proc.returncode == 0, proc.stderr
    assert committed_paths(brain.root) == {"memories/me/cli-note.json"}
    assert git(brain.root, "diff", "--cached", "--name-only").split() == ["notes.txt"]


def test_commits_carry_aidas_identity_and_skip_the_users_hooks_and_signing(brain, tmp_path, monkeypatch):
    hooks = tmp_path / "hooks"
    hooks.mkdir()
    for name in ("pre-commit", "commit-msg", "post-commit"):
        (hooks / name).write_text(f"#!/bin/sh\necho ran > {tmp_path}/{name}.ran\nexit 1\n")
        (hooks / name).chmod(0o755)
    glob = tmp_path / "gitconfig"
    glob.write_text(f"[core]\n\thooksPath = {hooks}\n[commit]\n\tgpgsign = true\n[user]\n\tname = Root\n"
                    "\temail = root@host\n")
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", str(glob))
    monkeypatch.setenv("GIT_AUTHOR_NAME", "Someone Else")
    other = tmp_path / "elsewhere"
    subprocess.run(["git", "init", "-q", str(other)], check=True)
    monkeypatch.setenv("GIT_DIR", str(other / ".git"))  # as inside a git hook: must not redirect the write
    monkeypatch.setenv("GIT_INDEX_FILE", str(other / ".git" / "index"))
    brain.remember("Invoices are sent on the first workday.", key="invoices")
    monkeypatch.delenv("GIT_DIR")
    monkeypatch.delenv("GIT_INDEX_FILE")
    who = git(brain.root, "log", "-1", "--format=%an <%ae>|%cn <%ce>")
    assert who.strip() == "Aida <aida@brain.invalid>|Aida <aida@brain.invalid>"
    assert committed_paths(brain.root) == {"memories/me/invoices.json"}
    assert not list(tmp_path.glob("*.ran"))
    assert git(other, "log", check=False) == ""  # nothing landed in the other repository


def test_brain_index_never_commits_what_lint_refuses(brain, tmp_path):
    mem = brain.root / "memories" / "me"
    mem.mkdir(parents=True, exist_ok=True)
    with open(mem / "huge.json", "wb") as f:  # a 2 GB sparse file
        f.truncate(2 * 1024 ** 3)
    os.symlink("/etc/passwd", mem / "passwd.json")
    os.symlink("/etc/passwd", brain.root / "archive" / "passwd.txt")
    (brain.root / "wiki").mkdir(exist_ok=True)
    os.symlink("/etc/passwd", brain.root / "wiki" / "passwd.md")
    (mem / "broken.json").write_text('{"id": ')
    good = ('{"id": "20260101-000000000-abcdef", "type": "fact", "key": "hand-made", "profile": "me", '
            '"body": "A record written by hand."}')
    (mem / "hand-made.json").write_text(good)
    proc = cli(brain.root, "brain", "index")
    assert proc.returncode == 0 and "Traceback" not in proc.stderr
    assert "Committed 1 hand-edited file(s)" in proc.stdout
    tracked = git(brain.root, "ls-tree", "-r", "--name-only", "HEAD").split()
    assert "memories/me/hand-made.json" in tracked
    for name in ("memories/me/huge.json", "memories/me/passwd.json", "archive/passwd.txt", "wiki/passwd.md",
                 "memories/me/broken.json"):
        assert name not in tracked
    assert "root:" not in git(brain.root, "log", "-p", "--all")
    # the refused files off the shelves are named once; the shelf ones by the index's own warnings
    assert "archive/passwd.txt is a symlink, so it is not committed" in proc.stderr
    assert "wiki/passwd.md is a symlink, so it is not committed" in proc.stderr


def test_sync_never_commits_a_symlink_either(brain, tmp_path):
    from brain_core.sync import sync

    bare = tmp_path / "remote.git"
    subprocess.run(["git", "init", "--bare", "-q", "-b", "main", str(bare)], check=True)
    brain.git.run("remote", "add", "origin", str(bare))
    os.symlink("/etc/passwd", brain.root / "passwd.txt")
    (brain.root / "plain.txt").write_text("a hand-made note\n")
    report = sync(brain)
    assert report.committed_local_edits == 1 and report.pushed >= 1
    pushed = git(bare, "ls-tree", "-r", "--name-only", "main").split()
    assert "plain.txt" in pushed and "passwd.txt" not in pushed


def test_a_detached_head_stops_writes_with_one_sentence(brain):
    brain.remember("First record.", key="first")
    git(brain.root, "checkout", "-q", "--detach", "HEAD")
    head = brain.head()
    with pytest.raises(GitError, match="HEAD is detached"):
        brain.remember("Would vanish after `git checkout main`.", key="vanishing")
    assert not (brain.root / "memories/me/vanishing.json").exists() and brain.head() == head
    proc = cli(brain.root, "brain", "remember", "--key", "vanishing", "Would vanish.")
    assert proc.returncode != 0 and "Traceback" not in proc.stderr
    assert len(proc.stderr.strip().splitlines()) == 1 and "detached" in proc.stderr
    git(brain.root, "checkout", "-q", "main")
    brain.remember("Now on main again.", key="vanishing")
    assert "memories/me/vanishing.json" in committed_paths(brain.root)


def _conflict(brain, how: str) -> None:
    """The user's own rebase or merge, stopped on a conflict in a file of theirs."""
    root = brain.root
    (root / "plan.md").write_text("base\n")
    git(root, "add", "plan.md")
    git(root, "commit", "-qm", "plan")
    git(root, "checkout", "-qb", "side")
    (root / "plan.md").write_text("side\n")
    git(root, "commit", "-qam", "side")
    git(root, "checkout", "-q", "main")
    (root / "plan.md").write_text("main\n")
    git(root, "commit", "-qam", "main")
    if how == "rebase":
        git(root, "checkout", "-q", "side")
        git(root, "rebase", "main", check=False)
        assert (root / ".git" / "rebase-merge").exists()
    else:
        git(root, "merge", "side", check=False)
        assert (root / ".git" / "MERGE_HEAD").exists()


@pytest.mark.parametrize("how", ["rebase", "merge"])
def test_a_rebase_or_merge_in_progress_stops_writes(brain, tmp_path, how):
    bare = tmp_path / "remote.git"
    subprocess.run(["git", "init", "--bare", "-q", "-b", "main", str(bare)], check=True)
    git(brain.root, "remote", "add", "origin", str(bare))
    _conflict(brain, how)
    head = git(brain.root, "rev-parse", "HEAD")
    with pytest.raises(GitError, match=f"A {how} is in progress"):
        brain.remember("Would be mixed into the user's resolution.", key="mixed")
    assert not (brain.root / "memories/me/mixed.json").exists()
    assert git(brain.root, "rev-parse", "HEAD") == head
    # sync does not abort the user's own rebase or merge either
    proc = cli(brain.root, "brain", "sync")
    assert proc.returncode != 0 and "in progress" in proc.stderr and "Traceback" not in proc.stderr
    assert (brain.root / ".git" / ("rebase-merge" if how == "rebase" else "MERGE_HEAD")).exists()


def commit_message(root, rev="HEAD"):
    raw = subprocess.run(["git", "cat-file", "commit", rev], cwd=root, capture_output=True, check=True).stdout
    return raw.split(b"\n\n", 1)[1]


def test_a_commit_from_the_index_reads_as_git_commit_would_write_it(brain):
    """With nothing else staged the commit is made from the index's own tree (commit-tree), and with
    something else staged through `git commit --only`: the two give the same message, reflog line,
    identity and paths."""
    message = "  remember: two lines  \n\n\n\nsecond paragraph   \n\n"
    rel = "memories/me/fast.json"
    (brain.root / "memories" / "me").mkdir(parents=True, exist_ok=True)
    (brain.root / rel).write_text('{"x": 1}\n')
    fast = brain.git.commit([rel], message)
    assert fast == git(brain.root, "rev-parse", "HEAD").strip()
    assert committed_paths(brain.root) == {rel}
    (brain.root / "notes.txt").write_text("staged by the user\n")
    git(brain.root, "add", "notes.txt")
    rel2 = "memories/me/slow.json"
    (brain.root / rel2).write_text('{"x": 2}\n')
    slow = brain.git.commit([rel2], message)
    assert committed_paths(brain.root) == {rel2}
    assert git(brain.root, "diff", "--cached", "--name-only").split() == ["notes.txt"]
    assert commit_message(brain.root, fast) == commit_message(brain.root, slow) == \
        b"  remember: two lines\n\nsecond paragraph\n"
    assert git(brain.root, "rev-parse", f"{slow}^").strip() == fast
    reflog = git(brain.root, "reflog", "-2", "--format=%gs").splitlines()
    assert reflog == ["commit: remember: two lines"] * 2
    who = git(brain.root, "log", "-2", "--format=%an <%ae>|%cn <%ce>").splitlines()
    assert who == ["Aida <aida@brain.invalid>|Aida <aida@brain.invalid>"] * 2
    assert git(brain.root, "status", "--porcelain", "--", rel, rel2) == ""


def test_a_commit_from_the_index_removes_a_deleted_file_and_skips_an_unchanged_one(brain):
    brain.remember("The office closes at six on Fridays.", key="office-hours")
    rel = "memories/me/office-hours.json"
    head = git(brain.root, "rev-parse", "HEAD").strip()
    assert brain.git.commit([rel], "nothing changed") is None  # the same bytes: no commit
    assert git(brain.root, "rev-parse", "HEAD").strip() == head
    (brain.root / rel).unlink()
    assert brain.git.commit([rel], "forget the office hours")
    assert committed_paths(brain.root) == {rel}
    assert rel not in git(brain.root, "ls-tree", "-r", "--name-only", "HEAD")


def test_an_intent_to_add_entry_or_a_moved_head_falls_back_to_commit_only(brain, monkeypatch):
    (brain.root / "draft.txt").write_text("not yet\n")
    git(brain.root, "add", "-N", "draft.txt")  # write-tree refuses such an index
    brain.remember("Standups move to 9:30.", key="standup-time")
    assert committed_paths(brain.root) == {"memories/me/standup-time.json"}
    assert "draft.txt" not in git(brain.root, "ls-tree", "-r", "--name-only", "HEAD")
    git(brain.root, "rm", "-q", "--cached", "draft.txt")
    # HEAD moves between reading it and updating it: the compare-and-swap fails, --only commits
    from brain_core.store import git as gitsync

    real = gitsync.Git.head
    stale = git(brain.root, "rev-parse", "HEAD^").strip()
    calls = []

    def head_once_stale(self):
        calls.append(1)
        return stale if len(calls) == 1 else real(self)

    monkeypatch.setattr(gitsync.Git, "head", head_once_stale)
    before = git(brain.root, "rev-parse", "HEAD").strip()
    rel = "memories/me/moved.json"
    (brain.root / rel).write_text('{"x": 3}\n')
    assert brain.git.commit([rel], "after a moved head")
    assert git(brain.root, "rev-parse", "HEAD^").strip() == before  # built on the real HEAD
    assert committed_paths(brain.root) == {rel}
