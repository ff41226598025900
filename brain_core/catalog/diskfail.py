"""Why a write failed, in one sentence: a full disk, a file-size limit, a read-only brain.

SQLite reports all three as ``disk I/O error`` or ``attempt to write a readonly database``, and
the OS as an errno; :func:`explain` looks at the folder itself (free space, the process's
``RLIMIT_FSIZE``, whether it can be written) and names the cause and what to do. The write path
(:meth:`brain_core.brain.Brain.remember_many`), the CLI and the MCP server turn a low-level error
into this :class:`~brain_core.errors.BrainError` instead of a traceback.
"""

from __future__ import annotations

import errno
import os
from pathlib import Path

from brain_core.errors import BrainError

READ_ONLY = (errno.EROFS, errno.EACCES, errno.EPERM)


class WriteFailed(BrainError, OSError):
    """A write into the brain (or its catalog) failed for a cause outside Aida; nothing was kept.
    Still an OSError, so a caller that carries on past a failed write keeps doing so."""


def low_level_errors() -> tuple[type[BaseException], ...]:
    """OSError and the SQLite driver's errors: what :func:`explain` turns into one sentence."""
    from brain_core.catalog.sqlite.db import database_errors

    return (OSError, *database_errors())


def read_only(path: Path) -> bool:
    """Whether this process cannot write in ``path`` (a read-only mount, or no write permission)."""
    path = Path(path)
    while not path.exists() and path != path.parent:
        path = path.parent
    try:
        if os.statvfs(path).f_flag & os.ST_RDONLY:
            return True
    except (OSError, AttributeError):
        pass
    return not os.access(path, os.W_OK)


def _full(path: Path) -> bool:
    try:
        st = os.statvfs(path)
    except (OSError, AttributeError):
        return False
    return st.f_bavail * st.f_frsize < 1 << 20  # under 1 MiB left: nothing of a brain fits


def _size_limit() -> int | None:
    try:
        import resource

        soft, _hard = resource.getrlimit(resource.RLIMIT_FSIZE)
    except (ImportError, OSError, ValueError):
        return None
    return None if soft == resource.RLIM_INFINITY else soft


def cause(e: BaseException, where: Path) -> str:
    """The cause of ``e`` met while writing in ``where``, with what to do: one clause."""
    where = Path(where)
    no = getattr(e, "errno", None)
    text = str(e).lower()
    limit = _size_limit()
    if no == errno.ENOSPC or "disk is full" in text or (no is None and "i/o" in text and _full(where)):
        return f"the disk holding {where} is full; free some space and run the command again"
    if no == errno.EFBIG or (limit is not None and no in (None, errno.EIO) and "i/o" in text):
        shown = f"{limit} bytes" if limit is not None else "a limit"
        return (f"a file in {where} would pass this process's file-size limit ({shown}, `ulimit -f`); "
                "raise the limit and run the command again")
    if no in READ_ONLY or "readonly" in text or "read-only" in text or (no in (None, errno.EIO) and read_only(where)):
        return (f"{where} is read-only for this user; make it writable (or mount it read-write) to write, "
                "reading works as it is")
    if no == errno.EDQUOT:
        return f"the disk quota for {where} is used up; free some space and run the command again"
    if "i/o" in text and _full(where):
        return f"the disk holding {where} is full; free some space and run the command again"
    detail = getattr(e, "strerror", None) or str(e) or e.__class__.__name__
    name = getattr(e, "filename", None)
    return f"{detail}{f' ({name})' if name else ''}; check the path and the disk and run the command again"


def explain(e: BaseException, where: Path, doing: str = "The write") -> WriteFailed:
    """``e`` as one sentence: what was being done, the cause and what to do."""
    return WriteFailed(f"{doing} failed: {cause(e, where)}.")
