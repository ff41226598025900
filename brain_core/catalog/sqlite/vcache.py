"""The catalog's vectors held in memory, for exact nearest neighbours in one matrix product.

sqlite-vec answers a nearest-neighbour query by reading every vector chunk from the database file
(about 12 ms for 10,000 records on two cores); the same exact search over a matrix in memory takes
well under a millisecond. A process that recalls more than once (the tray, the MCP server, a
benchmark) loads the matrix at its second vector search and keeps it in step with the catalog:

- its own writes (``Index.apply``, ``upsert_file``, ``remove_file``) update the matrix in place after
  their transaction commits;
- another connection's commit (another process, another ``Brain`` on the same folder) changes the
  connection's ``PRAGMA data_version``, and the matrix is loaded again at the next search;
- a swapped index file (a rebuild) opens a new connection, and the cache goes with the old one.

The catalog stays the truth: the cache is dropped whenever it cannot be shown current, and a brain
larger than ``index.vector_cache_mb`` is searched by sqlite-vec as before.
"""

from __future__ import annotations

import numpy as np

from brain_core.catalog.sqlite.db import driver

# sqlite-vec versions whose chunk tables (``<table>_chunks``, ``<table>_vector_chunks00``) are read
# directly: each chunk holds ``size`` slots, a validity bitmap, the slots' rowids (int64) and their
# float32 vectors. Any other version is read row by row (slower, same result).
CHUNK_FORMAT_VERSIONS = ("v0.1.6", "v0.1.7", "v0.1.8", "v0.1.9")
MAX_COMPONENT = 1e3  # an embedding's components are small (unit length); random bytes are not


class VectorCache:
    """Rows of unit vectors with each row's shelf, profile and type (as small integer codes)."""

    def __init__(self, dim: int) -> None:
        self.dim = dim
        self.n = 0                                   # slots used (live or dropped)
        self.matrix = np.zeros((0, dim), dtype=np.float32)
        self.rowids = np.zeros(0, dtype=np.int64)
        self.live = np.zeros(0, dtype=bool)
        self.cols = {c: np.zeros(0, dtype=np.int32) for c in ("shelf", "profile", "type")}
        self.codes: dict[str, dict[str | None, int]] = {c: {} for c in self.cols}
        self.slot: dict[int, int] = {}              # rowid -> slot

    # -- building --------------------------------------------------------------------------------

    @classmethod
    def load(cls, conn, dim: int) -> "VectorCache":
        """Every vector of the catalog on ``conn`` with its row's shelf, profile and type."""
        cache = cls(dim)
        meta = {r: (s, p, t) for r, s, p, t in conn.execute("SELECT rowid, shelf, profile, type FROM docs")}
        pairs = _chunk_vectors(conn, dim)
        if pairs is None:
            rows = conn.execute("SELECT rowid, embedding FROM docs_vec").fetchall()
            ids = np.array([r for r, _ in rows], dtype=np.int64)
            mat = np.frombuffer(b"".join(e for _, e in rows), dtype=np.float32).reshape(len(rows), dim) \
                if rows else np.zeros((0, dim), dtype=np.float32)
        else:
            ids, mat = pairs
        keep = np.array([int(r) in meta for r in ids], dtype=bool)
        ids, mat = ids[keep], mat[keep]
        if len(mat) and not (np.isfinite(mat).all() and np.abs(mat).max() <= MAX_COMPONENT):
            # bytes that are no embedding: the file is damaged where sqlite-vec would have failed
            raise driver().DatabaseError("the catalog's vectors are damaged (values no embedding has)")
        cache._grow(len(ids))
        cache.matrix[:len(ids)] = _unit(mat)
        cache.rowids[:len(ids)] = ids
        cache.live[:len(ids)] = True
        for c, col in enumerate(("shelf", "profile", "type")):
            cache.cols[col][:len(ids)] = [cache._code(col, meta[int(r)][c]) for r in ids]
        cache.slot = {int(r): i for i, r in enumerate(ids)}
        cache.n = len(ids)
        return cache

    def _code(self, col: str, value) -> int:
        codes = self.codes[col]
        if value not in codes:
            codes[value] = len(codes)
        return codes[value]

    def _grow(self, need: int) -> None:
        cap = len(self.rowids)
        if need <= cap:
            return
        new = max(need, int(cap * 1.5) + 64)
        m = np.zeros((new, self.dim), dtype=np.float32)
        m[:self.n] = self.matrix[:self.n]
        self.matrix = m
        for name in ("rowids", "live"):
            arr = getattr(self, name)
            grown = np.zeros(new, dtype=arr.dtype)
            grown[:self.n] = arr[:self.n]
            setattr(self, name, grown)
        for col, arr in self.cols.items():
            grown = np.zeros(new, dtype=np.int32)
            grown[:self.n] = arr[:self.n]
            self.cols[col] = grown

    # -- keeping in step with our own writes ----------------------------------------------------------

    def put(self, rowid: int, vec, shelf: str, profile: str | None, type_: str | None) -> None:
        i = self.slot.get(rowid)
        if i is None:
            self._grow(self.n + 1)
            i, self.n = self.n, self.n + 1
            self.slot[rowid] = i
            self.rowids[i] = rowid
        self.matrix[i] = _unit(np.asarray(vec, dtype=np.float32).reshape(1, -1))[0]
        self.live[i] = True
        for col, value in (("shelf", shelf), ("profile", profile), ("type", type_)):
            self.cols[col][i] = self._code(col, value)

    def drop(self, rowid: int) -> None:
        i = self.slot.pop(rowid, None)
        if i is not None:
            self.live[i] = False

    def written(self, written, dropped=()) -> None:
        """A committed write of the catalog: (rowid, Doc, vector) upserted, rowids (0: none) removed."""
        for rowid in dropped:
            if rowid:
                self.drop(rowid)
        for rowid, doc, vec in written:
            self.put(rowid, vec, doc.shelf, doc.record.profile, doc.record.type)

    def __len__(self) -> int:
        return len(self.slot)

    # -- searching ----------------------------------------------------------------------------------

    def search(self, vec, k: int, shelves: tuple[str, ...], profile: str | None = None,
               type_: str | None = None) -> list[tuple[int, float]]:
        """The ``k`` rows closest to ``vec`` (rowid, cosine distance), nearest first, among rows on one
        of ``shelves`` with the given profile and type."""
        n = self.n
        if n == 0 or k <= 0:
            return []
        mask = self.live[:n].copy()
        wanted = [self.codes["shelf"][s] for s in shelves if s in self.codes["shelf"]]
        mask &= np.isin(self.cols["shelf"][:n], wanted)
        for col, value in (("profile", profile), ("type", type_)):
            if value:
                code = self.codes[col].get(value)
                if code is None:
                    return []
                mask &= self.cols[col][:n] == code
        slots = np.flatnonzero(mask)
        if not len(slots):
            return []
        q = _unit(np.asarray(vec, dtype=np.float32).reshape(1, -1))[0]
        sims = (self.matrix[:n] @ q)[slots]       # the whole product is cheaper than copying rows out
        take = min(k, len(slots))
        top = np.argpartition(-sims, take - 1)[:take] if take < len(slots) else np.arange(len(slots))
        top = top[np.lexsort((self.rowids[slots[top]], -sims[top]))]
        return [(int(self.rowids[slots[i]]), float(1.0 - sims[i])) for i in top]

def plausible_vector(blob, dim: int) -> bool:
    """Could these bytes be one of the catalog's embeddings (``dim`` finite, small float32s)? A
    rebuild reuses only such vectors from an old or damaged catalog."""
    if not isinstance(blob, (bytes, bytearray, memoryview)) or len(blob) != dim * 4:
        return False
    v = np.frombuffer(blob, dtype=np.float32)
    return bool(np.isfinite(v).all() and np.abs(v).max() <= MAX_COMPONENT)


def _unit(m: np.ndarray) -> np.ndarray:
    norms = np.linalg.norm(m, axis=1, keepdims=True)
    norms[norms == 0] = 1.0
    return (m / norms).astype(np.float32, copy=False)


def _chunk_vectors(conn, dim: int, table: str = "docs_vec") -> tuple[np.ndarray, np.ndarray] | None:
    """(rowids, vectors) read from sqlite-vec's chunk tables, or None when their format is not the
    one known here (then the caller reads row by row)."""
    try:
        version = conn.execute("SELECT vec_version()").fetchone()[0]
        if version not in CHUNK_FORMAT_VERSIONS:
            return None
        chunks = conn.execute(f"SELECT c.size, c.validity, c.rowids, v.vectors FROM {table}_chunks c "
                              f"JOIN {table}_vector_chunks00 v ON v.rowid = c.chunk_id ORDER BY c.chunk_id").fetchall()
    except Exception:  # noqa: BLE001 - another layout: read it the slow way
        return None
    ids, mats = [], []
    for size, validity, rowids, vectors in chunks:
        if len(rowids) != size * 8 or len(vectors) != size * dim * 4 or len(validity) * 8 < size:
            return None
        valid = np.unpackbits(np.frombuffer(validity, dtype=np.uint8), bitorder="little")[:size].astype(bool)
        ids.append(np.frombuffer(rowids, dtype=np.int64)[valid])
        mats.append(np.frombuffer(vectors, dtype=np.float32).reshape(size, dim)[valid])
    if not ids:
        return np.zeros(0, dtype=np.int64), np.zeros((0, dim), dtype=np.float32)
    return np.concatenate(ids), np.concatenate(mats)
