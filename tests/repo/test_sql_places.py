"""Where the SQL is: each statement belongs to one backend. The catalog's are in
brain_core/catalog/sqlite and brain_core/catalog/postgres, recall's in brain_core/recall/sqlite.py and
brain_core/recall/postgres.py (the same functions in each); the shared code (the scan's rules, recall's
ranking, the lifts, the confidence maths, link on write, the vocabularies' users, doctor) holds none,
and nothing rewrites one dialect into the other."""

from __future__ import annotations

import ast
import inspect
import re
from pathlib import Path

import pytest

from tests.helpers.paths import REPO

ROOT = REPO / "brain_core"
SQL = re.compile(r"\b(SELECT|INSERT|UPDATE|DELETE|CREATE|PRAGMA|WITH)\b.*\b(FROM|INTO|SET|TABLE|AS|VALUES|docs)\b|"
                 r"\bMATCH\b|\bORDER BY\b")
SHARED = ["catalog/scan.py", "recall/hybrid.py", "recall/places.py", "recall/confidence.py", "recall/coverage.py",
          "recall/recency.py", "recall/kinds.py", "recall/backends.py", "answer/spoken.py", "brain/dedupe.py",
          "cli/doctor.py"]
STATEMENTS = ["filters", "gather", "neighbours", "rows", "newest", "word_counts", "matching", "fill_candidates",
              "words", "link_candidates"]


def statements_in(path: Path, calls: bool = True) -> list[str]:
    """The string constants of ``path`` that read as SQL, and (``calls``) its calls of a connection's execute."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    docstrings = {id(n.body[0].value) for n in ast.walk(tree)
                  if isinstance(n, (ast.Module, ast.FunctionDef, ast.ClassDef, ast.AsyncFunctionDef))
                  and n.body and isinstance(n.body[0], ast.Expr) and isinstance(n.body[0].value, ast.Constant)}
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docstrings \
                and SQL.search(node.value):
            out.append(node.value)
        if calls and isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) \
                and node.func.attr in ("execute", "executemany", "executescript", "pg", "pg_many"):
            out.append(f"{node.func.attr}() at line {node.lineno}")
    return out


@pytest.mark.parametrize("rel", SHARED)
def test_the_shared_code_holds_no_sql(rel):
    assert statements_in(ROOT / rel) == []


def test_the_check_sees_sql_where_there_is_some():
    assert statements_in(ROOT / "recall/sqlite.py") and statements_in(ROOT / "recall/postgres.py")
    assert statements_in(ROOT / "catalog/sqlite/index.py") and statements_in(ROOT / "catalog/postgres/index.py")


def test_nothing_rewrites_one_dialect_into_the_other():
    for path in ROOT.rglob("*.py"):
        text = path.read_text(encoding="utf-8")
        assert 'replace("?", "%s")' not in text and "def translate(" not in text, path


def test_each_recall_statement_has_both_backends_with_the_same_parameters():
    from brain_core.recall import postgres, sqlite

    for name in STATEMENTS:
        lite, pg = getattr(sqlite, name), getattr(postgres, name)
        assert list(inspect.signature(lite).parameters) == list(inspect.signature(pg).parameters), name


def test_the_postgres_statements_use_its_placeholders_only():
    """A ``?`` left in a server statement would reach PostgreSQL as a syntax error: none is left."""
    from brain_core.recall import postgres

    for path in (ROOT / "recall/postgres.py", ROOT / "catalog/postgres/index.py"):
        for sql in statements_in(path, calls=False):
            assert "?" not in sql, (path.name, sql)
    where, args = postgres.filters("me", "fact", "billing", ("memories", "events"))
    assert where.count("%s") == len(args) == 4 and "?" not in where
