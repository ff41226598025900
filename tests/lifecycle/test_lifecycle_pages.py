"""Curated pages: lessons compiled into knowledge/, clusters proposed and accepted, accepted pages
published into wiki/. Real lessons (runs + feedback), real files, real git."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from brain_core.answer import lessons, runs
from brain_core.cli import main
from brain_core.errors import InvalidInput
from brain_core.lifecycle import cluster
from brain_core.lifecycle.common import split_front_matter
from brain_core.lifecycle.compile import compile_lessons
from brain_core.lifecycle.publish import publish
from tests.helpers.fake_llm_server import FakeLLMServer
from tests.helpers.keyring_memory import memory_keyring  # noqa: F401  (fixture)

LINK = re.compile(r"\]\(<?([^)>]+)>?\)")


def _links_resolve(brain, rel):
    page = brain.root / rel
    targets = LINK.findall(page.read_text())
    assert targets
    for t in targets:
        assert (page.parent / t).resolve().is_file(), f"{rel} links to missing {t}"
    return targets


def _feedback(brain, question, verdict, why=None, consulted=()):
    run_id = runs.new_run_id()
    runs.save(brain.root, {"id": run_id, "question": question, "answer": "an answer",
                           "consulted": [dict(c, cited=True) for c in consulted]})
    return lessons.record_feedback(brain, run_id, verdict, why=why), run_id


def _retry_lessons(brain):
    rec = brain.remember("Webhook delivery retries are capped at six attempts.", key="webhook-retry-policy",
                         profile="codex")
    about = [{"id": rec.id, "key": rec.key, "path": "memories/codex/webhook-retry-policy.json"}]
    a, run_a = _feedback(brain, "why is the webhook retry cap six", "down", why="The cap changed to eight in March.",
                         consulted=about)
    b, _ = _feedback(brain, "how many times are webhooks retried", "up", consulted=about)
    c, _ = _feedback(brain, "what is the retry limit for webhooks", "down", why="The cap changed to eight in March.",
                     consulted=about)
    return rec, [a, b, c], run_a


def test_compile_lessons_into_a_page(brain):
    rec, written, run_a = _retry_lessons(brain)
    _feedback(brain, "a lone question about lunch", "up")  # one lesson on its topic: waits for more
    dry = compile_lessons(brain, dry_run=True)
    assert dry.written == ("knowledge/webhook-retry-policy.md",) and not (brain.root / dry.written[0]).exists()
    report = compile_lessons(brain)
    assert report.pages == (("knowledge/webhook-retry-policy.md", 3),) and report.waiting == 1
    text = (brain.root / "knowledge/webhook-retry-policy.md").read_text()
    meta, body = split_front_matter(text)
    assert meta["status"] == "compiled" and meta["generated_by"] == "aida brain compile"
    assert sorted(meta["lessons"]) == sorted(r.id for r in written)
    assert "## Answers that went wrong" in body and "## Answers that helped" in body
    assert body.count("The cap changed to eight in March.") == 3  # twice as a why, once as a correction
    targets = _links_resolve(brain, "knowledge/webhook-retry-policy.md")
    assert "../memories/codex/webhook-retry-policy.json" in targets
    assert sum(t.startswith("../lessons/") for t in targets) == 3
    # the page is on the knowledge shelf: recall finds it
    assert any(h.path == "knowledge/webhook-retry-policy.md" for h in brain.recall("webhook retry cap lessons", k=5))
    # nothing new: nothing written, no commit
    head = brain.head()
    assert compile_lessons(brain).written == () and brain.head() == head
    # feedback given again on the same run replaces the earlier lesson on the page
    lessons.record_feedback(brain, run_a, "up")
    compile_lessons(brain)
    meta, body = split_front_matter((brain.root / "knowledge/webhook-retry-policy.md").read_text())
    assert len(meta["lessons"]) == 3 and written[0].id not in meta["lessons"]


def test_compile_never_overwrites_a_hand_written_page(brain):
    _retry_lessons(brain)
    (brain.root / "knowledge/webhook-retry-policy.md").write_text("# My own notes\n\nDo not touch.\n")
    report = compile_lessons(brain)
    assert report.written == ("knowledge/webhook-retry-policy-lessons.md",)
    assert (brain.root / "knowledge/webhook-retry-policy.md").read_text() == "# My own notes\n\nDo not touch.\n"


def test_loose_lessons_cluster_by_question(brain):
    _feedback(brain, "how do I rotate the API key for billing", "down", why="Use the vault, not the env file.")
    _feedback(brain, "how to rotate the billing API key", "down", why="Use the vault, not the env file.")
    report = compile_lessons(brain)
    (page, n), = report.pages
    assert n == 2 and page == "knowledge/rotate-api-billing.md"
    meta, _ = split_front_matter((brain.root / page).read_text())
    assert meta["title"] == "Rotate api billing"


WEBHOOKS = ["Webhook delivery retries with exponential backoff.",
            "Webhooks are signed with an HMAC secret that rotates monthly.",
            "Failed webhook deliveries land in a dead-letter queue after six attempts."]
COFFEE = ["The office coffee machine is descaled every Friday.",
          "Oat milk for the coffee machine is in the left fridge.",
          "The coffee machine on floor two takes only pods."]


def _seed_clusters(brain):
    for i, body in enumerate(WEBHOOKS):
        brain.remember(body, key=f"webhook-{i}", profile="codex")
    for i, body in enumerate(COFFEE):
        brain.remember(body, key=f"coffee-{i}")
    brain.remember("Quarterly taxes are due on the 15th.", key="taxes")


def test_cluster_proposes_accept_and_reject(brain):
    _seed_clusters(brain)
    brain.config.set("cluster.similarity", 0.45)
    found = cluster.write_proposals(brain)
    groups = sorted(sorted(d.record.key for d in p.members) for p in found)
    assert groups == [["coffee-0", "coffee-1", "coffee-2"], ["webhook-0", "webhook-1", "webhook-2"]]
    by_topic = {("coffee" if "coffee" in p.members[0].record.key else "webhook"): p for p in found}
    assert "coffee" in by_topic["coffee"].title.lower() and "webhook" in by_topic["webhook"].title.lower()
    for p in found:
        meta, _ = split_front_matter((brain.root / p.path).read_text())
        assert meta["status"] == "proposed" and len(meta["sources"]) == 3
        _links_resolve(brain, p.path)
    # proposals are not on the shelf: recall and INDEX.md ignore them
    assert not any(h.path.startswith("knowledge/") for h in brain.recall("coffee machine", k=10))
    assert cluster.write_proposals(brain) == []  # covered records are not proposed twice

    slug = by_topic["webhook"].slug
    dst = cluster.accept(brain, slug)
    assert dst == f"knowledge/{slug}.md" and not (brain.root / by_topic["webhook"].path).exists()
    assert split_front_matter((brain.root / dst).read_text())[0]["status"] == "accepted"
    _links_resolve(brain, dst)
    assert any(h.path == dst for h in brain.recall("webhook delivery retries signing dead letter", k=5))
    rejected = cluster.reject(brain, by_topic["coffee"].slug)
    assert rejected.startswith("archive/proposals/")
    assert cluster.write_proposals(brain) == []  # a rejected cluster is not proposed again
    assert brain.git.uncommitted(["knowledge", "archive"]) == []
    with pytest.raises(InvalidInput):
        cluster.accept(brain, "../../etc/passwd")
    with pytest.raises(InvalidInput):
        cluster.accept(brain, "no-such-proposal")


def test_cluster_titles_by_llm(brain, memory_keyring):
    _seed_clusters(brain)
    brain.config.set("cluster.similarity", 0.45)
    with FakeLLMServer(answer='{"title": "Webhook delivery and signing"}') as s:
        brain.config.set("llm.provider", "openai-compatible")
        brain.config.set("llm.base_url", s.url + "/v1")
        brain.config.set("llm.retries", 0)
        s.script = ["ok", "500"]  # the second title falls back to the common words
        found = cluster.write_proposals(brain, dry_run=True)
    titles = sorted(p.title for p in found)
    assert "Webhook delivery and signing" in titles and len(titles) == 2
    assert not list((brain.root / "knowledge").glob("proposals/*.md"))  # dry run


def test_publish_accepted_pages_into_wiki(brain, monkeypatch, capsys):
    _seed_clusters(brain)
    brain.config.set("cluster.similarity", 0.45)
    found = cluster.write_proposals(brain)
    slug = next(p.slug for p in found if "webhook" in p.members[0].record.key)
    assert publish(brain).pages == ()  # nothing accepted yet
    cluster.accept(brain, slug)
    (brain.root / "knowledge/handbook.md").write_text("---\ntitle: Handbook\nstatus: accepted\n---\n\nBe kind.\n")
    report = publish(brain)
    assert sorted(report.pages) == [("knowledge/handbook.md", "wiki/handbook.md"),
                                    (f"knowledge/{slug}.md", f"wiki/{slug}.md")]
    meta, _ = split_front_matter((brain.root / f"wiki/{slug}.md").read_text())
    assert meta["status"] == "published" and meta["published_from"] == f"knowledge/{slug}.md"
    _links_resolve(brain, f"wiki/{slug}.md")
    index = _links_resolve(brain, "wiki/index.md")
    assert sorted(index) == sorted(["handbook.md", f"{slug}.md"])
    head = brain.head()
    assert publish(brain).written == () and brain.head() == head
    with pytest.raises(InvalidInput):
        publish(brain, ["not-accepted"])
    monkeypatch.setenv("AIDA_BRAIN", str(brain.root))
    assert main(["brain", "publish", "--dry-run", "handbook"]) == 0
    assert "knowledge/handbook.md -> wiki/handbook.md (unchanged)" in capsys.readouterr().out


def test_pages_cli(brain, monkeypatch, capsys):
    _retry_lessons(brain)
    _seed_clusters(brain)
    brain.config.set("cluster.similarity", 0.45)
    brain.config.save()
    monkeypatch.setenv("AIDA_BRAIN", str(brain.root))
    assert main(["brain", "compile", "--dry-run"]) == 0
    assert "knowledge/webhook-retry-policy.md: 3 lessons (would change)" in capsys.readouterr().out
    assert main(["brain", "compile"]) == 0
    assert main(["brain", "cluster", "--json"]) == 0
    out = capsys.readouterr().out
    slug = re.search(r'"slug": "([^"]+)"', out).group(1)
    assert main(["brain", "cluster", "--accept", slug]) == 0
    assert f"Accepted: knowledge/{slug}.md" in capsys.readouterr().out
    assert Path(brain.root / f"knowledge/{slug}.md").exists()
