"""Atomic, contained file writes, on a real file system in a temp folder."""

from __future__ import annotations

import os
import stat

import pytest

from brain_core.errors import InvalidInput
from brain_core.store import fsutil
from brain_core.store.fsutil import (
    atomic_write_bytes,
    atomic_write_text,
    contained,
    discard,
    is_tmp,
    sweep_tmp,
)


def test_atomic_write_makes_folders_replaces_and_leaves_no_temp_file(tmp_path):
    target = tmp_path / "a" / "b" / "x.json"
    atomic_write_bytes(target, b"one")
    atomic_write_text(target, "twé")
    assert target.read_bytes() == "twé".encode("utf-8")
    assert os.listdir(target.parent) == ["x.json"]
    assert stat.S_IMODE(target.stat().st_mode) == 0o644 & ~_umask()


def _umask() -> int:
    old = os.umask(0)
    os.umask(old)
    return old


def test_atomic_write_syncs_the_file_before_the_rename_and_the_folder_after(tmp_path, monkeypatch):
    target = tmp_path / "x.json"
    target.write_bytes(b"old")
    calls = []
    real_fsync, real_replace = os.fsync, os.replace

    def fsync(fd):
        st = os.fstat(fd)
        calls.append(("fsync", stat.S_ISDIR(st.st_mode), 0 if stat.S_ISDIR(st.st_mode) else st.st_size))
        real_fsync(fd)

    def replace(src, dst):
        calls.append(("replace", os.path.basename(src).startswith(".x.json.tmp-"), os.fspath(dst) == os.fspath(target)))
        real_replace(src, dst)

    monkeypatch.setattr(fsutil.os, "fsync", fsync)
    monkeypatch.setattr(fsutil.os, "replace", replace)
    atomic_write_bytes(target, b"new")
    atomic_write_bytes(target, b"newer")
    assert calls == [("fsync", False, 3), ("replace", True, True), ("fsync", True, 0)] + \
        [("fsync", False, 5), ("replace", True, True), ("fsync", True, 0)]  # the file synced whole, then renamed
    assert target.read_bytes() == b"newer"


def test_a_failed_write_keeps_the_old_file_and_removes_its_temp(tmp_path, monkeypatch):
    target = tmp_path / "x.json"
    target.write_bytes(b"old")

    def boom(src, dst):
        raise OSError("disk full")

    monkeypatch.setattr(fsutil.os, "replace", boom)
    with pytest.raises(OSError, match="disk full"):
        atomic_write_bytes(target, b"new")
    assert target.read_bytes() == b"old" and os.listdir(tmp_path) == ["x.json"]


def test_temp_names():
    assert is_tmp(".x.json.tmp-12-abcdef") and is_tmp(".tmp-")
    assert not is_tmp("x.json.tmp-12-abcdef") and not is_tmp(".x.json") and not is_tmp("x.json")


@pytest.mark.parametrize("rel", ["memories/me/x.json", "a/../b.json", "knowledge/page.md", "x", "a/..x", "..x"])
def test_contained_accepts_paths_inside(tmp_path, rel):
    assert contained(tmp_path, rel) == tmp_path.resolve() / rel


@pytest.mark.parametrize("rel, message", [
    ("a\x00b", "A path with a NUL byte was refused."),
    ("/etc/passwd", "The absolute path '/etc/passwd' was refused; paths in a brain are relative."),
    ("\\windows", "The absolute path '\\\\windows' was refused; paths in a brain are relative."),
    ("C:x", "The absolute path 'C:x' was refused; paths in a brain are relative."),
    ("C:", "The absolute path 'C:' was refused; paths in a brain are relative."),
    ("a/b/..", "The path 'a/b/..' names a folder, not a file in the brain; give a file's path."),
    ("a\\b\\..", "The path 'a\\\\b\\\\..' names a folder, not a file in the brain; give a file's path."),
    ("../x", "The path '../x' leads outside the brain and was refused."),
    ("a/../../x", "The path 'a/../../x' leads outside the brain and was refused."),
    ("", "The path '' names a folder, not a file in the brain; give a file's path."),
    (".", "The path '.' names a folder, not a file in the brain; give a file's path."),
    ("a/..", "The path 'a/..' names a folder, not a file in the brain; give a file's path."),
    ("a/.", "The path 'a/.' names a folder, not a file in the brain; give a file's path."),
    ("a/./", "The path 'a/./' names a folder, not a file in the brain; give a file's path."),
])
def test_contained_refuses_with_one_sentence(tmp_path, rel, message):
    (tmp_path / "a").mkdir()
    with pytest.raises(InvalidInput) as e:
        contained(tmp_path, rel)
    assert str(e.value) == message


def test_contained_refuses_a_symlink_out(tmp_path):
    root, outside = tmp_path / "root", tmp_path / "outside"
    root.mkdir()
    outside.mkdir()
    os.symlink(outside, root / "link")
    with pytest.raises(InvalidInput, match="leads outside"):
        contained(root, "link/x.json")


def test_sweep_removes_temp_files_but_not_in_git_or_aida(tmp_path):
    for rel in ("memories/me/.x.json.tmp-1-aa", ".y.tmp-2-bb", "deep/er/.z.md.tmp-3-cc", ".git/.k.tmp-4-dd",
                ".aida/.i.tmp-5-ee", "memories/me/x.json", "memories/me/.hidden"):
        p = tmp_path / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text("x")
    assert sweep_tmp(tmp_path) == 3
    left = sorted(str(p.relative_to(tmp_path)) for p in tmp_path.rglob("*") if p.is_file())
    assert left == [".aida/.i.tmp-5-ee", ".git/.k.tmp-4-dd", "memories/me/.hidden", "memories/me/x.json"]
    assert sweep_tmp(tmp_path) == 0


def test_discard_a_file_a_folder_or_nothing(tmp_path):
    f, d = tmp_path / "f", tmp_path / "d"
    f.write_text("x")
    (d / "sub").mkdir(parents=True)
    (d / "sub" / "g").write_text("y")
    discard(f)
    discard(d)
    discard(tmp_path / "missing")
    assert list(tmp_path.iterdir()) == []
    target = tmp_path / "target"
    target.mkdir()
    os.symlink(target, tmp_path / "link")
    discard(tmp_path / "link")  # the link goes, not what it points at
    assert target.is_dir() and not (tmp_path / "link").exists()
