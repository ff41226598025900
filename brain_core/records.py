"""The record: one durable memory, one small JSON file.

A record's file is UTF-8 JSON with sorted keys and a trailing newline, so diffs stay small. Fields
Aida does not know are kept in ``extra`` and written back unchanged, so a newer Aida (or a person)
can add fields without an older one dropping them.
"""

from __future__ import annotations

import json
import math
import re
import secrets
import threading
import time
from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import Any

from brain_core.errors import InvalidInput, MalformedRecord
from brain_core.text.slug import slugify

RECORD_TYPES = ("fact", "instruction", "preference", "decision", "event", "lesson", "note", "task")
KEY_RE = re.compile(r"^[a-z0-9][a-z0-9-]{0,79}$")
PROFILE_RE = re.compile(r"^[a-z0-9][a-z0-9_-]{0,39}$")
ID_RE = re.compile(r"^[0-9]{8}-[0-9]{9}-[0-9a-f]{6}$")
MAX_BODY_CHARS = 20_000
MAX_TAG_CHARS = 64
MAX_TAGS = 20
_KNOWN = ("id", "type", "key", "profile", "tags", "body", "source", "created", "confidence",
          "provenance", "expires", "supersedes", "abstract")


def now_iso() -> str:
    return datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


_last_ms = 0
_id_lock = threading.Lock()


def new_id(when: datetime | None = None) -> str:
    """``YYYYMMDD-HHMMSSmmm-xxxxxx``: the time to the millisecond, then 3 random bytes. Ids made
    for "now" in one process strictly increase (a later one in the same millisecond takes the
    next), so a batch's records sort in the order they were written (recall reads a record's
    neighbours in its source by this order)."""
    global _last_ms
    if when is None:
        with _id_lock:
            ms = max(time.time_ns() // 1_000_000, _last_ms + 1)
            _last_ms = ms
        when = datetime.fromtimestamp(ms // 1000, timezone.utc).replace(microsecond=ms % 1000 * 1000)
    return when.strftime("%Y%m%d-%H%M%S") + f"{when.microsecond // 1000:03d}-" + secrets.token_hex(3)




# The agents whose sessions and memory files Aida learns from, as a source's first part names them.
AGENT_NAMES = {"claude": "Claude Code", "codex": "Codex", "gemini": "Gemini CLI"}


def origin(source: str, created: str = "") -> str:
    """Where a record came from, in words, from its ``source`` ("claude:session:<id>" -> "from a
    Claude Code session on 2026-11-02", "codex:memory:<path>" -> "from a Codex memory file",
    "meeting:..." -> "from a meeting on ..."); "" for what was written by hand or an unknown source.
    The one table the answers and the overview both speak from."""
    day = str(created or "")[:10]
    on = f" on {day}" if day else ""
    head, _, rest = str(source or "").partition(":")
    kind = rest.split(":", 1)[0]
    if head in AGENT_NAMES and kind == "session":
        return f"from a {AGENT_NAMES[head]} session{on}"
    if head in AGENT_NAMES and kind == "memory":
        return f"from a {AGENT_NAMES[head]} memory file"
    if head == "meeting":
        return f"from a meeting{on}"
    return ""


def parse_time(value: str | None) -> datetime | None:
    """An ISO-8601 timestamp (``Z`` or offset, date only allowed) as aware UTC, or None."""
    if not value or not isinstance(value, str):
        return None
    text = value.strip().replace("Z", "+00:00")
    try:
        dt = datetime.fromisoformat(text)
        if dt.tzinfo is None:
            dt = dt.replace(tzinfo=timezone.utc)
        return dt.astimezone(timezone.utc)
    except (ValueError, OverflowError):  # 9999-99-99, or an offset pushing year 1 or 9999 out of range
        return None


def clean_tags(tags: Any) -> list[str]:
    if tags is None:
        return []
    if isinstance(tags, str):
        tags = [t for t in tags.split(",")]
    if not isinstance(tags, (list, tuple)):
        raise InvalidInput("Tags must be a list of strings.")
    out: list[str] = []
    for t in tags:
        if not isinstance(t, str):
            raise InvalidInput("Tags must be a list of strings.")
        t = "".join(ch for ch in t.strip() if ch.isprintable())
        if not t:
            continue
        if len(t) > MAX_TAG_CHARS:
            raise InvalidInput(f"The tag {t[:20]!r}... is longer than {MAX_TAG_CHARS} characters.")
        if t not in out:
            out.append(t)
    if len(out) > MAX_TAGS:
        raise InvalidInput(f"A record takes at most {MAX_TAGS} tags.")
    return out


@dataclass
class Record:
    id: str
    type: str
    key: str
    profile: str
    body: str
    tags: list[str] = field(default_factory=list)
    source: str = ""
    created: str = ""
    confidence: float = 1
    provenance: list[str] = field(default_factory=list)
    expires: str | None = None
    supersedes: str | None = None
    extra: dict[str, Any] = field(default_factory=dict)
    abstract: str | None = None  # the ~100-token summary of a long body, written with it (optional)

    def to_dict(self) -> dict[str, Any]:
        d = dict(self.extra)
        d.update(id=self.id, type=self.type, key=self.key, profile=self.profile, tags=list(self.tags),
                 body=self.body, source=self.source, created=self.created, confidence=self.confidence,
                 provenance=list(self.provenance), expires=self.expires)
        if self.supersedes:
            d["supersedes"] = self.supersedes
        if self.abstract:
            d["abstract"] = self.abstract
        return d

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), ensure_ascii=False, sort_keys=True, indent=2) + "\n"

    @property
    def created_dt(self) -> datetime | None:
        return parse_time(self.created)

    @classmethod
    def from_dict(cls, d: Any, path: str = "<record>") -> "Record":
        """Build a record from parsed JSON, or raise MalformedRecord naming what is wrong."""
        if not isinstance(d, dict):
            raise MalformedRecord(path, "not a JSON object")
        missing = [f for f in ("id", "type", "key", "profile", "body") if f not in d]
        if missing:
            raise MalformedRecord(path, f"missing field(s): {', '.join(missing)}")
        for f in ("id", "type", "key", "profile", "body"):
            if not isinstance(d[f], str):
                raise MalformedRecord(path, f"field {f!r} is not a string")
        if d["type"] not in RECORD_TYPES:
            raise MalformedRecord(path, f"unknown type {d['type']!r} (one of {', '.join(RECORD_TYPES)})")
        if not KEY_RE.match(d["key"]):
            raise MalformedRecord(path, f"key {d['key'][:40]!r} is not a kebab-case slug")
        if not PROFILE_RE.match(d["profile"]):
            raise MalformedRecord(path, f"profile {d['profile'][:40]!r} is not a simple name")
        if len(d["body"]) > MAX_BODY_CHARS:
            raise MalformedRecord(path, f"body has {len(d['body'])} characters (limit {MAX_BODY_CHARS})")
        try:
            tags = clean_tags(d.get("tags"))
        except InvalidInput as e:
            raise MalformedRecord(path, str(e)) from None
        prov = d.get("provenance") or []
        if not isinstance(prov, list) or not all(isinstance(p, str) for p in prov):
            raise MalformedRecord(path, "provenance is not a list of ids")
        for f in ("source", "created", "expires", "supersedes", "abstract"):
            if d.get(f) is not None and not isinstance(d[f], str):
                raise MalformedRecord(path, f"field {f!r} is not a string")
        for f in ("created", "expires"):
            if d.get(f) and parse_time(d[f]) is None:
                raise MalformedRecord(path, f"{f} {d[f][:40]!r} is not an ISO-8601 time (e.g. 2026-08-22T19:44:02Z)")
        conf = d.get("confidence", 1)
        if not isinstance(conf, (int, float)) or isinstance(conf, bool) or not _finite(conf):
            raise MalformedRecord(path, "confidence is not a number")
        return cls(
            id=d["id"], type=d["type"], key=d["key"], profile=d["profile"], body=d["body"], tags=tags,
            source=d.get("source") or "", created=d.get("created") or "", confidence=conf,
            provenance=list(prov), expires=d.get("expires"), supersedes=d.get("supersedes"),
            abstract=d.get("abstract") or None, extra={k: v for k, v in d.items() if k not in _KNOWN},
        )

    @classmethod
    def from_bytes(cls, data: bytes, path: str) -> "Record":
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError:
            raise MalformedRecord(path, "not UTF-8 text") from None
        try:
            parsed = json.loads(text)
        except (json.JSONDecodeError, RecursionError) as e:
            raise MalformedRecord(path, f"invalid JSON ({getattr(e, 'msg', 'too deeply nested')})") from None
        except ValueError:  # a number past Python's digit limit for int()
            raise MalformedRecord(path, "invalid JSON (a number is too long to read)") from None
        return cls.from_dict(parsed, path)


def _finite(x: int | float) -> bool:
    try:
        return math.isfinite(x)
    except OverflowError:  # an integer too large for a float
        return False


def validate_new(body: object, type: str, key: str | None, profile: str) -> tuple[str, str, str]:
    """Check what a caller asks to remember (``body`` as given, of any type); returns (body, type, key) cleaned."""
    if not isinstance(body, str) or not body.strip():
        raise InvalidInput("Nothing to remember: the body is empty.")
    body = body.strip()
    if len(body) > MAX_BODY_CHARS:
        raise InvalidInput(f"The body has {len(body)} characters; a record holds at most {MAX_BODY_CHARS} "
                           "(keep long documents in knowledge/ pages).")
    if "\x00" in body:
        raise InvalidInput("The body contains a NUL byte.")
    if type not in RECORD_TYPES:
        raise InvalidInput(f"Unknown type {type!r}; use one of {', '.join(RECORD_TYPES)}.")
    if not isinstance(profile, str) or not PROFILE_RE.match(profile):
        raise InvalidInput(f"The profile {profile!r} is not a simple lowercase name (letters, digits, - and _).")
    if key is None or key == "":
        key = slugify(body)
    elif not isinstance(key, str) or not KEY_RE.match(key):
        raise InvalidInput(f"The key {key!r} is not a kebab-case slug (lowercase letters, digits and -, "
                           "at most 80 characters).")
    return body, type, key
