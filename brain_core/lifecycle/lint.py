"""``aida brain lint``: every problem a person should fix by hand, read straight from the files."""

from __future__ import annotations

import os
import stat
from pathlib import Path

from brain_core.errors import MalformedRecord
from brain_core.store.fsutil import is_tmp
from brain_core.store.shelves import (
    MAX_FILE_BYTES,
    SHELVES,
    Problem,
    bad_name,
    leaf_dirs,
    load_doc,
    on_shelf,
    printable,
    walk,
)

COMMIT_MAX_BYTES = 10_000_000  # a hand-made file off the shelves larger than this is not committed by Aida


def lint(brain, notices: list[Problem] | None = None) -> list[Problem]:
    """The problems (lint exits 1 on any); near-duplicates that are not word for word go to
    ``notices`` when a list is given (see :func:`duplicate_pairs`)."""
    root = brain.root
    files, problems = walk(root)
    problems = list(problems)
    seen_keys: dict[tuple[str, str], str] = {}
    for f in files:
        try:
            doc = load_doc(f.path, (root / f.path).read_bytes(), f.size, f.mtime_ns)
        except MalformedRecord as e:
            problems.append(Problem(f.path, e.reason))
            continue
        except OSError as e:
            problems.append(Problem(f.path, f"cannot be read ({e.strerror})"))
            continue
        r = doc.record
        if doc.shelf == "memories":
            expected = f"memories/{r.profile}/{r.key}.json"
            if f.path != expected:
                problems.append(Problem(f.path, f"holds profile {r.profile!r} and key {r.key!r}, so it belongs at "
                                                f"{expected}; relearning that key would not replace it"))
            ident = (r.profile, r.key)
            if ident in seen_keys:
                problems.append(Problem(f.path, f"duplicate key {r.profile}/{r.key} (also in {seen_keys[ident]})"))
            else:
                seen_keys[ident] = f.path
        elif doc.shelf == "lessons" and "verdict" not in r.extra:
            problems.append(Problem(f.path, "is a lesson without feedback (no verdict), which recall leaves out; "
                                            "write it again with `aida brain remember --type note` to have it recalled"))
    problems += _stray_files(root)
    from brain_core.brain.quarantine import describe, held

    problems += [Problem(h.path, describe(h)) for h in held(brain)]  # held back by the guard: the person decides
    pairs = duplicate_pairs(brain)
    problems += [Problem(p.b, f"says word for word what {p.a} says; `aida brain consolidate` merges them")
                 for p in pairs if p.exact]
    if notices is not None:
        notices += [Problem(p.b, f"says what {p.a} says (near-duplicate, cosine {p.evidence.cosine:.2f}); "
                                 "`aida brain consolidate` merges them") for p in pairs if not p.exact]
    from brain_core.brain.conflicts import lint_conflicts

    problems += lint_conflicts(brain, notices)  # records that disagree, and sources folded in wrongly
    try:
        indexed_problems = brain.index.counts()["problems"]
    except Exception as e:  # noqa: BLE001 - lint must report, not crash, on a broken catalog
        problems.append(Problem(".aida/index.sqlite", f"the index cannot be read ({e}); run `aida brain index --full`"))
    else:
        known = {p.path for p in problems}
        problems += [Problem(p.path, "the index could not read it: " + p.message)
                     for p in indexed_problems if p.path not in known]
    return sorted(problems, key=lambda p: p.path)


def _stray_files(root: Path) -> list[Problem]:
    """Leftover temp files and files of the wrong kind on a shelf."""
    out = []
    for d in leaf_dirs(root):
        suffix = SHELVES[d.split("/", 1)[0]][0]
        try:
            entries = list(os.scandir(root / d))
        except OSError:
            continue
        for e in entries:
            rel = printable(f"{d}/{e.name}")
            if is_tmp(e.name):
                out.append(Problem(rel, "is a temp file left by an interrupted write; delete it"))
            elif e.is_file(follow_symlinks=False) and not e.name.startswith(".") and not e.name.endswith(suffix):
                out.append(Problem(rel, f"is not a {suffix} file, so nothing reads it on this shelf"))
    return out


def commit_refusal(root: Path, rel: str) -> str | None:
    """Why Aida must not commit the hand-made change at ``rel`` (None: it may). Aida commits what
    it reads: never a symlink, a special file, a name that is not UTF-8, a file over the size
    limit, or a shelf file lint reports as broken (it stays uncommitted, and lint names it)."""
    if bad_name(rel):
        return "has a name that is not valid UTF-8"
    try:
        st = os.lstat(root / rel)
    except FileNotFoundError:
        return None  # removed: committing the removal is fine
    except OSError as e:
        return f"cannot be read ({e.strerror})"
    if stat.S_ISLNK(st.st_mode):
        return "is a symlink"
    if not stat.S_ISREG(st.st_mode):
        return "is not a regular file"
    if st.st_nlink > 1:
        from brain_core.store.shelves import HARD_LINK

        return HARD_LINK
    if is_tmp(rel.rsplit("/", 1)[-1]):
        return "is a temp file left by an interrupted write"
    shelf_file = on_shelf(rel)
    limit = MAX_FILE_BYTES if shelf_file else COMMIT_MAX_BYTES
    if st.st_size > limit:
        return f"is {st.st_size // 1000} kB, over the {limit // 1000} kB limit"
    if shelf_file:
        try:
            load_doc(rel, (root / rel).read_bytes(), st.st_size, st.st_mtime_ns)
        except MalformedRecord as e:
            return e.reason
        except OSError as e:
            return f"cannot be read ({e.strerror})"
    return None


def duplicate_pairs(brain):
    """Near-duplicate durable records (:func:`brain_core.brain.dedupe.find_pairs`). Lint counts only the
    exact ones as problems: a copy word for word is certainly redundant, while a near-duplicate
    is a judgement (about 2 in 100 such pairs are wrong on the labelled set) that a person, or
    ``aida brain consolidate``, settles. The others are listed as notices and do not fail lint."""
    from brain_core.brain.dedupe import find_pairs

    try:
        return find_pairs(brain)
    except Exception:  # noqa: BLE001 - a broken catalog is reported by lint itself
        return []

