"""The tests' own layout: one folder per package, helpers imported as ``tests.helpers``, no sys.path
trick and no path worked out from ``__file__`` (tests/helpers/paths.py has them all)."""

from __future__ import annotations

import io
import re
import tokenize

from tests.helpers.paths import HELPERS, REPO, TESTS

PACKAGES = {p.name for p in (REPO / "brain_core").iterdir() if (p / "__init__.py").exists()}
OTHERS = {"app", "records", "integration", "benchmarks", "repo", "helpers"}
FILE_PATH = re.compile(r"^\)(\.resolve\(\)|\.absolute\(\))?\.parents?\b")


def _code_files():
    return [p for p in TESTS.rglob("*.py") if "fixtures" not in p.relative_to(TESTS).parts]


def _code(path):
    """The file's tokens outside strings and comments, with the rest of each one's line."""
    src = path.read_text(encoding="utf-8")
    lines = src.splitlines()
    for tok in tokenize.generate_tokens(io.StringIO(src).readline):
        if tok.type == tokenize.NAME:
            yield tok, lines[tok.start[0] - 1][tok.end[1]:]


def test_every_test_file_sits_in_a_folder_named_after_what_it_tests():
    top = sorted(p.name for p in TESTS.glob("*.py") if p.name not in ("conftest.py", "__init__.py"))
    assert top == [], f"run the layout script (or git mv) for: {top}"
    folders = {p.parent.relative_to(TESTS).parts[0] for p in _code_files() if p.parent != TESTS}
    assert folders <= PACKAGES | OTHERS, folders - (PACKAGES | OTHERS)


def test_every_folder_is_a_package_so_basenames_may_repeat():
    for path in _code_files():
        for folder in path.relative_to(TESTS).parents:
            assert (TESTS / folder / "__init__.py").exists(), TESTS / folder


def test_no_test_reaches_into_sys_path_or_works_out_paths_from_its_own_file():
    found = []
    for path in _code_files():
        if path == HELPERS / "paths.py":
            continue
        names = list(_code(path))
        for i, (tok, rest) in enumerate(names):
            if tok.string == "path" and i and names[i - 1][0].string == "sys" and rest.startswith(".insert"):
                found.append(f"{path.relative_to(REPO)}:{tok.start[0]} sys.path")
            before = tok.line[:tok.start[1]]
            if tok.string == "__file__" and ((FILE_PATH.match(rest) and before.endswith("Path("))
                                             or before.endswith("dirname(")):
                found.append(f"{path.relative_to(REPO)}:{tok.start[0]} {tok.line.strip()}")
    assert found == []
