"""``aida brain cluster``: L3 pages proposed from clusters of L2 records, for the user to accept.

Records on ``memories/`` and ``events/`` are clustered by meaning (their catalog vectors; greedy
centroid clustering at cosine >= ``cluster.similarity``, 0.6, then one reassignment pass, keeping
clusters of at least ``cluster.min_size``, 3). Each cluster is titled by the words its records
share, or by the LLM when one is configured (falling back to the words when it fails), and is
written as a **proposal**: ``knowledge/proposals/<slug>.md`` with ``status: proposed`` in its front
matter and a line per record linking to it. Proposals sit one folder below the knowledge shelf,
so recall and INDEX.md ignore them until accepted.

The user reads and edits a proposal, then:

- ``aida brain cluster --accept SLUG`` moves it to ``knowledge/<slug>.md`` with
  ``status: accepted`` (recall finds it from then on; ``aida brain publish`` can promote it);
- ``aida brain cluster --reject SLUG`` moves it to ``archive/proposals/<slug>.md`` with
  ``status: rejected``.

A record listed in the ``sources`` of any page (proposed, accepted or rejected) is not clustered
again, so a rejected proposal is not proposed twice.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass

import numpy as np

from brain_core.errors import InvalidInput, ProviderError
from brain_core.lifecycle.common import (
    first_sentence,
    load_docs,
    md_link,
    render_page,
    split_front_matter,
    vectors,
    write_files,
)
from brain_core.lifecycle.compile import common_title
from brain_core.records import now_iso
from brain_core.store.shelves import Doc
from brain_core.text.slug import slugify

PROPOSALS = "knowledge/proposals"
REJECTED = "archive/proposals"
DEFAULT_SIMILARITY = 0.6
DEFAULT_MIN_SIZE = 3


@dataclass(frozen=True)
class Proposal:
    slug: str
    title: str
    members: tuple[Doc, ...]

    @property
    def path(self) -> str:
        return f"{PROPOSALS}/{self.slug}.md"


def covered(brain) -> set[str]:
    """Paths already listed as ``sources`` by a page (proposed, accepted or rejected)."""
    out: set[str] = set()
    for folder in ("knowledge", PROPOSALS, REJECTED):
        try:
            names = os.listdir(brain.root / folder)
        except FileNotFoundError:
            continue
        for name in names:
            if not name.endswith(".md"):
                continue
            try:
                meta, _ = split_front_matter((brain.root / folder / name).read_text(encoding="utf-8"))
            except (OSError, UnicodeDecodeError):
                continue
            out |= {str(s) for s in meta.get("sources") or () if isinstance(s, str)}
    return out


def clusters(vecs: np.ndarray, threshold: float, min_size: int) -> list[list[int]]:
    """Greedy centroid clustering, then each item moves to its best centroid (deterministic)."""
    if len(vecs) == 0:
        return []
    sums = np.zeros_like(vecs, dtype=np.float32)
    cents = np.zeros_like(vecs, dtype=np.float32)
    k = 0
    for v in vecs:
        if k:
            sims = cents[:k] @ v
            best = int(np.argmax(sims))
            if sims[best] >= threshold:
                sums[best] += v
                cents[best] = sums[best] / max(float(np.linalg.norm(sums[best])), 1e-12)
                continue
        sums[k] = v
        cents[k] = v / max(float(np.linalg.norm(v)), 1e-12)
        k += 1
    groups: dict[int, list[int]] = {}
    for start in range(0, len(vecs), 1024):
        sims = vecs[start:start + 1024] @ cents[:k].T
        best = np.argmax(sims, axis=1)
        for r, b in enumerate(best):
            if sims[r, b] >= threshold:
                groups.setdefault(int(b), []).append(start + r)
    return sorted((g for g in groups.values() if len(g) >= min_size), key=lambda g: (-len(g), g[0]))


def title_for(brain, members: list[Doc], llm=None) -> str:
    fallback = common_title([f"{d.record.key.replace('-', ' ')} {d.record.body}" for d in members]) or "Related notes"
    if llm is None:
        return fallback
    listing = "\n".join(f"- {first_sentence(d.record.body, 200)}" for d in members[:20])
    try:
        answer = llm.complete("You title a page that gathers related notes. Answer JSON only: {\"title\": \"...\"} "
                              "with at most six words, no quotes or punctuation at the end.", listing, json=True,
                              max_tokens=60)
        title = json.loads(answer).get("title")
    except (ProviderError, ValueError, AttributeError):
        return fallback
    title = " ".join(str(title or "").split()).strip(" .\"'")
    return title[:80] if title and slugify(title) != "note" else fallback


def propose(brain) -> list[Proposal]:
    """The clusters worth a page, with titles and free slugs; writes nothing."""
    threshold = float(brain.config.get("cluster.similarity", DEFAULT_SIMILARITY))
    min_size = int(brain.config.get("cluster.min_size", DEFAULT_MIN_SIZE))
    done = covered(brain)
    docs = [d for d in load_docs(brain, ("memories", "events")) if d.path not in done]
    if len(docs) < min_size:
        return []
    llm = None
    if brain.config.get("cluster.llm_titles", True):
        from brain_core.llm import make_provider

        try:
            llm = make_provider(brain.config)
        except ProviderError:
            llm = None
    taken = {p.stem for folder in ("knowledge", PROPOSALS, REJECTED) for p in (brain.root / folder).glob("*.md")}
    out = []
    for group in clusters(vectors(brain, docs), threshold, min_size):
        members = [docs[i] for i in group]
        title = title_for(brain, members, llm)
        base = slugify(title, max_words=8)
        slug, n = base, 2
        while slug in taken:
            slug, n = f"{base}-{n}", n + 1
        taken.add(slug)
        out.append(Proposal(slug, title, tuple(members)))
    return out


def render(p: Proposal) -> str:
    meta = {"title": p.title, "status": "proposed", "type": "note", "tags": ["cluster"],
            "sources": [d.path for d in p.members], "proposed": now_iso()}
    lines = [f"# {p.title}", "",
             f"Proposed from {len(p.members)} related records by `aida brain cluster`. Edit it freely, then accept "
             f"it with `aida brain cluster --accept {p.slug}` or reject it with `--reject {p.slug}`.", "",
             "## What the records say", ""]
    for d in p.members:
        lines.append(f"- {first_sentence(d.record.body, 160)} ({md_link(d.record.key, '../../' + d.path)})")
    return render_page(meta, "\n".join(lines))


def write_proposals(brain, *, dry_run: bool = False) -> list[Proposal]:
    from brain_core.config.machine import require_writer

    found = propose(brain)
    if not dry_run and found:
        require_writer(brain.config, "write page proposals")
        write_files(brain, {p.path: render(p) for p in found}, f"cluster: {len(found)} page proposal(s)")
    return found


def _relocate(brain, src: str, dst: str, status: str, message: str) -> str:
    """Move a page, set its status and fix its relative links, in one commit."""
    from brain_core.config.machine import require_writer

    require_writer(brain.config, "change page proposals")
    text = brain.read_text(src)
    if text is None:
        raise InvalidInput(f"There is no {src}; run `aida brain cluster` to see the proposals.")
    if (brain.root / dst).exists():
        raise InvalidInput(f"{dst} already exists; rename the proposal's file, then try again.")
    meta, body = split_front_matter(text)
    meta["status"] = status
    meta[status] = now_iso()
    old_up, new_up = "../" * src.count("/"), "../" * dst.count("/")
    body = body.replace("](" + old_up, "](" + new_up).replace("](<" + old_up, "](<" + new_up)
    with brain.writing(message) as tx:  # the one write path: redacted, indexed, one commit
        tx.put(dst, render_page(meta, body))
        tx.delete(src)
    return dst


def _check_slug(slug: str) -> str:
    if not slug or slugify(slug, max_words=40, max_len=120) != slug:
        raise InvalidInput(f"{slug!r} is not a proposal's name; use the slug `aida brain cluster` printed.")
    return slug


def accept(brain, slug: str) -> str:
    slug = _check_slug(slug)
    return _relocate(brain, f"{PROPOSALS}/{slug}.md", f"knowledge/{slug}.md", "accepted", f"cluster: accept {slug}")


def reject(brain, slug: str) -> str:
    slug = _check_slug(slug)
    return _relocate(brain, f"{PROPOSALS}/{slug}.md", f"{REJECTED}/{slug}.md", "rejected", f"cluster: reject {slug}")
