"""Git under Aida's own identity, through GitPython: one layer with one set of safe defaults.

GitPython's ``Repo`` reads what it can without a process (HEAD, refs, the config); every git
command (commit, status, archive, fetch, push, rebase) runs through GitPython's command wrapper
(``repo.git``) with one environment: Aida's identity as an explicit ``Actor`` (author and
committer, so the user's global identity or root@host never signs the brain's history), no hooks,
no signing, no fsmonitor, no editor, no prompts (``GIT_TERMINAL_PROMPT=0``, ``GIT_ASKPASS=``),
literal pathspecs, and the brain's own git dir, work tree and index (a ``GIT_DIR`` or
``GIT_INDEX_FILE`` inherited from a hook never redirects a write). Network commands also get
deadlines (:meth:`Git.network`).

**Aida commits only what Aida wrote.** :meth:`Git.commit` names its paths (``git commit --only``),
so what the user staged stays staged and out of Aida's commit, and it never commits a symlink or a
special file. **Writes stop on a detached HEAD or an operation in progress** (rebase, merge,
cherry-pick, revert; :meth:`Git.ensure_writable`): a commit there would vanish at the next checkout
or get mixed into the user's work. Callers hold the brain's write lock around every commit.
"""

from __future__ import annotations

import os
import stat
import subprocess
import time
from pathlib import Path
from typing import Literal

from brain_core.errors import GitError, MissingDependency

HOOKS_OFF = "/dev/null" if os.name != "nt" else "NUL"
# Applied to every git process (GIT_CONFIG_COUNT/KEY/VALUE, git >= 2.31), whatever the user's config says.
SAFE_CONFIG = (
    ("core.hooksPath", HOOKS_OFF),
    ("commit.gpgsign", "false"),
    ("tag.gpgsign", "false"),
    ("core.fsmonitor", "false"),
    ("core.quotePath", "false"),
    ("core.askPass", ""),
    ("credential.interactive", "never"),
)
# What stops a write, and the one sentence that says so.
_IN_PROGRESS = (("rebase-merge", "a rebase"), ("rebase-apply", "a rebase"), ("MERGE_HEAD", "a merge"),
                ("CHERRY_PICK_HEAD", "a cherry-pick"), ("REVERT_HEAD", "a revert"))
_NOTHING = ("nothing to commit", "nothing added to commit", "no changes added")


def filters_off(repo) -> tuple[tuple[str, str], ...]:
    """Settings that switch off every clean/smudge filter the user's git config defines (in any
    scope): a brain's ``.gitattributes`` arrives with a sync, and a ``filter.<name>.clean`` command
    would otherwise run on every commit Aida makes. Aida's files are plain JSON and Markdown."""
    try:
        reader = repo.config_reader()
        names = {sec[len('filter "'):-1] for sec in reader.sections() if sec.startswith('filter "') and sec.endswith('"')}
    except Exception:  # noqa: BLE001 - an unreadable config: git itself will say so on the first command
        return ()
    return tuple((f"filter.{name}.{key}", value) for name in sorted(names)
                 for key, value in (("clean", ""), ("smudge", ""), ("process", ""), ("required", "false")))


class GitResult(subprocess.CompletedProcess):
    """A finished git command; ``timed_out`` says it was killed at its timeout."""

    timed_out: bool = False


class Git:
    def __init__(self, root: Path, name: str = "Aida", email: str = "aida@brain.invalid") -> None:
        self.root = Path(os.path.abspath(Path(root).expanduser()))  # GIT_WORK_TREE must not be relative
        self.name = name
        self.email = email
        self._repo = None

    # -- the one layer --------------------------------------------------------------------------------

    @property
    def actor(self):
        """Author and committer of every commit Aida makes."""
        git = _gitpython()
        return git.Actor(self.name, self.email)

    @property
    def git_dir(self) -> Path:
        if self._repo is None and not (self.root / ".git").exists():
            return self.root / ".git"
        return Path(self.repo.git_dir)

    @property
    def repo(self):
        """GitPython's ``Repo`` for the brain, its command wrapper set to the safe environment."""
        if self._repo is None:
            git = _gitpython()
            try:
                repo = git.Repo(self.root)
            except (git.InvalidGitRepositoryError, git.NoSuchPathError):
                raise GitError(f"{self.root} is not a git repository; create the brain with `aida brain init`.") \
                    from None
            repo.git.update_environment(**self._env(Path(repo.git_dir), filters_off(repo)))
            self._repo = repo
        return self._repo

    def close(self) -> None:
        if self._repo is not None:
            self._repo.close()
            self._repo = None

    def _env(self, git_dir: Path, extra: tuple[tuple[str, str], ...] = ()) -> dict[str, str]:
        actor = self.actor
        env = {"GIT_AUTHOR_NAME": actor.name, "GIT_AUTHOR_EMAIL": actor.email,
               "GIT_COMMITTER_NAME": actor.name, "GIT_COMMITTER_EMAIL": actor.email,
               "GIT_TERMINAL_PROMPT": "0", "GIT_ASKPASS": "", "SSH_ASKPASS": "", "GCM_INTERACTIVE": "never",
               "GIT_EDITOR": ":", "GIT_SEQUENCE_EDITOR": ":", "GIT_MERGE_AUTOEDIT": "no", "GIT_LITERAL_PATHSPECS": "1",
               "GIT_DIR": str(git_dir), "GIT_WORK_TREE": str(self.root), "GIT_INDEX_FILE": str(git_dir / "index"),
               "LC_ALL": "C", "GIT_CONFIG_COUNT": str(len(SAFE_CONFIG) + len(extra))}
        for i, (key, value) in enumerate((*SAFE_CONFIG, *extra)):
            env[f"GIT_CONFIG_KEY_{i}"] = key
            env[f"GIT_CONFIG_VALUE_{i}"] = value
        return env

    def _wrapper(self):
        if self._repo is not None or (self.root / ".git").exists():
            return self.repo.git
        git = _gitpython()  # before `git init`: a bare wrapper with the same environment
        wrapper = git.cmd.Git(str(self.root))
        wrapper.update_environment(**self._env(self.root / ".git"))
        return wrapper

    def run(self, *args: str, check: bool = True, input: str | None = None, timeout: float | None = None,
            env: dict[str, str] | None = None) -> GitResult:
        """``git ARGS`` through GitPython's wrapper; output is text (undecodable bytes kept as
        surrogates, so any file name round-trips). ``timeout`` kills git and its helpers."""
        git = _gitpython()
        stdin = None
        if input is not None:
            import tempfile

            stdin = tempfile.TemporaryFile()
            stdin.write(input.encode("utf-8", "surrogateescape"))
            stdin.seek(0)
        try:
            status, out, err = self._wrapper().execute(
                ["git", *args], with_extended_output=True, with_exceptions=False, istream=stdin,
                kill_after_timeout=timeout, env=env, strip_newline_in_stdout=False)
        except git.GitCommandNotFound:
            raise MissingDependency("git is not installed; install it (e.g. `apt-get install git`).") from None
        finally:
            if stdin is not None:
                stdin.close()
        proc = GitResult(["git", *args], status, out, err)
        proc.timed_out = timeout is not None and status != 0 and err.startswith("Timeout:")
        if check and status != 0:
            raise GitError(f"git {args[0]} failed in {self.root}: {last_line(proc)}")
        return proc

    # -- reads ------------------------------------------------------------------------------------------

    def head(self) -> str | None:
        try:
            return self.repo.head.commit.hexsha
        except ValueError:  # an unborn branch: no commit yet
            return None

    def branch(self) -> str | None:
        """The checked-out branch, or None on a detached HEAD."""
        head = self.repo.head
        return None if head.is_detached else head.ref.name

    def uncommitted(self, pathspec: list[str]) -> list[str]:
        """Paths under ``pathspec`` that differ from HEAD (new, changed or deleted)."""
        proc = self.run("status", "--porcelain", "-z", "--untracked-files=all", "--no-renames", "--", *pathspec)
        return [entry[3:] for entry in proc.stdout.split("\0") if len(entry) > 3]

    def has_objects(self, ids: list[str]) -> set[str]:
        """The object ids among ``ids`` that this clone's object store holds (one ``git cat-file``)."""
        if not ids:
            return set()
        proc = self.run("cat-file", "--batch-check=%(objectname)", input="\n".join(ids) + "\n")
        return {line for line in proc.stdout.split("\n") if line and not line.endswith(" missing")} & set(ids)

    # -- writes -----------------------------------------------------------------------------------------

    def init(self) -> None:
        self.run("init", "-q", "-b", "main")
        # A power cut must not lose a committed memory; renames in the object store too.
        with self.repo.config_writer() as cfg:
            cfg.set_value("core", "fsync", "committed,index")
            cfg.set_value("core", "fsyncMethod", "fsync")

    def ensure_writable(self) -> None:
        """Refuse a write on a detached HEAD or while a rebase, merge, cherry-pick or revert is under way."""
        git_dir = self.git_dir
        for name, what in _IN_PROGRESS:
            if (git_dir / name).exists():
                raise GitError(f"{what.capitalize()} is in progress in the brain, so Aida will not write now; finish "
                               f"or abort it (`git -C {self.root} status` says how), then try again.")
        try:
            head = (git_dir / "HEAD").read_text(encoding="utf-8", errors="replace").strip()
        except OSError:
            head = "ref: "
        if not head.startswith("ref: "):
            raise GitError(f"The brain's HEAD is detached (not on a branch), so Aida will not write: a commit there "
                           f"would vanish at the next checkout; run `git -C {self.root} switch main` (or your branch) "
                           "first.")

    def commit(self, paths: list[str], message: str) -> str | None:
        """Commit exactly ``paths`` (added, changed or removed) and nothing else: what the user
        staged stays staged. Returns the new HEAD, or None when nothing changed."""
        from brain_core.redact.scrub import message as clean  # the redaction gate: no secret in a commit message
        message = clean(message)
        self.ensure_writable()
        self.clear_stale_lock()
        paths = [p for p in dict.fromkeys(paths) if _committable(self.root / p)]
        if not paths:
            return None
        gone = [p for p in paths if not os.path.lexists(self.root / p)]
        if gone:  # a path that is nowhere (not on disk, not tracked) would fail the whole commit
            known = set(self.run("ls-files", "-z", "--", *gone).stdout.split("\0"))
            if self.head():
                known |= set(self.run("ls-tree", "-r", "-z", "--name-only", "HEAD", "--", *gone).stdout.split("\0"))
            paths = [p for p in paths if p not in gone or p in known]
            if not paths:
                return None
        self.run("add", "-A", "--", *paths)
        done = self._commit_index(paths, message)
        if done is not False:
            return done
        proc = self.run("commit", "-q", "--no-verify", "--only", "-m", message, "--", *paths, check=False)
        if proc.returncode != 0:
            if any(s in (proc.stdout + proc.stderr).lower() for s in _NOTHING):
                return None
            raise GitError(f"git commit failed in {self.root}: {last_line(proc)}")
        return self.head()

    def _commit_index(self, paths: list[str], message: str) -> str | None | Literal[False]:
        """Commit the index as it stands when it differs from HEAD in ``paths`` alone (nothing else
        staged): the new tree comes from the index's cached subtrees, where ``git commit --only``
        rebuilds a temporary index from HEAD's whole tree (about 4 s against 0.4 s at 100,000
        files). Returns the new HEAD, None when nothing changed, or False when the index holds
        other staged changes, has no HEAD yet, or HEAD moved meanwhile: the caller then commits
        with ``--only``."""
        head = self.head()
        if head is None:
            return False
        tree = self.run("write-tree", check=False)
        if tree.returncode != 0:  # e.g. an entry added with `git add -N`
            return False
        tree = tree.stdout.strip()
        diff = self.run("diff-tree", "-r", "-z", "--name-only", "--no-renames", head, tree, check=False)
        if diff.returncode != 0:
            return False
        changed = [n for n in diff.stdout.split("\0") if n]
        if not changed:
            return None
        if not set(changed) <= set(paths):
            return False  # the user staged something else: it stays staged, out of this commit
        text = _cleanup(message)
        commit = self.run("commit-tree", tree, "-p", head, "-F", "-", input=text).stdout.strip()
        subject = text.split("\n", 1)[0]
        if self.run("update-ref", "-m", f"commit: {subject}", "HEAD", commit, head, check=False).returncode != 0:
            return False
        self.run("gc", "--auto", "--quiet", check=False)  # what `git commit` runs after each commit
        return commit

    # -- network ----------------------------------------------------------------------------------------

    def network(self, *args: str, deadline: float, low_speed_time: float = 30, connect_timeout: float = 15,
                what: str = "The remote", limit: float | None = None) -> GitResult:
        """A git command that talks to a remote, with deadlines: http(s) gives up when under 1 kB/s for
        ``low_speed_time`` seconds, ssh when it cannot connect in ``connect_timeout`` or the server stops
        answering, and git itself is killed (with its helpers) at ``deadline`` (time.monotonic())."""
        left = deadline - time.monotonic()
        late = GitError(f"{what} did not answer within {limit or max(left, 0):.0f} s, so the sync stopped there and "
                        "nothing is lost; check the remote's URL (`git remote -v`) and your network, then run "
                        "`aida brain sync` again.")
        if left <= 0:
            raise late
        # git's http.lowSpeedLimit/http.lowSpeedTime, as the environment that overrides them
        env = {"GIT_HTTP_LOW_SPEED_LIMIT": "1000", "GIT_HTTP_LOW_SPEED_TIME": str(max(1, int(low_speed_time)))}
        if not (os.environ.get("GIT_SSH_COMMAND") or os.environ.get("GIT_SSH") or self._config("core", "sshCommand")):
            alive = max(1, int(connect_timeout))
            env["GIT_SSH_COMMAND"] = (f"ssh -o BatchMode=yes -o ConnectTimeout={alive} -o ServerAliveInterval={alive} "
                                      "-o ServerAliveCountMax=3")
        proc = self.run(*args, check=False, timeout=left, env=env)
        if proc.timed_out:
            raise late
        return proc

    def _config(self, section: str, option: str) -> str | None:
        try:
            return self.repo.config_reader().get_value(section, option, None)
        except Exception:  # noqa: BLE001 - an unreadable option is simply not set
            return None

    # -- crashes ----------------------------------------------------------------------------------------

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


def _gitpython():
    """GitPython, imported on first use (a cold ``aida brain recall`` never needs it)."""
    try:
        import git
    except ImportError:
        raise MissingDependency("GitPython is not installed; install it with `pip install GitPython`.") from None
    except Exception as e:  # GitPython refuses to import when no git executable is found
        first = str(e).splitlines()[0] if str(e) else type(e).__name__
        raise MissingDependency(f"git is not usable ({first}); install it (e.g. `apt-get install git`).") from None
    return git


def last_line(proc) -> str:
    lines = (proc.stderr.strip() or proc.stdout.strip()).splitlines()
    return lines[-1] if lines else f"exit {proc.returncode}"


def _cleanup(message: str) -> str:
    """The message as ``git commit -m`` stores it (its "whitespace" clean-up): trailing spaces
    gone, runs of blank lines made one, no blank lines at either end, one final newline."""
    lines = [line.rstrip() for line in message.splitlines()]
    out: list[str] = []
    for line in lines:
        if line or (out and out[-1]):
            out.append(line)
    while out and not out[-1]:
        out.pop()
    return "\n".join(out) + "\n"


def _committable(path: Path) -> bool:
    """A regular file (or a path removed, to commit its removal); never a symlink, a device, a fifo,
    or a file with a second hard link (the same bytes as a file that may be outside the brain)."""
    try:
        st = os.lstat(path)
    except FileNotFoundError:
        return True
    except OSError:
        return False
    return stat.S_ISREG(st.st_mode) and st.st_nlink == 1


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
