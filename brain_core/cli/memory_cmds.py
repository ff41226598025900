"""``aida brain forget | restore | confirm`` and ``aida brain session-start`` (what a session-start hook runs)."""

from __future__ import annotations

import json
import sys


def register(sub, groups) -> None:
    g = groups["brain"]
    p = g.add_parser("forget", help="archive a wrong or stale record: recall no longer finds it (nothing deleted)",
                     description="Move the record to archive/ with the reason, the date and who asked, in one "
                                 "commit. Nothing recalls it any more (recall --archived still finds it); "
                                 "`aida brain restore KEY` undoes it, and `remember --key KEY` writes a correction.")
    p.add_argument("key", metavar="KEY", help="the record's key (or its path, e.g. memories/me/x.json)")
    p.add_argument("--profile", help="which profile's record, when several hold the key")
    p.add_argument("--reason", default="", metavar="TEXT", help="why it is wrong or stale (kept with it)")
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=cmd_forget)

    p = g.add_parser("restore", help="bring a forgotten record back where it lived (undoes forget)")
    p.add_argument("key", metavar="KEY", help="the forgotten record's key (or its archive path)")
    p.add_argument("--profile", help="which profile's record, when several hold the key")
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=cmd_restore)

    p = g.add_parser("confirm", help="mark a record the offline distiller wrote as read and right (no longer unchecked)",
                     description="Take the harvest:offline tag and the lower confidence off a record that a "
                                 "person has read and found right, in place (same id), in one commit. The "
                                 "session-start block and recall then show it like any other record.")
    p.add_argument("key", metavar="KEY", help="the record's key (or its path, e.g. memories/claude/x.json)")
    p.add_argument("--profile", help="which profile's record, when several hold the key")
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=cmd_confirm)

    p = g.add_parser("session-start", help="print what an agent should know as a session starts (a hook runs it)",
                     description="Print, within INDEX.md's character budget, the standing instructions, then the "
                                 "records of the session's project, then the rest of INDEX.md. Reads the hook's "
                                 "JSON on stdin (its cwd names the project); prints nothing when the brain "
                                 "cannot be read.")
    p.add_argument("--hook", metavar="AGENT", choices=("claude", "gemini", "codex"),
                   help="read the agent's hook JSON on stdin and answer in its hook format")
    p.add_argument("--cwd", help="the session's folder (default: the hook's cwd, else this folder)")
    p.set_defaults(func=cmd_session_start)


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


def cmd_session_start(args, ctx) -> int:
    from brain_core.agents.session_start import run_hook

    payload = sys.stdin.read() if args.hook and not sys.stdin.isatty() else ""
    out = run_hook(ctx, args.hook, payload, cwd=args.cwd)
    if out:
        sys.stdout.write(out)
    return 0
