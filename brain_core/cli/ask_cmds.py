"""``aida route``, ``aida ask``, ``aida feedback`` and ``aida config get | list | set | set-key | delete-key``."""

from __future__ import annotations

import json
import sys

from brain_core.cli import config_cmds


def register(sub, groups) -> None:
    p = sub.add_parser("route", help="show how the router sends a question (recall, recency, live source)")
    p.add_argument("--json", action="store_true", help='print {"recall", "mode", "time_sensitive", "live", "fired"}')
    p.add_argument("question", nargs="+", help="the question, as you would ask it")
    p.set_defaults(func=cmd_route)

    p = sub.add_parser("ask", help="answer a question from the brain (or a live source), citing records")
    p.add_argument("--json", action="store_true",
                   help="print the answer, confidence, cited records, route, hits and run id as JSON")
    p.add_argument("--explain", action="store_true", help="also print the run record: route, scores, lessons, timings")
    p.add_argument("-k", type=int, default=None, help="how many records to consult (default: ask.k, 5)")
    p.add_argument("--offline", action="store_true", help="answer from the records only, without the LLM")
    p.add_argument("--project", metavar="NAME", help="rank this project's records first (default: this folder's)")
    p.add_argument("--all-projects", action="store_true", help="no project first: every project alike")
    p.add_argument("question", nargs="+", help="the question, as you would ask it")
    p.set_defaults(func=cmd_ask)

    p = sub.add_parser("feedback", help="thumbs up or down on a run: becomes a lesson for similar questions")
    p.add_argument("verdict", choices=("up", "down"), help="up: the answer was right; down: it was wrong")
    p.add_argument("run_id", metavar="RUN_ID", help="the id `aida ask` printed, or `last`")
    p.add_argument("--why", help="what was wrong or right; shown to the LLM on similar questions")
    p.add_argument("--record", action="append", default=[], metavar="KEY",
                   help="the record the verdict is about (default: the first one the answer cited); repeatable")
    p.set_defaults(func=cmd_feedback)

    c = sub.add_parser("config", help="read and change settings; store API keys in the OS keyring")
    csub = c.add_subparsers(dest="config_command", metavar="SUBCOMMAND")
    c.set_defaults(func=lambda a, ctx: c.print_help() or 2)
    p = csub.add_parser("get", help="print a setting's value in force (dotted key, e.g. llm.provider)")
    p.add_argument("key", help="a dotted setting name such as llm.provider, or a section such as recall")
    p.set_defaults(func=config_cmds.cmd_get)
    p = csub.add_parser("list", help="every setting with its value in force, defaults marked")
    p.add_argument("--json", action="store_true",
                   help="print {file, settings: [{key, value, default, is_default, kind, allowed, help}], unknown}")
    p.set_defaults(func=config_cmds.cmd_list)
    p = csub.add_parser("set", help="change a setting (the value is read as YAML: 5, true, [a, b])")
    p.add_argument("key", help="a dotted setting name such as recall.half_life_days (`aida config list` shows them)")
    p.add_argument("value", help="the new value, read as YAML (null resets it to the default)")
    p.set_defaults(func=config_cmds.cmd_set)
    p = csub.add_parser("set-key", help="store PROVIDER's API key in the OS keyring (read from stdin, never echoed)")
    p.add_argument("provider", help="openai, anthropic, ollama, ...")
    p.set_defaults(func=cmd_set_key)
    p = csub.add_parser("delete-key", help="remove PROVIDER's API key from the OS keyring")
    p.add_argument("provider", help="openai, anthropic, ollama, ...")
    p.set_defaults(func=cmd_delete_key)


def _brain_root_if_any(ctx):
    try:
        path = ctx.brain_path()
    except OSError:
        return None
    return path if (path / ".git").exists() else None


def cmd_route(args, ctx) -> int:
    from brain_core.answer.router import load_router

    decision = load_router(_brain_root_if_any(ctx)).decide(" ".join(args.question))
    if args.json:
        print(json.dumps(decision.to_json()))
        return 0
    recall = f"yes ({decision.mode})" if decision.recall else "no"
    print(f"recall: {recall}")
    print(f"time-sensitive: {'yes' if decision.time_sensitive else 'no'}")
    print(f"live source: {decision.live or '-'}")
    print(f"mode: {decision.mode}")
    print("fired: " + (", ".join(decision.fired) or "nothing"))
    return 0


def cmd_ask(args, ctx) -> int:
    from brain_core.answer.ask import DEFAULT, ask
    from brain_core.harvest.projects import from_cwd

    brain = ctx.open_brain()
    brain.project = from_cwd(args.project, args.all_projects)  # this folder's project first (a lift)
    try:
        answer = ask(brain, " ".join(args.question), k=args.k, explain=args.explain,
                     llm=None if args.offline else DEFAULT)
    finally:
        brain.close()
    if args.json:
        print(json.dumps(answer.to_json(with_run=args.explain), ensure_ascii=False))
        return 0
    print(answer.text)
    extractive = answer.provider == "none" or answer.cached
    if answer.hits and not extractive:
        print("\nConsulted:")
        for h in answer.hits:
            mark = "*" if h.record.id in answer.cited else " "
            closest = "  [closest only]" if h.confidence == "weak" else ""
            print(f" {mark} {h.record.key} ({(h.record.created or '')[:10]}, {h.path}){closest}")
    if args.explain:
        print("\n--- run record ---")
        print(json.dumps(answer.run, ensure_ascii=False, indent=2))
    tag = " (repeat answer from the cache)" if answer.cached else ""
    from brain_core.answer.runs import runs_dir

    if not (runs_dir(brain.root) / f"{answer.run_id}.json").exists():
        print("\n(this run was not recorded: the brain cannot be written here)", file=sys.stderr)
        return 0
    print(f"\nrun {answer.run_id}{tag}: `aida feedback up|down {answer.run_id} [--why TEXT]`", file=sys.stderr)
    return 0


def cmd_feedback(args, ctx) -> int:
    from brain_core.answer.lessons import record_feedback

    brain = ctx.open_brain()
    try:
        rec = record_feedback(brain, args.run_id, args.verdict, why=args.why, records=args.record)
    finally:
        brain.close()
    about = ", ".join(r.get("key") or "?" for r in rec.extra.get("records", [])) or "no record"
    print(f"Lesson {rec.id} saved (thumbs-{args.verdict} on {about}); similar questions will take it into account.")
    return 0


def cmd_set_key(args, ctx) -> int:
    from brain_core.config.keys import set_key

    secret = _read_secret(args.provider)
    backend = set_key(args.provider, secret)
    print(f"Stored the {args.provider} API key in the OS keyring (backend: {backend}).")
    return 0


def cmd_delete_key(args, ctx) -> int:
    from brain_core.config.keys import delete_key

    if delete_key(args.provider):
        print(f"Removed the {args.provider} API key from the OS keyring.")
        return 0
    print(f"aida: no {args.provider} API key was stored in the OS keyring.", file=sys.stderr)
    return 1


def _read_secret(provider: str) -> str:
    """From a terminal: a prompt that does not echo. From a pipe: the first line of stdin."""
    if sys.stdin is not None and sys.stdin.isatty():
        import getpass

        return getpass.getpass(f"API key for {provider} (input hidden): ")
    line = sys.stdin.readline() if sys.stdin is not None else ""
    return line.strip()
