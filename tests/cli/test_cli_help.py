"""The command line users type: every command described, every flag explained, mistakes reported
by the command that met them, ``--brain`` before or after the command, ``brain init PATH``."""

from __future__ import annotations

import argparse
import subprocess
import sys

import pytest

from brain_core.cli import build_parser, main
from tests.helpers.paths import REPO

ROOT = REPO


def commands(parser=None, path=("aida",)):
    """(path, parser) for every command and subcommand."""
    parser = parser or build_parser()
    yield path, parser
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sp in action.choices.items():
                yield from commands(sp, path + (name,))


ALL = list(commands())


def test_the_walk_sees_every_command():
    names = {" ".join(p) for p, _ in ALL}
    assert {"aida brain init", "aida brain recall", "aida config set-key", "aida doctor", "aida glossary add"} <= names
    assert len(names) > 35


@pytest.mark.parametrize("path,parser", ALL, ids=[" ".join(p) for p, _ in ALL])
def test_every_command_has_a_description_and_every_argument_help(path, parser):
    assert parser.description and parser.description.strip(), f"{' '.join(path)} has no description"
    for action in parser._actions:
        if isinstance(action, (argparse._HelpAction, argparse._SubParsersAction)):
            continue
        if action.help == argparse.SUPPRESS:
            continue  # hidden on purpose (the hook's own arguments)
        name = "/".join(action.option_strings) or action.dest
        assert action.help and action.help.strip(), f"{' '.join(path)} {name} has no help text"
        if path != ("aida",):
            assert "--brain" in {o for a in parser._actions for o in a.option_strings}, f"{' '.join(path)} lacks --brain"


@pytest.mark.parametrize("argv", [["brain", "recall", "--tpye", "x", "q"], ["config", "set", "--bogus", "a", "b"],
                                  ["doctor", "--jsn"]])
def test_a_bad_flag_prints_the_subcommands_usage(argv, capsys):
    with pytest.raises(SystemExit) as e:
        main(argv)
    assert e.value.code == 2
    err = capsys.readouterr().err
    command = " ".join(a for a in argv if not a.startswith("-"))[: len(" ".join(argv[:2]))]
    assert err.startswith(f"usage: aida {argv[0]}"), err
    assert f"aida {argv[0]}" in err.splitlines()[-1] and "unrecognized arguments" in err, command


def _aida(*argv, env_extra=None, cwd=None):
    import os

    env = {**os.environ, **(env_extra or {})}
    return subprocess.run([sys.executable, "-m", "brain_core", *argv], capture_output=True, text=True,
                          env=env, cwd=cwd, timeout=300)


@pytest.mark.slow
def test_brain_init_path_and_brain_after_the_command(tmp_path):
    target = tmp_path / "my brain"
    r = _aida("brain", "init", str(target))
    assert r.returncode == 0, r.stderr
    assert (target / ".git").is_dir() and (target / "memories").is_dir()
    assert str(target) in r.stdout
    r = _aida("brain", "remember", "--key", "retry-cap", "Retries cap at six attempts.", "--brain", str(target))
    assert r.returncode == 0, r.stderr
    assert (target / "memories" / "me" / "retry-cap.json").is_file()
    r = _aida("--brain", str(tmp_path / "elsewhere"), "brain", "status", "--brain", str(target))
    assert r.returncode == 0, r.stderr  # the later --brain wins
    r = _aida("--brain", str(tmp_path / "elsewhere"), "brain", "status")
    assert r.returncode == 1 and "is not a brain" in r.stderr and "Traceback" not in r.stderr
