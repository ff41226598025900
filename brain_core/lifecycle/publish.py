"""``aida brain publish``: accepted L3 pages promoted into ``wiki/`` (L4).

The wiki is the brain's readable face: pages a person chose to stand behind, in a folder any
Markdown viewer (or a git host) renders, with ``wiki/index.md`` listing them. A page is published
when its front matter says ``status: accepted`` (``aida brain cluster --accept`` sets it; a person
can set it on any page in ``knowledge/``). ``wiki/<slug>.md`` is the page's body under a short
front matter naming where it came from; links keep working because ``wiki/`` sits at the same depth
as ``knowledge/``. Publishing again rewrites only pages whose source changed; a page whose source
is no longer accepted keeps its wiki copy (unpublishing is deleting a file by hand, on purpose).
"""

from __future__ import annotations

import os
from dataclasses import dataclass

from brain_core.errors import InvalidInput
from brain_core.lifecycle.common import md_link, render_page, split_front_matter, write_files

PUBLISHABLE = ("accepted", "published")


@dataclass(frozen=True)
class PublishReport:
    dry_run: bool
    pages: tuple[tuple[str, str], ...]   # (knowledge path, wiki path)
    written: tuple[str, ...]

    def to_json(self) -> dict:
        return {"dry_run": self.dry_run, "pages": [{"from": a, "to": b} for a, b in self.pages],
                "written": list(self.written)}


def accepted_pages(brain) -> list[tuple[str, dict, str]]:
    out: list[tuple[str, dict, str]] = []
    try:
        names = sorted(os.listdir(brain.root / "knowledge"))
    except FileNotFoundError:
        return out
    for name in names:
        if not name.endswith(".md") or name.startswith("."):
            continue
        rel = f"knowledge/{name}"
        text = brain.read_text(rel)
        if text is None:
            continue
        meta, body = split_front_matter(text)
        if str(meta.get("status", "")).lower() in PUBLISHABLE:
            out.append((rel, meta, body))
    return out


def publish(brain, slugs: list[str] | None = None, *, dry_run: bool = False) -> PublishReport:
    from brain_core.config.machine import require_writer

    if not dry_run:
        require_writer(brain.config, "publish pages")
    pages = accepted_pages(brain)
    if slugs:
        wanted = set(slugs)
        known = {rel[len("knowledge/"):-3] for rel, _, _ in pages}
        missing = sorted(wanted - known)
        if missing:
            raise InvalidInput(f"No accepted page named {', '.join(missing)} in knowledge/; accept it first "
                               "(`aida brain cluster --accept SLUG`, or set `status: accepted` in its front matter).")
        pages = [p for p in pages if p[0][len("knowledge/"):-3] in wanted]
    files: dict[str, str] = {}
    done = []
    for rel, meta, body in pages:
        slug = rel[len("knowledge/"):-3]
        title = str(meta.get("title") or slug.replace("-", " ").capitalize())
        wiki_meta = {"title": title, "status": "published", "published_from": rel}
        if meta.get("tags"):
            wiki_meta["tags"] = meta["tags"]
        files[f"wiki/{slug}.md"] = render_page(wiki_meta, body)
        done.append((rel, f"wiki/{slug}.md"))
    if not files:
        return PublishReport(dry_run, (), ())
    files["wiki/index.md"] = _index(brain, files)
    if dry_run:
        written = tuple(r for r, t in files.items() if brain.read_text(r) != t)
    else:
        written = tuple(write_files(brain, files, f"publish: {len(done)} page(s) into wiki/"))
    return PublishReport(dry_run, tuple(done), written)


def _index(brain, new: dict[str, str]) -> str:
    """``wiki/index.md``: every page in ``wiki/`` (old and new), by title."""
    entries = {}
    for name in sorted(os.listdir(brain.root / "wiki")) if (brain.root / "wiki").is_dir() else []:
        if name.endswith(".md") and name != "index.md":
            entries[f"wiki/{name}"] = brain.read_text(f"wiki/{name}") or ""
    entries.update({k: v for k, v in new.items() if k != "wiki/index.md"})
    lines = ["# Wiki", "", "Pages published from the brain's curated knowledge (`aida brain publish`).", ""]
    titled = sorted((str(split_front_matter(text)[0].get("title") or rel[5:-3]), rel) for rel, text in entries.items())
    for title, rel in sorted(titled, key=lambda t: t[0].lower()):
        lines.append(f"- {md_link(title, rel[len('wiki/'):])}")
    return "\n".join(lines) + "\n"
