"""Parser variants seen in real sessions: each test starts from a real file or a real file's lines.

Real files: ``tests/fixtures/real_sessions/`` (see its PROVENANCE.md) and the shared captures,
read in place (skipped when absent).
"""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

from brain_core.cli import main
from brain_core.harvest import render_turns
from brain_core.harvest.distill import extractive
from brain_core.harvest.mirror import codex_memory, mirror
from brain_core.harvest.privacy import project_name
from brain_core.harvest.sources import claude, codex, gemini, get
from tests.helpers.harvest_homes import SHARED_REAL, make_homes
from tests.helpers.paths import FIXTURES

REAL = FIXTURES / "real_sessions"
SHARED_CLIENTS = SHARED_REAL.parent


def texts(session, role):
    return [t.text for t in session.turns if t.role == role]


def _lines(path: Path) -> list[dict]:
    return [json.loads(x) for x in path.read_text(encoding="utf-8").splitlines() if x.strip()]


def _write(path: Path, entries) -> Path:
    path.write_text("".join(json.dumps(e) + "\n" for e in entries), encoding="utf-8")
    return path


# ------------------------------------------------------------------------------------ Claude
def test_claude_slash_command_keeps_the_arguments_the_person_typed():
    s = claude.parse(REAL / "claude-2.1.38-command-args.jsonl.zst")
    users = texts(s, "user")
    assert users[0].startswith("websearch to learn how to fastest setup credo, dialyzer, mix_audit")
    assert users[0].endswith("Maybe there are igniter scripts?")
    assert users[1] == "create the beads"
    assert not any("<command-" in u or "SCOPE" in u for u in users)  # tags and the skill's own text are gone
    assert s.extra["version"] == "2.1.38"


@pytest.mark.skipif(not (SHARED_REAL / "claude_code" / "tool_heavy.jsonl").exists(), reason="real captures absent")
def test_claude_bare_slash_command_says_nothing():
    s = claude.parse(SHARED_REAL / "claude_code" / "tool_heavy.jsonl")
    assert texts(s, "user") == ["start phoenix in background",
                                "scrolling back in xterm.js still does not work (maybe because outer web catches it)? "
                                "websearch xterm.js tmux interactions"]


SUBAGENT = SHARED_REAL / "claude_code" / "4d5611e5-241a-462a-8d15-5122611a9569_subagents_agent-acompact-e1f845.jsonl"


@pytest.mark.skipif(not SUBAGENT.exists(), reason="real captures absent")
def test_claude_2_0_subagent_files_beside_the_sessions_are_not_sessions(tmp_path, monkeypatch):
    roots = make_homes(tmp_path, memory=False)
    project = next((roots["claude"] / "projects").iterdir())
    shutil.copy(SUBAGENT, project / "agent-acompact-e1f845.jsonl")  # where Claude Code 2.0.x kept them
    shutil.copy(SUBAGENT, project / "agent-a1b2c3d.jsonl")
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(roots["claude"]))
    assert [f.path.name for f in get("claude").files()] == [next(project.glob("7f3c*.jsonl")).name]


@pytest.mark.parametrize("name", ["mclaude-2.0.72-agent-a5c3259.jsonl.zst", "mclaude-2.0.76-agent-a00ad96.jsonl.zst"])
def test_claude_2_0_warmup_subagent_is_not_a_session(tmp_path, monkeypatch, name):
    from brain_core.harvest import read_text

    text = read_text(REAL / name)  # a real 2.0.x sub-agent file: isSidechain, first user message "Warmup"
    assert '"isSidechain":true' in text and '"content":"Warmup"' in text
    s = claude.parse(REAL / name)
    assert texts(s, "user") == []
    explore = claude.parse(REAL / "mclaude-2.0.72-agent-abc3cb6.jsonl.zst")  # a sub-agent given real work
    assert texts(explore, "user") == [] and texts(explore, "plan")[0].startswith("Explore this repository")
    roots = make_homes(tmp_path, memory=False)
    project = next((roots["claude"] / "projects").iterdir())
    (project / name.split("-", 2)[2].removesuffix(".zst")).write_text(text, encoding="utf-8")
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(roots["claude"]))
    assert [f.path.name for f in get("claude").files()] == [next(project.glob("7f3c*.jsonl")).name]


def test_claude_real_windows_sessions_name_their_project():
    worktree = claude.parse(REAL / "mclaude-2.0.72-abc757d1-3da3-42fb-bb7b-ffa293a4ba29.jsonl.zst")
    assert worktree.cwd == "C:\\Users\\Mischa\\.claude-worktrees\\M-Claude\\unruffled-mcclintock"
    assert worktree.project == "M-Claude"
    home = claude.parse(REAL / "mclaude-2.1.6-c76e5be5-ffd2-4901-a935-885527c83a61.jsonl.zst")
    assert home.cwd == "C:\\Users\\Mischa" and home.project is None  # a home folder is no project


@pytest.mark.skipif(not (SHARED_REAL / "claude_code" / "short.jsonl").exists(), reason="real captures absent")
def test_claude_plan_handoff_is_the_agents_plan_not_the_person(tmp_path):
    lines = _lines(SHARED_REAL / "claude_code" / "short.jsonl")
    first = next(e for e in lines if e.get("type") == "user" and isinstance(e["message"]["content"], str))
    plan = ("Implement the following plan:\n\n# Plan: Session timeline\n\n## Context\n\nWe always render the "
            "timeline server-side because the socket drops events.\n\n## Steps\n\n1. Never poll; subscribe instead.")
    first["message"]["content"] = plan
    s = claude.parse(_write(tmp_path / "s.jsonl", lines))
    assert texts(s, "user") == []
    assert texts(s, "plan")[0].startswith("# Plan: Session timeline")
    transcript = render_turns(s.turns)
    assert "[plan] # Plan: Session timeline" in transcript
    assert extractive(transcript, profile="claude", source="s") == []  # plan text is never a memory


def test_claude_worktree_folder_names_the_repository():
    s = claude.parse(REAL / "claude-2.1.39-258c7280-ae70-4798-800f-63464d01a85d.jsonl.zst")
    assert s.cwd == "/home/USER/projects/spotter-worktrees/spotter-gqc"
    assert s.project == "spotter"


def test_project_name_from_worktrees_and_never_a_home_folder(tmp_path):
    repo = tmp_path / "acme-billing"
    repo.mkdir()
    git = ["git", "-c", "user.name=t", "-c", "user.email=t@example.invalid", "-c", "commit.gpgsign=false"]
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    subprocess.run(git + ["-C", str(repo), "commit", "-q", "--allow-empty", "-m", "x"], check=True)
    subprocess.run(["git", "-C", str(repo), "worktree", "add", "-q", str(repo / ".worktrees" / "3")], check=True)
    (repo / ".worktrees" / "3" / "src").mkdir()
    assert project_name(str(repo / ".worktrees" / "3")) == "acme-billing"
    assert project_name(str(repo / ".worktrees" / "3" / "src")) == "acme-billing"
    # Folders not on this machine: named from the path alone.
    assert project_name("/Users/jdoe/src/ledger/.worktrees/3") == "ledger"
    assert project_name("/home/jdoe/src/ledger/.claude/worktrees/fix-retries") == "ledger"
    assert project_name("/Users/jdoe/.codex/worktrees/a1b2/ledger") == "ledger"
    assert project_name("C:\\Users\\jdoe\\src\\ledger") == "ledger"
    assert project_name("/Users/jdoe") is None and project_name("C:\\Users\\jdoe") is None
    assert project_name("/w", repository_url="git@github.com:acme/payments-api.git") == "payments-api"


# ------------------------------------------------------------------------------------- Codex
def _rollout(tmp_path: Path, items: list[dict]) -> Path:
    head = [{"timestamp": "2026-06-05T04:58:20.653Z", "type": "session_meta",
             "payload": {"id": "019e9625-802f-7e91-840a-cfe88d14117a", "cwd": "/tmp/w/ledger", "originator": "codex_exec",
                         "cli_version": "0.128.0", "source": "exec"}},
            {"timestamp": "2026-06-05T04:58:23.506Z", "type": "response_item",
             "payload": {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "run the build"}]}}]
    lines = head + [{"timestamp": "2026-06-05T04:58:24.000Z", "type": "response_item", "payload": p} for p in items]
    return _write(tmp_path / "rollout-2026-06-05T04-58-20-019e9625-802f-7e91-840a-cfe88d14117a.jsonl", lines)


def test_codex_0_125_exec_headers_and_output_shapes(tmp_path):
    # Output texts as a real 0.12x session shows them (an exported rollout: "Chunk ID: f800eb /
    # Wall time: 1.0024 seconds / Process running with session ID 32244 / Original token count: 63").
    running = ("Chunk ID: f800eb\nWall time: 1.0024 seconds\nProcess running with session ID 32244\n"
               "Original token count: 63\nOutput:\n[astro] building\n")
    items = [
        {"type": "function_call", "name": "exec_command", "arguments": json.dumps({"cmd": "npm run build"}), "call_id": "c1"},
        {"type": "function_call_output", "call_id": "c1", "output": running},
        {"type": "function_call_output", "call_id": "c2", "output": {"type": "input_text", "text": "12 files changed"}},
        {"type": "custom_tool_call_output", "call_id": "c3", "output": [
            {"type": "input_text", "text": "Chunk ID: x\nWall time: 0.1 seconds\nProcess exited with code 0\nFinal output:"},
            {"type": "input_text", "text": "running 12 tests\ntest result: ok"}]},
    ]
    s = codex.parse(_rollout(tmp_path, items))
    tools = texts(s, "tool")
    assert tools[0] == "exec_command: npm run build"
    assert tools[1] == "[astro] building\n"
    assert tools[2] == "12 files changed"
    assert tools[3] == "running 12 tests\ntest result: ok"
    assert not any("{" in t or "input_text" in t for t in tools)
    assert s.extra["version"] == "0.128.0"


def test_codex_0_135_real_rollout_counts_each_message_once():
    s = codex.parse(REAL / "codex-0.135-kvsankar-session-01.jsonl")
    assert texts(s, "user") == ["[REDACTED_PROMPT]"] and texts(s, "assistant") == ["[REDACTED_ASSISTANT_TEXT]"]
    assert s.extra["version"] == "0.135.0" and s.project == "workspace"


def test_codex_memories_are_mirrored(tmp_path, brain):
    from brain_core.harvest.run import sweep

    codex_home = tmp_path / ".codex"
    (codex_home / "memories" / "rollout_summaries").mkdir(parents=True)
    (codex_home / "memories" / "MEMORY.md").write_text(
        "# Memory\n\n## Preferences\n- Uses uv, never pip, for Python projects.\n\n## Pitfalls\n"
        "- The ledger sandbox rejects requests without an Idempotency-Key.\n", encoding="utf-8")
    (codex_home / "memories" / "memory_summary.md").write_text("v1\nUses uv.\n", encoding="utf-8")
    (codex_home / "memories" / "raw_memories.md").write_text("stage one notes\n", encoding="utf-8")
    (codex_home / "memories" / "rollout_summaries" / "a.md").write_text("one session\n", encoding="utf-8")
    recs = codex_memory(codex_home)
    assert len(recs) == 1
    rec = recs[0]
    assert rec["profile"] == "codex" and "Idempotency-Key" in rec["body"] and "stage one" not in rec["body"]
    assert rec["source"].startswith("codex:memory:") and rec["source"].endswith("memories/MEMORY.md")
    (codex_home / "memories" / "MEMORY.md").unlink()
    assert codex_memory(codex_home)[0]["body"] == "Uses uv."  # the summary, without its format line
    # Through the sweep, like Claude's auto memory.
    (codex_home / "memories" / "MEMORY.md").write_text("- Uses uv, never pip.\n", encoding="utf-8")
    result = sweep(brain, sources=("codex",), roots={"codex": codex_home}, clock=lambda: 1_787_000_000.0)
    written = [o for o in result.outcomes if o.tool == "mirror"][0].written
    assert written == ["memories/codex/user-codex-memory.json"]
    assert "never pip" in json.loads((brain.root / written[0]).read_text())["body"]
    assert [r for r in mirror(claude_root=tmp_path / "none", gemini_root=tmp_path / "none", codex_root=codex_home,
                              projects=[]) if r["profile"] == "codex"]


# ------------------------------------------------------------------------------------ Gemini
def test_gemini_text_comes_before_the_tool_calls_it_announces(tmp_path):
    recs = [json.loads(x) for x in (FIXTURES / "clients" / "gemini_chat.jsonl")
            .read_text().splitlines() if x.strip()]
    msg = next(r for r in reversed(recs) if r.get("type") == "gemini" and r.get("toolCalls"))
    msg = dict(msg, content="I'll read the handler first.")
    recs.append(msg)  # the message re-appended with its text, as the CLI does when a stream completes
    s = gemini.parse(_write(tmp_path / "session-2026-08-20T14-02-5e1d9c3a.jsonl", recs))
    i = next(n for n, t in enumerate(s.turns) if t.text == "I'll read the handler first.")
    assert s.turns[i].role == "assistant" and s.turns[i + 1].role == "tool"


@pytest.mark.skipif(not (SHARED_CLIENTS / "gemini_logs.json").exists(), reason="shared fixtures absent")
def test_gemini_prompt_log_given_as_file_says_what_it_is(brain, tmp_path, capsys):
    logs = tmp_path / "logs.json"
    shutil.copy(SHARED_CLIENTS / "gemini_logs.json", logs)
    rc = main(["--brain", str(brain.root), "brain", "harvest", "--file", str(logs)])
    err = capsys.readouterr().err
    assert rc != 0 and "prompt log" in err and "chats/session-" in err and "Traceback" not in err


def test_codex_project_comes_from_the_recorded_repository(tmp_path):
    path = _rollout(tmp_path, [])
    lines = _lines(path)
    lines[0]["payload"]["cwd"] = "/Users/jdoe/.codex/worktrees/7f3a/checkout"
    lines[0]["payload"]["git"] = {"branch": "main", "repository_url": "git@github.com:acme/payments-api.git"}
    s = codex.parse(_write(path, lines))
    assert s.project == "payments-api"
