"""``aida hooks install|remove claude|codex|gemini [--dry-run]`` and ``aida mcp``."""

from __future__ import annotations

import sys

TOOLS = ("claude", "codex", "gemini")


def register(sub, groups) -> None:
    h = sub.add_parser("hooks", help="connect Claude Code, Codex or Gemini CLI: harvest hook and MCP registration")
    hsub = h.add_subparsers(dest="hooks_command", metavar="SUBCOMMAND")
    h.set_defaults(func=lambda a, c: h.print_help() or 2)
    p = hsub.add_parser("install", help="add Aida's hooks (harvest, session start) and instruction sections "
                                        "(idempotent, the diff shown, with a backup)")
    p.add_argument("tool", choices=TOOLS, help="the agent to connect: claude, codex or gemini")
    p.add_argument("--dry-run", action="store_true", help="show the change as a diff and write nothing")
    p.add_argument("--no-instructions", action="store_true",
                   help="leave the agent's instruction file (CLAUDE.md, AGENTS.md, GEMINI.md) alone")
    p.set_defaults(func=cmd_install)
    p = hsub.add_parser("remove", help="take the query-first section out of the agent's instruction file",
                          description="Remove the marked \"ask the memory first\" section that `aida hooks install` added to the agent's instruction file; the rest of the file is left as it is.")
    p.add_argument("tool", choices=TOOLS, help="the agent whose instruction file to clean: claude, codex or gemini")
    p.add_argument("--dry-run", action="store_true", help="show the change as a diff and write nothing")
    p.set_defaults(func=cmd_remove)

    p = sub.add_parser("mcp", help="serve the brain to coding agents over MCP (stdio): recall, remember, recent")
    p.set_defaults(func=cmd_mcp)


def cmd_install(args, ctx) -> int:
    from brain_core.agents.hooks import apply, connect_plans, mcp_registration

    # the brain path as setup writes it: a later install never drops setup's --brain
    brain = str(ctx.brain_arg or ctx.brain_path())
    budget = int(ctx.config.get("tier_index.budget_chars", 6000))
    plans = connect_plans(args.tool, brain, instructions=not args.no_instructions, budget=budget)
    hooks = "Aida's harvest hook" + ("" if args.tool == "codex" else " and session-start hook")
    section = "the query-first section" + (" and the memory block" if args.tool == "codex" else "")
    for i, plan in enumerate(plans):
        if not plan.changed:
            print(f"{plan.path}: " + (f"{hooks} already installed; nothing to change." if i == 0
                                      else f"{section} already there; nothing to change."))
        elif args.dry_run:
            print(plan.diff(), end="")
            print(f"(dry run: {plan.path} was not changed)")
        else:
            print(plan.diff(), end="")  # what changes, shown as it is written
            backup = apply(plan)
            print((f"Installed {hooks} in " if i == 0 else f"Added {section} to ") + str(plan.path)
                  + (f" (backup: {backup})" if backup else ""))
    for note in plans[0].notes:
        print(f"Note: {note}")
    print("\nTo let the agent recall and remember through MCP, register Aida's server:")
    print(mcp_registration(args.tool, brain=brain))
    return 0


def _habit(args, ctx, remove: bool) -> None:
    from brain_core.agents.hooks import apply, plan_habit

    plan = plan_habit(args.tool, brain=ctx.brain_arg, remove=remove)
    if not plan.changed:
        print(f"{plan.path}: " + ("no query-first section to remove." if remove
                                  else "the query-first section is already there; nothing to change."))
    elif args.dry_run:
        print(plan.diff(), end="")
        print(f"(dry run: {plan.path} was not changed)")
    else:
        backup = apply(plan)
        print(("Removed the query-first section from " if remove else "Added the query-first section to ")
              + str(plan.path) + (f" (backup: {backup})" if backup else ""))


def cmd_remove(args, ctx) -> int:
    _habit(args, ctx, remove=True)
    return 0


def cmd_mcp(args, ctx) -> int:
    if sys.stdin.isatty():
        print("aida mcp speaks the MCP protocol on stdin/stdout; start it from an agent "
              "(see `aida hooks install <agent>` for the registration).", file=sys.stderr)
    from brain_core.agents.mcp_server import serve

    serve(ctx.brain_path(), config=ctx.config)
    return 0
