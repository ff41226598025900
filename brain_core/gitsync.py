"""Git under Aida's own identity: init, commit, HEAD, and a stale index.lock cleared safely.

Git runs as a subprocess with the identity passed in the environment, so the user's global
identity (or root@host) never signs the brain's history, hooks and signing of the user's global
config never run, and nothing prompts. Callers hold the brain's write lock around every commit.
"""

from __future__ import annotations

import os
import subprocess
import time
from pathlib import Path

from .errors import GitError, MissingDependency

_SAFE_CONFIG = (
    "-c", "core.hooksPath=/dev/null" if os.name != "nt" else "core.hooksPath=NUL",
    "-c", "commit.gpgsign=false",
    "-c", "core.quotePath=false",
)


class Git:
    def __init__(self, root: Path, name: str = "Aida", email: str = "aida@brain.invalid") -> None:
        self.root = Path(root)
        self.name = name
        self.email = email

    def _env(self) -> dict[str, str]:
        env = dict(os.environ)
        env.update(GIT_AUTHOR_NAME=self.name, GIT_AUTHOR_EMAIL=self.email,
                   GIT_COMMITTER_NAME=self.name, GIT_COMMITTER_EMAIL=self.email,
                   GIT_TERMINAL_PROMPT="0", LC_ALL="C")
        env.pop("GIT_DIR", None)
        env.pop("GIT_WORK_TREE", None)
        env.pop("GIT_INDEX_FILE", None)
        return env

    def run(self, *args: str, check: bool = True, input: str | None = None) -> subprocess.CompletedProcess:
        try:
            proc = subprocess.run(["git", *_SAFE_CONFIG, *args], cwd=self.root, env=self._env(),
                                  capture_output=True, text=True, input=input)
        except FileNotFoundError:
            raise MissingDependency("git is not installed; install it (e.g. `apt-get install git`).") from None
        if check and proc.returncode != 0:
            last = (proc.stderr.strip() or proc.stdout.strip()).splitlines()
            raise GitError(f"git {args[0]} failed in {self.root}: {last[-1] if last else 'exit ' + str(proc.returncode)}")
        return proc

    def init(self) -> None:
        self.run("init", "-q", "-b", "main")
        # A power cut must not lose a committed memory; renames in the object store too.
        self.run("config", "core.fsync", "committed,index")
        self.run("config", "core.fsyncMethod", "fsync")

    def head(self) -> str | None:
        proc = self.run("rev-parse", "--verify", "-q", "HEAD", check=False)
        return proc.stdout.strip() or None

    def commit(self, paths: list[str], message: str) -> str | None:
        """Stage exactly ``paths`` (added, changed or removed) and commit them. Returns the new
        HEAD, or None when nothing changed."""
        from .scrub import message as clean  # the redaction gate: no secret in a commit message
        message = clean(message)
        self.clear_stale_lock()
        if paths:
            self.run("add", "-A", "--", *paths)
        proc = self.run("commit", "-q", "--no-verify", "-m", message, check=False)
        if proc.returncode != 0:
            out = (proc.stdout + proc.stderr).lower()
            if "nothing to commit" in out or "nothing added to commit" in out or "no changes added" in out:
                return None
            last = (proc.stderr.strip() or proc.stdout.strip()).splitlines()
            raise GitError(f"git commit failed in {self.root}: {last[-1] if last else proc.returncode}")
        return self.head()

    def uncommitted(self, pathspec: list[str]) -> list[str]:
        """Paths under ``pathspec`` that differ from HEAD (new, changed or deleted)."""
        proc = self.run("status", "--porcelain", "-z", "--untracked-files=all", "--", *pathspec)
        out = []
        for entry in proc.stdout.split("\0"):
            if len(entry) > 3:
                out.append(entry[3:])
        return out

    def clear_stale_lock(self, wait: float = 2.0) -> bool:
        """Remove git's lock files (``index.lock``, ``HEAD.lock``, ``refs/heads/*.lock``...) when no
        process holds them: a git killed mid-commit leaves them, and git refuses to commit again.

        Aida's own git calls happen under the brain's write lock, so a lock file seen while that
        lock is held belongs to a crash or to a person's git; we wait briefly for the latter and
        remove a file only if no process has it open (checked through /proc where it exists) or it
        is older than a minute.
        """
        deadline = time.monotonic() + wait
        locks = self._lock_files()
        while locks:
            if time.monotonic() > deadline:
                cleared = False
                for lock in locks:
                    if _open_by_any_process(lock) is False or _age(lock) > 60:
                        try:
                            lock.unlink()
                        except FileNotFoundError:
                            pass
                        cleared = True
                return cleared
            time.sleep(0.05)
            locks = self._lock_files()
        return False

    def _lock_files(self) -> list[Path]:
        git_dir = self.root / ".git"
        found = [git_dir / name for name in ("index.lock", "HEAD.lock", "packed-refs.lock") if (git_dir / name).exists()]
        refs = git_dir / "refs"
        if refs.is_dir():
            found += [p for p in refs.rglob("*.lock") if p.is_file()]
        return found


def _age(path: Path) -> float:
    try:
        return time.time() - path.stat().st_mtime
    except FileNotFoundError:
        return 0.0


def _open_by_any_process(path: Path) -> bool | None:
    """True/False where /proc can tell, None where it cannot."""
    proc = Path("/proc")
    if not proc.is_dir():
        return None
    target = str(path.resolve())
    for pid_dir in proc.iterdir():
        if not pid_dir.name.isdigit():
            continue
        try:
            for fd in (pid_dir / "fd").iterdir():
                try:
                    if os.readlink(fd) == target:
                        return True
                except OSError:
                    continue
        except OSError:
            continue
    return False
