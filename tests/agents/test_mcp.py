"""``aida mcp``: a round trip over stdio with the ``mcp`` client (the server in a subprocess)."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import anyio
import pytest

from tests.helpers.mcp_results import payload
from tests.helpers.paths import REPO


async def _session(brain_root: Path, body):
    from mcp import ClientSession, StdioServerParameters
    from mcp.client.stdio import stdio_client

    env = {k: v for k, v in os.environ.items() if k in ("PATH", "HOME", "AIDA_CONFIG", "HF_HUB_OFFLINE", "LANG")}
    env["PYTHONPATH"] = str(REPO)
    params = StdioServerParameters(command=sys.executable, args=["-m", "brain_core", "--brain", str(brain_root), "mcp"],
                                   env=env, cwd=str(REPO))
    async with stdio_client(params) as (read, write):
        async with ClientSession(read, write) as session:
            session.init_result = await session.initialize()
            return await body(session)


@pytest.mark.slow
def test_round_trip_over_stdio(brain):
    brain.remember("Outbound webhooks retry with exponential backoff, capped at six attempts.", type="decision",
                   key="webhook-retry-policy", profile="codex", tags=["project:acme-billing"])
    brain.close()

    async def body(session):
        tools = {t.name: t for t in (await session.list_tools()).tools}
        assert set(tools) == {"recall", "remember", "recent", "forget"}
        assert "query" in tools["recall"].input_schema["properties"]

        hits = payload(await session.call_tool("recall", {"query": "how often do webhooks retry", "k": 3}))
        assert hits[0]["key"] == "webhook-retry-policy" and "six attempts" in hits[0]["body"]

        written = payload(await session.call_tool("remember", {
            "body": "Staging uses sk_test_ keys only; the live key sk_live_51HxFAKEq2w3e4r5t6y7u8i9o0pFAKEFAKE00 was rotated.",
            "type": "instruction", "key": "staging-stripe-keys", "tags": ["project:acme-billing"]}))
        assert written["key"] == "staging-stripe-keys" and written["profile"] == "agent"
        assert "sk_live_51Hx" not in written["body"] and "[REDACTED:stripe-key]" in written["body"]

        recent = payload(await session.call_tool("recent", {"k": 5}))
        assert [r["key"] for r in recent][0] == "staging-stripe-keys"

        bad = await session.call_tool("remember", {"body": "x", "type": "gossip"})
        assert bad.is_error and "type must be one of" in bad.content[0].text
        empty = await session.call_tool("remember", {"body": "   "})
        assert empty.is_error and "Nothing to remember" in empty.content[0].text
        return True

    assert anyio.run(_session, brain.root, body)
    on_disk = json.loads((brain.root / "memories" / "agent" / "staging-stripe-keys.json").read_text())
    assert "sk_live_51Hx" not in on_disk["body"]


def test_missing_brain_fails_with_one_sentence(tmp_path, capsys):
    from brain_core.cli import main

    rc = main(["--brain", str(tmp_path / "nowhere"), "mcp"])
    assert rc != 0
    err = capsys.readouterr().err
    assert "is not a brain" in err and "Traceback" not in err


@pytest.mark.slow
def test_recall_gives_confidence_and_leaves_unrelated_out(brain):
    """An agent asking about something the memory lacks gets an empty list, not an unrelated
    decision it would act on; the server says which version it is."""
    from brain_core import __version__

    brain.remember("We chose Datadog APM over New Relic, mainly for the price per host.", type="decision",
                   key="apm-vendor", profile="me")
    brain.remember("Webhook delivery retries with exponential backoff, capped at six attempts.", key="webhook-retries")
    brain.remember_many([{"body": "The staging database is restored from the nightly snapshot at 02:00 UTC.",
                          "key": "staging-restore", "profile": "claude", "type": "fact",
                          "tags": ["harvest:offline"], "confidence": 0.5}])  # as the offline distiller writes it
    brain.close()

    async def body(session):
        tools = {t.name: t for t in (await session.list_tools()).tools}
        assert "harvest:offline" in tools["recall"].description and "verify" in tools["recall"].description
        restore = payload(await session.call_tool("recall", {"query": "when is the staging database restored"}))
        assert restore[0]["key"] == "staging-restore" and "harvest:offline" in restore[0]["tags"]
        assert session.init_result.server_info.name == "aida"
        assert session.init_result.server_info.version == __version__
        hits = payload(await session.call_tool("recall", {"query": "which APM vendor did we pick"}))
        assert hits[0]["key"] == "apm-vendor" and hits[0]["confidence"] == "strong"
        assert all(h["confidence"] in ("strong", "weak") for h in hits)
        none = payload(await session.call_tool("recall", {"query": "office printer setup"}))
        assert none == []
        everything = payload(await session.call_tool("recall", {"query": "office printer setup",
                                                                  "include_unrelated": True}))
        assert everything and {h["confidence"] for h in everything} == {"none"}
        return True

    assert anyio.run(_session, brain.root, body)
