"""The catalog's PostgreSQL backend: :class:`PgIndex`, the catalog's rows on a server.

The rules of the scan, the staleness check and catch-up are
:class:`~brain_core.catalog.scan.CatalogBase`'s, shared with the SQLite backend and holding no SQL:
every statement they need is a small method written here in PostgreSQL (``_catalogued``,
``_stored_dirs``, ``_store_dirs``, ``_note_dirs``, ``_tx``...), as recall's are in
:mod:`brain_core.recall.postgres`; nothing of SQLite's dialect runs here. What differs besides is written here: the rows (one ``docs`` table holding the
text, a generated ``tsvector`` and a pgvector column with an HNSW index), the vector reuse by text
checksum, and the rebuild, which fills a new schema and renames it over the old one in one
transaction. A lost connection mid-apply rolls back the open batch; mid-rebuild it leaves the old
schema answering and a half-built ``__new`` schema that the next rebuild drops.
"""

from __future__ import annotations

import hashlib
import os
import re
import socket
import time
from contextlib import contextmanager
from pathlib import Path
from typing import Callable

import numpy as np

from brain_core.catalog.base import ApplyStats, ScanReport
from brain_core.catalog.postgres import SCHEMA_VERSION, LostConnection, connect, database_errors, schema_for  # noqa: F401
from brain_core.catalog.scan import APPLY_BATCH, INDEX_NAME, CatalogBase, Transaction, file_sum
from brain_core.catalog.sqlite.seed import read_vectors, write_seed  # the migration from SQLite, and back
from brain_core.errors import BrainError, MissingDependency
from brain_core.store.locks import FileLock
from brain_core.store.shelves import Doc, Problem, created_ts, json_tags

# While pgvector builds an HNSW index it keeps the graph in the session's maintenance_work_mem: each
# row's vector (dim x 4 bytes) and its neighbour lists (about 1 kB at m = 16). A graph that outgrows
# it goes on being built on disk, many times slower: the server's default (64 MB) held 28,359 rows.
GRAPH_ROW_BYTES = 1024
_SIZE = re.compile(r"^\s*(\d+)\s*(kB|MB|GB|TB)?\s*$", re.I)
_UNITS = {"kb": 1, "mb": 1024, "gb": 1024 ** 2, "tb": 1024 ** 3}


def build_memory_kb(setting: str, rows: int, dim: int) -> int | None:
    """The maintenance_work_mem (kB) a rebuild asks for: ``auto`` sizes it to the vector graph of
    ``rows`` rows, a size (``512MB``, ``2GB``) is taken as it is, ``server`` leaves the server's."""
    s = str(setting or "auto").strip()
    if s.lower() == "server":
        return None
    if s.lower() == "auto":
        return (rows * (dim * 4 + GRAPH_ROW_BYTES)) // 1024 + 64 * 1024
    m = _SIZE.match(s)
    if not m:
        raise BrainError(f"The setting index.build_memory = {s!r} is not auto, server or a size like 2GB; "
                         "fix the settings file.")
    return int(m.group(1)) * _UNITS[(m.group(2) or "kB").lower()]


class PgConn:
    """A psycopg connection: :meth:`pg` runs PostgreSQL as written (``%s`` placeholders), and a
    lost connection becomes :class:`~brain_core.catalog.postgres.LostConnection`."""

    backend = "postgres"  # which recall statements are this catalog's (brain_core.recall.backends.of)

    def __init__(self, raw) -> None:
        self.raw = raw

    def pg(self, sql: str, args=None, binary: bool = False):
        with self._lost():
            return self.raw.execute(sql, args, binary=binary)

    def pg_many(self, sql: str, rows) -> None:
        if rows:
            with self._lost():
                self.raw.cursor().executemany(sql, rows)

    @contextmanager
    def _lost(self):
        import psycopg

        try:
            yield
        except psycopg.OperationalError as e:
            if not (self.raw.closed or self.raw.broken):
                raise
            raise LostConnection(f"Lost the connection to the catalog server ({str(e).strip().splitlines()[0]}); "
                                 "what was committed stays and the catalog keeps answering; run the command again.") from None

    def close(self) -> None:
        self.raw.close()

    @property
    def in_transaction(self) -> bool:
        """Whether a transaction is open (or the connection is lost, when nobody can tell): what
        :class:`~brain_core.catalog.sqlite.rows.tx` asks before it rolls back."""
        from psycopg.pq import TransactionStatus

        return self.raw.info.transaction_status != TransactionStatus.IDLE

    @property
    def closed(self) -> bool:
        return self.raw.closed or self.raw.broken


class pg_tx(Transaction):
    """One transaction on the server catalog: ``rows.tx`` in PostgreSQL (BEGIN, COMMIT; ROLLBACK on
    an error, which is then the error told)."""

    BEGIN, COMMIT, ROLLBACK = "BEGIN", "COMMIT", "ROLLBACK"

    def run(self, statement: str) -> None:
        self.conn.pg(statement)


def vec_param(vec) -> np.ndarray:
    """A vector as a query parameter (sent in pgvector's binary format by pgvector's adapter)."""
    return np.asarray(vec.to_numpy() if hasattr(vec, "to_numpy") else vec, dtype=np.float32)


def schema_sql(schema: str, dim: int) -> str:
    return f"""
CREATE SCHEMA {schema};
CREATE TABLE {schema}.meta(k text PRIMARY KEY, v text);
CREATE TABLE {schema}.docs(
    rowid bigserial PRIMARY KEY,
    path text UNIQUE NOT NULL,
    shelf text NOT NULL,
    id text, key text, type text, profile text, tags text, body text, source text,
    created text, created_ts double precision, expires text,
    checksum text NOT NULL, text_sha text NOT NULL, size bigint, mtime_ns bigint,
    blob text, host text,  -- the version's git blob id, and the clone that wrote the row
    embedding vector({dim}) NOT NULL,
    fts tsvector GENERATED ALWAYS AS (
        setweight(to_tsvector('english', replace(coalesce(key, ''), '-', ' ')), 'A') ||
        setweight(to_tsvector('english', translate(coalesce(tags, ''), ':[]",', '      ')), 'B') ||
        setweight(to_tsvector('english', coalesce(body, '')), 'D')) STORED);
ALTER TABLE {schema}.docs ALTER COLUMN embedding SET STORAGE PLAIN;  -- inline: honest scan costs
ALTER TABLE {schema}.docs SET (toast_tuple_target = 8160);  -- a row (its vector alone 1.5 kB) stays whole: a keyword match is one page read, not four
CREATE INDEX ON {schema}.docs(profile, key);
CREATE INDEX ON {schema}.docs(created_ts);
CREATE INDEX ON {schema}.docs(text_sha);
CREATE TABLE {schema}.problems(path text PRIMARY KEY, message text NOT NULL, checksum text);
CREATE TABLE {schema}.dirs_host(host text NOT NULL, path text NOT NULL, mtime_ns bigint NOT NULL,
                                PRIMARY KEY (host, path));
CREATE VIEW {schema}.dirs AS
    SELECT path, mtime_ns FROM {schema}.dirs_host WHERE host = current_setting('aida.host');
"""


PLACE_INDEX = "CREATE INDEX IF NOT EXISTS docs_place ON {schema}.docs(source, created_ts, id)"  # places.py
SEARCH_INDEXES = PLACE_INDEX + """;
CREATE INDEX IF NOT EXISTS docs_fts ON {schema}.docs USING gin(fts);
CREATE INDEX IF NOT EXISTS docs_hnsw ON {schema}.docs USING hnsw (embedding vector_cosine_ops)
    WITH (m = 16, ef_construction = 64);
"""

_DOC_COLS = ("path", "shelf", "id", "key", "type", "profile", "tags", "body", "source", "created", "created_ts",
             "expires", "checksum", "text_sha", "size", "mtime_ns", "blob", "host")
UPSERT = (f"INSERT INTO docs({', '.join(_DOC_COLS)}, embedding) VALUES({', '.join(['%s'] * len(_DOC_COLS))}, %s) "
          f"ON CONFLICT (path) DO UPDATE SET "
          + ", ".join(f"{c}=EXCLUDED.{c}" for c in _DOC_COLS[1:] + ("embedding",)))


def doc_row(doc: Doc, vec, host: str) -> tuple:
    r = doc.record
    return (doc.path, doc.shelf, r.id, r.key, r.type, r.profile, json_tags(r), r.body, r.source, r.created,
            created_ts(r), r.expires, doc.checksum, doc.text_sha, doc.size, doc.mtime_ns, doc.blob or None, host,
            vec_param(vec))


class PgIndex(CatalogBase):
    """One brain's catalog in schema ``aida_<brain id>`` of the database at ``dsn`` (a
    :class:`~brain_core.catalog.base.Catalog`)."""

    backend = "postgres"

    def __init__(self, root: Path, lock: FileLock, embedder_factory: Callable, *, dsn: str, brain_id: str,
                 dim: int = 384, model_id: str = "all-MiniLM-L6-v2-int8/mean-of-windows",
                 notice: Callable[[str], None] | None = None, ef_search: int = 200,
                 build_memory: str = "auto") -> None:
        super().__init__(root, lock, embedder_factory, dim=dim, model_id=model_id, notice=notice)
        self.dsn = dsn
        self.build_memory = build_memory
        self._side: PgConn | None = None
        self.brain_id = brain_id
        self.schema = schema_for(brain_id)
        self._conn: PgConn | None = None
        self.ef_search = ef_search
        # The folder times behind the cheap staleness check belong to one clone on one machine.
        self.host = hashlib.sha256(f"{socket.gethostname()}:{Path(root).resolve()}".encode()).hexdigest()[:16]

    # -- connection -------------------------------------------------------------------------------

    def _open(self, schema: str) -> PgConn:
        conn = PgConn(connect(self.dsn))
        if conn.pg("SELECT 1 FROM pg_extension WHERE extname = 'vector'").fetchone() is None:
            conn.pg("CREATE EXTENSION IF NOT EXISTS vector")
        try:
            from pgvector.psycopg import register_vector
        except ImportError:
            conn.close()
            raise MissingDependency("index.backend is postgres but pgvector's Python adapter is missing; "
                                    "run `pip install 'aida[postgres]'`.") from None
        register_vector(conn.raw)  # vectors travel as binary float32, not as text
        # One round trip for the session's settings (the host is a hex digest). JIT off: a recall's
        # statements take milliseconds, and a server built with LLVM compiles any whose estimated
        # cost passes jit_above_cost (the words' counts for a long question do), which takes longer.
        conn.pg(f"SET search_path TO {schema}, public; SELECT set_config('aida.host', '{self.host}', false); "
                f"SET hnsw.ef_search = {int(self.ef_search)}; SET hnsw.iterative_scan = strict_order; SET jit = off")
        return conn

    def side_conn(self) -> PgConn:
        """A second connection to the catalog, for recall's vector stage, which runs on a worker
        thread while the keyword stage runs on :meth:`conn` (one connection runs one statement at
        a time). Opened on first use; closed with the first."""
        side = self._side
        if side is None or side.closed:
            side = self._side = self._open(self.schema)
        return side

    def close(self) -> None:
        side, self._side = self._side, None
        if side is not None:
            try:
                side.close()
            except Exception:  # noqa: BLE001 - closing a broken connection must not mask the cause
                pass
        conn, self._conn = self._conn, None
        if conn is not None:
            try:
                conn.close()
            except Exception:  # noqa: BLE001 - closing a broken connection must not mask the cause
                pass

    def conn(self):
        if self._conn is not None and not self._conn.closed:
            return self._conn
        self.close()
        conn = self._open(self.schema)
        problem = self.schema_problem(conn)
        if problem is None:
            self._upgrade(conn)
            self._conn = conn
            return conn
        conn.close()
        self._create_from_files(problem + "; building it from the files")
        return self.conn()

    def _upgrade(self, conn) -> None:
        """What a catalog made by an older Aida lacks: recall's neighbour index, rows kept whole (its
        older rows until the next full rebuild), and the columns that let clones that are behind
        leave newer rows alone (:meth:`_newer_elsewhere`)."""
        try:
            if conn.pg("SELECT to_regclass(%s)", (f"{self.schema}.docs_place",)).fetchone()[0] is None:
                conn.pg(PLACE_INDEX.format(schema=self.schema))
            if "toast_tuple_target=8160" not in (conn.pg("SELECT reloptions FROM pg_class WHERE oid = 'docs'::regclass")
                                                 .fetchone()[0] or []):  # new rows stay whole (schema_sql)
                conn.pg(f"ALTER TABLE {self.schema}.docs SET (toast_tuple_target = 8160)")
            if conn.pg("SELECT 1 FROM information_schema.columns WHERE table_schema = %s AND table_name = 'docs' "
                       "AND column_name = 'host'", (self.schema,)).fetchone() is None:
                conn.pg(f"ALTER TABLE {self.schema}.docs ADD COLUMN IF NOT EXISTS blob text, "
                        "ADD COLUMN IF NOT EXISTS host text")
        except database_errors():
            pass  # a role that may not alter the catalog still recalls (more slowly) and applies as before

    def schema_problem(self, conn) -> str | None:
        if conn.pg("SELECT to_regclass(%s)", (f"{self.schema}.meta",)).fetchone()[0] is None:
            return "the catalog is not on the server yet"
        meta = dict(conn.pg("SELECT k, v FROM meta WHERE k IN ('schema', 'model')").fetchall())
        if meta.get("schema") != SCHEMA_VERSION or meta.get("model") != self.model_id:
            return "the catalog on the server was made by another version or model"
        return None

    def recover(self, reason: str) -> None:
        """A failed query: reconnect; rebuild only when the catalog itself is missing or foreign
        (a dropped connection is not a broken catalog)."""
        self.close()
        self.notice(reason + "; reconnecting")

    def _create_from_files(self, why: str) -> None:
        self.notice(why)
        while self.rebuild(quiet=True) is None:
            # another machine or process is building it: wait, then use its catalog (or build
            # one if it stopped without swapping one in)
            self.wait_for_rebuild()
            conn = self._open(self.schema)
            try:
                if self.schema_problem(conn) is None:
                    break
            finally:
                conn.close()

    # -- apply ------------------------------------------------------------------------------------

    def apply(self, report: ScanReport, conn=None, progress: Callable[[int, int], None] | None = None) -> ApplyStats:
        """Write a report into the catalog, in batches of one transaction each (the caller holds
        the brain's write lock)."""
        conn = conn or self.conn()
        t0 = time.perf_counter()
        stats = ApplyStats()
        held = self._newer_elsewhere(conn, list(report.deleted) + [d.path for d in report.modified])
        stats.held = len(held)
        docs = list(report.new) + [d for d in report.modified if d.path not in held]
        with self._tx(conn):
            conn.pg_many("INSERT INTO problems VALUES(%s, %s, %s) ON CONFLICT (path) "
                         "DO UPDATE SET message=EXCLUDED.message, checksum=EXCLUDED.checksum",
                         [(p.path, p.message, file_sum(self.root, p.path)) for p in report.problems])
            conn.pg_many("UPDATE docs SET size=%s, mtime_ns=%s WHERE path=%s",
                         [(f.size, f.mtime_ns, f.path) for f in report.touched])
        for start in range(0, len(docs), APPLY_BATCH):
            batch = docs[start:start + APPLY_BATCH]
            vectors, reused = self._vectors_for(conn, batch)
            stats.reused += reused
            stats.embedded += len(batch) - reused
            with self._tx(conn):
                conn.pg_many(UPSERT, [doc_row(d, v, self.host) for d, v in zip(batch, vectors)])
                conn.pg("DELETE FROM problems WHERE path = ANY(%s)", ([d.path for d in batch],))
                stats.written += len(batch)
            if progress:
                progress(min(start + APPLY_BATCH, len(docs)), len(docs))
        with self._tx(conn):  # rows of deleted files last: a moved file finds its vector in its old row
            for path in (p for p in report.deleted if p not in held):
                stats.deleted += conn.pg("DELETE FROM docs WHERE path = %s", (path,)).rowcount
            problem_paths = {p.path for p in report.problems}
            for (path,) in conn.pg("SELECT path FROM problems").fetchall():
                if path not in problem_paths and not (self.root / path).exists():
                    conn.pg("DELETE FROM problems WHERE path = %s", (path,))
            if report.dirs is not None:
                self._store_dirs(conn, report.dirs)
            conn.pg("INSERT INTO meta VALUES('scanned', %s) ON CONFLICT (k) DO UPDATE SET v=EXCLUDED.v",
                    (str(time.time()),))
        stats.seconds = time.perf_counter() - t0
        return stats

    def _newer_elsewhere(self, conn, paths: list[str]) -> set[str]:
        """Of the rows this clone's scan would replace or delete, those another clone wrote from a
        version this clone has never seen (its git blob is not in this clone's object store): a
        commit this clone has not pulled yet, so its own file is older. They are left as they are.
        Rows of older Aida versions (no blob) and this clone's own rows are replaced as before."""
        if not paths:
            return set()
        rows = conn.pg("SELECT path, blob FROM docs WHERE path = ANY(%s) AND blob IS NOT NULL "
                       "AND host IS DISTINCT FROM %s", (paths, self.host)).fetchall()
        if not rows:
            return set()
        from brain_core.store.git import Git

        try:
            seen = Git(self.root).has_objects(sorted({b for _, b in rows}))
        except BrainError as e:  # no git here: replace as before, and say why
            self.notice(f"could not ask git which versions this clone has ({e}); applying every change")
            return set()
        return {p for p, b in rows if b not in seen}

    def _vectors_for(self, conn, docs: list[Doc]) -> tuple[list[np.ndarray], int]:
        shas = list({d.text_sha for d in docs})
        found = dict(conn.pg("SELECT DISTINCT ON (text_sha) text_sha, embedding FROM docs "
                             "WHERE text_sha = ANY(%s)", (shas,), binary=True).fetchall())
        if conn is self._seeded_conn:
            missing = [s for s in shas if s not in found]
            if missing:
                found.update(conn.pg("SELECT text_sha, embedding FROM pg_temp.seed WHERE text_sha = ANY(%s)",
                                     (missing,), binary=True).fetchall())
        out: list[np.ndarray | None] = [vec_param(found[d.text_sha]) if d.text_sha in found else None for d in docs]
        return self._embed_missing(docs, out)

    def upsert_file(self, rel: str, data: bytes) -> None:
        from brain_core.store.shelves import load_doc

        conn = self.conn()
        st = (self.root / rel).stat()
        doc = load_doc(rel, data, st.st_size, st.st_mtime_ns)
        vectors, _ = self._vectors_for(conn, [doc])
        with self._tx(conn):
            conn.pg(UPSERT, doc_row(doc, vectors[0], self.host))
            self._note_dirs(conn, rel)

    def _known_paths(self, conn, paths: list[str]) -> set[str]:
        return {p for (p,) in conn.pg("SELECT path FROM docs WHERE path = ANY(%s)", (paths,)).fetchall()}

    def has_project(self, project: str) -> bool:
        """Always True: the server catalog has no cheap lookup of a tag's words apart, so a project
        lift always looks further (as before this was a method)."""
        return True

    def holds_words(self, groups: list[tuple[str, ...]]) -> bool:
        query = " | ".join("(" + " & ".join(group) + ")" for group in groups)
        return self.conn().pg("SELECT 1 FROM docs WHERE fts @@ to_tsquery('english', %s) LIMIT 1",
                              (query,)).fetchone() is not None

    def stored_vectors(self, paths: list[str]) -> dict[str, np.ndarray]:
        out: dict[str, np.ndarray] = {}
        conn = self.conn()
        for start in range(0, len(paths), 500):
            rows = conn.pg("SELECT path, embedding FROM docs WHERE embedding IS NOT NULL AND path = ANY(%s)",
                           (paths[start:start + 500],)).fetchall()
            out.update((p, vec_param(e)) for p, e in rows)  # pgvector's Vector, as numpy
        return out

    def counts(self) -> dict:
        conn = self.conn()
        by_shelf = dict(conn.pg("SELECT shelf, count(*) FROM docs GROUP BY shelf").fetchall())
        problems = [Problem(p, m) for p, m in conn.pg("SELECT path, message FROM problems ORDER BY path").fetchall()]
        scanned = conn.pg("SELECT v FROM meta WHERE k='scanned'").fetchone()
        return {"by_shelf": by_shelf, "problems": problems, "scanned": float(scanned[0]) if scanned else None}

    # -- the scan's statements (its rules are CatalogBase.scan's)

    def _catalogued(self, conn, dirs: list[str] | None) -> tuple[dict[str, tuple], dict[str, str]]:
        if dirs is None:
            known = {p: (c, s, m) for p, c, s, m in conn.pg("SELECT path, checksum, size, mtime_ns FROM docs").fetchall()}
            bad = dict(conn.pg("SELECT path, checksum FROM problems").fetchall())
            return known, bad
        known, bad = {}, {}
        for d in dirs:
            like = d.replace("%", "\\%").replace("_", "\\_") + "/%"
            for p, c, s, m in conn.pg("SELECT path, checksum, size, mtime_ns FROM docs WHERE path LIKE %s "
                                      "ESCAPE '\\' AND path NOT LIKE %s ESCAPE '\\'", (like, like + "/%")).fetchall():
                known[p] = (c, s, m)
            for p, c in conn.pg("SELECT path, checksum FROM problems WHERE path LIKE %s ESCAPE '\\'", (like,)).fetchall():
                bad[p] = c
        return known, bad

    def _problem_message(self, conn, path: str) -> str:
        return conn.pg("SELECT message FROM problems WHERE path = %s", (path,)).fetchone()[0]

    # -- the staleness check's statements (the shared code is CatalogBase's; the folder times are this clone's)

    def _tx(self, conn):
        return pg_tx(conn)

    def _stored_dirs(self, conn) -> dict[str, int]:
        return dict(conn.pg("SELECT path, mtime_ns FROM dirs").fetchall())

    def _store_dirs(self, conn, seen: dict[str, int]) -> None:
        gone = [p for (p,) in conn.pg("SELECT path FROM dirs").fetchall() if p not in seen]
        if gone:
            conn.pg("DELETE FROM dirs_host WHERE host = current_setting('aida.host') AND path = ANY(%s)", (gone,))
        conn.pg_many("INSERT INTO dirs_host VALUES(current_setting('aida.host'), %s, %s) "
                     "ON CONFLICT (host, path) DO UPDATE SET mtime_ns=EXCLUDED.mtime_ns", list(seen.items()))

    def _paths_like(self, conn, like: str) -> list[str]:
        return [p for (p,) in conn.pg("SELECT path FROM docs WHERE path LIKE %s", (like,)).fetchall()]

    def _problem_paths(self, conn) -> set[str]:
        return {p for (p,) in conn.pg("SELECT path FROM problems").fetchall()}

    def vectors(self) -> None:
        """None: the server searches its own HNSW index; no vectors are held in memory."""
        return None

    def _note_dirs(self, conn, rel: str) -> None:
        """Record the folder mtimes after our own write (this machine's own: ``dirs_host``)."""
        parts = rel.split("/")[:-1]
        for i in range(1, len(parts) + 1):
            sub = "/".join(parts[:i])
            try:
                conn.pg("INSERT INTO dirs_host VALUES(current_setting('aida.host'), %s, %s) "
                        "ON CONFLICT (host, path) DO UPDATE SET mtime_ns=EXCLUDED.mtime_ns",
                        (sub, os.stat(self.root / sub).st_mtime_ns))
            except FileNotFoundError:
                pass

    def remove_file(self, rel: str) -> None:
        conn = self.conn()
        with self._tx(conn):
            conn.pg("DELETE FROM docs WHERE path = %s", (rel,))
            self._note_dirs(conn, rel)

    # -- full rebuild -------------------------------------------------------------------------------

    def rebuild(self, reuse_from: Path | None = None, quiet: bool = False, progress=None) -> ApplyStats | None:
        """Build the catalog from the files into ``<schema>__new`` and rename it over the old one in
        one transaction. Vectors are reused by text checksum from the old schema and from a local
        SQLite catalog (``reuse_from`` or ``.aida/index.sqlite``: the migration from SQLite).

        Returns None when another rebuild of this brain (on any machine) is running."""
        new = f"{self.schema}__new"
        build_memory_kb(self.build_memory, 0, self.dim)  # a bad setting is told before the work, not after
        build = self._open(new)
        try:
            if not build.pg("SELECT pg_try_advisory_lock(hashtext(%s))", (self.schema,)).fetchone()[0]:
                if not quiet:
                    self.notice("a rebuild is already running; it will swap the new catalog in when done")
                return None
            with self._tx(build):
                build.pg(f"DROP SCHEMA IF EXISTS {new} CASCADE")
                build.pg(schema_sql(new, self.dim))
                build.pg("INSERT INTO meta VALUES('schema', %s), ('model', %s)", (SCHEMA_VERSION, self.model_id))
            self._seed(build, reuse_from or self.path)
            report = self.scan(conn=build)
            stats = self.apply(report, conn=build, progress=progress)
            self._build_search_indexes(build, new)
            build.pg(f"ANALYZE {new}.docs")  # without statistics the planner skips the HNSW index
            with self.lock:
                late = self.scan(conn=build)
                if late.changes or late.problems:
                    self.apply(late, conn=build)
                self.close()
                with self._tx(build):
                    build.pg(f"DROP SCHEMA IF EXISTS {self.schema} CASCADE")
                    build.pg(f"ALTER SCHEMA {new} RENAME TO {self.schema}")
            return stats
        finally:
            self._seeded_conn = None
            build.close()

    def _build_search_indexes(self, build: PgConn, schema: str) -> None:
        """The keyword (GIN) and vector (HNSW) indexes of a freshly filled schema, built at once, with
        the memory the vector graph needs (``index.build_memory``; never less than the server gives)."""
        rows = build.pg(f"SELECT count(*) FROM {schema}.docs").fetchone()[0]
        want = build_memory_kb(self.build_memory, rows, self.dim)
        have = int(build.pg("SELECT setting FROM pg_settings WHERE name = 'maintenance_work_mem'").fetchone()[0])
        if want is not None and want > have:
            build.pg(f"SET maintenance_work_mem = '{want}kB'")

        def told(diag) -> None:  # pgvector says when the graph outgrew the memory: the build slows down
            if "maintenance_work_mem" in (diag.message_primary or ""):
                self.notice(f"the catalog server: {diag.message_primary}; the build goes on more slowly "
                            "(raise index.build_memory)")

        build.raw.add_notice_handler(told)
        try:
            build.pg(SEARCH_INDEXES.format(schema=schema))
        except database_errors() as e:
            # Parallel workers share the graph through shared memory, which a container may keep
            # small ("could not resize shared memory segment"): build it in one process instead.
            if "shared memory" not in str(e):
                raise
            self.notice(f"the catalog server could not share {want or have} kB between index build workers; "
                        "building in one process")
            build.pg("SET max_parallel_maintenance_workers = 0")
            build.pg(SEARCH_INDEXES.format(schema=schema))
        finally:
            build.raw.remove_notice_handler(told)

    def _seed(self, build: PgConn, sqlite_path: Path) -> None:
        """A temp table of reusable vectors (text checksum -> vector) from the old catalogs."""
        build.pg("CREATE TEMP TABLE seed(text_sha text PRIMARY KEY, embedding vector) ON COMMIT PRESERVE ROWS")
        old = build.pg("SELECT to_regclass(%s)", (f"{self.schema}.meta",)).fetchone()[0]
        if old is not None:
            model = build.pg(f"SELECT v FROM {self.schema}.meta WHERE k='model'").fetchone()
            if model and model[0] == self.model_id:
                build.pg(f"INSERT INTO seed SELECT DISTINCT ON (text_sha) text_sha, embedding FROM {self.schema}.docs "
                         "ON CONFLICT DO NOTHING")
        rows = [(sha, np.frombuffer(blob, dtype=np.float32)) for sha, blob in read_vectors(Path(sqlite_path), self.model_id)]
        if rows:
            build.pg_many("INSERT INTO seed VALUES(%s, %s) ON CONFLICT DO NOTHING", rows)
        self._seeded_conn = build

    # -- the way back ----------------------------------------------------------------------------------

    def vectors_by_text(self) -> list[tuple[str, bytes]]:
        """(text checksum, float32 bytes) for every vector here: what a SQLite rebuild reuses."""
        rows = self.conn().pg("SELECT DISTINCT ON (text_sha) text_sha, embedding FROM docs", binary=True).fetchall()
        return [(sha, vec_param(v).tobytes()) for sha, v in rows]

    def wait_for_rebuild(self) -> None:
        """Block until no rebuild of this brain is running, on any machine."""
        conn = self._open(self.schema)
        try:
            conn.pg("SELECT pg_advisory_lock(hashtext(%s))", (self.schema,))
            conn.pg("SELECT pg_advisory_unlock(hashtext(%s))", (self.schema,))
        finally:
            conn.close()

    def rebuild_running(self) -> bool:
        conn = self._open(self.schema)
        try:
            got = conn.pg("SELECT pg_try_advisory_lock(hashtext(%s))", (self.schema,)).fetchone()[0]
            return not got
        finally:
            conn.close()


def export_sqlite_seed(index: PgIndex, path: Path, model_id: str) -> None:
    """Write the server catalog's vectors to a small SQLite file in the shape
    :meth:`brain_core.catalog.sqlite.index.Index._seed_vectors` reads, so moving back to SQLite re-embeds nothing."""
    write_seed(path, model_id, index.vectors_by_text())


__all__ = ["PgIndex", "PgConn", "database_errors", "export_sqlite_seed", "INDEX_NAME"]
