"""Tokens per answer context with write-time abstracts, at the same recall.

    python benchmarks/bench_abstracts.py [--convs 5-9] [-k 5]

Each LoCoMo session (../shared/bench/locomo/locomo10.json, read in place) is one long record written
through ``Brain.remember_many`` (so each gets its abstract at write time, as a harvested session
summary or a long note would); every question goes through the default ``Brain.recall``. The
ranking is the same at both depths, so recall@k is the same; what changes is the size of the
context an agent is handed: ``depth=full`` (whole bodies) against ``depth=abstract`` (the default of
``recall --json`` and the MCP tools). "evidence kept" is the share of evidence turns whose text is
still inside the abstract of the retrieved record holding them: what the short tier loses.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

import locomo as L  # noqa: E402


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data", type=Path, default=L.DATA)
    ap.add_argument("--convs", default="5-9")
    ap.add_argument("-k", type=int, default=5)
    args = ap.parse_args(argv)
    if not args.data.exists():
        print(f"LoCoMo is not at {args.data}; pass --data.", file=sys.stderr)
        return 2
    from brain_core import Brain
    from brain_core.catalog.embed import make_embedder
    from brain_core.text.abstract import tokens

    data = json.loads(args.data.read_text(encoding="utf-8"))
    embedder = make_embedder(None)
    full_t, abs_t, hit, kept, ev_total, with_abs, records = [], [], [], 0, 0, 0, 0
    write_s = 0.0
    with tempfile.TemporaryDirectory(prefix="aida-abstracts-") as tmp:
        for i in L.span(args.convs):
            conv = data[i]
            items, turn_text = [], {}
            for n, date_text, iso, turns in L.sessions(conv):
                day = date_text.split(" on ", 1)[-1]
                items.append(dict(body=f"Conversation on {day}.\n" + "\n".join(L.turn_text(t) for t in turns),
                                  type="event", profile="me", created=iso, source=f"locomo:{i}:session-{n}",
                                  extra={"session": n}))
                turn_text.update({t["dia_id"]: t["text"] for t in turns})
            b = Brain.init(Path(tmp) / f"c{i}", config=L.make_config(Path(tmp) / f"c{i}", {}))
            b._embedder = embedder
            t0 = time.perf_counter()
            written = b.remember_many(items, message="locomo sessions")
            write_s += time.perf_counter() - t0
            session_of = {r.id: it["extra"]["session"] for r, it in zip(written, items)}
            records += len(written)
            with_abs += sum(1 for r in written if r.abstract)
            for q in L.questions(conv):
                hits = b.recall(q["q"], k=args.k)
                full_t.append(sum(tokens(json.dumps(h.to_json(depth="full"), ensure_ascii=False)) for h in hits))
                abs_t.append(sum(tokens(json.dumps(h.to_json(depth="abstract"), ensure_ascii=False)) for h in hits))
                got = [session_of.get(h.record.id) for h in hits]
                hit.append(len(set(got) & set(q["sessions"])) / len(q["sessions"]))
                for ev in q["turns"]:
                    s = L.session_of(ev)
                    for h in hits:
                        if session_of.get(h.record.id) == s and ev in turn_text:
                            ev_total += 1
                            kept += turn_text[ev][:60] in (h.record.abstract or h.record.body)
            b.close()
            print(f"conversation {i} done", file=sys.stderr, flush=True)
    n = len(hit)
    print(f"LoCoMo conversations {args.convs}: {records} session records ({with_abs} with an abstract), "
          f"{n} questions, k={args.k}, default recall path; writing took {write_s:.1f} s")
    print(f"session recall@{args.k} (same at both depths): {100 * statistics.fmean(hit):.1f}")
    print(f"tokens per answer context, median: full {statistics.median(full_t):.0f}, "
          f"abstract {statistics.median(abs_t):.0f} ({statistics.median(full_t) / statistics.median(abs_t):.1f}x fewer); "
          f"mean: {statistics.fmean(full_t):.0f} -> {statistics.fmean(abs_t):.0f}")
    print(f"evidence kept inside the abstracts of retrieved records: {100 * kept / max(ev_total, 1):.1f}% "
          f"of {ev_total} evidence turns (the rest needs depth=full)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
