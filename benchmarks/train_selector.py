"""Fit the offline distiller's chooser of the agent's sentences (brain_core/harvest/selector.py).

    .venv/bin/python benchmarks/train_selector.py [--write] [--splits tune,held_out,...] [--labels reader|keyword]

Reads the labelled real sessions of the training splits (tests/fixtures/distill_labels.json) through
the path the sweep takes, up to the text the distiller is given, and takes every candidate sentence of
the agent's replies (selector.candidates). Each has two labels: whether a reader would keep it
(tests/fixtures/distill_reader_labels.json: the reader saw the chooser's highest-ranked sentences of
each session and a few drawn at random; one it did not see counts as not kept), and whether it matches
a labelled item of its session (the benchmark's keyword rule, which also counts a status report that
names a labelled thing as right). Fits a logistic regression (Newton's method, L2) on the reader's
labels (``--labels keyword``: on the keyword match, as before 2026-12-07), and judges it by
leave-one-project-out: each project's sessions read with the weights fitted on the other projects. For
each threshold and per-session cap it prints the held-out figures of the agent's sentences as the reader
judges them and by keyword, and of the whole offline distiller by keyword (the person's cue-word
sentences, rules and choices too), and chooses the pair by the F0.5 of the agent's sentences as the
reader judges them (by the whole distiller's keyword F0.5 with ``--labels keyword``): precision weighs
twice recall; within 0.005 of the best, the highest threshold, and at it the best cap. ``--write``
writes selector.json with the weights fitted on all the training sessions and the chosen pair. The
training splits are tune to blind5; blind6, blind7 and blind8 are never read here: their records are judged by
benchmarks/bench_judged.py.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from brain_core.harvest import distill, selector  # noqa: E402
from brain_core.harvest.compaction import unfold  # noqa: E402
from tests.helpers.distill_labelled import given_text, load, matches  # noqa: E402

READER = ROOT / "tests" / "fixtures" / "distill_reader_labels.json"
TRAIN = ("tune", "held_out", "fresh", "unseen", "blind2", "blind3", "blind4", "blind5")
L2 = 1.0
TIE = 0.005


def project(file: str) -> str:
    if file.startswith("claude-2.1.14-drmaciver"):
        return "drmaciver"
    if file.startswith("claude-"):
        return "spotter"
    if file.startswith("tonyandrewmeyer-"):
        return "-".join(file.split("-")[:2])
    return file.split("-")[0]


def reader_verdicts() -> dict[tuple[str, str], bool]:
    """(file, sentence) -> whether the reader would keep it (distill_reader_labels.json)."""
    items = json.loads(READER.read_text(encoding="utf-8"))["items"]
    return {(i["file"], i["text"]): bool(i["keep"]) for i in items if i.get("kind") != "person"}  # the person's: no candidates


def sessions(splits) -> list[dict]:
    """Per labelled session: its project, items, the text the distiller is given, its candidates'
    signals, the items each matches and the reader's verdict on each (None: not judged)."""
    verdicts = reader_verdicts()
    out = []
    for split in splits:
        for case in load(split):
            text = given_text(case)
            turns = unfold(distill._split_turns(text))
            s = {"file": case.file, "project": project(case.file), "items": case.items, "text": text}
            cands = selector.candidates(turns)
            s["x"] = np.array([c.x for c in cands], dtype=float).reshape(len(cands), len(selector.FEATURES))
            s["hits"] = [[i["id"] for i in case.items if matches(i, c.text)] for c in cands]
            s["reader"] = [verdicts.get((case.file, c.text)) for c in cands]
            out.append(s)
    return out


def fit(x: np.ndarray, y: np.ndarray) -> dict:
    mean = x.mean(axis=0)
    scale = x.std(axis=0)
    mean[0], scale[0] = 0.0, 1.0
    scale[scale == 0] = 1.0
    z = (x - mean) / scale
    w = np.zeros(z.shape[1])
    reg = np.full(z.shape[1], L2)
    reg[0] = 0.0
    for _ in range(30):
        p = 1 / (1 + np.exp(-np.clip(z @ w, -30, 30)))
        grad = z.T @ (p - y) + reg * w
        hess = (z * (p * (1 - p))[:, None]).T @ z + np.diag(reg + 1e-9)
        step = np.linalg.solve(hess, grad)
        w -= step
        if np.abs(step).max() < 1e-6:
            break
    return {"mean": mean.tolist(), "scale": scale.tolist(), "weights": w.tolist()}


def chances(model: dict, x: np.ndarray) -> np.ndarray:
    if not len(x):
        return np.zeros(0)
    z = (x - np.array(model["mean"])) / np.array(model["scale"])
    return 1 / (1 + np.exp(-np.clip(z @ np.array(model["weights"]), -30, 30)))


def label(s: dict, labels: str) -> list[bool]:
    """Each candidate's label: it matches a labelled item (keyword), or the reader would keep it
    (reader; a sentence the reader did not see counts as not kept: of the candidates the chooser
    ranks low, the reader keeps 1 in 50)."""
    if labels == "reader":
        return [bool(v) for v in s["reader"]]
    return [bool(h) for h in s["hits"]]


def stack(group, labels: str = "keyword"):
    xs = [s["x"] for s in group if len(s["x"])]
    ys = [np.array(label(s, labels), dtype=float) for s in group if len(s["x"])]
    return np.vstack(xs), np.concatenate(ys)


def tally(group, scores, threshold: float, keep: int, labels: str = "keyword") -> tuple[int, int, int, int, int]:
    """(kept, right, found, labelled, unjudged) when each session keeps its best ``keep`` at
    ``threshold``: by keyword, found and labelled count the labelled items; by the reader, the
    sentences it would keep (and unjudged the kept ones it did not see, counted wrong)."""
    kept = right = found = labelled = unjudged = 0
    for s, p in zip(group, scores):
        order = np.argsort(-p)[:keep]
        chosen = [i for i in order if p[i] >= threshold]
        kept += len(chosen)
        if labels == "reader":
            good = label(s, labels)
            labelled += sum(good)
            right += sum(1 for i in chosen if good[i])
            found = right  # each sentence the reader keeps is its own item
            unjudged += sum(1 for i in chosen if s["reader"][i] is None)
            continue
        labelled += len(s["items"])
        hits = s["hits"]
        right += sum(1 for i in chosen if hits[i])
        found += len({h for i in chosen for h in hits[i]})
    return kept, right, found, labelled, unjudged


def f05(p: float, r: float) -> float:
    return 1.25 * p * r / (0.25 * p + r) if p + r else 0.0


def held_out_scores(data, labels: str = "keyword") -> tuple[dict, dict]:
    """Each session's candidates scored by weights fitted without its project; and those weights."""
    held: dict[str, np.ndarray] = {}
    models: dict[str, dict] = {}
    for proj in sorted({s["project"] for s in data}):
        model = fit(*stack([s for s in data if s["project"] != proj], labels))
        models[proj] = model
        for s in data:
            if s["project"] == proj:
                held[s["file"]] = chances(model, s["x"])
    return held, models


def whole(data, models: dict) -> tuple[float, float, int]:
    """The whole offline distiller, leave-one-project-out: each project's sessions read with the
    weights fitted on the others. (precision, recall, kept)."""
    kept = right = found = labelled = 0
    real = selector.fitted
    try:
        for proj in sorted({s["project"] for s in data}):
            fold = models[proj]
            selector.fitted = lambda fold=fold: fold  # type: ignore[assignment]
            for s in data:
                if s["project"] != proj:
                    continue
                records = distill.extractive(s["text"], profile="claude", source="x") if s["text"] else []
                labelled += len(s["items"])
                kept += len(records)
                hit = set()
                for r in records:
                    which = [i["id"] for i in s["items"] if matches(i, r["body"])]
                    right += bool(which)
                    hit.update(which)
                found += len(hit)
    finally:
        selector.fitted = real  # type: ignore[assignment]
    return (right / kept if kept else 0.0), found / labelled, kept


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--write", action="store_true", help="write brain_core/harvest/selector.json")
    ap.add_argument("--splits", default=",".join(TRAIN))
    ap.add_argument("--labels", choices=("reader", "keyword"), default="reader",
                    help="fit and choose on the reader's verdicts (default) or on the keyword match of the labelled items")
    args = ap.parse_args()
    data = sessions(args.splits.split(","))
    projects = sorted({s["project"] for s in data})
    x, y = stack(data, args.labels)
    judged = sum(v is not None for s in data for v in s["reader"])
    print(f"{len(data)} sessions, {len(projects)} projects, {len(y)} candidate sentences: "
          f"{sum(bool(h) for s in data for h in s['hits'])} matching a labelled item; "
          f"{judged} judged by the reader, {sum(bool(v) for s in data for v in s['reader'])} of them kept; fitted on the {args.labels} labels")
    held, folds = held_out_scores(data, args.labels)
    scores = [held[s["file"]] for s in data]
    print("threshold  keep | the agent's sentences, as the reader judges: kept  precision  recall  F0.5 (unjudged)"
          " | by keyword: precision  recall | the whole distiller by keyword: kept  precision  recall  F0.5")
    rows = []
    for threshold in (0.15, 0.2, 0.25, 0.3, 0.35, 0.4, 0.5):
        for keep in (2, 3, 4, 5):
            kept, right, _, good, unjudged = tally(data, scores, threshold, keep, "reader")
            rp, rr = right / max(kept, 1), right / max(good, 1)
            _, k_right, k_found, labelled, _ = tally(data, scores, threshold, keep)
            for proj in folds:
                folds[proj].update(threshold=threshold, keep=keep)
            p, r, whole_kept = whole(data, folds)
            print(f"{threshold:>9.2f}  {keep:>4} | {'':44}{kept:>4}  {rp:>9.2f}  {rr:>6.2f}  {f05(rp, rr):.3f} ({unjudged:>3}) | "
                  f"{k_right / max(kept, 1):>20.2f}  {k_found / labelled:>6.2f} | {'':30}{whole_kept:>4}  {p:>9.2f}  {r:>6.2f}  {f05(p, r):.3f}")
            mark = f05(rp, rr) if args.labels == "reader" else f05(p, r)
            rows.append((mark, threshold, keep, p, r, whole_kept, rp, rr))
    # Precision first: of the pairs within TIE of the best F0.5 (a difference the 30 projects cannot
    # tell from noise), the highest threshold, and at it the cap with the best F0.5.
    top = max(row[0] for row in rows)
    best = max((row for row in rows if row[0] >= top - TIE), key=lambda row: (row[1], row[0]))
    print(f"chosen by the {'agent sentences as the reader judges them' if args.labels == 'reader' else 'whole distiller by keyword'}"
          f" (F0.5 within {TIE} of the best {top:.3f}, the highest threshold): threshold {best[1]}, keep {best[2]}: "
          f"the agent's sentences {best[6]:.2f} / {best[7]:.2f} as judged; the whole distiller by keyword {best[5]} kept, "
          f"precision {best[3]:.2f}, recall {best[4]:.2f} (each project read with the weights fitted on the others)")
    model = fit(x, y)
    top = sorted(zip(selector.FEATURES, model["weights"]), key=lambda p: -abs(p[1]))[:10]
    print("strongest signals: " + ", ".join(f"{n} {w:+.2f}" for n, w in top))
    if args.write:
        out = {"about": "Weights of brain_core/harvest/selector.py, fitted by benchmarks/train_selector.py on the "
                        f"splits {args.splits} ({len(data)} sessions, {len(y)} sentences, {args.labels} labels).",
               "features": list(selector.FEATURES), "threshold": best[1], "keep": best[2],
               **{k: [round(v, 6) for v in vals] for k, vals in model.items()}}
        selector.WEIGHTS.write_text(json.dumps(out, indent=1) + "\n", encoding="utf-8")
        print(f"wrote {selector.WEIGHTS.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
