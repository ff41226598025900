"""Errors Aida raises on purpose.

Every error a user can meet is a :class:`BrainError` whose message is one sentence that says what
went wrong and what to do. Low-level errors (OSError, sqlite, git) are wrapped at the edge of the
module that met them, with what was being done; the CLI prints the message and exits non-zero.
"""

from __future__ import annotations


class BrainError(Exception):
    """Base class: a problem the user can act on; ``str(e)`` is the one-sentence message."""

    exit_code = 1


class BrainNotFound(BrainError):
    """The folder is not a brain (no git repository with Aida's layout)."""


class MalformedRecord(BrainError):
    """A file on a shelf could not be read as a record; ``path`` names it."""

    def __init__(self, path: str, reason: str) -> None:
        super().__init__(f"{path}: {reason}")
        self.path = path
        self.reason = reason


class InvalidInput(BrainError):
    """An argument (key, profile, type, body...) was refused before anything was written."""

    exit_code = 2


class IndexError_(BrainError):
    """The card catalog could not be read or written (it can always be rebuilt from the files)."""


class GitError(BrainError):
    """A git command failed; the message carries git's own last line."""


class MissingDependency(BrainError):
    """An optional component is not installed; the message names the command that installs it."""

    exit_code = 3


class ProviderError(BrainError):
    """An LLM or live source could not be reached or answered nonsense."""


class AudioError(BrainError):
    """Audio could not be read, decoded or captured."""
