"""The ``aida`` command: parse, call the library, print. No logic of its own lives here.

Each command group is a module with ``register(sub, groups)``: ``sub`` is the top-level
subparsers object and ``groups["brain"]`` the subparsers of ``aida brain``. A handler is set with
``parser.set_defaults(func=handler)`` and receives ``(args, ctx)``. Modules import heavy
libraries inside their handlers only, so ``aida brain recall`` never loads Qt or whisper.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from dataclasses import dataclass, field
from pathlib import Path

from brain_core.errors import BrainError

# Command modules, in help order: the single place to add one.
MODULES = (
    "brain_cmds",
    "memory_cmds",
    "lifecycle_cmds",
    "harvest_cmds",
    "ask_cmds",
    "voice_cmds",
    "agent_cmds",
    "app_cmds",
    "setup_cmds",
    "doctor",
)


@dataclass
class Context:
    """What every handler needs: the settings and the ``--brain`` the user gave."""

    brain_arg: str | None
    _config: object = field(default=None, repr=False)

    @property
    def config(self):
        if self._config is None:
            from brain_core.config import Config

            self._config = Config.load()
        return self._config

    def brain_path(self) -> Path:
        return self.config.brain_path(self.brain_arg)

    def open_brain(self):
        from brain_core.brain import Brain

        return Brain.open(self.brain_path(), config=self.config)


BRAIN_HELP = "the brain folder (default: $AIDA_BRAIN, then the `brain` setting, then the user data folder)"
JSON_HELP = "print the result as JSON instead of text"


class Parser(argparse.ArgumentParser):
    """A parser whose subcommands refuse what they do not know with their own usage line.

    argparse hands a subcommand's unknown arguments back to the top-level parser, which then
    prints ``usage: aida [-h] [--brain DIR] COMMAND`` for a typo in ``aida brain recall --tpye``;
    here the subcommand that met the typo reports it."""

    nested: dict[str, list[str]]  # each group's subcommands, set by build_parser

    def error(self, message):
        """argparse's message, with the nearest command for a mistyped one ("did you mean 'recall'?")."""
        import difflib
        import re

        m = re.search(r"invalid choice: '([^']*)' \(choose from (.*)\)", message)
        if m:
            choices = re.findall(r"'([^']*)'", m.group(2))
            close = difflib.get_close_matches(m.group(1), choices, n=1, cutoff=0.6)
            nested = getattr(self, "nested", {})  # `aida recall` for `aida brain recall`
            deeper = [f"{g} {c}" for g, cs in nested.items() for c in difflib.get_close_matches(m.group(1), cs, n=1)]
            if close:
                message = f"{message}; did you mean '{close[0]}'?"
            elif deeper:
                message = f"{message}; did you mean '{deeper[0]}'?"
        super().error(message)

    def parse_known_args(self, args=None, namespace=None):
        namespace, extras = super().parse_known_args(args, namespace)
        if extras and self.prog != "aida":
            self.error(f"unrecognized arguments: {' '.join(extras)}")
        return namespace, extras


def build_parser() -> argparse.ArgumentParser:
    parser = Parser(
        prog="aida",
        description="Aida: one memory for all your coding agents and meetings.",
    )
    parser.add_argument("--brain", metavar="DIR", help=BRAIN_HELP)
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    brain = sub.add_parser("brain", help="the brain: remember, recall, index, status, lint, harvest...")
    groups = {"brain": brain.add_subparsers(dest="brain_command", metavar="SUBCOMMAND")}

    def brain_help(args, config) -> int:
        brain.print_help()
        return 2

    brain.set_defaults(func=brain_help)
    for name in MODULES:
        importlib.import_module(f"{__name__}.{name}").register(sub, groups)
    _finish(parser)
    parser.nested = {name: list(g.choices) for name, g in groups.items()}
    return parser


def _finish(parser: argparse.ArgumentParser) -> None:
    """Every command: a description (its help line, when it has none of its own), ``--brain``
    accepted after the command too, and the same help for every ``--json``."""
    for action in parser._actions:
        if not isinstance(action, argparse._SubParsersAction):
            continue
        helps = {choice.dest: choice.help for choice in action._choices_actions}
        for name, sp in action.choices.items():
            text = helps.get(name)
            if sp.description is None and text:
                sp.description = text[0].upper() + text[1:] + ("" if text.endswith((".", ")")) else ".")
            if not any("--brain" in a.option_strings for a in sp._actions):
                sp.add_argument("--brain", metavar="DIR", default=argparse.SUPPRESS, help=BRAIN_HELP)
            for a in sp._actions:
                if "--json" in a.option_strings and not a.help:
                    a.help = JSON_HELP
            _finish(sp)


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    func = getattr(args, "func", None)
    if func is None:
        parser.print_help()
        return 2
    ctx = Context(brain_arg=args.brain)
    try:
        rc = func(args, ctx)
    except BrainError as e:
        print(f"aida: {e}", file=sys.stderr)
        return e.exit_code
    except KeyboardInterrupt:
        print("aida: interrupted.", file=sys.stderr)
        return 130
    except BrokenPipeError:
        return 0
    except Exception as e:  # noqa: BLE001 - a full disk or a read-only brain met where no layer said so
        from brain_core.catalog.diskfail import explain, low_level_errors

        if not isinstance(e, low_level_errors()):
            raise
        print(f"aida: {explain(e, _where(ctx), 'The command')}", file=sys.stderr)
        return 1
    return int(rc or 0)


def _where(ctx: Context) -> Path:
    try:
        return ctx.brain_path()
    except BrainError:
        return Path.cwd()
