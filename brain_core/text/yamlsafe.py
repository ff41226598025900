"""YAML as Aida reads it from a brain and from the settings file: safe types only, and no aliases.

An alias (``*name``, also behind a merge key ``<<: *name``) lets a few hundred bytes stand for
billions of nodes (the "billion laughs"): one knowledge page's front matter cost 5.5 GB and 80-112 s
on every ``aida brain index``. A brain is synced from other machines, so every YAML file in it
(front matter, ``glossary.yaml``, ``router.yaml``) and the settings file are parsed here, where an
alias is refused with its line: write the value out instead.
"""

from __future__ import annotations

import yaml


class NoAliasLoader(yaml.SafeLoader):
    """``yaml.SafeLoader`` that refuses aliases before expanding anything."""

    def compose_node(self, parent, index):
        if self.check_event(yaml.AliasEvent):
            event = self.peek_event()
            raise yaml.composer.ComposerError(
                None, None, f"found the alias *{event.anchor}, which Aida does not read (write the value out)",
                event.start_mark)
        return super().compose_node(parent, index)


def load(text: str | bytes):
    """``yaml.safe_load`` without aliases: a ``yaml.YAMLError`` for a file that uses one."""
    return yaml.load(text, Loader=NoAliasLoader)


def where(e: BaseException) -> str:
    """``line N, column M: problem`` for a YAML error that knows its place, else its class name."""
    mark = getattr(e, "problem_mark", None) or getattr(e, "context_mark", None)
    problem = getattr(e, "problem", None) or getattr(e, "context", None)
    if mark is None:
        return e.__class__.__name__
    return f"line {mark.line + 1}, column {mark.column + 1}: {problem or e.__class__.__name__}"
