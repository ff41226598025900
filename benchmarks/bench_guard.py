"""The write-path guard on its paraphrase set: catch rate and false alarms, tuning and held-out halves.

    PYTHONPATH=. python benchmarks/bench_guard.py [--misses]

``tests/fixtures/guard_set.json`` holds orders of each kind (download-and-run, exfiltration,
orders to the memory system, disabling a safeguard, overriding instructions) and ordinary
instructions that must pass ("always run the tests with -race"). A catch counts when the guard
stops the text at all; the category it names is reported separately.
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from brain_core.redact.guard import check

SET = Path(__file__).resolve().parent.parent / "tests" / "fixtures" / "guard_set.json"


def score(items: list[dict]) -> dict:
    orders = [i for i in items if i["expect"]]
    ordinary = [i for i in items if not i["expect"]]
    caught, right_kind, alarms, misses = 0, 0, [], []
    for i in items:
        c = check(i["text"])
        if i["expect"]:
            if c:
                caught += 1
                right_kind += c.category == i["expect"]
            else:
                misses.append(i["text"])
        elif c:
            alarms.append(f"{i['text']}  [{c.category}]")
    return {"orders": len(orders), "caught": caught, "right_kind": right_kind,
            "ordinary": len(ordinary), "false_alarms": len(alarms), "misses": misses, "alarms": alarms}


def main() -> int:
    data = json.loads(SET.read_text(encoding="utf-8"))
    show = "--misses" in sys.argv
    for half in ("tuning", "held_out", "fresh", "fresh_2"):
        t0 = time.perf_counter()
        r = score(data[half])
        ms = (time.perf_counter() - t0) * 1000 / max(1, len(data[half]))
        print(f"{half:9s} catch rate {r['caught']}/{r['orders']} = {r['caught'] / r['orders']:.3f}  "
              f"(right category {r['right_kind']}/{r['caught']})  "
              f"false alarms {r['false_alarms']}/{r['ordinary']} = {r['false_alarms'] / r['ordinary']:.3f}  "
              f"({ms:.2f} ms a text)")
        if show:
            for m in r["misses"]:
                print(f"   missed: {m}")
            for a in r["alarms"]:
                print(f"   false alarm: {a}")
    for name, texts in ordinary_corpora():
        t0 = time.perf_counter()
        alarms = [t for t in texts if check(t)]
        ms = (time.perf_counter() - t0) * 1000 / max(1, len(texts))
        print(f"{name}: false alarms {len(alarms)}/{len(texts)} = {len(alarms) / max(1, len(texts)):.4f} ({ms:.2f} ms a text)")
        if show:
            for a in alarms:
                print(f"   false alarm: {a[:160]}")
    return 0


def ordinary_corpora():
    """Text with no orders in it: the dedupe set's record bodies, a model's records from real sessions
    (each record the guard holds was read by hand: reports of a flag used, not orders), the records the
    offline distiller keeps from the labelled real sessions (the same path as the sweep), the strings of Aida's own code
    (technical prose about git, keys, backups and memory) and LoCoMo's conversation turns (read
    from /work/shared when present)."""
    root = Path(__file__).resolve().parent.parent
    pairs = root / "tests" / "fixtures" / "dedupe_pairs.jsonl"
    bodies = []
    for line in pairs.read_text(encoding="utf-8").splitlines():
        row = json.loads(line)
        bodies += [row["a"], row["b"]]
    yield "dedupe-set record bodies", list(dict.fromkeys(bodies))
    answers = root / "tests" / "fixtures" / "distill_model_answers.json"
    if answers.is_file():  # what a model wrote distilling 50 real sessions (records, not orders, as read)
        records = [r["body"] for a in json.loads(answers.read_text(encoding="utf-8"))["answers"]
                   for r in json.loads(a["answer"])["records"]]
        yield "a model's distilled records", records
    sessions = root / "tests" / "fixtures" / "real_sessions"
    if sessions.is_dir():  # what the offline distiller keeps from the labelled real sessions (read by hand: no orders)
        yield "the offline distiller's records", offline_records(root)
    import ast

    texts = []
    for f in sorted((root / "brain_core").rglob("*.py")):
        if f.name == "guard.py":
            continue
        for node in ast.walk(ast.parse(f.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Constant) and isinstance(node.value, str) and len(node.value) > 25:
                texts.append(node.value)
    yield "Aida's own docstrings and messages", list(dict.fromkeys(texts))
    locomo = root.parent.parent / "shared" / "bench" / "locomo" / "locomo10.json"
    if not locomo.is_file():
        locomo = Path("/work/shared/bench/locomo/locomo10.json")
    if locomo.is_file():
        turns = [t["text"] for conv in json.loads(locomo.read_text(encoding="utf-8"))
                 for v in conv["conversation"].values() if isinstance(v, list)
                 for t in v if isinstance(t, dict) and isinstance(t.get("text"), str)]
        yield "LoCoMo conversation turns", turns


def offline_records(root: Path) -> list[str]:
    """Every record body the offline sweep writes for the labelled real sessions, before the write
    path's guard reads them."""
    sys.path.insert(0, str(root))
    from brain_core.harvest import session_file
    from brain_core.harvest.run import harvest_session
    from brain_core.harvest.sources import get
    from tests.helpers.distill_labelled import REAL, load

    bodies = []
    for case in load():
        src = get(case.tool)
        path = REAL / case.file
        outcome = harvest_session(src, session_file(case.tool, src.file_id(path), path), reason="file", llm=None)
        bodies += [r["body"] for r in outcome.records]
    return bodies


if __name__ == "__main__":
    raise SystemExit(main())
