"""The Brain: the one object every caller (CLI, MCP server, hooks, tray) goes through.

Its write path is the only one: validate -> redact -> atomic file write (superseding by profile
and key) -> catalog row -> git commit under Aida's identity -> a line in ``.aida/events.jsonl``
for the tray, all under the brain's write lock so concurrent processes take turns. Every file
goes through one transaction of ``store/writes.py`` (:meth:`Brain.writing`), records and pages,
transcripts and watermarks alike.
"""

from __future__ import annotations

import json
import os
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, ContextManager, Iterable, Iterator, Mapping

from brain_core.config import Config
from brain_core.errors import BrainError, BrainNotFound, InvalidInput, MalformedRecord
from brain_core.marks import OFFLINE_TAG
from brain_core.records import Record, clean_tags, new_id, now_iso, parse_time, validate_new
from brain_core.store import writes
from brain_core.store.fsutil import absolute, contained
from brain_core.store.git import Git
from brain_core.store.locks import FileLock

if TYPE_CHECKING:
    from brain_core.catalog.base import Catalog

LAYOUT = ("memories", "events", "lessons", "knowledge", "wiki", "archive", "harvest")
GITIGNORE = ".aida/\n.*.tmp-*\n"
GLOSSARY = ("# Proper nouns and the ways speech-to-text mishears them, e.g.\n"
            "# terms:\n#   - name: Siobhan\n#     aliases: [Shivon, Chevonne]\nterms: []\n")


@dataclass(frozen=True)
class Written:
    """What one write did: the record, its file, and whether anything changed."""

    record: Record
    path: str
    changed: bool


class Brain:
    def __init__(self, root: Path, config: Config | None = None, embedder=None) -> None:
        self.root = absolute(root)  # git runs inside the brain: a relative root would be read twice
        self.config = config if config is not None else Config.load()
        self.state_dir = self.root / ".aida"
        if self.state_dir.is_symlink() or (self.state_dir.exists() and not self.state_dir.is_dir()):
            # the index, the locks and the caches would land wherever it points, outside the brain
            raise BrainError(f"{self.state_dir} is a symlink or a file, not Aida's own folder; remove it "
                             f"(`rm {self.state_dir}`) and Aida makes a new one inside the brain.")
        self._lock = FileLock(self.state_dir / "write.lock", timeout=120)
        ident = self.config.get("identity")
        self.git = Git(self.root, name=ident.get("name", "Aida"), email=ident.get("email", "aida@brain.invalid"))
        self._index: Catalog | None = None
        self._usage = None
        self._embedder = embedder  # share one loaded model between brains (tray, tests); else lazy
        self.project: str | None = None  # recall lifts this project's records (brain_core.harvest.projects.boost)

    # -- opening -----------------------------------------------------------------------------------

    @classmethod
    def init(cls, path: str | os.PathLike, config: Config | None = None, embedder=None) -> "Brain":
        """Create a brain at ``path`` (an empty or missing folder, or an existing brain: idempotent)."""
        root = absolute(path)
        if root.exists() and not root.is_dir():
            raise InvalidInput(f"{root} exists and is not a folder; choose another path for the brain.")
        root.mkdir(parents=True, exist_ok=True)
        brain = cls(root, config, embedder)
        fresh = not (root / ".git").exists()
        if fresh:
            brain.git.init()
        for d in LAYOUT:
            (root / d).mkdir(exist_ok=True)
        with brain.writing("Initialise the brain" if fresh else "Restore the brain's layout", index=False) as tx:
            for rel, text in (*((f"{d}/.gitkeep", "") for d in LAYOUT), (".gitignore", GITIGNORE),
                              ("glossary.yaml", GLOSSARY)):
                if tx.exists(rel):
                    tx.include(rel, index=False)
                else:
                    tx.put(rel, text, redact=False)
            brain.state_dir.mkdir(exist_ok=True)
            if not brain.index.path.exists():
                brain.index.rebuild(quiet=True)
        return brain

    @classmethod
    def open(cls, path: str | os.PathLike, config: Config | None = None, embedder=None) -> "Brain":
        root = absolute(path)
        if not (root / ".git").exists() or not (root / "memories").is_dir():
            raise BrainNotFound(f"{root} is not a brain; create one with `aida brain init` "
                                "or point --brain / $AIDA_BRAIN at an existing one.")
        return cls(root, config, embedder)

    # -- parts ---------------------------------------------------------------------------------------

    @contextmanager
    def lock(self) -> Iterator[None]:
        try:
            self._lock.acquire()
        except OSError as e:  # a read-only brain: one sentence, not a traceback
            from brain_core.catalog.diskfail import explain

            raise explain(e, self.root, "Writing to the brain") from None
        try:
            yield
        finally:
            self._lock.release()

    @property
    def embedder(self):
        if self._embedder is None:
            from brain_core.catalog.embed import make_embedder

            self._embedder = make_embedder(self.config)
        return self._embedder

    @property
    def index(self) -> Catalog:
        """The brain's card catalog, on the backend the settings name (opened on first use)."""
        if self._index is None:
            from brain_core.catalog.factory import open_index

            self._index = open_index(self.root, self._lock, lambda: self.embedder, self.config)
        return self._index

    @property
    def usage(self):
        if self._usage is None:
            from brain_core.catalog.usage import Usage

            self._usage = Usage(self.state_dir / "usage.sqlite")
        return self._usage

    def close(self) -> None:
        if self._index is not None:
            self._index.close()
        if self._usage is not None:
            self._usage.close()
        self.git.close()

    # -- the write path ----------------------------------------------------------------------------------

    def remember(self, body: str, type: str = "fact", key: str | None = None, profile: str = "me",
                 tags: Iterable[str] | str = (), source: str = "", created: str | None = None,
                 expires: str | None = None, provenance: Iterable[str] = (), extra: dict | None = None,
                 confidence: float = 1, message: str | None = None) -> Record:
        """Write one record (superseding the same profile and key) and return it."""
        return self.remember_many([dict(body=body, type=type, key=key, profile=profile, tags=tags, source=source,
                                        created=created, expires=expires, provenance=provenance, extra=extra,
                                        confidence=confidence)], message=message)[0]

    def remember_many(self, items: list[dict[str, Any]], message: str | None = None, guard: bool = True,
                      also_remove: Iterable[str] = ()) -> list[Record]:
        """Write several records under one lock, one catalog transaction and one commit.

        ``guard``: a record that carries a standing order (guard.py) goes to ``quarantine/``
        instead of its shelf, never served (quarantine.py); only accepting it turns this off.
        ``also_remove``: brain files deleted in the same commit (a quarantined copy accepted)."""
        prepared = [self._prepare(dict(item)) for item in items]
        with self.lock():
            from brain_core.brain import quarantine
            from brain_core.brain.dedupe import Linker

            try:
                with self.writing(redact=False, batch=True) as tx:  # the fields were redacted by _prepare
                    self._tx = tx
                    screened = quarantine.screen(self, prepared) if guard else [(r, p, False) for r, p in prepared]
                    prepared = [(rec, rel) for rec, rel, held in screened if not held]
                    linker = Linker(self)  # a near-duplicate of another profile's record links to it (dedupe.py)
                    linker.prime(prepared)
                    written = [self._hold_one(rec, rel) if held else (linker.link(rec, rel) or self._write_one(rec, rel))
                               for rec, rel, held in screened]
                    for rel in also_remove:
                        if tx.exists(rel):
                            tx.delete(rel)
                    changed = [w for w in written if w.changed]
                    same = [w.path for w in written if not w.changed]
                    if same:
                        # Identical to the file: a no-op, unless a crash left that file uncommitted (the
                        # write got as far as the file, not the commit). Then this write commits it.
                        stray = set(self.git.uncommitted(same))
                        changed += [w for w in written if not w.changed and w.path in stray]
                        for rel in sorted(stray & set(same)):
                            tx.include(rel)
                    changed = list({w.path: w for w in changed}.values())  # a record linked twice is written once
                    tx.message = message or (f"remember: {changed[0].path}" if len(changed) == 1
                                             else f"remember: {len(changed)} records")
            except BaseException as e:  # the transaction has put every file back
                from brain_core.catalog.diskfail import explain, low_level_errors

                if isinstance(e, low_level_errors()):
                    raise explain(e, self.root, "Remembering") from None
                raise
            finally:
                self._tx = None
                self.index.fresh_vectors.clear()
            if changed:
                try:
                    self._emit(changed)
                except OSError:
                    pass  # the record is committed; only the tray's notice of it is lost
        return [w.record for w in written]

    _tx: writes.Transaction | None = None

    def writing(self, message: str | None = None, *, redact: bool = True, index: bool = True,
                batch: bool = False) -> ContextManager[writes.Transaction]:
        """One write into the brain (``store/writes.py``): under the write lock, each file redacted
        (unless ``redact`` is off: the caller did it field by field) and written atomically, the
        catalog rows of the shelf files updated (``batch``: in one apply, as for many records), one
        commit of ``message`` (settable on the transaction) when the block ends, and every file put
        back when it fails before that commit."""
        return writes.transaction(self.root, self.git, self.lock(), self._index_step(batch) if index else None,
                                  redact=redact, message=message)

    def _index_step(self, batch: bool) -> writes.IndexStep:
        def step(written: dict[str, bytes], gone: list[str]) -> None:
            for rel in gone:
                self.index.remove_file(rel)
            if batch:
                self._index_written(list(written))
                return
            for rel, data in written.items():
                try:
                    self.index.upsert_file(rel, data)
                except MalformedRecord:
                    pass  # lint reports it; the catalog skips it like any hand-made bad file
        return step

    def write(self, files: Mapping[str, str | bytes | None], message: str, *, redact: bool = True,
              only_changed: bool = False) -> list[str]:
        """Write several brain files (text or bytes; None deletes one) in one commit and return
        their paths. ``only_changed``: files already holding those bytes are left alone, and a write
        that changes nothing takes no lock and makes no commit."""
        clean: dict[str, bytes | None] = {}
        for rel, data in files.items():
            if data is None:
                clean[rel] = None
                continue
            name, raw = writes.clean(rel, data, redact)
            if only_changed:
                try:
                    if contained(self.root, name).read_bytes() == raw:
                        continue
                except (FileNotFoundError, IsADirectoryError, NotADirectoryError):
                    pass
            clean[name] = raw
        if not clean:
            return []
        with self.writing(message, redact=False) as tx:
            return writes.apply(tx, clean)

    def delete(self, rels: Iterable[str], message: str) -> list[str]:
        """Delete brain files in one commit (their text stays in git's history)."""
        return self.write({rel: None for rel in rels}, message)

    def _put(self, rel: str, data: bytes) -> None:
        """Write a file for the record write under way (put back if that write fails)."""
        assert self._tx is not None, "a record file is written inside remember_many's transaction"
        self._tx.put(rel, data, redact=False)

    def _prepare(self, item: dict[str, Any]) -> tuple[Record, str]:
        from brain_core.redact import redact, scrub
        from brain_core.text.abstract import make_abstract

        type_ = item.get("type") or "fact"
        profile = item.get("profile") or "me"
        key = item.get("key")
        if isinstance(key, str) and key:
            item["key"] = scrub.clean_key(key)  # a key becomes a file name in git: never a secret
        raw = item.get("body")
        red = redact(raw) if isinstance(raw, str) else None
        body, type_, key = validate_new(red.text if red is not None else raw, type_, item.get("key"), profile)
        assert isinstance(raw, str)  # validate_new refused any other body
        key = scrub.slug(key, body, scrub.fragments(raw, red))  # nor a word of a secret the body had
        tags = [redact(t).text for t in clean_tags(item.get("tags"))]
        created = item.get("created") or now_iso()
        when = parse_time(created)
        if when is None:
            raise InvalidInput(f"The date {created!r} is not ISO-8601 (e.g. 2026-08-22T19:44:02Z).")
        expires = item.get("expires")
        if expires is not None and parse_time(expires) is None:
            raise InvalidInput(f"The expiry {expires!r} is not an ISO-8601 date.")
        rec = Record(id=new_id(), type=type_, key=key, profile=profile, body=body, tags=tags,
                     source=redact(str(item.get("source") or "")).text, created=created,
                     confidence=item.get("confidence", 1), provenance=scrub.value(list(item.get("provenance") or ())),
                     expires=expires, extra=scrub.value(dict(item.get("extra") or {})), abstract=make_abstract(body))
        if type_ == "event":
            rel = f"events/{profile}/{when:%Y-%m}/{rec.id}.json"
        elif type_ == "lesson":
            rel = f"lessons/{rec.id}.json"
        else:
            rel = f"memories/{profile}/{key}.json"
        contained(self.root, rel)
        return rec, rel

    def _write_one(self, rec: Record, rel: str) -> Written:
        path = self.root / rel
        if path.exists() and rel.startswith("memories/"):
            try:
                old = Record.from_bytes(path.read_bytes(), rel)
            except (MalformedRecord, OSError):
                old = None
            if old is not None:
                if (old.body, old.type, old.tags, old.expires) == (rec.body, rec.type, rec.tags, rec.expires) \
                        and all(old.extra.get(k) == v for k, v in rec.extra.items()):
                    return Written(old, rel, False)  # nothing new: no file write, no commit
                if OFFLINE_TAG in rec.tags and OFFLINE_TAG not in old.tags:
                    return Written(old, rel, False)  # a checked record: a sentence read offline never replaces it
                rec.supersedes = old.id
                rec.extra = {**old.extra, **rec.extra}
                rec.extra.pop("supersedes", None)
        elif rel.startswith("memories/") and (self.root / "archive").is_dir():
            from brain_core.store.archive import forgotten_at

            gone = forgotten_at(self.root, rel)  # writing a forgotten key again: a correction of it
            if gone is not None:
                rec.supersedes = gone.id
        self._put(rel, rec.to_json().encode("utf-8"))
        return Written(rec, rel, True)

    def _hold_one(self, rec: Record, rel: str) -> Written:
        """Write a caught record to quarantine (written again with the same text: nothing new)."""
        from brain_core.brain.quarantine import same_as_held

        old = same_as_held(self, rec, rel)
        if old is not None:
            return Written(old, rel, False)
        self._put(rel, rec.to_json().encode("utf-8"))
        return Written(rec, rel, True)

    def _index_written(self, paths: list[str]) -> None:
        from brain_core.store.shelves import load_doc

        docs = []
        for rel in paths:
            data = (self.root / rel).read_bytes()
            st = (self.root / rel).stat()
            docs.append(load_doc(rel, data, st.st_size, st.st_mtime_ns))
        self.index.index_written(docs)

    def _emit(self, written: list[Written]) -> None:
        """Tell the tray: one line per record written in the events file (:mod:`.events`)."""
        from brain_core.brain import events

        events.append(self.state_dir, [events.written(w.path, w.record) for w in written])

    def write_text(self, rel: str, text: str, message: str) -> Path:
        """Write a non-record file (glossary, watermark, meeting transcript...) and commit it.

        The redaction gate: the text, the file name and the message are masked first (a JSON file
        stays valid JSON); the returned path is where the file went."""
        return contained(self.root, self.write({rel: text}, message)[0])

    def _brain_file(self, rel: str) -> tuple[Path, str]:
        """A path inside the brain that is not git's or Aida's own state: (target, relative posix)."""
        return writes.brain_file(self.root, rel)

    def read_text(self, rel: str) -> str | None:
        target = contained(self.root, rel)
        try:
            return target.read_text(encoding="utf-8")
        except FileNotFoundError:
            return None

    def move(self, moves: list[tuple[str, str]], message: str) -> None:
        """Move files inside the brain (to ``archive/``, say) in one commit; nothing is deleted."""
        with self.writing(message) as tx:
            for src, dst in moves:
                tx.move(src, dst)

    # -- reading ---------------------------------------------------------------------------------------

    def recall(self, query: str, k: int = 5, profile: str | None = None, type: str | None = None,
               tag: str | None = None, recent: bool = False, explain: bool = False, shelves=None,
               touch: bool = False, catch_up: bool = True, query_vector=None, project: str | None = None):
        """Hybrid recall, best first. ``query_vector`` skips embedding the query when the caller
        already has its vector (ask embeds a question once for recall and lessons). Returning a
        record is not using it: ``touch`` stays off unless a caller means it; real uses go
        through :meth:`mark_used`. ``project`` (default: :attr:`project`, which the CLI and the
        MCP server set from the working folder) lifts that project's records by
        ``recall.project_boost``: a lift, never a filter."""
        from brain_core.recall.hybrid import RecallParams, check_query, recall

        check_query(query, k)
        params = RecallParams.from_config(self.config)
        from brain_core.recall import recall_api

        recall, errors = recall_api(self.index, recall)

        project = project if project is not None else self.project
        lift = float(self.config.get("recall.project_boost", 0.3)) if project and not recent else 0.0
        if lift > 0 and project is not None and not self._has_project(project):
            lift = 0.0  # no record of that project: recall exactly as without one
        want = max(k * 4, 20) if lift > 0 else k  # room below the cut for the project's records to rise

        def attempt() -> list:
            if catch_up:
                self._catch_up()
            return recall(self.index, self.usage, query, k=want, profile=profile, type=type, tag=tag, recent=recent,
                          explain=explain, shelves=shelves, params=params, touch=touch, query_vector=query_vector)

        try:
            hits = attempt()
        except errors as e:  # a broken file is rebuilt, a dropped server connection reopened: once
            self.index.recover(f"the index failed while answering ({e})")
            hits = attempt()
        if lift > 0:
            from brain_core.recall.projects import boost

            hits = boost(hits, project, lift, k)
        self._abstracts(hits)
        return hits

    def _catch_up(self) -> None:
        """Index what changed on disk before a recall; on a brain this process cannot write (read-only,
        full) the recall answers from the catalog as it is: reading never needs write access."""
        from brain_core.catalog.diskfail import low_level_errors

        try:
            self.index.catch_up(int(self.config.get("index.catch_up_limit", 64)))
        except BrainError:
            raise
        except low_level_errors() as e:
            text = str(e).lower()
            if not isinstance(e, OSError) and not any(w in text for w in ("readonly", "i/o", "full", "unable to open")):
                raise  # a damaged catalog: recall's recovery rebuilds it

    def _has_project(self, project: str) -> bool:
        """Whether any record carries ``project:<project>`` (one keyword lookup; True when unsure)."""
        try:
            return self.index.has_project(project)
        except Exception:  # noqa: BLE001 - a lift is optional: when in doubt, look further
            return True

    def _abstracts(self, hits) -> None:
        """Give each long hit its abstract: the one in its file, else one made now (older records)."""
        from brain_core.text.abstract import make_abstract, needs_abstract

        for h in hits:
            if h.record.abstract or not needs_abstract(h.record.body):
                continue
            written = None
            if h.path.endswith(".json"):
                try:
                    data = json.loads((self.root / h.path).read_bytes())
                    written = data.get("abstract") if isinstance(data, dict) else None
                except (OSError, ValueError):
                    written = None
            h.record.abstract = written if isinstance(written, str) and written else make_abstract(h.record.body)

    def mark_used(self, paths: Iterable[str], why: str = "cited") -> int:
        """Note that these records helped: ``why`` is ``cited`` (an answer leaned on it), ``opened``
        or ``copied`` (from the popup) or ``thumbs-up``. Recall lifts a used record a little (at
        most ``recall.use_lift``) and maintain keeps it. Returns how many paths were noted."""
        from brain_core.catalog.usage import USE_REASONS

        if why not in USE_REASONS:
            raise InvalidInput(f"A use is one of {', '.join(USE_REASONS)}, not {why!r}.")
        clean = []
        for p in paths:
            if not isinstance(p, str) or not p.strip():
                continue
            contained(self.root, p)  # a brain path, never one outside it
            clean.append(Path(p).as_posix())
        self.usage.bump(clean, why=why)
        return len(set(clean))

    def get(self, rel: str) -> Record:
        target = contained(self.root, rel)
        return Record.from_bytes(target.read_bytes(), rel)

    def records(self, shelves=("memories", "events")) -> Iterator[tuple[str, Record]]:
        """Every readable record on the given shelves, straight from the files (bad ones skipped)."""
        from brain_core.store.shelves import read_docs

        for doc in read_docs(self.root, shelves):
            yield doc.path, doc.record

    def head(self) -> str | None:
        return self.git.head()
