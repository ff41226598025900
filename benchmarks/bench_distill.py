"""The offline distiller on whole real sessions: precision and recall on the labelled set, eleven splits.

    .venv/bin/python benchmarks/bench_distill.py [--baseline REF] [-v]

Reads the 255 real sessions in tests/fixtures/real_sessions/ (Claude Code, Codex CLI, Gemini CLI; see
PROVENANCE.md there) through the path the offline sweep takes (parse, whole transcript, redact,
extractive distiller, redact again) and scores the records kept against the hand labels in
tests/fixtures/distill_labels.json (see tests/helpers/distill_labelled.py for the matching rule; precision is
strict: a kept record matching no labelled item is noise). Prints, per split (tune: the rules are
chosen on it; held_out: the other half of the first 46 sessions, whose figures were seen while the
first rules were written; fresh: 19 sessions labelled and committed before the distiller ever ran on
them, never used for tuning; unseen: 29 sessions from other repositories, collected and labelled blind
after the distiller was changed, scored once blind, then read for the rules that followed; blind2: 27
sessions from five more repositories, collected and labelled blind after those rules, scored once blind,
then read for more rules; blind3: 25 sessions (18 Claude Code, 7 Codex CLI) from five more, labelled
blind after those, scored once blind, then used only to choose between two sets of rules, never read;
blind4: 25 sessions (19 Claude Code, 6 Codex CLI) from five more, labelled blind once the offline records
were marked unchecked, scored once blind with no rule changed since, then its wrong person rules read;
blind5: 25 Claude Code sessions from five more repositories, labelled blind by another reader, scored
blind once, then its records read for one rule of the learned chooser, and since then one of the chooser's
training splits; blind6: 24 sessions (16 Claude Code, 8 Codex CLI) from two more repositories, labelled blind
by another reader once the agent's findings came from the learned chooser (benchmarks/train_selector.py,
then fitted on tune to blind4, now on tune to blind5), never fitted on, scored twice and its first-run records
read; blind7: 15 Codex CLI sessions from one more repository, labelled blind by another reader once the chooser
was refitted on tune to blind5, scored once; blind8: 20 Claude Code sessions from two more repositories, labelled
blind once the person's records were filtered anew, scored once, then read for one filter (a pasted log line or
error in the person's turn); its records are judged by readers too, benchmarks/bench_judged.py):
sessions, records kept, right, labelled items found, precision, recall, and the most records kept
from one session.

``--provider NAME`` scores the model path instead (the distiller a user with a model gets: an agent's CLI
or an API provider, with its default settings, one call per session).
``--replay FILE`` scores the model path on answers a model gave once (tests/fixtures/distill_model_answers.json:
the claude-code provider's exact prompt and text per session, and the answer), through the same checks after it.
``--baseline REF`` scores the distiller of a git revision too (e.g. ``main``), by running this
script from a temporary worktree of that revision with this checkout's labels and sessions.
Leave-one-project-out figures of the chooser of the agent's sentences: ``benchmarks/train_selector.py``.
``-v`` lists every record kept that matched nothing, and every labelled item missed, for the tune
half only (``--held-out-details`` adds the other ten splits: for reporting, never while tuning).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SPLITS = ("tune", "held_out", "fresh", "unseen", "blind2", "blind3", "blind4", "blind5", "blind6", "blind7", "blind8")


def run(verbose: bool, tests_dir: Path, held_out_details: bool = False, splits=SPLITS, llm=None) -> dict:
    import brain_core  # noqa: F401  (first: with --json, the baseline's, from PYTHONPATH)
    sys.path.insert(0, str(tests_dir.parent))  # this checkout's labels and scorer (tests/helpers/)
    from tests.helpers.distill_labelled import harvest, load, score

    out = {}
    for split in splits:
        cases = load(split)
        for c in cases:
            if hasattr(llm, "case"):
                llm.case = (c.file, split)  # --record: which session a call is for
            c.kept = harvest(c, llm=llm)
        sc = score(cases)
        out[split] = {"sessions": sc.sessions, "kept": sc.kept, "right": sc.right, "labelled": sc.labelled,
                      "found": sc.found, "precision": sc.precision, "recall": sc.recall,
                      "most_per_session": sc.most_per_session}
        if verbose and (split == "tune" or held_out_details):
            for f, body in sc.noise:
                print(f"  noise  [{split}] {f[:44]}: {body[:160]!r}")
            for f, item in sc.missed:
                print(f"  missed [{split}] {f[:44]}: {item}")
    return out


def show(label: str, res: dict) -> None:
    for split, r in res.items():
        p = "-" if r["precision"] is None else f"{r['precision']:.2f}"
        rc = "-" if r["recall"] is None else f"{r['recall']:.2f}"
        print(f"{label:<14} {split:<9} sessions {r['sessions']:>2}  kept {r['kept']:>3}  right {r['right']:>3}  "
              f"found {r['found']:>3}/{r['labelled']:<3} precision {p:>4}  recall {rc:>4}  "
              f"max/session {r['most_per_session']}")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--baseline", help="a git revision whose distiller to score as well (e.g. main)")
    ap.add_argument("-v", "--verbose", action="store_true")
    ap.add_argument("--held-out-details", action="store_true",
                    help="with -v, list the held_out, fresh and unseen splits' noise and misses too (not while tuning)")
    ap.add_argument("--split", choices=SPLITS, action="append",
                    help="score only this split (repeatable); while tuning, --split tune")
    ap.add_argument("--provider", metavar="NAME",
                    help="score the model path instead: an llm.provider (claude-code, codex, gemini-cli, auto, openai, "
                         "...) with its default settings; one call per session, on the provider's usage")
    ap.add_argument("--replay", metavar="FILE", help="score the model path on recorded answers (see the doc above)")
    ap.add_argument("--record", metavar="FILE", help="with --provider, keep what the model answered, for --replay")
    ap.add_argument("--json", action="store_true", help=argparse.SUPPRESS)  # used for --baseline
    ap.add_argument("--tests", default=str(ROOT / "tests"), help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.json:  # brain_core comes from PYTHONPATH (the baseline's worktree)
        print(json.dumps(run(False, Path(args.tests))))
        return
    if args.baseline:
        with tempfile.TemporaryDirectory() as tmp:
            wt = Path(tmp) / "base"
            subprocess.run(["git", "-C", str(ROOT), "worktree", "add", "--detach", "-q", str(wt), args.baseline], check=True)
            try:
                env = {**os.environ, "PYTHONPATH": str(wt)}
                cmd = [sys.executable, str(Path(__file__)), "--json", "--tests", str(ROOT / "tests")]
                # The baseline's own package, this checkout's labels and scorer.
                res = subprocess.run(cmd, env=env, cwd=wt, capture_output=True, text=True, check=True)
                base = json.loads(res.stdout.strip().splitlines()[-1])
            finally:
                subprocess.run(["git", "-C", str(ROOT), "worktree", "remove", "--force", str(wt)], check=False)
        show(f"before ({args.baseline})", base)
    sys.path.insert(0, str(ROOT))
    llm = None
    if args.provider:
        from brain_core.llm import make_provider

        # an agent CLI's call budget (llm.cli.calls_per_hour, 30) would stop the run part-way: one call a session
        llm = make_provider({"llm": {"provider": args.provider, "cli": {"calls_per_hour": 1000, "calls_per_day": 1000}}})
        if llm is None:
            sys.exit(f"--provider {args.provider} gives no model on this machine (none found, or none configured).")
    splits = tuple(args.split or SPLITS)
    if args.replay:
        from tests.helpers.distill_labelled import Replay

        llm = Replay(Path(args.replay))
        splits = tuple(s for s in splits if s in llm.splits)
    if args.record:
        if llm is None or args.replay:
            sys.exit("--record needs --provider (a model to record).")
        from tests.helpers.distill_labelled import Recording

        llm = Recording(llm)
    res = run(args.verbose, ROOT / "tests", args.held_out_details, splits, llm=llm)
    show("after" if llm is None else f"model {llm.name}", res)
    if args.record:
        record(Path(args.record), llm)
    if args.replay:
        print(f"replayed {llm.used} recorded answers ({llm.missing} sessions had none: read with no records)"
              + ("; the prompt has changed since they were recorded" if llm.stale else ""))


def record(path: Path, llm) -> None:
    """Write the calls ``llm`` (a Recording) saw, one per session, in --replay's format."""
    from tests.helpers.distill_labelled import sha

    systems = {sha(system) for _, _, system, _, _ in llm.calls}
    out = {"about": f"Answers {llm.name} gave to the distilling call, one per session, recorded by "
                    "benchmarks/bench_distill.py --record.",
           "system_sha": systems.pop() if len(systems) == 1 else "",
           "answers": [{"file": f, "split": sp, "sent_sha": sha(user), "answer": answer.strip()}
                       for f, sp, _, user, answer in llm.calls]}
    path.write_text(json.dumps(out, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    print(f"recorded {len(out['answers'])} answers to {path}")

if __name__ == "__main__":
    main()
