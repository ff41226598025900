"""What harvesting through an agent's CLI costs: calls and tokens sent per session.

    python benchmarks/bench_providers.py [--provider claude-code|codex|gemini-cli] [--copies 3]

Places the real sessions under ../shared/fixtures/clients/real (read in place, copied only into a
temporary home) and the project's own fixtures in a fake home, ``--copies`` times each under new
session ids, all quiet. Then runs ``aida brain backfill`` as a user would, in its own process with
default settings except ``llm.provider``, once with the default batching (``llm.cli.batch_chars``
24000) and once with one session per call (0). The agent's CLI is the tests' fake executable
(tests/helpers/fake_agents.py, no network), which speaks the CLI's documented JSON and records what it
was sent: the figures are what Aida would send a real ``claude -p``. Tokens are the CLI's own
usage figure where it reports one, else the prompt's characters / 4.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
FIXTURES = ROOT / "tests" / "fixtures" / "clients"
REAL = ROOT.parent / "shared" / "fixtures" / "clients" / "real"


def sources() -> list[tuple[str, Path]]:
    out = [("claude", FIXTURES / "claude_code_session.jsonl"), ("codex", FIXTURES / "codex_rollout.jsonl"),
           ("gemini", FIXTURES / "gemini_chat.jsonl")]
    out += [("claude", p) for p in sorted((REAL / "claude_code").glob("*.jsonl"))]
    out += [("codex", p) for p in sorted((REAL / "codex").glob("*.jsonl"))]
    out += [("gemini", p) for p in sorted((REAL / "gemini").glob("*.json*")) if "session" in p.name or "chat" in p.name]
    return out


def build_home(home: Path, copies: int) -> int:
    n = 0
    old = time.time() - 86400
    for c in range(copies):
        for i, (tool, src) in enumerate(sources()):
            uid = f"{c:04x}{i:04x}-0000-4000-8000-{n:012x}"
            if tool == "claude":
                p = home / ".claude" / "projects" / f"-home-dev-project-{i}" / f"{uid}.jsonl"
            elif tool == "codex":
                p = home / ".codex" / "sessions" / "2026" / "10" / "01" / f"rollout-2026-10-01T10-00-00-{uid}.jsonl"
            else:
                p = home / ".gemini" / "tmp" / f"project-{i}" / "chats" / f"session-2026-10-01T10-00-{uid[:8]}.jsonl"
                (p.parent.parent / ".project_root").parent.mkdir(parents=True, exist_ok=True)
                (p.parent.parent / ".project_root").write_text(f"/home/dev/project-{i}\n")
            p.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy(src, p)
            if tool == "gemini":  # Gemini names a session by the id inside the file: a copy gets its own
                text = p.read_text(encoding="utf-8")
                old_id = json.loads(text.splitlines()[0]).get("sessionId", "")
                p.write_text(text.replace(old_id, uid) if old_id else text, encoding="utf-8")
            os.utime(p, (old + n, old + n))
            n += 1
    return n


def run(provider: str, batch_chars: int, copies: int) -> dict:
    from brain_core.llm.agent_cli import EXECUTABLE
    from tests.helpers.fake_agents import calls, install

    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        home = tmp / "home"
        n = build_home(home, copies)
        bin_dir = install(tmp / "bin", (EXECUTABLE[provider],))
        cfg = tmp / "config.yaml"
        cfg.write_text(f"llm:\n  provider: {provider}\n  cli:\n    batch_chars: {batch_chars}\n"
                       f"    calls_per_hour: 0\n    calls_per_day: 0\n")
        env = {**os.environ, "HOME": str(home), "AIDA_CONFIG": str(cfg), "AIDA_STATE_DIR": str(tmp / "state"),
               "PATH": f"{bin_dir}{os.pathsep}{os.environ.get('PATH', '')}", "PYTHONPATH": str(ROOT)}
        for var in ("CLAUDE_CONFIG_DIR", "CODEX_HOME", "GEMINI_CLI_HOME", "AIDA_CHILD"):
            env.pop(var, None)
        brain = tmp / "brain"
        py = sys.executable
        subprocess.run([py, "-m", "brain_core", "--brain", str(brain), "brain", "init"], env=env, check=True,
                       capture_output=True)
        start = time.perf_counter()
        out = subprocess.run([py, "-m", "brain_core", "--brain", str(brain), "brain", "backfill", "--json"], env=env,
                             check=True, capture_output=True, text=True)
        wall = time.perf_counter() - start
        progress = json.loads(out.stdout)
        made = calls(bin_dir)
        prompt_chars = [len(c["stdin"]) + sum(len(a) for a in c["argv"]) for c in made]
        tokens = [ch // 4 for ch in prompt_chars]  # the fake reports chars/4 as its usage, as we estimate
        return {"provider": provider, "batch_chars": batch_chars, "sessions": n, "read": progress["done"],
                "calls": len(made), "calls_per_session": len(made) / max(1, progress["done"]),
                "tokens_in": sum(tokens), "tokens_per_session": sum(tokens) / max(1, progress["done"]),
                "median_call_tokens": statistics.median(tokens) if tokens else 0,
                "max_call_tokens": max(tokens) if tokens else 0, "records": progress["records"],
                "offline": progress["offline"], "wall_s": wall, "child": all(c["child"] == "1" for c in made)}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--provider", default="claude-code", choices=("claude-code", "codex", "gemini-cli"))
    ap.add_argument("--copies", type=int, default=3)
    args = ap.parse_args()
    if not REAL.is_dir():
        print(f"note: {REAL} is absent; only the project's own fixtures are used")
    print(f"{len(sources())} distinct transcripts x {args.copies} copies, provider {args.provider} (fake CLI, no network)")
    print(f"{'batch_chars':>11} {'sessions':>8} {'calls':>6} {'calls/sess':>10} {'tokens in':>10} {'tok/session':>11} "
          f"{'median/call':>11} {'max/call':>9} {'records':>7} {'offline':>7} {'AIDA_CHILD':>10}")
    for batch in (24000, 0):
        r = run(args.provider, batch, args.copies)
        print(f"{r['batch_chars']:>11} {r['read']:>8} {r['calls']:>6} {r['calls_per_session']:>10.2f} "
              f"{r['tokens_in']:>10} {r['tokens_per_session']:>11.0f} {r['median_call_tokens']:>11.0f} "
              f"{r['max_call_tokens']:>9} {r['records']:>7} {r['offline']:>7} {str(r['child']):>10}")


if __name__ == "__main__":
    main()
