"""How far a second careful reader gets on the offline distiller's measure: the ceiling of the metric.

    .venv/bin/python benchmarks/label_agreement.py

``tests/fixtures/distill_second_reader.json`` holds what a second reader wrote down, at most five
memories a session, for 24 of the labelled real sessions (four drawn at random from each of the six
splits of ``tests/fixtures/distill_labels.json``). The reader saw only the transcript the distiller
reads (parsed, redacted, whole), never the labels, the distiller or its records. Their memories are
scored exactly as the distiller's records are (``tests/helpers/distill_labelled.py``: a memory is
right when it holds every keyword of one labelled item; precision is strict), and the distiller is
scored on the same sessions beside them.

What it says: the precision and recall a person reaches under the labels' strict keyword match,
which no distiller can be expected to pass by much; and how far the offline distiller is from it on
the same sessions.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
READER = ROOT / "tests" / "fixtures" / "distill_second_reader.json"


def main() -> int:
    sys.path.insert(0, str(ROOT))
    from tests.helpers.distill_labelled import harvest, load, score

    written = {s["file"]: s["memories"] for s in json.loads(READER.read_text(encoding="utf-8"))["sessions"]}
    cases = [c for c in load() if c.file in written]
    missing = set(written) - {c.file for c in cases}
    if missing:
        print(f"{len(missing)} sessions of the second reader are not labelled: {sorted(missing)[:3]}")
        return 1
    groups = {"all": {c.split for c in cases},
              "read": {"tune", "held_out", "fresh", "unseen", "blind2"},
              "blind3": {"blind3"}}
    print("all: every session; read: those of the five splits read while rules were written; blind3: never read")
    print(f"{'sessions':<12} {'who':<18} {'kept':>4} {'right':>5} {'items':>5} {'found':>5}  precision  recall")
    for name, splits in groups.items():
        chosen = [c for c in cases if c.split in splits]
        for who in ("second reader", "offline distiller"):
            for c in chosen:
                c.kept = [{"body": m} for m in written[c.file]] if who == "second reader" else harvest(c)
            sc = score(chosen)
            p = f"{sc.precision:.2f}" if sc.precision is not None else "-"
            r = f"{sc.recall:.2f}" if sc.recall is not None else "-"
            print(f"{name + f' ({len(chosen)})':<12} {who:<18} {sc.kept:>4} {sc.right:>5} {sc.labelled:>5} "
                  f"{sc.found:>5}  {p:>9}  {r:>6}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
