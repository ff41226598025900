"""``aida brain audit``: which INDEX.md and shelf entries and knowledge pages the agents used.

An entry counts as used in an agent session when its key or its file name appears in that
session's transcript, or when the session-start block (``aida brain session-start``, noted in
``.aida/injections.jsonl``) carried it into that session (an agent that opened ``memories/me/git-force-push.json`` or recalled
``git-force-push`` names it there). The sessions are the transcripts harvest reads
(``brain_core.harvest.sources``: Claude Code, Codex, Gemini CLI). The table is evidence for
pruning, not a verdict: an iron rule in INDEX.md may never be looked up because it is always
obeyed, which is why ``maintain`` never archives an INDEX.md entry on usage alone.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import PurePosixPath


@dataclass(frozen=True)
class Row:
    key: str
    path: str
    where: str          # "INDEX.md", "shelf" or "knowledge" (a page not listed in either)
    sessions: int = 0   # how many sessions used it: named it, or were given it at session start
    injected: int = 0   # of those, how many had it in their session-start block

    def to_json(self) -> dict:
        return {"key": self.key, "path": self.path, "where": self.where, "sessions": self.sessions,
                "injected": self.injected}


@dataclass(frozen=True)
class Audit:
    sessions: int                       # transcripts read
    rows: tuple[Row, ...] = ()
    unreadable: tuple[str, ...] = field(default_factory=tuple)

    @property
    def never_used(self) -> tuple[Row, ...]:
        return tuple(r for r in self.rows if r.sessions == 0)

    def to_json(self) -> dict:
        return {"sessions": self.sessions, "entries": [r.to_json() for r in self.rows],
                "never_used": [r.path for r in self.never_used], "unreadable": list(self.unreadable)}


def listed(brain) -> list[tuple[str, str, str]]:
    """(key, path, where) for every INDEX.md and shelf entry and every knowledge page."""
    from brain_core.lifecycle.common import load_docs
    from brain_core.lifecycle.tier_index import entries, plan

    es = entries(brain)
    loaded = plan(brain).loaded
    out = [(PurePosixPath(e.path).stem, e.path, "INDEX.md" if i < loaded else "shelf") for i, e in enumerate(es)]
    seen = {p for _, p, _ in out}
    for doc in load_docs(brain, ("knowledge",)):
        if doc.path not in seen:
            out.append((PurePosixPath(doc.path).stem, doc.path, "knowledge"))
    return out


def transcripts(roots: dict | None = None):
    """(label, text) of each agent session harvest can read."""
    from brain_core.harvest import read_text
    from brain_core.harvest.sources import NAMES, get

    roots = roots or {}
    for name in NAMES:
        try:
            files = get(name, roots.get(name)).files()
        except OSError:
            continue
        for sf in files:
            try:
                yield f"{name}:{sf.id}", read_text(sf.path)
            except Exception as e:  # noqa: BLE001 - one unreadable transcript must not stop the audit
                yield f"{name}:{sf.id}", e


def audit(brain, roots: dict | None = None) -> Audit:
    items = listed(brain)
    names: dict[str, set[int]] = {}
    for i, (key, path, _) in enumerate(items):
        for name in {key.lower(), PurePosixPath(path).name.lower()}:
            names.setdefault(name, set()).add(i)
    counts: list[set[str]] = [set() for _ in items]  # the sessions that used each entry
    unreadable, n = [], 0
    if names:
        # the longest names first, each a whole token (not part of a longer key)
        pattern = re.compile(r"(?<![\w-])(" + "|".join(re.escape(k) for k in sorted(names, key=len, reverse=True))
                             + r")(?![\w-])", re.IGNORECASE)
    for label, text in transcripts(roots):
        if isinstance(text, Exception):
            unreadable.append(f"{label}: {text}")
            continue
        n += 1
        if not names:
            continue
        used: set[int] = set()
        for m in pattern.finditer(text):
            used |= names[m.group(1).lower()]
        for i in used:
            counts[i].add(label)
    # a session-start block (brain_core.agents.session_start) is a use of every entry it carried
    from brain_core.lifecycle.injections import injections

    at = {path: i for i, (_, path, _) in enumerate(items)}
    given: list[set[str]] = [set() for _ in items]
    for k, inj in enumerate(injections(brain.root)):
        label = f"{inj.get('tool') or 'cli'}:{inj.get('session') or f'start-{k}'}"
        for path in inj["paths"]:
            if path in at:
                given[at[path]].add(label)
                counts[at[path]].add(label)
    rows = [Row(key, path, where, len(counts[i]), len(given[i])) for i, (key, path, where) in enumerate(items)]
    order = {"INDEX.md": 0, "shelf": 1, "knowledge": 2}
    rows.sort(key=lambda r: (-r.sessions, order[r.where], r.path))
    return Audit(n, tuple(rows), tuple(unreadable))


def render(a: Audit) -> str:
    lines = [f"Usage in {a.sessions} agent session(s) (a session uses an entry when its transcript names "
             "the entry's key or file, or its session-start block carried it):",
             f"{'sessions':>8}  {'at start':>8}  {'where':9}  path"]
    for r in a.rows:
        lines.append(f"{r.sessions:>8}  {r.injected:>8}  {r.where:9}  {r.path}")
    never = a.never_used
    lines.append(f"\nNever used ({len(never)}):" if never else "\nEvery entry was used at least once.")
    lines += [f"  {r.where:9}  {r.path}" for r in never]
    if a.unreadable:
        lines.append(f"\n{len(a.unreadable)} transcript(s) could not be read: " + "; ".join(a.unreadable[:3]))
    return "\n".join(lines)
