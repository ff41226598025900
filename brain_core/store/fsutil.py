"""Atomic, contained file writes: the only way Aida puts bytes on disk in a brain."""

from __future__ import annotations

import os
import secrets
from pathlib import Path

from brain_core.errors import InvalidInput

TMP_MARK = ".tmp-"


def absolute(path: str | os.PathLike) -> Path:
    """``path`` with ``~`` expanded and made absolute against the current folder (symlinks kept):
    every layer below the CLI, the MCP server and the tray sees an absolute brain root, because git
    runs inside the brain and would read a relative one twice (``notes/notes``)."""
    return Path(os.path.abspath(os.path.expanduser(os.fspath(path))))


def fsync_dir(path: Path) -> None:
    if os.name == "nt":  # directories cannot be opened for fsync on Windows
        return
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def atomic_write_bytes(path: Path, data: bytes) -> None:
    """Write ``data`` to ``path`` so a reader sees the old file or the new one, never half.

    A temp file in the same folder is written, fsynced and renamed over the target; the folder is
    fsynced so the rename survives a power cut. A crash leaves at most a ``.<name>.tmp-*`` file,
    which the index and lint ignore and :func:`sweep_tmp` removes.
    """
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}{TMP_MARK}{os.getpid()}-{secrets.token_hex(3)}")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        try:
            tmp.unlink()
        except OSError:
            pass
        raise
    fsync_dir(path.parent)


def atomic_write_text(path: Path, text: str) -> None:
    atomic_write_bytes(path, text.encode("utf-8"))


def is_tmp(name: str) -> bool:
    return name.startswith(".") and TMP_MARK in name


def contained(root: Path, relative: str | os.PathLike) -> Path:
    """``root / relative``, refused unless it names something inside ``root`` (no ``..``, no
    absolute path, no NUL byte, no symlink on the way out, not ``root`` itself)."""
    rel = os.fspath(relative)
    if "\x00" in rel:
        raise InvalidInput("A path with a NUL byte was refused.")
    if os.path.isabs(rel) or rel.startswith(("/", "\\")) or (len(rel) > 1 and rel[1] == ":"):
        raise InvalidInput(f"The absolute path {rel!r} was refused; paths in a brain are relative.")
    root_real = Path(os.path.realpath(root))
    target = Path(os.path.realpath(root_real / rel))
    if target != root_real and root_real not in target.parents:
        raise InvalidInput(f"The path {rel!r} leads outside the brain and was refused.")
    if target == root_real or rel.replace("\\", "/").rstrip("/").rsplit("/", 1)[-1] in (".", ".."):
        raise InvalidInput(f"The path {rel!r} names a folder, not a file in the brain; give a file's path.")
    return root_real / rel


def sweep_tmp(root: Path) -> int:
    """Remove temp files left by interrupted writes. Every write into a brain happens under its
    write lock, so a temp file seen by the lock's holder belongs to a process that died."""
    from brain_core.store.fsutil import is_tmp

    removed = 0
    for dirpath, dirnames, filenames in os.walk(root):
        if dirpath == str(root):
            dirnames[:] = [d for d in dirnames if d not in (".git", ".aida")]
        for name in filenames:
            if is_tmp(name):
                try:
                    os.unlink(os.path.join(dirpath, name))
                    removed += 1
                except OSError:
                    continue
    return removed


def discard(path: Path) -> None:
    """Remove a file, or a folder standing where the index file should be."""
    try:
        if path.is_dir() and not path.is_symlink():
            import shutil

            shutil.rmtree(path)
        else:
            path.unlink()
    except FileNotFoundError:
        pass
