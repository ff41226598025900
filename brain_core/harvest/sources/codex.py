"""Codex CLI rollouts: ``${CODEX_HOME:-~/.codex}/sessions/YYYY/MM/DD/rollout-<time>-<id>.jsonl``.

Lines are ``{"timestamp", "type", "payload"}``. The conversation is in ``response_item`` messages;
the same user and agent text is persisted a second time as ``event_msg`` ``user_message`` /
``agent_message``, so each pair is counted once (whichever comes first wins; older rollouts hold
only one of the two). Codex injects the AGENTS.md files, the environment context and its
permission instructions as user or developer messages: those are dropped. A rollout may be
compressed to ``.jsonl.zst``; when both exist the plain file is the live one.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from pathlib import Path

from brain_core.harvest import Session, SessionFile, Turn, env_dir, iter_jsonl, read_text, session_file

_ID = re.compile(r"([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})", re.I)
_INJECTED = re.compile(
    r"^\s*(?:# AGENTS\.md instructions for|<environment_context>|<user_instructions>|"
    r"<permissions instructions>|<INSTRUCTIONS>|<user_shell_command>|<turn_aborted>|"
    r"<collaboration_mode>|<personality>|<skill>|<subagent_notification>)"
)
# The exec tool's header (0.125+ adds "Chunk ID" and "Process running with session ID N" for a
# command still running); what follows "Output:" is what the command printed.
_OUTPUT_HEADER = re.compile(
    r"\A(?:(?:Chunk ID:|Wall time:|Process exited with code|Process running with session ID|"
    r"Original token count:|Total output lines:|Exit code:)[^\n]*\n)+(?:(?:Final )?[Oo]utput:[ \t]*\n?)?"
)


class Source:
    name = "codex"

    def __init__(self, root: Path | None = None) -> None:
        self.root = root or env_dir("CODEX_HOME", Path.home() / ".codex")

    def files(self) -> list[SessionFile]:
        found: dict[str, Path] = {}
        patterns = ("sessions/*/*/*/rollout-*.jsonl", "sessions/*/*/*/rollout-*.jsonl.zst",
                    "archived_sessions/rollout-*.jsonl", "archived_sessions/rollout-*.jsonl.zst")
        for pattern in patterns:
            for path in sorted(self.root.glob(pattern)):
                plain = path.with_suffix("") if path.suffix == ".zst" else path
                key = str(plain)
                if path.suffix == ".zst" and key in found:
                    continue  # plain wins
                found[key] = path
        out = []
        for path in found.values():
            sf = session_file(self.name, session_id(path), path)
            if sf:
                out.append(sf)
        return sorted(out, key=lambda s: str(s.path))

    def locate(self, session_id_: str) -> Path | None:
        """A rollout by thread id (Codex's ``notify`` payload names no path)."""
        for sf in self.files():
            if sf.id == session_id_:
                return sf.path
        return None

    def parse(self, path: Path) -> Session:
        return parse(Path(path))

    def file_id(self, path: Path) -> str:
        return session_id(Path(path))


def session_id(path: Path) -> str:
    m = _ID.findall(path.name)
    return m[-1] if m else path.name.split(".")[0]


def parse(path: Path) -> Session:
    sid = session_id(path)
    cwd = started = updated = version = repository_url = None
    meta_seen = False
    turns: list[Turn] = []
    unpaired: dict[str, Counter] = {"item": Counter(), "event": Counter()}

    def say(role: str, text: str, at, origin: str) -> None:
        text = text.strip()
        if not text:
            return
        other = "event" if origin == "item" else "item"
        key = f"{role}\x00{' '.join(text.split())}"
        if unpaired[other][key] > 0:
            unpaired[other][key] -= 1
            return
        unpaired[origin][key] += 1
        turns.append(Turn(role, text, at))

    for line in iter_jsonl(read_text(path)):
        kind, payload, at = line.get("type"), line.get("payload"), line.get("timestamp")
        if not isinstance(payload, dict):
            continue
        if isinstance(at, str):
            started = started or at
            updated = at
        if kind == "session_meta":
            if not meta_seen:  # later ones are history copied in by a fork
                meta_seen = True
                sid = str(payload.get("id") or payload.get("session_id") or sid)
                cwd = payload.get("cwd") or cwd
                started = payload.get("timestamp") or started
                version = payload.get("cli_version") or version
                git = payload.get("git")
                git = git if isinstance(git, dict) else {}
                repository_url = git.get("repository_url") or repository_url
        elif kind == "turn_context":
            cwd = cwd or payload.get("cwd")
        elif kind == "response_item":
            _item(payload, at, say, turns)
        elif kind == "event_msg":
            ptype = payload.get("type")
            if ptype == "user_message" and isinstance(payload.get("message"), str):
                if not _INJECTED.match(payload["message"]):
                    say("user", payload["message"], at, "event")
            elif ptype == "agent_message" and isinstance(payload.get("message"), str):
                say("assistant", payload["message"], at, "event")
    extra = {k: v for k, v in (("version", version), ("repository_url", repository_url)) if isinstance(v, str) and v}
    return Session(tool="codex", id=sid, path=path, turns=tuple(turns), cwd=cwd,
                   started=started, updated=updated, extra=extra)


def _item(payload: dict, at, say, turns: list[Turn]) -> None:
    ptype = payload.get("type")
    if ptype == "message":
        role = payload.get("role")
        if role not in ("user", "assistant"):
            return  # developer / system: Codex's own instructions
        parts = payload.get("content")
        if not isinstance(parts, list):
            return
        texts = []
        for part in parts:
            if isinstance(part, dict) and isinstance(part.get("text"), str):
                if role == "user" and _INJECTED.match(part["text"]):
                    continue
                texts.append(part["text"])
        if texts:
            say(role, "\n\n".join(texts), at, "item")
    elif ptype in ("function_call", "custom_tool_call"):
        turns.append(Turn("tool", f"{payload.get('name', 'tool')}: {_call_input(payload)}", at))
    elif ptype in ("function_call_output", "custom_tool_call_output"):
        turns.append(Turn("tool", _call_output(payload.get("output")), at))
    elif ptype == "local_shell_call":
        action = payload.get("action")
        action = action if isinstance(action, dict) else {}
        command = action.get("command")
        turns.append(Turn("tool", f"shell: {' '.join(command) if isinstance(command, list) else command}", at))
    elif ptype == "web_search_call":
        action = payload.get("action")
        action = action if isinstance(action, dict) else {}
        turns.append(Turn("tool", f"web_search: {action.get('query', '')}", at))


def _call_input(payload: dict) -> str:
    if isinstance(payload.get("input"), str):
        return payload["input"]
    raw = payload.get("arguments")
    try:
        args = json.loads(raw) if isinstance(raw, str) else raw
    except ValueError:
        return str(raw)
    if isinstance(args, dict):
        for k in ("cmd", "command", "path", "query"):
            v = args.get(k)
            if isinstance(v, str):
                return v
            if isinstance(v, list):
                return " ".join(map(str, v))
        return json.dumps(args, ensure_ascii=False, sort_keys=True)
    return str(args)


def _output_text(value) -> str | None:
    """The text of a tool output however it is shaped: a string, an ``{"type": "input_text",
    "text": ...}`` item, a list of such items (0.125+), or ``{"content": [...]}``/``{"output": ...}``
    wrappers. Images and other non-text items are left out."""
    if isinstance(value, str):
        return value
    if isinstance(value, list):
        texts = [t for t in (_output_text(v) for v in value) if t]
        return "\n".join(texts) if texts else None
    if isinstance(value, dict):
        if isinstance(value.get("text"), str):
            return value["text"]
        for k in ("content", "output", "body"):
            if k in value:
                t = _output_text(value[k])
                if t is not None:
                    return t
    return None


def _call_output(output) -> str:
    if not isinstance(output, str):
        output = _output_text(output) or ""
    if output.startswith("{"):
        try:
            obj = json.loads(output)
            if isinstance(obj, dict) and isinstance(obj.get("output"), str):
                output = obj["output"]
        except ValueError:
            pass
    return _OUTPUT_HEADER.sub("", output, count=1)
