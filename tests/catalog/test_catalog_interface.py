"""The catalog's one interface: both backends carry every member of :class:`Catalog` with a signature
the protocol's callers can use (same parameters, same kinds, same defaults; extra ones optional),
the factory hands out objects that satisfy it, and each says which backend it is."""

from __future__ import annotations

import inspect

import pytest

from brain_core.catalog.base import ApplyStats, Catalog, ScanReport
from brain_core.catalog.factory import open_index
from brain_core.catalog.postgres.index import PgIndex
from brain_core.catalog.sqlite import index as sqlite_index
from brain_core.catalog.sqlite.index import Index
from brain_core.store.locks import FileLock

DATA = [n for n in Catalog.__annotations__]
METHODS = [n for n, v in vars(Catalog).items()
           if not n.startswith("_") and (inspect.isfunction(v) or isinstance(v, property))]


def mismatches(cls) -> list[str]:
    """What of the protocol's methods ``cls`` lacks or takes differently (empty: it satisfies them)."""
    out = []
    for name in METHODS:
        want = vars(Catalog)[name]
        have = inspect.getattr_static(cls, name, None)
        if have is None:
            out.append(f"{name}: missing")
            continue
        if isinstance(want, property):
            if not isinstance(have, property):
                out.append(f"{name}: not a property")
            continue
        if not callable(have):
            out.append(f"{name}: not a method")
            continue
        p_params = list(inspect.signature(want).parameters.values())
        c_params = list(inspect.signature(have).parameters.values())
        for i, p in enumerate(p_params):
            if i >= len(c_params) or c_params[i].name != p.name or c_params[i].kind != p.kind:
                out.append(f"{name}: parameter {p.name} differs")
                break
            if p.default is not inspect.Parameter.empty and c_params[i].default != p.default:
                out.append(f"{name}: default of {p.name} is {c_params[i].default!r}, not {p.default!r}")
        for extra in c_params[len(p_params):]:
            if extra.default is inspect.Parameter.empty and extra.kind not in (inspect.Parameter.VAR_POSITIONAL,
                                                                               inspect.Parameter.VAR_KEYWORD):
                out.append(f"{name}: extra parameter {extra.name} is required")
    return out


def _instances(tmp_path):
    lock = FileLock(tmp_path / "lock")
    return [Index(tmp_path, lock, lambda: None),
            PgIndex(tmp_path, lock, lambda: None, dsn="host=nowhere", brain_id="interface")]


def test_the_protocol_names_the_interface():
    assert {"conn", "scan", "apply", "upsert_file", "remove_file", "vectors_for", "rebuild", "counts",
            "catch_up", "recover", "embedder"} <= set(METHODS)
    assert {"backend", "root", "path", "lock", "fresh_vectors"} <= set(DATA)
    for name in METHODS:
        member = vars(Catalog)[name]
        doc = (member.fget if isinstance(member, property) else member).__doc__
        assert doc and doc.strip(), f"Catalog.{name} has no docstring"


@pytest.mark.parametrize("cls", [Index, PgIndex])
def test_both_backends_carry_every_method_with_a_compatible_signature(cls):
    assert mismatches(cls) == []


def test_the_check_fails_on_a_backend_that_drifts():
    class Drifted(Index):
        def apply(self, report, connection=None, progress=None):  # a renamed keyword
            return super().apply(report, connection, progress)

        def catch_up(self, limit: int = 32) -> str:  # another default
            return super().catch_up(limit)

        def remove_file(self, rel: str, why: str) -> None:  # a new required parameter
            super().remove_file(rel)

    found = mismatches(Drifted)
    assert any(m.startswith("apply: parameter conn") for m in found)
    assert any(m.startswith("catch_up: default of limit") for m in found)
    assert any(m.startswith("remove_file: extra parameter why") for m in found)
    assert "vectors_for: missing" in mismatches(type("Bare", (), {}))


def test_instances_have_every_data_member_and_say_their_backend(tmp_path):
    sqlite, pg = _instances(tmp_path)
    for idx in (sqlite, pg):
        missing = [n for n in DATA if not hasattr(idx, n)]
        assert missing == [], f"{type(idx).__name__} lacks {missing}"
        assert isinstance(idx, Catalog)
    assert (sqlite.backend, pg.backend) == ("sqlite", "postgres")
    assert not isinstance(object(), Catalog)


def test_the_factory_chooses_the_backend_and_returns_a_catalog(tmp_path):
    lock = FileLock(tmp_path / "lock")
    for name, cls in (("sqlite", Index), ("postgres", PgIndex)):
        idx = open_index(tmp_path, lock, lambda: None, {"index.backend": name, "index.dsn": "host=nowhere",
                                                         "index.brain_id": "interface"})
        assert type(idx) is cls and idx.backend == name and isinstance(idx, Catalog)


def test_the_shared_report_types_are_the_backends_own():
    assert sqlite_index.ScanReport is ScanReport and sqlite_index.ApplyStats is ApplyStats
    assert ScanReport(new=(), deleted=("a", "b")).changes == 2


def test_connections_are_told_apart_by_their_backend_too(tmp_path):
    from brain_core.catalog.postgres.index import PgConn
    from brain_core.catalog.sqlite import db as dbmod
    from brain_core.recall import backends, postgres, sqlite
    from brain_core.recall.confidence import on_postgres

    sqlite_conn = dbmod.connect(tmp_path / "c.sqlite")
    try:
        assert PgConn(None).backend == "postgres"
        assert on_postgres(PgConn(None)) and backends.of(PgConn(None)) is postgres
        assert not on_postgres(sqlite_conn) and backends.of(sqlite_conn) is sqlite
        assert backends.statements("postgres") is postgres and backends.statements("sqlite") is sqlite
    finally:
        sqlite_conn.close()


def test_no_translation_is_left_and_neither_backend_inherits_the_other(tmp_path):
    from brain_core.catalog.postgres import index as pgindex
    from brain_core.catalog.postgres.index import PgConn
    from brain_core.catalog.scan import CatalogBase

    assert not hasattr(pgindex, "translate")
    assert not hasattr(PgConn, "execute") and not hasattr(PgConn, "executemany")  # only pg(): PostgreSQL as written
    assert not issubclass(PgIndex, Index) and not issubclass(Index, PgIndex)
    assert issubclass(PgIndex, CatalogBase) and issubclass(Index, CatalogBase)  # the scan's rules, shared
    _, pg = _instances(tmp_path)
    assert pg.vectors() is None  # the server searches its own index; nothing held in memory
