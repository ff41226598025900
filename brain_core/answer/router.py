"""The front door: regular expressions decide, before anything is scored, what a question needs.

Free, instant, deterministic and diffable: a plain coding question never pays for an embedding
lookup, and every decision names the patterns that fired. Patterns ship in
``brain_core/defaults/router.yaml``; a brain's own ``router.yaml`` adds patterns and overrides
defaults by name (``name: null`` switches one off).

Decision rules, in order:

- ``recall``: a *recall* pattern fired (the question is about what the user said, saved, decided);
- ``mode``: ``"recency"`` when a *recency* pattern fired, else ``"semantic"``;
- ``live``: the source of the first *live* pattern that fired (``news`` or ``weather``), unless
  recall fired: "what did I say about the weather" is a memory question;
- ``time_sensitive``: a *time_sensitive* pattern fired, or the question goes to a live source.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources
from pathlib import Path
from typing import Any, Mapping

from brain_core.errors import InvalidInput

GROUPS = ("recall", "recency", "time_sensitive", "live")
# The router reads the first ROUTE_CHARS characters of a question (its spaces folded): what a
# question needs is said at its start, and no pattern then costs more than this much text.
ROUTE_CHARS = 2000
LIVE_SOURCES = ("news", "weather")
USER_FILE = "router.yaml"


@dataclass(frozen=True)
class Route:
    """One decision. ``fired`` names the patterns as ``group:name`` (live names carry their source)."""

    recall: bool
    mode: str  # "semantic" | "recency"
    time_sensitive: bool
    live: str | None
    fired: tuple[str, ...] = ()

    def to_json(self) -> dict[str, Any]:
        return {
            "recall": self.recall,
            "mode": self.mode,
            "time_sensitive": self.time_sensitive,
            "live": self.live,
            "fired": list(self.fired),
        }


@dataclass(frozen=True)
class Pattern:
    group: str
    name: str
    regex: re.Pattern

    @property
    def label(self) -> str:
        return f"{self.group}:{self.name}"


class Router:
    """Compiled patterns; :meth:`decide` is pure and cheap enough to run on every keystroke.

    ``user`` names the ``(group, name)`` pairs that come from a brain's own ``router.yaml``: those
    are compiled with the linear-time engine (:func:`_compile_user`) and one that is refused is
    skipped, its reason in :attr:`problems`, instead of stopping every answer."""

    def __init__(self, patterns: Mapping[str, Mapping[str, str]], user: frozenset = frozenset()) -> None:
        compiled: dict[str, tuple[Pattern, ...]] = {}
        problems: list[str] = []
        for group in GROUPS:
            items = []
            for name, source in (patterns.get(group) or {}).items():
                if source is None:
                    continue
                if (group, name) not in user:
                    items.append(Pattern(group, name, _compile(group, name, source)))
                    continue
                try:
                    items.append(Pattern(group, name, _compile_user(group, name, source)))
                except InvalidInput as e:
                    problems.append(f"{e} It is skipped.")
            compiled[group] = tuple(items)
        self._patterns = compiled
        self.problems = tuple(problems)

    @property
    def patterns(self) -> dict[str, tuple[Pattern, ...]]:
        return dict(self._patterns)

    def decide(self, question: str) -> Route:
        q = " ".join((question or "")[:ROUTE_CHARS * 4].split())[:ROUTE_CHARS]
        fired: list[str] = []

        def hits(group: str) -> list[Pattern]:
            found = [p for p in self._patterns[group] if p.regex.search(q)]
            fired.extend(p.label for p in found)
            return found

        recall = bool(hits("recall"))
        recency = bool(hits("recency"))
        timed = bool(hits("time_sensitive"))
        live_hits = hits("live")
        live = None if recall or not live_hits else live_hits[0].name.split(":", 1)[0]
        return Route(
            recall=recall,
            mode="recency" if recency else "semantic",
            time_sensitive=timed or live is not None,
            live=live,
            fired=tuple(fired),
        )


def _compile(group: str, name: str, source: Any) -> re.Pattern:
    if not isinstance(source, str) or not source.strip():
        raise InvalidInput(f"Router pattern {group}:{name} is not a regular expression string; fix router.yaml.")
    if group == "live":
        prefix = str(name).split(":", 1)[0]
        if ":" not in str(name) or prefix not in LIVE_SOURCES:
            raise InvalidInput(
                f"Live pattern {name!r} must be named SOURCE:NAME with SOURCE one of {', '.join(LIVE_SOURCES)}; rename it in router.yaml."
            )
    try:
        return re.compile(source, re.IGNORECASE)
    except re.error as e:
        raise InvalidInput(f"Router pattern {group}:{name} is not a valid regular expression ({e}); fix router.yaml.") from e


# A group repeated that itself holds a repeat, e.g. (\w+\s?)*: Python's engine can take for ever on it.
_NESTED_REPEAT = re.compile(r"\((?:[^()\\]|\\.)*(?<!\\)[*+}](?:[^()\\]|\\.)*\)[*+{]")


def _re2():
    try:
        import re2
    except ImportError:  # google-re2 is a dependency; without it Python's engine with a check
        return None
    return re2


def _compile_user(group: str, name: str, source: Any):
    """A pattern from the brain's own router.yaml: it is synced with the brain, so one written for
    another machine (or by someone else) must never hang an answer. With google-re2 it runs in
    time linear in the question; re2 does not run lookarounds or backreferences, so a pattern with
    them is refused with that reason. Without re2, a pattern that repeats a repeat is refused."""
    _compile(group, name, source)  # the same checks of its name and syntax
    engine = _re2()
    if engine is None:
        if _NESTED_REPEAT.search(source):
            raise InvalidInput(f"Router pattern {group}:{name} in router.yaml repeats a group that itself repeats "
                               f"(like (\\w+\\s?)*), which can take for ever on a long question; rewrite it.")
        return re.compile(source, re.IGNORECASE)
    options = engine.Options()
    options.case_sensitive = False
    options.log_errors = False
    options.max_mem = 8 << 20
    try:
        return engine.compile(source, options)
    except engine.error as e:
        why = e.args[0].decode("utf-8", "replace") if e.args and isinstance(e.args[0], bytes) else str(e)
        raise InvalidInput(f"Router pattern {group}:{name} in router.yaml cannot run in linear time ({why}): "
                           "rewrite it without lookarounds or backreferences.") from None


def merge(base: Mapping[str, Mapping[str, Any]], over: Mapping[str, Any] | None) -> dict[str, dict[str, Any]]:
    """``base`` with ``over`` laid on top, pattern by pattern (``None`` removes a pattern)."""
    out = {g: dict(base.get(g) or {}) for g in GROUPS}
    if not over:
        return out
    if not isinstance(over, Mapping):
        raise InvalidInput("router.yaml must be a mapping of groups (recall, recency, time_sensitive, live); fix it.")
    for group, items in over.items():
        if group not in GROUPS:
            raise InvalidInput(f"router.yaml has an unknown group {group!r}; use {', '.join(GROUPS)}.")
        if items is None:
            continue
        if not isinstance(items, Mapping):
            raise InvalidInput(f"router.yaml group {group!r} must map pattern names to regular expressions.")
        for name, source in items.items():
            out[group][str(name)] = source
    return out


@lru_cache(maxsize=1)
def default_patterns() -> dict[str, dict[str, str]]:
    import yaml

    text = resources.files("brain_core").joinpath("defaults/router.yaml").read_text(encoding="utf-8")
    return merge({}, yaml.load(text, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader)))


@lru_cache(maxsize=1)
def _default_router() -> Router:
    return Router(default_patterns())


def read_user_patterns(brain_root: Path | None) -> dict[str, Any] | None:
    """The brain's ``router.yaml``, parsed, or ``None`` when there is none."""
    if brain_root is None:
        return None
    path = Path(brain_root) / USER_FILE
    if not path.is_file():
        return None
    import yaml

    from brain_core.text import yamlsafe

    try:
        data = yamlsafe.load(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, yaml.YAMLError) as e:
        raise InvalidInput(f"{path} cannot be read as YAML ({yamlsafe.where(e)}); fix or delete it.") from e
    return data or None


def load_router(brain_root: Path | None = None, notice=None) -> Router:
    """The default router, with the brain's ``router.yaml`` laid over it when there is one.

    What is wrong in that file is reported through ``notice`` (stderr by default) and skipped: a
    bad pattern alone, a file that cannot be read or has the wrong shape whole; the defaults keep
    routing, and the router's :attr:`~Router.problems` lists what was skipped."""
    notice = notice or _warn
    try:
        user = read_user_patterns(brain_root)
        if not user:
            return _default_router()
        merged = merge(default_patterns(), user)
    except InvalidInput as e:
        notice(f"{e} Until then only the default patterns route.")
        router = Router(default_patterns())
        router.problems = (str(e),)
        return router
    names = frozenset((g, str(n)) for g, items in user.items() if isinstance(items, Mapping) for n in items)
    router = Router(merged, user=names)
    for problem in router.problems:
        notice(problem)
    return router


def _warn(message: str) -> None:
    import sys

    print(f"aida: warning: {message}", file=sys.stderr)


def route(question: str, brain_root: Path | None = None) -> Route:
    return load_router(brain_root).decide(question)


PROBE_WORDS = 6


def names_known_things(index, question: str) -> bool:
    """The lexical probe: does one record in the catalog ``index`` hold at least half of the question's
    content words (all of them for a one- or two-word question)? One keyword query
    (:meth:`~brain_core.catalog.base.Catalog.holds_words`), no embedding: with an LLM
    configured it lets "when do we deploy to staging" reach the brain though no pattern fired,
    while "how do I reverse a list in python" stays with the LLM."""
    from itertools import combinations

    from brain_core.catalog.sqlite.db import database_errors
    from brain_core.recall.confidence import content_words

    words = content_words(question, limit=PROBE_WORDS)
    if not words:
        return False
    need = len(words) if len(words) <= 2 else (len(words) + 1) // 2
    index.conn()  # opened (or built) here, as the probe always did: only the query's errors are forgiven
    try:
        return index.holds_words(list(combinations(words, need)))
    except database_errors():  # an index being rebuilt: the router's patterns alone decide
        return False
