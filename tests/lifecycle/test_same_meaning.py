"""Consolidate with a model: pairs the word checks doubt are asked about, and merged only on a clear "same".

A real brain, the real embedder and word checks, and the LLM path through a small OpenAI-compatible
server on 127.0.0.1."""

from __future__ import annotations

import json

from brain_core.brain.dedupe import compare
from brain_core.cli import main
from brain_core.lifecycle.consolidate import consolidate
from tests.helpers.fake_llm_server import FakeLLMServer
from tests.helpers.keyring_memory import memory_keyring  # noqa: F401  (fixture)

# one fact in other words: the word checks cannot tell ("hands ... to" / "gets ... from"), so two records
FIRST = "The design team hands the mockups to the frontend team."
SECOND = "The frontend team gets its mockups from the design team."
# two records that disagree: a conflict, never asked about
REDIS = "Use Redis for the session cache, not Memcached."
MEMCACHED = "Use Memcached for the session cache, not Redis."
SAME = '{"pairs": [{"n": 1, "same": true}]}'


def _llm(brain, server):
    brain.config.set("llm.provider", "openai-compatible")
    brain.config.set("llm.base_url", server.url + "/v1")
    brain.config.set("llm.retries", 0)
    brain.config.set("llm.timeout", 5)
    brain.config.save()  # for the command line, which reads the settings file


def _records(brain):
    brain.remember(FIRST, key="mockups", profile="claude", created="2026-11-02T10:00:00Z")
    brain.remember(SECOND, key="mockups", profile="codex", created="2026-11-20T10:00:00Z")
    brain.remember(REDIS, key="cache", profile="claude", created="2026-11-03T10:00:00Z")
    brain.remember(MEMCACHED, key="cache", profile="codex", created="2026-11-21T10:00:00Z")


def _memories(brain) -> set[str]:
    return {p.relative_to(brain.root).as_posix() for p in (brain.root / "memories").rglob("*.json")}


def test_the_word_checks_leave_the_pair_in_doubt_and_name_the_conflict():
    ev = compare(FIRST, SECOND, 0.93)
    assert not ev.duplicate() and ev.conflict is None and ev.unsure
    assert compare(REDIS, MEMCACHED, 0.97).conflict


def test_a_pair_the_model_calls_one_fact_is_merged_and_says_so(brain, memory_keyring):
    _records(brain)
    with FakeLLMServer(answer=SAME) as s:
        _llm(brain, s)
        report = consolidate(brain)
        prompts = [p["body"]["messages"][1]["content"] for p in s.posts()]
    assert report.asked.pairs == 1 and report.asked.calls == 1
    assert len(prompts) == 1 and FIRST in prompts[0] and SECOND in prompts[0]
    assert "Redis" not in prompts[0]  # a disagreement is never asked to be called one fact
    (merge,) = report.duplicates
    assert merge.written and merge.judged == ("model:openai-compatible",)
    survivor, gone = merge.keep, merge.merged[0]
    assert {survivor, gone} == {"memories/claude/mockups.json", "memories/codex/mockups.json"}
    assert gone not in _memories(brain) and {"memories/claude/cache.json", "memories/codex/cache.json"} <= _memories(brain)
    rec = json.loads((brain.root / survivor).read_text(encoding="utf-8"))
    assert rec["consolidated"]["judge"] == "model:openai-compatible" and rec["consolidated"]["by_model"] == [gone]
    other = SECOND if rec["body"] == FIRST else FIRST
    assert any(src.get("body") == other for src in rec["sources"])  # the other wording is kept as a source


def test_no_clear_same_moves_nothing(brain, memory_keyring):
    _records(brain)
    before = _memories(brain)
    for answer in ('{"pairs": [{"n": 1, "same": false}]}', "Yes, they say the same thing.",
                   '{"pairs": [{"n": 2, "same": true}]}', '{"pairs": [{"n": 1, "same": "yes"}]}'):
        with FakeLLMServer(answer=answer) as s:
            _llm(brain, s)
            report = consolidate(brain)
        assert report.asked.pairs == 1 and not report.asked.same and not report.duplicates, answer
        assert _memories(brain) == before


def test_a_provider_that_fails_is_said_in_one_line_and_merges_nothing(brain, memory_keyring, capsys):
    _records(brain)
    before = _memories(brain)
    with FakeLLMServer(answer=SAME) as s:
        _llm(brain, s)
        s.script = ["500"]
        assert main(["--brain", str(brain.root), "brain", "consolidate"]) == 0
    out = capsys.readouterr().out
    line = next(x for x in out.splitlines() if x.startswith("[model]"))
    assert "could not be asked" in line and "nothing more was merged" in line
    assert _memories(brain) == before


def test_without_a_model_or_with_none_allowed_nothing_is_asked(brain, memory_keyring):
    _records(brain)
    report = consolidate(brain)  # llm.provider: none
    assert report.asked.pairs == 0 and "no model" in report.asked.note and not report.duplicates
    with FakeLLMServer(answer=SAME) as s:
        _llm(brain, s)
        brain.config.set("consolidate.model_pairs", 0)
        report = consolidate(brain)
        assert not s.posts() and not report.duplicates


def test_dry_run_shows_the_merge_and_writes_nothing(brain, memory_keyring, capsys):
    _records(brain)
    before = _memories(brain)
    with FakeLLMServer(answer=SAME) as s:
        _llm(brain, s)
        assert main(["--brain", str(brain.root), "brain", "consolidate", "--dry-run", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["asked_model"]["pairs"] == 1 and len(out["asked_model"]["same"]) == 1
    (dup,) = out["duplicates"]
    assert dup["judged"] == ["model:openai-compatible"] and not dup["written"]
    assert _memories(brain) == before


def test_through_the_agents_cli_even_a_model_that_says_yes_merges_no_disagreement(brain, tmp_path, monkeypatch, home):
    from tests.helpers.fake_agents import calls, install, on_path

    bin_dir = install(tmp_path / "bin", exes=("claude",))
    on_path(monkeypatch, bin_dir)
    monkeypatch.delenv("AIDA_CHILD", raising=False)
    (home / ".claude").mkdir(exist_ok=True)
    (home / ".claude" / ".credentials.json").write_text("{}")
    _records(brain)
    brain.config.set("llm.provider", "claude-code")
    report = consolidate(brain)
    (call,) = calls(bin_dir)  # one call for the one pair in doubt, headless and marked as Aida's own
    assert call["exe"] == "claude" and call["child"] == "1" and call["argv"][:3] == ["-p", "--output-format", "json"]
    assert FIRST in call["stdin"] and SECOND in call["stdin"] and "Redis" not in call["stdin"]
    (merge,) = report.duplicates
    assert merge.judged == ("model:claude-code",)
    assert {"memories/claude/cache.json", "memories/codex/cache.json"} <= _memories(brain)  # the conflict stays two
