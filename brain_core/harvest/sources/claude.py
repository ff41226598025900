"""Claude Code transcripts: ``${CLAUDE_CONFIG_DIR:-~/.claude}/projects/<sanitized cwd>/<id>.jsonl``.

Each line is one entry; an assistant reply is spread over one line per content block, and the
conversation is a tree: every entry names its ``parentUuid``. A rewind or an edited prompt leaves
the abandoned branch in the file, so the conversation is the path from the newest leaf back to
the root (as the Agent SDK rebuilds it), plus the parallel tool results hanging off that path.
A compaction starts a new root whose ``logicalParentUuid`` points back across the gap.

Kept: what the user typed and what the assistant said, with tool calls and results as short
``tool`` turns. Dropped: thinking, meta entries (``isMeta``: injected reminders, slash-command
caveats), sub-agent side chains, local command echoes, interruption markers, and every entry type
this parser does not know.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

from brain_core.harvest import Session, SessionFile, Turn, env_dir, iter_jsonl, read_text, session_file

CHAIN_TYPES = {"user", "assistant", "system", "progress", "attachment"}
# User text that is the harness talking, not the person.
_INJECTED = re.compile(
    r"^\s*(?:<command-name>|<command-message>|<local-command-stdout>|<local-command-stderr>|"
    r"<local-command-caveat>|<bash-input>|<bash-stdout>|<bash-stderr>|<user-prompt-submit-hook>|"
    r"<session-start-hook>|<tick>|<task-notification>|\[Request interrupted by user|Caveat: The messages below|"
    r"Your task is to create a detailed summary of the conversation so far|"
    r"Please analyze this codebase and create a CLAUDE\.md file|Base directory for this skill:)"
)
_REMINDER = re.compile(r"<system-reminder>.*?</system-reminder>", re.S)
# A slash command: the harness wraps it in tags; what the person typed after the command is in
# <command-args> and is kept (a bare command such as /mcp or /model says nothing).
_COMMAND = re.compile(r"^\s*<command-(?:name|message)>")
_COMMAND_ARGS = re.compile(r"<command-args>(.*?)</command-args>", re.S)
# Plan mode hands its plan to a fresh session as a user message: the agent's words, not the person's.
_PLAN_HANDOFF = re.compile(r"^\s*Implement the following plan:\s*", re.I)
# Claude Code 2.0.x primes a sub-agent with this one word, written as a user message.
_WARMUP = "Warmup"
_SUBAGENT_FILE = re.compile(r"^agent-[0-9a-z-]+\.jsonl$", re.I)
_IDE = re.compile(r"<ide_(?:opened_file|selection)>.*?</ide_(?:opened_file|selection)>", re.S)


class Source:
    name = "claude"

    def __init__(self, root: Path | None = None) -> None:
        self.root = root or env_dir("CLAUDE_CONFIG_DIR", Path.home() / ".claude")

    @property
    def projects(self) -> Path:
        return self.root / "projects"

    def files(self) -> list[SessionFile]:
        """Main-session transcripts. Sub-agent transcripts are skipped: they live one folder deeper
        (2.1+), or, in 2.0.x, beside the sessions as ``agent-<id>.jsonl``."""
        out: list[SessionFile] = []
        if not self.projects.is_dir():
            return out
        for path in sorted(self.projects.glob("*/*.jsonl")):
            if _SUBAGENT_FILE.match(path.name):
                continue
            sf = session_file(self.name, path.stem, path)
            if sf:
                out.append(sf)
        return out

    def locate(self, session_id: str) -> Path | None:
        for path in self.projects.glob(f"*/{glob_escape(session_id)}.jsonl"):
            return path
        return None

    def parse(self, path: Path) -> Session:
        return parse(Path(path))

    def file_id(self, path: Path) -> str:
        return Path(path).name.removesuffix(".jsonl")


def glob_escape(s: str) -> str:
    return re.sub(r"([*?\[\]])", r"[\1]", s)


def parse(path: Path) -> Session:
    # An entry whose type is not a string is no entry this parser knows: skipped like any other.
    entries = [e for e in iter_jsonl(read_text(path)) if isinstance(e.get("type"), str)]
    session_id = path.stem
    title = cwd = started = updated = version = None
    for e in entries:
        kind = e.get("type")
        if kind == "custom-title" and e.get("customTitle"):
            title = str(e["customTitle"])
        elif kind == "ai-title" and e.get("aiTitle") and not title:
            title = str(e["aiTitle"])
        elif kind == "summary" and e.get("summary") and not title:
            title = str(e["summary"])
        if e.get("cwd") and not cwd:
            cwd = str(e["cwd"])
        if isinstance(e.get("version"), str) and not version:
            version = e["version"]
        ts = e.get("timestamp")
        if isinstance(ts, str) and kind in CHAIN_TYPES:
            started = started or ts
            updated = ts
    chain = conversation_chain(entries)
    # A sub-agent's transcript (given with --file): its "user" is the main agent handing over a
    # task, never the person.
    subagent = bool(chain) and all(e.get("isSidechain") for e in chain)
    turns: list[Turn] = []
    for e in chain:
        turns.extend(Turn("plan", t.text, t.at, t.id) if subagent and t.role == "user" else t for t in _turns(e))
    extra = {"version": version} if version else {}
    if not subagent and any(e.get("isCompactSummary") for e in chain):
        extra["continued"] = True  # a session continued after compaction: the person spoke before it
    return Session(
        tool="claude", id=session_id, path=path, turns=tuple(_merge(turns)),
        cwd=cwd, title=title, started=started, updated=updated, extra=extra,
    )


def conversation_chain(entries: list[dict]) -> list[dict]:
    """The entries on the live branch, in file order.

    Side-chain entries only count when the file holds nothing else (a sub-agent transcript
    given explicitly with ``--file``).
    """
    nodes = [e for e in entries if isinstance(e.get("type"), str) and e["type"] in CHAIN_TYPES
             and isinstance(e.get("uuid"), str)]
    main = [e for e in nodes if not e.get("isSidechain")]
    nodes = main or nodes
    if not nodes:
        return []
    order = {id(e): i for i, e in enumerate(entries)}
    by_uuid = {e["uuid"]: e for e in nodes}
    parents = {e.get("parentUuid") for e in nodes}
    leaves = [e for e in nodes if e["uuid"] not in parents]
    leaf = max(leaves or nodes, key=lambda e: order[id(e)])

    on_chain: dict[str, dict] = {}
    crossed_compaction = False
    node: dict | None = leaf
    while node is not None and node["uuid"] not in on_chain:
        on_chain[node["uuid"]] = node
        parent = node.get("parentUuid")
        if parent is None and node.get("logicalParentUuid") in by_uuid:
            parent = node["logicalParentUuid"]
            crossed_compaction = True
        node = by_uuid.get(parent) if parent else None

    # Parallel tool calls fork the tree: the second tool_use and the first tool_result both hang
    # off the first tool_use. Recover such siblings: tool results, and blocks of an assistant
    # message already on the chain.
    message_ids = {_message_id(e) for e in on_chain.values() if e.get("type") == "assistant"} - {None}
    changed = True
    while changed:
        changed = False
        for e in nodes:
            if e["uuid"] in on_chain or e.get("parentUuid") not in on_chain:
                continue
            if _is_tool_result(e) or (e.get("type") == "assistant" and _message_id(e) in message_ids):
                on_chain[e["uuid"]] = e
                changed = True
    chain = sorted(on_chain.values(), key=lambda e: order[id(e)])
    if crossed_compaction:  # the real history is on the chain; its summary would repeat it
        chain = [e for e in chain if not e.get("isCompactSummary")]
    return chain


def _message_id(e: dict) -> str | None:
    msg = e.get("message")
    return msg.get("id") if isinstance(msg, dict) else None


def _is_tool_result(e: dict) -> bool:
    msg = e.get("message")
    content = msg.get("content") if isinstance(msg, dict) else None
    return e.get("type") == "user" and isinstance(content, list) and any(
        isinstance(b, dict) and b.get("type") == "tool_result" for b in content
    )


def _turns(e: dict) -> list[Turn]:
    kind = e.get("type")
    if kind not in ("user", "assistant") or e.get("isMeta"):
        return []
    msg = e.get("message")
    if not isinstance(msg, dict):
        return []
    at, uid = e.get("timestamp"), e.get("uuid")
    content = msg.get("content")
    blocks = [{"type": "text", "text": content}] if isinstance(content, str) else content
    if not isinstance(blocks, list):
        return []
    out: list[Turn] = []
    for b in blocks:
        if not isinstance(b, dict):
            continue
        btype = b.get("type")
        if btype == "text" and isinstance(b.get("text"), str):
            text = b["text"]
            role = "assistant" if kind == "assistant" else "user"
            if kind == "user":
                text = _IDE.sub("", _REMINDER.sub("", text))
                if _COMMAND.match(text):
                    text = "\n".join(a.strip() for a in _COMMAND_ARGS.findall(text) if a.strip())
                elif _INJECTED.match(text):
                    continue
                elif e.get("isSidechain") and text.strip() == _WARMUP:
                    continue
                elif _PLAN_HANDOFF.match(text):
                    role = "plan"
                    text = _PLAN_HANDOFF.sub("", text, count=1)
            text = text.strip()
            if text:
                if e.get("isCompactSummary"):
                    role = "assistant"
                out.append(Turn(role, text, at, uid))
        elif btype == "tool_use":
            out.append(Turn("tool", f"{b.get('name', 'tool')}: {_tool_input(b.get('input'))}", at, uid))
        elif btype == "tool_result":
            out.append(Turn("tool", _tool_result(b.get("content")), at, uid))
    return out


def _tool_input(value) -> str:
    if isinstance(value, dict):
        for k in ("command", "file_path", "path", "pattern", "query", "url", "prompt", "description"):
            if isinstance(value.get(k), str):
                return value[k]
        return json.dumps(value, ensure_ascii=False, sort_keys=True)
    return str(value or "")


def _tool_result(content) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(b.get("text", "") for b in content if isinstance(b, dict) and b.get("type") == "text")
    return ""


def _merge(turns: list[Turn]) -> list[Turn]:
    """Join consecutive assistant text blocks (one reply written as several lines)."""
    out: list[Turn] = []
    for t in turns:
        if out and t.role == "assistant" and out[-1].role == "assistant":
            prev = out[-1]
            out[-1] = Turn("assistant", f"{prev.text}\n\n{t.text}", prev.at, prev.id)
        else:
            out.append(t)
    return out
