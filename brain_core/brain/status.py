"""``aida brain status``: what the brain holds and how fresh its catalog is."""

from __future__ import annotations

from datetime import datetime, timezone

from brain_core.store.shelves import SHELVES, printable


def brain_status(brain) -> dict:
    idx = brain.index
    counts = idx.counts()
    report = idx.scan()
    pending = {"new": len(report.new), "modified": len(report.modified), "deleted": len(report.deleted)}
    pending["total"] = sum(pending.values())
    scanned = counts["scanned"]
    return {
        "root": str(brain.root),
        "head": brain.head(),
        "indexed": counts["by_shelf"],
        "indexed_total": sum(counts["by_shelf"].values()),
        "files": report.unchanged + pending["new"] + pending["modified"] + len(report.problems),
        "pending": pending,
        "problems": [{"path": p.path, "problem": p.message} for p in report.problems],
        "last_scan": datetime.fromtimestamp(scanned, timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ") if scanned else None,
        "rebuild_running": idx.rebuild_running(),
        "uncommitted": [printable(p) for p in brain.git.uncommitted(list(SHELVES) + ["archive", "wiki"])],
    }
