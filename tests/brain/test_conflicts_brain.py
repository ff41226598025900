"""Contradictions kept and shown, in real brains: lint lists them, consolidate merges neither and
says which one stands, --keep chooses, the answers (offline, the LLM's prompt, MCP recall) say that
two records disagree with the standing one first; and --split undoes what earlier versions folded."""

from __future__ import annotations

import json
import subprocess

import pytest

from brain_core.agents.mcp_server import BrainTools
from brain_core.answer.ask import ask
from brain_core.brain.conflicts import find_conflicts, wrong_folds
from brain_core.brain.dedupe import Linker
from brain_core.cli import main
from brain_core.lifecycle.lint import lint
from tests.helpers.fake_llm_server import FakeLLMServer
from tests.helpers.keyring_memory import memory_keyring  # noqa: F401 - a fixture

REDIS = "Use Redis for the session cache, not Memcached."
MEMCACHED = "Use Memcached for the session cache, not Redis."
QUESTION = "which cache do we use for sessions?"
LINE = "Two of your records disagree: Codex (June): Memcached; Claude (March): Redis."


def _commits(brain) -> int:
    return int(subprocess.run(["git", "rev-list", "--count", "HEAD"], cwd=brain.root, capture_output=True,
                              text=True).stdout)


def _cache(brain, newer_first: bool = False):
    writes = [("claude", REDIS, "2026-03-10T09:00:00Z", "claude:session:s1"),
              ("codex", MEMCACHED, "2026-06-12T15:00:00Z", "codex:session:s2")]
    for profile, body, created, source in (writes[::-1] if newer_first else writes):
        brain.remember(body, key="cache", profile=profile, created=created, source=source)


@pytest.mark.parametrize("newer_first", [False, True], ids=["older written first", "newer written first"])
def test_the_answer_says_two_records_disagree_and_leads_with_the_newer(brain, newer_first):
    _cache(brain, newer_first)
    assert (brain.root / "memories/claude/cache.json").is_file() and (brain.root / "memories/codex/cache.json").is_file()
    text = ask(brain, QUESTION, llm=None).text
    assert LINE in text
    memc, redis = text.index("- Use Memcached"), text.index("- Use Redis")
    assert text.index(LINE) < memc < redis  # the newer statement leads, the older is named superseded
    assert "superseded by Codex's record of June, newer" in text.splitlines()[-1]
    assert "also" not in text  # never presented as corroboration


def test_a_later_restatement_with_a_change_by_another_agent_supersedes_in_the_answer(brain):
    """Another key and another profile: the same subject, restated later with another number."""
    brain.remember("The session timeout is 30 minutes for the admin console.", key="admin-timeout", profile="claude",
                   created="2026-03-02T10:00:00Z", source="claude:session:a")
    brain.remember("The session timeout is 45 minutes for the admin console.", key="console-session",
                   profile="gemini", created="2026-07-20T10:00:00Z", source="gemini:session:b")
    assert len(list((brain.root / "memories").rglob("*.json"))) == 2
    text = ask(brain, "what is the session timeout for the admin console?", llm=None).text
    assert "Two of your records disagree: Gemini (July): " in text and "; Claude (March): " in text
    assert text.index("45 minutes") < text.index("30 minutes")
    assert "superseded by Gemini's record of July" in text


def test_lint_lists_the_conflict_and_consolidate_merges_neither(brain, capsys):
    _cache(brain)
    notices: list = []
    assert lint(brain, notices) == []
    (note,) = [n for n in notices if "disagrees with" in n.message]
    assert note.path == "memories/claude/cache.json" and "memories/codex/cache.json stands (the newer)" in note.message
    before = _commits(brain)
    assert main(["--brain", str(brain.root), "brain", "consolidate"]) == 0
    out = capsys.readouterr().out
    assert "[conflict] memories/codex/cache.json stands over memories/claude/cache.json (the newer)" in out
    assert "1 pair(s) of records that disagree, kept apart." in out
    assert _commits(brain) == before  # nothing merged, nothing moved
    assert brain.get("memories/claude/cache.json").body == REDIS and brain.get("memories/codex/cache.json").body == MEMCACHED
    assert main(["--brain", str(brain.root), "brain", "lint"]) == 0
    assert "1 pair(s) of records that disagree, not counted as problems." in capsys.readouterr().out


def test_consolidate_keep_lets_the_user_choose_which_one_stands(brain, capsys):
    _cache(brain)
    before = _commits(brain)
    assert main(["--brain", str(brain.root), "brain", "consolidate", "--keep", "memories/claude/cache.json"]) == 0
    assert "stands over memories/codex/cache.json; both records stay" in capsys.readouterr().out
    assert _commits(brain) == before + 1
    kept = brain.get("memories/claude/cache.json")
    assert kept.body == REDIS and kept.created == "2026-03-10T09:00:00Z"  # its words and date unchanged
    assert brain.get("memories/codex/cache.json").body == MEMCACHED
    (c,) = find_conflicts(brain)
    assert c.chosen and c.sides[0].path == "memories/claude/cache.json"
    text = ask(brain, QUESTION, llm=None).text
    assert "Two of your records disagree: Claude (March): Redis; Codex (June): Memcached." in text
    assert text.index("- Use Redis") < text.index("- Use Memcached") and "your choice" in text
    # and back: the choice the other way round replaces the first one
    assert main(["--brain", str(brain.root), "brain", "consolidate", "--keep", "memories/codex/cache.json"]) == 0
    (c,) = find_conflicts(brain)
    assert c.chosen and c.sides[0].path == "memories/codex/cache.json"
    assert "chosen_over" not in brain.get("memories/claude/cache.json").extra


def test_mcp_recall_and_the_llm_prompt_say_which_record_stands(brain, memory_keyring):  # noqa: F811
    _cache(brain)
    hits = BrainTools(brain).recall(QUESTION)
    by = {h["path"]: h for h in hits}
    claude, codex = by["memories/claude/cache.json"], by["memories/codex/cache.json"]
    assert [h["path"] for h in hits].index(codex["path"]) < [h["path"] for h in hits].index(claude["path"])
    (d,) = claude["disagrees"]
    assert d["path"] == codex["path"] and d["stands"] and d["body"] == MEMCACHED
    assert codex["disagrees"][0]["stands"] is False
    with FakeLLMServer(answer="Memcached [cache, 2026-06-12].") as server:
        brain.config.set("llm.provider", "openai-compatible")
        brain.config.set("llm.base_url", server.url + "/v1")
        brain.config.set("llm.model", "test-model")
        brain.config.set("llm.retries", 1)
        ask(brain, QUESTION)
        prompt = server.posts()[0]["body"]["messages"][1]["content"]
    assert "Records that disagree" in prompt
    assert "[1] (Codex, 2026-06-12) stands over [2] (Claude, 2026-03-10), as it is newer; [2] is superseded." in prompt
    assert prompt.index(MEMCACHED) < prompt.index(REDIS)


def test_records_close_in_meaning_with_swapped_numbers_are_a_conflict(brain):
    brain.remember("Deploy staging at 2pm and production at 4pm.", key="deploy-times", profile="me",
                   created="2026-02-01T10:00:00Z")
    brain.remember("Deploy staging at 4pm and production at 2pm.", key="deploy-schedule", profile="codex",
                   created="2026-05-01T10:00:00Z")
    (c,) = find_conflicts(brain)
    assert c.sides[0].path == "memories/codex/deploy-schedule.json" and not c.chosen
    assert "2pm" in c.why and "4pm" in c.why


def _old_fold(brain):
    """What earlier versions did: Codex's opposite statement became a source of Claude's record."""
    brain.remember(REDIS, key="cache", profile="claude", created="2026-03-10T09:00:00Z", source="claude:session:s1")
    rec, _ = brain._prepare(dict(body=MEMCACHED, key="cache", profile="codex", created="2026-06-12T15:00:00Z",
                                 source="codex:session:s2"))
    with brain.writing("remember: memories/codex/cache.json (linked)") as tx:  # what remember_many opens
        brain._tx = tx
        Linker(brain)._add_source("memories/claude/cache.json", rec)
    brain._tx = None
    return rec


def test_lint_finds_a_wrong_fold_and_split_restores_it_in_one_commit(brain, capsys):
    rec = _old_fold(brain)
    assert not (brain.root / "memories/codex/cache.json").exists()
    (problem,) = lint(brain)
    assert problem.path == "memories/claude/cache.json" and "codex/cache as a source" in problem.message
    assert "consolidate --split" in problem.message
    assert main(["--brain", str(brain.root), "brain", "lint"]) == 1
    capsys.readouterr()

    assert main(["--brain", str(brain.root), "brain", "consolidate", "--split", "--dry-run"]) == 0
    assert "would restore" in capsys.readouterr().out and not (brain.root / "memories/codex/cache.json").exists()
    before = _commits(brain)
    assert main(["--brain", str(brain.root), "brain", "consolidate", "--split"]) == 0
    assert "1 restored" in capsys.readouterr().out
    assert _commits(brain) == before + 1
    restored = brain.get("memories/codex/cache.json")
    assert (restored.body, restored.id, restored.created, restored.profile, restored.key, restored.source) == (
        MEMCACHED, rec.id, "2026-06-12T15:00:00Z", "codex", "cache", "codex:session:s2")
    holder = json.loads((brain.root / "memories/claude/cache.json").read_text())
    assert holder["body"] == REDIS and "sources" not in holder
    assert lint(brain) == [] and wrong_folds(brain) == []
    assert LINE in ask(brain, QUESTION, llm=None).text
    assert main(["--brain", str(brain.root), "brain", "consolidate", "--split"]) == 0
    assert "No wrongly folded sources." in capsys.readouterr().out and _commits(brain) == before + 1


def test_a_true_rewording_linked_earlier_is_no_wrong_fold(brain):
    brain.remember("We chose Datadog for monitoring because its APM tracing is better.", key="monitoring",
                   profile="claude")
    brain.remember("Decision: Datadog for monitoring, because its APM tracing is better.",
                   key="monitoring", profile="codex")
    assert not (brain.root / "memories/codex/monitoring.json").exists()  # linked, as it says the same
    assert wrong_folds(brain) == [] and find_conflicts(brain) == []
    # looser words ("team", "tool", "reason" on one side only) are written at their own key: not sure
    # they say the same, and nothing in them disagrees, so no conflict either
    brain.remember("The team decided on Datadog as the monitoring tool; APM tracing was the reason.",
                   key="monitoring", profile="gemini")
    assert (brain.root / "memories/gemini/monitoring.json").exists()
    assert wrong_folds(brain) == [] and find_conflicts(brain) == []


def test_two_records_about_two_tickets_are_no_conflict(brain):
    """Close in meaning and numbered differently, but the numbers name tickets: two subjects."""
    brain.remember("The feature flag system mirrors config snapshots for thirty days (ticket 37).", key="flags-a",
                   profile="gemini")
    brain.remember("The feature flag system batches config snapshots for thirty days (ticket 383).", key="flags-b",
                   profile="claude")
    assert find_conflicts(brain) == []
    notices: list = []
    lint(brain, notices)
    assert not [n for n in notices if "disagrees with" in n.message]


def test_split_leaves_a_hand_made_source_with_a_bad_key_alone(brain):
    """A source entry whose key is no key (a hand edit) is never turned into a path: it is not a fold."""
    brain.remember(REDIS, key="cache", profile="claude")
    path = brain.root / "memories/claude/cache.json"
    data = json.loads(path.read_text())
    data["sources"] = [{"profile": "codex", "key": "../../outside", "body": MEMCACHED, "created": "2026-06-12T15:00:00Z"}]
    path.write_text(json.dumps(data))
    assert wrong_folds(brain) == []
    assert main(["--brain", str(brain.root), "brain", "consolidate", "--split"]) == 0
    assert not (brain.root.parent / "outside.json").exists() and json.loads(path.read_text())["sources"]


def test_consolidate_asks_the_judge_which_record_stands_and_changes_nothing_on_its_word(brain, capsys,
                                                                                    memory_keyring):  # noqa: F811
    _cache(brain)
    assert main(["--brain", str(brain.root), "brain", "consolidate", "--dry-run"]) == 0
    assert "judge (rules): agrees: newer (2026-06-12 after 2026-03-10)" in capsys.readouterr().out
    with FakeLLMServer(answer='{"stands": 2, "why": "the older record names the reason"}') as server:
        brain.config.set("llm.provider", "openai-compatible")
        brain.config.set("llm.base_url", server.url + "/v1")
        brain.config.set("llm.model", "test-model")
        brain.config.set("llm.retries", 1)
        brain.config.save()  # the CLI reads the settings file
        before = _commits(brain)
        assert main(["--brain", str(brain.root), "brain", "consolidate", "--json"]) == 0
        (c,) = json.loads(capsys.readouterr().out)["conflicts"]
        sent = server.posts()[-1]["body"]["messages"][1]["content"]
    assert c["stands"]["path"] == "memories/codex/cache.json"  # the newer still stands: the user decides
    assert c["judge"] == {"agrees": False, "judge": "llm:openai-compatible", "why": "the older record names the reason"}
    assert sent.index(MEMCACHED) < sent.index(REDIS) and "2026-06-12" in sent
    assert _commits(brain) == before
