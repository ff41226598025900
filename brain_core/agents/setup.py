"""First run: what is on this machine, and the steps that connect Aida to it.

``detect()`` looks, without changing anything: the agents present (their folders, the version
their newest transcript records, how many sessions they left), whether Aida's hook is installed
in each, the brain folder, the keyring, the speech device (GPU or CPU) and the microphones.
``plan()`` turns that into steps, each with a yes/no default and a preview (the diff a hook
install would make, the command an MCP registration needs, the sessions a backfill would read);
``apply()`` carries out the ones the user said yes to. Steps already done say so and do nothing,
so running setup again is harmless. ``aida setup`` (terminal) and the tray's welcome window are
two faces of these three functions.
"""

from __future__ import annotations

import json
import os
import re
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Callable

from brain_core.errors import BrainError

STATE_FILE = "setup.json"  # in the user's data folder: when setup last ran (the welcome shows once)


@dataclass
class Agent:
    tool: str
    home: str
    present: bool
    version: str | None = None
    sessions: int = 0
    session_bytes: int = 0
    hook_installed: bool = False
    error: str | None = None


@dataclass
class Found:
    brain: str
    brain_exists: bool
    agents: list[Agent]
    keyring: str
    keyring_keeps_keys: bool
    speech_device: str
    embed_provider: str
    microphones: list[str]
    microphone_error: str | None
    llm_provider: str
    pending_sessions: int = 0
    pending_bytes: int = 0
    budget: int = 6000  # tier_index.budget_chars: the session-start block's size
    active_sessions: int = 0  # changed inside the quiet window: read once quiet (or with --include-active)
    active_bytes: int = 0
    quiet_minutes: float = 10
    notes: list[str] = field(default_factory=list)
    auto_provider: str = "none"  # what llm.provider auto would pick on this machine
    offline_sessions: int = 0  # read by the offline distiller (its records unchecked): a model can read them again
    offline_records: int = 0

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass
class Step:
    id: str
    title: str
    default: bool  # what --yes does
    done: bool = False  # nothing to do: already so
    preview: str = ""  # a diff, a command, or what will happen
    manual: bool = False  # Aida shows what to run; the user runs it
    notes: list[str] = field(default_factory=list)
    value: str = ""  # what the step sets (the llm step: the provider)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


# ---------------------------------------------------------------------------------------- detect


def detect(config, brain_path: Path, *, homes: dict[str, Path] | None = None) -> Found:
    from brain_core.agents.hooks import TOOLS, plan_install, tool_home

    agents = []
    for tool in TOOLS:
        home = Path((homes or {}).get(tool) or tool_home(tool))
        agent = Agent(tool, str(home), home.is_dir())
        if agent.present:
            try:
                agent.sessions, agent.session_bytes, agent.version = _sessions(tool, home)
                agent.hook_installed = not plan_install(tool, str(brain_path), home).changed
            except (OSError, BrainError) as e:
                agent.error = f"{home} could not be read ({_why(e)}); check its permissions, or skip this agent."
        agents.append(agent)
    keyring, keeps = _keyring()
    mics, mic_error = microphones()
    found = Found(str(brain_path), (brain_path / ".git").is_dir(), agents, keyring, keeps, _speech_device(),
                  _embed_provider(), mics, mic_error, _llm(config),
                  budget=int(config.get("tier_index.budget_chars", 6000)))
    from brain_core.harvest.backfill import active_note
    from brain_core.harvest.backfill import plan as backfill_plan
    from brain_core.harvest.watermark import quiet_seconds

    roots = {a.tool: Path(a.home) for a in agents if a.present and not a.error}
    active: list = []
    try:
        if found.brain_exists:
            from brain_core import Brain

            brain = Brain.open(brain_path, config=config)
            try:
                todo = backfill_plan(brain, roots=roots, sources=tuple(roots), active=active)
                again = backfill_plan(brain, roots=roots, sources=tuple(roots), relearn=True)
                found.offline_sessions, found.offline_records = len(again), _offline_records(brain, again)
            finally:
                brain.close()
        else:  # no brain yet: no watermark, every quiet session is new
            todo = backfill_plan(None, roots=roots, sources=tuple(roots), active=active, config=config)
        found.pending_sessions, found.pending_bytes = len(todo), sum(p.size for p in todo)
        found.active_sessions, found.active_bytes = len(active), sum(p.size for p in active)
    except BrainError:
        pass
    found.quiet_minutes = quiet_seconds(config) / 60
    note = active_note(active, found.quiet_minutes)
    if note:
        found.notes.append(note)
    try:
        from brain_core.llm.factory import resolve_auto

        found.auto_provider = resolve_auto()
    except Exception:  # noqa: BLE001 - a broken keyring: auto finds nothing
        found.auto_provider = "none"
    return found


def _offline_records(brain, pending) -> int:
    """How many records the offline readings of these sessions left on the shelves (their watermark
    lists them: :func:`brain_core.harvest.backfill.offline_records`)."""
    from brain_core.harvest.backfill import offline_records
    from brain_core.harvest.sources import get

    listed = offline_records(brain, {p.tool for p in pending})
    return sum((brain.root / rel).is_file() for p in pending
               for rel in listed.get((p.tool, get(p.tool).file_id(p.path)), ()))


def _sessions(tool: str, home: Path) -> tuple[int, int, str | None]:
    from brain_core.harvest.sources import get

    files = get(tool, home).files()
    newest = max(files, key=lambda f: f.mtime, default=None)
    return len(files), sum(f.size for f in files), (_version(newest.path) if newest else None)


_VERSION = re.compile(r'"(?:version|cli_version)"\s*:\s*"([0-9][^"]{0,30})"')


def _version(path: Path) -> str | None:
    """The agent version its newest transcript records (Claude: ``version``, Codex: ``cli_version``)."""
    try:
        with open(path, "rb") as f:
            head = f.read(64 * 1024).decode("utf-8", "replace")
    except OSError:
        return None
    m = _VERSION.search(head)
    return m.group(1) if m else None


def _keyring() -> tuple[str, bool]:
    try:
        import keyring
        from keyring.backends import fail, null

        backend = keyring.get_keyring()
        name = f"{type(backend).__module__}.{type(backend).__name__}"
        keeps = not isinstance(backend, (fail.Keyring, null.Keyring))
        return name, keeps
    except Exception as e:  # noqa: BLE001 - any keyring failure means: keys go in the environment
        return f"unavailable ({_why(e)})", False


def _speech_device() -> str:
    try:
        from brain_core.voice.transcribe import resolve_device

        device, compute = resolve_device("auto", "auto")
        return f"{device} ({compute})"
    except Exception as e:  # noqa: BLE001
        return f"unavailable ({_why(e)})"


def _embed_provider() -> str:
    try:
        import onnxruntime as ort

        return "CUDA" if "CUDAExecutionProvider" in ort.get_available_providers() else "CPU"
    except Exception as e:  # noqa: BLE001
        return f"unavailable ({_why(e)})"


def _llm(config) -> str:
    try:
        from brain_core.llm.factory import provider_name

        return provider_name(config)
    except BrainError as e:
        return f"invalid ({e})"


def microphones() -> tuple[list[str], str | None]:
    """Input devices by name, or why there are none (one sentence with the fix)."""
    try:
        import sounddevice as sd
    except (ImportError, OSError) as e:
        return [], f"No audio library ({_why(e)}); install PortAudio (apt-get install libportaudio2)."
    try:
        devices = [d["name"] for d in sd.query_devices() if d.get("max_input_channels", 0) > 0]
    except Exception as e:  # noqa: BLE001 - PortAudio errors have no common base
        return [], f"The audio system could not be asked for devices ({_why(e)}); check that sound works."
    if not devices:
        return [], "No microphone was found; plug one in (push-to-talk needs it; everything else works)."
    return devices, None


def mic_level(seconds: float = 2.0) -> tuple[float | None, str]:
    """Record ``seconds`` from the default microphone; the peak level (0..1) and a verdict."""
    devices, error = microphones()
    if error:
        return None, error
    import numpy as np
    import sounddevice as sd

    try:
        samples = sd.rec(int(seconds * 16000), samplerate=16000, channels=1, dtype="float32")
        sd.wait()
    except Exception as e:  # noqa: BLE001
        return None, f"The microphone could not be opened ({_why(e)}); check that no other program holds it."
    peak = float(np.abs(samples).max()) if samples.size else 0.0
    if peak < 0.01:
        return peak, "Silence: the microphone gave no sound; check it is not muted and is the default input."
    return peak, "The microphone works."


# ------------------------------------------------------------------------------------------ plan


def plan(found: Found, *, brain_arg: str | None = None, clone: str | None = None,
         llm: str | None = None, include_active: bool = False) -> list[Step]:
    from brain_core.agents.hooks import connect_plans, mcp_registration

    steps = []
    if clone:
        steps.append(Step("brain", f"Clone the brain from {clone} into {found.brain}", True, found.brain_exists,
                          f"git clone {clone} {found.brain}"))
    else:
        steps.append(Step("brain", f"Create the brain in {found.brain}", True, found.brain_exists,
                          "a git repository with Aida's layout, first commit by Aida"))
    for a in found.agents:
        if not a.present or a.error:
            continue
        # the same edits as `aida hooks install`: hooks, instruction-file sections (one path for all doors)
        ps = connect_plans(a.tool, str(brain_arg or found.brain), Path(a.home), budget=found.budget)
        steps.append(Step(f"hooks-{a.tool}", f"Connect {a.tool}: harvest its sessions, tell it what the memory "
                                             "knows as a session starts (hooks and instruction file)",
                          True, all(not p.changed for p in ps), "".join(p.diff() for p in ps),
                          notes=list(ps[0].notes)))
        steps.append(Step(f"mcp-{a.tool}", f"Let {a.tool} recall from the brain (MCP server)", True, False,
                          mcp_registration(a.tool, brain_arg or found.brain), manual=True))
    if llm is None and found.llm_provider == "none" and found.auto_provider != "none":
        llm = "auto"  # the model the user already has: asked here, with a yes/no like every step
    if llm is not None:
        what = f"{llm} (now {found.auto_provider})" if llm == "auto" else llm
        steps.append(Step("llm", f"Answer and distil with {what}", True, found.llm_provider == llm,
                          f"aida config set llm.provider {llm}, then a connection test"
                          + ("; auto is the first agent CLI installed and logged in, then an API key, then none"
                             if llm == "auto" else ""), value=llm))
    count = found.pending_sessions + (found.active_sessions if include_active else 0)
    size = found.pending_bytes + (found.active_bytes if include_active else 0)
    notes = [] if include_active else list(found.notes)
    model = llm if llm is not None else found.llm_provider
    offline = model == "none" or (model == "auto" and found.auto_provider == "none")
    if count and offline:
        notes.append(_OFFLINE_NOTE.format(installed=_installed(found)))
    if count or notes:
        title = (f"Learn from the {count} session{'s' if count != 1 else ''} already on disk ({size / 1e6:.1f} MB)"
                 if count else "Learn from the sessions on disk once they are quiet")
        steps.append(Step("backfill", title, True, False,
                          "newest first, resumable: `aida brain backfill` runs or resumes it", notes=notes))
    if found.offline_sessions and not offline:
        n, k = found.offline_sessions, found.offline_records
        steps.append(Step("relearn", f"Read again with the model the {n} session{'s' if n != 1 else ''} read offline "
                                     f"({k} unchecked record{'s' if k != 1 else ''} now)", True, False,
                          "newest first, resumable, within the model's call budget: `aida brain backfill --relearn` "
                          "runs or resumes it; what the model keeps replaces the offline records"))
    return steps


_OFFLINE_NOTE = ("With no model on this machine ({installed}, and no API key), they are read offline: sentences "
                 "lifted from each session, marked unchecked (about 1 to 3 in 10 worth keeping, and "
                 "6 in 10 of the person's own rules, as careful readers judged them on sessions from projects it never saw). Log in to an agent's CLI (`claude`, `codex login` or `gemini`), or set an API key, and run "
                 "`aida setup` again: it offers to read them again with that model.")


def _installed(found) -> str:
    """Whose sessions are here, for the offline note: those agents' CLIs are the model the user already has."""
    here = [a.tool for a in found.agents if a.present and not a.error]
    if not here:
        return "no agent CLI logged in"
    named = here[0] if len(here) == 1 else f"{', '.join(here[:-1])} and {here[-1]}"
    return f"{named} sessions are here but no agent CLI is logged in"


# ----------------------------------------------------------------------------------------- apply


def apply(steps: list[Step], chosen: set[str], found: Found, config, *, brain_arg: str | None = None,
          clone: str | None = None, llm: str | None = None, include_active: bool = False,
          say: Callable[[str], None] = print, on_progress=None) -> dict[str, str]:
    """Carry out the chosen steps in order; returns step id -> what happened (one line each).
    A failing step is reported with its fix and the others still run."""
    from brain_core.agents.hooks import apply as apply_hooks
    from brain_core.agents.hooks import connect_plans

    outcome: dict[str, str] = {}
    for step in steps:
        if step.id not in chosen:
            outcome[step.id] = "skipped"
            continue
        if step.done:
            outcome[step.id] = "already done"
            continue
        if step.manual:
            outcome[step.id] = "shown: run it yourself"
            say(f"{step.title}:\n{step.preview}")
            continue
        try:
            if step.id == "brain":
                outcome[step.id] = _make_brain(Path(found.brain), clone, config)
            elif step.id.startswith("hooks-"):
                tool = step.id.split("-", 1)[1]
                home = next(Path(a.home) for a in found.agents if a.tool == tool)
                backups = [b for b in (apply_hooks(p) for p in connect_plans(
                    tool, str(brain_arg or found.brain), home, budget=found.budget)) if b]
                outcome[step.id] = "installed" + (f" (backup: {', '.join(map(str, backups))})" if backups else "")
            elif step.id == "llm":
                outcome[step.id] = _set_llm(config, llm or step.value or "none")
            elif step.id == "backfill":
                outcome[step.id] = _backfill(found, config, on_progress, include_active=include_active)
            elif step.id == "relearn":
                outcome[step.id] = _backfill(found, config, on_progress, relearn=True)
            else:
                outcome[step.id] = "unknown step"
        except BrainError as e:
            outcome[step.id] = f"failed: {e}"
        say(f"{step.title}: {outcome[step.id]}")
    if (Path(found.brain) / ".git").is_dir():  # setup ends with INDEX.md built (and Codex's block from it)
        try:
            outcome["index"] = _build_index(found, config)
        except BrainError as e:
            outcome["index"] = f"failed: {e}"
        say(f"INDEX.md: {outcome['index']}")
    mark_done()
    return outcome


def _build_index(found: Found, config) -> str:
    from brain_core import Brain
    from brain_core.agents.session_start import refresh_agents_block
    from brain_core.lifecycle.tier_index import regenerate

    brain = Brain.open(Path(found.brain), config=config)
    try:
        p = regenerate(brain)
        codex = next((Path(a.home) for a in found.agents if a.tool == "codex" and a.present), None)
        if codex is not None:
            refresh_agents_block(brain, codex)
    finally:
        brain.close()
    return f"{p.loaded} entries, {p.chars} characters ({p.shelved} on the shelf)"


def _make_brain(path: Path, clone: str | None, config) -> str:
    from brain_core import Brain

    if clone:
        import subprocess

        try:
            subprocess.run(["git", "clone", "-q", clone, str(path)], check=True, capture_output=True, text=True,
                           timeout=300, env={**os.environ, "GIT_TERMINAL_PROMPT": "0"})
        except subprocess.CalledProcessError as e:
            raise BrainError(f"Could not clone {clone} ({(e.stderr or '').strip().splitlines()[-1:] or ['git failed']}); "
                             "check the address and your access, or create a new brain instead.") from None
        except subprocess.TimeoutExpired:
            raise BrainError(f"Cloning {clone} took over 5 minutes; check the network and try again.") from None
        return "cloned"
    Brain.init(path, config=config).close()
    return "created"


def _set_llm(config, provider: str) -> str:
    config.set("llm.provider", provider)
    config.save()
    if provider == "none":
        return "answers offline"
    from brain_core.llm.factory import make_provider

    try:
        llm = make_provider(config)
        if llm is None:
            return "set; nothing to use on this machine yet, so it answers offline"
        llm.complete("Reply with OK.", "Say OK.", max_tokens=5)
    except BrainError as e:
        return f"set, but the connection test failed: {e}"
    return "set; the connection test answered"


def _backfill(found: Found, config, on_progress, *, include_active: bool = False, relearn: bool = False) -> str:
    from brain_core import Brain
    from brain_core.harvest.backfill import backfill

    brain = Brain.open(Path(found.brain), config=config)
    try:
        roots = {a.tool: Path(a.home) for a in found.agents if a.present and not a.error}
        p = backfill(brain, roots=roots, sources=tuple(roots), on_progress=on_progress, include_active=include_active,
                     relearn=relearn)
    finally:
        brain.close()
    line = p.summary()
    if relearn and p.done < p.total:
        line += f"; {p.total - p.done} left: `aida brain backfill --relearn` resumes"
    if p.active and not include_active and not relearn:
        line += f"; {p.active} changed in the last {found.quiet_minutes:g} minutes, read once quiet " \
                "(or now with `aida brain backfill --include-active`)"
    for note in p.notes:
        if "read offline" in note or "offline instead" in note:
            line += f"; {note}"
    return line


# ----------------------------------------------------------------------------------------- state


def state_path() -> Path:
    from platformdirs import user_data_dir

    return Path(os.environ.get("AIDA_STATE_DIR") or user_data_dir("aida", appauthor=False)) / STATE_FILE


def needs_welcome() -> bool:
    return not state_path().is_file()


def mark_done() -> None:
    from brain_core.store.fsutil import atomic_write_text

    p = state_path()
    p.parent.mkdir(parents=True, exist_ok=True)
    import time

    atomic_write_text(p, json.dumps({"setup": time.strftime("%Y-%m-%dT%H:%M:%S%z")}) + "\n")


def _why(e: BaseException) -> str:
    text = str(e).strip().splitlines()[0] if str(e).strip() else e.__class__.__name__
    return text[:160]
