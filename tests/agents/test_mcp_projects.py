"""Over a real MCP client (the server in a subprocess): recall takes the project from the client's
roots (else the server's folder), and forget archives a record with the agent's reason."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import anyio
import pytest

from tests.helpers.mcp_results import payload
from tests.helpers.paths import REPO


async def _session(brain_root: Path, body, roots: list[Path] | None = None, cwd: Path = REPO):
    from mcp import ClientSession, StdioServerParameters, types
    from mcp.client.stdio import stdio_client

    env = {k: v for k, v in os.environ.items() if k in ("PATH", "HOME", "AIDA_CONFIG", "HF_HUB_OFFLINE", "LANG")}
    env["PYTHONPATH"] = str(REPO)
    params = StdioServerParameters(command=sys.executable, args=["-m", "brain_core", "--brain", str(brain_root), "mcp"],
                                   env=env, cwd=str(cwd))
    callback = None
    if roots is not None:
        async def callback(_context):
            return types.ListRootsResult(roots=[types.Root(uri=p.as_uri(), name=p.name) for p in roots])
    async with stdio_client(params) as (read, write):
        async with ClientSession(read, write, list_roots_callback=callback) as session:
            await session.initialize()
            return await body(session)


# what else a brain holds: recall weighs the two deploy records against the rest, as in a real one
OTHERS = ["The staging database restores from Sunday's snapshot every night.",
          "My preferred commit style is imperative mood.", "Webhook retries are capped at six attempts.",
          "We chose SQS for the job queue.", "Logs go to Loki as logfmt.",
          "Secrets are read from Vault, never from env files.", "The CI pipeline must finish in ten minutes.",
          "On-call rotates weekly through PagerDuty."]


@pytest.fixture
def two_projects(brain, tmp_path):
    brain.remember_many([dict(body=t, profile="me") for t in OTHERS])
    brain.remember("Billing deploys blue-green on Fridays, after the finance batch.", type="decision",
                   key="billing-deploy", profile="claude", tags=["project:billing"])
    brain.remember("Search deploys with a five percent canary for an hour, then everywhere.", type="decision",
                   key="search-deploy", profile="claude", tags=["project:search"])
    brain.close()
    folders = {}
    for name in ("billing", "search"):
        folders[name] = tmp_path / "code" / name
        folders[name].mkdir(parents=True)
        subprocess.run(["git", "init", "-q", str(folders[name])], check=True)
    return folders


def _top(session, **args):
    async def go():
        return [h["key"] for h in payload(await session.call_tool("recall", {"query": "how do we deploy", "k": 2,
                                                                              **args}))]
    return go()


@pytest.mark.slow
def test_recall_ranks_the_clients_project_first(brain, two_projects):
    async def body(session):
        return (await _top(session), await _top(session, all_projects=True), await _top(session, project="billing"))

    for name, other in (("billing", "search"), ("search", "billing")):
        mine, every, named = anyio.run(_session, brain.root, body, [two_projects[name]])
        assert mine == [f"{name}-deploy", f"{other}-deploy"]  # first, and the other still comes (a lift)
        assert named[0] == "billing-deploy"
        assert set(every) == {"billing-deploy", "search-deploy"}


@pytest.mark.slow
def test_without_roots_the_servers_folder_names_the_project(brain, two_projects):
    async def body(session):
        return await _top(session)

    for name in ("billing", "search"):
        assert anyio.run(_session, brain.root, body, None, two_projects[name])[0] == f"{name}-deploy"


@pytest.mark.slow
def test_forget_over_mcp(brain, two_projects):
    async def body(session):
        tools = {t.name: t for t in (await session.list_tools()).tools}
        assert set(tools["forget"].input_schema["properties"]) >= {"key", "reason"}
        moved = payload(await session.call_tool("forget", {"key": "billing-deploy", "reason": "we deploy on Tuesdays now"}))
        left = payload(await session.call_tool("recall", {"query": "billing deploy Fridays", "k": 3,
                                                            "include_unrelated": True}))
        again = await session.call_tool("forget", {"key": "billing-deploy"})
        return moved, left, again

    moved, left, again = anyio.run(_session, brain.root, body)
    assert moved["from"] == "memories/claude/billing-deploy.json" and moved["to"].startswith("archive/")
    assert moved["forgotten"]["reason"] == "we deploy on Tuesdays now" and moved["forgotten"]["by"].startswith("mcp:")
    assert "billing-deploy" not in [h["key"] for h in left]
    assert again.is_error and "No record has the key" in again.content[0].text
    data = json.loads((brain.root / moved["to"]).read_text())
    assert data["forgotten"]["reason"] == "we deploy on Tuesdays now"
