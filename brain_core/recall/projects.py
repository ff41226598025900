"""Project scope in recall: a record tagged ``project:<name>`` of the project a question is asked in
is lifted, never filtered (the project of a folder is :func:`brain_core.harvest.projects.project_of`)."""

from __future__ import annotations

PREFIX = "project:"


def tag(project: str | None) -> str | None:
    return f"{PREFIX}{project}" if project else None


def has_project(tags, project: str | None) -> bool:
    return bool(project) and f"{PREFIX}{project}" in (tags or ())


DEFAULT_BOOST = 0.3


def boost(hits: list, project: str | None, weight: float, k: int) -> list:
    """Recall's hits with the project's records lifted: a record tagged ``project:<project>``
    scores ``1 + weight`` times as much, then the best ``k`` are kept. A lift, never a filter:
    another project's record still comes first when it is the only good answer."""
    if not project or weight <= 0:
        return list(hits)[:k]
    for h in hits:
        if has_project(h.record.tags, project):
            h.score *= 1 + weight
            if isinstance(h.explain, dict):
                h.explain["project"] = project
    return sorted(hits, key=lambda h: h.score, reverse=True)[:k]
