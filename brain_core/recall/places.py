"""Places before passages: a match is more likely the one meant when its place matches too.

A record's place is its source: one agent session, one meeting, one conversation. Two lifts use it,
after the keyword and vector scores are fused (``recall.fuse``) and before decay:

- **source context** (``recall.source_weight``): each candidate is lifted by the best three fused
  scores among the candidates that share its source, as a passage is more likely relevant when its
  document is;
- **neighbours** (``recall.neighbour_weight``): the records written just before and after a strong
  match in the same source are lifted by its score, and join the candidates if they were not among
  them. In a conversation or a meeting the answer often follows the turn that names the subject
  ("what are you researching?" -> "adoption agencies"), with none of the question's words;
- **answers** (``recall.answer_weight``): the record right after a match that asks something (its
  body ends in "?") is its answer, and is lifted by ``answer_weight`` instead of ``neighbour_weight``;
- **questions** (``recall.question_weight``): a record that asks counts only this much, since it
  asks rather than tells: "how long have you been married?" shares every word with the question, and
  "5 years already!" after it is what was wanted.

A source's records are in the order they were written: by ``created``, then by id (ids made in one
process strictly increase, ``records.new_id``). Records with no source have no place.
"""

from __future__ import annotations

from typing import Any

NEIGHBOUR_SPAN = 2  # records on each side of a match that it lifts
NEIGHBOUR_GIVERS = 20  # the best fused candidates whose neighbours are lifted
NEIGHBOUR_WINDOW_S = 6 * 3600  # a neighbour was written within this long of the match (one sitting)
NEIGHBOUR_CHUNK = 100  # matches to one query (two SELECTs each; SQLite allows 500 in a compound)


def _rows(conn, rowids: list[int], columns: tuple[str, ...]) -> list[tuple]:
    """(rowid, *columns) of the catalog's rows for the given rowids (the backend's statement)."""
    from brain_core.recall.backends import of

    return of(conn).rows(conn, rowids, columns)


def sources(conn, rowids: list[int]) -> dict[int, str]:
    """rowid -> source for the given rowids."""
    return {r: source for r, source in _rows(conn, rowids, ("source",))}


def sources_and_texts(conn, rowids: list[int], bodies: bool) -> tuple[dict[int, str], dict[int, str]]:
    """(rowid -> source, rowid -> body) in one catalog lookup; no bodies unless ``bodies``."""
    if not bodies:
        return sources(conn, rowids), {}
    rows = _rows(conn, rowids, ("source", "body"))
    return {r: source for r, source, _ in rows}, {r: body for r, _, body in rows}


def with_source_context(fused: dict[int, float], sources: dict[int, str], params) -> dict[int, float]:
    """Lift each candidate by ``source_weight`` x the best three fused scores among the candidates
    that share its source (one agent session, one meeting, one conversation), itself included.

    A record alone in its source (or with none) is lifted by its own score only, so the lift
    changes the order only where several records from one place match the question: the way a
    passage is more likely relevant when its document is."""
    if params.source_weight <= 0:
        return fused
    groups: dict[Any, list[float]] = {}
    for rowid, f in fused.items():
        groups.setdefault(sources.get(rowid) or rowid, []).append(f)
    context = {g: sum(sorted(v, reverse=True)[:3]) for g, v in groups.items()}
    return {r: f + params.source_weight * context[sources.get(r) or r] for r, f in fused.items()}


def givers(fused: dict[int, float], sources: dict[int, str], n: int = NEIGHBOUR_GIVERS) -> list[int]:
    """The best ``n`` fused candidates that have a source (ties by rowid, for a stable order)."""
    ranked = sorted(fused, key=lambda r: (-fused[r], r))
    return [r for r in ranked if fused[r] > 0 and sources.get(r)][:n]


SIDES = {"before": ("<", ">=", -1, "DESC"), "after": (">", "<=", 1, "ASC")}  # comparison, edge, sign, order


def neighbours(conn, rowids: list[int], where: str, wargs: list, span: int = NEIGHBOUR_SPAN,
               window_s: float = NEIGHBOUR_WINDOW_S, sides: tuple[str, ...] = ("before", "after"),
               known: dict | None = None) -> dict[int, list[int]]:
    """rowid -> the records up to ``span`` before and after it in its source (by created, then id),
    written within ``window_s`` of it and passing recall's filters (``where`` on alias ``d``); only
    the ``sides`` asked for. ``known`` receives the neighbours' (source, body) where the backend reads
    them with the neighbours (the server's catalog: one round trip fewer). The statements are the
    backend's (:func:`brain_core.recall.sqlite.neighbours`, :func:`brain_core.recall.postgres.neighbours`)."""
    from brain_core.recall.backends import of

    return of(conn).neighbours(conn, rowids, where, wargs, span=span, window_s=window_s, sides=sides, known=known)


def with_neighbours(fused: dict[int, float], around: dict[int, list[int]], weight: float,
                    answers: dict[int, list[int]] | None = None, answer_weight: float = 0.0) -> dict[int, float]:
    """Each record next to a match (``around``: match -> its neighbours) gains the best of ``weight``
    x the score of each match next to it; the record right after a match that asks (``answers``:
    match -> [that record]) gains ``answer_weight`` x its score instead, when that is more. A
    neighbour that was no candidate joins with that alone."""
    answers = answers or {}
    if (weight <= 0 or not around) and (answer_weight <= 0 or not answers):
        return fused
    lift: dict[int, float] = {}
    for w, pairs in ((weight, around), (answer_weight, answers)):
        for giver, near in pairs.items():
            g = w * fused.get(giver, 0.0)
            for r in near:
                if r != giver and g > lift.get(r, 0.0):
                    lift[r] = g
    out = dict(fused)
    for r, g in lift.items():
        out[r] = out.get(r, 0.0) + g
    return out


def asks(body: str | None) -> bool:
    """A record asks rather than tells when its body ends in a question mark."""
    return (body or "").rstrip().endswith("?")


def texts(conn, rowids: list[int]) -> dict[int, str]:
    """rowid -> body for the given rowids."""
    return {r: body for r, body in _rows(conn, rowids, ("body",))}


def with_questions(fused: dict[int, float], asking: set[int], weight: float) -> dict[int, float]:
    """The records that ask count ``weight`` x their score (1: as much as any other)."""
    if weight == 1 or not asking:
        return fused
    return {r: f * weight if r in asking else f for r, f in fused.items()}
