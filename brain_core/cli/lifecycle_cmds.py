"""``aida brain consolidate | compile | cluster | publish | maintain | budget | sync | counter``."""

from __future__ import annotations

import json


def register(sub, groups) -> None:
    g = groups["brain"]

    p = g.add_parser("consolidate", help="merge related events into durable records (judged; originals archived) "
                                         "and near-duplicate records into one with their sources")
    p.add_argument("--dry-run", action="store_true", help="show the proposals and verdicts, write nothing")
    p.add_argument("--keep", metavar="PATH", help="resolve a listed contradiction by keeping the record at PATH "
                                                 "(two records that disagree: PATH stands, both are kept)")
    p.add_argument("--split", action="store_true", help="restore the sources earlier versions folded into a record "
                                                        "they contradict as records of their own (one commit)")
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=cmd_consolidate)

    p = g.add_parser("compile", help="write the lessons about each topic into knowledge/<slug>.md pages")
    p.add_argument("--dry-run", action="store_true", help="list the pages that would change, write nothing")
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=cmd_compile)

    p = g.add_parser("cluster", help="propose knowledge pages from clusters of related records")
    p.add_argument("--dry-run", action="store_true", help="list the clusters, write nothing")
    p.add_argument("--accept", metavar="SLUG", help="accept a proposal: move it into knowledge/")
    p.add_argument("--reject", metavar="SLUG", help="reject a proposal: move it to archive/proposals/")
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=cmd_cluster)

    p = g.add_parser("publish", help="promote accepted knowledge pages into wiki/")
    p.add_argument("--dry-run", action="store_true", help="list what would be published, write nothing")
    p.add_argument("slugs", nargs="*", metavar="SLUG", help="only these pages (default: every accepted page)")
    p.set_defaults(func=cmd_publish)

    p = g.add_parser("maintain", help="the nightly pass: expiry, decay, archive, lint, INDEX.md")
    p.add_argument("--dry-run", action="store_true", help="report what would change, write nothing")
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=cmd_maintain)

    p = g.add_parser("budget", help="INDEX.md against its character budget (exit 0 within, 1 over, "
                                    "2 past truncation, 3 missing)")
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=cmd_budget)

    p = g.add_parser("sync", help="pull (rebase) then push through the brain's git remote")
    p.add_argument("--remote", help="the git remote (default: sync.remote, else origin)")
    p.add_argument("--no-push", action="store_true", help="pull only")
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=cmd_sync)

    p = g.add_parser("counter", help="hand out the next number of a counter (task numbers), unique across machines")
    p.add_argument("name", nargs="?", default="task", help="the counter (default: task)")
    p.add_argument("--peek", action="store_true", help="show the next number without handing it out")
    p.set_defaults(func=cmd_counter)


def _dump(obj) -> None:
    print(json.dumps(obj, ensure_ascii=False, indent=2))


def cmd_consolidate(args, ctx) -> int:
    from brain_core.lifecycle.consolidate import consolidate, resolve

    brain = ctx.open_brain()
    if args.split:
        return _split(args, brain)
    if args.keep and any(args.keep in c.paths for c in _conflicts(brain)):
        from brain_core.brain.conflicts import choose

        c = choose(brain, args.keep)
        if args.json:
            _dump(c.to_json())
        else:
            print(f"Kept {args.keep}: it stands over {c.sides[1].path}; both records stay.")
        return 0
    if args.keep:
        out = resolve(brain, args.keep)
        if args.json:
            _dump(out.to_json())
        else:
            print(f"Kept {args.keep} as {out.written}; archived {len(out.archived)} event(s).")
        return 0
    report = consolidate(brain, dry_run=args.dry_run)
    if args.json:
        conflicts = _conflicts(brain)
        llm = _judge_llm(brain) if conflicts else None
        _dump({**report.to_json(), "conflicts": [{**c.to_json(), "judge": check(c, llm).to_json()} for c in conflicts]})
        return 0
    verb = "would merge" if report.dry_run else "merged"
    for o in report.outcomes:
        d = o.proposal.draft
        mark = "pass" if o.verdict.ok else "FAIL"
        print(f"[{mark}] {d.profile}/{d.key} ({d.type}) from {len(o.proposal.originals)} records ({o.proposal.why})")
        for r in o.verdict.reasons:
            print(f"    - {r}")
        if o.written:
            print(f"    wrote {o.written}; archived {len(o.archived)} event(s)")
    for contra in report.contradictions:
        print(f"[contradiction] {contra.profile}/{contra.key}: choose one with `aida brain consolidate --keep PATH`")
        for path in contra.paths:
            print(f"    {path}")
        for detail in contra.details[:5]:
            print(f"    - {detail}")
    conflicts = _conflicts(brain)
    llm = _judge_llm(brain) if conflicts else None
    for c in conflicts:
        first, second = c.sides
        how = "your choice" if c.chosen else "the newer"
        print(f"[conflict] {first.path} stands over {second.path} ({how}); merged: neither; "
              f"choose with `aida brain consolidate --keep PATH`")
        print(f"    - {c.why}")
        verdict = check(c, llm)
        print(f"    - judge ({verdict.judge}): {'agrees' if verdict.agrees else 'does not agree'}: {verdict.why}")
    for m in report.duplicates:
        print(f"[near-duplicates] {m.keep} keeps the words; {verb} {len(m.merged)} record(s) into it as sources")
        for path, cos, by in zip(m.merged, m.cosines, m.judged or ["words"] * len(m.merged)):
            why = "" if by == "words" else f", the same fact as judged by {by.removeprefix('model:')}"
            print(f"    {path} (cosine {cos:.2f}{why})" + (" -> archive/" if m.written else ""))
    asked = report.asked
    if asked is not None and (asked.pairs or (asked.note and asked.note.startswith("the model could not"))):
        print(f"[model] asked about {asked.pairs} pair(s) of records the word checks were unsure of, in "
              f"{asked.calls} call(s); {len(asked.same)} called the same fact" + (f"; {asked.note}" if asked.note else ""))
    passed = sum(1 for o in report.outcomes if o.verdict.ok)
    print(f"{len(report.outcomes)} proposal(s), {passed} {verb} (judge: {report.judge}); "
          f"{len(report.contradictions)} contradiction(s) for you to resolve; "
          f"{len(report.duplicates)} group(s) of near-duplicates {verb}"
          + (f"; {len(conflicts)} pair(s) of records that disagree, kept apart." if conflicts else "."))
    return 0


def _conflicts(brain) -> list:
    from brain_core.brain.conflicts import find_conflicts

    return find_conflicts(brain)


def check(c, llm):
    from brain_core.brain.conflicts import check as judge_check

    return judge_check(c, llm)


def _judge_llm(brain):
    """The configured LLM, which checks which of two records stands; None: the dates decide."""
    from brain_core.errors import ProviderError
    from brain_core.llm import make_provider

    try:
        return make_provider(brain.config)
    except ProviderError:
        return None


def _split(args, brain) -> int:
    from brain_core.brain.conflicts import split

    done = split(brain, dry_run=args.dry_run)
    if args.json:
        _dump([{"record": f.path, "restore_to": f.restore_to, "why": f.why, "done": what} for f, what in done])
        return 0
    for f, what in done:
        print(f"[split] {f.restore_to} from {f.path}: {what} ({f.why})")
    n = sum(1 for _, w in done if w == "restored")
    print(f"{len(done)} wrongly folded source(s); {n} restored." if done else "No wrongly folded sources.")
    return 0


def cmd_compile(args, ctx) -> int:
    from brain_core.lifecycle.compile import compile_lessons

    report = compile_lessons(ctx.open_brain(), dry_run=args.dry_run)
    if args.json:
        _dump(report.to_json())
        return 0
    for path, n in report.pages:
        state = ("would change" if report.dry_run else "written") if path in report.written else "unchanged"
        print(f"{path}: {n} lessons ({state})")
    print(f"{len(report.pages)} page(s); {report.waiting} lesson(s) wait for more on their topic.")
    return 0


def cmd_cluster(args, ctx) -> int:
    from brain_core.lifecycle import cluster

    brain = ctx.open_brain()
    if args.accept:
        print(f"Accepted: {cluster.accept(brain, args.accept)}")
        return 0
    if args.reject:
        print(f"Rejected: {cluster.reject(brain, args.reject)}")
        return 0
    found = cluster.write_proposals(brain, dry_run=args.dry_run)
    if args.json:
        _dump([{"slug": p.slug, "title": p.title, "path": p.path, "sources": [d.path for d in p.members]}
               for p in found])
        return 0
    for p in found:
        print(f"{p.path}: {p.title} ({len(p.members)} records)")
    if found and not args.dry_run:
        print("Read and edit them, then `aida brain cluster --accept SLUG` (or --reject SLUG).")
    elif not found:
        print("No new clusters worth a page.")
    return 0


def cmd_publish(args, ctx) -> int:
    from brain_core.lifecycle.publish import publish

    report = publish(ctx.open_brain(), args.slugs or None, dry_run=args.dry_run)
    for src, dst in report.pages:
        state = ("would change" if report.dry_run else "written") if dst in report.written else "unchanged"
        print(f"{src} -> {dst} ({state})")
    if not report.pages:
        print("No accepted pages to publish; accept one with `aida brain cluster --accept SLUG`.")
    return 0


def cmd_maintain(args, ctx) -> int:
    from brain_core.agents.session_start import refresh_agents_block
    from brain_core.lifecycle.maintain import maintain

    report = maintain(ctx.open_brain(), dry_run=args.dry_run, refresh=refresh_agents_block)
    if args.json:
        _dump(report.to_json())
        return 0
    would = "would be " if report.dry_run else ""
    if report.reader:
        print("This machine is a reader: nothing was written.")
    print(f"Scored {report.scored} records; {report.low_value} low-value.")
    print(f"Expired and {would}marked stale: {len(report.expired)}")
    for path in report.expired:
        print(f"    {path}")
    print(f"Archived ({would}moved, nothing deleted): {len(report.archived)}")
    for src, dst in report.archived:
        print(f"    {src} -> {dst}")
    if report.kept_in_index:
        print(f"Kept though unused, because INDEX.md loads them: {len(report.kept_in_index)}")
    print(f"INDEX.md: {report.index_loaded} entries, {report.index_chars} characters; "
          f"{report.index_shelved} on the shelf.")
    for path in report.refreshed:
        print(f"Memory block {would}refreshed in {path}")
    print(f"Lint: {len(report.problems)} problem(s)" + (" (see `aida brain lint`)" if report.problems else ""))
    return 0


def cmd_budget(args, ctx) -> int:
    from brain_core.lifecycle.tier_index import check_budget

    check = check_budget(ctx.open_brain())
    if args.json:
        _dump({"code": check.code, "chars": check.chars, "cap": check.cap, "truncate": check.truncate,
               "message": check.message})
    else:
        print(check.message)
    return check.code


def cmd_sync(args, ctx) -> int:
    from brain_core.sync import sync

    report = sync(ctx.open_brain(), remote=args.remote, push=not args.no_push)
    if args.json:
        _dump(report.to_json())
        return 0
    if report.lock_cleared:
        print("Cleared a stale .git/index.lock left by a crashed git.")
    if report.committed_local_edits:
        print(f"Committed {report.committed_local_edits} file(s) changed outside Aida.")
    print(f"Pulled {report.pulled} commit(s) from {report.remote}/{report.branch}; pushed {report.pushed}"
          + (f"; {report.held_back} local commit(s) kept here (this machine is a reader)" if report.held_back else "")
          + ".")
    for c in report.conflicts:
        print(f"[conflict] {c.path}: {c.resolution}")
    for name, nums in report.duplicates.items():
        for n, paths in nums.items():
            print(f"[duplicate {name} {n}] held by {', '.join(paths)}; renumber one of them")
    if report.counters:
        print("Next numbers: " + ", ".join(f"{k} {v}" for k, v in report.counters.items()))
    print(f"Index: {report.index}")
    return 0


def cmd_counter(args, ctx) -> int:
    from brain_core.config.machine import require_writer
    from brain_core.sync import Counters

    brain = ctx.open_brain()
    counters = Counters(brain)
    if args.peek:
        print(counters.peek(args.name))
        return 0
    require_writer(brain.config, "hand out numbers")
    print(counters.allocate(args.name))
    return 0
