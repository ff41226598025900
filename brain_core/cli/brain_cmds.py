"""``aida brain init | remember | recall | index | status | lint``."""

from __future__ import annotations

import json
import sys
import time
from typing import AbstractSet

from brain_core.marks import OFFLINE_TAG
from brain_core.records import RECORD_TYPES


def register(sub, groups) -> None:
    g = groups["brain"]

    p = g.add_parser("init", help="create a brain (a git repository with Aida's layout)")
    p.add_argument("path", nargs="?", metavar="PATH",
                   help="where to create it (default: --brain, $AIDA_BRAIN, the `brain` setting, the user data folder)")
    p.set_defaults(func=cmd_init)

    p = g.add_parser("remember", help="write one record (relearning a key replaces it)")
    p.add_argument("--type", default="fact", choices=RECORD_TYPES, help="what kind of memory it is (default: fact)")
    p.add_argument("--key", help="kebab-case key; derived from the body when omitted")
    p.add_argument("--profile", default="me", help="which tool or person it came from (default: me)")
    p.add_argument("--tags", default="", help="comma-separated tags, e.g. project:billing,infra")
    p.add_argument("--source", default="", help="where it came from, precise enough to go back")
    p.add_argument("--expires", help="ISO date after which recall marks it as possibly stale")
    p.add_argument("--json", action="store_true", help="print the written record as JSON")
    p.add_argument("body", nargs="+", help="what to remember ('-' reads standard input)")
    p.set_defaults(func=cmd_remember)

    p = g.add_parser("recall", help="find records by meaning and by words")
    p.add_argument("-k", type=int, default=5, help="how many results (default 5)")
    p.add_argument("--profile", help="only records from this tool or person (claude, codex, meeting, me...)")
    p.add_argument("--type", choices=RECORD_TYPES, help="only records of this type")
    p.add_argument("--tag", help="only records with this tag, e.g. project:billing")
    p.add_argument("--recent", action="store_true", help="newest first among what matches")
    p.add_argument("--explain", action="store_true", help="show each stage's rank and score, decay and path")
    p.add_argument("--json", action="store_true", help="print a JSON array, best first")
    p.add_argument("--depth", choices=("abstract", "full"), default="abstract",
                   help="with --json: a long record's abstract (default) or its full body")
    p.add_argument("--as-of", dest="as_of", help="answer from the brain as it was at this date (YYYY-MM-DD)")
    p.add_argument("--all", action="store_true", dest="show_all",
                   help="also show results unrelated to the query (confidence none); --json always has them")
    p.add_argument("--project", metavar="NAME", help="rank this project's records first (default: this folder's "
                                                     "project, as harvest tags it)")
    p.add_argument("--all-projects", action="store_true", help="no project first: every project alike")
    p.add_argument("--archived", action="store_true",
                   help="also search forgotten records in archive/ (by words; shown with their archive path)")
    p.add_argument("query", nargs="+", help="what to look for, in your own words")
    p.set_defaults(func=cmd_recall)

    p = g.add_parser("index", help="bring the card catalog up to date with the files")
    p.add_argument("--full", action="store_true", help="rebuild into a new file and swap it in atomically")
    p.add_argument("--background", action="store_true", help="do the full rebuild in a detached process")
    p.set_defaults(func=cmd_index)

    p = g.add_parser("status", help="records, index freshness, pending changes")
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=cmd_status)

    p = g.add_parser("lint", help="report malformed files, unknown types, duplicate keys and copies (exit 1 when any); "
                                  "near-duplicates are listed as notes")
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=cmd_lint)

    p = g.add_parser("quarantine", help="records the guard held back as standing orders: list, accept or drop them")
    p.add_argument("action", nargs="?", choices=("list", "accept", "drop", "scan"), default="list",
                   help="list (default), accept ID (keep it as a memory), drop ID (delete it), or scan the records "
                        "already on the shelves and hold those that carry orders")
    p.add_argument("--dry-run", action="store_true", help="with scan: show what would be held, move nothing")
    p.add_argument("id", nargs="?", help="the held record's id, quarantine path or profile/key")
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=cmd_quarantine)

    p = g.add_parser("audit", help="how many agent sessions used each INDEX.md and shelf entry and knowledge page")
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=cmd_audit)


def cmd_audit(args, ctx) -> int:
    from brain_core.lifecycle.audit import audit, render

    result = audit(ctx.open_brain())
    print(json.dumps(result.to_json(), ensure_ascii=False) if args.json else render(result))
    return 0


def cmd_init(args, ctx) -> int:
    from brain_core.brain import Brain

    path = ctx.config.brain_path(args.path) if args.path else ctx.brain_path()
    Brain.init(path, config=ctx.config)
    print(f"Brain ready at {path}")
    return 0


LESSON_REFUSED = ("--type lesson is kept for feedback on answers (aida feedback), which recall leaves out; write a "
                  "gotcha as --type note or instruction so that recall finds it.")


def cmd_remember(args, ctx) -> int:
    if args.type == "lesson":  # nothing written is silently unreachable
        from brain_core.errors import InvalidInput

        raise InvalidInput(LESSON_REFUSED)
    body = " ".join(args.body)
    if body == "-":
        body = sys.stdin.read()
    brain = ctx.open_brain()
    rec = brain.remember(body, type=args.type, key=args.key, profile=args.profile, tags=args.tags,
                         source=args.source, expires=args.expires)
    if args.json:
        print(json.dumps(rec.to_dict(), ensure_ascii=False, sort_keys=True))
    elif isinstance(rec.extra.get("quarantine"), dict):
        q = rec.extra["quarantine"]
        print(f"Quarantined {rec.profile}/{rec.key}: {q['why']} ({q['category']}), so no agent is served it. "
              f"`aida brain quarantine accept {rec.id}` keeps it as a memory.")
    elif rec.profile != (args.profile or "me"):  # linked: another profile's record says the same (dedupe.py)
        print(f"Already known as {rec.profile}/{rec.key} (memories/{rec.profile}/{rec.key}.json); "
              "added this as one of its sources")
    else:
        extra = f" (supersedes {rec.supersedes})" if rec.supersedes else ""
        print(f"Remembered {rec.profile}/{rec.key}{extra}")
    return 0


def cmd_recall(args, ctx) -> int:
    query = " ".join(args.query)
    if args.as_of:
        from brain_core.lifecycle.asof import recall_as_of

        hits = recall_as_of(ctx, args.as_of, query, k=args.k, profile=args.profile, type=args.type, tag=args.tag,
                            recent=args.recent, explain=args.explain)
    else:
        from brain_core.harvest.projects import from_cwd

        brain = ctx.open_brain()
        brain.project = from_cwd(args.project, args.all_projects)  # this folder's project first (a lift)
        hits = brain.recall(query, k=args.k, profile=args.profile, type=args.type, tag=args.tag,
                            recent=args.recent, explain=args.explain)
    if getattr(args, "archived", False):
        from brain_core.lifecycle.forget import recall_archived

        hits = list(hits) + recall_archived(ctx.open_brain(), query, k=args.k)
    if args.json:
        print(json.dumps([h.to_json(depth=args.depth) for h in hits], ensure_ascii=False))
        return 0
    unrelated = [h for h in hits if h.confidence == "none"]
    if not args.show_all:
        hits = [h for h in hits if h.confidence != "none"]
    if not hits:
        print(f"Nothing close; {len(unrelated)} unrelated result(s) left out (--all shows them)." if unrelated
              else "Nothing found.")
        return 0
    for i, h in enumerate(hits, 1):
        r = h.record
        date = r.created[:10] if r.created else "undated"
        stale = "  [possibly stale: expired " + (r.expires or "")[:10] + "]" if h.stale else ""
        sure = f"  {h.confidence}" if h.confidence else ""
        unchecked = "  [unchecked: read offline]" if OFFLINE_TAG in r.tags else ""
        print(f"{i}. [{r.type}] {r.key}  ({r.profile}, {date})  score {h.score:.4f}{sure}{stale}{unchecked}")
        body = r.body if len(r.body) <= 300 else r.body[:297] + "..."
        for line in body.splitlines() or [""]:
            print(f"   {line}")
        if args.explain and h.explain:
            print("   why: " + _explain_line(h.explain))
        print(f"   {h.path}")
    if unrelated and not args.show_all:
        print(f"({len(unrelated)} unrelated result(s) left out; --all shows them)")
    return 0


def _explain_line(ex: dict) -> str:
    parts = []
    for stage in ("bm25", "vector"):
        v = ex.get(stage)
        parts.append(f"{stage} " + (f"#{v['rank']} ({v['score']:.3f})" if v else "-"))
    if "fused" in ex:
        parts.append(f"fused {ex['fused']:.4f}")
    if "decay" in ex:
        parts.append(f"decay x{ex['decay']:.3f} (used {ex.get('uses', 0)}x)")
    if ex.get("mode") == "recency":
        parts.append(f"recency #{ex['rank']}, created {ex.get('created') or '?'}")
    return ", ".join(parts)


def cmd_index(args, ctx) -> int:
    brain = ctx.open_brain()
    idx = brain.index
    if args.background:
        idx.start_background_rebuild()
        print("Rebuilding the index in the background; recall answers from the current index meanwhile.")
        return 0
    t0 = time.perf_counter()
    if args.full:
        from brain_core.catalog.factory import rebuild

        stats = rebuild(brain, progress=_progress if sys.stderr.isatty() else None)
        if stats is None:
            return 0
        print(f"Rebuilt: {stats.written} records ({stats.embedded} embedded, {stats.reused} vectors reused) "
              f"in {time.perf_counter() - t0:.1f} s")
        problems = idx.counts()["problems"]
        for p in problems:
            print(f"aida: warning: {p.path} {p.message}", file=sys.stderr)
    else:
        report, stats = idx.sync(progress=_progress if sys.stderr.isatty() else None)
        if idx.swept_tmp:
            print(f"aida: removed {idx.swept_tmp} temp file(s) left by interrupted writes", file=sys.stderr)
        problems = report.problems
        for p in problems:
            print(f"aida: warning: {p.path} {p.message}", file=sys.stderr)
        print(f"Index: {report.summary()}; {stats.embedded} embedded, {stats.reused} reused "
              f"({time.perf_counter() - t0:.2f} s)")
        if stats.held:
            print(f"Left {stats.held} record(s) as the catalog has them: another clone indexed newer versions "
                  "from commits this one has not pulled (`git pull`, then index again).")
    committed = _commit_hand_edits(brain, {p.path for p in problems})
    if committed:
        print(f"Committed {committed} hand-edited file(s) to the brain's history.")
    return 0


def _commit_hand_edits(brain, warned: AbstractSet[str] = frozenset()) -> int:
    """Commit files changed by hand on the shelves, except those lint refuses (each named once)."""
    from brain_core.lifecycle.lint import commit_refusal
    from brain_core.store.shelves import SHELVES, on_shelf, printable

    with brain.lock():
        pending = []
        for p in brain.git.uncommitted(list(SHELVES) + ["archive", "wiki"]):
            why = commit_refusal(brain.root, p)
            if why is None:
                pending.append(p)
            elif printable(p) not in warned and not on_shelf(p):  # shelf files: the index's warning, lint
                print(f"aida: warning: {printable(p)} {why}, so it is not committed", file=sys.stderr)
        if pending:
            with brain.writing(f"index: record {len(pending)} file(s) changed outside Aida", index=False) as tx:
                for p in pending:  # nothing rewritten: one commit of the hand edits
                    tx.include(p, index=False)
    return len(pending)


def _progress(done: int, total: int) -> None:
    print(f"\r  indexing {done}/{total}", end="" if done < total else "\n", file=sys.stderr, flush=True)


def cmd_status(args, ctx) -> int:
    from brain_core.brain.status import brain_status

    st = brain_status(ctx.open_brain())
    if args.json:
        print(json.dumps(st, ensure_ascii=False, indent=2))
        return 0
    print(f"Brain: {st['root']}  (HEAD {st['head'][:10] if st['head'] else 'none'})")
    print(f"Records in the index: {st['indexed_total']}  " + ", ".join(f"{k} {v}" for k, v in st["indexed"].items()))
    print(f"Files on the shelves: {st['files']}")
    fresh = "fresh" if st["pending"]["total"] == 0 else (
        f"{st['pending']['new']} new, {st['pending']['modified']} changed, {st['pending']['deleted']} deleted since the last scan")
    print(f"Index: {fresh}; last scan {st['last_scan'] or 'never'}"
          + ("; a rebuild is running" if st["rebuild_running"] else ""))
    if st["uncommitted"]:
        print(f"Uncommitted files: {len(st['uncommitted'])} (run `aida brain index` to commit them)")
    if st["problems"]:
        print(f"Skipped files: {len(st['problems'])} (see `aida brain lint`)")
    return 0


def cmd_lint(args, ctx) -> int:
    from brain_core.lifecycle.lint import lint

    notices: list = []
    problems = lint(ctx.open_brain(), notices)
    if args.json:
        print(json.dumps([{"path": p.path, "problem": p.message} for p in problems]
                         + [{"path": n.path, "notice": n.message} for n in notices], ensure_ascii=False, indent=2))
    else:
        for p in problems:
            print(f"{p.path}: {p.message}")
        for n in notices:
            print(f"{n.path}: note: {n.message}")
        split = sum(1 for n in notices if n.message.startswith("disagrees with "))  # conflicts.lint_conflicts
        dups = len(notices) - split
        note = f" {dups} near-duplicate(s), not counted as problems." if dups else ""
        note += f" {split} pair(s) of records that disagree, not counted as problems." if split else ""
        print((f"{len(problems)} problem(s)." if problems else "No problems.") + note)
    return 1 if problems else 0


def cmd_quarantine(args, ctx) -> int:
    from brain_core.brain import quarantine
    from brain_core.errors import InvalidInput

    brain = ctx.open_brain()
    if args.action == "list":
        items = quarantine.held(brain)
        if args.json:
            print(json.dumps([h.to_json() for h in items], ensure_ascii=False, indent=2))
            return 0
        if not items:
            print("Nothing in quarantine.")
            return 0
        for h in items:
            first = h.info.get("excerpt") or (h.record.body.splitlines()[0] if h.record.body else "")
            print(f"{h.record.id}  {h.path}  [{h.info.get('category', '?')}]")
            print(f"   {first[:160]}")
            print(f"   why: {h.info.get('why', '?')}; from {h.record.source or h.info.get('door', '?')}")
        print(f"{len(items)} held. `aida brain quarantine accept ID` keeps one as a memory, `drop ID` deletes it.")
        return 0
    if args.action == "scan":
        found = quarantine.scan(brain, dry_run=args.dry_run)
        if args.json:
            print(json.dumps([h.to_json() for h in found], ensure_ascii=False, indent=2))
            return 0
        for h in found:
            print(f"{'would hold' if args.dry_run else 'held'} {h.info['intended']} -> {h.path} "
                  f"[{h.info['category']}]: {h.info['excerpt'][:100]}")
        print(f"{len(found)} record(s) on the shelves carry standing orders"
              + ("." if args.dry_run or not found else "; moved to quarantine/, never served."))
        return 0
    if not args.id:
        raise InvalidInput(f"`aida brain quarantine {args.action}` needs the ID `aida brain quarantine` lists.")
    if args.action == "accept":
        rec = quarantine.accept(brain, args.id)
        print(json.dumps(rec.to_dict(), ensure_ascii=False, sort_keys=True) if args.json
              else f"Accepted: {rec.profile}/{rec.key} is a memory now (memories/{rec.profile}/{rec.key}.json)")
        return 0
    h = quarantine.drop(brain, args.id)
    print(json.dumps(h.to_json(), ensure_ascii=False) if args.json else f"Dropped {h.path} (git keeps its history)")
    return 0
