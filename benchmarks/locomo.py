"""Recall quality on LoCoMo: each conversation in its own brain, each question through brain.recall.

    python benchmarks/locomo.py                      # all 10 conversations, hybrid + bm25 + vectors
    python benchmarks/locomo.py --tune               # choose fusion settings on conversations 0-4
    python benchmarks/locomo.py --steps 5-9          # what each change bought, on the held-out half
    python benchmarks/locomo.py --set recall.vector_weight=0.3 --modes hybrid

The data set (LoCoMo, CC BY-NC 4.0) is read from ../shared/bench/locomo/locomo10.json at run time and
never copied. Every turn goes through the real write path (``Brain.remember_many``: validation,
redaction, atomic files, the index, git) as a dated ``event`` record that keeps its ``dia_id`` in
``extra``; every question goes through ``Brain.recall`` exactly as users, the CLI, MCP and the tray
call it (default settings; a recall never counts its hits as used, as for users). Turn level: a turn is
one memory; session level: a session (its date and its turns) is one memory. recall@k = evidence ids
in the top k / evidence ids, questions without evidence skipped.

Settings are chosen on conversations 0-4 (``--tune``) and the headline figures are those of
conversations 5-9, which the tuning never saw; the figures over all ten are printed too.
"""

from __future__ import annotations

import argparse
import itertools
import json
import re
import statistics
import sys
import tempfile
import time
from collections import defaultdict
from datetime import datetime, timezone
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

DATA = ROOT.parent / "shared" / "bench" / "locomo" / "locomo10.json"
MISSING = """LoCoMo is not at {path}.

This benchmark needs the LoCoMo data set (Maharana et al., "Evaluating Very Long-Term Conversational
Memory of LLM Agents", ACL 2024): the file data/locomo10.json of the public GitHub repository
snap-research/LoCoMo (https://github.com/snap-research/LoCoMo), licensed CC BY-NC 4.0 (evaluation,
not redistribution: it is never copied into this repository). To run the benchmark:

    mkdir -p ../shared/bench/locomo
    curl -L -o ../shared/bench/locomo/locomo10.json \\
        https://raw.githubusercontent.com/snap-research/LoCoMo/main/data/locomo10.json
    python benchmarks/locomo.py            # or: python benchmarks/locomo.py --data /path/to/locomo10.json
"""
KS = (1, 5, 10, 25, 50)
CATEGORIES = {1: "multi-hop", 2: "temporal", 3: "open-domain", 4: "single-hop", 5: "adversarial"}
# bm25 / vector: one stage's weight set to 0, everything else as configured; plain-bm25: bm25 and
# nothing else (no source, neighbour or date lift), the reference row of the data set's README.
MODES = {"hybrid": {}, "bm25": {"vector_weight": 0.0}, "vector": {"bm25_weight": 0.0},
         "plain-bm25": {"vector_weight": 0.0, "source_weight": 0.0, "date_boost": 0.0, "neighbour_weight": 0.0,
                        "answer_weight": 0.0, "question_weight": 1.0, "kind_boost": 0.0}}
_EVID = re.compile(r"D\s*:?\s*(\d+)\s*:\s*(\d+)")


# -- the data ------------------------------------------------------------------------------------------


def evidence_ids(raw) -> list[str]:
    """Normalised dia ids: "D8:6; D9:17" -> two ids, "D:11:26" -> "D11:26", "D30:05" -> "D30:5"."""
    out: list[str] = []
    for item in raw or []:
        for a, b in _EVID.findall(str(item)):
            did = f"D{int(a)}:{int(b)}"
            if did not in out:
                out.append(did)
    return out


def session_of(dia_id: str) -> int:
    return int(dia_id[1:].split(":")[0])


def parse_session_date(text: str) -> str:
    """"1:56 pm on 8 May, 2023" -> "2023-05-08T13:56:00Z"."""
    when = datetime.strptime(text.strip(), "%I:%M %p on %d %B, %Y").replace(tzinfo=timezone.utc)
    return when.strftime("%Y-%m-%dT%H:%M:%SZ")


def sessions(conv: dict) -> list[tuple[int, str, str, list[dict]]]:
    """(number, date text, ISO date, turns) for each session, in order."""
    c = conv["conversation"]
    nums = sorted(int(k.split("_")[1]) for k in c if re.fullmatch(r"session_\d+", k))
    return [(n, c[f"session_{n}_date_time"], parse_session_date(c[f"session_{n}_date_time"]), c[f"session_{n}"])
            for n in nums]


def turn_text(turn: dict) -> str:
    text = f"{turn['speaker']}: {turn['text']}"
    if turn.get("blip_caption"):
        text += f" [shares {turn['blip_caption']}]"
    return text


def questions(conv: dict) -> list[dict]:
    out = []
    for q in conv["qa"]:
        ev = evidence_ids(q.get("evidence"))
        if ev:
            out.append({"q": q["question"], "cat": q["category"], "turns": ev,
                        "sessions": sorted({session_of(e) for e in ev})})
    return out


# -- brains ---------------------------------------------------------------------------------------------


def make_config(path: Path, overrides: dict):
    from brain_core.config import Config

    cfg = Config(path=path / "config.yaml", data={})
    for k, v in overrides.items():
        cfg.set(k, v)
    return cfg


def build_brains(conv: dict, workdir: Path, cfg, embedder, date_in_text: bool, chunk: int = 200,
                 with_sessions: bool = True):
    """Two brains for one conversation: one record per turn, one per session. Returns
    (turn brain, id -> dia_id, session brain, id -> session number, seconds to write the turns)."""
    from brain_core import Brain

    turn_items, sess_items = [], []
    sample = conv.get("sample_id", "conv")
    for n, date_text, iso, turns in sessions(conv):
        day = date_text.split(" on ", 1)[-1]
        for t in turns:
            body = turn_text(t)
            if date_in_text:
                body = f"[{day}] {body}"
            turn_items.append(dict(body=body, type="event", profile="me", created=iso, source=f"locomo:{sample}:session-{n}",
                                   extra={"dia_id": t["dia_id"], "session": n}))
        sess_items.append(dict(body=f"Conversation on {day}.\n" + "\n".join(turn_text(t) for t in turns),
                               type="event", profile="me", created=iso, source=f"locomo:{sample}:session-{n}",
                               extra={"session": n}))
    tb = Brain.init(workdir / "turns", config=cfg)
    tb._embedder = embedder
    t0 = time.perf_counter()
    turn_of: dict[str, str] = {}
    for start in range(0, len(turn_items), chunk):
        part = turn_items[start:start + chunk]
        for rec, item in zip(tb.remember_many(part, message="locomo turns"), part):
            turn_of[rec.id] = item["extra"]["dia_id"]
    write_s = time.perf_counter() - t0
    if not with_sessions:
        return tb, turn_of, None, {}, write_s
    sb = Brain.init(workdir / "sessions", config=cfg)
    sb._embedder = embedder
    sess_of = {rec.id: item["extra"]["session"]
               for rec, item in zip(sb.remember_many(sess_items, message="locomo sessions"), sess_items)}
    return tb, turn_of, sb, sess_of, write_s


# -- scoring -------------------------------------------------------------------------------------------


def recall_at(ranked: list, wanted: list) -> dict[int, float]:
    return {k: len(set(ranked[:k]) & set(wanted)) / len(wanted) for k in KS}


def dedup(xs):
    seen, out = set(), []
    for x in xs:
        if x not in seen:
            seen.add(x)
            out.append(x)
    return out


class Tally:
    def __init__(self) -> None:
        self.rows: dict[tuple[str, str], list[dict[int, float]]] = defaultdict(list)
        self.cats: dict[tuple[str, str, int], list[dict[int, float]]] = defaultdict(list)
        self.lat: dict[str, list[float]] = defaultdict(list)

    def add(self, mode: str, level: str, cat: int, r: dict[int, float]) -> None:
        self.rows[(mode, level)].append(r)
        self.cats[(mode, level, cat)].append(r)

    @staticmethod
    def mean(rs: list[dict[int, float]]) -> dict[int, float]:
        return {k: 100 * statistics.fmean(r[k] for r in rs) for k in KS} if rs else {k: float("nan") for k in KS}

    def table(self, title: str) -> str:
        lines = [f"\n{title}", f"{'mode':10} {'level':16} {'n':>5} " + " ".join(f"R@{k:<4}" for k in KS) + "  p50 ms"]
        for (mode, level), rs in sorted(self.rows.items(), key=lambda x: (list(MODES).index(x[0][0]), x[0][1])):
            m = self.mean(rs)
            lat = f"{statistics.median(self.lat[mode]) * 1000:7.1f}" if self.lat.get(mode) and level == "turn" else ""
            lines.append(f"{mode:10} {level:16} {len(rs):5} " + " ".join(f"{m[k]:5.1f}" for k in KS) + f"  {lat}")
        lines.append(f"\n{'per category':38} {'n':>3} " + " ".join(f"R@{k:<4}" for k in KS))
        for (mode, level, cat), rs in sorted(self.cats.items(), key=lambda x: (list(MODES).index(x[0][0]), x[0][1], x[0][2])):
            m = self.mean(rs)
            lines.append(f"{mode:10} {level:15} {CATEGORIES[cat]:11} {len(rs):3} " + " ".join(f"{m[k]:5.1f}" for k in KS))
        return "\n".join(lines)

    def summary(self) -> dict:
        return {f"{mode}/{level}": {f"R@{k}": round(v, 1) for k, v in self.mean(rs).items()} | {"n": len(rs)}
                for (mode, level), rs in self.rows.items()} | {
            f"{mode}/p50_ms": round(statistics.median(v) * 1000, 2) for mode, v in self.lat.items()}


def evaluate(conv: dict, tb, turn_of: dict, sb, sess_of: dict, modes: list[str], tallies: list[Tally]) -> None:
    base = dict(tb.config.get("recall"))
    for mode in modes:
        for cfg in {id(tb.config): tb.config, id(sb.config): sb.config}.values() if sb is not None else [tb.config]:
            cfg.data["recall"] = dict(base, **MODES[mode])
        for q in questions(conv):
            t0 = time.perf_counter()
            hits = tb.recall(q["q"], k=50)  # the default recall path, as users get it
            dt = time.perf_counter() - t0
            turns = [turn_of.get(h.record.id) for h in hits]
            shits = sb.recall(q["q"], k=50) if sb is not None else []
            sess = [sess_of.get(h.record.id) for h in shits]
            from_turns = dedup(session_of(t) for t in turns if t)
            for tally in tallies:
                tally.lat[mode].append(dt)
                tally.add(mode, "turn", q["cat"], recall_at(turns, q["turns"]))
                if sb is not None:
                    tally.add(mode, "session", q["cat"], recall_at(sess, q["sessions"]))
                tally.add(mode, "session-by-turn", q["cat"], recall_at(from_turns, q["sessions"]))
    for cfg in {id(tb.config): tb.config, id(sb.config): sb.config}.values() if sb is not None else [tb.config]:
        cfg.data["recall"] = base


# -- tuning on the first half -----------------------------------------------------------------------------


def collect(conv: dict, tb, turn_of: dict, date_parse: bool) -> list[dict]:
    """Each question's candidates from both stages (run once), to fuse offline under many settings."""
    from brain_core.recall.hybrid import DEFAULT_SHELVES, RecallParams, gather
    from brain_core.recall.places import asks, neighbours, texts
    from brain_core.recall.sqlite import filters as _filters

    params = RecallParams(date_boost=1.0 if date_parse else 0.0)
    conn = tb.index.conn()
    meta = {rowid: (ts, rid, src) for rowid, ts, rid, src in conn.execute("SELECT rowid, created_ts, id, source FROM docs")}
    times = {r: (m[0], 0, None) for r, m in meta.items()}
    source = {r: m[2] for r, m in meta.items()}
    dia = {r: turn_of.get(m[1]) for r, m in meta.items()}
    where, wargs = _filters(None, None, None, DEFAULT_SHELVES)
    around = neighbours(conn, list(meta), where, wargs)  # every record's, so any may be a match
    after = neighbours(conn, list(meta), where, wargs, span=1, sides=("after",))
    text = texts(conn, list(meta))
    asked = {r for r, body in text.items() if asks(body)}
    qs = questions(conv)
    vecs = tb.embedder.embed([q["q"] for q in qs])
    out = []
    for q, v in zip(qs, vecs):
        cand = gather(tb.index, q["q"], params=params, query_vector=v, n=params.candidates)
        out.append({"q": q, "cand": cand, "meta": times, "source": source, "dia": dia, "around": around,
                    "after": after, "asked": asked, "text": text})
    return out


def offline_recall(items: list[dict], params, ranked: list | None = None) -> dict[int, float]:
    """The ranking recall() would return (fuse -> neighbours and answers -> questions lowered ->
    source context -> the kind of answer asked for -> shortlist -> decay and date lift) from the
    candidates collected once, scored;
    each question's ranking (dia ids) is appended to ``ranked`` when one is given."""
    from brain_core.recall.hybrid import fuse, rescore, shortlist
    from brain_core.recall.kinds import wanted, with_kind
    from brain_core.recall.places import givers, with_neighbours, with_questions, with_source_context

    now = time.time()
    rs = []
    for it in items:
        cand = it["cand"]
        stages = {r: {s: v for s, v in st.items() if (s == "bm25" and params.bm25_weight > 0)
                      or (s == "vector" and params.vector_weight > 0)} for r, st in cand.stages.items()}
        stages = {r: st for r, st in stages.items() if st}
        fused = fuse(stages, params)
        if params.neighbour_weight > 0 or params.answer_weight > 0:
            top = givers(fused, it["source"])
            near = {g: it["around"].get(g, []) for g in top} if params.neighbour_weight > 0 else {}
            answers = {g: it["after"].get(g, []) for g in top if g in it["asked"]} if params.answer_weight > 0 else {}
            fused = with_neighbours(fused, near, params.neighbour_weight, answers, params.answer_weight)
        fused = with_questions(fused, it["asked"], params.question_weight)
        fused = with_source_context(fused, it["source"], params)
        fused, _ = with_kind(fused, it["text"], wanted(it["q"]["q"]), params.kind_boost)
        dates = cand.dates if params.date_boost > 0 else []
        scored = rescore(shortlist(fused, 50, bool(dates)), fused, it["meta"], dates, params, now)
        order = [it["dia"][r] for score, r, *_ in scored if score > 0]
        if ranked is not None:
            ranked.append(order)
        rs.append(recall_at(order, it["q"]["turns"]))
    return Tally.mean(rs)


def collect_all(data: list[dict], convs: list[int], workdir: Path, embedder, date_in_text: bool):
    plain, dated = [], []
    for i in convs:
        cfg = make_config(workdir / f"c{i}", {})
        tb, turn_of, sb, _, _ = build_brains(data[i], workdir / f"c{i}", cfg, embedder, date_in_text)
        plain += collect(data[i], tb, turn_of, date_parse=False)
        dated += collect(data[i], tb, turn_of, date_parse=True)
        tb.close()
        sb.close()
        print(f"collected conversation {i}", file=sys.stderr)
    return plain, dated


def steps(data: list[dict], convs: list[int], workdir: Path, embedder, date_in_text: bool) -> None:
    """What each change to recall bought, replayed offline on ``convs`` (turn level)."""
    from dataclasses import replace

    from brain_core.recall.hybrid import RecallParams

    plain, dated = collect_all(data, convs, workdir, embedder, date_in_text)
    before = RecallParams(fusion="rrf", vector_weight=0.5, rrf_k=60, date_boost=0.0, source_weight=0.0,
                          neighbour_weight=0.0, answer_weight=0.0, question_weight=1.0, kind_boost=0.0)
    rows = [("before: rrf, bm25 1 + vectors 0.5, k 60", before, plain),
            ("bm25 alone", replace(before, vector_weight=0.0), plain),
            ("vectors alone", replace(before, bm25_weight=0.0, vector_weight=1.0), plain),
            ("1. rrf weights tuned (vectors 0.4, k 20)", replace(before, vector_weight=0.4, rrf_k=20), plain),
            ("2. score fusion (bm25 1 + vectors 0.5)", replace(before, fusion="score"), plain),
            ("3. + dates named in the question (lift 1.0)", replace(before, fusion="score", date_boost=1.0), dated),
            ("4. + source context (0.3)", replace(before, fusion="score", date_boost=1.0, source_weight=0.3), dated),
            ("5. + neighbours in the source (0.3)", replace(before, fusion="score", date_boost=1.0, source_weight=0.3,
                                                            neighbour_weight=0.3), dated),
            ("6. + answers after questions (0.5), askers 0.7", replace(before, fusion="score", date_boost=1.0,
                                                                      source_weight=0.3, neighbour_weight=0.3,
                                                                      answer_weight=0.5, question_weight=0.7), dated),
            ("7. neighbours 0.2", replace(before, fusion="score", date_boost=1.0, source_weight=0.3,
                                          neighbour_weight=0.2, answer_weight=0.5, question_weight=0.7), dated),
            ("8. + the kind of answer asked (0.4): defaults", RecallParams(), dated)]
    print(f"\nturn level, conversations {convs[0]}-{convs[-1]} ({len(plain)} questions), "
          f"{RecallParams().candidates} candidates a stage")
    print(f"{'':46} " + " ".join(f"R@{k:<4}" for k in KS))
    for label, p, items in rows:
        m = offline_recall(items, p)
        print(f"{label:46} " + " ".join(f"{m[k]:5.1f}" for k in KS))


def tune(data: list[dict], convs: list[int], workdir: Path, embedder, date_in_text: bool) -> None:
    """Grid-search the fusion settings on ``convs`` by turn-level R@5 + R@10; prints the best."""
    from brain_core.recall.hybrid import RecallParams

    plain, dated = collect_all(data, convs, workdir, embedder, date_in_text)
    results = []
    grid = [("rrf", vw, rrf_k, 0.0, 0.0, 0.0) for vw in (0.1, 0.2, 0.3, 0.4, 0.5, 1.0) for rrf_k in (5, 20, 60)]
    grid += list(itertools.product(["score"], (0.3, 0.5, 0.7), [60], (0.0, 0.5, 1.0, 2.0),
                                   (0.0, 0.1, 0.2, 0.3, 0.5), (0.0, 0.2, 0.3, 0.4)))
    for fusion, vw, rrf_k, boost, sw, nw in grid:
        p = RecallParams(fusion=fusion, vector_weight=vw, rrf_k=rrf_k, date_boost=boost, source_weight=sw,
                         neighbour_weight=nw)
        m = offline_recall(dated if boost > 0 else plain, p)
        results.append((m[5] + m[10], p, m))
    results.sort(key=lambda x: x[0], reverse=True)
    print(f"\ntuning on conversations {convs[0]}-{convs[-1]} ({len(plain)} questions): best by turn R@5 + R@10")
    for obj, p, m in results[:15]:
        print(f"fusion={p.fusion} vector_weight={p.vector_weight} rrf_k={p.rrf_k} date_boost={p.date_boost} "
              f"source_weight={p.source_weight} neighbour_weight={p.neighbour_weight}: " + " ".join(f"R@{k}={m[k]:.1f}" for k in KS))
    for label, p in [("bm25 alone", RecallParams(vector_weight=0.0, source_weight=0.0, date_boost=0.0,
                                                 neighbour_weight=0.0, answer_weight=0.0, question_weight=1.0,
                                                 kind_boost=0.0)),
                     ("vectors alone", RecallParams(bm25_weight=0.0, vector_weight=1.0, source_weight=0.0,
                                                    date_boost=0.0, neighbour_weight=0.0, answer_weight=0.0,
                                                    question_weight=1.0, kind_boost=0.0))]:
        m = offline_recall(plain, p)
        print(f"{label}: " + " ".join(f"R@{k}={m[k]:.1f}" for k in KS))


# -- main --------------------------------------------------------------------------------------------------


def span(text: str) -> list[int]:
    out = []
    for part in text.split(","):
        a, _, b = part.partition("-")
        out += list(range(int(a), int(b or a) + 1))
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data", type=Path, default=DATA)
    ap.add_argument("--convs", default="0-9", help="conversations to evaluate (default 0-9)")
    ap.add_argument("--held-out", default="5-9", help="conversations the settings were not tuned on")
    ap.add_argument("--tune", metavar="CONVS", nargs="?", const="0-4", help="grid-search fusion settings on CONVS")
    ap.add_argument("--steps", metavar="CONVS", help="replay each change to recall on CONVS (e.g. 5-9)")
    ap.add_argument("--modes", default="hybrid,bm25,vector,plain-bm25")
    ap.add_argument("--set", action="append", default=[], metavar="KEY=VALUE", help="a setting, e.g. recall.rrf_k=20")
    ap.add_argument("--date-in-text", action="store_true", help="prefix each turn with its session date")
    ap.add_argument("--json", type=Path, help="also write the figures here")
    ap.add_argument("--turns-only", action="store_true", help="skip the session-level brains (half the time)")
    args = ap.parse_args(argv)
    if not args.data.exists():
        print(MISSING.format(path=args.data), file=sys.stderr)
        return 2
    data = json.loads(args.data.read_text(encoding="utf-8"))
    from brain_core.catalog.embed import make_embedder

    embedder = make_embedder(None)
    overrides = {}
    for kv in args.set:
        k, _, v = kv.partition("=")
        overrides[k] = json.loads(v) if re.fullmatch(r"-?[\d.]+|true|false", v) else v
    with tempfile.TemporaryDirectory(prefix="aida-locomo-") as tmp:
        workdir = Path(tmp)
        if args.tune or args.steps:
            (tune if args.tune else steps)(data, span(args.tune or args.steps), workdir, embedder, args.date_in_text)
            return 0
        held = set(span(args.held_out))
        every, held_out = Tally(), Tally()
        write_s, turns_n = 0.0, 0
        for i in span(args.convs):
            cfg = make_config(workdir / f"c{i}", overrides)
            tb, turn_of, sb, sess_of, ws = build_brains(data[i], workdir / f"c{i}", cfg, embedder, args.date_in_text,
                                                        with_sessions=not args.turns_only)
            write_s += ws
            turns_n += len(turn_of)
            evaluate(data[i], tb, turn_of, sb, sess_of, args.modes.split(","),
                     [every, held_out] if i in held else [every])
            tb.close()
            if sb is not None:
                sb.close()
            print(f"conversation {i}: {len(turn_of)} turns", file=sys.stderr)
    from brain_core.recall.hybrid import RecallParams

    params = RecallParams.from_config(make_config(workdir, overrides))
    print(f"settings: {params}")
    print("measured through the default recall path: Brain.recall(question, k=50), as the CLI, MCP and tray call it")
    print(f"written: {turns_n} turns in {write_s:.1f} s through remember_many ({turns_n / write_s:.0f} turns/s)")
    if held_out.rows:
        print(held_out.table(f"held-out conversations {args.held_out} (settings never tuned on these)"))
    print(every.table(f"all conversations {args.convs}"))
    if args.json:
        args.json.write_text(json.dumps({"settings": params.__dict__, "held_out": held_out.summary(),
                                         "all": every.summary()}, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
