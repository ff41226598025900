"""Fake agent home folders for harvest tests: the fixture transcripts placed where each agent
keeps them (``~/.claude/projects/...``, ``~/.codex/sessions/...``, ``~/.gemini/tmp/...``)."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

from tests.helpers import paths as test_paths
from tests.helpers.paths import SHARED

FIXTURES = test_paths.FIXTURES / "clients"
SHARED_REAL = SHARED / "fixtures" / "clients" / "real"

CLAUDE_ID = "7f3c2a9e-4b1d-4c8e-9a2f-5d6e8b1c0a47"
CODEX_ID = "019ec8a2-5b3d-7e41-9c2a-3f4d5e6a7b8c"
GEMINI_ID = "5e1d9c3a-7b2f-4e86-a1d4-0c9b8a7f6e5d"
PLANTED_SECRETS = ("sk_live_51HxFAKEq2w3e4r5t6y7u8i9o0pFAKEFAKE00", "AKIAIOSFODNN7EXAMPLE",
                   "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY")


def make_homes(base: Path, *, memory: bool = True, mtime: float | None = None) -> dict[str, Path]:
    """Place one session per agent (and, with ``memory``, the memory files) under ``base``;
    returns the roots to pass as ``roots=`` (claude: ~/.claude, codex: ~/.codex, gemini: ~/.gemini)."""
    claude = base / ".claude"
    project = claude / "projects" / "-home-dev-acme-billing"
    project.mkdir(parents=True)
    shutil.copy(FIXTURES / "claude_code_session.jsonl", project / f"{CLAUDE_ID}.jsonl")

    codex = base / ".codex"
    day = codex / "sessions" / "2026" / "08" / "20"
    day.mkdir(parents=True)
    shutil.copy(FIXTURES / "codex_rollout.jsonl", day / f"rollout-2026-08-20T16-02-11-{CODEX_ID}.jsonl")

    gemini = base / ".gemini"
    chats = gemini / "tmp" / "acme-billing" / "chats"
    chats.mkdir(parents=True)
    shutil.copy(FIXTURES / "gemini_chat.jsonl", chats / "session-2026-08-20T14-02-5e1d9c3a.jsonl")
    (gemini / "tmp" / "acme-billing" / ".project_root").write_text("/home/dev/acme-billing\n")

    if memory:
        mem = project / "memory"
        mem.mkdir()
        shutil.copy(FIXTURES / "claude_memory_example.md", mem / "webhook-retry-policy.md")
        shutil.copy(FIXTURES / "claude_MEMORY.md", mem / "MEMORY.md")
        shutil.copy(FIXTURES / "gemini_GEMINI.md", gemini / "GEMINI.md")
        private = gemini / "tmp" / "acme-billing" / "memory"
        private.mkdir()
        shutil.copy(FIXTURES / "gemini_private_MEMORY.md", private / "MEMORY.md")
    if mtime is not None:
        for root in (claude, codex, gemini):
            for p in root.rglob("*"):
                if p.is_file():
                    os.utime(p, (mtime, mtime))
    return {"claude": claude, "codex": codex, "gemini": gemini}


def session_files(roots: dict[str, Path]) -> dict[str, Path]:
    return {
        "claude": next((roots["claude"] / "projects").glob("*/*.jsonl")),
        "codex": next((roots["codex"] / "sessions").rglob("rollout-*.jsonl")),
        "gemini": next((roots["gemini"] / "tmp").glob("*/chats/session-*.jsonl")),
    }
