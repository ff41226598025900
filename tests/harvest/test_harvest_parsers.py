"""Transcript parsers: each agent's format reduced to the conversation, nothing injected, nothing twice."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
import zstandard

from brain_core.harvest import iter_jsonl, render_turns
from brain_core.harvest.sources import claude, codex, gemini, get, guess
from tests.helpers.harvest_homes import CLAUDE_ID, CODEX_ID, FIXTURES, GEMINI_ID, SHARED_REAL, make_homes

DECISION = "Go with exponential backoff, capped at six attempts total"


def texts(session, role):
    return [t.text for t in session.turns if t.role == role]


# ------------------------------------------------------------------------------------ Claude
def test_claude_sample_conversation():
    s = claude.parse(FIXTURES / "claude_code_session.jsonl")
    assert s.tool == "claude" and s.cwd == "/home/dev/acme-billing" and s.project == "acme-billing"
    assert s.title == "Add exponential backoff to Stripe webhook retries"
    users = texts(s, "user")
    assert len(users) == 3
    assert users[0].startswith("The Stripe webhook handler") and users[1].startswith(DECISION)
    assistants = texts(s, "assistant")
    assert len(assistants) == 3 and assistants[0].startswith("Root cause:")
    assert not any("Need to read the handler" in t.text for t in s.turns)  # thinking dropped
    tools = texts(s, "tool")
    assert "Bash: python -m pytest tests/test_webhooks.py -x -q" in tools
    assert any(t.startswith("Exit code 1") for t in tools)
    assert s.started == "2026-08-20T14:02:11.380Z" and s.updated == "2026-08-20T14:07:47.640Z"


def _entry(uuid, parent, kind, content, **extra):
    msg = {"role": kind, "content": content}
    if kind == "assistant":
        msg = {"id": extra.pop("mid", f"msg_{uuid}"), "type": "message", "role": "assistant",
               "content": content if isinstance(content, list) else [{"type": "text", "text": content}]}
    return {"parentUuid": parent, "isSidechain": False, "type": kind, "message": msg, "uuid": uuid,
            "timestamp": f"2026-08-20T14:00:{len(uuid):02d}.000Z", "cwd": "/home/dev/acme-billing", **extra}


def _write_jsonl(path: Path, entries, tail: str = "") -> Path:
    path.write_text("".join(json.dumps(e) + "\n" for e in entries) + tail, encoding="utf-8")
    return path


def test_claude_follows_the_live_branch_after_a_rewind(tmp_path):
    entries = [
        _entry("u1", None, "user", "Set up the billing service please."),
        _entry("a1", "u1", "assistant", "Which database do you use?"),
        _entry("u2", "a1", "user", "We use MySQL, always pin version 5.7."),  # later rewound
        _entry("a2", "u2", "assistant", "Pinned MySQL 5.7."),
        _entry("u3", "a1", "user", "We use Postgres 16, never MySQL."),  # the edited prompt
        _entry("a3", "u3", "assistant", "Postgres 16 it is."),
    ]
    s = claude.parse(_write_jsonl(tmp_path / "s.jsonl", entries))
    assert texts(s, "user") == ["Set up the billing service please.", "We use Postgres 16, never MySQL."]
    assert "Pinned MySQL 5.7." not in texts(s, "assistant")


def test_claude_tolerates_unknown_types_torn_line_and_drops_injected(tmp_path):
    entries = [
        {"type": "permission-mode", "permissionMode": "default"},
        {"type": "brand-new-entry-type", "whatever": [1, 2]},
        _entry("u1", None, "user", "Always run ruff before committing."),
        _entry("m1", "u1", "user", "<system-reminder>secret plans</system-reminder>", isMeta=True),
        _entry("c1", "m1", "user", "<command-name>/model</command-name>"),
        _entry("c2", "c1", "user", "<local-command-stdout>Kept model</local-command-stdout>"),
        _entry("i1", "c2", "user", [{"type": "text", "text": "[Request interrupted by user]"}]),
        _entry("a1", "i1", "assistant", [{"type": "thinking", "thinking": "hmm", "signature": "x"}]),
        _entry("a2", "a1", "assistant", "Noted: ruff before every commit.", mid="msg_a1"),
        {**_entry("sc", "a2", "user", "side chain chatter"), "isSidechain": True},
    ]
    path = _write_jsonl(tmp_path / "s.jsonl", entries, tail='{"parentUuid":"a2","type":"user","message":{"role":"us')
    s = claude.parse(path)
    assert texts(s, "user") == ["Always run ruff before committing."]
    assert texts(s, "assistant") == ["Noted: ruff before every commit."]


def test_claude_crosses_a_compaction_and_drops_its_summary(tmp_path):
    entries = [
        _entry("u1", None, "user", "Deploy on Fridays is forbidden from now on."),
        _entry("a1", "u1", "assistant", "Understood."),
        {"parentUuid": None, "logicalParentUuid": "a1", "type": "system", "subtype": "compact_boundary",
         "uuid": "cb", "isSidechain": False, "timestamp": "2026-08-20T15:00:00Z"},
        {**_entry("cs", "cb", "user", "This session is being continued from a previous conversation..."),
         "isCompactSummary": True},
        _entry("u2", "cs", "user", "And tag releases with the date."),
    ]
    s = claude.parse(_write_jsonl(tmp_path / "s.jsonl", entries))
    assert texts(s, "user") == ["Deploy on Fridays is forbidden from now on.", "And tag releases with the date."]


def test_claude_listing_honours_config_dir(tmp_path, monkeypatch):
    roots = make_homes(tmp_path, memory=False)
    sub = roots["claude"] / "projects" / "-home-dev-acme-billing" / CLAUDE_ID / "subagents"
    sub.mkdir(parents=True)
    (sub / "agent-1.jsonl").write_text("{}\n")
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(roots["claude"]))
    files = get("claude").files()
    assert [f.id for f in files] == [CLAUDE_ID]  # sub-agent transcripts are not sessions
    assert get("claude").locate(CLAUDE_ID) == files[0].path


# ------------------------------------------------------------------------------------- Codex
def test_codex_sample_conversation():
    s = codex.parse(FIXTURES / "codex_rollout.jsonl")
    assert s.id == CODEX_ID and s.cwd == "/home/dev/acme-billing"
    users = texts(s, "user")
    assert len(users) == 3, users  # each typed message once, although written twice
    assert users[1].startswith(DECISION)
    assert not any("AGENTS.md" in u or "environment_context" in u for u in users)
    assert not any("permissions instructions" in t.text for t in s.turns)
    assert len(texts(s, "assistant")) == 3
    assert any(t.startswith("exec_command: python -m pytest") for t in texts(s, "tool"))
    assert "7 passed in 0.91s" in [t.strip() for t in texts(s, "tool")]  # the exec header is gone


def test_codex_event_only_rollout_and_torn_line(tmp_path):
    lines = [
        {"timestamp": "2026-01-01T10:00:00Z", "type": "session_meta", "payload": {"id": "abc", "cwd": "/w/proj"}},
        {"timestamp": "2026-01-01T10:00:01Z", "type": "event_msg",
         "payload": {"type": "user_message", "message": "Never force-push to main."}},
        {"timestamp": "2026-01-01T10:00:02Z", "type": "event_msg",
         "payload": {"type": "agent_message", "message": "Understood."}},
        {"timestamp": "2026-01-01T10:00:03Z", "type": "mystery_item", "payload": {"x": 1}},
        {"timestamp": "2026-01-01T10:00:04Z", "type": "event_msg",
         "payload": {"type": "user_message", "message": "Never force-push to main."}},  # said again, later
    ]
    path = _write_jsonl(tmp_path / "rollout-2026-01-01T10-00-00-abc.jsonl", lines, tail='{"timestamp": "2026-01-01T1')
    s = codex.parse(path)
    assert texts(s, "user") == ["Never force-push to main.", "Never force-push to main."]
    assert s.project == "proj"


def test_codex_zst_and_listing(tmp_path, monkeypatch):
    roots = make_homes(tmp_path, memory=False)
    day = roots["codex"] / "sessions" / "2026" / "08" / "20"
    plain = next(day.glob("*.jsonl"))
    other = day / "rollout-2026-08-20T18-00-00-019ec8a2-0000-7000-8000-000000000001.jsonl.zst"
    other.write_bytes(zstandard.ZstdCompressor().compress(plain.read_bytes()))
    dup = plain.with_name(plain.name + ".zst")  # the same rollout, compressed: the plain file wins
    dup.write_bytes(zstandard.ZstdCompressor().compress(b"{}\n"))
    monkeypatch.setenv("CODEX_HOME", str(roots["codex"]))
    files = get("codex").files()
    assert sorted(f.path.name for f in files) == sorted([plain.name, other.name])
    s = get("codex").parse(other)
    assert texts(s, "user")[1].startswith(DECISION)
    assert get("codex").locate(CODEX_ID) == plain


# ------------------------------------------------------------------------------------ Gemini
def test_gemini_sample_last_record_per_id_wins():
    s = gemini.parse(FIXTURES / "gemini_chat.jsonl")
    assert s.id == GEMINI_ID and s.title == "Add capped exponential backoff to Stripe webhook delivery"
    assert len(texts(s, "user")) == 3 and texts(s, "user")[1].startswith(DECISION)
    assert len(texts(s, "assistant")) == 3
    tools = texts(s, "tool")
    # The read_file call was appended three times (executing, then with its result): one call,
    # one result; the synthetic functionResponse user record is not a second copy.
    assert tools.count("read_file: src/webhooks/stripe.py") == 1
    assert sum(1 for t in tools if t.startswith("import httpx")) == 1
    assert not any("Session saved" in t.text for t in s.turns)  # info records dropped


def test_gemini_legacy_json_matches_jsonl():
    a = gemini.parse(FIXTURES / "gemini_chat.jsonl")
    b = gemini.parse(FIXTURES / "gemini_chat.json")
    assert [(t.role, t.text) for t in a.turns] == [(t.role, t.text) for t in b.turns]


def test_gemini_rewind_checkpoint_and_torn_line(tmp_path):
    recs = [
        {"sessionId": "s1", "projectHash": "x", "startTime": "2026-01-01T00:00:00Z"},
        {"id": "m1", "timestamp": "2026-01-01T00:00:01Z", "type": "user", "content": [{"text": "Use tabs."}]},
        {"id": "m2", "timestamp": "2026-01-01T00:00:02Z", "type": "gemini", "content": "Tabs it is."},
        {"$rewindTo": "m1"},
        {"id": "m3", "timestamp": "2026-01-01T00:00:03Z", "type": "user", "content": "Use spaces, always four."},
        {"id": "m4", "timestamp": "2026-01-01T00:00:04Z", "type": "gemini", "content": "Draft"},
        {"id": "m4", "timestamp": "2026-01-01T00:00:04Z", "type": "gemini",
         "content": [{"text": "thinking...", "thought": True}, {"text": "Four spaces."}]},
        {"$set": {"summary": "Indentation"}},
    ]
    s = gemini.parse(_write_jsonl(tmp_path / "session-2026-01-01T00-00-s1.jsonl", recs, tail='{"id": "m5", "ty'))
    assert [(t.role, t.text) for t in s.turns] == [("user", "Use spaces, always four."), ("assistant", "Four spaces.")]
    assert s.title == "Indentation"
    recs.append({"$set": {"messages": [recs[1]]}})  # a full checkpoint replaces the log
    s = gemini.parse(_write_jsonl(tmp_path / "session-2026-01-01T00-00-s2.jsonl", recs))
    assert texts(s, "user") == ["Use tabs."]


def test_gemini_listing_honours_cli_home(tmp_path, monkeypatch):
    roots = make_homes(tmp_path, memory=False)
    chats = roots["gemini"] / "tmp" / "acme-billing" / "chats"
    shutil.copy(FIXTURES / "gemini_chat.json", chats / "session-2026-03-20T14-02-5e1d9c3a.json")  # migrated twin
    monkeypatch.setenv("GEMINI_CLI_HOME", str(tmp_path))
    files = get("gemini").files()
    assert len(files) == 1 and files[0].path.suffix == ".jsonl" and files[0].id == GEMINI_ID
    s = get("gemini").parse(files[0].path)
    assert s.cwd == "/home/dev/acme-billing" and s.project == "acme-billing"


# ----------------------------------------------------------------------------------- common
def test_guess_and_render(tmp_path):
    assert guess(FIXTURES / "codex_rollout.jsonl") == "codex"
    assert guess(FIXTURES / "claude_code_session.jsonl") == "claude"
    assert guess(FIXTURES / "gemini_chat.jsonl") == "gemini"
    s = claude.parse(FIXTURES / "claude_code_session.jsonl")
    text = render_turns(s.turns)
    assert text.startswith("[user] The Stripe webhook handler")
    assert max(len(b) for b in text.split("\n\n") if b.startswith("[tool]")) < 260  # tool output kept short


def test_iter_jsonl_skips_garbage():
    got = list(iter_jsonl('{"a": 1}\n\nnot json\n[1, 2]\n{"b": 2}\n{"c": '))
    assert got == [{"a": 1}, {"b": 2}]


# ------------------------------------------------------------------------------ real captures
REAL = SHARED_REAL


@pytest.mark.skipif(not (REAL / "claude_code" / "short.jsonl").exists(), reason="real captures absent")
def test_real_claude_transcripts_parse():
    s = claude.parse(REAL / "claude_code" / "short.jsonl")
    assert texts(s, "user") == ["mix phx.server doesnt seem to start"]
    # Two parallel tool calls, two results: the sibling result off the chain is recovered.
    assert sum(1 for t in texts(s, "tool") if "doesn't want to proceed" in t) == 2
    assert not any("Kept model" in t.text for t in s.turns)
    heavy = claude.parse(REAL / "claude_code" / "tool_heavy.jsonl")
    users = texts(heavy, "user")
    assert users[0] == "start phoenix in background" and len(users) == 2
    assert not any("/mcp" in u or "Caveat" in u for u in users)


@pytest.mark.skipif(not (REAL / "codex" / "simonw_sample_codex_session.jsonl").exists(), reason="real captures absent")
def test_real_codex_rollout_parses():
    s = codex.parse(REAL / "codex" / "simonw_sample_codex_session.jsonl")
    users = texts(s, "user")
    assert len(users) == 1 and users[0].startswith("can you analyse the MD files")
    assert s.project == "homelab-migration"
