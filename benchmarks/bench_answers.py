"""Are answers right, and honest when the brain does not know? On the labelled set in
``answers_set.py`` (development and held-out halves), with the offline provider:

- answered right: answerable questions whose answer is strong and cites the right record first;
- abstained: unanswerable questions answered with "the closest I have" or "I have nothing";
- refused: answerable questions the router kept out of the brain (must be 0 offline);
- ask p50 at 10k records, offline (``--big DIR`` reuses a brain built by ``bench_ask.py --brain DIR``).

    .venv/bin/python benchmarks/bench_answers.py [--big DIR] [--calibrate] [--show] [--edges]

``--edges`` also scores the set of ``answers_edges.py`` (near misses, recency within a topic,
lessons, spoken questions): per category and half, right (the right record cited first), strong
(right, and with confidence "strong") and honest (no confident answer that is wrong or that the
brain cannot give).

``--calibrate`` searches the confidence thresholds on the development half only and prints the
best; ``--show`` prints every wrong answer.
"""

from __future__ import annotations

import argparse
import itertools
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from answers_set import DEV, HELD_OUT, HELD_OUT_2, HELD_OUT_3, RECORDS  # noqa: E402


def build_brain(root: Path, embedder=None):
    from brain_core import Brain

    brain = Brain.init(root, embedder=embedder) if embedder is not None else Brain.init(root)
    brain.remember_many([dict(body=body, key=key, type=type_, profile=profile, created=f"{created}T09:00:00Z",
                              source=source) for key, type_, profile, created, body, source in RECORDS],
                        message="labelled set")
    return brain


def score(brain, questions, show: bool = False) -> dict:
    """Answer every question offline; the rates of the docstring."""
    from brain_core.answer.ask import ask

    ids = {}
    for path, rec in brain.records():
        ids[rec.id] = rec.key
    right = wrong = abstained = answered_wrongly = refused = 0
    strong_wrong = [0]  # answerable, answered with confidence, but the wrong record first
    n_ans = sum(1 for _, k in questions if k)
    n_un = len(questions) - n_ans
    for q, key in questions:
        a = ask(brain, q, llm=None)
        first = ids.get(a.cited[0]) if a.cited else None
        if key:
            refused += not a.route.recall
            if a.confidence == "strong" and first == key:
                right += 1
            else:
                wrong += 1
                strong_wrong[0] += a.confidence == "strong"
                if show:
                    print(f"  MISSED  {q!r} want {key}, got {a.confidence} {first}\n     {a.text[:160]!r}")
        else:
            if a.confidence != "strong":
                abstained += 1
            else:
                answered_wrongly += 1
                if show:
                    print(f"  INVENTED {q!r} -> {first}\n     {a.text[:160]!r}")
    return {"answerable": n_ans, "unanswerable": n_un, "right": right / max(n_ans, 1),
            "abstain": abstained / max(n_un, 1), "refused": refused / max(n_ans, 1),
            "counts": (right, wrong, abstained, answered_wrongly, strong_wrong[0])}


def build_edges_brain(root: Path):
    """The edges brain. Gotchas (``lesson`` in the set) are written as the command line lets a user
    write them: ``--type lesson`` where it is accepted, else ``--type note``, as its refusal says."""
    from answers_edges import RECORDS as EDGES

    from brain_core import Brain

    try:
        from brain_core.cli.brain_cmds import LESSON_REFUSED
        gotcha = "note"
        print(f"  (aida brain remember --type lesson is refused: {LESSON_REFUSED} The gotchas are written as notes.)")
    except ImportError:
        gotcha = "lesson"
    brain = Brain.init(root)
    brain.remember_many([dict(body=body, key=key, type=gotcha if type_ == "lesson" else type_, profile=profile,
                              created=f"{created}T09:00:00Z", tags=tags)
                         for key, type_, profile, created, body, tags in EDGES], message="edges set")
    return brain


def score_edges(brain, questions, show: bool = False) -> dict[str, dict[str, int]]:
    """Per category: n, answerable, right, strong, honest (see the module docstring)."""
    from brain_core.answer.ask import ask

    ids = {rec.id: rec.key for _, rec in brain.records()}
    out: dict[str, dict[str, int]] = {}
    for q, key, cat in questions:
        a = ask(brain, q, llm=None)
        first = ids.get(a.cited[0]) if a.cited else None
        c = out.setdefault(cat, {"n": 0, "answerable": 0, "right": 0, "strong": 0, "honest": 0})
        c["n"] += 1
        ok = first == key if key else False
        if key:
            c["answerable"] += 1
            c["right"] += ok
            c["strong"] += ok and a.confidence == "strong"
        honest = a.confidence != "strong" or ok
        c["honest"] += honest
        if show and not (honest and (ok or not key) and (a.confidence == "strong" or not key)):
            print(f"    {cat:9s} {q!r} want {key}, got {a.confidence} {first}\n       {a.text[:200]!r}")
    return out


def edges(show: bool = False) -> None:
    from answers_edges import DEV as EDEV
    from answers_edges import HELD_OUT as EHELD
    from answers_edges import RECORDS as EDGES

    with tempfile.TemporaryDirectory() as tmp:
        brain = build_edges_brain(Path(tmp) / "brain")
        brain.config.set("ask.cache", False)
        print(f"edges set: {len(EDGES)} records; offline provider; right / strong of answerable, honest of all")
        for name, qs in (("development", EDEV), ("held-out", EHELD)):
            print(f"  {name}:")
            for cat, c in score_edges(brain, qs, show).items():
                ans = c["answerable"]
                rs = f"right {c['right']}/{ans}  strong {c['strong']}/{ans}" if ans else "right -    strong -  "
                print(f"    {cat:9s} {rs}  honest {c['honest']}/{c['n']}")
        brain.close()


def features(brain, questions) -> list[tuple]:
    """(question, expected key, [(key, cosine, coverage, agree, has_words)] in recall order)."""
    rows = []
    for q, key in questions:
        hits = brain.recall(q, k=5, touch=False)
        rows.append((q, key, [(h.record.key, h.evidence.cosine, h.evidence.coverage, h.evidence.agree,
                               bool(h.evidence.words)) for h in hits]))
    return rows


def calibrate(rows) -> None:
    from brain_core.recall import confidence as c

    grid = itertools.product([0.55, 0.58, 0.6, 0.62, 0.65, 0.68, 0.7], [0.3, 0.35, 0.4, 0.45, 0.5],
                             [0.45, 0.5, 0.55, 0.6, 0.65, 0.7, 0.75, 0.8])
    results = []
    for cs, cw, cov in grid:
        c.COSINE_STRONG, c.COSINE_WITH_WORDS, c.COVERAGE_STRONG = cs, cw, cov
        right = abstain = 0
        for q, key, hits in rows:
            strong = [k for k, cos, cv, ag, hw in hits if c.judge(cos, cv, ag, hw) == c.STRONG]
            if key:
                right += bool(strong) and strong[0] == key
            else:
                abstain += not strong
        na = sum(1 for r in rows if r[1])
        results.append((min(right / na, abstain / (len(rows) - na)), right / na, abstain / (len(rows) - na), cs, cw, cov))
    results.sort(reverse=True)
    print("best thresholds on the development half (min, right, abstain, cosine_strong, cosine_with_words, coverage):")
    for r in results[:8]:
        print("  " + "  ".join(f"{x:.3f}" for x in r))


def p50_at_scale(root: Path, n: int = 40) -> float:
    import random

    from synth import OBJECTS, SUBJECTS

    from brain_core import Brain
    from brain_core.answer.ask import ask

    brain = Brain.open(root)
    brain.config.set("ask.cache", False)
    rng = random.Random(5)
    qs = [f"what did I say about how {rng.choice(SUBJECTS)} handles {rng.choice(OBJECTS)}" for _ in range(n)]
    ask(brain, "warming up", llm=None)
    out = []
    for q in qs:
        t = time.perf_counter()
        ask(brain, q, llm=None)
        out.append((time.perf_counter() - t) * 1000)
    brain.close()
    return statistics.median(out)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--big", type=Path, help="a 10k-record brain (bench_ask.py --brain DIR builds one)")
    ap.add_argument("--calibrate", action="store_true")
    ap.add_argument("--show", action="store_true")
    ap.add_argument("--edges", action="store_true", help="also score answers_edges.py, per category")
    ap.add_argument("--edges-only", action="store_true", help="score answers_edges.py only")
    args = ap.parse_args()
    if args.edges or args.edges_only:
        edges(args.show)
        if args.edges_only:
            return 0
    with tempfile.TemporaryDirectory() as tmp:
        os.environ["AIDA_CONFIG"] = str(Path(tmp) / "config.yaml")
        brain = build_brain(Path(tmp) / "brain")
        brain.config.set("ask.cache", False)
        if args.calibrate:
            calibrate(features(brain, DEV))
        print(f"labelled set: {len(RECORDS)} records; offline provider")
        for name, qs in (("development", DEV), ("held-out", HELD_OUT), ("held-out 2", HELD_OUT_2),
                         ("held-out 3", HELD_OUT_3), ("held-out, all", HELD_OUT + HELD_OUT_2 + HELD_OUT_3)):
            if args.show:
                print(f"{name}:")
            s = score(brain, qs, show=args.show)
            right, wrong, abstained, invented, strong_wrong = s["counts"]
            answers = right + strong_wrong + invented  # answered with confidence
            abstentions = abstained + (wrong - strong_wrong)  # "closest" or "nothing"
            print(f"  {name:15s} answered right {s['right']:.1%} of {s['answerable']} answerable | "
                  f"abstained {s['abstain']:.1%} of {s['unanswerable']} unanswerable | "
                  f"refused {s['refused']:.1%} of answerable")
            print(f"  {'':15s} answering: precision {right / max(answers, 1):.1%}, recall {s['right']:.1%} | "
                  f"abstaining: precision {abstained / max(abstentions, 1):.1%}, recall {s['abstain']:.1%}")
        from brain_core.answer.ask import _gate
        from brain_core.answer.router import load_router

        router = load_router(None)
        qs = [q for q, key in DEV + HELD_OUT + HELD_OUT_2 + HELD_OUT_3 if key]
        through = sum(_gate(brain, q, router.decide(q), llm=object()).recall for q in qs)
        print(f"  with an LLM configured, {through / len(qs):.1%} of the {len(qs)} answerable questions reach the "
              "brain (patterns + word probe)")
        brain.close()
        if args.big:
            print(f"ask p50, offline, brain at {args.big}: {p50_at_scale(args.big):.1f} ms")
    return 0


if __name__ == "__main__":
    sys.exit(main())
