"""Write errors a person can read: a full disk, a file-size limit and a read-only brain each give one
sentence naming the cause and what to do, through the real CLI and the MCP server; a failed write
leaves no file behind; reading a read-only brain (recall, ask, status) works."""

from __future__ import annotations

import os
import resource
import shutil
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from tests.helpers.paths import REPO


def aida(*args, brain=None, prefix=(), preexec=None, cwd=None):
    env = dict(os.environ, PYTHONPATH=str(REPO))
    if brain is not None:
        env["AIDA_BRAIN"] = str(brain)
    return subprocess.run([*prefix, sys.executable, "-m", "brain_core", *args], capture_output=True, text=True,
                          env=env, preexec_fn=preexec, cwd=cwd)


def git_status(root: Path) -> str:
    return subprocess.run(["git", "-C", str(root), "status", "--porcelain"], capture_output=True, text=True).stdout


def one_sentence(stderr: str) -> str:
    assert "Traceback" not in stderr, stderr
    lines = [line for line in stderr.splitlines() if line.startswith("aida:")]
    assert len(lines) == 1, stderr
    return lines[0]


@pytest.fixture
def made(tmp_path):
    root = tmp_path / "brain"
    assert aida("brain", "init", str(root)).returncode == 0
    assert aida("brain", "remember", "The kite festival is in April.", "--key", "kites", brain=root).returncode == 0
    return root


def _limit_file_size():
    resource.setrlimit(resource.RLIMIT_FSIZE, (2000, resource.RLIM_INFINITY))


def test_a_file_size_limit_is_one_sentence_and_strands_nothing(made):
    run = aida("brain", "remember", "Limited writes say why they failed.", "--key", "limited", brain=made,
               preexec=_limit_file_size)
    assert run.returncode == 1
    line = one_sentence(run.stderr)
    assert "file-size limit" in line and "2000 bytes" in line and "ulimit -f" in line
    assert "rollback" not in run.stderr
    assert not (made / "memories/me/limited.json").exists()
    assert git_status(made) == ""
    again = aida("brain", "remember", "Limited writes say why they failed.", "--key", "limited", brain=made)
    assert again.returncode == 0, again.stderr
    assert git_status(made) == ""


def _read_only(root: Path) -> list[str]:
    """Make the brain read-only for the child processes: the prefix to run them with."""
    for dirpath, dirnames, filenames in os.walk(root):
        for name in dirnames + filenames:
            p = os.path.join(dirpath, name)
            if not os.path.islink(p):
                os.chmod(p, os.stat(p).st_mode & ~(stat.S_IWUSR | stat.S_IWGRP | stat.S_IWOTH))
    os.chmod(root, os.stat(root).st_mode & ~(stat.S_IWUSR | stat.S_IWGRP | stat.S_IWOTH))
    if os.geteuid() != 0:
        return []
    if shutil.which("setpriv") is None:
        pytest.skip("root ignores file modes and setpriv is not here to drop that power")
    return ["setpriv", "--bounding-set=-dac_override,-dac_read_search,-fowner"]


def _writable(root: Path) -> None:
    for dirpath, dirnames, filenames in os.walk(root):
        for name in dirnames + filenames:
            p = os.path.join(dirpath, name)
            if not os.path.islink(p):
                os.chmod(p, os.stat(p).st_mode | stat.S_IWUSR)
    os.chmod(root, os.stat(root).st_mode | stat.S_IWUSR)


def test_a_read_only_brain_answers_reads_and_refuses_writes_in_one_sentence(made):
    (made / "memories/me/by-hand.json").write_text(
        (made / "memories/me/kites.json").read_text().replace('"kites"', '"by-hand"'))  # not yet indexed
    prefix = _read_only(made)
    try:
        write = aida("brain", "remember", "This cannot be written.", "--key", "nope", brain=made, prefix=prefix)
        assert write.returncode == 1
        line = one_sentence(write.stderr)
        assert "read-only" in line and str(made) in line
        for args in (("brain", "recall", "kite festival"), ("ask", "when is the kite festival?"),
                     ("brain", "status")):
            run = aida(*args, brain=made, prefix=prefix)
            assert run.returncode == 0, (args, run.stderr)
            assert "Traceback" not in run.stderr
        recall = aida("brain", "recall", "kite festival", brain=made, prefix=prefix)
        assert "kites" in recall.stdout
        ask = aida("ask", "when is the kite festival?", brain=made, prefix=prefix)
        assert "April" in ask.stdout and "not recorded" in ask.stderr
        index = aida("brain", "index", brain=made, prefix=prefix)
        assert index.returncode == 1 and "read-only" in one_sentence(index.stderr)
    finally:
        _writable(made)
    assert not (made / "memories/me/nope.json").exists()


def test_mcp_remember_on_a_read_only_brain_is_a_tool_error_in_one_sentence(made):
    import anyio
    from mcp import ClientSession, StdioServerParameters
    from mcp.client.stdio import stdio_client

    prefix = _read_only(made)
    env = {k: v for k, v in os.environ.items() if k in ("PATH", "HOME", "AIDA_CONFIG", "HF_HUB_OFFLINE", "LANG")}
    env["PYTHONPATH"] = str(REPO)
    cmd = [*prefix, sys.executable, "-m", "brain_core", "--brain", str(made), "mcp"]
    params = StdioServerParameters(command=cmd[0], args=cmd[1:], env=env, cwd=str(REPO))

    async def run():
        async with stdio_client(params) as (read, write):
            async with ClientSession(read, write) as session:
                await session.initialize()
                wrote = await session.call_tool("remember", {"body": "Cannot land.", "key": "nope"})
                found = await session.call_tool("recall", {"query": "kite festival"})
                return wrote, found

    try:
        wrote, found = anyio.run(run)
    finally:
        _writable(made)
    assert wrote.is_error and "read-only" in wrote.content[0].text and "Traceback" not in wrote.content[0].text
    assert not found.is_error and "April" in found.content[0].text


@pytest.mark.skipif(os.geteuid() != 0 or shutil.which("unshare") is None, reason="needs root to mount a small disk")
def test_a_full_disk_is_one_sentence_and_the_next_write_lands(tmp_path):
    script = tmp_path / "full.sh"
    mnt = tmp_path / "disk"
    mnt.mkdir()
    script.write_text(f"""
set -e
mount -t tmpfs -o size=8m tmpfs {mnt}
cd {mnt}
A="{sys.executable} -m brain_core"
$A brain init b >/dev/null
$A --brain b brain remember "Written before the disk filled." --key before >/dev/null
head -c 20000000 /dev/zero > filler 2>/dev/null || true
set +e
$A --brain b brain remember "A write on a full disk." --key full
echo "rc=$?"
ls b/memories/me
rm filler
$A --brain b brain remember "A write on a full disk." --key full >/dev/null && echo second-ok
git -C b status --porcelain
echo end
""")
    env = dict(os.environ, PYTHONPATH=str(REPO))
    run = subprocess.run(["unshare", "-m", "sh", str(script)], capture_output=True, text=True, env=env)
    if "rc=" not in run.stdout:
        pytest.skip(f"no small disk could be mounted here: {run.stderr[-200:]}")
    assert "rc=1" in run.stdout, (run.stdout, run.stderr)
    line = one_sentence(run.stderr)
    assert "is full" in line and "free some space" in line
    listing = run.stdout.split("rc=1\n", 1)[1]
    assert listing.split("second-ok")[0].split() == ["before.json"]  # nothing stranded
    assert "second-ok\nend" in run.stdout  # the next write lands and the tree is clean


def test_an_enormous_k_is_refused_in_one_sentence(made):
    run = aida("brain", "recall", "-k", "99999999999999999999", "kites", brain=made)
    assert run.returncode == 2
    assert "at most" in one_sentence(run.stderr)
    ask = aida("ask", "-k", "99999999999999999999", "kites", brain=made)
    assert ask.returncode == 2 and "at most" in one_sentence(ask.stderr)
