"""``aida brain compile``: the lessons (L1) about a topic, written up as a curated page (L3).

A lesson is a thumbs-up or thumbs-down on an answer (``brain_core.answer.lessons``): its body is the
question, ``extra`` holds the verdict, the user's ``why`` and the records the verdict was about.
Lessons act on later questions one by one; this pass makes what they add up to readable, as
``knowledge/<slug>.md`` with front matter and a link back to every lesson: which questions went
wrong and why, which answers helped, and the corrections to keep in mind.

A lesson's topic is, in order: a ``topic:<name>`` tag, the first record the verdict was about
(its key), or, for lessons about nothing in particular, a cluster of similar questions
(cosine >= ``compile.similarity``, 0.7) titled by their common words. A topic becomes a page once
it has ``compile.min_lessons`` lessons (2). Feedback given twice on one run counts once (the newer).

Pages are regenerated whole from the lessons (front matter ``generated_by: aida brain compile``)
and rewritten only when their text changes. A hand-written page with the same name is never
overwritten: the compiled one is then ``<slug>-lessons.md``. Lessons stay where they are; they
keep acting on questions.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

from brain_core.lifecycle.common import (
    load_docs,
    md_link,
    render_page,
    split_front_matter,
    vectors,
    words,
    write_files,
)
from brain_core.records import Record
from brain_core.store.shelves import Doc
from brain_core.text.slug import slugify

GENERATED_BY = "aida brain compile"
DEFAULT_MIN = 2
DEFAULT_SIMILARITY = 0.7


@dataclass(frozen=True)
class Topic:
    slug: str
    title: str
    lessons: tuple[Doc, ...]
    about: tuple[tuple[str, str], ...]   # (key, path) of the records the lessons were about


@dataclass(frozen=True)
class CompileReport:
    dry_run: bool
    pages: tuple[tuple[str, int], ...]   # (path, lessons)
    written: tuple[str, ...]
    waiting: int                          # lessons on topics below compile.min_lessons

    def to_json(self) -> dict:
        return {"dry_run": self.dry_run, "pages": [{"path": p, "lessons": n} for p, n in self.pages],
                "written": list(self.written), "waiting": self.waiting}


def _newest_per_run(docs: list[Doc]) -> list[Doc]:
    by_run: dict[str, Doc] = {}
    for d in docs:
        run = str(d.record.extra.get("run_id") or d.record.id)
        old = by_run.get(run)
        if old is None or (d.record.created, d.record.id) > (old.record.created, old.record.id):
            by_run[run] = d
    return sorted(by_run.values(), key=lambda d: (d.record.created, d.path))


def _about(r: Record) -> list[tuple[str, str]]:
    out = []
    for item in r.extra.get("records") or ():
        if isinstance(item, dict) and item.get("key"):
            out.append((str(item["key"]), str(item.get("path") or "")))
    return out


def topics(brain) -> tuple[list[Topic], int]:
    """The topics with enough lessons to make a page, and how many lessons wait for more."""
    min_lessons = int(brain.config.get("compile.min_lessons", DEFAULT_MIN))
    threshold = float(brain.config.get("compile.similarity", DEFAULT_SIMILARITY))
    lessons = _newest_per_run([d for d in load_docs(brain, ("lessons",)) if d.record.type == "lesson"])
    groups: dict[str, list[Doc]] = {}
    titles: dict[str, str] = {}
    loose: list[Doc] = []
    for d in lessons:
        tag = next((t.split(":", 1)[1] for t in d.record.tags if t.startswith("topic:") and t[6:].strip()), None)
        about = _about(d.record)
        if tag:
            slug = slugify(tag, max_words=8)
            titles.setdefault(slug, tag.strip())
        elif about:
            slug = about[0][0]
            titles.setdefault(slug, slug.replace("-", " ").capitalize())
        else:
            loose.append(d)
            continue
        groups.setdefault(slug, []).append(d)
    for cluster in _cluster(brain, loose, threshold):
        title = common_title([d.record.body for d in cluster]) or "Questions"
        slug = slugify(title, max_words=8)
        titles.setdefault(slug, title)
        groups.setdefault(slug, []).extend(cluster)
    out, waiting = [], 0
    for slug, docs in sorted(groups.items()):
        if len(docs) < min_lessons:
            waiting += len(docs)
            continue
        about = []
        for d in docs:
            about += [a for a in _about(d.record) if a not in about]
        out.append(Topic(slug, titles[slug], tuple(docs), tuple(about)))
    return out, waiting


def _cluster(brain, docs: list[Doc], threshold: float) -> list[list[Doc]]:
    """Greedy: each question joins the first cluster whose first question is close enough."""
    if not docs:
        return []
    vecs = vectors(brain, docs)
    heads: list[int] = []
    members: dict[int, list[Doc]] = {}
    for i, d in enumerate(docs):
        best = max(heads, key=lambda h: float(vecs[h] @ vecs[i]), default=None)
        if best is not None and float(vecs[best] @ vecs[i]) >= threshold:
            members[best].append(d)
        else:
            heads.append(i)
            members[i] = [d]
    return [members[h] for h in heads]


def common_title(texts: list[str], n: int = 3) -> str:
    """The words most of ``texts`` share (ties: the earlier in the texts), in reading order."""
    df: Counter = Counter()
    total: Counter = Counter()
    first: dict[str, int] = {}
    for t in texts:
        ws = words(t)
        total.update(ws)
        df.update(set(ws))
        for i, w in enumerate(ws):
            first[w] = min(first.get(w, i), i)
    need = 2 if len(texts) > 1 else 1
    ranked = sorted((w for w in df if df[w] >= need), key=lambda w: (-df[w], -total[w], first[w], w))[:n]
    return " ".join(sorted(ranked, key=lambda w: first[w])).capitalize()


def render(topic: Topic, page_path: str) -> str:
    up = "../" * page_path.count("/")
    down = [d for d in topic.lessons if d.record.extra.get("verdict") == "down"]
    ups = [d for d in topic.lessons if d.record.extra.get("verdict") == "up"]
    other = [d for d in topic.lessons if d not in down and d not in ups]
    lines = [f"# {topic.title}", "",
             f"What feedback on answers taught about this topic ({len(topic.lessons)} lessons). Regenerated by "
             "`aida brain compile`; give feedback or edit the lessons, not this page.", ""]
    if topic.about:
        lines += ["## The records the feedback was about", ""]
        lines += [f"- {md_link(k, up + p) if p else k}" for k, p in topic.about] + [""]

    def item(d: Doc) -> str:
        r = d.record
        why = str(r.extra.get("why") or "").strip()
        blamed = ", ".join(md_link(k, up + p) if p else k for k, p in _about(r))
        text = f"- **{' '.join(r.body.split())}**"
        if why:
            text += f": {why}"
        if blamed:
            text += f" (about {blamed})"
        return text + f" — {md_link('lesson', up + d.path)}, {r.created[:10] or 'undated'}"

    sections = (("## Answers that went wrong", down), ("## Answers that helped", ups), ("## Other feedback", other))
    for heading, docs in sections:
        if docs:
            lines += [heading, ""] + [item(d) for d in docs] + [""]
    fixes = []
    for d in down:
        why = " ".join(str(d.record.extra.get("why") or "").split())
        if why and why not in fixes:
            fixes.append(why)
    if fixes:
        lines += ["## Corrections to keep in mind", ""] + [f"- {f}" for f in fixes] + [""]
    meta = {"title": topic.title, "type": "note", "status": "compiled", "generated_by": GENERATED_BY,
            "tags": ["lessons"], "lessons": [d.record.id for d in topic.lessons],
            "created": max(d.record.created for d in topic.lessons)}
    return render_page(meta, "\n".join(lines))


def page_path(brain, slug: str) -> str:
    rel = f"knowledge/{slug}.md"
    text = brain.read_text(rel)
    if text is None or split_front_matter(text)[0].get("generated_by") == GENERATED_BY:
        return rel
    return f"knowledge/{slug}-lessons.md"


def compile_lessons(brain, *, dry_run: bool = False) -> CompileReport:
    from brain_core.config.machine import require_writer

    if not dry_run:
        require_writer(brain.config, "compile pages")
    found, waiting = topics(brain)
    files = {}
    for t in found:
        rel = page_path(brain, t.slug)
        files[rel] = render(t, rel)
    pages = tuple((rel, len(t.lessons)) for rel, t in zip(files, found))
    if dry_run:
        written = tuple(rel for rel, text in files.items() if brain.read_text(rel) != text)
    else:
        written = tuple(write_files(brain, files, f"compile: {len(files)} page(s) from lessons"))
    return CompileReport(dry_run, pages, written, waiting)
