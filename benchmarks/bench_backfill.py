"""The first-run backfill: sessions/s and peak memory over a heavy user's history.

    python benchmarks/bench_backfill.py [--sessions 500]

Builds a fake home with ``--sessions`` transcripts of realistic sizes: copies of the project's
Claude Code, Codex and Gemini fixtures and, when ../shared is there, the real sessions under
shared/fixtures/clients/real (read in place, copied only into the temporary home), each copy
under its own session id and modification time, some grown to several hundred KB by repeating
their turns (long sessions are common). Then runs ``aida brain backfill`` as a user would
(its own process, default settings: offline distiller, batches of 8, low priority) into a fresh
brain, and reports sessions/s, MB/s, records kept and the process's peak RSS (ru_maxrss).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "tests" / "fixtures" / "clients"
REAL = ROOT.parent / "shared" / "fixtures" / "clients" / "real"


def build_home(home: Path, n: int, seed: int = 11) -> tuple[int, int]:
    rnd = random.Random(seed)
    claude_src = [FIXTURES / "claude_code_session.jsonl"] + sorted((REAL / "claude_code").glob("*.jsonl"))
    codex_src = [FIXTURES / "codex_rollout.jsonl"] + sorted((REAL / "codex").glob("*.jsonl"))
    gemini_src = [FIXTURES / "gemini_chat.jsonl"]
    total = 0
    for i in range(n):
        kind = ("claude", "claude", "codex", "gemini")[i % 4]
        src = rnd.choice({"claude": claude_src, "codex": codex_src, "gemini": gemini_src}[kind])
        lines = src.read_text(encoding="utf-8", errors="replace").splitlines(keepends=True)
        if rnd.random() < 0.2 and len(lines) > 4:  # a long session: its middle turns again and again
            head, mid, tail = lines[:2], lines[2:-1], lines[-1:]
            lines = head + mid * rnd.randint(5, 40) + tail
        uid = f"{i:08x}-0000-4000-8000-{rnd.getrandbits(48):012x}"
        if kind == "claude":
            p = home / ".claude" / "projects" / f"-home-dev-project-{i % 12}" / f"{uid}.jsonl"
        elif kind == "codex":
            p = home / ".codex" / "sessions" / "2026" / "10" / f"{1 + i % 28:02d}" / f"rollout-2026-10-01T10-00-00-{uid}.jsonl"
        else:
            p = home / ".gemini" / "tmp" / f"project-{i % 5}" / "chats" / f"session-2026-10-01T10-00-{uid[:8]}.jsonl"
        p.parent.mkdir(parents=True, exist_ok=True)
        text = "".join(lines)
        if kind == "gemini":  # Gemini names a session inside the file: each copy gets its own
            text = text.replace("5e1d9c3a-7b2f-4e86-a1d4-0c9b8a7f6e5d", uid)
        p.write_text(text, encoding="utf-8")
        ts = 1.75e9 + i * 600
        os.utime(p, (ts, ts))
        total += p.stat().st_size
    return n, total


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sessions", type=int, default=500)
    args = ap.parse_args()
    work = Path(tempfile.mkdtemp(prefix="aida-backfill-"))
    try:
        home = work / "home"
        n, size = build_home(home, args.sessions)
        env = {**os.environ, "HOME": str(home), "AIDA_CONFIG": str(work / "config.yaml"),
               "PYTHONPATH": str(ROOT), "AIDA_STATE_DIR": str(work / "state")}
        for var in ("CLAUDE_CONFIG_DIR", "CODEX_HOME", "GEMINI_CLI_HOME", "AIDA_BRAIN"):
            env.pop(var, None)
        brain = work / "brain"
        subprocess.run([sys.executable, "-m", "brain_core", "--brain", str(brain), "brain", "init"], env=env,
                       check=True, capture_output=True)
        probe = ("import json, resource, subprocess, sys, time; t = time.perf_counter(); "
                 "p = subprocess.run(sys.argv[1:], capture_output=True, text=True); "
                 "print(json.dumps({'rc': p.returncode, 'seconds': time.perf_counter() - t, "
                 "'out': p.stdout[-4000:], 'err': p.stderr[-2000:], "
                 "'peak_rss_kib': resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss}))")
        run = subprocess.run([sys.executable, "-c", probe, sys.executable, "-m", "brain_core", "--brain", str(brain),
                              "brain", "backfill", "--json"], env=env, capture_output=True, text=True, check=True)
        r = json.loads(run.stdout)
        if r["rc"] != 0:
            print(f"backfill failed: {r['err']}")
            return 1
        p = json.loads(r["out"])
        print(f"bench_backfill: {n} sessions, {size / 1e6:.1f} MB of transcripts, {os.cpu_count()} CPUs "
              f"(load average {os.getloadavg()[0]:.1f})")
        print(f"  done {p['done']}/{p['total']} in {r['seconds']:.1f} s: {p['done'] / r['seconds']:.1f} sessions/s, "
              f"{size / 1e6 / r['seconds']:.2f} MB/s; {p['records']} records kept, {p['errors']} failed")
        print(f"  peak RSS of the backfill process: {r['peak_rss_kib'] / 1024:.0f} MiB")
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
