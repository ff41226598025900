"""The mirror: CLAUDE.md files, Claude auto memory front matter, Gemini memory files -> records."""

from __future__ import annotations

import json
import shutil

from brain_core.harvest.mirror import claude_topic, front_matter, known_projects, mirror
from brain_core.harvest.run import sweep
from tests.helpers.harvest_homes import FIXTURES, PLANTED_SECRETS, make_homes


def _project(tmp_path, roots):
    """A project folder with the instruction files, named by a Claude transcript's cwd."""
    proj = tmp_path / "work" / "acme-billing"
    (proj / ".claude" / "rules").mkdir(parents=True)
    shutil.copy(FIXTURES / "claude_CLAUDE.md", proj / "CLAUDE.md")
    shutil.copy(FIXTURES / "claude_CLAUDE.local.md", proj / "CLAUDE.local.md")
    (proj / ".claude" / "rules" / "testing.md").write_text("---\npaths: ['tests/**']\n---\nAlways use pytest fixtures.\n")
    (proj / "GEMINI.md").write_text("# acme-billing\n\nUse British English in user-facing strings.\n")
    transcript = next((roots["claude"] / "projects").glob("*/*.jsonl"))
    transcript.write_text(transcript.read_text().replace('"cwd":"/home/dev/acme-billing"', f'"cwd":"{proj}"'))
    (roots["claude"] / "CLAUDE.md").write_text("Answer tersely. Prefer uv over pip.\n")
    return proj


def test_known_projects_come_from_transcripts_and_the_gemini_registry(tmp_path):
    roots = make_homes(tmp_path / "home")
    proj = _project(tmp_path, roots)
    other = tmp_path / "work" / "ledger"
    other.mkdir()
    (roots["gemini"] / "projects.json").write_text(json.dumps({"projects": {str(other): "ledger", "/gone": "gone"}}))
    assert sorted(known_projects(roots["claude"], roots["gemini"])) == sorted([proj, other])


def test_mirror_records_for_every_kind_of_file(tmp_path):
    roots = make_homes(tmp_path / "home")
    proj = _project(tmp_path, roots)
    recs = {r["key"]: r for r in mirror(claude_root=roots["claude"], gemini_root=roots["gemini"])}
    user = recs["user-claude-md"]
    assert user["type"] == "instruction" and user["tags"] == [] and "Prefer uv" in user["body"]
    assert recs["acme-billing-claude-md"]["source"] == f"claude:memory:{proj / 'CLAUDE.md'}"
    assert recs["acme-billing-claude-md"]["tags"] == ["project:acme-billing"]
    assert "sk_live_" in recs["acme-billing-claude-local-md"]["body"]  # masked by the write path, see below
    rule = recs["acme-billing-rules-testing"]
    assert rule["body"] == "Always use pytest fixtures."  # front matter stripped
    assert recs["acme-billing-gemini-md"]["profile"] == "gemini"
    assert recs["acme-billing-private-memory"]["type"] == "note"
    glob_ = recs["user-global"]
    assert "Prefer pytest" in glob_["body"] and "Gemini Added Memories" not in glob_["body"]
    facts = [r for r in recs.values() if "gemini-memory" in r["tags"]]
    assert len(facts) == 3 and all(r["type"] == "fact" for r in facts)


def test_mirror_through_a_sweep_masks_secrets(brain, tmp_path):
    roots = make_homes(tmp_path / "home")
    _project(tmp_path, roots)
    r = sweep(brain, sources=("claude", "gemini"), roots=roots, clock=lambda: 0.0)  # sessions are all "active"
    mirror_out = r.outcomes[-1]
    assert mirror_out.tool == "mirror" and mirror_out.redactions.get("stripe-key") == 1
    local = json.loads((brain.root / "memories/claude/acme-billing-claude-local-md.json").read_text())
    assert "[REDACTED:stripe-key]" in local["body"]
    text = "\n".join(p.read_text() for p in brain.root.rglob("*.json"))
    assert not any(s in text for s in PLANTED_SECRETS)


def test_claude_topic_front_matter_variants(tmp_path):
    old = tmp_path / "old.md"
    old.write_text("---\nname: Webhook retries\ntype: feedback\ndescription: keep it\n---\nNever retry more than six times.\n")
    rec = claude_topic(old, "acme")
    assert rec["type"] == "instruction" and rec["key"] == "acme-webhook-retries"
    assert rec["body"] == "keep it\n\nNever retry more than six times."
    broken = tmp_path / "broken.md"
    broken.write_text("---\nname: [unclosed\n---\nA fact.\n")
    rec = claude_topic(broken, None)
    assert rec["type"] == "fact" and rec["key"] == "broken" and "A fact." in rec["body"]
    assert front_matter("no front matter") == ({}, "no front matter")
