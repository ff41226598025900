"""The one write path into a brain: every file Aida keeps in the brain's git repository goes
through a :class:`Transaction`.

One transaction is: the brain's write lock (held by the caller's ``lock``, re-entrant), a refusal
on a detached HEAD or a rebase under way (:meth:`Git.ensure_writable`), the redaction gate on each
file's text and name (:mod:`brain_core.redact.scrub`), a refusal of any path outside the brain or
inside ``.git``/``.aida`` (:func:`brain_file`), an atomic write of each file
(:func:`~brain_core.store.fsutil.atomic_write_bytes`), the catalog rows of the files on a shelf
(through the ``index`` step the caller passes: the catalog is a layer above this one), and one
commit under Aida's identity (:meth:`Git.commit`, an explicit ``Actor``). Until that commit
succeeds nothing is final: a failure anywhere in the transaction puts every file back to the
bytes it had (or removes the ones it created), so a failed write leaves no file git does not have.

``Brain.writing`` opens one with the brain's lock, git and catalog; ``Brain.write`` (a set of
files and deletions), ``Brain.write_text``, ``Brain.move``, ``Brain.delete`` and
``Brain.remember_many`` are made of it, and so is every lifecycle page, meeting transcript,
watermark and INDEX.md. ``tests/store/test_one_write_path.py`` fails when a module writes brain files
any other way.
"""

from __future__ import annotations

import os
from contextlib import contextmanager
from pathlib import Path
from typing import Callable, ContextManager, Iterator, Mapping

from brain_core.errors import BrainError, InvalidInput
from brain_core.store.fsutil import atomic_write_bytes, contained, fsync_dir
from brain_core.store.git import Git
from brain_core.store.shelves import on_shelf

# The catalog's step: (shelf files written, rel -> bytes; shelf files gone) -> rows updated.
IndexStep = Callable[[dict[str, bytes], list[str]], None]
OWN_STATE = (".git", ".aida")


def brain_file(root: Path, rel: str) -> tuple[Path, str]:
    """A path inside the brain that is not git's or Aida's own state: (target, relative posix)."""
    target = contained(root, rel)
    rel_posix = target.relative_to(Path(os.path.realpath(root))).as_posix()
    if rel_posix.split("/", 1)[0] in OWN_STATE:
        raise InvalidInput(f"{rel} is Aida's or git's own state and cannot be written as a brain file.")
    return target, rel_posix


def clean(rel: str, data: str | bytes, redact: bool = True) -> tuple[str, bytes]:
    """``(rel, bytes)`` as the brain keeps them: with ``redact``, the text masked (a JSON file stays
    valid JSON) and the name freed of secrets; bytes that are not UTF-8 text are kept as they are."""
    if not redact:
        return rel, data.encode("utf-8") if isinstance(data, str) else data
    from brain_core.redact import scrub

    if isinstance(data, bytes):
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError:
            return scrub.path(rel), data
        masked = scrub.file_text(rel, text)
        return scrub.path(rel), data if masked == text else masked.encode("utf-8")
    return scrub.path(rel), scrub.file_text(rel, data).encode("utf-8")


class Transaction:
    """The files of one write: what each had before (to put back), what the commit names."""

    def __init__(self, root: Path, git: Git, index: IndexStep | None = None, *, redact: bool = True,
                 message: str | None = None) -> None:
        self.root = root
        self.git = git
        self.redact = redact
        self.message = message  # may be set while the write goes on (a count known at the end)
        self.head: str | None = None  # the commit made, once made
        self._index = index
        self._undo: dict[str, bytes | None] = {}  # rel -> its bytes before this write (None: it did not exist)
        self._paths: dict[str, bytes | None] = {}  # the commit's paths -> bytes to index (None: read, or gone)
        self._gone: dict[str, None] = {}
        self._unindexed: set[str] = set()

    # -- the changes -------------------------------------------------------------------------------------

    def put(self, rel: str, data: str | bytes, *, redact: bool | None = None) -> str:
        """Write one file (atomically); returns its path in the brain (a secret-free name)."""
        rel, raw = clean(rel, data, self.redact if redact is None else redact)
        target, rel = brain_file(self.root, rel)
        self._keep(rel, target)
        atomic_write_bytes(target, raw)
        self._paths[rel] = raw
        self._gone.pop(rel, None)
        return rel

    def delete(self, rel: str) -> bool:
        """Remove one file; its removal is committed (whether it was there or not). True if it was."""
        target, rel = brain_file(self.root, rel)
        self._keep(rel, target)
        try:
            os.remove(target)
            existed = True
        except FileNotFoundError:
            existed = False
        self._paths[rel] = None
        self._gone[rel] = None
        return existed

    def move(self, src: str, dst: str, data: str | bytes | None = None) -> str:
        """Move a file inside the brain (a rename first: a crash leaves it in one place, never two),
        then, with ``data``, write its new bytes there. Returns the destination's path."""
        from brain_core.redact.scrub import path as clean_path  # no secret in a new file name

        s, src = brain_file(self.root, src)
        d, dst = brain_file(self.root, clean_path(dst) if self.redact else dst)
        self._keep(src, s)
        self._keep(dst, d)
        d.parent.mkdir(parents=True, exist_ok=True)
        os.replace(s, d)
        if data is not None:
            atomic_write_bytes(d, clean(dst, data, self.redact)[1])
        fsync_dir(d.parent)
        self._paths[src] = None
        self._gone[src] = None
        self._paths[dst] = None
        self._gone.pop(dst, None)
        return dst

    def include(self, rel: str, index: bool = True) -> None:
        """Name a file already on disk in the commit (a hand edit, a file a crash left uncommitted)."""
        _, rel = brain_file(self.root, rel)
        self._paths.setdefault(rel, None)
        if not index:
            self._unindexed.add(rel)

    def exists(self, rel: str) -> bool:
        return brain_file(self.root, rel)[0].exists()

    @property
    def paths(self) -> list[str]:
        return list(self._paths)

    def _keep(self, rel: str, target: Path) -> None:
        if rel in self._undo:
            return
        try:
            self._undo[rel] = target.read_bytes() if not target.is_dir() else None
        except FileNotFoundError:
            self._undo[rel] = None

    # -- the end -------------------------------------------------------------------------------------------

    def commit(self) -> str | None:
        """The catalog rows of the shelf files, then one commit of every path (None: nothing changed)."""
        if not self._paths:
            return None
        if self.message is None:
            raise BrainError("A write into the brain was made without a commit message; nothing was kept.")
        if self._index is not None:
            written, gone = {}, [rel for rel in self._gone if on_shelf(rel)]
            for rel, raw in self._paths.items():
                if rel in self._gone or rel in self._unindexed or not on_shelf(rel):
                    continue
                try:
                    written[rel] = raw if raw is not None else (self.root / rel).read_bytes()
                except FileNotFoundError:  # a file named as it is, removed by hand: its row goes
                    gone.append(rel)
            if written or gone:
                self._index(written, gone)
        self.head = self.git.commit(list(self._paths), self.message)
        return self.head

    def put_back(self) -> None:
        """Undo the files of a write that failed: each goes back to what it was (best effort: a
        file that cannot be put back is committed by the next write of it)."""
        for rel, old in reversed(list(self._undo.items())):
            path = self.root / rel
            try:
                if old is None:
                    path.unlink(missing_ok=True)
                elif not path.exists() or path.read_bytes() != old:
                    atomic_write_bytes(path, old)
            except OSError:
                continue


@contextmanager
def transaction(root: Path, git: Git, lock: ContextManager, index: IndexStep | None = None, *,
                redact: bool = True, message: str | None = None) -> Iterator[Transaction]:
    """Open a write under ``lock``; on leaving the block the changes are indexed and committed
    (one commit, ``tx.message``), and on an exception anywhere before the commit is made every
    file is put back and the exception goes on."""
    with lock:
        git.ensure_writable()  # a detached HEAD or a rebase under way: stop before any file changes
        tx = Transaction(root, git, index, redact=redact, message=message)
        try:
            yield tx
            tx.commit()
        except BaseException:
            tx.put_back()
            raise


def apply(tx: Transaction, changes: Mapping[str, str | bytes | None]) -> list[str]:
    """Put each ``rel -> text or bytes`` into ``tx`` and delete each ``rel -> None``; returns the paths."""
    done = []
    for rel, data in changes.items():
        if data is None:
            tx.delete(rel)
            done.append(brain_file(tx.root, rel)[1])
        else:
            done.append(tx.put(rel, data))
    return done
