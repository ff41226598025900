"""The shelves of a brain on disk: where each kind of file lives and how it is read.

This module knows the layout of DESIGN.md and nothing about SQLite. :func:`walk` lists the files
the index should hold, and reports (never raises on) what it must skip: symlinks, sync-conflict
copies, oversized files. :func:`load_doc` turns one file's bytes into a :class:`Doc`, or raises
:class:`MalformedRecord` with the reason.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterator, Sequence

from brain_core.errors import MalformedRecord
from brain_core.records import RECORD_TYPES, Record, parse_time
from brain_core.text.slug import slugify

# shelf -> (file suffix, depth of the folders under the shelf root that hold files)
SHELVES = {
    "memories": (".json", 1),   # memories/<profile>/<key>.json
    "events": (".json", 2),     # events/<profile>/<yyyy-mm>/<id>.json
    "lessons": (".json", 0),    # lessons/<id>.json
    "knowledge": (".md", 0),    # knowledge/<slug>.md
}
MAX_FILE_BYTES = 1_000_000
_BAD_NAME = "has a name that is not valid UTF-8; rename it (e.g. with `mv`), skipped"
CONFLICT_RE = re.compile(r"\.sync-conflict-|\(conflicted copy|\.orig$|~$")


@dataclass(frozen=True)
class Problem:
    path: str
    message: str


@dataclass(frozen=True)
class FileInfo:
    path: str          # relative, POSIX separators
    size: int
    mtime_ns: int


@dataclass(frozen=True)
class Doc:
    """What the index keeps of one file."""

    path: str
    shelf: str
    record: Record
    checksum: str
    size: int
    mtime_ns: int
    blob: str = ""  # the file's git blob id (a server catalog keeps it: docs/POSTGRES.md)

    @property
    def embed_text(self) -> str:
        r = self.record
        if r.key == slugify(r.body):
            return r.body
        return f"{r.key.replace('-', ' ')}: {r.body}"

    @property
    def text_sha(self) -> str:
        return hashlib.sha256(self.embed_text.encode("utf-8")).hexdigest()[:32]


def printable(rel: str) -> str:
    """A path as text that can be printed and stored: bytes that are not UTF-8 (kept as surrogates
    by the OS layer) shown as ``\\xNN``."""
    return rel.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")


def bad_name(name: str) -> bool:
    """Whether a file name is not valid UTF-8 (SQLite, JSON and git's index cannot hold it as text)."""
    try:
        name.encode("utf-8")
    except UnicodeEncodeError:
        return True
    return False


def checksum(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()[:32]


def blob_id(data: bytes) -> str:
    """The id git gives these bytes as a blob (``git hash-object``), without running git."""
    return hashlib.sha1(b"blob %d\0" % len(data) + data).hexdigest()


def on_shelf(rel: str) -> bool:
    """Whether the catalog holds a file at ``rel``: on a shelf, with the shelf's suffix, at the
    shelf's depth (a file in ``knowledge/proposals/`` is not on the knowledge shelf)."""
    shelf = shelf_of(rel)
    return shelf is not None and rel.endswith(SHELVES[shelf][0]) and rel.count("/") == SHELVES[shelf][1] + 1


def shelf_of(rel: str) -> str | None:
    head = rel.split("/", 1)[0]
    return head if head in SHELVES else None


def leaf_dirs(root: Path, problems: list[Problem] | None = None) -> Iterator[str]:
    """The folders that hold shelf files, relative, found without listing any leaf folder (a folder
    whose name is not UTF-8 is skipped, and added to ``problems`` when given)."""
    for shelf, (_, depth) in SHELVES.items():
        level = [shelf]
        for _ in range(depth):
            nxt = []
            for d in level:
                try:
                    with os.scandir(root / d) as it:
                        for e in it:
                            if e.is_dir(follow_symlinks=False) and not e.name.startswith("."):
                                if bad_name(e.name):
                                    if problems is not None:
                                        problems.append(Problem(printable(f"{d}/{e.name}"), _BAD_NAME))
                                    continue
                                nxt.append(f"{d}/{e.name}")
                except (FileNotFoundError, NotADirectoryError):
                    continue
            level = nxt
        yield from level


def dir_mtimes(root: Path) -> dict[str, int]:
    """mtime_ns of every shelf folder (the leaves and the folders above them): a file added,
    removed or renamed anywhere on the shelves changes at least one of them."""
    out: dict[str, int] = {}
    for d in leaf_dirs(root):
        parts = d.split("/")
        for i in range(1, len(parts) + 1):
            sub = "/".join(parts[:i])
            if sub in out:
                continue
            try:
                out[sub] = os.stat(root / sub).st_mtime_ns
            except FileNotFoundError:
                pass
    for shelf in SHELVES:
        if shelf not in out:
            try:
                out[shelf] = os.stat(root / shelf).st_mtime_ns
            except FileNotFoundError:
                pass
    return out


HARD_LINK = ("has more than one hard link (the same file as one elsewhere, maybe outside the brain); "
             "copy it (cp) to keep it, skipped")


def walk(root: Path, dirs: list[str] | None = None) -> tuple[list[FileInfo], list[Problem]]:
    """The shelf files under ``root`` (or only in the leaf folders ``dirs``), and what was skipped."""
    files: list[FileInfo] = []
    problems: list[Problem] = []
    for d in (dirs if dirs is not None else leaf_dirs(root, problems)):
        shelf = shelf_of(d)
        assert shelf is not None  # dirs are leaf folders of a shelf
        suffix = SHELVES[shelf][0]
        try:
            it = os.scandir(root / d)
        except (FileNotFoundError, NotADirectoryError):
            continue
        with it:
            for e in it:
                name = e.name
                if name.startswith(".") or not name.endswith(suffix):
                    continue
                rel = f"{d}/{name}"
                if bad_name(name):
                    problems.append(Problem(printable(rel), _BAD_NAME))
                    continue
                if e.is_symlink():
                    problems.append(Problem(rel, "is a symlink; Aida reads only real files inside the brain, skipped"))
                    continue
                if CONFLICT_RE.search(name):
                    problems.append(Problem(rel, "is a sync-conflict copy; merge it into the original by hand "
                                                 "and delete it, skipped"))
                    continue
                try:
                    st = e.stat(follow_symlinks=False)
                except FileNotFoundError:
                    continue
                if not e.is_file(follow_symlinks=False):
                    continue
                if st.st_nlink > 1:  # a hard link: the same bytes as a file that may be outside the brain
                    problems.append(Problem(rel, HARD_LINK))
                    continue
                if st.st_size > MAX_FILE_BYTES:
                    problems.append(Problem(rel, f"is {st.st_size // 1000} kB, over the {MAX_FILE_BYTES // 1000} kB "
                                                 "limit for one record, skipped"))
                    continue
                files.append(FileInfo(rel, st.st_size, st.st_mtime_ns))
    return files, problems


def read_docs(root: Path, shelves) -> Iterator[Doc]:
    """Every readable file on ``shelves``, straight from the files, in walk order; a file that
    cannot be read or parsed is skipped (lint reports it, the catalog leaves it out)."""
    files, _ = walk(root)
    for f in files:
        if f.path.split("/", 1)[0] not in shelves:
            continue
        try:
            yield load_doc(f.path, (root / f.path).read_bytes(), f.size, f.mtime_ns)
        except (MalformedRecord, OSError):
            continue


def load_doc(rel: str, data: bytes, size: int, mtime_ns: int) -> Doc:
    shelf = shelf_of(rel)
    if shelf is None:
        raise MalformedRecord(rel, "is not on a shelf")
    if shelf == "knowledge":
        record = _knowledge_record(rel, data)
    else:
        record = Record.from_bytes(data, rel)
        if shelf == "lessons" and record.type != "lesson":
            raise MalformedRecord(rel, f"is on the lessons shelf but has type {record.type!r}")
    return Doc(rel, shelf, record, checksum(data), size, mtime_ns, blob_id(data))


def _knowledge_record(rel: str, data: bytes) -> Record:
    """A curated page: Markdown with optional YAML front matter (title, type, tags, profile)."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        raise MalformedRecord(rel, "not UTF-8 text") from None
    meta: dict = {}
    body = text
    if text.startswith("---"):
        end = text.find("\n---", 3)
        if end == -1:
            raise MalformedRecord(rel, "front matter opened with --- is never closed")
        import yaml

        from brain_core.text import yamlsafe

        try:
            meta = yamlsafe.load(text[3:end]) or {}
        except yaml.YAMLError as e:
            raise MalformedRecord(rel, f"front matter is not valid YAML ({yamlsafe.where(e)})") from None
        if not isinstance(meta, dict):
            raise MalformedRecord(rel, "front matter is not a mapping")
        body = text[end + 4:].lstrip("\n")
    stem = Path(rel).stem
    title = meta.get("title")
    key = slugify(stem, max_words=12, max_len=80)
    d: dict[str, Any] = {
        "id": str(meta.get("id") or f"knowledge-{key}")[:80],
        "type": meta.get("type") if meta.get("type") in RECORD_TYPES else "note",
        "key": key,
        "profile": str(meta.get("profile") or "me"),
        "tags": meta.get("tags") or [],
        "body": (f"{title}\n\n{body}" if isinstance(title, str) and title else body).strip() or stem,
        "source": f"knowledge:{stem}",
        "created": str(meta.get("created") or meta.get("date") or ""),
    }
    if not parse_time(d["created"]):  # a page's free-form date ("spring 2025") is not a record time
        d["created"] = ""
    if not isinstance(d["tags"], list):
        d["tags"] = [str(d["tags"])]
    d["tags"] = [str(t) for t in d["tags"]]
    return Record.from_dict(d, rel)


def created_ts(record: Record) -> float:
    dt = parse_time(record.created)
    return dt.timestamp() if dt else 0.0


def json_tags(record: Record) -> str:
    return json.dumps(record.tags, ensure_ascii=False)


def load_docs(brain, shelves: Sequence[str]) -> list[Doc]:
    """Every readable file on ``shelves``, straight from the files (bad ones are lint's business)."""
    return sorted(read_docs(brain.root, shelves), key=lambda d: (d.record.created, d.path))
