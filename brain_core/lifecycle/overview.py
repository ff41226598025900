"""A look at the brain: what it holds, what the last harvest did, and how healthy it is.

``overview(brain)`` gathers, from the files (the truth) and the catalog's own counters:

- ``records`` and ``unchecked``: how many records, and how many of them the offline distiller wrote
  (tagged ``harvest:offline``: not yet read by a model or a person);
- ``by_month``: records made per month, per type and per source (an agent, a meeting, by hand),
  the newest ``months`` months, oldest first: the data of the overview's chart;
- ``newest``: the newest records with their origin ("from a Codex session on 2026-11-02") and whether
  each is unchecked; ``unchecked_newest``: the newest 50 unchecked ones, for review;
- ``last_harvest``: per agent, when it last ran and, for its sessions, what was kept and what
  was read and dropped (nothing worth keeping);
- ``backfill``: the whole last backfill (``harvest/backfill.json``): sessions read, records kept,
  sessions dropped and why, sessions left inside the quiet window, the provider; None before one;
- ``index_budget``: INDEX.md's size against its budget, with ``aida brain budget``'s exit code;
- ``catalog``: how fresh the card catalog is (files waiting to be indexed, the last scan);
- ``never_used``: entries no agent session has named (the usage audit), None when no session was read.

Every item carries the brain-relative ``path`` of its file, so a window can open it. The tray's
overview window shows this; ``aida brain overview --json`` prints it.
"""

from __future__ import annotations

import json
from collections import Counter, defaultdict
from typing import Any

from brain_core.marks import OFFLINE_TAG
from brain_core.records import AGENT_NAMES
from brain_core.records import origin as source_origin

SOURCE_KINDS = ("claude", "codex", "gemini", "meeting", "mirror")
REVIEW_ROWS = 50  # the newest unchecked records the overview lists for review


def origin(record) -> str:
    """Where a record came from, in words ("from a Codex session on 2026-11-02"; "from you" for what
    was written by hand, "from Codex" for what an agent wrote over MCP; else its source as written)."""
    source = str(record.source or "")
    said = source_origin(source, str(record.created or ""))
    if said:
        return said
    day = str(record.created or "")[:10]
    head = source.split(":", 1)[0]
    agent = AGENT_NAMES.get(head) or AGENT_NAMES.get(str(record.profile or ""))
    who = agent if agent else "you" if head in ("", "cli", "me", "user") else source
    return f"from {who}" + (f" on {day}" if day else "")


def source_kind(record) -> str:
    source = str(record.source or "")
    kind = source.split(":", 1)[0] if source else ""
    return kind if kind in SOURCE_KINDS else (record.profile if record.profile in SOURCE_KINDS else "by hand")


def overview(brain, *, months: int = 12, newest: int = 10) -> dict[str, Any]:
    by_type: dict[str, Counter] = defaultdict(Counter)
    by_source: dict[str, Counter] = defaultdict(Counter)
    recent = []
    total = unchecked = 0
    for path, rec in brain.records():
        total += 1
        unchecked += OFFLINE_TAG in rec.tags
        month = str(rec.created or "")[:7] or "unknown"
        by_type[month][rec.type] += 1
        by_source[month][source_kind(rec)] += 1
        recent.append((str(rec.created or ""), path, rec))
    recent.sort(key=lambda t: t[0], reverse=True)
    unchecked_newest = [(c, p, r) for c, p, r in recent if OFFLINE_TAG in r.tags][:REVIEW_ROWS]
    keep = sorted(m for m in by_type if m != "unknown")[-months:]
    return {
        "records": total,
        "unchecked": unchecked,
        "by_month": [{"month": m, "types": dict(by_type[m]), "sources": dict(by_source[m])} for m in keep],
        "newest": [_row(c, p, r) for c, p, r in recent[:newest]],
        "unchecked_newest": [_row(c, p, r) for c, p, r in unchecked_newest],
        "held": _held(brain),
        "last_harvest": last_harvest(brain),
        "backfill": last_backfill(brain),
        "index_budget": _budget(brain),
        "catalog": _catalog(brain),
        "never_used": _never_used(brain),
    }


def _held(brain) -> dict[str, int]:
    """What the write path holds in quarantine/, per category (a standing order's kind, or ``unsaid``: a
    model's record naming what its session never says)."""
    from brain_core.brain.quarantine import held

    return dict(Counter(str(h.info.get("category") or "unknown") for h in held(brain)))


def _row(created: str, path: str, r) -> dict[str, Any]:
    first = r.body.strip().splitlines()[0][:160] if r.body.strip() else ""
    return {"path": path, "key": r.key, "type": r.type, "first_line": first, "origin": origin(r), "created": created,
            "unchecked": OFFLINE_TAG in r.tags}


def last_harvest(brain) -> list[dict[str, Any]]:
    """Per agent: the newest harvest run's sessions, with the records each kept (or none)."""
    out: list[dict[str, Any]] = []
    for tool in ("claude", "codex", "gemini"):
        text = brain.read_text(f"harvest/{tool}.json")
        if not text:
            continue
        try:
            sessions = json.loads(text).get("sessions", {})
        except (ValueError, AttributeError):
            out.append({"tool": tool, "path": f"harvest/{tool}.json", "error": "the watermark file is not valid JSON"})
            continue
        if not isinstance(sessions, dict) or not sessions:
            continue
        when = max(str(s.get("harvested", "")) for s in sessions.values() if isinstance(s, dict))
        last = {k: s for k, s in sessions.items() if isinstance(s, dict) and s.get("harvested") == when}
        kept = [{"session": k, "records": list(s.get("records") or [])} for k, s in last.items() if s.get("records")]
        dropped = [{"session": k, "why": s.get("dropped") or "nothing worth keeping"} for k, s in last.items()
                   if not s.get("records")]
        out.append({"tool": tool, "path": f"harvest/{tool}.json", "at": when, "sessions": len(last),
                    "kept": kept, "dropped": dropped, "sessions_total": len(sessions)})
    return out


def last_backfill(brain) -> dict[str, Any] | None:
    """The whole last backfill as it was saved when it ended, with the file's path."""
    from brain_core.harvest.backfill import SUMMARY

    text = brain.read_text(SUMMARY)
    if not text:
        return None
    try:
        data = json.loads(text)
    except ValueError:
        return {"path": SUMMARY, "error": "the backfill summary is not valid JSON"}
    if not isinstance(data, dict):
        return None
    return {"path": SUMMARY, **{k: data.get(k) for k in ("finished", "relearn", "sessions", "planned", "records",
                                                         "kept", "errors", "offline", "active_left", "provider",
                                                         "calls")},
            "dropped": dict(data.get("dropped") or {})}


def _budget(brain) -> dict[str, Any]:
    from brain_core.lifecycle.tier_index import INDEX, check_budget

    b = check_budget(brain)
    return {"path": INDEX, "chars": b.chars, "cap": b.cap, "truncate": b.truncate, "exit_code": b.code,
            "message": b.message}


def _catalog(brain) -> dict[str, Any]:
    from brain_core.brain.status import brain_status

    s = brain_status(brain)
    return {"path": ".aida/index.sqlite", "indexed": s["indexed_total"], "pending": s["pending"]["total"],
            "problems": len(s["problems"]), "last_scan": s["last_scan"], "rebuild_running": s["rebuild_running"],
            "fresh": s["pending"]["total"] == 0}


def _never_used(brain) -> list[dict[str, Any]] | None:
    """Entries no agent session has named (the usage audit, :mod:`brain_core.lifecycle.audit`), or None when
    no session could be read (nothing to judge by)."""
    from brain_core.lifecycle import audit

    try:
        report = audit.audit(brain)
    except Exception:  # noqa: BLE001 - the overview must open even when the audit cannot run
        return None
    if not report.sessions:
        return None
    return [{"key": r.key, "path": r.path, "where": r.where} for r in report.never_used]
