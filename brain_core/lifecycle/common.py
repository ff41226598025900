"""What the lifecycle passes share: docs and their vectors, a record's value, in-place rewrites,
Markdown pages with front matter, and the words of a text.

Vectors come from the card catalog by text checksum, so a pass over ten thousand records embeds
only what the catalog has never seen (a hand edit not yet indexed, say).
"""

from __future__ import annotations

import re
import time
from pathlib import Path
from typing import Iterable, Sequence

import numpy as np

from brain_core.errors import MalformedRecord
from brain_core.store.fsutil import atomic_write_bytes, contained
from brain_core.records import Record, parse_time
from brain_core.store.shelves import Doc, read_docs

EXPIRED_TAG = "stale:expired"
_SENTENCE = re.compile(r"(?<=[.!?])\s+|(?<=[\u3002\uff01\uff1f])\s*|\n+")
_WORD = re.compile(r"[^\W\d_][\w'-]*", re.UNICODE)
_NUMBER = re.compile(r"(?<![\w.])\d+(?:[.,:]\d+)*%?")
NEGATIONS = ("not", "no", "never", "none", "nothing", "without", "cannot", "neither", "nor")
_NEG_RE = re.compile(r"\b(?:" + "|".join(NEGATIONS) + r")\b|n't\b", re.I)


# -- docs and vectors -------------------------------------------------------------------------------


def load_docs(brain, shelves: Sequence[str]) -> list[Doc]:
    """Every readable file on ``shelves``, straight from the files (bad ones are lint's business)."""
    return sorted(read_docs(brain.root, shelves), key=lambda d: (d.record.created, d.path))


def vectors(brain, docs: Sequence[Doc]) -> np.ndarray:
    """One L2-normalised vector per doc: from the catalog by text checksum, else embedded now."""
    out = np.zeros((len(docs), brain.index.dim), dtype=np.float32)
    if not docs:
        return out
    if getattr(brain.index, "backend", "sqlite") == "postgres":  # the server catalog's own checksum reuse
        found, _ = brain.index._vectors_for(brain.index.conn(), list(docs))
        return np.stack(found).astype(np.float32)
    conn = brain.index.conn()
    need: list[int] = []
    for i, d in enumerate(docs):
        row = conn.execute("SELECT v.embedding FROM docs x JOIN docs_vec v ON v.rowid = x.rowid "
                           "WHERE x.text_sha = ? LIMIT 1", (d.text_sha,)).fetchone()
        if row is None:
            need.append(i)
        else:
            out[i] = np.frombuffer(row[0], dtype=np.float32)
    if need:
        fresh = brain.embedder.embed([docs[i].embed_text for i in need])
        for j, i in enumerate(need):
            out[i] = fresh[j]
    return out


# -- value ------------------------------------------------------------------------------------------------


def is_expired(record: Record, now: float) -> bool:
    exp = parse_time(record.expires)
    return bool(exp and exp.timestamp() < now)


def last_touched(record: Record, use: tuple[int, float] | None) -> float:
    """When the record was last written or recalled (epoch seconds; 0 when neither is known)."""
    created = parse_time(record.created)
    return max(created.timestamp() if created else 0.0, (use or (0, 0.0))[1] or 0.0)


def value_of(record: Record, use: tuple[int, float] | None, now: float, params) -> float:
    """What a record is worth keeping at hand: recall's decay from age and use, times its
    confidence, halved once a dated negative has expired. Between 0 and 1."""
    from brain_core.recall.hybrid import decay_factor

    created = parse_time(record.created)
    uses, last = use or (0, None)
    v = min(1.0, decay_factor(now, created.timestamp() if created else 0.0, last, uses, params))
    conf = record.confidence if isinstance(record.confidence, (int, float)) else 1
    v *= min(1.0, max(0.0, float(conf)))
    if is_expired(record, now) or EXPIRED_TAG in record.tags:
        v *= 0.5
    return v


def setting(config, key: str, default: float, kind=float):
    """A numeric setting, or InvalidInput naming the key and the command that fixes it."""
    from brain_core.config import non_negative

    return non_negative(config.get(key, default), key, kind)


# -- writes ---------------------------------------------------------------------------------------------------


def rewrite_in_place(brain, items: Iterable[tuple[str, Record]], message: str) -> list[str]:
    """Rewrite records at their own paths (same id: a mark, not new knowledge) in one commit."""
    items = list(items)
    if not items:
        return []
    from brain_core.redact.scrub import file_text

    with brain.lock():
        for rel, rec in items:
            data = file_text(rel, rec.to_json()).encode("utf-8")  # the redaction gate
            atomic_write_bytes(contained(brain.root, rel), data)
            brain.index.upsert_file(rel, data)
        brain.git.commit([rel for rel, _ in items], message)
    return [rel for rel, _ in items]


def write_files(brain, files: dict[str, str], message: str) -> list[str]:
    """Write several non-record files (pages, INDEX.md) and commit them once; unchanged ones are
    skipped, so a pass that changes nothing makes no commit. Returns the paths written."""
    from brain_core.redact import scrub

    files = {scrub.path(rel): scrub.file_text(rel, text) for rel, text in files.items()}  # the redaction gate
    changed = [rel for rel, text in files.items() if brain.read_text(rel) != text]
    if not changed:
        return []
    with brain.lock():
        for rel in changed:
            data = files[rel].encode("utf-8")
            atomic_write_bytes(contained(brain.root, rel), data)
            if on_shelf(rel):
                try:
                    brain.index.upsert_file(rel, data)
                except MalformedRecord:
                    pass  # lint reports a page it cannot read; the write itself stands
        brain.git.commit(changed, message)
    return changed


def on_shelf(rel: str) -> bool:
    """Whether the catalog holds files at ``rel`` (see :func:`brain_core.store.shelves.on_shelf`)."""
    from brain_core.store.shelves import on_shelf as core_on_shelf

    return core_on_shelf(rel)


def archive_path(brain, rel: str, record_id: str | None = None) -> str:
    """``archive/<rel>``, or with the record id before the suffix when that name is taken."""
    target = f"archive/{rel}"
    if (brain.root / target).exists():
        p = Path(target)
        target = str(p.with_name(f"{p.stem}.{record_id or int(time.time())}{p.suffix}").as_posix())
    return target


# -- pages ---------------------------------------------------------------------------------------------------


def split_front_matter(text: str) -> tuple[dict, str]:
    """``(meta, body)`` of a Markdown page; a page without (valid) front matter has ``{}``."""
    if not text.startswith("---"):
        return {}, text
    end = text.find("\n---", 3)
    if end == -1:
        return {}, text
    import yaml

    from brain_core.text import yamlsafe

    try:
        meta = yamlsafe.load(text[3:end]) or {}
    except yaml.YAMLError:
        return {}, text
    if not isinstance(meta, dict):
        return {}, text
    return meta, text[end + 4:].lstrip("\n")


def render_page(meta: dict, body: str) -> str:
    import yaml

    head = yaml.safe_dump(meta, sort_keys=False, allow_unicode=True, width=1000).strip()
    return f"---\n{head}\n---\n\n{body.strip()}\n"


def md_link(label: str, target: str) -> str:
    label = label.replace("[", "(").replace("]", ")")
    return f"[{label}](<{target}>)" if any(c in target for c in " ()<>") else f"[{label}]({target})"


# -- words -----------------------------------------------------------------------------------------------------


def sentences(text: str) -> list[str]:
    return [s.strip() for s in _SENTENCE.split(text or "") if s and s.strip()]


def words(text: str) -> list[str]:
    from brain_core.recall.hybrid import STOPWORDS

    return [w for w in (m.group(0).lower().strip("'-") for m in _WORD.finditer(text or ""))
            if len(w) > 1 and w not in STOPWORDS and w not in NEGATIONS]


def numbers(text: str) -> set[str]:
    return {n.rstrip(".,:").replace(",", "") for n in _NUMBER.findall(text or "")}


def negated(text: str) -> bool:
    return bool(_NEG_RE.search(text or ""))


def first_sentence(text: str, limit: int = 100) -> str:
    s = sentences(text)
    first = (s[0] if s else (text or "").strip()).lstrip("#*- ").strip()
    if len(first) <= limit:
        return first.rstrip(".")
    cut = first[:limit].rsplit(" ", 1)[0]
    return (cut if len(cut) > limit // 2 else first[:limit]).rstrip(" ,;:.") + "…"
