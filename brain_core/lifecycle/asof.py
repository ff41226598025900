"""``aida brain recall --as-of DATE``: recall from the brain as it was at a date.

The brain's history is git's, read through GitPython: the last commit at or before the date (a bare
date means the end of that day, UTC) is unpacked with ``git archive`` into ``.aida/asof/<commit>/`` and given a catalog
of its own. Its vectors are taken from the live catalog by text checksum wherever the text is
unchanged, so only text that has since changed is embedded again. Decay is computed as of that
date, and nothing there counts as a use. Snapshots are cached per commit (the newest
``asof.keep``, 5, are kept), so asking twice about one date builds once.
"""

from __future__ import annotations

import os
import shutil
import tarfile
from datetime import datetime, timezone
from datetime import time as dtime
from pathlib import Path

from brain_core.errors import BrainError, InvalidInput
from brain_core.store.locks import FileLock

SNAPSHOTS = "asof"


def parse_as_of(text: str) -> datetime:
    """``2026-09-01`` (the end of that day, UTC) or a full ISO-8601 time."""
    raw = (text or "").strip()
    try:
        if len(raw) == 10:
            day = datetime.strptime(raw, "%Y-%m-%d").date()
            return datetime.combine(day, dtime(23, 59, 59), tzinfo=timezone.utc)
        when = datetime.fromisoformat(raw.replace("Z", "+00:00"))
    except ValueError:
        raise InvalidInput(f"--as-of {raw!r} is not a date; use YYYY-MM-DD or an ISO-8601 time.") from None
    return when if when.tzinfo else when.replace(tzinfo=timezone.utc)


def commit_at(brain, when: datetime) -> str:
    """The last commit at or before ``when`` on HEAD's history (read through GitPython)."""
    stamp = when.astimezone(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
    repo = brain.git.repo
    if brain.git.head() is None:
        raise BrainError("The brain has no history yet; remember something first.")
    found = next(repo.iter_commits("HEAD", max_count=1, before=stamp), None)
    if found is None:
        roots = [repo.commit(sha) for sha in repo.git.rev_list("--max-parents=0", "HEAD").split()]
        since = f" (its history starts {min(c.committed_datetime for c in roots).isoformat()[:10]})" if roots else ""
        raise BrainError(f"The brain has no history at or before {stamp}{since}; choose a later date.")
    return found.hexsha


def snapshot(brain, sha: str) -> Path:
    """``.aida/asof/<sha>/``: the files of that commit with their own catalog, built once."""
    base = brain.state_dir / SNAPSHOTS
    root = base / sha
    with FileLock(base / "build.lock", timeout=300):
        if (root / ".aida" / "index.sqlite").exists():
            os.utime(root)
            return root
        tmp = base / f".{sha}.tmp-{os.getpid()}"
        shutil.rmtree(tmp, ignore_errors=True)
        tmp.mkdir(parents=True)
        # streamed through GitPython's wrapper: a large brain's history never sits in memory as one tar
        from brain_core.store.git import _gitpython

        proc = brain.git.repo.git.archive("--format=tar", sha, as_process=True)
        problem = None
        try:
            with tarfile.open(fileobj=proc.proc.stdout, mode="r|") as tar:
                tar.extractall(tmp, filter="data")
        except tarfile.TarError as e:
            problem = f"the archive could not be unpacked: {e}"
        try:
            proc.wait()
        except _gitpython().GitCommandError as e:
            problem = (e.stderr or "").strip().replace("stderr: ", "", 1).strip("'")[:200] or problem or "git failed"
        if problem:
            shutil.rmtree(tmp, ignore_errors=True)
            raise BrainError(f"git archive of {sha[:10]} failed ({problem}); check the brain with `git fsck`.")
        idx = _index(brain, tmp)
        from brain_core.catalog.factory import vector_source

        with vector_source(brain) as seed:  # the server catalog's vectors too, on PostgreSQL
            idx.rebuild(reuse_from=seed, quiet=True)
        idx.close()
        shutil.rmtree(root, ignore_errors=True)
        os.replace(tmp, root)
        _prune(base, keep=int(brain.config.get("asof.keep", 5)), current=sha)
    return root


def _index(brain, root: Path):
    from brain_core.catalog.embed import DIM, MODEL_ID
    from brain_core.catalog.sqlite.index import Index

    return Index(root, FileLock(root / ".aida" / "write.lock"), lambda: brain.embedder, dim=DIM, model_id=MODEL_ID,
                 notice=lambda msg: None)


def _prune(base: Path, keep: int, current: str) -> None:
    snaps = sorted((p for p in base.iterdir() if p.is_dir() and not p.name.startswith(".")),
                   key=lambda p: p.stat().st_mtime, reverse=True)
    for old in snaps[max(1, keep):]:
        if old.name != current:
            shutil.rmtree(old, ignore_errors=True)


def recall_at(brain, as_of: str, query: str, *, k: int = 5, profile: str | None = None, type: str | None = None,
              tag: str | None = None, recent: bool = False, explain: bool = False) -> list:
    """Recall against the brain as it was at ``as_of`` (a Brain in hand; see :func:`recall_as_of`)."""
    from brain_core.catalog.usage import Usage
    from brain_core.recall.hybrid import RecallParams, check_query, recall

    check_query(query, k)
    when = parse_as_of(as_of)
    sha = commit_at(brain, when)
    root = snapshot(brain, sha)
    idx = _index(brain, root)
    usage = Usage(root / ".aida" / "usage.sqlite")
    try:
        hits = recall(idx, usage, query, k=k, profile=profile, type=type, tag=tag, recent=recent, explain=explain,
                      params=RecallParams.from_config(brain.config), touch=False, now=when.timestamp())
    finally:
        idx.close()
        usage.close()
    if explain:
        for h in hits:
            h.explain = {**(h.explain or {}), "as_of": when.strftime("%Y-%m-%dT%H:%M:%SZ"), "commit": sha}
    return hits


def recall_as_of(ctx, as_of: str, query: str, *, k: int = 5, profile: str | None = None, type: str | None = None,
                 tag: str | None = None, recent: bool = False, explain: bool = False) -> list:
    """What ``aida brain recall --as-of`` calls: opens the brain from the CLI context."""
    brain = ctx.open_brain()
    try:
        return recall_at(brain, as_of, query, k=k, profile=profile, type=type, tag=tag, recent=recent, explain=explain)
    finally:
        brain.close()
