"""Keys and file names made from text: lowercase ASCII words joined by dashes."""

from __future__ import annotations

import re
import unicodedata

from brain_core.text.stopwords import KEY_FILLER


def slugify(text: str, max_words: int = 6, max_len: int = 60) -> str:
    """A kebab-case key from free text: significant words, ASCII, at most ``max_len`` chars."""
    ascii_text = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode().lower()
    words = re.findall(r"[a-z0-9]+", ascii_text)
    keep = [w for w in words if w not in KEY_FILLER] or words
    slug = "-".join(keep[:max_words])[:max_len].strip("-")
    return slug or "note"


def kebab(text: str, limit: int) -> str:
    """``text`` lowercased with every run of other characters than a-z and 0-9 turned into one dash,
    at most ``limit`` characters, no dash at either end ("" when nothing is left)."""
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")[:limit].rstrip("-")


def project_tag(name: str) -> str:
    """The tag that files a record under a project ("project:billing-api"): the same from a memory
    file's mirror and from a session's distiller."""
    return "project:" + (kebab(name, 40) or "unknown")
