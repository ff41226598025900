"""Fake ``claude``, ``codex`` and ``gemini`` executables for tests: small Python scripts put on PATH
that speak each CLI's documented headless output and record what they received.

- ``claude -p --output-format json``: one result object (``result``, ``is_error``, ``usage``);
  a logged-out run answers ``is_error: true`` with "Invalid API key · Please run /login".
- ``codex exec --json``: JSON lines (``thread.started``, ``item.completed`` with an
  ``agent_message``, ``turn.completed`` with ``usage``; ``turn.failed`` on failure).
- ``gemini -p ... --output-format json``: ``{"response", "stats": {"models": {...}}}`` or
  ``{"error": {...}}``.

The fake "model" answers a distillation prompt with one fact per transcript, built from the first
thing the person said there, so a test can check which sessions reached it, and consolidate's
question whether pairs of records state one fact with "same" for every pair. Each run appends
``{argv, stdin, cwd, child}`` to ``<bin>/calls.jsonl``; ``<bin>/<exe>.mode`` (ok, logged-out,
limited, garbage) changes how the next runs answer. A Claude run also leaves a transcript of
itself in ``$CLAUDE_CONFIG_DIR/projects/<cwd as Claude names it>/``, as the real one does.
"""

from __future__ import annotations

import json
import os
import stat
import sys
from pathlib import Path

SCRIPT = r'''#!__PYTHON__
import json, os, re, sys, uuid
from pathlib import Path

BIN = Path(__file__).resolve().parent
EXE = "__EXE__"
argv = sys.argv[1:]
stdin = sys.stdin.read()
system = ""
if EXE == "claude" and "--system-prompt" in argv:
    system = argv[argv.index("--system-prompt") + 1]
if EXE == "gemini" and "-p" in argv:
    system = argv[argv.index("-p") + 1]
prompt = system + "\n\n" + stdin
with open(BIN / "calls.jsonl", "a", encoding="utf-8") as f:
    f.write(json.dumps({"exe": EXE, "argv": argv, "stdin": stdin, "cwd": os.getcwd(),
                        "child": os.environ.get("AIDA_CHILD")}) + "\n")
mode_file = BIN / (EXE + ".mode")
mode = mode_file.read_text().strip() if mode_file.exists() else "ok"


def fact(text):
    said = re.search(r"^\[user\] (.+)$", text, re.M)
    words = re.findall(r"[a-z0-9]+", (said.group(1) if said else "nothing said").lower())[:5] or ["nothing"]
    return {"type": "fact", "key": "-".join(words)[:60],
            "body": "The person opened the session with: " + (said.group(1)[:200] if said else "nothing") + "."}


if '"sessions"' in prompt and "=== S1 ===" in prompt:
    parts = re.split(r"^=== (S\d+) ===$", stdin, flags=re.M)
    answer = json.dumps({"sessions": {parts[i]: {"records": [fact(parts[i + 1])]} for i in range(1, len(parts), 2)}})
elif '"pairs"' in prompt and "Pair 1:" in stdin:  # consolidate's "same fact?": this model says yes to every pair
    answer = json.dumps({"pairs": [{"n": int(n), "same": True} for n in re.findall(r"^Pair (\d+):$", stdin, re.M)]})
elif '"records"' in prompt:
    answer = json.dumps({"records": [fact(stdin)]})
else:
    answer = "From your brain: an answer built from what it was given."
if mode == "garbage":
    answer = "Sure! Here is what I found."
tokens_in, tokens_out = len(prompt) // 4, len(answer) // 4

if EXE == "claude":
    home = Path(os.environ.get("CLAUDE_CONFIG_DIR") or Path.home() / ".claude")
    folder = home / "projects" / re.sub(r"[^A-Za-z0-9]", "-", os.getcwd())
    folder.mkdir(parents=True, exist_ok=True)
    sid = str(uuid.uuid4())
    (folder / (sid + ".jsonl")).write_text(json.dumps({"type": "user", "cwd": os.getcwd(), "sessionId": sid,
        "uuid": sid, "message": {"role": "user", "content": "We decided to always use tabs. " + stdin[:200]}}) + "\n")
    if mode == "logged-out":
        out = {"type": "result", "subtype": "success", "is_error": True, "result": "Invalid API key \u00b7 Please run /login",
               "session_id": sid, "usage": {"input_tokens": 0, "output_tokens": 0}}
        print(json.dumps(out)); sys.exit(1)
    if mode == "limited":
        out = {"type": "result", "subtype": "success", "is_error": True, "result": "Claude AI usage limit reached|1767225600",
               "session_id": sid}
        print(json.dumps(out)); sys.exit(1)
    print(json.dumps({"type": "result", "subtype": "success", "is_error": False, "duration_ms": 900, "num_turns": 1,
                      "result": answer, "session_id": sid, "total_cost_usd": 0.0004,
                      "usage": {"input_tokens": tokens_in, "output_tokens": tokens_out},
                      "modelUsage": {"claude-haiku-4-5": {"inputTokens": tokens_in, "outputTokens": tokens_out}}}))
elif EXE == "codex":
    print(json.dumps({"type": "thread.started", "thread_id": str(uuid.uuid4())}))
    print(json.dumps({"type": "turn.started"}))
    if mode == "logged-out":
        print(json.dumps({"type": "error", "message": "401 Unauthorized: Missing bearer or basic authentication in header"}))
        print(json.dumps({"type": "turn.failed", "error": {"message": "401 Unauthorized"}})); sys.exit(1)
    if mode == "limited":
        print(json.dumps({"type": "turn.failed", "error": {"message": "You've hit your usage limit. Try again later."}}))
        sys.exit(1)
    print(json.dumps({"type": "item.completed", "item": {"id": "item_0", "type": "reasoning", "text": "**Reading**"}}))
    print(json.dumps({"type": "item.completed", "item": {"id": "item_1", "type": "agent_message", "text": answer}}))
    print(json.dumps({"type": "turn.completed", "usage": {"input_tokens": tokens_in, "cached_input_tokens": 0,
                                                          "output_tokens": tokens_out}}))
else:
    if mode == "logged-out":
        print(json.dumps({"error": {"type": "Error", "message": "Please set an Auth method in your settings.json or "
                          "specify GEMINI_API_KEY", "code": 41}})); sys.exit(41)
    if mode == "limited":
        print(json.dumps({"error": {"type": "Error", "message": "Quota exceeded: RESOURCE_EXHAUSTED (429)", "code": 429}}))
        sys.exit(1)
    print(json.dumps({"response": answer, "stats": {"models": {"gemini-2.5-flash": {"tokens": {
        "prompt": tokens_in, "candidates": tokens_out, "total": tokens_in + tokens_out}}}}}))
'''


def install(bin_dir: Path, exes=("claude", "codex", "gemini")) -> Path:
    """Write the fakes into ``bin_dir``; returns it (put it first on PATH)."""
    bin_dir.mkdir(parents=True, exist_ok=True)
    for exe in exes:
        path = bin_dir / exe
        path.write_text(SCRIPT.replace("__PYTHON__", sys.executable).replace("__EXE__", exe), encoding="utf-8")
        path.chmod(path.stat().st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)
    return bin_dir


def calls(bin_dir: Path) -> list[dict]:
    log = bin_dir / "calls.jsonl"
    if not log.exists():
        return []
    return [json.loads(line) for line in log.read_text(encoding="utf-8").splitlines() if line.strip()]


def set_mode(bin_dir: Path, exe: str, mode: str) -> None:
    (bin_dir / f"{exe}.mode").write_text(mode + "\n", encoding="utf-8")


def on_path(monkeypatch, bin_dir: Path, *, keep_system: bool = True) -> None:
    """Put ``bin_dir`` first on PATH (the system folders stay, so ``git`` still works)."""
    rest = os.environ.get("PATH", "") if keep_system else ""
    monkeypatch.setenv("PATH", str(bin_dir) + (os.pathsep + rest if rest else ""))
