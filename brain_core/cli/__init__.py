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

from ..errors import BrainError

# Command modules, in help order: the single place to add one.
MODULES = (
    "brain_cmds",
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
            from ..config import Config

            self._config = Config.load()
        return self._config

    def brain_path(self) -> Path:
        return self.config.brain_path(self.brain_arg)

    def open_brain(self):
        from ..brain import Brain

        return Brain.open(self.brain_path(), config=self.config)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="aida",
        description="Aida: one memory for all your coding agents and meetings.",
    )
    parser.add_argument("--brain", metavar="DIR", help="the brain folder (default: $AIDA_BRAIN, then the configured brain)")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    brain = sub.add_parser("brain", help="the brain: remember, recall, index, status, lint, harvest...")
    groups = {"brain": brain.add_subparsers(dest="brain_command", metavar="SUBCOMMAND")}
    brain.set_defaults(func=lambda a, c: brain.print_help() or 2)
    for name in MODULES:
        importlib.import_module(f"{__name__}.{name}").register(sub, groups)
    return parser


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
    return int(rc or 0)
