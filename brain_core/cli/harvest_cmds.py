"""``aida brain harvest``: learn from coding-agent sessions and mirror the agents' memory files.

The agents' hooks call it as ``aida brain harvest --hook <agent>``: it reads what the agent
passed, starts the real harvest in a detached process and returns at once, printing nothing (an
agent may read a hook's output as instructions).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

NAMES = ("claude", "codex", "gemini")


def register(sub, groups) -> None:
    p = groups["brain"].add_parser(
        "harvest", help="learn from Claude Code, Codex and Gemini sessions (and mirror their memory files)",
        description="Harvest sessions that are past their watermark and have been quiet for "
                    "harvest.quiet_minutes (10), trimmed, with secrets masked, distilled into 0-5 records each.",
    )
    p.add_argument("--source", choices=NAMES, action="append", help="only this agent (repeatable; default: all)")
    p.add_argument("--file", action="append", type=Path, metavar="PATH",
                   help="harvest this transcript now, whatever its watermark (repeatable)")
    p.add_argument("--now", action="store_true", help="do not wait for sessions to be quiet")
    p.add_argument("--dry-run", action="store_true", help="show what would be written and which redactions fired")
    p.add_argument("--no-mirror", action="store_true", help="leave the agents' memory files alone this time")
    p.add_argument("--json", action="store_true", help="print the result as JSON")
    p.add_argument("--force", action="store_true", help="harvest even while harvesting is paused")
    p.add_argument("--hook", choices=NAMES, help=argparse.SUPPRESS)
    p.add_argument("payload", nargs="?", help=argparse.SUPPRESS)  # Codex's notify appends its JSON here
    p.set_defaults(func=cmd_harvest)


def cmd_harvest(args, ctx) -> int:
    if args.hook:
        return _from_hook(args, ctx)
    from brain_core.harvest.run import sweep

    brain = ctx.open_brain()
    sources = tuple(dict.fromkeys(args.source or NAMES))
    roots = {k: Path(v).expanduser() for k, v in (ctx.config.get("harvest.roots", {}) or {}).items() if v}
    try:
        result = sweep(brain, sources=sources, roots=roots, files=args.file or (), ignore_quiet=args.now,
                       dry_run=args.dry_run, include_mirror=not args.no_mirror, force=args.force)
    finally:
        brain.close()
    if args.json:
        print(json.dumps(result.to_dict(), ensure_ascii=False, indent=2))
    else:
        _print(result, quiet_minutes=ctx.config.get("harvest.quiet_minutes", 10))
    return 1 if result.errors else 0


def _print(result, quiet_minutes) -> None:
    verb = "would write" if result.dry_run else "wrote"
    if result.reader:
        print("This machine is a reader (machine.role: reader): nothing is written; showing what would be.")
    for note in result.notes:
        print(f"aida: note: {note}", file=sys.stderr)
    for o in result.outcomes:
        name = "mirror" if o.tool == "mirror" else f"{o.tool} {o.session[:13]}"
        fired = ", ".join(f"{rule} x{n}" for rule, n in sorted(o.redactions.items()))
        if o.error:
            print(f"{name}: failed: {o.error}")
            continue
        shown = o.records if result.dry_run else [r for r in o.records if _path(r) in set(o.written)]
        print(f"{name} ({o.reason}): {len(o.records)} proposed, {verb} {len(shown)}"
              + (f"; redacted {fired}" if fired else ""))
        for r in shown:
            first = r["body"].splitlines()[0] if r["body"] else ""
            print(f"  + [{r['type']}] {r['profile']}/{r['key']}: {first[:110]}")
        for r in (o.records if result.dry_run else [r for r in o.records if _held(r) in set(o.quarantined)]):
            from brain_core.brain.quarantine import reason

            caught = reason(r["body"], (r.get("extra") or {}).get("unsaid"))
            if caught:
                print(f"  ! {'would quarantine' if result.dry_run else 'quarantined'} [{caught.category}] "
                      f"{r['profile']}/{r['key']}: {caught.excerpt[:100]} (`aida brain quarantine` lists it)")
        for body in getattr(o, "refused", []):
            print(f"  - refused, an order aimed at the assistant: {body.splitlines()[0][:100] if body else ''}")
    skipped = ", ".join(f"{n} {why}" for why, n in sorted(result.skipped.items()))
    if skipped:
        print(f"Skipped: {skipped} (quiet window {quiet_minutes} min; --now ignores it).")
    failed = result.errors
    if result.paused:
        print(result.notes[0])
    elif not result.outcomes and not skipped:
        print("Nothing to harvest.")
    elif not result.dry_run:
        print(f"{result.written} record(s) written.")
    if failed:  # last, so a caller showing the last line shows this
        print(f"{len(failed)} session(s) could not be harvested and will be retried: {failed[0].error}")
    elif result.fallback:  # the tray shows the last line: the provider's trouble, in one line
        print(f"Read offline: {result.fallback}")


def _held(r: dict) -> str:
    return f"quarantine/{r['profile']}/{r['key']}.json"


def _path(r: dict) -> str:
    return f"memories/{r['profile']}/{r['key']}.json"


def _from_hook(args, ctx) -> int:
    """Called by an agent: never block it, never fail it, never print to its stdout. Inside a call
    Aida made to an agent's CLI (``AIDA_CHILD``), or while harvesting is paused, it does nothing."""
    from brain_core.agents.hooks import hook_plan, spawn_detached
    from brain_core.errors import BrainError
    from brain_core.harvest.run import paused
    from brain_core.llm.agent_cli import is_child

    if is_child() or paused(ctx.config):
        return 0

    payload = args.payload if args.payload is not None else _read_stdin()
    try:
        harvest_args = hook_plan(args.hook, payload)
        log = None
        brain_path = ctx.brain_path()
        if (brain_path / ".aida").is_dir():
            log = brain_path / ".aida" / "harvest.log"
        spawn_detached(harvest_args, brain=ctx.brain_arg, log=log)
    except (BrainError, OSError) as e:
        print(f"aida: the harvest hook could not start ({e}).", file=sys.stderr)
    return 0


def _read_stdin(wait_s: float = 2.0) -> str | None:
    """The hook payload an agent writes to stdin; never waits long for one that does not come."""
    if sys.stdin is None or sys.stdin.isatty():
        return None
    if os.name != "nt":
        import select

        try:
            ready, _, _ = select.select([sys.stdin], [], [], wait_s)
        except (OSError, ValueError):
            return None
        if not ready:
            return None
    return sys.stdin.read(1_000_000)
