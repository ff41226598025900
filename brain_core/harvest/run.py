"""The sweep: every source's due sessions -> parse -> trim -> redact -> distill -> write -> watermark.

Called by ``aida brain harvest``, by the agents' hooks (in a detached process) and by the tray's
periodic timer. Sessions are due when past their watermark and quiet long enough
(:mod:`.watermark`). Secrets are masked before the distiller sees the text, so none reaches a
model either. Everything is written through ``brain.remember_many``, the brain's one write path,
which masks again, supersedes by key, commits and tells the tray.

``dry_run`` writes nothing and reports what would be written and which redactions fired. A
machine whose ``machine.role`` is ``reader`` never writes: its sweep is always a dry run.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Callable

from brain_core.errors import BrainError, InvalidInput, ProviderError
from brain_core.harvest import Session, SessionFile, Turn, render_turns, shorten
from brain_core.harvest.codeish import code_only
from brain_core.harvest.distill import distill, make_key
from brain_core.harvest.guard import standing_order
from brain_core.harvest.sources import NAMES, get, guess
from brain_core.harvest.trim import HEAD, TAIL, trim
from brain_core.harvest.watermark import Clock, Watermark, adopt, check, quiet_seconds, system_clock

_DEFAULT = object()
AGENT_SNIPPET = 600  # characters of an agent's reply kept when a long session is bounded for a model


@dataclass
class Outcome:
    """What happened to one session (or to the mirror, ``tool="mirror"``)."""

    tool: str
    session: str
    path: str
    reason: str  # new | grew | file | mirror | relearn
    records: list[dict] = field(default_factory=list)  # what was (or would be) written
    written: list[str] = field(default_factory=list)  # record paths actually changed
    redactions: dict[str, int] = field(default_factory=dict)  # rule -> count
    refused: list[str] = field(default_factory=list)  # proposed bodies refused as orders aimed at the assistant
    quarantined: list[str] = field(default_factory=list)  # paths under quarantine/ the write path held (guard.py)
    error: str | None = None
    offline: bool = False  # read by the offline distiller (``--relearn`` reads it again with a model)
    dropped: str | None = None  # why nothing was kept, when nothing was


@dataclass
class Result:
    dry_run: bool
    reader: bool = False
    outcomes: list[Outcome] = field(default_factory=list)
    skipped: dict[str, int] = field(default_factory=dict)  # reason -> count
    notes: list[str] = field(default_factory=list)
    paused: bool = False
    provider: str | None = None  # the model that read the sessions ("none": offline)
    fallback: str | None = None  # why this run went on offline, in one sentence
    calls: int = 0  # calls made to the provider

    @property
    def written(self) -> int:
        return sum(len(o.written) for o in self.outcomes)

    @property
    def errors(self) -> list[Outcome]:
        return [o for o in self.outcomes if o.error]

    def to_dict(self) -> dict:
        return {
            "dry_run": self.dry_run, "reader": self.reader, "written": self.written,
            "skipped": self.skipped, "notes": self.notes, "paused": self.paused, "provider": self.provider,
            "fallback": self.fallback, "calls": self.calls, "outcomes": [asdict(o) for o in self.outcomes],
        }


PAUSED = "Harvesting is paused (Pause harvesting, tray.harvest_paused); nothing was read. --force harvests anyway."
CHILD = "This process runs inside a call Aida made to an agent's CLI (AIDA_CHILD); nothing is harvested."


def paused(config) -> bool:
    """The one switch that pauses every path that harvests."""
    return bool(config.get("tray.harvest_paused", False)) if config is not None else False


def sweep(
    brain,
    *,
    sources: tuple[str, ...] = NAMES,
    roots: dict[str, Path] | None = None,
    files: list[Path] | tuple = (),
    ignore_quiet: bool = False,
    dry_run: bool = False,
    include_mirror: bool = True,
    llm=_DEFAULT,
    clock: Clock = system_clock,
    notify: Callable[[Outcome], None] | None = None,
    force: bool = False,
    reason: str | None = None,
) -> Result:
    """Harvest what is due. ``files``: harvest exactly these transcripts, now, whatever their
    watermark says. ``roots``: per-tool home folders (tests, non-default installs). ``force``:
    harvest even while harvesting is paused. ``reason``: what the outcomes of ``files`` say
    (``file``, or ``relearn``).

    Only one sweep writes at a time (agents fire a hook after every turn): a second one that
    finds the harvest lock taken returns at once with a note, leaving the work to the first.
    """
    from brain_core.llm.agent_cli import is_child

    if is_child():
        return Result(dry_run=True, notes=[CHILD])
    if paused(brain.config) and not force:
        return Result(dry_run=dry_run, paused=True, notes=[PAUSED])
    args = (brain, sources, roots, files, ignore_quiet, dry_run, include_mirror, llm, clock, notify, reason)
    if dry_run or str(brain.config.get("machine.role", "writer")).lower() == "reader":
        return _sweep(*args)
    from brain_core.store.locks import FileLock

    lock = FileLock(brain.root / ".aida" / "harvest.lock", timeout=0)
    if not lock.acquire(blocking=False):
        return Result(dry_run=False, notes=["Another harvest is running; it will take these sessions."])
    try:
        return _sweep(*args)
    finally:
        lock.release()


class _Run:
    """The model a sweep reads with, until it fails for the whole run (then offline, once said)."""

    def __init__(self, llm, result: Result) -> None:
        self.llm, self.result = llm, result
        result.provider = getattr(llm, "name", "none") if llm is not None else "none"

    def fall_back(self, e: ProviderError) -> None:
        from brain_core.llm.agent_cli import record_status

        self.result.fallback = str(e)
        self.result.notes.append(f"{e} This run reads the sessions offline instead.")
        record_status(getattr(self.llm, "name", "?"), str(e), kind=getattr(e, "kind", "failed"))
        self.llm = None


def _sweep(brain, sources, roots, files, ignore_quiet, dry_run, include_mirror, llm, clock, notify, reason) -> Result:
    from brain_core.harvest.exclude import Exclusions

    config = brain.config
    reader = str(config.get("machine.role", "writer")).lower() == "reader"
    result = Result(dry_run=dry_run or reader, reader=reader)
    roots = dict(roots or {})
    if llm is _DEFAULT:
        llm = _provider(config, result)
    run = _Run(llm, result)
    now = clock()
    quiet_s = quiet_seconds(config)
    exclusions = Exclusions(config)

    def skip(why: str) -> None:
        result.skipped[why] = result.skipped.get(why, 0) + 1

    plan: dict[str, list[tuple[SessionFile, str]]] = {}
    marks: dict[str, Watermark] = {}
    if files:
        for f in files:
            path = Path(f).expanduser()
            if not path.is_file():
                raise InvalidInput(f"{path} is not a file; give the path of a transcript.")
            from brain_core.harvest.sources.gemini import is_prompt_log

            if is_prompt_log(path):
                raise InvalidInput(
                    f"{path} is Gemini CLI's prompt log (logs.json): it holds only what was typed, not the "
                    "conversation. Give the chat file instead (~/.gemini/tmp/<project>/chats/session-*.json or "
                    ".jsonl), or run `aida brain harvest` without --file to take every due session.")
            tool = (sources[0] if len(sources) == 1 else None) or guess(path)
            if tool is None:
                raise InvalidInput(f"Cannot tell which agent wrote {path}; add --source claude|codex|gemini.")
            src = get(tool, roots.get(tool))
            from brain_core.harvest import session_file

            sf = session_file(tool, src.file_id(path), path)
            why = exclusions.why(sf) if sf is not None else None
            if why:
                skip(why)
                continue
            assert sf is not None  # path.is_file() held just above
            plan.setdefault(tool, []).append((sf, reason or "file"))
    else:
        for tool in sources:
            src = get(tool, roots.get(tool))
            wm = marks.setdefault(tool, Watermark.load(brain, tool))
            for sf in src.files():
                adopt(wm, sf)  # a session a damaged watermark lost, found again in the records
                due = check(wm, sf, now=now, quiet_s=quiet_s, ignore_quiet=ignore_quiet)
                why = exclusions.why(sf) if due.due else None
                if why:
                    skip(why)
                elif due.due:
                    plan.setdefault(tool, []).append((sf, due.reason))
                else:
                    skip(due.reason)

    saved: set[str] = set()
    for tool, items in plan.items():
        src = get(tool, roots.get(tool))
        wm = marks.setdefault(tool, Watermark.load(brain, tool))
        outcomes = harvest_many(src, items, run=run)
        result.outcomes += outcomes
        if result.dry_run:
            continue
        _write_outcomes(brain, tool, outcomes)
        harvested = [(sf, o) for (sf, _), o in zip(items, outcomes) if o.error is None]
        for sf, o in harvested:
            wm.mark(sf, now=now, records=[record_path(r) for r in o.records], offline=o.offline, dropped=o.dropped)
            if notify and o.written:
                notify(o)
        if harvested:
            n = len(harvested)
            wm.save(brain, f"harvest: {tool} watermark ({n} session{'s' if n != 1 else ''})")
            saved.add(tool)
    for tool, wm in marks.items():
        if wm.problem is None:
            continue
        result.notes.append(f"harvest/{tool}.json was damaged ({wm.problem}); it was rebuilt from the records' "
                            f"sources ({len(wm.sessions)} session{'s' if len(wm.sessions) != 1 else ''}), so no "
                            "session is harvested twice.")
        if not result.dry_run and tool not in saved:
            wm.save(brain, f"harvest: {tool} watermark rebuilt from the records")

    if run.result.calls and not result.fallback and not result.dry_run:
        from brain_core.llm.agent_cli import AgentCLI, record_status

        if isinstance(run.llm, AgentCLI):
            record_status(run.llm.name, None)
    if include_mirror and not files:
        outcome = run_mirror(brain, sources=sources, roots=roots, dry_run=result.dry_run)
        if outcome.records:
            result.outcomes.append(outcome)
            if notify and outcome.written:
                notify(outcome)
    return result


def _write_outcomes(brain, tool: str, outcomes: list[Outcome]) -> None:
    """All of one agent's harvested records in one write (one commit); if the brain refuses the
    batch, session by session, so one bad record costs only its own session."""
    todo = [o for o in outcomes if o.error is None and o.records]
    if not todo:
        return
    items = [r for o in todo for r in o.records]
    sessions = ", ".join(o.session[:13] for o in todo[:3]) + (" ..." if len(todo) > 3 else "")
    try:
        held: list[str] = []
        changed = set(write(brain, items, f"harvest: {tool} {len(todo)} session{'s' if len(todo) != 1 else ''} ({sessions})",
                            held=held))
        for o in todo:
            o.written = [p for p in dict.fromkeys(record_path(r) for r in o.records) if p in changed]
            o.quarantined = [p for p in dict.fromkeys(_held_path(r) for r in o.records) if p in held]
            changed -= set(o.written)  # a key two sessions share counts once, for the first
    except BrainError:
        for o in todo:
            try:
                o.written = write(brain, o.records, f"harvest: {tool} session {o.session}", held=o.quarantined)
            except BrainError as e:
                o.error = str(e)


@dataclass
class _Prepared:
    outcome: Outcome
    session: Session
    texts: dict = field(default_factory=dict)  # offline? -> (redaction, fragments)

    def text(self, offline: bool):
        from brain_core.redact import redact

        if offline not in self.texts:
            raw = session_text(self.session, offline=offline)
            red = redact(raw)
            fragments = {w for f in red.findings for w in re.findall(r"[a-z0-9]{8,}", raw[f.start:f.end].lower())}
            self.texts[offline] = (red, fragments)
        return self.texts[offline]

    @property
    def context(self) -> dict:
        return {"project": self.session.project, "title": self.session.title, "cwd": self.session.cwd}


def _prepare(src, sf, reason: str) -> tuple[Outcome, _Prepared | None]:
    outcome = Outcome(tool=src.name, session=sf.id, path=str(sf.path), reason=reason)
    try:
        session: Session = src.parse(sf.path)
    except BrainError as e:
        outcome.error = f"{sf.path} could not be read ({e})."
        return outcome, None
    except (OSError, ValueError, EOFError) as e:
        outcome.error = f"{sf.path} could not be read ({e.__class__.__name__}: {e})."
        return outcome, None
    if not any(t.role == "user" for t in session.turns) and not session.extra.get("continued"):
        outcome.dropped = "nothing the person said"
        return outcome, None  # nothing the person said: nothing to learn
    return outcome, _Prepared(outcome, session)


def _offline(llm) -> bool:
    return llm is None or getattr(llm, "name", "none") == "none"


def harvest_session(src, sf, *, reason: str, llm) -> Outcome:
    """One transcript through the pipeline up to the records to write; errors become the
    outcome's ``error``, not a crash, so one bad file never stops a sweep."""
    return harvest_many(src, [(sf, reason)], run=_Run(llm, Result(dry_run=True)))[0]


def harvest_many(src, items, *, run: _Run) -> list[Outcome]:
    """Sessions of one agent through the pipeline. With an agent-CLI provider, quiet sessions that
    fit go to the model together (:mod:`.batch`); a provider that is missing, logged out or over
    its limit turns the rest of the run offline (:class:`~brain_core.llm.agent_cli.AgentUnavailable`)."""
    from brain_core.harvest.batch import groups
    from brain_core.llm.agent_cli import AgentUnavailable

    prepared = [_prepare(src, sf, reason) for sf, reason in items]
    ready = [p for _, p in prepared if p is not None]
    limit = int(getattr(run.llm, "batch_chars", 0) or 0)
    todo = groups([len(p.text(False)[0].text) for p in ready], limit) if limit and not _offline(run.llm) \
        else [[i] for i in range(len(ready))]
    for group in todo:
        members = [ready[i] for i in group]
        if len(members) > 1 and not _offline(run.llm):
            try:
                _distill_group(src, members, run)
                continue
            except AgentUnavailable as e:
                run.fall_back(e)
            except ProviderError:
                pass  # a batched answer that did not fit the schema: one by one
        for p in members:
            _distill_one(src, p, run)
    return [o for o, _ in prepared]


def _distill_one(src, p: _Prepared, run: _Run) -> None:
    from brain_core.llm.agent_cli import AgentUnavailable

    while True:
        offline = _offline(run.llm)
        red, fragments = p.text(offline)
        refused: list[str] = []
        try:
            proposed = distill(red.text, profile=src.name, source=p.session.source, context=p.context,
                               llm=None if offline else run.llm, refused=refused)
        except AgentUnavailable as e:
            run.fall_back(e)
            continue
        except ProviderError as e:
            p.outcome.error = str(e)
            return
        if not offline:
            run.result.calls += 1
        _finish(p, red, fragments, proposed, refused, offline)
        return


def _distill_group(src, members: list[_Prepared], run: _Run) -> None:
    from brain_core.harvest.batch import distill_batch

    texts = [m.text(False) for m in members]
    refused: list[list[str]] = [[] for _ in members]
    proposed = distill_batch([(red.text, m.context) for m, (red, _) in zip(members, texts)], run.llm,
                             profile=src.name, sources=[m.session.source for m in members], refused=refused)
    run.result.calls += 1
    for m, (red, fragments), recs, ref in zip(members, texts, proposed, refused):
        _finish(m, red, fragments, recs, ref, False)


def _finish(p: _Prepared, red, fragments, proposed: list[dict], refused: list[str], offline: bool) -> None:
    from brain_core.redact import redact

    outcome = p.outcome
    outcome.offline = offline
    outcome.redactions = dict(Counter(f.rule for f in red.findings))
    outcome.refused = [redact(b).text for b in refused]
    records, seen = [], set()
    for rec in proposed:
        if code_only(rec["body"]):  # an identifier, a stack trace or tool output is no memory
            continue
        if standing_order(rec["body"]):
            outcome.refused.append(redact(rec["body"]).text)
            continue
        body = redact(rec["body"])
        for f in body.findings:
            outcome.redactions[f.rule] = outcome.redactions.get(f.rule, 0) + 1
        key = rec["key"]
        if any(frag in key.replace("-", "") for frag in fragments) or redact(key).findings:
            key = make_key(body.text)
        if key in seen:
            continue
        seen.add(key)
        records.append({**rec, "key": key, "body": body.text, "created": _created(p.session)})
    outcome.records = records
    if not records:
        outcome.dropped = "refused: orders aimed at the assistant" if outcome.refused else "nothing worth keeping"


def session_text(session: Session, *, offline: bool) -> str:
    """The transcript the distiller reads. Offline, all of it: the extractive distiller reads only
    what the person said, cheaply, and a rule stated mid-session must not be cut away. For a model,
    a bounded text that still keeps every one of the person's turns: the agent's replies are
    shortened first, and only then is the middle trimmed."""
    text = session.transcript()
    budget = HEAD + TAIL
    if offline or len(text) <= budget:
        return text
    turns = [Turn(t.role, shorten(t.text, AGENT_SNIPPET)) if t.role == "assistant" else t for t in session.turns]
    blocks = [(t.role, render_turns([t])) for t in turns]
    blocks = [(role, b) for role, b in blocks if b]
    person = sum(len(b) + 2 for role, b in blocks if role == "user")
    if person >= budget:
        return trim(render_turns(turns))
    # Every turn of the person, and as much of the rest as fits, from both ends of the session.
    room, keep = (budget - person) // 2, [False] * len(blocks)
    for order in (range(len(blocks)), range(len(blocks) - 1, -1, -1)):
        used = 0
        for i in order:
            role, b = blocks[i]
            if role == "user":
                keep[i] = True
            elif used + len(b) + 2 <= room and not keep[i]:
                keep[i] = True
                used += len(b) + 2
            elif role != "user":
                break
    out, gap = [], 0
    for (role, b), k in zip(blocks, keep):
        if not k and role != "user":
            gap += 1
            continue
        if gap:
            out.append(f"[... {gap} turns of the agent working left out ...]")
            gap = 0
        out.append(b)
    if gap:
        out.append(f"[... {gap} turns of the agent working left out ...]")
    return "\n\n".join(out)


def write(brain, records: list[dict], message: str, held: list[str] | None = None) -> list[str]:
    """Write through the brain's one path; return the relative paths of records that changed.
    ``held`` gets the quarantine paths of those the guard held back (never on a shelf)."""
    before = {record_path(r): _current_id(brain, r) for r in records}
    written = brain.remember_many(records, message=message)
    if held is not None:
        held += [_held_path(item) for item, rec in zip(records, written) if isinstance(rec.extra.get("quarantine"), dict)]
    return [record_path(item) for item, rec in zip(records, written)
            if before.get(record_path(item)) != rec.id and rec.profile == item["profile"]  # not linked (dedupe.py)
            and not isinstance(rec.extra.get("quarantine"), dict)]


def _held_path(item: dict) -> str:
    return f"quarantine/{item['profile']}/{item['key']}.json"


def record_path(item: dict) -> str:
    """Where the brain keeps a harvested record (harvest writes durable types only)."""
    return f"memories/{item['profile']}/{item['key']}.json"


def run_mirror(brain, *, sources=NAMES, roots: dict | None = None, dry_run: bool = False) -> Outcome:
    from brain_core.harvest.mirror import mirror

    roots = roots or {}
    claude_root = roots.get("claude") if "claude" in sources else None
    gemini_root = roots.get("gemini") if "gemini" in sources else None
    codex_root = roots.get("codex") if "codex" in sources else None
    outcome = Outcome(tool="mirror", session="", path="", reason="mirror")
    if not {"claude", "gemini", "codex"} & set(sources):
        return outcome
    records = mirror(claude_root=claude_root, gemini_root=gemini_root, codex_root=codex_root)
    records = [r for r in records if r["profile"] in sources]
    from brain_core.redact import redact

    masked = []
    for r in records:
        body = redact(r["body"])
        for f in body.findings:
            outcome.redactions[f.rule] = outcome.redactions.get(f.rule, 0) + 1
        masked.append({**r, "body": body.text})
    changed = [r for r in masked if _differs(brain, r)]
    outcome.records = changed
    if changed and not dry_run:
        outcome.written = write(brain, changed, f"mirror: {len(changed)} memory file{'s' if len(changed) != 1 else ''}",
                                held=outcome.quarantined)
    return outcome


def _differs(brain, item: dict) -> bool:
    """Whether writing ``item`` would change its record (the mirror re-reads every file each
    sweep; unchanged ones are left out of the report)."""
    from brain_core.records import Record

    rel = record_path(item)
    text = brain.read_text(rel)
    if text is None:
        text = brain.read_text(_held_path(item))  # held back by the guard before: the same text is no news
        if text is None:
            return True
        rel = _held_path(item)
    try:
        old = Record.from_bytes(text.encode("utf-8"), rel)
    except BrainError:
        return True
    return old.body != item["body"].strip() or old.type != item["type"] or old.tags != item["tags"]


def _current_id(brain, item: dict) -> str | None:
    import json

    text = brain.read_text(record_path(item))
    if not text:
        return None
    try:
        return json.loads(text).get("id")
    except ValueError:
        return None


def _created(session: Session) -> str | None:
    from brain_core.records import parse_time

    dt = parse_time(session.updated) if session.updated else None
    return dt.strftime("%Y-%m-%dT%H:%M:%SZ") if dt else None


def _provider(config, result: Result):
    """The configured model, or None (extractive). A provider that cannot be built (no key)
    is reported and the sweep goes on offline."""
    try:
        from brain_core.llm import make_provider
    except ImportError:
        return None
    try:
        return make_provider(config)
    except ProviderError as e:
        result.notes.append(f"{e} Harvesting with the offline distiller instead.")
        return None
