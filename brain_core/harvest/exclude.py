"""What the harvest must never read: folders the user excluded, repositories that say so, and the
sessions Aida's own calls to an agent's CLI created.

Decided from a session's folder alone, before its conversation is read: Claude Code names a
transcript's folder after the working directory (``projects/-home-me-work-app``) and records it
in ``cwd`` near the top of the file; a Codex rollout's first line (``session_meta``) holds
``cwd``; Gemini CLI keeps it in ``tmp/<project>/.project_root``. Only that head is read.

- ``harvest.exclude``: folder globs (``~/work/secret-*``, ``/srv/clients/**``); a session whose
  folder matches one, or lies under a match, is left out.
- ``.aidaignore``: a file of that name in the session's folder or any folder above it (up to the
  home) leaves the repository out, on every machine that has a copy of it.
- the scratch folder the agent-CLI providers run in (:func:`brain_core.llm.agent_cli.scratch_dir`).
"""

from __future__ import annotations

import fnmatch
import os
import re
from pathlib import Path

from brain_core.errors import BrainError
from brain_core.harvest import SessionFile

IGNORE_FILE = ".aidaignore"
HEAD_BYTES = 64 * 1024
_CWD = re.compile(r'"cwd"\s*:\s*"((?:[^"\\]|\\.){1,1000})"')


def claude_folder_name(path: str) -> str:
    """How Claude Code names a project's folder: every character but letters and digits becomes ``-``."""
    return re.sub(r"[^A-Za-z0-9]", "-", path)


class Exclusions:
    """The rules of one sweep (the settings and the scratch folder), with what it learnt cached."""

    def __init__(self, config=None, *, scratch: Path | None = None) -> None:
        raw = config.get("harvest.exclude", []) if config is not None else []
        if isinstance(raw, str):
            raw = [raw]
        self.globs = [os.path.expanduser(str(g)).rstrip("/") for g in (raw or []) if str(g).strip()]
        if scratch is None:
            try:
                from brain_core.llm.agent_cli import scratch_dir

                scratch = scratch_dir()
            except Exception:  # noqa: BLE001 - no data folder: nothing of ours to skip
                scratch = None
        self.scratch = str(scratch).rstrip("/") if scratch else None
        self._ignored: dict[str, bool] = {}

    def why(self, sf: SessionFile) -> str | None:
        """``"excluded"``, ``"aidaignore"``, ``"aida"`` (a session of Aida's own call), or None."""
        if self.scratch and sf.tool == "claude" and sf.path.parent.name == claude_folder_name(self.scratch):
            return "aida"
        folder = session_folder(sf)
        if not folder:
            return None
        folder = folder.rstrip("/") or "/"
        if self.scratch and _under(folder, self.scratch):
            return "aida"
        for g in self.globs:
            if fnmatch.fnmatchcase(folder, g) or fnmatch.fnmatchcase(folder, g + "/*") or _under(folder, g):
                return "excluded"
        if self._has_ignore_file(folder):
            return "aidaignore"
        return None

    def _has_ignore_file(self, folder: str) -> bool:
        home = os.path.expanduser("~")
        p = Path(folder)
        seen = []
        found = False
        for d in (p, *p.parents):
            key = str(d)
            if key in self._ignored:
                found = self._ignored[key]
                break
            seen.append(key)
            try:
                if (d / IGNORE_FILE).is_file():
                    found = True
                    break
            except OSError:
                pass
            if key == home or d == d.parent:
                break
        for key in seen:
            self._ignored[key] = found
        return found


def _under(folder: str, root: str) -> bool:
    return folder == root or folder.startswith(root.rstrip("/") + "/")


def session_folder(sf: SessionFile) -> str | None:
    """The working directory a session ran in, from its metadata only; None when not recorded."""
    if sf.tool == "gemini":
        project_dir = sf.path.parent.parent if sf.path.parent.name == "chats" else sf.path.parent
        from brain_core.harvest.sources.gemini import _project_root

        return _project_root(project_dir)
    try:
        if sf.path.suffix == ".zst":
            from brain_core.harvest import read_text

            head = read_text(sf.path)[:HEAD_BYTES]
        else:
            with open(sf.path, "rb") as f:
                head = f.read(HEAD_BYTES).decode("utf-8", "replace")
    except (OSError, ValueError, BrainError):
        return None  # unreadable: the harvest itself says why
    m = _CWD.search(head)
    if not m:
        return None
    try:
        import json

        return json.loads(f'"{m.group(1)}"')
    except ValueError:
        return m.group(1)
