"""The coding agents' own command-line tools as model providers: ``claude-code``, ``codex``,
``gemini-cli``, and ``auto`` (the first of them installed and logged in, then an API key).

Every Aida user has at least one agent installed and logged in, and each can run its model
headless on the user's own account. A call runs the agent once, with a timeout, in a scratch
folder (``<data folder>/scratch``), with machine-readable output:

- Claude Code: ``claude -p --output-format json --model haiku --tools "" --strict-mcp-config
  --system-prompt ...``, the prompt on stdin; one JSON object, the answer in ``result``,
  ``is_error`` true when the run failed (a logged-out run answers "Invalid API key · Please run
  /login"), the usage in ``usage.input_tokens`` / ``usage.output_tokens``.
- Codex: ``codex exec --json --ephemeral --skip-git-repo-check --sandbox read-only -``, the prompt
  on stdin; JSON lines, the answer in the last ``item.completed`` whose item is an
  ``agent_message``, the usage in ``turn.completed``, a failure as ``turn.failed`` or ``error``.
- Gemini CLI: ``gemini -p <instructions> --output-format json``, the transcript on stdin; one
  JSON object, the answer in ``response``, the usage under ``stats.models.<model>.tokens``
  (``prompt``, ``candidates``), a failure in ``error.message``.

The child's environment carries ``AIDA_CHILD=1``: Aida's hook and the harvester do nothing in
it, so the sessions these calls create never fire Aida's hooks and are never harvested (the
harvester also skips every session whose folder is the scratch folder).

A budget (``llm.cli.calls_per_hour``, ``llm.cli.calls_per_day``) bounds what a harvest may spend
of the user's plan; the calls made are kept in ``<data folder>/llm-calls.json``. A missing,
logged-out, rate-limited or over-budget CLI raises :class:`AgentUnavailable` (a
:class:`ProviderError`) with one sentence; the harvest then reads the rest of that run offline.
"""

from __future__ import annotations

import json as jsonlib
import os
import shutil
import subprocess
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Mapping

from brain_core.errors import ProviderError
from brain_core.llm.base import Completion, strip_fences

CHILD_ENV = "AIDA_CHILD"
AGENTS = ("claude-code", "codex", "gemini-cli")
EXECUTABLE = {"claude-code": "claude", "codex": "codex", "gemini-cli": "gemini"}
DEFAULT_MODEL = {"claude-code": "haiku", "codex": "", "gemini-cli": "gemini-2.5-flash"}
JSON_INSTRUCTION = "\n\nAnswer with one JSON object and nothing else: no prose, no code fence."
DEFAULT_TIMEOUT = 180.0
DEFAULT_PER_HOUR = 30
DEFAULT_PER_DAY = 200
DEFAULT_BATCH_CHARS = 24000
LEDGER = "llm-calls.json"

_AUTH = ("login", "log in", "auth method", "auth type", "logged in", "not authenticated", "authenticat", "invalid api key", "api key",
         "unauthorized", "401", "credentials", "oauth")
_LIMIT = ("usage limit", "rate limit", "rate_limit", "limit reached", "quota", "429", "too many requests",
          "resource_exhausted", "resource exhausted", "overloaded", "try again later", "limit will reset")


class AgentUnavailable(ProviderError):
    """The agent's CLI cannot serve this run: ``kind`` is missing, logged-out, limited, budget,
    timeout or failed. The harvest reads the rest of the run offline and says so in one line."""

    def __init__(self, message: str, kind: str) -> None:
        super().__init__(message)
        self.kind = kind


def is_child(env: Mapping[str, str] | None = None) -> bool:
    """Whether this process runs inside a call Aida made to an agent's CLI."""
    return bool((os.environ if env is None else env).get(CHILD_ENV))


def data_dir(env: Mapping[str, str] | None = None) -> Path:
    env = os.environ if env is None else env
    if env.get("AIDA_STATE_DIR"):
        return Path(env["AIDA_STATE_DIR"])
    from platformdirs import user_data_dir

    return Path(user_data_dir("aida", appauthor=False))


def scratch_dir(env: Mapping[str, str] | None = None) -> Path:
    """The folder every agent call runs in (its sessions are never harvested)."""
    return data_dir(env) / "scratch"


# ------------------------------------------------------------------------------------------ budget


@dataclass
class Budget:
    """Calls per hour and per day, counted in a small file shared by every Aida process."""

    per_hour: int = DEFAULT_PER_HOUR
    per_day: int = DEFAULT_PER_DAY
    path: Path | None = None
    clock: Callable[[], float] = time.time

    def _load(self) -> list[float]:
        if self.path is None:
            return []
        try:
            data = jsonlib.loads(self.path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return []
        calls = data.get("calls") if isinstance(data, dict) else None
        return [float(c) for c in calls if isinstance(c, (int, float))] if isinstance(calls, list) else []

    def used(self) -> tuple[int, int]:
        now = self.clock()
        calls = self._load()
        return sum(1 for c in calls if now - c < 3600), sum(1 for c in calls if now - c < 86400)

    def check(self, provider: str) -> None:
        hour, day = self.used()
        if self.per_hour and hour >= self.per_hour:
            raise AgentUnavailable(
                f"The {provider} provider has made its {self.per_hour} calls this hour (llm.cli.calls_per_hour); "
                "the rest waits for the next hour.", "budget")
        if self.per_day and day >= self.per_day:
            raise AgentUnavailable(
                f"The {provider} provider has made its {self.per_day} calls today (llm.cli.calls_per_day); "
                "the rest waits for tomorrow.", "budget")

    def spend(self) -> None:
        if self.path is None:
            return
        from brain_core.store.fsutil import atomic_write_text

        now = self.clock()
        calls = [c for c in self._load() if now - c < 86400] + [now]
        self.path.parent.mkdir(parents=True, exist_ok=True)
        atomic_write_text(self.path, jsonlib.dumps({"calls": calls}) + "\n")


# ---------------------------------------------------------------------------------------- provider


@dataclass(frozen=True)
class AgentCLI:
    """One agent's CLI, run headless. ``name`` is ``claude-code``, ``codex`` or ``gemini-cli``."""

    name: str
    model: str = ""
    executable: str = ""
    timeout: float = DEFAULT_TIMEOUT
    scratch: Path | None = None
    budget: Budget | None = field(default=None, compare=False)
    batch_chars: int = DEFAULT_BATCH_CHARS  # transcripts batched into one call up to this size
    env: Mapping[str, str] | None = field(default=None, repr=False, compare=False)

    @property
    def exe(self) -> str:
        return self.executable or EXECUTABLE[self.name]

    def argv(self, system: str) -> list[str]:
        exe = shutil.which(self.exe, path=(self.env or os.environ).get("PATH")) or self.exe
        if self.name == "claude-code":
            argv = [exe, "-p", "--output-format", "json", "--tools", "", "--strict-mcp-config",
                    "--system-prompt", system]
            return argv + (["--model", self.model] if self.model else [])
        if self.name == "codex":
            argv = [exe, "exec", "--json", "--ephemeral", "--skip-git-repo-check", "--sandbox", "read-only",
                    "--color", "never"]
            return argv + (["--model", self.model] if self.model else []) + ["-"]
        argv = [exe, "-p", system, "--output-format", "json"]
        return argv + (["--model", self.model] if self.model else [])

    def stdin(self, system: str, user: str) -> str:
        # Codex has no system prompt of its own in exec mode: the instructions lead the prompt.
        return f"{system}\n\n{user}" if self.name == "codex" else user

    def complete(self, system: str, user: str, *, json: bool = False, max_tokens: int = 800) -> str:
        return self.complete_full(system, user, json=json, max_tokens=max_tokens).text

    def complete_full(self, system: str, user: str, *, json: bool = False, max_tokens: int = 800) -> Completion:
        system = system + (JSON_INSTRUCTION if json else "")
        if self.budget is not None:
            self.budget.check(self.name)
        scratch = self.scratch or scratch_dir(self.env)
        scratch.mkdir(parents=True, exist_ok=True)
        env = {**(os.environ if self.env is None else self.env), CHILD_ENV: "1"}
        if self.name == "claude-code":
            env.setdefault("CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC", "1")
        start = time.monotonic()
        try:
            proc = subprocess.run(self.argv(system), input=self.stdin(system, user), capture_output=True, text=True,
                                  encoding="utf-8", errors="replace", timeout=self.timeout, cwd=scratch, env=env)
        except FileNotFoundError:
            raise AgentUnavailable(
                f"The {self.name} provider needs `{self.exe}` on PATH, and it is not there; install it or "
                "choose another llm.provider.", "missing") from None
        except subprocess.TimeoutExpired:
            if self.budget is not None:
                self.budget.spend()
            raise AgentUnavailable(
                f"`{self.exe}` did not answer within {self.timeout:g}s; raise llm.cli.timeout or try later.",
                "timeout") from None
        except OSError as e:
            raise AgentUnavailable(f"`{self.exe}` could not be started ({e.__class__.__name__}: {e}).", "missing") from None
        if self.budget is not None:
            self.budget.spend()
        elapsed = time.monotonic() - start
        text, model, tokens_in, tokens_out, error = PARSERS[self.name](proc.stdout)
        if error is None and proc.returncode != 0:
            error = _last_line(proc.stderr) or _last_line(proc.stdout) or f"exit status {proc.returncode}"
        if error is None and text is None:
            error = _last_line(proc.stderr) or "an answer without text"
        if error is not None:
            raise unavailable(self.name, self.exe, error)
        assert text is not None  # no text was an error, raised above
        return Completion(text=strip_fences(text) if json else text.strip(), model=model or self.model or self.name,
                          input_tokens=tokens_in, output_tokens=tokens_out, elapsed_s=elapsed)


def unavailable(name: str, exe: str, error: str) -> AgentUnavailable:
    """The one sentence for a failed run, by what the CLI said."""
    low = error.lower()
    quoted = " ".join(error.split())[:160]
    if any(w in low for w in _LIMIT):
        return AgentUnavailable(f"`{exe}` is over its usage limit ({quoted}); Aida tries again on a later run.",
                                "limited")
    if any(w in low for w in _AUTH):
        return AgentUnavailable(f"`{exe}` is not logged in ({quoted}); run `{exe}` once and log in.", "logged-out")
    return AgentUnavailable(f"`{exe}` failed ({quoted}).", "failed")


def _last_line(text: str | None) -> str:
    lines = [ln.strip() for ln in (text or "").splitlines() if ln.strip()]
    return lines[-1][:300] if lines else ""


def _int(v: object) -> int | None:
    return v if isinstance(v, int) and not isinstance(v, bool) else None


Parsed = tuple[str | None, str | None, int | None, int | None, str | None]  # text, model, in, out, error


def parse_claude(stdout: str) -> Parsed:
    """``claude -p --output-format json``: one result object (the last line when several)."""
    obj = _last_json(stdout)
    if obj is None:
        return None, None, None, None, _last_line(stdout) or None
    usage = obj.get("usage")
    usage = usage if isinstance(usage, dict) else {}
    model = None
    if isinstance(obj.get("modelUsage"), dict) and obj["modelUsage"]:
        model = next(iter(obj["modelUsage"]))
    result = obj.get("result")
    if obj.get("is_error") or (obj.get("subtype") not in (None, "success")):
        return None, model, None, None, str(result or obj.get("subtype") or "an error")
    return (result if isinstance(result, str) else None), model, _int(usage.get("input_tokens")), \
        _int(usage.get("output_tokens")), None


def parse_codex(stdout: str) -> Parsed:
    """``codex exec --json``: JSON lines; the last agent message, the turn's usage, or its error."""
    text, tokens_in, tokens_out, error = None, None, None, None
    for line in stdout.splitlines():
        line = line.strip()
        if not line.startswith("{"):
            continue
        try:
            ev = jsonlib.loads(line)
        except ValueError:
            continue
        kind = ev.get("type")
        if kind == "item.completed" and isinstance(ev.get("item"), dict):
            item = ev["item"]
            if item.get("type") in ("agent_message", "assistant_message") and isinstance(item.get("text"), str):
                text = item["text"]
        elif kind == "turn.completed" and isinstance(ev.get("usage"), dict):
            tokens_in = (tokens_in or 0) + (_int(ev["usage"].get("input_tokens")) or 0)
            tokens_out = (tokens_out or 0) + (_int(ev["usage"].get("output_tokens")) or 0)
        elif kind == "turn.failed":
            err = ev.get("error")
            error = str(err.get("message") if isinstance(err, dict) else err or "the turn failed")
        elif kind == "error":
            error = str(ev.get("message") or "an error")
    if text is not None and error is not None and tokens_out is not None:
        error = None  # a retried stream error the turn recovered from
    return text, None, tokens_in, tokens_out, error


def parse_gemini(stdout: str) -> Parsed:
    """``gemini -p --output-format json``: ``{response, stats, error?}``."""
    obj = _last_json(stdout)
    if obj is None:
        return None, None, None, None, _last_line(stdout) or None
    err = obj.get("error")
    if err:
        return None, None, None, None, str(err.get("message") if isinstance(err, dict) else err)
    model, tokens_in, tokens_out = None, None, None
    stats = obj.get("stats")
    stats = stats if isinstance(stats, dict) else {}
    models = stats.get("models")
    models = models if isinstance(models, dict) else {}
    for name, m in models.items():
        tokens = m.get("tokens") if isinstance(m, dict) else None
        tokens = tokens if isinstance(tokens, dict) else {}
        model = model or name
        tokens_in = (tokens_in or 0) + (_int(tokens.get("prompt")) or 0)
        tokens_out = (tokens_out or 0) + (_int(tokens.get("candidates")) or 0)
    response = obj.get("response")
    return (response if isinstance(response, str) else None), model, tokens_in, tokens_out, None


def _last_json(stdout: str) -> dict | None:
    text = (stdout or "").strip()
    if not text:
        return None
    try:
        obj = jsonlib.loads(text)
        return obj if isinstance(obj, dict) else None
    except ValueError:
        pass
    for line in reversed(text.splitlines()):
        line = line.strip()
        if line.startswith("{"):
            try:
                obj = jsonlib.loads(line)
            except ValueError:
                continue
            if isinstance(obj, dict):
                return obj
    return None


PARSERS: dict[str, Callable[[str], Parsed]] = {"claude-code": parse_claude, "codex": parse_codex,
                                               "gemini-cli": parse_gemini}


# ------------------------------------------------------------------------------------------ detect


def logged_in(name: str, env: Mapping[str, str] | None = None, home: Path | None = None) -> bool:
    """Whether the agent's CLI is installed and holds a login, judged from its files (no call)."""
    env = os.environ if env is None else env
    if not shutil.which(EXECUTABLE[name], path=env.get("PATH")):
        return False
    home = Path(home or env.get("HOME") or Path.home())
    if name == "claude-code":
        if env.get("ANTHROPIC_API_KEY") or env.get("CLAUDE_CODE_OAUTH_TOKEN"):
            return True
        claude_home = Path(env.get("CLAUDE_CONFIG_DIR") or home / ".claude")
        if (claude_home / ".credentials.json").is_file():
            return True
        try:  # macOS keeps the token in the keychain; the account shows in ~/.claude.json
            return "oauthAccount" in (home / ".claude.json").read_text(encoding="utf-8", errors="replace")
        except OSError:
            return False
    if name == "codex":
        codex_home = Path(env.get("CODEX_HOME") or home / ".codex")
        return (codex_home / "auth.json").is_file() or bool(env.get("OPENAI_API_KEY") or env.get("CODEX_API_KEY"))
    gemini_home = Path(env.get("GEMINI_CLI_HOME") or home) / ".gemini"
    return ((gemini_home / "oauth_creds.json").is_file() or bool(env.get("GEMINI_API_KEY") or env.get("GOOGLE_API_KEY"))
            or bool(env.get("GOOGLE_GENAI_USE_VERTEXAI")))


def first_logged_in(env: Mapping[str, str] | None = None) -> str | None:
    return next((name for name in AGENTS if logged_in(name, env)), None)


def from_config(name: str, config: Any, env: Mapping[str, str] | None = None) -> AgentCLI:
    from brain_core.llm.factory import setting

    def number(key: str, default: float) -> float:
        try:
            return max(0.0, float(setting(config, key, default)))
        except (TypeError, ValueError):
            return default

    budget = Budget(per_hour=int(number("llm.cli.calls_per_hour", DEFAULT_PER_HOUR)),
                    per_day=int(number("llm.cli.calls_per_day", DEFAULT_PER_DAY)),
                    path=data_dir(env) / LEDGER)
    model = str(setting(config, "llm.model", "") or DEFAULT_MODEL[name])
    return AgentCLI(name=name, model=model, executable=str(setting(config, "llm.cli.executable", "") or ""),
                    timeout=number("llm.cli.timeout", DEFAULT_TIMEOUT), scratch=scratch_dir(env), budget=budget,
                    batch_chars=int(number("llm.cli.batch_chars", DEFAULT_BATCH_CHARS)), env=env)


# ------------------------------------------------------------------------------------------ status

STATUS = "provider-status.json"


def record_status(provider: str, problem: str | None, *, kind: str = "ok", env: Mapping[str, str] | None = None) -> None:
    """What the last harvest met with its provider, for ``aida doctor`` and the tray (best effort)."""
    from brain_core.store.fsutil import atomic_write_text

    path = data_dir(env) / STATUS
    data = {"provider": provider, "kind": kind if problem else "ok", "problem": problem,
            "at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())}
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        atomic_write_text(path, jsonlib.dumps(data) + "\n")
    except OSError:
        pass


def last_status(env: Mapping[str, str] | None = None) -> dict | None:
    try:
        data = jsonlib.loads((data_dir(env) / STATUS).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) else None
