"""``aida setup`` (first run: detect, preview, connect) and ``aida brain backfill``."""

from __future__ import annotations

import json
import sys
from pathlib import Path


def register(sub, groups) -> None:
    p = sub.add_parser(
        "setup", help="first run: find your agents, install hooks, create the brain, learn from past sessions",
        description="Find the agents on this machine (Claude Code, Codex, Gemini CLI), the microphone, the GPU "
                    "and the keyring, then offer each step with a yes/no and a preview. Running it again is "
                    "harmless: steps already done say so.")
    p.add_argument("--dry-run", action="store_true", help="show what was found and the plan; change nothing")
    p.add_argument("--json", action="store_true", help="print what was found, the steps and their outcome as JSON")
    p.add_argument("--yes", "-y", action="store_true", help="take every step's default without asking")
    p.add_argument("--skip", action="append", default=[], metavar="STEP",
                   help="leave this step out (a step id from --dry-run, e.g. backfill or hooks-codex); repeatable")
    p.add_argument("--clone", metavar="URL", help="clone an existing brain from this git remote instead of a new one")
    p.add_argument("--llm", metavar="PROVIDER",
                   help="answer and distil with this provider: none, ollama, llamacpp, openai, anthropic...")
    p.add_argument("--mic-test", action="store_true", help="record 2 seconds to check the microphone's level")
    p.add_argument("--include-active", action="store_true",
                   help="also learn from sessions changed in the last harvest.quiet_minutes (10)")
    p.set_defaults(func=cmd_setup)

    b = groups["brain"].add_parser(
        "backfill", help="learn from every session the agents already left on disk (newest first, resumable)",
        description="Harvest every transcript not harvested yet, newest first, in small batches: a kill or a "
                    "reboot loses at most one batch, and running it again goes on where it stopped.")
    b.add_argument("--json", action="store_true", help="print the final progress as JSON")
    b.add_argument("--limit", type=int, metavar="N", help="stop after N sessions (the rest is left for the next run)")
    b.add_argument("--batch", type=int, default=8, metavar="N",
                   help="sessions per batch: the most a kill can cost (default 8)")
    b.add_argument("--include-active", action="store_true",
                   help="also read sessions changed in the last harvest.quiet_minutes (10)")
    b.add_argument("--relearn", action="store_true",
                   help="read again, with the configured model, the sessions the offline distiller read")
    b.add_argument("--force", action="store_true", help="run even while harvesting is paused")
    b.set_defaults(func=cmd_backfill)

    o = groups["brain"].add_parser(
        "overview", help="what the brain holds per month, the newest memories, the last harvest, its health",
        description="Records per month by type and source, the newest memories with their origin, what the last "
                    "harvest kept and dropped, INDEX.md's budget and the catalog's freshness.")
    o.add_argument("--json", action="store_true", help="print the overview as JSON")
    o.set_defaults(func=cmd_overview)


def cmd_setup(args, ctx) -> int:
    from brain_core.agents.setup import apply, detect, mic_level, plan

    found = detect(ctx.config, ctx.brain_path())
    steps = plan(found, brain_arg=ctx.brain_arg, clone=args.clone, llm=args.llm, include_active=args.include_active)
    steps = [s for s in steps if s.id not in set(args.skip)]
    level = mic_level() if args.mic_test and not args.dry_run else None
    if args.dry_run:
        if args.json:
            print(json.dumps({"found": found.to_dict(), "steps": [s.to_dict() for s in steps]}, indent=2))
        else:
            _show(found, steps, level)
        return 0
    if not args.json:
        _show(found, steps, level)
    chosen = {s.id for s in steps if s.default} if args.yes else _ask(steps)
    say = (lambda line: None) if args.json else print
    outcome = apply(steps, chosen, found, ctx.config, brain_arg=ctx.brain_arg, clone=args.clone, llm=args.llm,
                    include_active=args.include_active, say=say, on_progress=None if args.json else _Progress())
    if args.json:
        print(json.dumps({"found": found.to_dict(), "steps": [s.to_dict() for s in steps], "outcome": outcome},
                         indent=2))
    return 1 if any(v.startswith("failed") for v in outcome.values()) else 0


def cmd_backfill(args, ctx) -> int:
    from brain_core.harvest.backfill import backfill, lower_priority

    lower_priority()
    brain = ctx.open_brain()
    roots = {k: Path(v).expanduser() for k, v in (ctx.config.get("harvest.roots", {}) or {}).items() if v}
    try:
        p = backfill(brain, roots=roots or None, on_progress=None if args.json else _Progress(), limit=args.limit,
                     batch=max(1, args.batch), include_active=args.include_active, relearn=args.relearn,
                     force=args.force)
    finally:
        brain.close()
    if args.json:
        print(json.dumps(p.to_dict(), indent=2))
    else:
        for note in p.notes:
            print(note)
        print(("Relearn: " if args.relearn else "Backfill: ") + p.summary() + ".")
    return 0


def cmd_overview(args, ctx) -> int:
    from brain_core.lifecycle.overview import overview

    brain = ctx.open_brain()
    try:
        o = overview(brain)
    finally:
        brain.close()
    if args.json:
        print(json.dumps(o, indent=2, ensure_ascii=False))
        return 0
    print(f"{o['records']} records")
    if o["unchecked"]:
        print(f"  {o['unchecked']} of them read offline and unchecked: `aida brain review` goes through them (confirm "
              "or forget each), `aida brain backfill --relearn` reads their sessions again with a model")
    if o["held"]:
        n = sum(o["held"].values())
        unsaid = o["held"].get("unsaid", 0)
        why = ", ".join(filter(None, [f"{unsaid} naming what their session never says" if unsaid else "",
                                      f"{n - unsaid} carrying an order" if n > unsaid else ""]))
        print(f"  and {n} held in quarantine, never served ({why}): `aida brain quarantine` lists them, "
              "`accept ID` keeps one")
    for m in o["by_month"]:
        kinds = ", ".join(f"{k} {v}" for k, v in sorted(m["types"].items()))
        print(f"  {m['month']}: {sum(m['types'].values()):>4}  ({kinds})")
    print("Newest:")
    for r in o["newest"]:
        print(f"  {r['created'][:10]}  {r['key']}: {r['first_line'][:70]} ({r['origin']}"
              + ("; unchecked)" if r["unchecked"] else ")"))
    for h in o["last_harvest"]:
        if "error" in h:
            print(f"Last {h['tool']} harvest: {h['error']} ({h['path']})")
            continue
        print(f"Last {h['tool']} harvest {h['at']}: {h['sessions']} sessions, {len(h['kept'])} kept records, "
              f"{len(h['dropped'])} had nothing worth keeping")
    bf = o.get("backfill")
    if bf and "error" in bf:
        print(f"Backfill: {bf['error']} ({bf['path']})")
    elif bf:
        dropped = ", ".join(f"{n} {why}" for why, n in bf["dropped"].items()) or "none"
        print(f"{'Relearn' if bf.get('relearn') else 'Backfill'} {bf['finished']}: {bf['sessions']} sessions read "
              f"({bf.get('provider') or 'none'}), {bf['records']} records kept from {bf['kept']} sessions; dropped: "
              f"{dropped}" + (f"; {bf['active_left']} left for later (inside the quiet window)" if bf['active_left'] else ""))
    b, c = o["index_budget"], o["catalog"]
    print(f"INDEX.md: {b['message']} (exit {b['exit_code']})")
    print(f"Catalog: {c['indexed']} indexed, {c['pending']} waiting, last scan {c['last_scan'] or 'never'}")
    return 0


def _show(found, steps, level) -> None:
    print(f"Brain: {found.brain} ({'exists' if found.brain_exists else 'not created yet'})")
    for a in found.agents:
        if not a.present:
            print(f"  {a.tool}: not found ({a.home})")
        elif a.error:
            print(f"  {a.tool}: {a.error}")
        else:
            hook = "hook installed" if a.hook_installed else "hook not installed"
            print(f"  {a.tool}: {a.home}, version {a.version or 'unknown'}, {a.sessions} sessions "
                  f"({a.session_bytes / 1e6:.1f} MB), {hook}")
    keys = "keeps API keys" if found.keyring_keeps_keys else "cannot keep API keys (use environment variables)"
    print(f"Keyring: {found.keyring} ({keys})")
    print(f"Speech: {found.speech_device}; embeddings on {found.embed_provider}; LLM: {found.llm_provider}"
          + (f" (auto would use {found.auto_provider})" if found.llm_provider in ("none", "auto") else ""))
    print(f"Sessions: {found.pending_sessions} quiet, ready to learn from; {found.active_sessions} changed in the "
          f"last {found.quiet_minutes:g} minutes"
          + (f"; {found.offline_sessions} read offline, leaving {found.offline_records} unchecked "
             f"record{'s' if found.offline_records != 1 else ''}" if found.offline_sessions else ""))
    print(f"Microphone: {', '.join(found.microphones) if found.microphones else found.microphone_error}")
    if level is not None:
        print(f"Microphone test: {level[1]}" + (f" (peak {level[0]:.2f})" if level[0] is not None else ""))
    print("Steps:")
    for s in steps:
        state = "done" if s.done else ("shown, you run it" if s.manual else ("yes" if s.default else "no"))
        print(f"  [{state}] {s.id}: {s.title}")
        for note in s.notes:
            print(f"         {note}")


def _ask(steps) -> set[str]:
    chosen = set()
    for s in steps:
        if s.done:
            continue
        if s.preview:
            print(f"\n{s.title}\n{s.preview.rstrip()}")
        answer = input(f"{s.title}? [{'Y/n' if s.default else 'y/N'}] ").strip().lower() if sys.stdin.isatty() else ""
        if (answer or ("y" if s.default else "n")).startswith("y"):
            chosen.add(s.id)
    return chosen


class _Progress:
    """One updating line on a terminal, a line per batch otherwise."""

    def __call__(self, p) -> None:
        end = "\r" if sys.stderr.isatty() and p.done < p.total else "\n"
        print(f"Backfill: {p.line()}", end=end, file=sys.stderr, flush=True)
