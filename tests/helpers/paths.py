"""Where the tests' files are, the same from every test folder: the tests, their fixtures, the repository,
and the shared folder beside it (bench data and real captures, read there at run time, never copied in)."""

from __future__ import annotations

from pathlib import Path

HELPERS = Path(__file__).resolve().parent
TESTS = HELPERS.parent
FIXTURES = TESTS / "fixtures"
REPO = TESTS.parent
SHARED = REPO.parent / "shared"
