"""The offline distiller's records as a reader judges them, beside the keyword match of bench_distill.py.

    .venv/bin/python benchmarks/bench_judged.py

bench_distill.py counts a record right when it matches a labelled item by keywords; a good record the
labeller did not list, or worded differently, counts as noise, and a status report that names a labelled
thing counts as right. tests/fixtures/distill_judged.json holds a reader's verdicts on the records the
offline distiller kept for the blind6 and blind7 sessions (on 2026-12-07, at commit 10ced33; later rounds
judged the records new since) and for the blind8 sessions (on 2026-12-08, the first time the distiller ran on
them: its records at 1f07522 and at 48cac28), mixed with about as many of the chooser's candidate sentences it
did not keep, drawn at random from the same sessions; the reader saw each sentence and its transcript, not which
was which, nor the labels, and answered whether a careful engineer would keep it as a durable memory. The
chooser is fitted on other verdicts, on the training sessions only. This script runs today's distiller on those sessions
and prints, for blind6 and blind7 (read while the distiller changed) and for blind8 (never read) apart: the share of its records the reader would keep (records not judged, because the distiller
changed since, are counted apart); the same share of the candidates it did not keep (how much better than
chance its choice is); and how the reader and the keyword match agree on the judged records. Then how a second reader, a day
later, judged some of the same texts (tests/fixtures/distill_second_verdicts.json). Last, the
person's records (rules, preferences, choices) the distiller writes for the training sessions, as a
reader judged them (tests/fixtures/distill_reader_labels.json, kind 'person': not fitted on).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.helpers.distill_labelled import harvest, load, matches  # noqa: E402

JUDGED = ROOT / "tests" / "fixtures" / "distill_judged.json"
READER = ROOT / "tests" / "fixtures" / "distill_reader_labels.json"
SECOND = ROOT / "tests" / "fixtures" / "distill_second_verdicts.json"


# The blind6 and blind7 records have been read while the distiller changed since their verdicts (rules
# were written after reading some of them); blind8's were judged the first time the distiller ran on it.
GROUPS = (("blind6", "blind7"), ("blind8",))


def main() -> None:
    judged = json.loads(JUDGED.read_text(encoding="utf-8"))
    verdicts: dict[tuple[str, str], dict] = {(j["file"], j["text"]): j for j in judged["items"]}
    for splits in GROUPS:
        report(splits, verdicts, [j for j in judged["items"] if j["split"] in splits and j["kind"] == "control"])
    agreement(verdicts, json.loads(SECOND.read_text(encoding="utf-8")))
    person_records(json.loads(READER.read_text(encoding="utf-8")))


def agreement(verdicts: dict[tuple[str, str], dict], second: dict) -> None:
    """How a second reader, on a later day, judged texts the first verdicts had judged: the readers of
    different rounds keep at different rates, so figures from different rounds compare only so far."""
    for name, splits in (("blind6 and blind7 (records judged in round 1)", ("blind6", "blind7")), ("blind8", ("blind8",))):
        pairs = [(verdicts[(i["file"], i["text"])]["keep"], i["keep"]) for i in second["items"] if i["split"] in splits]
        if not pairs:
            continue
        agree = sum(a == b for a, b in pairs)
        print(f"a second reader on {len(pairs)} texts of {name}: agrees on {agree}; the first verdicts keep "
              f"{sum(a for a, _ in pairs)}, the second {sum(b for _, b in pairs)}")


def report(splits: tuple[str, ...], verdicts: dict[tuple[str, str], dict], controls: list[dict]) -> None:
    kept = yes = unjudged = 0
    both = {(a, b): 0 for a in (True, False) for b in (True, False)}
    by_kind: dict[str, list[int]] = {"the agent's findings": [0, 0], "the person's rules, preferences and choices": [0, 0]}
    for split in splits:
        for case in load(split):
            for r in harvest(case):
                v = verdicts.get((case.file, r["body"]))
                kept += 1
                if v is None:
                    unjudged += 1
                    continue
                yes += v["keep"]
                kind = by_kind["the agent's findings" if r["type"] == "fact" else "the person's rules, preferences and choices"]
                kind[0] += v["keep"]
                kind[1] += 1
                both[(v["keep"], any(matches(i, r["body"]) for i in case.items))] += 1
    judged_n = kept - unjudged
    print(f"splits {', '.join(splits)}: {kept} records kept, {judged_n} of them judged ({unjudged} not judged: new since the verdicts)")
    print(f"  the reader would keep {yes} of {judged_n}: precision as judged {yes / max(judged_n, 1):.2f} ("
          + "; ".join(f"{name} {k} of {n}" for name, (k, n) in by_kind.items()) + ")")
    c_yes = sum(j["keep"] for j in controls)
    print(f"  the candidates not kept (random, same sessions): the reader would keep {c_yes} of {len(controls)} ({c_yes / max(len(controls), 1):.2f})")
    print("  reader / keyword match on the judged records: "
          f"both yes {both[(True, True)]}, reader only {both[(True, False)]}, keywords only {both[(False, True)]}, both no {both[(False, False)]}")


def person_records(labels: dict) -> None:
    """The person's records in the training splits as a reader judged them (the chooser is fitted on
    the agent's sentences there; these records are not fitted on)."""
    verdicts = {(i["file"], i["text"]): i["keep"] for i in labels["items"] if i.get("kind") == "person"}
    kept = yes = unjudged = 0
    for split in sorted({i["split"] for i in labels["items"]}):
        for case in load(split):
            for r in harvest(case):
                if r["type"] == "fact":
                    continue
                kept += 1
                v = verdicts.get((case.file, r["body"]))
                if v is None:
                    unjudged += 1
                yes += bool(v)
    print(f"training splits, the person's records: {kept} kept, the reader would keep {yes} of the {kept - unjudged} judged "
          f"({yes / max(kept - unjudged, 1):.2f}; {unjudged} not judged)")


if __name__ == "__main__":
    main()
