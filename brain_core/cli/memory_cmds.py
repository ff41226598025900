"""``aida brain forget | restore | confirm | review`` and ``aida brain session-start`` (what a session-start hook runs)."""

from __future__ import annotations

import json
import sys


def register(sub, groups) -> None:
    g = groups["brain"]
    p = g.add_parser("forget", help="archive a wrong or stale record: recall no longer finds it (nothing deleted)",
                     description="Move the record to archive/ with the reason, the date and who asked, in one "
                                 "commit. Nothing recalls it any more (recall --archived still finds it); "
                                 "`aida brain restore KEY` undoes it, and `remember --key KEY` writes a correction.")
    _one_record(p, "the record's key (or its path, e.g. memories/me/x.json)")
    p.add_argument("--reason", default="", metavar="TEXT", help="why it is wrong or stale (kept with it)")
    p.set_defaults(func=cmd_forget)

    p = g.add_parser("restore", help="bring a forgotten record back where it lived (undoes forget)")
    _one_record(p, "the forgotten record's key (or its archive path)")
    p.set_defaults(func=cmd_restore)

    p = g.add_parser("confirm", help="mark a record the offline distiller wrote as read and right (no longer unchecked)",
                     description="Take the harvest:offline tag and the lower confidence off a record that a "
                                 "person has read and found right, in place (same id), in one commit. The "
                                 "session-start block and recall then show it like any other record.")
    _one_record(p, "the record's key (or its path, e.g. memories/claude/x.json)")
    p.set_defaults(func=cmd_confirm)

    p = g.add_parser("review", help="go through the records read offline: confirm the right ones, forget the wrong",
                     description="Show each record the offline distiller wrote that no one has confirmed, newest "
                                 "first, and ask: confirm it (right: no longer unchecked), forget it (wrong: to "
                                 "archive/), skip it, or quit. Without a terminal it lists them, with the commands.")
    p.add_argument("--limit", type=int, default=None, metavar="N", help="at most N records")
    p.add_argument("--json", action="store_true", help="list them as JSON (asks nothing)")
    p.set_defaults(func=cmd_review)

    p = g.add_parser("session-start", help="print what an agent should know as a session starts (a hook runs it)",
                     description="Print, within INDEX.md's character budget, the standing instructions, then the "
                                 "records of the session's project, then the rest of INDEX.md. Reads the hook's "
                                 "JSON on stdin (its cwd names the project); prints nothing when the brain "
                                 "cannot be read.")
    p.add_argument("--hook", metavar="AGENT", choices=("claude", "gemini", "codex"),
                   help="read the agent's hook JSON on stdin and answer in its hook format")
    p.add_argument("--cwd", help="the session's folder (default: the hook's cwd, else this folder)")
    p.set_defaults(func=cmd_session_start)


def _one_record(p, what: str) -> None:
    """The arguments of a command about one record: its key (or path), --profile, --json."""
    p.add_argument("key", metavar="KEY", help=what)
    p.add_argument("--profile", help="which profile's record, when several hold the key")
    p.add_argument("--json", action="store_true")


def cmd_forget(args, ctx) -> int:
    from brain_core.lifecycle.forget import forget

    moved = forget(ctx.open_brain(), args.key, profile=args.profile, reason=args.reason, by="cli")
    if args.json:
        print(json.dumps(moved.to_json(), ensure_ascii=False))
    else:
        print(f"Forgot {moved.src} (moved to {moved.dst}); `aida brain restore {moved.record.key}` brings it back.")
    return 0


def cmd_restore(args, ctx) -> int:
    from brain_core.lifecycle.forget import restore

    moved = restore(ctx.open_brain(), args.key, profile=args.profile)
    if args.json:
        print(json.dumps(moved.to_json(), ensure_ascii=False))
    else:
        print(f"Restored {moved.dst} (from {moved.src}).")
    return 0


def cmd_confirm(args, ctx) -> int:
    from brain_core.lifecycle.forget import confirm

    rel, rec, changed = confirm(ctx.open_brain(), args.key, profile=args.profile)
    if args.json:
        print(json.dumps({"path": rel, "key": rec.key, "profile": rec.profile, "id": rec.id, "changed": changed},
                         ensure_ascii=False))
    elif changed:
        print(f"Confirmed {rel}: no longer marked unchecked.")
    else:
        print(f"{rel} was not marked unchecked; nothing to confirm.")
    return 0


def cmd_review(args, ctx) -> int:
    from brain_core.lifecycle.forget import confirm, forget, unchecked
    from brain_core.lifecycle.overview import origin

    brain = ctx.open_brain()
    todo = unchecked(brain)
    shown = todo if args.limit is None else todo[:max(0, args.limit)]
    if args.json:
        print(json.dumps([{"path": rel, "key": r.key, "profile": r.profile, "type": r.type, "created": r.created,
                           "source": r.source, "body": r.body} for rel, r in shown], ensure_ascii=False))
        return 0
    if not todo:
        print("Nothing to review: no record read offline is waiting to be checked.")
        return 0
    ask = sys.stdin.isatty()
    print(f"{len(todo)} record{'s' if len(todo) != 1 else ''} read offline, not yet checked"
          + (f"; the newest {len(shown)}:" if len(shown) < len(todo) else ":"))
    done = {"confirmed": 0, "forgot": 0}
    for n, (rel, r) in enumerate(shown, 1):
        print(f"\n{n}. [{r.type}] {r.key} ({origin(r)})\n   " + "\n   ".join(r.body.splitlines() or [""]) + f"\n   {rel}")
        if not ask:
            continue
        try:
            answer = input("   right (c: confirm), wrong (f: forget), s: skip, q: quit? ").strip().lower()[:1]
        except EOFError:
            answer = "q"
        if answer == "q":
            break
        if answer == "c":
            confirm(brain, rel)
            done["confirmed"] += 1
        elif answer == "f":
            forget(brain, rel, reason="wrong: found so in review", by="review")
            done["forgot"] += 1
    if not ask:
        print("\n`aida brain confirm KEY` keeps one as right, `aida brain forget KEY` archives a wrong one; "
              "run `aida brain review` in a terminal to go through them one by one.")
        return 0
    left = len(todo) - done["confirmed"] - done["forgot"]
    print(f"\nConfirmed {done['confirmed']}, forgot {done['forgot']}; {left} still unchecked.")
    return 0


def cmd_session_start(args, ctx) -> int:
    from brain_core.agents.session_start import run_hook

    payload = sys.stdin.read() if args.hook and not sys.stdin.isatty() else ""
    out = run_hook(ctx, args.hook, payload, cwd=args.cwd)
    if out:
        sys.stdout.write(out)
    return 0
