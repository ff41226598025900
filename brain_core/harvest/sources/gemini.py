"""Gemini CLI chats: ``~/.gemini/tmp/<project>/chats/session-<time>-<id8>.jsonl`` (and ``.json``
before v0.39). ``$GEMINI_CLI_HOME`` replaces the home directory, as the CLI itself reads it.

The JSONL file is an append-only log: a metadata line, then message records, ``{"$set": ...}``
patches (a full ``messages`` checkpoint among them) and ``{"$rewindTo": id}``. A message is
re-appended whenever it changes (a tool call finishing, a stream completing), so the last record
per id wins, in the position the id first took. Tool results also come back as synthetic user
records made of ``functionResponse`` parts: those are tool turns, not the user speaking.
"""

from __future__ import annotations

import json
from pathlib import Path

from brain_core.harvest import Session, SessionFile, Turn, env_dir, iter_jsonl, read_text, session_file

_INJECTED_PREFIXES = ("<session_context>", "This is the Gemini CLI. We are setting up the context")


class Source:
    name = "gemini"

    def __init__(self, root: Path | None = None) -> None:
        # root is the .gemini folder itself.
        self.root = root or env_dir("GEMINI_CLI_HOME", Path.home()) / ".gemini"

    def files(self) -> list[SessionFile]:
        out: dict[str, SessionFile] = {}
        tmp = self.root / "tmp"
        if not tmp.is_dir():
            return []
        # Legacy .json first so that a chat migrated to .jsonl (same session) replaces it.
        for pattern in ("*/chats/session-*.json", "*/chats/session-*.jsonl"):
            for path in sorted(tmp.glob(pattern)):
                sid = session_id_from_head(path) or path.stem
                sf = session_file(self.name, sid, path)
                if sf:
                    out[sid] = sf
        return sorted(out.values(), key=lambda s: str(s.path))

    def locate(self, session_id: str) -> Path | None:
        for sf in self.files():
            if sf.id == session_id or sf.id.startswith(session_id):
                return sf.path
        return None

    def parse(self, path: Path) -> Session:
        return parse(Path(path))

    def file_id(self, path: Path) -> str:
        return session_id_from_head(Path(path)) or Path(path).stem


def session_id_from_head(path: Path) -> str | None:
    try:
        with path.open("r", encoding="utf-8", errors="replace") as f:
            head = f.read(2048)
    except OSError:
        return None
    key = '"sessionId"'
    i = head.find(key)
    if i < 0:
        return None
    rest = head[i + len(key):].lstrip(" :\n\t")
    if not rest.startswith('"'):
        return None
    end = rest.find('"', 1)
    return rest[1:end] if end > 0 else None


def parse(path: Path) -> Session:
    text = read_text(path)
    meta: dict = {}
    messages: dict[str, dict] = {}  # insertion order = conversation order
    if path.suffix == ".json" and text.lstrip().startswith("{") and not _is_jsonl(text):
        try:
            record = json.loads(text)
        except ValueError:
            record = {}
        if isinstance(record, dict):
            meta = {k: v for k, v in record.items() if k != "messages"}
            for m in record.get("messages") or []:
                if isinstance(m, dict) and m.get("id"):
                    messages[str(m["id"])] = m
    else:
        for rec in iter_jsonl(text):
            if "$rewindTo" in rec:
                _rewind(messages, str(rec["$rewindTo"]))
            elif isinstance(rec.get("$set"), dict):
                patch = rec["$set"]
                if isinstance(patch.get("messages"), list):
                    messages = {str(m["id"]): m for m in patch["messages"] if isinstance(m, dict) and m.get("id")}
                meta.update({k: v for k, v in patch.items() if k != "messages"})
            elif "id" in rec and "type" in rec:
                messages[str(rec["id"])] = rec  # last wins, first position kept
            elif "sessionId" in rec:
                meta.update(rec)
    # A tool result is stored twice: inside the call and as a synthetic user record. Keep one.
    answered = {
        str(c.get("id")) for m in messages.values() for c in (m.get("toolCalls") or [])
        if isinstance(c, dict) and c.get("result")
    }
    turns: list[Turn] = []
    for m in messages.values():
        turns.extend(_turns(m, answered))
    stamps = [m.get("timestamp") for m in messages.values() if isinstance(m.get("timestamp"), str)]
    project_dir = path.parent.parent if path.parent.name == "chats" else None
    cwd = _project_root(project_dir) if project_dir else None
    extra = {"project": project_dir.name} if project_dir and not cwd and not _is_hash(project_dir.name) else {}
    return Session(
        tool="gemini", id=str(meta.get("sessionId") or path.stem), path=path, turns=tuple(turns),
        cwd=cwd, title=meta.get("summary") if isinstance(meta.get("summary"), str) else None,
        started=meta.get("startTime") or (stamps[0] if stamps else None),
        updated=(stamps[-1] if stamps else None) or meta.get("lastUpdated"),
        extra=extra,
    )


def is_prompt_log(path: Path) -> bool:
    """Whether ``path`` is Gemini CLI's ``logs.json``: a list of the prompts typed in a project
    (``sessionId``, ``messageId``, ``type``, ``message``), with no answers."""
    try:
        with Path(path).open("r", encoding="utf-8", errors="replace") as f:
            head = f.read(4096)
    except OSError:
        return False
    return head.lstrip().startswith("[") and '"messageId"' in head and '"sessionId"' in head


def _is_jsonl(text: str) -> bool:
    first = text.lstrip().split("\n", 1)[0].strip()
    try:
        return isinstance(json.loads(first), dict)
    except ValueError:
        return False


def _is_hash(name: str) -> bool:
    return len(name) == 64 and all(c in "0123456789abcdef" for c in name)


def _rewind(messages: dict[str, dict], message_id: str) -> None:
    if message_id not in messages:
        return
    ids = list(messages)
    for mid in ids[ids.index(message_id):]:
        del messages[mid]


def _project_root(project_dir: Path) -> str | None:
    """The project path: the ``.project_root`` marker (v0.29+), else ``~/.gemini/projects.json``."""
    marker = project_dir / ".project_root"
    try:
        if marker.is_file():
            return marker.read_text(encoding="utf-8").strip() or None
        registry = project_dir.parent.parent / "projects.json"
        if registry.is_file():
            projects = json.loads(registry.read_text(encoding="utf-8")).get("projects", {})
            for root, slug in projects.items():
                if slug == project_dir.name:
                    return root
    except (OSError, ValueError, AttributeError):
        return None
    return None


def _turns(m: dict, answered: set[str]) -> list[Turn]:
    kind, at, mid = m.get("type"), m.get("timestamp"), m.get("id")
    out: list[Turn] = []
    if kind == "user":
        texts, tools = _parts(m.get("content"))
        text = "\n".join(t for t in texts if not t.lstrip().startswith(_INJECTED_PREFIXES)).strip()
        if text:
            out.append(Turn("user", text, at, mid))
        out.extend(Turn("tool", t, at, mid) for call_id, t in tools if call_id not in answered)
    elif kind == "gemini":
        texts, _ = _parts(m.get("content"))
        text = "\n".join(texts).strip()
        if text:  # the model wrote its text before it called the tools
            out.append(Turn("assistant", text, at, mid))
        for call in m.get("toolCalls") or []:
            if not isinstance(call, dict):
                continue
            out.append(Turn("tool", f"{call.get('name', 'tool')}: {_args(call.get('args'))}", at, mid))
            _, results = _parts(call.get("result"))
            out.extend(Turn("tool", r, at, mid) for _, r in results)
    return out


def _parts(content) -> tuple[list[str], list[tuple[str, str]]]:
    """(text parts, (call id, output) of function responses) of a Gemini content value."""
    if isinstance(content, str):
        return [content], []
    texts, tools = [], []
    if isinstance(content, dict):
        content = [content]
    for part in content or []:
        if not isinstance(part, dict) or part.get("thought"):
            continue
        if isinstance(part.get("text"), str):
            texts.append(part["text"])
        elif isinstance(part.get("functionResponse"), dict):
            fr = part["functionResponse"]
            resp = fr.get("response")
            output = resp.get("output", resp) if isinstance(resp, dict) else resp
            text = output if isinstance(output, str) else json.dumps(output, ensure_ascii=False)
            tools.append((str(fr.get("id")), text))
    return texts, tools


def _args(args) -> str:
    if isinstance(args, dict):
        for k in ("command", "file_path", "absolute_path", "path", "pattern", "query", "url"):
            if isinstance(args.get(k), str):
                return args[k]
        return json.dumps(args, ensure_ascii=False, sort_keys=True)
    return str(args or "")
