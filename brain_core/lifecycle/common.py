"""What the lifecycle passes share: docs and their vectors, a record's value, in-place rewrites,
Markdown pages with front matter, and the words of a text.

Vectors come from the card catalog by text checksum, so a pass over ten thousand records embeds
only what the catalog has never seen (a hand edit not yet indexed, say).
"""

from __future__ import annotations

from typing import Iterable

from brain_core.catalog.vectors import vectors  # noqa: F401 - re-exported for the lifecycle steps
from brain_core.records import Record, parse_time
from brain_core.store.archive import archive_path  # noqa: F401 - re-exported for the lifecycle steps
from brain_core.store.shelves import Doc, load_docs, read_docs  # noqa: F401
from brain_core.text.sentences import sentences  # noqa: F401 - re-exported for the lifecycle steps
from brain_core.text.words import NEGATIONS, first_sentence, negated, numbers, words  # noqa: F401

EXPIRED_TAG = "stale:expired"


# -- docs and vectors -------------------------------------------------------------------------------


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
    brain.write({rel: rec.to_json() for rel, rec in items}, message)  # the one write path (store/writes.py)
    return [rel for rel, _ in items]


def write_files(brain, files: dict[str, str], message: str) -> list[str]:
    """Write several non-record files (pages, INDEX.md) and commit them once; unchanged ones are
    skipped, so a pass that changes nothing makes no commit. Returns the paths written."""
    return brain.write(files, message, only_changed=True)


def on_shelf(rel: str) -> bool:
    """Whether the catalog holds files at ``rel`` (see :func:`brain_core.store.shelves.on_shelf`)."""
    from brain_core.store.shelves import on_shelf as core_on_shelf

    return core_on_shelf(rel)


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


