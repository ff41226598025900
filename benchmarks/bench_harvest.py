"""Harvest throughput with the extractive distiller: sessions per second.

    .venv/bin/python benchmarks/bench_harvest.py [--sessions 60] [--rounds 5] [--no-sweep]

Builds ``--sessions`` transcripts per agent (Claude Code, Codex, Gemini) from the test fixtures,
each with its own id and its own decision sentence, in a temporary home. Prints:
- the pipeline alone (parse -> trim -> redact -> distill), median over ``--rounds``;
- a full sweep into a fresh brain (records written, catalog updated, git commits, watermarks),
  once, which includes loading the embedding model on first write.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from brain_core.harvest.distill import distill  # noqa: E402
from brain_core.harvest.sources import get  # noqa: E402
from brain_core.harvest.trim import trim  # noqa: E402
from brain_core.redact import redact  # noqa: E402

FIX = ROOT / "tests" / "fixtures" / "clients"
TOPICS = ["webhook retries", "the ledger client", "staging deploys", "database migrations", "log retention",
          "feature flags", "the billing cron", "API pagination", "error reporting", "the release train"]
DECISION = "Go with exponential backoff, capped at six attempts total"


def build(home: Path, n: int) -> dict[str, Path]:
    claude_text = (FIX / "claude_code_session.jsonl").read_text()
    codex_text = (FIX / "codex_rollout.jsonl").read_text()
    gemini_text = (FIX / "gemini_chat.jsonl").read_text()
    cdir = home / ".claude" / "projects" / "-home-dev-acme-billing"
    xdir = home / ".codex" / "sessions" / "2026" / "08" / "20"
    gdir = home / ".gemini" / "tmp" / "acme-billing" / "chats"
    for d in (cdir, xdir, gdir):
        d.mkdir(parents=True, exist_ok=True)
    for i in range(n):
        topic = TOPICS[i % len(TOPICS)]
        decision = f"For {topic} (case {i}), we decided to go with option {i % 3 + 1} because it failed least in staging"
        cid = f"7f3c2a9e-4b1d-4c8e-9a2f-{i:012d}"
        (cdir / f"{cid}.jsonl").write_text(claude_text.replace(DECISION, decision))
        xid = f"019ec8a2-5b3d-7e41-9c2a-{i:012d}"
        (xdir / f"rollout-2026-08-20T16-02-11-{xid}.jsonl").write_text(
            codex_text.replace(DECISION, decision).replace("019ec8a2-5b3d-7e41-9c2a-3f4d5e6a7b8c", xid))
        gid = f"5e1d9c3a-7b2f-4e86-a1d4-{i:012d}"
        (gdir / f"session-2026-08-20T14-02-{i:08d}.jsonl").write_text(
            gemini_text.replace(DECISION, decision).replace("5e1d9c3a-7b2f-4e86-a1d4-0c9b8a7f6e5d", gid))
    old = time.time() - 3600
    for p in home.rglob("*.json*"):
        os.utime(p, (old, old))
    return {"claude": home / ".claude", "codex": home / ".codex", "gemini": home / ".gemini"}


def pipeline(roots: dict[str, Path]) -> tuple[int, int]:
    sessions = records = 0
    for tool, root in roots.items():
        src = get(tool, root)
        for sf in src.files():
            s = src.parse(sf.path)
            text = redact(trim(s.transcript())).text
            records += len(distill(text, profile=tool, source=s.source, context={"project": s.project}))
            sessions += 1
    return sessions, records


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sessions", type=int, default=60, help="sessions per agent")
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--no-sweep", action="store_true", help="skip the full sweep into a brain")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        os.environ["AIDA_CONFIG"] = str(tmp / "config.yaml")
        roots = build(tmp / "home", args.sessions)
        times = []
        for _ in range(args.rounds):
            t0 = time.perf_counter()
            n, recs = pipeline(roots)
            times.append(time.perf_counter() - t0)
        med = statistics.median(times)
        print(f"pipeline (parse, trim, redact, extractive distill): {n / med:.0f} sessions/s "
              f"(median of {args.rounds}; {n} sessions, {recs} records proposed, {med * 1000 / n:.2f} ms each)")
        if args.no_sweep:
            return 0
        from brain_core import Brain
        from brain_core.harvest.run import sweep

        brain = Brain.init(tmp / "brain")
        t0 = time.perf_counter()
        result = sweep(brain, roots=roots, include_mirror=False)
        elapsed = time.perf_counter() - t0
        done = sum(1 for o in result.outcomes if o.error is None)
        print(f"full sweep into a fresh brain: {done / elapsed:.1f} sessions/s ({done} sessions, "
              f"{result.written} records written, {elapsed:.1f} s incl. model load; one commit per agent)")
        t0 = time.perf_counter()
        again = sweep(brain, roots=roots, include_mirror=False)
        print(f"second sweep, nothing due: {time.perf_counter() - t0:.2f} s for {sum(again.skipped.values())} sessions "
              f"({json.dumps(again.skipped)})")
        brain.close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
