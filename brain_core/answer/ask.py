"""The ask pipeline: route -> (live source | recall -> lessons) -> answer -> run record.

One function, :func:`ask`, serves the CLI, the MCP server and the tray alike. The router decides
for free whether the brain is consulted at all (and newest-first or nearest-by-meaning), or
whether a live source answers. Recalled hits are re-ranked by lessons from earlier feedback on
similar questions, whose "why" texts also reach the LLM as corrections. The answer comes from the
configured provider, or offline from the records themselves; a provider that is down falls back to
the offline answer, marked as such. Every ask leaves a run record (:mod:`brain_core.answer.runs`).

A repeat-answer cache (``.aida/cache/answers/``) is keyed by the normalised question, the brain's
git HEAD (any new memory or lesson is a commit, so it invalidates) and the provider; it is bypassed
for time-sensitive and live questions and never stores a fallback answer.
"""

from __future__ import annotations

import hashlib
import json
import re
import time
import unicodedata
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Sequence

from brain_core.answer import lessons as lessons_mod
from brain_core.answer import runs
from brain_core.answer.live import LiveAnswer, LiveSource, answer_live
from brain_core.answer.offline import compose
from brain_core.answer.router import Route, Router, load_router, names_known_things
from brain_core.brain.dedupe import collapse_hits
from brain_core.errors import InvalidInput, ProviderError
from brain_core.llm import make_provider
from brain_core.marks import OFFLINE_TAG
from brain_core.recall.confidence import NONE, STRONG, WEAK
from brain_core.records import now_iso

DEFAULT = object()  # "use the configured provider"
CACHE_DIR = Path(".aida") / "cache" / "answers"
SYSTEM_MEMORY = (
    "You are Aida, the user's personal memory. Answer the question from the numbered records below, briefly and "
    "plainly. Cite every record you use as [key, date]. If the records do not answer the question, say so; never "
    "invent facts that are not in them. When the answer rests on a record marked unchecked, say it is unchecked."
)
SYSTEM_PLAIN = "You are Aida, a concise assistant. Answer the question briefly and plainly."
MAX_BODY_IN_PROMPT = 1500


@dataclass(frozen=True)
class Answer:
    text: str
    question: str
    route: Route
    run_id: str
    provider: str = "none"
    model: str | None = None
    hits: tuple = ()
    cited: tuple[str, ...] = ()
    fallback: str | None = None  # why the offline answer was used instead of the provider
    cached: bool = False
    live: LiveAnswer | None = None
    corrections: tuple[str, ...] = ()
    confidence: str = NONE  # strong: the cited record answers it; weak: only the closest; none: nothing
    run: dict = field(default_factory=dict, compare=False, repr=False)

    def to_json(self, with_run: bool = False) -> dict[str, Any]:
        out = {
            "answer": self.text, "question": self.question, "run_id": self.run_id, "route": self.route.to_json(),
            "provider": self.provider, "model": self.model, "fallback": self.fallback, "cached": self.cached,
            "hits": [h.to_json() if hasattr(h, "to_json") else h for h in self.hits], "cited": list(self.cited),
            "confidence": self.confidence,
            "live": self.live.to_json() if self.live else None, "corrections": list(self.corrections),
        }
        if with_run:
            out["run"] = self.run
        return out


MAX_QUESTION_CHARS = 20_000  # a question longer than this is refused (the router reads its first 2,000)


def ask(brain, question: str, *, llm: Any = DEFAULT, router: Router | None = None, k: int | None = None,
        explain: bool = False, live_source: LiveSource | None = None) -> Answer:
    """Answer ``question`` from ``brain``. ``llm=None`` forces the offline answer."""
    started = time.perf_counter()
    question = " ".join((question or "").split())
    if not question:
        raise InvalidInput("The question is empty; ask something, e.g. aida ask \"what did I decide about the queue\".")
    if len(question) > MAX_QUESTION_CHARS:
        raise InvalidInput(f"The question is {len(question)} characters long; a question is at most "
                           f"{MAX_QUESTION_CHARS}: ask it shorter, or save the text with `aida brain remember` first.")
    cfg = brain.config
    k = int(k or cfg.get("ask.k", 5))
    marks: dict[str, float] = {}
    asked, question = question, _written(brain, question)  # "r p o" -> RPO, "cube control" -> kubectl
    route = (router or load_router(brain.root)).decide(question)

    fallback = None
    if llm is DEFAULT:
        try:
            llm = make_provider(cfg)
        except ProviderError as e:
            llm, fallback = None, str(e)
    route = _gate(brain, question, route, llm)
    marks["route"] = time.perf_counter()
    run: dict[str, Any] = {"id": runs.new_run_id(), "at": now_iso(), "question": question, "route": route.to_json(),
           "provider": {"name": getattr(llm, "name", "none"), "model": getattr(llm, "model", None)},
           "cached": False, "fallback": None, "consulted": [], "lessons": [], "live": None,
           "usage": None, "cost_usd": None}
    if asked != question:
        run["asked"] = asked  # as typed or heard; ``question`` is what was answered

    cache_key = None
    if cfg.get("ask.cache", True) and not route.time_sensitive and route.live is None and not fallback:
        cache_key = _cache_key(brain, question, llm, k)
        hit = None if explain else _cache_get(brain.root, cache_key)  # --explain shows a real run
        if hit is not None:
            run.update(cached=True, answer=hit["text"], consulted=hit.get("consulted", []), cached_from=hit.get("run_id"))
            run["provider"] = hit.get("provider") or run["provider"]
            return _finish(brain, run, started, marks, Answer(
                text=hit["text"], question=question, route=route, run_id=run["id"], provider=run["provider"]["name"],
                model=run["provider"].get("model"), cited=tuple(hit.get("cited", ())), cached=True,
                hits=tuple(_hit_from_json(h) for h in hit.get("hits") or ()),
                confidence=str(hit.get("confidence") or NONE)))

    if route.live:
        live = answer_live(route.live, question, cfg, live_source)
        marks["live"] = time.perf_counter()
        run.update(live=live.to_json(), answer=live.text, provider={"name": f"live:{route.live}", "model": None})
        return _finish(brain, run, started, marks, Answer(
            text=live.text, question=question, route=route, run_id=run["id"], provider=f"live:{route.live}", live=live))

    found: list = []
    left_out: list[str] = []

    def recall() -> list:
        vector = None
        if lessons_mod.has_lessons(brain.root) and lessons_mod.takes_vector(brain):
            vector = brain.embedder.embed([question])[0]  # once, for the lessons and the recall
        found[:] = lessons_mod.similar_lessons(brain, question, vector=vector)
        marks["lessons"] = time.perf_counter()
        widen = any(lesson.blamed for lesson in found)
        got = lessons_mod.recall_with(brain, question, vector, k=k * 3 if widen else k,
                                      recent=route.mode == "recency", explain=explain)
        got = lessons_mod.demote(lessons_mod.rerank(got, found), found)
        left_out[:] = [h.record.key for h in got if h.confidence == NONE and (h.explain or {}).get("lessons")]
        marks["recall"] = time.perf_counter()
        from brain_core.brain.conflicts import mark_hits

        # one fact, one answer: its sources listed; two records that disagree both shown, the standing one first
        return mark_hits(collapse_hits(_by_confidence(got), brain.index)[:k], brain)

    hits = recall() if route.recall else []
    notes = tuple(lessons_mod.corrections(found))

    text, cited, usage = _answer(question, route, hits, notes, llm, left_out)
    if isinstance(text, ProviderError):  # the provider failed: fall back, and say so
        fallback = str(text)
        if not route.recall:  # with the LLM unreachable, every question goes to the brain
            route = replace(route, recall=True, fired=route.fired + ("gate:offline",))
            run["route"] = route.to_json()
            hits = recall()
            notes = tuple(lessons_mod.corrections(found))
        text, cited, usage = _answer(question, route, hits, notes, None, left_out)
    if fallback:
        text = f"[offline answer: {fallback}]\n{text}"
    marks["answer"] = time.perf_counter()
    run["lessons"] = [lesson.to_json() for lesson in found]
    level = _level(hits, cited) if route.recall else NONE  # a plain answer owes nothing to the brain

    run.update(answer=text, fallback=fallback, usage=usage, cost_usd=_cost(cfg, usage), confidence=level,
               consulted=[_consulted(h, cited) for h in hits])
    answer = Answer(text=text, question=question, route=route, run_id=run["id"],
                    provider=run["provider"]["name"] if not fallback else "none",
                    model=run["provider"]["model"] if not fallback else None, hits=tuple(hits), cited=tuple(cited),
                    fallback=fallback, corrections=notes, confidence=level)
    if cited and not fallback:
        brain.mark_used([h.path for h in hits if h.record.id in cited], "cited")  # the answer leaned on them
    if cache_key and not fallback:
        _cache_put(brain.root, cache_key, {"text": text, "cited": list(cited), "consulted": run["consulted"],
                                            "provider": run["provider"], "run_id": run["id"], "at": run["at"],
                                            "confidence": level, "hits": [h.to_json() for h in hits]})
    return _finish(brain, run, started, marks, answer)


def _written(brain, question: str) -> str:
    """The question with spoken forms and spelled-out letters written as the brain writes them
    (:mod:`brain_core.answer.spoken`); unchanged when the catalog cannot be read."""
    from brain_core.answer.spoken import normalise
    from brain_core.catalog.sqlite.db import database_errors

    try:
        conn = brain.index.conn()
    except database_errors():
        conn = None
    return normalise(question, conn) or question


def answered_how(answer: Answer) -> str:
    """In plain words: "answered offline, from your records", "answered by gpt-4o-mini"..."""
    provider = str(answer.provider or "none")
    if provider == "none":
        return "answered offline, from your records" + (" (the language model was unreachable)"
                                                        if answer.fallback else "")
    if provider.startswith("live:"):
        return f"answered from the {provider[5:]} source"
    return f"answered by {answer.model or provider}"


def _gate(brain, question: str, route: Route, llm) -> Route:
    """The router decides how a question is answered, never whether the brain may answer it:
    offline every question that is not for a live source goes to the brain; with an LLM, one that
    names things the brain has (a cheap word probe) goes there too."""
    if route.live or route.recall:
        return route
    if llm is None:
        return replace(route, recall=True, fired=route.fired + ("gate:offline",))
    if names_known_things(brain.index, question):
        return replace(route, recall=True, fired=route.fired + ("gate:probe",))
    return route


def _by_confidence(hits: list) -> list:
    """Strong hits first, then weak, in recall's order; ``none`` hits are never shown."""
    return [h for level in (STRONG, WEAK) for h in hits if (h.confidence or STRONG) == level]


def _level(hits: list, cited: list[str]) -> str:
    levels = {h.confidence or STRONG for h in hits if h.record.id in cited} or {NONE}
    return STRONG if STRONG in levels else WEAK if WEAK in levels else NONE


def _answer(question: str, route: Route, hits: list, notes: tuple[str, ...], llm,
            left_out: Sequence[str] = ()) -> tuple[Any, list[str], dict | None]:
    """``(text, cited ids, usage)``; text is the :class:`ProviderError` when the provider failed."""
    if llm is None:
        ex = compose(question, hits, corrections=notes, left_out=left_out, newest=route.mode == "recency")
        return ex.text, list(ex.cited), None
    facts = [h for h in hits if (h.confidence or STRONG) == STRONG]
    probed_only = route.recall and "gate:probe" in route.fired and not facts
    records = None if not route.recall or probed_only else facts
    closest = [h for h in hits if h.confidence == WEAK][:1] if records is not None and not facts else []
    system, user = build_prompt(question, records, notes, closest=closest, newest=route.mode == "recency")
    try:
        if hasattr(llm, "complete_full"):
            done = llm.complete_full(system, user)
            text, usage = done.text, {"input_tokens": done.input_tokens, "output_tokens": done.output_tokens,
                                      "attempts": done.attempts, "model": done.model}
        else:
            text, usage = llm.complete(system, user), None
    except ProviderError as e:
        return e, [], None
    cited = [h.record.id for h in facts if h.record.key and h.record.key in text] or [h.record.id for h in facts[:1]]
    return text, cited, usage


def build_prompt(question: str, hits: list | None, corrections: tuple[str, ...] = (),
                 closest: Sequence = (), newest: bool = False) -> tuple[str, str]:
    """The system and user prompts. ``hits=None``: a question the router kept out of the brain;
    ``hits`` are the records that answer it (strong only), ``closest`` a weak one shown as such
    (with what it lacks of the question, :mod:`brain_core.recall.coverage`); ``newest``: a recency
    question, whose records come newest first."""
    system = SYSTEM_MEMORY if hits is not None else SYSTEM_PLAIN
    if corrections:
        system += ("\n\nCorrections the user gave on earlier answers to similar questions (follow them):\n"
                   + "\n".join(f"- {c}" for c in corrections))
    if hits is None:
        return system, question
    if not hits:
        near = ""
        if closest:
            lacks = tuple(getattr(getattr(closest[0], "evidence", None), "missing", ()) or ())
            about = f"; it says nothing about {' or '.join(lacks)}" if lacks else ""
            near = f"\n\nThe closest record (it does not answer the question{about}; offer it only as the closest " \
                "you have):\n" + _prompt_record(1, closest[0])
        return system, f"Records: none answer this question.{near}\n\nQuestion: {question}"
    lines = [_prompt_record(i, h) for i, h in enumerate(hits, 1)]
    from brain_core.brain.conflicts import prompt_notes

    notes = prompt_notes(hits)
    head = "Records, newest first (name the date of the one you use):" if newest else "Records:"
    return system, head + "\n" + "\n\n".join(lines) + notes + f"\n\nQuestion: {question}"


def _prompt_record(i: int, h) -> str:
    r = h.record
    body = r.body if len(r.body) <= MAX_BODY_IN_PROMPT else r.body[:MAX_BODY_IN_PROMPT] + "…"
    unchecked = ", unchecked: lifted from a session with no model, not yet confirmed" if OFFLINE_TAG in r.tags else ""
    return f"[{i}] {r.key} ({str(r.created)[:10]}, {r.type}, from {r.profile}{unchecked}):\n{body}"


def _hit_from_json(d: dict):
    """A hit as the cache keeps it (``Hit.to_json``), back as a :class:`~brain_core.recall.hybrid.Hit`."""
    from brain_core.recall.hybrid import Hit
    from brain_core.records import Record

    rec = Record(id=d.get("id", ""), type=d.get("type", "fact"), key=d.get("key", ""), profile=d.get("profile", "me"),
                 body=d.get("body", ""), tags=list(d.get("tags") or []), source=d.get("source") or "",
                 created=d.get("created") or "", expires=d.get("expires"))
    return Hit(record=rec, path=d.get("path", ""), score=float(d.get("score") or 0), stale=bool(d.get("stale")),
               confidence=d.get("confidence"), also=list(d.get("also") or []),
               disagrees=list(d.get("disagrees") or []))


def _consulted(hit, cited: list[str]) -> dict[str, Any]:
    r = hit.record
    out = {"id": r.id, "key": r.key, "path": hit.path, "type": r.type, "created": r.created,
           "score": round(float(hit.score), 6), "cited": r.id in cited}
    if hit.explain:
        out["explain"] = hit.explain
    return out


def _finish(brain, run: dict, started: float, marks: dict[str, float], answer: Answer) -> Answer:
    last, timings = started, {}
    for name, t in marks.items():
        timings[name] = round((t - last) * 1000, 3)
        last = t
    timings["total"] = round((time.perf_counter() - started) * 1000, 3)
    run["timings_ms"] = timings
    try:
        runs.save(brain.root, run)
        keep = float(brain.config.get("ask.runs_keep_days", runs.DEFAULT_KEEP_DAYS))
        runs.prune(brain.root, keep)
        _cache_prune(brain.root, keep)
    except OSError:
        pass  # a read-only brain (or a full disk) still answers; only the run record is not kept
    return replace(answer, run=run)


# -- the repeat-answer cache ----------------------------------------------------------------------


def normalise(question: str) -> str:
    """Case, accents' composition, punctuation and spacing do not make a question different."""
    text = unicodedata.normalize("NFKC", question).casefold()
    return " ".join(re.sub(r"[^\w\s'-]", " ", text).split())


def git_head(brain) -> str:
    """The brain's HEAD commit, read from ``.git`` directly (no subprocess on every question)."""
    git = Path(brain.root) / ".git"
    try:
        ref = (git / "HEAD").read_text(encoding="utf-8").strip()
        if not ref.startswith("ref: "):
            return ref
        name = ref[5:].strip()
        loose = git / name
        if loose.is_file():
            return loose.read_text(encoding="utf-8").strip()
        for line in (git / "packed-refs").read_text(encoding="utf-8").splitlines():
            if line.endswith(" " + name):
                return line.split(" ", 1)[0]
    except (OSError, UnicodeDecodeError):
        pass
    return brain.head() or "no-head"


def _cache_key(brain, question: str, llm, k: int) -> str:
    who = f"{getattr(llm, 'name', 'none')}|{getattr(llm, 'model', '')}|{getattr(llm, 'base_url', '')}"
    raw = "\0".join((normalise(question), git_head(brain), who, str(k), getattr(brain, "project", None) or ""))
    return hashlib.sha256(raw.encode("utf-8")).hexdigest()


def _cache_get(root: Path, key: str) -> dict | None:
    path = Path(root) / CACHE_DIR / f"{key}.json"
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return None
    except (OSError, UnicodeDecodeError, ValueError):
        path.unlink(missing_ok=True)  # a torn or hand-edited entry: forget it, answer afresh
        return None
    return data if isinstance(data, dict) and isinstance(data.get("text"), str) else None


def _cache_put(root: Path, key: str, entry: dict) -> None:
    try:
        runs.write_local(Path(root) / CACHE_DIR / f"{key}.json", json.dumps(entry, ensure_ascii=False, sort_keys=True))
    except OSError:
        pass  # a read-only brain or a full disk: the next ask answers afresh


def _cache_prune(root: Path, keep_days: float) -> None:
    """Entries for an old HEAD are never hit again; they go with the runs, by age."""
    folder = Path(root) / CACHE_DIR
    if not folder.is_dir():
        return
    runs.prune_folder(folder, keep_days)


def _cost(cfg, usage: dict | None) -> float | None:
    """Cost in USD when the settings give prices (``llm.price.input_per_mtok``/``output_per_mtok``)."""
    price = cfg.get("llm.price", None)
    if not usage or not isinstance(price, dict):
        return None
    try:
        cost = (usage.get("input_tokens") or 0) * float(price.get("input_per_mtok", 0)) / 1e6
        cost += (usage.get("output_tokens") or 0) * float(price.get("output_per_mtok", 0)) / 1e6
    except (TypeError, ValueError):
        return None
    return round(cost, 6)
