"""Lessons (L1): a thumbs-up or thumbs-down on a run, kept so the next similar question goes better.

``aida feedback down RUN_ID --why "..."`` writes ``lessons/<id>.json`` through the one write path
(committed to git, the question's embedding in the index: the body *is* the question, so the
index embeds exactly it). Lessons act on later questions whose embedding is close to theirs
(cosine >= ``ask.lesson_similarity``, 0.7 by default):

- a thumbs-down lowers the record(s) it blames: by default the first record the answer cited
  (the one it leaned on), or those named with ``--record KEY``; a thumbs-up raises the cited ones;
- a ``why`` text is passed to the LLM as a correction (and shown under an offline answer).

Feedback given twice on one run counts once: the newest lesson for a run wins.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, replace
from typing import Any, Iterable, Sequence

from brain_core.answer import runs
from brain_core.errors import InvalidInput
from brain_core.redact import redact

VERDICTS = ("up", "down")
DEFAULT_SIMILARITY = 0.7
DOWN_WEIGHT = 0.6  # a blamed record keeps 1 - 0.6 * similarity of its score (about half)
UP_WEIGHT = 0.3


@dataclass(frozen=True)
class Lesson:
    id: str
    path: str
    question: str
    verdict: str
    why: str
    blamed: tuple[str, ...]  # record ids the verdict is about
    run_id: str
    created: str
    similarity: float = 0.0

    def to_json(self) -> dict[str, Any]:
        return {"id": self.id, "path": self.path, "verdict": self.verdict, "why": self.why,
                "similarity": round(self.similarity, 4), "records": list(self.blamed), "run_id": self.run_id}


def record_feedback(brain, run_id: str, verdict: str, *, why: str | None = None,
                    records: Iterable[str] = ()) -> Any:
    """Turn a run into a lesson; returns the written :class:`Record`."""
    verdict = (verdict or "").strip().lower()
    if verdict not in VERDICTS:
        raise InvalidInput(f"Feedback is up or down, not {verdict!r}.")
    run = runs.load(brain.root, run_id)
    question = str(run.get("question") or "").strip()
    if not question:
        raise InvalidInput(f"Run {run_id} has no question to learn from; ask again and give feedback on that run.")
    consulted = [c for c in run.get("consulted") or [] if isinstance(c, dict) and c.get("id")]
    blamed = _blamed(consulted, verdict, [r for r in records if r])
    # Masked here and again by the write path: the why, the answer and the question may quote a secret
    # (masked before the answer is cut, so no half secret survives the cut).
    why = redact(" ".join((why or "").split())).text
    extra = {
        "verdict": verdict,
        "why": why,
        "run_id": run["id"],
        "records": [{k: c.get(k) for k in ("id", "key", "path")} for c in blamed],
        "answer": redact(str(run.get("answer") or "")).text[:500],
        "provider": (run.get("provider") or {}).get("name"),
    }
    lesson = brain.remember(question, type="lesson", profile="me", tags=[f"feedback:{verdict}"],
                            source=f"aida:run:{run['id']}", extra=extra,
                            message=f"feedback: thumbs-{verdict} on run {run['id']}")
    if verdict == "up":  # the records the answer leaned on helped: a use
        try:
            brain.mark_used([str(c["path"]) for c in blamed if c.get("path")], "thumbs-up")
        except InvalidInput:
            pass  # a run file naming a path outside the brain: the lesson stands, no use noted
    return lesson


def _blamed(consulted: list[dict], verdict: str, named: Sequence[str]) -> list[dict]:
    if named:
        out = []
        for name in named:
            found = [c for c in consulted if name in (c.get("key"), c.get("id"), c.get("path"))]
            if not found:
                keys = ", ".join(str(c.get("key")) for c in consulted) or "none"
                raise InvalidInput(f"{name!r} was not consulted in that run (it consulted: {keys}); name one of those.")
            out += [c for c in found if c not in out]
        return out
    cited = [c for c in consulted if c.get("cited")] or consulted
    return cited[:1] if verdict == "down" else cited


def has_lessons(brain_root) -> bool:
    """Cheap check so that a brain without lessons never pays for the lesson lookup."""
    try:
        with os.scandir(os.path.join(brain_root, "lessons")) as it:
            return any(e.name.endswith(".json") for e in it)
    except FileNotFoundError:
        return False


def takes_vector(brain) -> bool:
    """Whether ``brain.recall`` accepts a ready ``query_vector`` (then a question is embedded once
    for both the lesson lookup and the recall)."""
    import inspect

    try:
        return "query_vector" in inspect.signature(brain.recall).parameters
    except (TypeError, ValueError):
        return False


def recall_with(brain, question: str, vector=None, **kw) -> list:
    """``brain.recall``, handing over the question's vector when there is one."""
    if vector is not None:
        kw["query_vector"] = vector
    return brain.recall(question, **kw)


def similar_lessons(brain, question: str, *, threshold: float | None = None, k: int = 10,
                    vector=None) -> list[Lesson]:
    """Lessons whose question is close in meaning to ``question``, most similar first."""
    if not has_lessons(brain.root) or not question.strip():
        return []
    if threshold is None:
        threshold = float(brain.config.get("ask.lesson_similarity", DEFAULT_SIMILARITY))
    hits = recall_with(brain, question, vector, k=k, shelves=("lessons",), explain=True, touch=False, catch_up=False)
    by_run: dict[str, Lesson] = {}
    for hit in hits:
        vec = (hit.explain or {}).get("vector") or {}
        sim = float(vec.get("score") or 0.0)
        if sim < threshold:
            continue
        from brain_core.errors import MalformedRecord

        try:
            rec = brain.get(hit.path)
        except (MalformedRecord, OSError):
            continue  # lint reports it; a broken lesson must not break a question
        ex = rec.extra
        if ex.get("verdict") not in VERDICTS:
            continue
        lesson = Lesson(id=rec.id, path=hit.path, question=rec.body, verdict=ex["verdict"], why=str(ex.get("why") or ""),
                        blamed=tuple(str(r.get("id")) for r in ex.get("records") or [] if isinstance(r, dict)),
                        run_id=str(ex.get("run_id") or rec.id), created=rec.created, similarity=sim)
        old = by_run.get(lesson.run_id)
        if old is None or (lesson.created, lesson.id) > (old.created, old.id):
            by_run[lesson.run_id] = lesson
    return sorted(by_run.values(), key=lambda les: les.similarity, reverse=True)


def rerank(hits: Sequence[Any], lessons: Sequence[Lesson]) -> list[Any]:
    """Hits re-scored by the lessons that blame or credit them, best first (stable otherwise)."""
    if not lessons:
        return list(hits)
    out = []
    for hit in hits:
        factor, applied = 1.0, []
        for lesson in lessons:
            if hit.record.id not in lesson.blamed:
                continue
            f = 1 - DOWN_WEIGHT * lesson.similarity if lesson.verdict == "down" else 1 + UP_WEIGHT * lesson.similarity
            factor *= f
            applied.append({"lesson": lesson.id, "verdict": lesson.verdict, "factor": round(f, 4)})
        if applied:
            explain = dict(hit.explain or {})
            explain["lessons"] = applied
            hit = replace(hit, score=hit.score * factor, explain=explain)
        out.append(hit)
    return sorted(out, key=lambda h: h.score, reverse=True)


def corrections(lessons: Sequence[Lesson], limit: int = 3) -> list[str]:
    """The ``why`` texts of the most similar lessons, without repeats. A thumbs-down's text is the
    correction itself; a thumbs-up's is marked as confirming an earlier answer."""
    out: list[str] = []
    for lesson in lessons:
        if not lesson.why:
            continue
        text = lesson.why if lesson.verdict == "down" else f"(an earlier answer was right) {lesson.why}"
        if text not in out:
            out.append(text)
    return out[:limit]


ABSTAIN_SIMILARITY = 0.9  # feedback on (nearly) this very question


def demote(hits: Sequence[Any], lessons: Sequence[Lesson]) -> list[Any]:
    """Confidence changed by feedback. A thumbs-down's record: on (nearly) the same question it is
    no answer at all (``none``: Aida abstains rather than promote the next record, which recall's
    confidence judges on its own); on a merely similar one it is at best "the closest". A
    thumbs-up's record is an answer to that question whatever recall thought of it, and to a
    similar one when recall found it at least close."""
    if not lessons:
        return list(hits)
    out = []
    for hit in hits:
        level = getattr(hit, "confidence", None)
        downs = [les.similarity for les in lessons if les.verdict == "down" and hit.record.id in les.blamed]
        ups = [les.similarity for les in lessons if les.verdict == "up" and hit.record.id in les.blamed]
        new = level
        if level is not None and downs:
            new = "none" if max(downs) >= ABSTAIN_SIMILARITY else ("weak" if level == "strong" else level)
        elif level is not None and ups and (max(ups) >= ABSTAIN_SIMILARITY or level == "weak"):
            new = "strong"
        out.append(replace(hit, confidence=new) if new != level else hit)
    return out
