"""p50 of ``ask`` with the offline provider on a brain of 10k records (route -> recall -> answer -> run record).

    .venv/bin/python benchmarks/bench_ask.py [--records 10000] [--questions 40] [--brain DIR]

``--brain DIR`` keeps the built brain there and reuses it on the next run (building 10k records
embeds every one of them, which takes minutes on a small machine).

The brain is built through the one write path, ``brain.remember_many`` in chunks of 500. Figures
(medians): a fresh ask (cache off), a repeat answer from the cache, a question the router keeps
out of the brain, and a fresh ask once lessons exist (the lesson lookup is a second recall).
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from synth import OBJECTS, PROFILES, SUBJECTS, TYPES, sentence  # noqa: E402


def build(root: Path, n: int):
    from brain_core import Brain

    brain = Brain.init(root)
    rng = random.Random(7)
    t = time.perf_counter()
    for start in range(0, n, 500):
        items = [dict(body=sentence(rng, i), key=f"r{i:06d}", profile=rng.choice(PROFILES), type=rng.choice(TYPES))
                 for i in range(start, min(n, start + 500))]
        brain.remember_many(items, message=f"benchmark: records {start}..{start + len(items) - 1}")
    return brain, time.perf_counter() - t


def timed(fn, xs, stages=None):
    out = []
    for x in xs:
        t = time.perf_counter()
        answer = fn(x)
        out.append((time.perf_counter() - t) * 1000)
        if stages is not None:
            for name, ms in answer.run["timings_ms"].items():
                stages.setdefault(name, []).append(ms)
    return statistics.median(out)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--records", type=int, default=10000)
    ap.add_argument("--questions", type=int, default=40)
    ap.add_argument("--brain", type=Path, help="build the brain here and reuse it next time (its lessons pile up)")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        os.environ["AIDA_CONFIG"] = str(Path(tmp) / "config.yaml")
        from brain_core import Brain
        from brain_core.answer.ask import ask
        from brain_core.answer.lessons import record_feedback

        root = args.brain or Path(tmp) / "brain"
        if (root / "memories").is_dir() and Brain.open(root).index.counts()["by_shelf"].get("memories", 0) >= args.records:
            brain = Brain.open(root)
            print(f"reusing the brain at {root}")
        else:
            brain, build_s = build(root, args.records)
            print(f"built {args.records} records with remember_many (chunks of 500) in {build_s:.1f} s "
                  f"({args.records / build_s:,.0f} records/s)")
        rng = random.Random(11)
        qs = [f"what did I say about how {rng.choice(SUBJECTS)} handles {rng.choice(OBJECTS)}"
              for _ in range(args.questions)]
        ask(brain, "what did I say about warming up", llm=None)  # loads the model and the router once

        brain.config.set("ask.cache", False)
        stages: dict[str, list[float]] = {}
        fresh = timed(lambda q: ask(brain, q, llm=None), qs, stages)
        brain.config.set("ask.cache", True)
        ask(brain, qs[0], llm=None)
        cached = timed(lambda q: ask(brain, q, llm=None), [qs[0]] * args.questions)
        plain = timed(lambda q: ask(brain, q, llm=None), ["how do I reverse a list in python"] * args.questions)

        for q in qs[:20]:
            record_feedback(brain, ask(brain, q, llm=None).run_id, rng.choice(["up", "down"]), why="bench lesson")
        brain.config.set("ask.cache", False)
        other = [f"remind me how {rng.choice(SUBJECTS)} deals with {rng.choice(OBJECTS)}" for _ in range(args.questions)]
        with_lessons = timed(lambda q: ask(brain, q, llm=None), other)
        brain.close()
        n_lessons = len(list((root / "lessons").glob("*.json")))

    print(f"ask p50, offline provider, {args.records} records, {args.questions} questions each:")
    print(f"  fresh ask (route + recall + extractive answer + run record): {fresh:.1f} ms")
    print(f"  repeat answer from the cache:                              {cached:.1f} ms")
    print(f"  plain question kept out of the brain by the router:        {plain:.1f} ms")
    print(f"  fresh ask with {n_lessons} lessons in the brain:                    {with_lessons:.1f} ms")
    print("  fresh ask by stage (ms, median): " + ", ".join(f"{k} {statistics.median(v):.1f}" for k, v in stages.items()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
