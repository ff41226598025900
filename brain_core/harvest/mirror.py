"""The mirror: the agents' own memory files, copied into the brain as records, no model involved.

Claude Code writes auto memory (``~/.claude/projects/<project>/memory/<topic>.md`` with YAML
front matter, indexed by ``MEMORY.md``) and reads CLAUDE.md files; Gemini CLI keeps
``~/.gemini/GEMINI.md`` (with its "Gemini Added Memories" section) and private project memory
under ``~/.gemini/tmp/<project>/memory/``; Codex (with its memories feature on) consolidates what it
learned into ``${CODEX_HOME:-~/.codex}/memories/MEMORY.md`` (and a shorter ``memory_summary.md``
that it injects into prompts; its stage-one ``raw_memories.md`` and per-session
``rollout_summaries/`` are working files, not memory). Each becomes a record: the profile is the agent, the
project becomes a ``project:<name>`` tag, the type comes from the front matter, the key is stable
per file (so an edited file supersedes its record) and the source points back at the file.
Secrets in those files are masked by the brain's write path like everything else.
"""

from __future__ import annotations

import json
import os
import re
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Sequence

from brain_core.harvest import env_dir, iter_jsonl
from brain_core.harvest.privacy import project_name
from brain_core.records import MAX_BODY_CHARS
from brain_core.text.slug import kebab, project_tag

# Claude's memory types -> record types.
CLAUDE_TYPES = {"user": "preference", "feedback": "instruction", "project": "fact", "reference": "note"}
_FRONT = re.compile(r"\A---[ \t]*\r?\n(.*?)\r?\n---[ \t]*(?:\r?\n|\Z)", re.S)
_LINK_LINE = re.compile(r"^\s*[-*]\s*\[[^\]]*\]\(([^)]+\.md)\)")
_ADDED = re.compile(r"^##\s+Gemini Added Memories\s*$", re.M)


def mirror(*, claude_root: Path | None = None, gemini_root: Path | None = None, codex_root: Path | None = None,
           projects: list[Path] | None = None) -> list[dict]:
    """Record dicts for every memory file found (the write path no-ops on unchanged ones).

    ``projects``: project folders whose CLAUDE.md / GEMINI.md to include; by default the working
    folders the agents' own session logs name.
    """
    claude_root = claude_root or env_dir("CLAUDE_CONFIG_DIR", Path.home() / ".claude")
    gemini_root = gemini_root or env_dir("GEMINI_CLI_HOME", Path.home()) / ".gemini"
    codex_root = codex_root or env_dir("CODEX_HOME", Path.home() / ".codex")
    if projects is None:
        projects = known_projects(claude_root, gemini_root)
    out: list[dict] = []
    out += claude_auto_memory(claude_root)
    out += claude_instructions(claude_root, projects)
    out += gemini_memory(gemini_root, projects)
    out += codex_memory(codex_root)
    return out


# ------------------------------------------------------------------------------------- Claude
def claude_auto_memory(root: Path) -> list[dict]:
    out = []
    for memdir in sorted((root / "projects").glob("*/memory")):
        project = claude_project_name(memdir.parent)
        topics = {p.name for p in memdir.glob("*.md") if p.name != "MEMORY.md"}
        for path in sorted(memdir.glob("*.md")):
            if path.name == "MEMORY.md":
                rec = _memory_index(path, project, topics)
            else:
                rec = claude_topic(path, project)
            if rec:
                out.append(rec)
    return out


def claude_topic(path: Path, project: str | None) -> dict | None:
    """One auto-memory topic file (``name``/``description``/``metadata.type`` front matter)."""
    text = _read(path)
    if text is None:
        return None
    meta, body = front_matter(text)
    body = body.strip()
    if not body:
        return None
    kind = meta.get("type")
    if isinstance(meta.get("metadata"), dict):
        kind = meta["metadata"].get("type", kind)
    description = meta.get("description")
    if isinstance(description, str) and description.strip() and description.strip() not in body:
        body = f"{description.strip()}\n\n{body}"
    raw_name = meta.get("name")
    name = raw_name if isinstance(raw_name, str) else path.stem
    modified = meta.get("modified")
    return _record(
        "claude", CLAUDE_TYPES.get(str(kind).lower(), "fact"), _key(project, name), body, path, project,
        created=_iso(modified) or _mtime(path), extra_tags=[f"claude-memory:{kind}"] if kind in CLAUDE_TYPES else [],
    )


def _memory_index(path: Path, project: str | None, topics: set[str]) -> dict | None:
    """MEMORY.md: lines pointing at topic files are the topic records; what is left (older
    Claude versions kept facts here directly) becomes one note."""
    text = _read(path)
    if text is None:
        return None
    kept = []
    for line in text.splitlines():
        m = _LINK_LINE.match(line)
        if m and Path(m.group(1)).name in topics:
            continue
        kept.append(line)
    body = "\n".join(kept).strip()
    if not body:
        return None
    return _record("claude", "note", _key(project, "memory-md"), body, path, project, created=_mtime(path))


def claude_instructions(root: Path, projects: list[Path]) -> list[dict]:
    """User-level ``~/.claude/CLAUDE.md`` and rules, and each known project's CLAUDE.md files."""
    out = []
    candidates: list[tuple[Path, str | None]] = [(root / "CLAUDE.md", None)]
    candidates += [(p, None) for p in sorted((root / "rules").glob("*.md"))]
    for proj in projects:
        name = project_name(str(proj)) or proj.name
        for rel in ("CLAUDE.md", ".claude/CLAUDE.md", "CLAUDE.local.md"):
            candidates.append((proj / rel, name))
        candidates += [(p, name) for p in sorted((proj / ".claude" / "rules").glob("*.md"))]
    for path, project in candidates:
        text = _read(path)
        if not text or not text.strip():
            continue
        _, body = front_matter(text)
        label = path.relative_to(root).as_posix() if project is None and _inside(path, root) else path.name
        if project and path.parent.name == "rules":
            label = f"rules-{path.stem}"
        origin = foreign_origin(path) if project else None
        out.append(_record("claude", "note" if origin else "instruction", _key(project or "user", label), body.strip(),
                           path, project, created=_mtime(path), origin=origin))
    return out


def recorded_cwd(project_dir: Path, transcripts: int) -> str | None:
    """The working folder the first ``transcripts`` Claude transcripts of a project recorded."""
    for transcript in sorted(project_dir.glob("*.jsonl"))[:transcripts]:
        try:
            with transcript.open("r", encoding="utf-8", errors="replace") as f:
                head = f.read(65536)
        except OSError:
            continue
        cwd = next((e["cwd"] for e in iter_jsonl(head) if isinstance(e.get("cwd"), str) and e["cwd"]), None)
        if cwd:
            return cwd
    return None


def claude_project_name(project_dir: Path) -> str | None:
    """A Claude project folder's real name: the ``cwd`` its transcripts recorded; else the
    sanitized folder name with the home prefix taken off."""
    cwd = recorded_cwd(project_dir, transcripts=3)
    if cwd:
        return project_name(cwd)
    name = project_dir.name
    home = re.sub(r"[^a-zA-Z0-9]", "-", str(Path.home()))
    if name.startswith(home + "-"):
        name = name[len(home) + 1:]
    # Another machine's home folder (a synced ~/.claude): never a user name in a tag.
    name = re.sub(r"^-?(?:home|Users|var-home)-[^-]+-|^[A-Za-z]--Users-[^-]+-", "", name)
    if "-worktrees-" in name:  # <repo>-worktrees/<repo>-x, <repo>/.worktrees/x
        name = name.split("-worktrees-")[0]
    # Folders that hold projects, not projects ("~/src/ledger" arrives as "src-ledger").
    name = re.sub(r"^(?:(?:projects|project|src|code|repos|repositories|work|dev|git|github|documents|workspace)-)+",
                  "", name.strip("-"), flags=re.I)
    return name.strip("-") or None


# -------------------------------------------------------------------------------------- Codex
def codex_memory(root: Path) -> list[dict]:
    """``memories/MEMORY.md`` as one record; ``memory_summary.md`` only when there is no
    MEMORY.md (it is a shortened copy, and the same facts twice are noise)."""
    memdir = root / "memories"
    for name in ("MEMORY.md", "memory_summary.md"):
        path = memdir / name
        text = _read(path)
        if not text or not text.strip():
            continue
        _, body = front_matter(text)
        lines = body.strip().splitlines()
        if lines and re.fullmatch(r"v\d+", lines[0].strip()):  # memory_summary.md's format line
            lines = lines[1:]
        body = "\n".join(lines).strip()
        if not body or not _has_content(body):
            continue
        return [_record("codex", "note", _key("user", f"codex-{path.stem}"), body, path, None,
                        created=_mtime(path), extra_tags=["codex-memory"])]
    return []


# ------------------------------------------------------------------------------------- Gemini
def gemini_memory(root: Path, projects: list[Path]) -> list[dict]:
    out = []
    global_md = root / "GEMINI.md"
    out += gemini_file(global_md, None, "global")
    for path in sorted((root / "memory").glob("*/GEMINI.md")):
        out += gemini_file(path, None, f"memory-{path.parent.name}")
    for memdir in sorted((root / "tmp").glob("*/memory")):
        project = _gemini_project(memdir.parent)
        for path in sorted(memdir.glob("*.md")):
            out += gemini_file(path, project, f"private-{path.stem}")
    for proj in projects:
        out += gemini_file(proj / "GEMINI.md", project_name(str(proj)) or proj.name, "gemini-md")
    return out


def gemini_file(path: Path, project: str | None, label: str) -> list[dict]:
    """A GEMINI.md or memory file: one instruction record for the file, and one fact per bullet
    of its "Gemini Added Memories" section (what ``save_memory`` appended, one fact a line)."""
    text = _read(path)
    if not text or not text.strip():
        return []
    out = []
    m = _ADDED.search(text)
    head, added = (text[: m.start()], text[m.end():]) if m else (text, "")
    if added:
        nxt = re.search(r"^#{1,2}\s", added, re.M)
        if nxt:
            head += added[nxt.start():]
            added = added[: nxt.start()]
        for line in added.splitlines():
            fact = re.sub(r"^\s*[-*]\s+", "", line).strip()
            if fact:
                out.append(_record("gemini", "fact", _key(project, fact, words=8), fact, path, project,
                                   created=_mtime(path), extra_tags=["gemini-memory"]))
    _, body = front_matter(head)
    if body.strip() and _has_content(body):
        origin = foreign_origin(path) if label == "gemini-md" else None
        rtype = "note" if label.startswith("private") or origin else "instruction"
        out.append(_record("gemini", rtype, _key(project or "user", label), body.strip(), path, project,
                           created=_mtime(path), origin=origin))
    return out


def _gemini_project(project_dir: Path) -> str | None:
    marker = project_dir / ".project_root"
    try:
        if marker.is_file():
            return project_name(marker.read_text(encoding="utf-8").strip()) or project_dir.name
    except OSError:
        pass
    name = project_dir.name
    return None if len(name) == 64 and all(c in "0123456789abcdef" for c in name) else name


def known_projects(claude_root: Path, gemini_root: Path) -> list[Path]:
    """Project folders the agents worked in (from Claude transcripts' ``cwd`` and Gemini's
    project registry) that still exist on this machine."""
    found: dict[str, Path] = {}
    for project_dir in sorted((claude_root / "projects").glob("*")):
        cwd = recorded_cwd(project_dir, transcripts=2)
        if cwd:
            found.setdefault(cwd, Path(cwd))
    registry = gemini_root / "projects.json"
    try:
        projects = json.loads(registry.read_text(encoding="utf-8")).get("projects", {}) if registry.is_file() else {}
    except (OSError, ValueError, AttributeError):
        projects = {}
    for root in projects if isinstance(projects, dict) else ():
        found.setdefault(root, Path(root))
    return [p for p in found.values() if p.is_dir()]


# ------------------------------------------------------------------------------------ helpers
def front_matter(text: str) -> tuple[dict, str]:
    """(front matter as a dict, the rest). Front matter that is not valid YAML counts as none."""
    m = _FRONT.match(text)
    if not m:
        return {}, text
    import yaml

    from brain_core.text import yamlsafe

    try:
        meta = yamlsafe.load(m.group(1)) or {}
    except yaml.YAMLError:
        return {}, text
    return (meta if isinstance(meta, dict) else {}), text[m.end():]


def _record(profile: str, rtype: str, key: str, body: str, path: Path, project: str | None, *,
            created: str | None, extra_tags: Sequence[str] = (), origin: dict | None = None) -> dict:
    if len(body) > MAX_BODY_CHARS:
        body = body[: MAX_BODY_CHARS - 40].rstrip() + "\n\n[... truncated by the mirror]"
    tags = ([project_tag(project)] if project else []) + list(extra_tags)
    rec: dict[str, Any] = {
        "type": rtype, "key": key, "tags": tags, "body": body, "profile": profile,
        "source": f"{profile}:memory:{display_path(path)}", "created": created,
    }
    if origin:  # someone else's file: data about their repository, not the user's instructions
        rec["tags"] = tags + ["origin:foreign"] + ([f"repo:{kebab(origin['repo'], 40) or 'unknown'}"] if origin.get("repo") else [])
        rec["extra"] = {"origin": origin}
    return rec


# ------------------------------------------------------------------------------------- ownership
OWNERSHIP_RULE = ("a project's CLAUDE.md / GEMINI.md is the user's own when its folder is not inside a git "
                  "repository, when git does not track the file (written on this machine), or when every commit "
                  "that touched it was authored with the user's git e-mail (the repository's `git config "
                  "user.email`, or the global one); otherwise it came with someone else's repository")


def foreign_origin(path: Path) -> dict | None:
    """None when ``path`` is the user's own file (:data:`OWNERSHIP_RULE`); else where it came from:
    the repository's remote (credentials taken out), its HEAD commit and how many authors touched it."""
    folder = path.parent
    top = next((p for p in (folder, *folder.parents) if (p / ".git").exists()), None)
    if top is None:
        return None
    rel = os.path.relpath(path, top)

    def git(*args: str) -> str | None:
        import subprocess

        try:
            proc = subprocess.run(["git", "-c", "core.fsmonitor=false", "-c", "core.pager=cat", "-C", str(top), *args],
                                  capture_output=True, text=True, timeout=20, stdin=subprocess.DEVNULL,
                                  env={**os.environ, "GIT_TERMINAL_PROMPT": "0", "GIT_OPTIONAL_LOCKS": "0"})
        except (OSError, subprocess.SubprocessError):
            return None
        return proc.stdout if proc.returncode == 0 else None

    tracked = git("ls-files", "--", rel)
    if tracked is not None and not tracked.strip():
        return None  # not tracked: the user wrote it here
    authors = git("log", "--format=%ae", "--", rel)
    mine = {e.strip().lower() for e in ((git("config", "user.email") or ""), (git("config", "--global", "user.email") or ""))
            if e.strip()}
    seen = {a.strip().lower() for a in (authors or "").splitlines() if a.strip()}
    if authors is not None and seen and mine and seen <= mine:
        return None
    remote = (git("config", "--get", "remote.origin.url") or "").strip()
    remote = re.sub(r"//[^/@]*@", "//", remote)  # https://user:token@host/... -> https://host/...
    head = (git("rev-parse", "HEAD") or "").strip()
    return {"owned": False, "repo": remote or top.name, "commit": head[:40] or None, "authors": len(seen),
            "rule": "not authored with the user's git e-mail" if authors is not None else "git could not read it"}


def display_path(path: Path) -> str:
    """The file's path with the home folder as ``~``, so a brain shared across machines reads
    the same."""
    p = str(path)
    home = str(Path.home())
    return "~" + p[len(home):] if p == home or p.startswith(home + os.sep) else p


def _key(project: str | None, name: str, words: int = 10) -> str:
    """A stable key for a memory file or fact. Keys are file names, which the write path does
    not mask, so the text is redacted before it is slugged."""
    from brain_core.redact import redact

    parts = re.findall(r"[a-z0-9]+", redact(f"{project or ''} {name}").text.lower())[: words + 4]
    return "-".join(parts)[:80].strip("-") or "memory"



def _has_content(body: str) -> bool:
    return any(line.strip() and not line.lstrip().startswith("#") for line in body.splitlines())


def _inside(path: Path, root: Path) -> bool:
    try:
        path.relative_to(root)
        return True
    except ValueError:
        return False


def _read(path: Path) -> str | None:
    try:
        return path.read_text(encoding="utf-8", errors="replace") if path.is_file() else None
    except OSError:
        return None


def _mtime(path: Path) -> str | None:
    try:
        return datetime.fromtimestamp(path.stat().st_mtime, timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
    except OSError:
        return None


def _iso(value) -> str | None:
    if isinstance(value, datetime):
        value = value if value.tzinfo else value.replace(tzinfo=timezone.utc)
        return value.astimezone(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
    if isinstance(value, str) and value.strip():
        from brain_core.records import parse_time

        dt = parse_time(value)
        return dt.strftime("%Y-%m-%dT%H:%M:%SZ") if dt else None
    return None
