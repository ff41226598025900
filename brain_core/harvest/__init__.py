"""Harvest: what coding agents learned in a session, written into the brain without the user acting
as a librarian.

Each agent keeps its transcripts in its own format (``sources/claude.py``, ``codex.py``,
``gemini.py``); a parser reduces one to the common :class:`Session` of :class:`Turn` s holding only
the conversation. The sweep (``run.py``) takes sessions past their watermark and quiet long
enough, trims, redacts, distills and writes them through the brain's one write path. The mirror
(``mirror.py``) copies the agents' own memory files without a model.

This module holds only the shared model and the tolerant JSONL reader; it imports nothing heavy.
"""

from __future__ import annotations

import io
import json
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterator, Protocol

from brain_core.errors import MalformedRecord

ROLES = ("user", "assistant", "tool", "plan")  # plan: a plan handed over as a user message
TOOL_SNIPPET = 240  # characters of a tool call or result kept in a transcript
PLAN_SNIPPET = 400  # characters of a handed-over plan (the agent's text: context, not a memory)


@dataclass(frozen=True)
class Turn:
    """One utterance. ``role`` is user, assistant, tool (a call or its result, kept short) or plan
    (a plan the agent wrote, handed to the session as if the person had typed it)."""

    role: str
    text: str
    at: str | None = None  # ISO-8601 timestamp as the tool wrote it
    id: str | None = None


@dataclass(frozen=True)
class Session:
    """One agent session reduced to its conversation."""

    tool: str  # claude | codex | gemini
    id: str
    path: Path
    turns: tuple[Turn, ...]
    cwd: str | None = None
    title: str | None = None
    started: str | None = None
    updated: str | None = None
    extra: dict = field(default_factory=dict, compare=False)

    @property
    def project(self) -> str | None:
        """The repository's name, used as the ``project:<name>`` tag (never a worktree folder
        nor a home folder: see :func:`.privacy.project_name`)."""
        from brain_core.harvest.privacy import project_name

        if not self.cwd:
            return self.extra.get("project")
        return project_name(self.cwd, repository_url=self.extra.get("repository_url"))

    @property
    def source(self) -> str:
        return f"{self.tool}:session:{self.id}"

    def conversation(self) -> tuple[Turn, ...]:
        """User and assistant turns only (what a person said and what the agent answered)."""
        return tuple(t for t in self.turns if t.role in ("user", "assistant"))

    def transcript(self) -> str:
        """The session as text for the distiller: one ``[role] text`` block per turn."""
        return render_turns(self.turns)


def render_turns(turns) -> str:
    blocks = []
    for t in turns:
        text = t.text.strip()
        if not text:
            continue
        if t.role == "tool":
            text = shorten(text, TOOL_SNIPPET)
        elif t.role == "plan":
            text = shorten(text, PLAN_SNIPPET)
        blocks.append(f"[{t.role}] {text}")
    return "\n\n".join(blocks)


def shorten(text: str, limit: int) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


@dataclass(frozen=True)
class SessionFile:
    """A transcript on disk, as a sweep sees it before parsing: enough to decide whether to."""

    tool: str
    id: str
    path: Path
    size: int
    mtime: float


class TranscriptSource(Protocol):
    """One agent's transcripts: where they live and how to read one."""

    name: str

    def files(self) -> list[SessionFile]: ...

    def parse(self, path: Path) -> Session: ...

    def file_id(self, path: Path) -> str: ...

    def locate(self, session_id: str) -> Path | None: ...


def session_file(tool: str, session_id: str, path: Path) -> SessionFile | None:
    try:
        st = path.stat()
    except OSError:
        return None
    if not path.is_file():
        return None
    return SessionFile(tool=tool, id=session_id, path=path, size=st.st_size, mtime=st.st_mtime)


def read_text(path: Path) -> str:
    """A transcript's text; ``.zst`` files are decompressed (streaming: a rollout has no size in
    its frame header). Undecodable bytes become U+FFFD rather than failing the harvest."""
    path = Path(path)
    if path.suffix == ".zst":
        import zstandard

        chunks = []
        with path.open("rb") as f:
            try:
                reader = zstandard.ZstdDecompressor().stream_reader(f)
                while True:
                    data = reader.read(1 << 20)
                    if not data:
                        break
                    chunks.append(data)
            except zstandard.ZstdError as e:
                if not chunks:
                    raise MalformedRecord(str(path), f"is not a readable zstd file ({e})") from None
                # A rollout being compressed right now: keep what decoded (a torn tail).
        return b"".join(chunks).decode("utf-8", errors="replace")
    return path.read_text(encoding="utf-8", errors="replace")


def iter_jsonl(text: str) -> Iterator[dict]:
    """JSON objects, one per line. Blank lines, lines that are not objects and a torn last line
    (the agent was mid-write) are skipped: a transcript is evidence, not a contract."""
    for line in io.StringIO(text):
        line = line.strip()
        if not line or line[0] != "{":
            continue
        try:
            obj = json.loads(line)
        except ValueError:
            continue
        if isinstance(obj, dict):
            yield obj


def env_dir(var: str, default: Path) -> Path:
    value = os.environ.get(var)
    return Path(value).expanduser() if value else default
