"""The card catalog on PostgreSQL + pgvector (``index.backend: postgres``).

Files stay the truth; this is the same disposable catalog as ``.aida/index.sqlite``, kept on a
server so many machines and agents read one catalog. Each brain lives in its own schema
(``aida_<brain id>``), so several brains share one database without seeing each other's rows, and
a full rebuild fills ``aida_<id>__new`` and swaps it in with one ``ALTER SCHEMA ... RENAME`` in one
transaction.

The password comes from ``PGPASSWORD`` or the keyring (service ``aida``, name ``postgres``),
never from the settings file.
"""

from __future__ import annotations

import hashlib
import os
import re
import subprocess
from pathlib import Path

from brain_core.errors import BrainError, MissingDependency

SCHEMA_VERSION = "1"
KEYRING_NAME = "postgres"


def _psycopg():
    try:
        import psycopg
    except ImportError:
        raise MissingDependency("index.backend is postgres but psycopg is not installed; "
                                "run `pip install 'aida[postgres]'`.") from None
    return psycopg


class LostConnection(BrainError):
    """The catalog server went away mid-statement; what was committed stays, the open transaction
    was rolled back by the server."""


def database_errors() -> tuple[type[BaseException], ...]:
    return (_psycopg().Error, LostConnection)


def password() -> str | None:
    if os.environ.get("PGPASSWORD"):
        return None  # libpq reads it itself
    try:
        from brain_core.config.keys import get_key

        return get_key(KEYRING_NAME) or None
    except Exception:  # noqa: BLE001 - no keyring: libpq's own sources (.pgpass, trust) still apply
        return None


def connect(dsn: str):
    """An autocommit connection; transactions are explicit (``BEGIN``/``COMMIT``)."""
    psycopg = _psycopg()
    if not dsn:
        raise BrainError("index.backend is postgres but index.dsn is empty; set it, for example "
                         "`aida config set index.dsn 'host=db.example port=5432 dbname=aida user=me'`.")
    kw = {}
    pw = password()
    if pw and "password=" not in dsn:
        kw["password"] = pw
    try:
        return psycopg.connect(dsn, autocommit=True, connect_timeout=10, **kw)
    except psycopg.Error as e:
        raise BrainError(f"Cannot reach the catalog server ({str(e).strip().splitlines()[0]}); "
                         "check index.dsn and that the server is running.") from None


def brain_id(root: Path, configured: str | None = None) -> str:
    """The brain's name on the server: the setting, else its first commit (the same on every
    clone of one brain), else a hash of its path."""
    raw = (configured or "").strip()
    if not raw:
        try:
            out = subprocess.run(["git", "-C", str(root), "rev-list", "--max-parents=0", "HEAD"],
                                 capture_output=True, text=True, timeout=10)
            raw = out.stdout.split()[0][:16] if out.returncode == 0 and out.stdout.strip() else ""
        except (OSError, subprocess.SubprocessError):
            raw = ""
    if not raw:
        raw = hashlib.sha256(str(Path(root).resolve()).encode()).hexdigest()[:16]
    clean = re.sub(r"[^a-z0-9_]", "_", raw.lower())[:40]
    return clean


def schema_for(bid: str) -> str:
    return f"aida_{bid}"


def doctor(config, root: Path | None) -> str:
    """``aida doctor``: the server answers, pgvector is installed, and this brain's catalog schema
    is the version this Aida writes. Raises with the reason otherwise."""
    conn = connect(str(config.get("index.dsn", "") or ""))
    try:
        server = conn.execute("SHOW server_version").fetchone()[0]
        ext = conn.execute("SELECT extversion FROM pg_extension WHERE extname = 'vector'").fetchone()
        if ext is None:
            avail = conn.execute("SELECT default_version FROM pg_available_extensions WHERE name = 'vector'").fetchone()
            if avail is None:
                raise BrainError(f"PostgreSQL {server} has no pgvector extension; install pgvector on the server")
            ext = (f"{avail[0]} (available, created on the first index)",)
        detail = f"PostgreSQL {server}, pgvector {ext[0]}"
        if root is None:
            return detail
        schema = schema_for(brain_id(root, config.get("index.brain_id")))
        if conn.execute("SELECT to_regclass(%s)", (f"{schema}.meta",)).fetchone()[0] is None:
            raise BrainError(f"{detail}; this brain's catalog ({schema}) is not built: run `aida brain index --full`")
        v = conn.execute(f"SELECT v FROM {schema}.meta WHERE k = 'schema'").fetchone()
        n = conn.execute(f"SELECT count(*) FROM {schema}.docs").fetchone()[0]
        if not v or v[0] != SCHEMA_VERSION:
            raise BrainError(f"{detail}; catalog {schema} has schema version {v[0] if v else '?'}, "
                             f"this Aida writes {SCHEMA_VERSION}: run `aida brain index --full`")
        return f"{detail}, catalog {schema} schema {v[0]}, {n} records"
    finally:
        conn.close()
