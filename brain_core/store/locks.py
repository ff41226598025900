"""An advisory inter-process lock on a file (flock on POSIX, LockFileEx on Windows).

Every write into a brain (record file, index rows, git commit) happens under the brain's write
lock, so four processes writing at once never interleave a commit or fight over git's index.lock.
The lock dies with its process, so a crash never leaves the brain locked.
"""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

from brain_core.errors import BrainError


class FileLock:
    def __init__(self, path: Path, timeout: float = 60.0) -> None:
        self.path = Path(path)
        self.timeout = timeout
        self._fd: int | None = None
        self._depth = 0

    def acquire(self, blocking: bool = True) -> bool:
        if self._fd is not None:
            self._depth += 1
            return True
        self.path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o644)
        deadline = time.monotonic() + self.timeout
        delay = 0.002
        while True:
            if _try_lock(fd):
                self._fd = fd
                self._depth = 1
                return True
            if not blocking:
                os.close(fd)
                return False
            if time.monotonic() > deadline:
                os.close(fd)
                raise BrainError(f"Another Aida process has held {self.path.name} for over {self.timeout:.0f} s; "
                                 "wait for it to finish or stop it.")
            time.sleep(delay)
            delay = min(delay * 2, 0.05)

    def release(self) -> None:
        if self._fd is None:
            return
        self._depth -= 1
        if self._depth > 0:
            return
        fd, self._fd = self._fd, None
        _unlock(fd)
        os.close(fd)

    @property
    def held(self) -> bool:
        return self._fd is not None

    def __enter__(self) -> "FileLock":
        self.acquire()
        return self

    def __exit__(self, *exc) -> None:
        self.release()


if sys.platform == "win32":  # pragma: no cover - exercised on Windows only
    import msvcrt

    def _try_lock(fd: int) -> bool:
        try:
            msvcrt.locking(fd, msvcrt.LK_NBLCK, 1)
            return True
        except OSError:
            return False

    def _unlock(fd: int) -> None:
        try:
            os.lseek(fd, 0, 0)
            msvcrt.locking(fd, msvcrt.LK_UNLCK, 1)
        except OSError:
            pass
else:
    import fcntl

    def _try_lock(fd: int) -> bool:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            return True
        except BlockingIOError:
            return False

    def _unlock(fd: int) -> None:
        fcntl.flock(fd, fcntl.LOCK_UN)
