"""Leave-one-project-out cross-validation of the offline distiller's choices, on the development splits.

    .venv/bin/python benchmarks/distill_cv.py [-v]

The distiller's rules were written while reading the tune, held_out and fresh sessions (65 in all), and
later the unseen and blind2 ones (29 and 27 more, from eight more repositories, each read once its blind
figures were reported), so their own figures flatter it. This script estimates how it does on a project it has never seen: the
sessions are grouped by project (the file-name prefix: the marot/spotter sessions, the claude-reliability
snapshots, M-Claude, codemie-code, claude-code-archiver, the one Codex CLI session, M-Gemini, session-share, the three tonyandrewmeyer repositories and blind2's five), and for each project
in turn the variant of the distiller (a setting of its knobs: the caps per session, the thresholds, and
each later rule switched on or off; see VARIANTS) that does best on the other projects is chosen and
scored on the project left out. "Best" is the highest recall among variants whose precision on the other
projects is at least 0.8, else the highest precision. Prints, per project held out, the variant chosen
and its figures there, then the pooled held-out figures (the cross-validated estimate), and the figures
of the default settings per project. The 'blind3' split is never read here.
"""

from __future__ import annotations

import argparse
import itertools
import re
import sys
from contextlib import contextmanager
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from brain_core.harvest import distill, findings  # noqa: E402
from tests.helpers.distill_labelled import harvest, load, score  # noqa: E402

DEV = ("tune", "held_out", "fresh", "unseen", "blind2")
NEVER = re.compile(r"(?!x)x")
GOAL_PRECISION = 0.8


def project(file: str) -> str:
    if file.startswith("claude-2.1.14-drmaciver"):
        return "drmaciver"
    if file.startswith("claude-"):
        return "spotter"
    if file.startswith("tonyandrewmeyer-"):
        return "-".join(file.split("-")[:2])  # charming-with-claude, sungather-k8s-operator, mcp-server-operator
    return file.split("-")[0]


# Each knob: name -> list of (label, {module attribute: value}). The first value of each is the default
# of the code as it stands; a rule "off" is its pattern replaced by one that never matches.
def knobs() -> dict[str, list[tuple[str, dict]]]:
    out: dict[str, list[tuple[str, dict]]] = {
        "max_findings": [(str(v), {(distill, "MAX_FINDINGS"): v}) for v in (distill.MAX_FINDINGS, 3)],
        "max_rules": [(str(v), {(distill, "MAX_RULES"): v}) for v in (distill.MAX_RULES, 2)],
        "threshold": [(str(v), {(distill, "FINDING_THRESHOLD"): v})
                      for v in (distill.FINDING_THRESHOLD, 3.0)],
    }
    for name in getattr(findings, "TOGGLES", ()):
        out[name] = [("on", {}), ("off", {(findings, name): NEVER})]
    return out


@contextmanager
def applied(setting: dict):
    old = {k: getattr(k[0], k[1]) for k in setting}
    try:
        for (mod, attr), v in setting.items():
            setattr(mod, attr, v)
        yield
    finally:
        for (mod, attr), v in old.items():
            setattr(mod, attr, v)


def run_all(cases, setting):
    with applied(setting):
        for c in cases:
            c.kept = harvest(c)
    return {c.file: list(c.kept) for c in cases}


def figures(cases, kept_by_file, files):
    sub = [c for c in cases if c.file in files]
    for c in sub:
        c.kept = kept_by_file[c.file]
    return score(sub)


def objective(sc) -> float:
    p, r = sc.precision or 0.0, sc.recall or 0.0
    return r if p >= GOAL_PRECISION and sc.kept else p - 1.0


def fmt(sc) -> str:
    p = "-" if sc.precision is None else f"{sc.precision:.2f}"
    r = "-" if sc.recall is None else f"{sc.recall:.2f}"
    return f"kept {sc.kept:>3}  right {sc.right:>3}  found {sc.found:>3}/{sc.labelled:<3} precision {p:>4}  recall {r:>4}"


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("-v", "--verbose", action="store_true", help="print every variant's pooled figures")
    ap.add_argument("--defaults-only", action="store_true", help="score only the default settings per project")
    args = ap.parse_args()
    cases = [c for s in DEV for c in load(s)]
    groups: dict[str, set[str]] = {}
    for c in cases:
        groups.setdefault(project(c.file), set()).add(c.file)
    ks = knobs()
    names = list(ks)
    combos = [dict(zip(names, pick)) for pick in itertools.product(*(ks[n] for n in names))]
    if args.defaults_only:
        combos = combos[:1]
    results = []
    for combo in combos:
        setting = {k: v for _, d in combo.values() for k, v in d.items()}
        label = " ".join(f"{n}={lab}" for n, (lab, _) in combo.items())
        results.append((label, run_all(cases, setting)))
        if args.verbose:
            print(f"  {label:<60} {fmt(figures(cases, results[-1][1], {c.file for c in cases}))}")
    default_label, default = results[0]
    print(f"default: {default_label}")
    for proj, files in sorted(groups.items()):
        print(f"  {proj:<10} sessions {len(files):>2}  {fmt(figures(cases, default, files))}")
    print(f"  {'all':<10} sessions {len(cases):>2}  {fmt(figures(cases, default, {c.file for c in cases}))}")
    if len(results) == 1:
        return
    print("each later rule switched off alone (the rest at their defaults), all projects:")
    for name in getattr(findings, "TOGGLES", ()):
        off = run_all(cases, {(findings, name): NEVER})
        per = "  ".join(f"{p} {figures(cases, off, fs).right - figures(cases, default, fs).right:+d}/"
                        f"{figures(cases, off, fs).kept - figures(cases, default, fs).kept:+d}"
                        for p, fs in sorted(groups.items()))
        print(f"  {name:<14} {fmt(figures(cases, off, {c.file for c in cases}))}   right/kept change per project: {per}")
    print("leave one project out (variant chosen on the others, scored on the one left out):")
    pooled: dict[str, list] = {}
    for proj, files in sorted(groups.items()):
        rest = {c.file for c in cases} - files
        best = max(results, key=lambda r: objective(figures(cases, r[1], rest)))
        pooled.update({f: best[1][f] for f in files})
        print(f"  {proj:<10} {fmt(figures(cases, best[1], files))}   chosen: {best[0]}")
    print(f"  {'pooled':<10} {fmt(figures(cases, pooled, {c.file for c in cases}))}")


if __name__ == "__main__":
    main()
