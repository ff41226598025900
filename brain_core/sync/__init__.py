"""``aida brain sync``: one brain on several machines, through any git remote.

A sync: under the brain's write lock, clear a stale ``.git/index.lock`` a crash left and commit what
was changed by hand (not files lint refuses); then, without the lock and under deadlines, fetch;
under the lock again, rebase onto what came, keeping both versions of any record both machines
changed; push (writers only, without the lock); then reseed the counters from the files and let
the catalog catch up incrementally (only what the pull changed is re-read, only new text embedded).
A detached HEAD or the user's own rebase or merge in progress stops the sync before it writes.

**Conflicts are never lost.** Records are merged as whole files (two rewrites of one record are
two versions, not a line-by-line blend that neither machine wrote). When both sides changed a file
the version already on the remote stays at the path (the other machines have seen it) and this
machine's version is kept beside it as ``<name>.sync-conflict-<when>-<machine>.<ext>``; the index
skips such a copy and ``aida brain lint`` lists it until the user merges it and deletes it. When
one side changed a record the other archived or deleted, the changed version stays where it was.
Generated files (INDEX.md, its shelf file, harvest watermarks) simply take the remote's version
and are regenerated.

**Roles.** ``machine.role`` in the local settings is ``writer`` (default) or ``reader``. A reader
pulls but never pushes, and the lifecycle passes and harvesters write nothing on it
(:func:`require_writer`).

**Counters** hand out numbers (task numbers) that must never repeat across machines. They are
declared in the settings::

    counters:
      task:            # the counter's name: `aida brain counter task`
        field: task    # the record field holding a number (default: the name)
        start: 1       # the first number handed out (default 1)

A record holds a number as that field (``"task": 17``) or as a tag (``task:17``). The next number
is kept in ``.aida/counters.json`` (local) and is never lower than the highest number found in the
files (live, archived or conflict copies) plus one; it is reseeded from the files after every
pull, and before handing one out when HEAD moved since the last look. Two machines that sync
between hand-outs therefore never hand out the same number; two that hand out numbers while both
offline can collide, and the next sync lists such duplicates (``SyncReport.duplicates``).
"""

from __future__ import annotations

import json
import re
import time
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from brain_core.config.machine import ROLES, machine_name, machine_role, require_writer  # noqa: F401 - used here and re-exported
from brain_core.errors import BrainError, GitError, InvalidInput
from brain_core.store.fsutil import atomic_write_bytes
from brain_core.store.git import last_line

GENERATED = ("INDEX.md", "INDEX.shelf.md")
# Whole-file merges for records; pages and YAML keep git's line merge.
ATTRIBUTES = "*.json -merge\n"
_TAG_NUM = re.compile(r"^#?(\d{1,12})$")
_FIELD_NUM = re.compile(r"^\D{0,8}?(\d{1,12})$")


# -- roles ------------------------------------------------------------------------------------------------


# -- counters ----------------------------------------------------------------------------------------------


class Counters:
    """Numbers that never repeat across machines (see the module docstring)."""

    def __init__(self, brain) -> None:
        self.brain = brain
        self.path = brain.state_dir / "counters.json"

    def specs(self) -> dict[str, tuple[str, int]]:
        raw = self.brain.config.get("counters", None)
        if raw is None:
            raw = {"task": {}}
        if not isinstance(raw, dict):
            raise InvalidInput("The counters setting must be a mapping of names to {field, start}.")
        out = {}
        for name, spec in raw.items():
            spec = spec if isinstance(spec, dict) else {}
            out[str(name)] = (str(spec.get("field") or name), int(spec.get("start", 1) or 1))
        return out

    def _load(self) -> dict[str, Any]:
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
            return data if isinstance(data, dict) else {}
        except (OSError, ValueError):
            return {}

    def _save(self, data: dict[str, Any]) -> None:
        self.brain.state_dir.mkdir(exist_ok=True)
        atomic_write_bytes(self.path, (json.dumps(data, sort_keys=True, indent=2) + "\n").encode())

    def scan(self, paths: list[str] | None = None) -> tuple[dict[str, int], dict[str, dict[int, list[str]]]]:
        """The highest number of each counter in the files, and which files hold each number."""
        specs = self.specs()
        top = {name: 0 for name in specs}
        where: dict[str, dict[int, list[str]]] = {name: {} for name in specs}
        root = self.brain.root
        if paths is None:
            files = [p for shelf in ("memories", "events", "lessons", "archive")
                     for p in (root / shelf).rglob("*.json")]
        else:
            files = [root / p for p in paths if p.endswith(".json")]
        for f in files:
            try:
                d = json.loads(f.read_text(encoding="utf-8"))
            except (OSError, ValueError):
                continue
            if not isinstance(d, dict):
                continue
            rel = f.relative_to(root).as_posix()
            for name, (fld, _) in specs.items():
                for n in _numbers_in(d, name, fld):
                    top[name] = max(top[name], n)
                    where[name].setdefault(n, []).append(rel)
        return top, where

    def reseed(self, paths: list[str] | None = None) -> dict[str, int]:
        """Raise each counter past the highest number in the files; returns the next numbers."""
        return self._reseed(*self.scan(paths))[0]

    def after_pull(self) -> tuple[dict[str, int], dict[str, dict[int, list[str]]]]:
        """One scan of the files: the reseeded next numbers and the numbers held twice."""
        top, where = self.scan()
        return self._reseed(top, where)

    def _reseed(self, top: dict[str, int], where: dict) -> tuple[dict[str, int], dict]:
        with self.brain.lock():
            data = self._load()
            nxt = dict(data.get("next") or {})
            for name, (_, start) in self.specs().items():
                nxt[name] = max(int(nxt.get(name, 0) or 0), top.get(name, 0) + 1, start)
            data.update(next=nxt, seeded_head=self.brain.head())
            self._save(data)
        return {k: nxt[k] for k in self.specs()}, _duplicates(where)

    def _catch_up(self) -> dict[str, Any]:
        data = self._load()
        head = self.brain.head()
        seen = data.get("seeded_head")
        if seen == head and data.get("next"):
            return data
        changed = None
        if seen:
            proc = self.brain.git.run("diff", "--name-only", "-z", seen, head or "HEAD", check=False)
            if proc.returncode == 0:
                changed = [p for p in proc.stdout.split("\0") if p]
        self.reseed(changed)
        return self._load()

    def peek(self, name: str) -> int:
        self._check(name)
        with self.brain.lock():
            return int(self._catch_up()["next"][name])

    def allocate(self, name: str) -> int:
        """Hand out the next number of ``name`` (never one any synced machine has used)."""
        self._check(name)
        with self.brain.lock():
            data = self._catch_up()
            n = int(data["next"][name])
            data["next"][name] = n + 1
            self._save(data)
            return n

    def duplicates(self) -> dict[str, dict[int, list[str]]]:
        """Numbers held by more than one live record (two machines handed them out offline)."""
        return _duplicates(self.scan()[1])

    def _check(self, name: str) -> None:
        if name not in self.specs():
            raise InvalidInput(f"There is no counter named {name!r}; declare it under `counters:` in the settings "
                               f"(known: {', '.join(self.specs()) or 'none'}).")


def _duplicates(where: dict[str, dict[int, list[str]]]) -> dict[str, dict[int, list[str]]]:
    out = {}
    for name, nums in where.items():
        twice = {n: sorted(ps) for n, ps in nums.items() if len([p for p in ps if not p.startswith("archive/")]) > 1}
        if twice:
            out[name] = twice
    return out


def _numbers_in(d: dict, name: str, fld: str) -> list[int]:
    out = []
    v = d.get(fld)
    if isinstance(v, int) and not isinstance(v, bool) and v > 0:
        out.append(v)
    elif isinstance(v, str):
        m = _FIELD_NUM.match(v.strip())
        if m:
            out.append(int(m.group(1)))
    for t in d.get("tags") or ():
        if isinstance(t, str) and t.startswith(name + ":"):
            m = _TAG_NUM.match(t[len(name) + 1:].strip())
            if m:
                out.append(int(m.group(1)))
    return out


# -- sync ------------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Conflict:
    path: str          # the file both sides changed (it holds the remote's version now)
    copy: str | None   # this machine's version, kept beside it (None when one side had removed it)
    resolution: str    # one line for the user


@dataclass(frozen=True)
class SyncReport:
    role: str
    remote: str
    branch: str
    pulled: int = 0
    pushed: int = 0
    committed_local_edits: int = 0
    conflicts: tuple[Conflict, ...] = ()
    counters: dict = field(default_factory=dict)
    duplicates: dict = field(default_factory=dict)
    index: str = ""
    lock_cleared: bool = False
    held_back: int = 0   # local commits a reader keeps without pushing

    def to_json(self) -> dict:
        return {"role": self.role, "remote": self.remote, "branch": self.branch, "pulled": self.pulled,
                "pushed": self.pushed, "committed_local_edits": self.committed_local_edits,
                "conflicts": [c.__dict__ for c in self.conflicts], "counters": self.counters,
                "duplicates": {k: {str(n): p for n, p in v.items()} for k, v in self.duplicates.items()},
                "index": self.index, "lock_cleared": self.lock_cleared, "held_back": self.held_back}


def sync(brain, *, remote: str | None = None, push: bool = True, attempts: int = 3) -> SyncReport:
    """Fetch, rebase, push; see the module docstring for what happens to conflicts.

    The network part (ls-remote, fetch, push) runs without the brain's write lock and under
    deadlines (``sync.timeout`` overall, ``sync.low_speed_time`` for http, ``sync.connect_timeout``
    for ssh), so a remote that never answers stops the sync with one sentence and no write waits on it.
    """
    cfg = brain.config
    role = machine_role(cfg)
    remote = remote or str(cfg.get("sync.remote", "origin"))
    git = brain.git
    limit = _seconds(cfg, "sync.timeout", 300)
    net = dict(deadline=time.monotonic() + limit, limit=limit, low_speed_time=_seconds(cfg, "sync.low_speed_time", 30),
               connect_timeout=_seconds(cfg, "sync.connect_timeout", 15), what=f"The remote {remote!r}")
    with brain.lock():
        cleared = git.clear_stale_lock(wait=float(cfg.get("sync.lock_wait", 2.0)))
        _ensure_fsync(git)
        if remote not in git.run("remote").stdout.split():
            raise BrainError(f"The brain has no git remote named {remote!r}; add one with "
                             f"`git -C {brain.root} remote add {remote} URL` (any bare repository will do).")
        if _rebasing(brain.root) and _marker(brain).exists():  # a sync that crashed mid-rebase: start over
            git.run("rebase", "--abort", check=False)
        _marker(brain).unlink(missing_ok=True)
        git.ensure_writable()
        branch = git.branch()
        committed = _commit_pending(brain)
        attrs = _attributes_args(brain)
        before = git.head()
    conflicts: list[Conflict] = []
    pushed = pulled = held = 0
    regenerated = False
    for attempt in range(max(1, attempts)):
        upstream = _fetch(git, remote, branch, net)  # network: no lock held
        with brain.lock():
            git.ensure_writable()
            if upstream:
                conflicts += _rebase(brain, attrs, upstream)
                conflicts += _revive_archived_edits(brain, before, upstream)
                if before:
                    pulled = int(git.run("rev-list", "--count", f"{before}..{upstream}").stdout.strip() or 0)
            if role == "writer" and (pulled or any(c.path in GENERATED for c in conflicts)) \
                    and (brain.root / "INDEX.md").exists():
                from brain_core.lifecycle.tier_index import regenerate

                regenerated = bool(regenerate(brain).written) or regenerated
            span = f"{upstream}..HEAD" if upstream else "HEAD"
            ahead = int(git.run("rev-list", "--count", span).stdout.strip() or 0)
            tip = git.head()
        if role != "writer" or not push:
            held = ahead
            break
        if not ahead:
            break
        proc = git.network("push", "-q", remote, f"{tip}:refs/heads/{branch}", **net)
        if proc.returncode == 0:
            pushed = ahead
            break
        if attempt == attempts - 1:
            raise GitError(f"git push to {remote} was refused: {last_line(proc)}; run `aida brain sync` again.")
    with brain.lock():
        next_numbers, dups = Counters(brain).after_pull()
        report, stats = brain.index.sync()
    return SyncReport(role=role, remote=remote, branch=branch, pulled=pulled, pushed=pushed,
                      committed_local_edits=committed, conflicts=tuple(conflicts), counters=next_numbers,
                      duplicates=dups, index=f"{report.summary()}; {stats.embedded} embedded"
                      + ("; INDEX.md regenerated" if regenerated else ""), lock_cleared=cleared, held_back=held)


def _seconds(cfg, key: str, default: float) -> float:
    try:
        value = float(cfg.get(key, default))
    except (TypeError, ValueError):
        raise InvalidInput(f"{key} must be a number of seconds; set it with `aida config set {key} {default:g}`.") \
            from None
    if value <= 0:
        raise InvalidInput(f"{key} must be more than 0 seconds; set it with `aida config set {key} {default:g}`.")
    return value


def _fetch(git, remote: str, branch: str, net: dict) -> str | None:
    """The remote's tip of ``branch`` fetched here (None when the remote has no such branch yet)."""
    proc = git.network("ls-remote", "--heads", remote, branch, **net)
    if proc.returncode != 0:
        raise GitError(f"The remote {remote!r} cannot be reached: {last_line(proc)}; check its URL with "
                       "`git remote -v` and your network.")
    if not proc.stdout.strip():
        return None
    proc = git.network("fetch", "-q", "--no-tags", remote, f"refs/heads/{branch}", **net)
    if proc.returncode != 0:
        raise GitError(f"git fetch from {remote} failed: {last_line(proc)}; check the remote "
                       "and your network, then run `aida brain sync` again.")
    return git.run("rev-parse", "FETCH_HEAD^{commit}").stdout.strip()


def _marker(brain) -> Path:
    """Present while a sync's own rebase runs: a rebase found with it is a crashed sync's, not the user's."""
    return brain.state_dir / "sync-rebase"


def _rebase(brain, attrs: list[str], upstream: str) -> list[Conflict]:
    """Replay this machine's commits onto the fetched ``upstream`` (local only: no network)."""
    git = brain.git
    brain.state_dir.mkdir(exist_ok=True)
    marker = _marker(brain)
    atomic_write_bytes(marker, upstream.encode())
    try:
        proc = git.run(*attrs, "rebase", "--no-autostash", "-q", upstream, check=False)
        if proc.returncode == 0:
            return []
        if not _rebasing(brain.root):
            raise GitError(f"git rebase onto the remote's changes failed: {last_line(proc)}; commit or undo the "
                           "changes it names, then run `aida brain sync` again.")
        return _resolve(brain, attrs)
    finally:
        if not _rebasing(brain.root):
            marker.unlink(missing_ok=True)


def _ensure_fsync(git) -> None:
    """A clone made by plain ``git clone`` lacks the fsync settings ``Brain.init`` sets."""
    if not git.run("config", "--get", "core.fsync", check=False).stdout.strip():
        git.run("config", "core.fsync", "committed,index")
        git.run("config", "core.fsyncMethod", "fsync")


def _attributes_args(brain) -> list[str]:
    path = brain.state_dir / "sync.gitattributes"
    if not path.exists() or path.read_text(encoding="utf-8") != ATTRIBUTES:
        brain.state_dir.mkdir(exist_ok=True)
        atomic_write_bytes(path, ATTRIBUTES.encode())
    # Whole-file merges: two rewrites of one record conflict instead of blending line by line.
    return ["-c", f"core.attributesFile={path}"]


def _commit_pending(brain) -> int:
    """Commit what was changed by hand, except files lint refuses (symlinks, huge or broken files)."""
    from brain_core.lifecycle.lint import commit_refusal

    pending = [p for p in brain.git.uncommitted(["."]) if commit_refusal(brain.root, p) is None]
    if not pending:
        return 0
    with brain.writing(f"sync: record {len(pending)} file(s) changed outside Aida", index=False) as tx:
        for p in pending:  # the one write path: nothing rewritten, one commit of the hand edits
            tx.include(p, index=False)
    return len(pending)


def _rebasing(root: Path) -> bool:
    return (root / ".git" / "rebase-merge").exists() or (root / ".git" / "rebase-apply").exists()


def _resolve(brain, attrs: list[str]) -> list[Conflict]:
    """Finish a rebase that stopped on conflicts, keeping every version (see the docstring)."""
    git = brain.git
    out: list[Conflict] = []
    host = machine_name(brain.config)
    for _ in range(10_000):
        if not _rebasing(brain.root):
            return out
        unmerged = _unmerged(git)
        for path, stages in unmerged.items():
            out.append(_keep_both(brain, path, stages, host))
        # Commit the resolution ourselves (no editor can open), then let the rebase go on.
        done = git.run("commit", "-q", "--no-edit", "--no-verify", check=False)
        nothing = done.returncode != 0 and not _unmerged(git)
        proc = git.run(*attrs, "rebase", "--skip" if nothing and not _staged(git) else "--continue", check=False)
        if proc.returncode != 0 and _rebasing(brain.root) and not _unmerged(git):
            git.run("rebase", "--abort", check=False)
            raise GitError(f"The rebase during sync could not continue: {last_line(proc)}; the brain is back as it "
                           "was before the sync, nothing is lost; run `aida brain sync` again or resolve by hand.")
    git.run("rebase", "--abort", check=False)
    raise GitError("The sync's rebase did not finish; it was undone and nothing is lost; resolve it by hand.")


def _staged(git) -> bool:
    return git.run("diff", "--cached", "--quiet", check=False).returncode != 0


def _unmerged(git) -> dict[str, dict[int, str]]:
    proc = git.run("ls-files", "-u", "-z")
    out: dict[str, dict[int, str]] = {}
    for entry in proc.stdout.split("\0"):
        if not entry:
            continue
        meta, path = entry.split("\t", 1)
        _, sha, stage = meta.split()
        out.setdefault(path, {})[int(stage)] = sha
    return out


def _keep_both(brain, path: str, stages: dict[int, str], host: str) -> Conflict:
    """During a rebase stage 2 is the remote's side (HEAD) and stage 3 this machine's commit."""
    git = brain.git
    target = brain.root / path
    theirs, mine = stages.get(2), stages.get(3)
    generated = path in GENERATED or path.startswith("harvest/")
    if theirs and (mine is None or generated or theirs == mine):
        _write_blob(git, theirs, target)
        git.run("add", "--", path)
        why = ("kept the remote's version (it is regenerated)" if generated and mine
               else "kept the remote's changes; this machine had removed the file" if mine is None
               else "both sides made the same change")
        return Conflict(path, None, why)
    if mine and not theirs:
        _write_blob(git, mine, target)
        git.run("add", "--", path)
        return Conflict(path, None, "kept this machine's changes; the remote had archived or removed the file")
    assert theirs is not None and mine is not None  # one side alone returned above
    live = path[len("archive/"):]
    if path.startswith("archive/") and not (brain.root / live).exists():
        # the remote archived (and changed) a record this machine edited: the edit stays live
        _write_blob(git, theirs, target)
        _write_blob(git, mine, brain.root / live)
        git.run("add", "--", path, live)
        return Conflict(live, None, "this machine edited it while the remote archived it: the edit stays live "
                                    f"here and the archived version stays at {path}")
    stamp = datetime.now(timezone.utc).strftime("%Y%m%d-%H%M%S")
    p = Path(path)
    copy = (p.with_name(f"{p.stem}.sync-conflict-{stamp}-{host}{p.suffix}")).as_posix()
    _write_blob(git, theirs, target)
    _write_blob(git, mine, brain.root / copy)
    git.run("add", "--", path, copy)
    return Conflict(path, copy, f"both machines changed it: the remote's version is at {path}, this machine's at "
                                f"{copy}; merge them by hand and delete the copy")


def _revive_archived_edits(brain, before: str | None, upstream: str) -> list[Conflict]:
    """A record this machine edited while the remote archived it: git's rename detection carries
    the edit into ``archive/``. Put the edited version back at its live path (the remote's archived
    copy stays in ``archive/``), so an edit never silently fades."""
    git = brain.git
    if not before:
        return []
    base = git.run("merge-base", before, upstream, check=False).stdout.strip()
    if not base:
        return []
    moved_there = _name_status(git, f"{base}..{upstream}")
    archived = {p for s, p in moved_there if s == "A" and p.startswith("archive/")
                and ("D", p[len("archive/"):]) in moved_there}
    revive = [(status, path) for status, path in _name_status(git, f"{upstream}..HEAD")
              if status == "M" and path in archived and not (brain.root / path[len("archive/"):]).exists()]
    if not revive:
        return []
    out = []
    # the one write path; the bytes are git's own (committed before), and the catalog catches up after the sync
    with brain.writing(f"sync: keep {len(revive)} edited record(s) live that the remote had archived", redact=False,
                       index=False) as tx:
        for _, path in revive:
            live = path[len("archive/"):]
            tx.put(live, _blob(git, git.run("rev-parse", f"HEAD:{path}").stdout.strip()))
            tx.put(path, _blob(git, git.run("rev-parse", f"{upstream}:{path}").stdout.strip()))
            out.append(Conflict(live, None, "this machine edited it while the remote archived it: the edit stays live "
                                            f"here and the archived version stays at {path}"))
    return out


def _name_status(git, span: str) -> set[tuple[str, str]]:
    proc = git.run("diff", "--name-status", "--no-renames", "-z", span)
    parts = [p for p in proc.stdout.split("\0") if p]
    return {(parts[i][:1], parts[i + 1]) for i in range(0, len(parts) - 1, 2)}


def _blob(git, sha: str) -> bytes:
    return git.repo.odb.stream(bytes.fromhex(sha)).read()


def _write_blob(git, sha: str, target: Path) -> None:
    """A side of a rebase's conflict put in the work tree (git's own merge, mid-rebase: the rebase
    commits it, so it cannot go through the write path, which refuses to write during a rebase)."""
    atomic_write_bytes(target, _blob(git, sha))
