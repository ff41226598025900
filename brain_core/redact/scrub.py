"""The redaction gate: what every writer calls on the bytes, names and messages it is about to keep.

:func:`brain_core.redact.redact` finds secrets in one text; this module applies it to the shapes
Aida writes: a value of any JSON shape (record extras, run records, events), a file's text (JSON
files stay valid JSON), a path inside the brain (a file name never carries a secret), a slug
(a key that spells a secret is made again from the masked text) and a commit message. The
brain's own write path (``Brain._prepare`` for records, ``store/writes.py`` for every other file
and file name, ``Brain._emit``), the run records and ``Git.commit`` call these, so a new writer that
goes through any of them cannot skip the gate.
"""

from __future__ import annotations

import json
import re
from typing import AbstractSet, Any

from brain_core.redact import redact


def text(value: str) -> str:
    """``value`` with every secret masked."""
    return redact(value).text if isinstance(value, str) and value else value


def value(obj: Any) -> Any:
    """Every string in a JSON-shaped value masked (dict keys too); other values kept."""
    if isinstance(obj, str):
        return text(obj)
    if isinstance(obj, dict):
        return {text(k) if isinstance(k, str) else k: value(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [value(v) for v in obj]
    return obj


def file_text(rel: str, content: str) -> str:
    """A file's text masked; a JSON file that was valid stays valid (masked value by value when
    masking the text as a whole would break it)."""
    out = text(content)
    if out == content or not rel.endswith(".json"):
        return out
    try:
        json.loads(out)
        return out
    except ValueError:
        pass
    try:
        data = json.loads(content)
    except ValueError:
        return out  # it was not JSON to begin with
    return json.dumps(_pairs(value(data)), ensure_ascii=False, indent=2) + "\n"


def _pairs(obj: Any) -> Any:
    """``{"password": "abc"}`` masked value by value keeps ``abc`` (no name beside it): mask a
    string whose ``"name": "value"`` form is a finding."""
    if isinstance(obj, dict):
        out = {}
        for k, v in obj.items():
            if isinstance(k, str) and isinstance(v, str) and v and redact(json.dumps({k: v})).findings:
                v = "[REDACTED:secret-assignment]"
            out[k] = _pairs(v)
        return out
    if isinstance(obj, list):
        return [_pairs(v) for v in obj]
    return obj


_SLUG_SEP = re.compile(r"[-_.]+")


def has_secret(name: str) -> bool:
    """Whether a name or slug spells a secret, as written or read as words (``my-password-is-x``)."""
    return bool(redact(name).findings or redact(_SLUG_SEP.sub(" ", name)).findings)


def clean_key(key: str) -> str:
    """A key that spells a secret, made again from its masked form (read as written, then as words)."""
    from brain_core.text.slug import slugify

    if not has_secret(key):
        return key
    for form in (key, _SLUG_SEP.sub(" ", key)):
        red = redact(form)
        if red.findings:
            made = slugify(red.text)
            if not has_secret(made):
                return made
    return "redacted"


def slug(key: str, masked_text: str, fragments: AbstractSet[str] = frozenset()) -> str:
    """``key``, or a key made from ``masked_text`` when the key spells a secret or carries a
    fragment of one (``fragments``: lowercase pieces of what was masked)."""
    from brain_core.text.slug import slugify

    flat = key.replace("-", "")
    if has_secret(key) or any(f in flat for f in fragments):
        made = slugify(masked_text)
        return made if not has_secret(made) else "note"
    return key


def fragments(original: str, red=None) -> set[str]:
    """Lowercase alphanumeric pieces (6+ characters) of what :func:`redact` masks in ``original``
    (``red``: its redaction, when the caller has it already)."""
    red = red if red is not None else redact(original)
    return {w for f in red.findings for w in re.findall(r"[a-z0-9]{6,}", original[f.start:f.end].lower())}


def path(rel: str) -> str:
    """A relative path whose every part is free of secrets: a part that spells one becomes a slug
    of its masked form (extension kept)."""
    from brain_core.text.slug import slugify

    parts = rel.split("/")
    out = []
    for part in parts:
        if part and has_secret(part):
            stem, dot, ext = part.rpartition(".") if "." in part[1:] else (part, "", "")
            new = slugify(redact(stem).text, max_words=8)
            if has_secret(new):
                new = "redacted"
            part = f"{new}{dot}{ext}"
        out.append(part)
    return "/".join(out)


def message(msg: str) -> str:
    """A commit message with every secret masked (its subject and body alike)."""
    return text(msg)
