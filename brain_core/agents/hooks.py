"""Agent integrations: install Aida's harvest hook into each agent's own config, and run it.

``aida hooks install claude|codex|gemini`` edits the one file the agent reads its hooks from:

- Claude Code: ``Stop`` and ``SessionEnd`` in ``${CLAUDE_CONFIG_DIR:-~/.claude}/settings.json``,
  and ``SessionStart`` running ``aida brain session-start --hook claude`` (what the agent should
  know as it starts: :mod:`brain_core.agents.session_start`);
- Codex CLI: ``notify`` in ``${CODEX_HOME:-~/.codex}/config.toml`` (Codex appends its JSON as the
  last argument); when ``notify`` already runs another program, a ``Stop`` hook in
  ``hooks.json`` instead (Codex's hooks are behind ``[features] codex_hooks = true``);
- Gemini CLI: ``AfterAgent`` and ``SessionEnd`` in ``~/.gemini/settings.json``, and
  ``SessionStart`` for the session-start block. Codex has no session-start hook: the block goes
  between markers in ``AGENTS.md`` instead (:func:`brain_core.agents.session_start.plan_agents_block`).

Installing is idempotent (an existing Aida entry is updated in place, nothing is duplicated),
keeps a dated backup of the file it changes, and ``--dry-run`` shows the diff instead. The MCP
registration for each agent is printed, not written: agents keep MCP servers in files of their
own that their own ``mcp add`` commands manage.

When an agent runs the hook it must not wait: :func:`hook_plan` reads the payload and decides
what to harvest, and :func:`spawn_detached` starts that harvest in a process of its own.
"""

from __future__ import annotations

import difflib
import json
import os
import re
import shlex
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO

from brain_core.errors import BrainError, InvalidInput
from brain_core.store.fsutil import atomic_write_text

TOOLS = ("claude", "codex", "gemini")
MARK = "brain harvest --hook"  # what makes a hook entry ours
# ours too: the session-start block (brain_core.agents.session_start), run as its own small module, or
# through the CLI in a frozen app
START_MARK = ("brain_core.agents.session_start", "brain session-start --hook")


@dataclass(frozen=True)
class Plan:
    """One file edit: what it holds now and what it would hold."""

    tool: str
    path: Path
    before: str | None
    after: str | None  # None: the file stays absent
    notes: tuple[str, ...] = field(default_factory=tuple)

    @property
    def changed(self) -> bool:
        return self.before != self.after

    def diff(self) -> str:
        old = (self.before or "").splitlines(keepends=True)
        new = (self.after or "").splitlines(keepends=True)
        label = str(self.path)
        return "".join(difflib.unified_diff(old, new, f"{label} (now)" if self.before is not None else "/dev/null",
                                            f"{label} (with Aida)"))


# ------------------------------------------------------------------------------------- commands
def aida_argv(brain: str | None = None) -> list[str]:
    """How an agent should start Aida: this interpreter running the package, so the hook works
    whether or not ``aida`` is on the agent's PATH."""
    from brain_core.config.selfcmd import aida_argv as self_argv

    argv = self_argv()
    if brain:
        argv += ["--brain", str(Path(brain).expanduser().resolve())]
    return argv


def hook_argv(tool: str, brain: str | None = None) -> list[str]:
    return aida_argv(brain) + ["brain", "harvest", "--hook", tool]


def start_argv(tool: str, brain: str | None = None) -> list[str]:
    """The session-start hook's command: prints what the agent should know. It runs
    ``brain_core.agents.session_start`` itself (the same as ``aida brain session-start``, without building
    the whole CLI first: a session waits for it); a frozen app goes through its CLI."""
    import sys

    if getattr(sys, "frozen", False):
        return aida_argv(brain) + ["brain", "session-start", "--hook", tool]
    argv = [sys.executable, "-m", "brain_core.agents.session_start"]
    if brain:
        argv += ["--brain", str(Path(brain).expanduser().resolve())]
    return argv + ["--hook", tool]


def shell_join(argv: list[str]) -> str:
    if os.name == "nt":
        return subprocess.list2cmdline(argv)
    return " ".join(shlex.quote(a) for a in argv)


def tool_home(tool: str) -> Path:
    if tool == "claude":
        return Path(os.environ.get("CLAUDE_CONFIG_DIR") or Path.home() / ".claude").expanduser()
    if tool == "codex":
        return Path(os.environ.get("CODEX_HOME") or Path.home() / ".codex").expanduser()
    if tool == "gemini":
        return Path(os.environ.get("GEMINI_CLI_HOME") or Path.home()).expanduser() / ".gemini"
    raise InvalidInput(f"Unknown agent {tool!r}; use one of {', '.join(TOOLS)}.")


# -------------------------------------------------------------------------------------- install
def plan_install(tool: str, brain: str | None = None, home: Path | None = None) -> Plan:
    home = home or tool_home(tool)
    if tool == "claude":
        return _json_hooks(tool, home / "settings.json", ("Stop", "SessionEnd"),
                           {"type": "command", "command": shell_join(hook_argv(tool, brain)), "timeout": 30},
                           also=[(("SessionStart",), {"type": "command", "command": shell_join(start_argv(tool, brain)),
                                                      "timeout": 10}, START_MARK)])
    if tool == "gemini":
        return _json_hooks(tool, home / "settings.json", ("AfterAgent", "SessionEnd"),
                           {"name": "aida-harvest", "type": "command",
                            "command": shell_join(hook_argv(tool, brain)), "timeout": 30000},
                           notes=("Gemini CLI runs hooks from v0.26 on; older versions need hooks enabled "
                                  "in settings.json (hooksConfig.enabled).",),
                           also=[(("SessionStart",), {"name": "aida-session-start", "type": "command",
                                                      "command": shell_join(start_argv(tool, brain)),
                                                      "timeout": 10000}, START_MARK)])
    if tool == "codex":
        return _codex(home, brain)
    raise InvalidInput(f"Unknown agent {tool!r}; use one of {', '.join(TOOLS)}.")


def connect_plans(tool: str, brain: str | None, home: Path | None = None, instructions: bool = True,
                  budget: int | None = None) -> list[Plan]:
    """Every edit that connects one agent, the same from ``aida setup``, the tray's welcome window
    and ``aida hooks install``: the hooks (harvest, and session start where the agent has one),
    the query-first section of its instruction file and, for Codex (no session-start hook), the
    generated memory block in ``AGENTS.md``. Edits of one file are folded into one plan."""
    plans = [plan_install(tool, brain, home)]
    if instructions:
        habit = plan_habit(tool, brain, home)
        if tool == "codex" and brain:
            from brain_core.agents.session_start import DEFAULT_BUDGET, plan_agents_block

            habit = plan_agents_block(Path(brain).expanduser(), budget or DEFAULT_BUDGET, home, before=habit.after)
        plans.append(habit)
    return plans


def apply(plan: Plan) -> Path | None:
    """Write the plan; return the backup made of the old file (None when there was none)."""
    if not plan.changed:
        return None
    backup = None
    if plan.before is not None:
        backup = plan.path.with_name(f"{plan.path.name}.aida-{time.strftime('%Y%m%d-%H%M%S')}.bak")
        n = 1
        while backup.exists():
            backup = plan.path.with_name(f"{plan.path.name}.aida-{time.strftime('%Y%m%d-%H%M%S')}-{n}.bak")
            n += 1
        atomic_write_text(backup, plan.before)
    assert plan.after is not None  # a changed plan has text to write (after is None only when before is)
    # A settings file that is a symlink (dotfiles kept in a repository) stays one: write its target.
    atomic_write_text(Path(os.path.realpath(plan.path)), plan.after)
    return backup


def _read(path: Path) -> str | None:
    try:
        return path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return None
    except OSError as e:
        raise BrainError(f"{path} cannot be read ({e.strerror}); check its permissions.") from e


def _json_hooks(tool: str, path: Path, events: tuple[str, ...], handler: dict, notes=(), also=()) -> Plan:
    """Put ``handler`` on ``events`` (and each ``(events, handler, mark)`` of ``also``) in a JSON
    settings file, once each."""
    before = _read(path)
    try:
        data = json.loads(before) if before and before.strip() else {}
    except ValueError:
        raise BrainError(f"{path} is not valid JSON; fix it (or move it away) and run the install again.") from None
    if not isinstance(data, dict):
        raise BrainError(f"{path} does not hold a JSON object; fix it and run the install again.")
    hooks = data.setdefault("hooks", {})
    if not isinstance(hooks, dict):
        raise BrainError(f'"hooks" in {path} is not an object; fix it and run the install again.')
    for evs, h, mark in [(events, handler, MARK), *also]:
        for event in evs:
            groups = hooks.setdefault(event, [])
            if not isinstance(groups, list):
                raise BrainError(f'"hooks.{event}" in {path} is not a list; fix it and run the install again.')
            _upsert(groups, h, mark)
    after = json.dumps(data, indent=2, ensure_ascii=False) + "\n"
    if before is not None and _same_json(before, after):
        after = before  # nothing to change: keep the user's formatting byte for byte
    return Plan(tool, path, before, after, tuple(notes))


def _upsert(groups: list, handler: dict, mark: str | tuple[str, ...] = MARK) -> None:
    """Put ``handler`` in the event's groups once: update ours in place, else add a group."""
    marks = (mark,) if isinstance(mark, str) else mark
    for group in groups:
        if not isinstance(group, dict) or not isinstance(group.get("hooks"), list):
            continue
        for i, h in enumerate(group["hooks"]):
            if isinstance(h, dict) and any(m in str(h.get("command", "")) for m in marks):
                group["hooks"][i] = {**h, **handler}
                return
    groups.append({"hooks": [dict(handler)]})


def _same_json(a: str, b: str) -> bool:
    try:
        return json.loads(a) == json.loads(b)
    except ValueError:
        return False


_NOTIFY = re.compile(r"(?m)^notify[ \t]*=[ \t]*(\[[^\]]*\])[ \t]*(?:#.*)?$")
_TABLE = re.compile(r"(?m)^\s*\[")


def _codex(home: Path, brain: str | None) -> Plan:
    path = home / "config.toml"
    before = _read(path)
    text = before or ""
    argv = hook_argv("codex", brain)
    line = "notify = " + json.dumps(argv, ensure_ascii=False)
    m = _NOTIFY.search(text)
    first_table = _TABLE.search(text)
    if m and (first_table is None or m.start() < first_table.start()):
        current = m.group(1)
        if "harvest" in current and "--hook" in current and "codex" in current:
            after = text[: m.start()] + line + text[m.end():]
        else:
            return _codex_hooks_json(home, brain, taken=current)
    elif first_table is not None:
        after = text[: first_table.start()] + line + "\n\n" + text[first_table.start():]
    else:
        after = (text.rstrip("\n") + "\n\n" if text.strip() else "") + line + "\n"
    _check_toml(after, path)
    return Plan("codex", path, before, after)


def _codex_hooks_json(home: Path, brain: str | None, taken: str) -> Plan:
    plan = _json_hooks("codex", home / "hooks.json", ("Stop",),
                       {"type": "command", "command": shell_join(hook_argv("codex", brain)), "timeout": 30,
                        "statusMessage": "Aida: harvesting"})
    note = (f"notify in config.toml already runs {taken}; Aida uses a Stop hook in hooks.json instead, "
            "which needs `codex_hooks = true` under [features] in config.toml.")
    return Plan(plan.tool, plan.path, plan.before, plan.after, (note,))


def _check_toml(text: str, path: Path) -> None:
    try:
        import tomllib
    except ModuleNotFoundError:  # Python 3.10: no reader in the standard library; trust the edit
        return
    try:
        tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        raise BrainError(f"{path} would not be valid TOML after the edit ({e}); fix the file and run the install again.") from e


# ---------------------------------------------------------------------------- MCP registration
def mcp_registration(tool: str, brain: str | None = None) -> str:
    """What to run or paste so the agent can call Aida's MCP server (recall, remember, recent)."""
    argv = aida_argv(brain) + ["mcp"]
    if tool == "claude":
        return "claude mcp add --transport stdio --scope user aida -- " + shell_join(argv)
    if tool == "codex":
        return ("[mcp_servers.aida]    # in ~/.codex/config.toml, or: codex mcp add aida -- " + shell_join(argv) + "\n"
                f"command = {json.dumps(argv[0])}\nargs = {json.dumps(argv[1:])}\n"
                "startup_timeout_sec = 20\ntool_timeout_sec = 60")
    if tool == "gemini":
        block = {"mcpServers": {"aida": {"command": argv[0], "args": argv[1:], "timeout": 30000, "trust": False}}}
        return ("# in ~/.gemini/settings.json, or: gemini mcp add -s user aida " + shell_join(argv) + "\n"
                + json.dumps(block, indent=2))
    raise InvalidInput(f"Unknown agent {tool!r}; use one of {', '.join(TOOLS)}.")


# ------------------------------------------------------------------------------ running a hook
# Events after which the session is over: harvest that transcript now instead of waiting for
# the quiet window. Every other event starts an ordinary sweep of that agent's sessions.
FINAL_EVENTS = {"SessionEnd"}


def hook_plan(tool: str, payload: str | None) -> list[str]:
    """The ``aida brain harvest`` arguments a hook call turns into (payload: the JSON the agent
    passed on stdin, or as Codex's last argument)."""
    data: dict = {}
    if payload and payload.strip():
        try:
            loaded = json.loads(payload)
            data = loaded if isinstance(loaded, dict) else {}
        except ValueError:
            data = {}
    args = ["brain", "harvest", "--source", tool]
    transcript = data.get("transcript_path")
    if data.get("hook_event_name") in FINAL_EVENTS and isinstance(transcript, str) and Path(transcript).is_file():
        args += ["--file", transcript, "--now"]
    return args


def spawn_detached(args: list[str], brain: str | None = None, log: Path | None = None) -> int:
    """Start ``python -m brain_core [--brain B] <args>`` in its own session and return its pid
    without waiting: the agent's hook returns at once, the harvest goes on in the background."""
    argv = aida_argv(brain) + list(args)
    out: int | IO[bytes] = subprocess.DEVNULL
    handle = None
    if log is not None:
        try:
            log.parent.mkdir(parents=True, exist_ok=True)
            handle = open(log, "ab")  # noqa: SIM115 - handed to the child
            out = handle
        except OSError:
            out = subprocess.DEVNULL
    kwargs: dict = {"stdin": subprocess.DEVNULL, "stdout": out, "stderr": out, "close_fds": True}
    if sys.platform == "win32":
        kwargs["creationflags"] = subprocess.DETACHED_PROCESS | subprocess.CREATE_NEW_PROCESS_GROUP
    else:
        kwargs["start_new_session"] = True
    try:
        proc = subprocess.Popen(argv, **kwargs)
    finally:
        if handle is not None:
            handle.close()
    return proc.pid


# ------------------------------------------------------------------------ the query-first habit
INSTRUCTION_FILES = {"claude": "CLAUDE.md", "codex": "AGENTS.md", "gemini": "GEMINI.md"}
HABIT_BEGIN = "<!-- aida:query-first:begin (added by `aida hooks install`; `aida hooks remove` takes it out) -->"
HABIT_END = "<!-- aida:query-first:end -->"
_HABIT_RE = re.compile(r"\n*<!-- aida:query-first:begin[^\n]*-->.*?<!-- aida:query-first:end -->\n*", re.S)


def habit_text(brain: str | None = None) -> str:
    """The section: ask the brain before re-deriving a decision."""
    import shutil

    recall_cmd = "aida" if shutil.which("aida") and not brain else shell_join(aida_argv(brain))
    return (f"{HABIT_BEGIN}\n"
            "## Ask the memory first\n"
            "Before re-deriving a decision, a convention or a preference, ask the user's memory: the `recall` "
            f"tool of the `aida` MCP server, or `{recall_cmd} brain recall \"<question>\"`. Rebuild only what it "
            "does not know, and `remember` the decision you reach, with its reason.\n"
            f"{HABIT_END}\n")


def instructions_path(tool: str, home: Path | None = None) -> Path:
    if tool not in INSTRUCTION_FILES:
        raise InvalidInput(f"Unknown agent {tool!r}; use one of {', '.join(TOOLS)}.")
    path = (home or tool_home(tool)) / INSTRUCTION_FILES[tool]
    # a dotfiles symlink stays a symlink: edit the file it points to
    return Path(os.path.realpath(path)) if path.is_symlink() else path


def plan_habit(tool: str, brain: str | None = None, home: Path | None = None, remove: bool = False) -> Plan:
    """Add (or with ``remove``, take out) the query-first section of the agent's instruction file
    (``CLAUDE.md``, ``AGENTS.md``, ``GEMINI.md``). Idempotent: the section between its markers is
    replaced, never duplicated; the rest of the file is kept."""
    path = instructions_path(tool, home)
    before = _read(path)
    if remove and before is not None:  # the generated memory block (Codex's AGENTS.md) goes with it
        from brain_core.agents.session_start import _BLOCK_RE

        if _BLOCK_RE.search(before):
            rest = _BLOCK_RE.sub("\n\n", _HABIT_RE.sub("\n\n", before)).strip("\n")
            return Plan(tool, path, before, rest + "\n" if rest else "")
    if before is not None and _HABIT_RE.search(before):
        if not remove:  # replaced where it stands: another generated section after it stays after it
            m = _HABIT_RE.search(before)
            assert m is not None  # searched just above
            lead = "\n\n" if m.start() > 0 else ""
            tail = "\n" if m.end() < len(before) else ""
            return Plan(tool, path, before, before[:m.start()] + lead + habit_text(brain) + tail + before[m.end():])
        rest = _HABIT_RE.sub("\n\n", before).strip("\n")
    else:
        if remove:
            return Plan(tool, path, before, before)  # nothing of ours there: no change
        rest = (before or "").rstrip("\n")
    if remove:
        return Plan(tool, path, before, rest + "\n" if rest else "")
    return Plan(tool, path, before, (rest + "\n\n" if rest else "") + habit_text(brain))
