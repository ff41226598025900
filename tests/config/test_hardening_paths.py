"""Relative brain paths (``aida brain init notes``, ``--brain notes``, ``AIDA_BRAIN=notes``, a
relative ``brain`` setting) work for every write: the CLI, the MCP server and the tray resolve the
path once, and Brain resolves its root again, so git never reads a relative root twice."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from brain_core import Brain
from brain_core.config import Config
from tests.helpers.paths import REPO


def aida(*args, cwd, env=None):
    full = dict(os.environ, **(env or {}))
    full.setdefault("PYTHONPATH", str(REPO))
    return subprocess.run([sys.executable, "-m", "brain_core", *args], capture_output=True, text=True, cwd=cwd,
                          env=full)


def committed(root: Path) -> list[str]:
    out = subprocess.run(["git", "-C", str(root), "log", "--name-only", "--format="], capture_output=True, text=True)
    return [line for line in out.stdout.splitlines() if line]


def test_init_remember_with_a_relative_brain_through_the_cli(tmp_path):
    init = aida("brain", "init", "notes", cwd=tmp_path)
    assert init.returncode == 0, init.stderr
    assert "Traceback" not in init.stderr
    assert f"Brain ready at {tmp_path / 'notes'}" in init.stdout
    flag = aida("--brain", "notes", "brain", "remember", "The invoices go out on Fridays.", "--key", "invoices",
                cwd=tmp_path)
    assert flag.returncode == 0, flag.stderr
    env = aida("brain", "remember", "The standup is at ten.", "--key", "standup", cwd=tmp_path,
               env={"AIDA_BRAIN": "notes"})
    assert env.returncode == 0, env.stderr
    root = tmp_path / "notes"
    assert not (root / "notes").exists()
    assert {"memories/me/invoices.json", "memories/me/standup.json"} <= set(committed(root))
    status = subprocess.run(["git", "-C", str(root), "status", "--porcelain"], capture_output=True, text=True)
    assert status.stdout == ""  # nothing left uncommitted
    rec = aida("brain", "recall", "--json", "invoices", cwd=tmp_path, env={"AIDA_BRAIN": "notes"})
    assert rec.returncode == 0 and json.loads(rec.stdout)[0]["key"] == "invoices"


def test_a_relative_brain_setting_is_read_from_the_settings_folder(tmp_path, monkeypatch):
    cfg_dir = tmp_path / "cfg"
    cfg_dir.mkdir()
    (cfg_dir / "config.yaml").write_text("brain: notes\n")
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    env = {"AIDA_CONFIG": str(cfg_dir / "config.yaml")}
    assert aida("brain", "init", cwd=elsewhere, env=env).returncode == 0
    assert (cfg_dir / "notes" / ".git").is_dir()
    assert aida("brain", "remember", "Relative settings work.", "--key", "rel", cwd=elsewhere, env=env).returncode == 0
    assert "memories/me/rel.json" in committed(cfg_dir / "notes")
    # `aida config set brain notes` stores the folder it names from where it was typed
    set_ = aida("config", "set", "brain", "mine", cwd=elsewhere, env=env)
    assert set_.returncode == 0, set_.stderr
    assert Config.load(cfg_dir / "config.yaml").data["brain"] == str(elsewhere / "mine")


def test_brain_resolves_a_relative_root_itself(tmp_path, monkeypatch, embedder):
    monkeypatch.chdir(tmp_path)
    brain = Brain.init("rel-brain", embedder=embedder)
    try:
        assert brain.root.is_absolute() and brain.git.root.is_absolute()
        brain.remember("A record written through a relative root.", key="relative")
        assert "memories/me/relative.json" in committed(tmp_path / "rel-brain")
    finally:
        brain.close()
    monkeypatch.chdir(tmp_path / "rel-brain")
    again = Brain.open(".", embedder=embedder)
    try:
        assert again.root == tmp_path / "rel-brain"
        again.remember("Written from inside the brain.", key="inside")
        assert "memories/me/inside.json" in committed(tmp_path / "rel-brain")
    finally:
        again.close()


def test_mcp_server_with_a_relative_brain(tmp_path):
    import anyio
    from mcp import ClientSession, StdioServerParameters
    from mcp.client.stdio import stdio_client

    assert aida("brain", "init", "notes", cwd=tmp_path).returncode == 0
    env = {k: v for k, v in os.environ.items() if k in ("PATH", "HOME", "AIDA_CONFIG", "HF_HUB_OFFLINE", "LANG")}
    env["PYTHONPATH"] = str(REPO)
    params = StdioServerParameters(command=sys.executable, args=["-m", "brain_core", "--brain", "notes", "mcp"],
                                   env=env, cwd=str(tmp_path))

    async def run():
        async with stdio_client(params) as (read, write):
            async with ClientSession(read, write) as session:
                await session.initialize()
                return await session.call_tool("remember", {"body": "The deploy window is Tuesday.", "key": "deploy"})

    result = anyio.run(run)
    assert not result.is_error, result.content
    assert any(p.endswith("/deploy.json") for p in committed(tmp_path / "notes"))
