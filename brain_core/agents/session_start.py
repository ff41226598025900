"""What an agent is told as a session starts: the session-start block.

``python -m brain_core.agents.session_start --brain B --hook claude|gemini`` is the command a
``SessionStart`` hook runs (``aida hooks install`` adds it; ``aida brain session-start`` is the same
through the CLI, which a session would wait on while it builds every command). It reads the hook's JSON on stdin (``cwd``, ``session_id``) and
prints, within INDEX.md's character budget (``tier_index.budget_chars``):

1. the standing instructions (records of type ``instruction``), as the rules themselves;
2. the records of the session's project (tagged ``project:<name>``, the name harvest gives the
   session's folder: :func:`brain_core.harvest.projects.project_of`), as their first sentence, most used
   and newest first, in at most half the budget;
3. the rest of INDEX.md (and its shelf), as INDEX.md's own lines, most used and newest first.

In each section what the offline distiller wrote (tagged ``harvest:offline``: lifted from a session
with no model) comes after the rest, marked *unchecked*, so the budget leaves it out first.

Claude Code and Gemini CLI take the block as JSON (``hookSpecificOutput.additionalContext`` of a
``SessionStart`` event); without ``--hook`` it is printed as plain text. Codex has no session-start
hook: ``aida hooks install codex`` writes the block (without a project) between markers in
``AGENTS.md``, and ``aida brain maintain`` refreshes it there (:func:`plan_agents_block`), never
touching the rest of the file.

It must be fast and must never stand in an agent's way: it reads INDEX.md, the listed records'
type, tags and body from the card catalog (a plain read-only SQLite query; the files for what the
catalog lacks), checks each file is still there, reads the use counts, embeds nothing, imports no model, and prints nothing at all when the
brain cannot be read. Each block given is noted in ``.aida/injections.jsonl`` so that ``aida brain
audit`` counts it as a use of every entry it carried. A forgotten record is in ``archive/``, not
on a shelf: its line is left out even when INDEX.md is older than the forget.
"""

from __future__ import annotations

import json
import os
import re
from dataclasses import dataclass, field
from pathlib import Path

from brain_core.lifecycle.injections import LOG, injections  # noqa: F401 - the log this hook writes, and its reader
from brain_core.marks import OFFLINE_TAG
from brain_core.text.sentences import sentences

INDEX, SHELF = "INDEX.md", "INDEX.shelf.md"

DEFAULT_BUDGET = 6000
SENTENCE_CHARS = 200
RULE_CHARS = 320  # a standing instruction: its sentences while they fit
CLIPPED_CHARS = 80  # the least of a next sentence worth showing cut
_LINE = re.compile(r"^- (?P<trigger>.+?) → \[(?P<label>[^\]]*)\]\((?P<path>[^)\s]+)\)\s*$")
HEAD = ("# What your memory knows (Aida)\n"
        "Standing instructions first, then this project's records, then the rest of the brain's index "
        "(paths are in the brain, {root}). Before re-deriving a decision, ask the memory: the `recall` tool "
        "of the `aida` MCP server, or `aida brain recall \"<question>\"`.\n")
UNCHECKED = ("Lines marked *unchecked* are sentences Aida lifted from a past session without a model; "
             "no one has read them as memories, so check one before you rely on it.\n")


@dataclass(frozen=True)
class Entry:
    line: str          # INDEX.md's line for it
    path: str
    type: str = ""
    tags: tuple[str, ...] = ()
    created: str = ""
    body: str = ""

    @property
    def sentence(self) -> str:
        """The body's first sentence (made only for the lines shown)."""
        return _sentence(self.body) if self.body else ""

    @property
    def rule(self) -> str:
        """A rule as the person said it: its sentences while they fit in RULE_CHARS (the first
        alone may be context: "this is a good lesson of reality not meeting spec. ... kick it up to the
        human"), at least the first; "…" where more is left out."""
        return _sentences_in(self.body) if self.body else ""

    @property
    def unchecked(self) -> bool:
        """Written by the offline distiller: lifted from a session, read by no model or person."""
        return OFFLINE_TAG in self.tags


@dataclass(frozen=True)
class Block:
    text: str
    paths: tuple[str, ...] = ()
    project: str | None = None
    left_out: int = 0
    sections: dict = field(default_factory=dict)

    @property
    def chars(self) -> int:
        return len(self.text)


# ------------------------------------------------------------------------------------------ reading
def _index_lines(root: Path) -> list[tuple[str, str]] | None:
    """(line, path) of every entry in INDEX.md and then its shelf; None when there is no INDEX.md."""
    out: list[tuple[str, str]] = []
    for i, name in enumerate((INDEX, SHELF)):
        try:
            text = (root / name).read_text(encoding="utf-8")
        except FileNotFoundError:
            if i == 0:
                return None
            continue
        for raw in text.splitlines():
            m = _LINE.match(raw)
            if m:
                out.append((raw, m.group("path")))
    return out


def _generated_lines(root: Path) -> list[tuple[str, str]]:
    """No INDEX.md yet: the lines it would hold, from the records (slower; only until it exists)."""
    from types import SimpleNamespace

    from brain_core.lifecycle.tier_index import entries

    return [(e.line.rstrip("\n"), e.path) for e in entries(SimpleNamespace(root=root))]


def _sentence(body: str) -> str:
    return _clip((sentences(" ".join(body.split())) or [""])[0], SENTENCE_CHARS)


def _sentences_in(body: str) -> str:
    said = sentences(" ".join(body.split())) or [""]
    out = _clip(said[0], RULE_CHARS)
    for nxt in said[1:]:
        if out.endswith("…"):
            break
        room = RULE_CHARS - len(out) - 1
        # the next one clipped, when enough of it fits to say something
        out = f"{out} {_clip(nxt, room) if room >= CLIPPED_CHARS else '…'}" if len(nxt) > room else f"{out} {nxt}"
    return out


def _clip(text: str, chars: int) -> str:
    """``text`` within ``chars`` characters, cut at a word and ended by "…" when it is longer."""
    return text if len(text) <= chars else text[:chars - 1].rsplit(" ", 1)[0].rstrip(" ,;:") + "…"


def _entry(root: Path, line: str, rel: str) -> Entry | None:
    """The entry with its record's type, tags and first sentence; None when its file is gone
    (forgotten, archived, or never there) or lies outside the brain."""
    if rel.startswith(("/", "\\")) or ".." in Path(rel).parts:
        return None
    path = root / rel
    try:
        data = path.read_bytes()
    except OSError:
        return None
    if not rel.endswith(".json"):
        return Entry(line, rel)  # a knowledge page: its INDEX.md line is all it needs
    try:
        d = json.loads(data)
    except ValueError:
        return None
    if not isinstance(d, dict):
        return None
    raw_tags, raw_body = d.get("tags"), d.get("body")
    tags = raw_tags if isinstance(raw_tags, list) else []
    body = raw_body if isinstance(raw_body, str) else ""
    return Entry(line, rel, str(d.get("type") or ""), tuple(str(t) for t in tags), str(d.get("created") or ""), body)


def _catalog(root: Path) -> dict[str, tuple]:
    """path -> (type, tags JSON, created, body, checksum) of the durable records the card catalog holds
    (one read-only query; empty when there is no SQLite catalog or it cannot be read: the files then).
    The query is the catalog's (:mod:`brain_core.catalog.sqlite.readonly`), on the standard library's
    sqlite3 rather than through ``Index.conn``, whose driver, sqlite-vec and schema check would cost the
    hook more than it takes now."""
    from brain_core.catalog.sqlite.readonly import memory_rows

    return memory_rows(root)


def _from_catalog(line: str, rel: str, row: tuple) -> Entry | None:
    type_, tags, created, body, _ = row
    if isinstance(tags, str) and tags not in ("", "[]"):
        try:
            tags = tuple(str(t) for t in json.loads(tags))
        except (ValueError, TypeError):
            return None
    else:
        tags = ()
    return Entry(line, rel, type_ or "", tags, created or "", body or "")


def _on_shelves(root: Path) -> set[str]:
    """Every durable record's and page's path, from a few folder listings (not a stat per record)."""
    out: set[str] = set()
    base = str(root)
    try:
        for prof in os.scandir(os.path.join(base, "memories")):
            if prof.is_dir():
                out.update(f"memories/{prof.name}/{f.name}" for f in os.scandir(prof.path) if f.name.endswith(".json"))
    except OSError:
        pass
    return out


def _uses(root: Path, paths: list[str]) -> dict[str, tuple[int, float]]:
    """Use counts from ``.aida/usage.sqlite`` (read-only; none when it cannot be read)."""
    if not paths:
        return {}
    from brain_core.catalog.sqlite.readonly import use_counts

    return use_counts(root)


# ------------------------------------------------------------------------------------------ the block
def build(root: Path, budget: int = DEFAULT_BUDGET, project: str | None = None) -> Block:
    """The session-start block for a session in ``project`` (None: no project section)."""
    from brain_core.recall.projects import has_project

    root = Path(root)
    if not (root / "memories").is_dir():
        return Block("", project=project)  # no brain (yet): nothing to say
    lines = _index_lines(root)
    if lines is None:
        lines = _generated_lines(root)
    seen: set[str] = set()
    entries = []
    known = _catalog(root)
    live = _on_shelves(root) if known else set()
    for line, rel in lines:
        if rel in seen:
            continue
        seen.add(rel)
        row = known.get(rel)
        if row is not None and rel in live:  # still on its shelf (not forgotten): the catalog's copy
            e = _from_catalog(line, rel, row)
        else:
            e = _entry(root, line, rel)
        if e is not None:
            entries.append(e)
    if not entries:
        return Block("", project=project)
    uses = _uses(root, [e.path for e in entries])
    rules = [e for e in entries if e.type == "instruction"]
    ours = [e for e in entries if e.type != "instruction" and has_project(e.tags, project)]
    taken = {e.path for e in rules} | {e.path for e in ours}
    rest = [e for e in entries if e.path not in taken]
    # most used, then newest (ISO times sort as text), then INDEX.md's own order (stable sorts); what
    # the offline distiller wrote after the rest of its section, so the budget drops it first
    for group in (rest, ours):
        group.sort(key=lambda e: e.created, reverse=True)
        group.sort(key=lambda e: uses.get(e.path, (0, 0.0))[0], reverse=True)
    for group in (rules, ours, rest):
        group.sort(key=lambda e: e.unchecked)

    sections = [("## Standing instructions", [_own_line(e, e.rule) for e in rules], rules),
                (f"## This project: {project}", [_own_line(e, e.sentence) for e in ours], ours),
                ("## Also in memory", [e.line + (" *unchecked*" if e.unchecked else "") for e in rest], rest)]
    head_text = HEAD.format(root=root) + (UNCHECKED if any(e.unchecked for e in entries) else "")
    out = [head_text]
    used = len(head_text)
    given: list[str] = []
    counts: dict[str, int] = {}
    total = sum(len(s[1]) for s in sections)
    footer = "\n{n} more: `aida brain recall` finds them.\n"
    for title, texts, es in sections:
        if not texts:
            continue
        head = f"\n{title}\n"
        n = 0
        # the project's records take at most half the budget: the rest of the brain keeps room
        limit = used + budget // 2 if title.startswith("## This project") else budget
        for text, e in zip(texts, es):
            room = min(budget, limit) - used - len(footer.format(n=total))
            piece = (head if n == 0 else "") + text + "\n"
            if len(piece) > room:
                continue  # a long line may not fit where a shorter later one does
            out.append(piece)
            used += len(piece)
            given.append(e.path)
            n += 1
        counts[title] = n
    left = total - len(given)
    if left:
        out.append(footer.format(n=left))
    return Block("".join(out), tuple(given), project, left, counts)


def _own_line(e: Entry, said: str) -> str:
    return f"- {said or e.line[2:]} ({e.path})" + (" *unchecked*" if e.unchecked else "")


# ------------------------------------------------------------------------------------------ the hook
def run_hook(ctx, tool: str | None, payload: str, cwd: str | None = None) -> str:
    """What the hook prints: the block (as the agent's JSON with ``tool``), or nothing at all when
    the brain cannot be read or holds nothing durable. Never raises."""
    try:
        data = json.loads(payload) if payload and payload.strip() else {}
        data = data if isinstance(data, dict) else {}
        root = Path(ctx.brain_path())
        if not (root / ".git").exists() or not (root / "memories").is_dir():
            return ""
        budget = int(ctx.config.get("tier_index.budget_chars", DEFAULT_BUDGET))
        folder = cwd or (data.get("cwd") if isinstance(data.get("cwd"), str) else None) or os.getcwd()
        from brain_core.harvest.projects import project_of

        block = build(root, budget, project_of(folder))
        if not block.text:
            return ""
        if tool:  # an agent's session got it (a person printing it in a terminal is not a use)
            note(root, block, tool, str(data.get("session_id") or ""))
        if tool in ("claude", "gemini"):
            return json.dumps({"hookSpecificOutput": {"hookEventName": "SessionStart",
                                                      "additionalContext": block.text}}, ensure_ascii=False) + "\n"
        return block.text
    except Exception:  # noqa: BLE001 - a session-start hook must never stop the agent starting
        return ""


def note(root: Path, block: Block, tool: str, session: str) -> None:
    """One line in ``.aida/injections.jsonl``: which entries reached which session (audit reads it)."""
    from brain_core.records import now_iso

    line = json.dumps({"at": now_iso(), "tool": tool, "session": session, "project": block.project,
                       "paths": list(block.paths)}, ensure_ascii=False)
    try:
        (root / ".aida").mkdir(exist_ok=True)
        fd = os.open(root / ".aida" / LOG, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
        try:
            os.write(fd, (line + "\n").encode("utf-8"))
        finally:
            os.close(fd)
    except OSError:
        pass  # the audit then misses one use; the agent still got its block


# ------------------------------------------------------------------------------------------ Codex: AGENTS.md
BEGIN = "<!-- aida:memory:begin (generated by `aida brain maintain` from the brain's INDEX.md; edits here are replaced) -->"
END = "<!-- aida:memory:end -->"
_BLOCK_RE = re.compile(r"\n*<!-- aida:memory:begin[^\n]*-->.*?<!-- aida:memory:end -->\n*", re.S)


def agents_section(root: Path, budget: int) -> str:
    """The block for an instruction file (no project: the file serves every folder)."""
    block = build(root, budget, None)
    body = block.text or "# What your memory knows (Aida)\n_Nothing durable yet._\n"
    return f"{BEGIN}\n{body.rstrip()}\n{END}\n"


def with_agents_block(text: str | None, section: str, only_if_present: bool = False) -> str | None:
    """``text`` with ``section`` between the markers (replacing what was there, else appended);
    None when ``only_if_present`` and the markers are not there."""
    src = text or ""
    m = _BLOCK_RE.search(src)
    if m is not None:
        lead = "\n\n" if m.start() > 0 else ""
        tail = "\n" if m.end() < len(src) else ""
        return src[:m.start()] + lead + section + tail + src[m.end():]
    if only_if_present:
        return None
    rest = (text or "").rstrip("\n")
    return (rest + "\n\n" if rest else "") + section


def plan_agents_block(root: Path, budget: int, home: Path | None = None, only_if_present: bool = False,
                      before: str | None = None):
    """The edit of Codex's ``AGENTS.md`` that puts (or refreshes) the block between its markers;
    the user's own text is kept as it is. ``before``: the file's text as another edit of the same
    file leaves it (the query-first section). ``only_if_present``: no edit unless the markers are
    there (what ``maintain`` does: it refreshes, it never adds): then None when they are not."""
    from brain_core.agents.hooks import Plan, _read, instructions_path

    path = instructions_path("codex", home)
    on_disk = _read(path)
    text = on_disk if before is None else before
    after = with_agents_block(text, agents_section(root, budget), only_if_present)
    if after is None:
        return None
    return Plan("codex", path, on_disk, after)


def refresh_agents_block(brain, home: Path | None = None, dry_run: bool = False):
    """``aida brain maintain``'s step: refresh Codex's block where one was installed. Returns the
    path changed, or None."""
    from brain_core.agents.hooks import apply

    budget = int(brain.config.get("tier_index.budget_chars", DEFAULT_BUDGET))
    try:
        plan = plan_agents_block(brain.root, budget, home, only_if_present=True)
    except Exception:  # noqa: BLE001 - an unreadable AGENTS.md is the user's; maintain goes on
        return None
    if plan is None or not plan.changed:
        return None
    if not dry_run:
        apply(plan)
    return plan.path


class _Context:
    """What :func:`run_hook` needs of the CLI's context: the brain's path and the settings."""

    def __init__(self, brain: str | None) -> None:
        self.brain_arg = brain
        self._config = None

    @property
    def config(self):
        if self._config is None:
            from brain_core.config import Config

            self._config = Config.load()
        return self._config

    def brain_path(self) -> Path:
        return self.config.brain_path(self.brain_arg)


def main(argv: list[str] | None = None) -> int:
    """``python -m brain_core.agents.session_start [--brain B] [--hook AGENT] [--cwd DIR]``: the hook's command."""
    import argparse
    import sys

    ap = argparse.ArgumentParser(prog="python -m brain_core.agents.session_start",
                                 description="Print what an agent should know as a session starts.")
    ap.add_argument("--brain", metavar="DIR")
    ap.add_argument("--hook", choices=("claude", "gemini", "codex"))
    ap.add_argument("--cwd")
    args = ap.parse_args(argv)
    try:
        payload = sys.stdin.read() if args.hook and not sys.stdin.isatty() else ""
    except (OSError, UnicodeDecodeError):
        payload = ""
    out = run_hook(_Context(args.brain), args.hook, payload, cwd=args.cwd)
    if out:
        sys.stdout.write(out)
    return 0


if __name__ == "__main__":
    import sys

    sys.exit(main())
