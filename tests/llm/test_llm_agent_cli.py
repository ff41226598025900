"""The agents' own CLIs as providers, through fake ``claude``/``codex``/``gemini`` executables on
PATH that speak each CLI's documented headless output (tests/helpers/fake_agents.py); no network."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from brain_core.cli import main
from brain_core.errors import ProviderError
from brain_core.harvest.run import sweep
from brain_core.llm import make_provider
from brain_core.llm.agent_cli import AgentCLI, AgentUnavailable, Budget, from_config, logged_in
from brain_core.llm.factory import resolve_auto
from tests.helpers.fake_agents import calls, install, on_path, set_mode
from tests.helpers.harvest_homes import make_homes

T0 = 1_787_000_000.0
LATER = lambda: T0 + 3600  # noqa: E731


@pytest.fixture
def fakes(tmp_path, monkeypatch, home):
    bin_dir = install(tmp_path / "bin")
    on_path(monkeypatch, bin_dir)
    for var in ("ANTHROPIC_API_KEY", "OPENAI_API_KEY", "GEMINI_API_KEY", "GOOGLE_API_KEY", "CLAUDE_CODE_OAUTH_TOKEN",
                "CODEX_API_KEY", "GOOGLE_GENAI_USE_VERTEXAI", "AIDA_CHILD", "AIDA_ANTHROPIC_API_KEY",
                "AIDA_OPENAI_API_KEY"):
        monkeypatch.delenv(var, raising=False)
    return bin_dir


def _login(home: Path, *agents: str) -> None:
    for agent in agents:
        if agent == "claude-code":
            (home / ".claude").mkdir(exist_ok=True)
            (home / ".claude" / ".credentials.json").write_text("{}")
        elif agent == "codex":
            (home / ".codex").mkdir(exist_ok=True)
            (home / ".codex" / "auth.json").write_text("{}")
        else:
            (home / ".gemini").mkdir(exist_ok=True)
            (home / ".gemini" / "oauth_creds.json").write_text("{}")


@pytest.mark.parametrize("name,exe", [("claude-code", "claude"), ("codex", "codex"), ("gemini-cli", "gemini")])
def test_each_cli_answers_headless_in_the_scratch_folder_marked_as_a_child(fakes, name, exe):
    llm = make_provider({"llm": {"provider": name}})
    assert isinstance(llm, AgentCLI) and llm.name == name
    c = llm.complete_full("You answer questions.", "What is the capital of the fake?", max_tokens=50)
    assert "answer" in c.text and c.input_tokens and c.input_tokens > 0 and c.output_tokens > 0
    [call] = calls(fakes)
    assert call["exe"] == exe and call["child"] == "1"
    assert Path(call["cwd"]) == Path(os.environ["AIDA_STATE_DIR"]) / "scratch"
    assert "What is the capital of the fake?" in call["stdin"]
    if name == "claude-code":  # headless JSON, no tools, no MCP servers, the small model
        a = call["argv"]
        assert a[:3] == ["-p", "--output-format", "json"] and a[a.index("--tools") + 1] == ""
        assert "--strict-mcp-config" in a and a[a.index("--model") + 1] == "haiku"
    elif name == "codex":
        assert call["argv"][:2] == ["exec", "--json"] and "--ephemeral" in call["argv"] and call["argv"][-1] == "-"
        assert "You answer questions." in call["stdin"]  # no system prompt flag: it leads the prompt
    else:
        a = call["argv"]
        assert a[a.index("--output-format") + 1] == "json" and a[a.index("-p") + 1] == "You answer questions."


@pytest.mark.parametrize("name,exe", [("claude-code", "claude"), ("codex", "codex"), ("gemini-cli", "gemini")])
@pytest.mark.parametrize("mode,kind", [("logged-out", "logged-out"), ("limited", "limited")])
def test_a_logged_out_or_limited_cli_says_so_in_one_sentence(fakes, name, exe, mode, kind):
    set_mode(fakes, exe, mode)
    llm = make_provider({"llm": {"provider": name}})
    with pytest.raises(AgentUnavailable) as e:
        llm.complete("s", "u")
    assert e.value.kind == kind and "\n" not in str(e.value) and f"`{exe}`" in str(e.value)
    assert isinstance(e.value, ProviderError)


def test_a_missing_cli_and_an_answer_that_is_not_json(fakes, monkeypatch):
    monkeypatch.setenv("PATH", str(fakes.parent / "nowhere"))
    with pytest.raises(AgentUnavailable) as e:
        make_provider({"llm": {"provider": "claude-code"}}).complete("s", "u")
    assert e.value.kind == "missing" and "not there" in str(e.value)
    on_path(monkeypatch, fakes)
    set_mode(fakes, "claude", "garbage")
    from brain_core.harvest.model_answer import with_llm

    with pytest.raises(ProviderError, match="rejected"):  # valid CLI output, but not the schema: no record
        with_llm("[user] we always deploy on Fridays", make_provider({"llm": {"provider": "claude-code"}}),
                 profile="claude", source="t")


def test_the_budget_stops_calls_per_hour_and_is_shared_through_its_file(fakes, tmp_path):
    now = [T0]
    budget = Budget(per_hour=2, per_day=3, path=tmp_path / "calls.json", clock=lambda: now[0])
    llm = AgentCLI("gemini-cli", model="m", budget=budget, scratch=tmp_path / "scratch")
    llm.complete("s", "one")
    llm.complete("s", "two")
    with pytest.raises(AgentUnavailable, match="this hour") as e:
        llm.complete("s", "three")
    assert e.value.kind == "budget" and len(calls(fakes)) == 2
    now[0] += 3601
    again = AgentCLI("gemini-cli", budget=Budget(per_hour=2, per_day=3, path=tmp_path / "calls.json",
                                                 clock=lambda: now[0]), scratch=tmp_path / "scratch")
    again.complete("s", "three")
    with pytest.raises(AgentUnavailable, match="today"):
        again.complete("s", "four")
    assert len(calls(fakes)) == 3


def test_auto_takes_the_first_cli_logged_in_then_a_key_then_none(fakes, home, monkeypatch):
    assert resolve_auto() == "none" and make_provider({"llm": {"provider": "auto"}}) is None
    _login(home, "gemini-cli")
    assert resolve_auto() == "gemini-cli"
    _login(home, "codex")
    assert resolve_auto() == "codex"
    _login(home, "claude-code")
    assert resolve_auto() == "claude-code" and make_provider({"llm": {"provider": "auto"}}).name == "claude-code"
    (fakes / "claude").unlink()  # logged in once, since uninstalled
    assert not logged_in("claude-code") and resolve_auto() == "codex"
    for exe in ("codex", "gemini"):
        (fakes / exe).unlink()
    monkeypatch.setenv("AIDA_ANTHROPIC_API_KEY", "sk-ant-test-not-real")
    assert resolve_auto() == "anthropic"


def test_the_model_setting_and_the_timeout_reach_the_cli(fakes):
    llm = from_config("claude-code", {"llm": {"model": "claude-haiku-4-5", "cli": {"timeout": 12}}})
    assert llm.timeout == 12
    llm.complete("s", "u")
    a = calls(fakes)[0]["argv"]
    assert a[a.index("--model") + 1] == "claude-haiku-4-5"


# ------------------------------------------------------------------------------------------ harvest


def _cfg(brain, **settings):
    for k, v in settings.items():
        brain.config.set(k, v)
    return brain


def test_harvest_through_claude_code_batches_quiet_sessions_and_never_harvests_its_own(brain, fakes, tmp_path,
                                                                                     monkeypatch):
    roots = make_homes(tmp_path / "h", memory=False, mtime=T0)
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(roots["claude"]))  # the fake leaves its own session there
    _cfg(brain, **{"llm.provider": "claude-code"})
    r = sweep(brain, roots=roots, clock=LATER, include_mirror=False)
    assert r.provider == "claude-code" and r.fallback is None and not r.errors
    made = calls(fakes)
    assert r.calls == len(made) == 3  # one per agent: each agent's sessions are read together
    assert all(c["child"] == "1" for c in made)
    assert all(not o.offline for o in r.outcomes) and r.written >= 1
    # the fake left a session of its own in ~/.claude/projects/<scratch>; the next sweep skips it
    own = list((roots["claude"] / "projects").glob("*scratch*/*.jsonl"))
    assert own
    for f in own:
        os.utime(f, (T0, T0))
    again = sweep(brain, roots=roots, clock=LATER, include_mirror=False)
    assert again.outcomes == [] and again.skipped.get("aida") == len(own)
    assert len(calls(fakes)) == 3
    bodies = [rec.body for _, rec in brain.records()]
    assert not any("always use tabs" in b for b in bodies)


def test_several_small_sessions_go_in_one_call_and_split_back(brain, fakes, tmp_path):
    roots = make_homes(tmp_path / "h", memory=False, mtime=T0)
    project = next((roots["claude"] / "projects").iterdir())
    for n in range(3):
        line = {"type": "user", "cwd": "/home/dev/acme-billing", "sessionId": f"s{n}", "uuid": f"u{n}",
                "timestamp": "2026-08-20T10:00:00Z",
                "message": {"role": "user", "content": f"topic {n} alpha{n} beta{n} gamma{n}"}}
        p = project / f"0000000{n}-aaaa-4bbb-8ccc-dddddddddddd.jsonl"
        p.write_text(json.dumps(line) + "\n")
        os.utime(p, (T0, T0))
    _cfg(brain, **{"llm.provider": "claude-code"})
    r = sweep(brain, sources=("claude",), roots=roots, clock=LATER, include_mirror=False)
    assert len(r.outcomes) == 4 and r.calls == 1 and len(calls(fakes)) == 1
    assert "=== S4 ===" in calls(fakes)[0]["stdin"]
    keys = {rec["key"] for o in r.outcomes for rec in o.records}
    assert {"topic-0-alpha0-beta0-gamma0", "topic-1-alpha1-beta1-gamma1", "topic-2-alpha2-beta2-gamma2"} <= keys
    _cfg(brain, **{"llm.cli.batch_chars": 0})  # one session per call
    for f in project.glob("*.jsonl"):
        f.write_text(f.read_text() + "\n")
        os.utime(f, (T0, T0))
    r = sweep(brain, sources=("claude",), roots=roots, clock=LATER, include_mirror=False)
    assert r.calls == 4 and len(calls(fakes)) == 5


def test_a_logged_out_cli_turns_the_run_offline_says_so_once_and_doctor_shows_it(brain, fakes, tmp_path, capsys,
                                                                                  home):
    roots = make_homes(tmp_path / "h", memory=False, mtime=T0)
    set_mode(fakes, "claude", "logged-out")
    _cfg(brain, **{"llm.provider": "claude-code", "llm.cli.batch_chars": 0})
    r = sweep(brain, roots=roots, clock=LATER, include_mirror=False)
    assert len(calls(fakes)) == 1  # the first failure ends the provider for the run
    assert not r.errors and all(o.offline for o in r.outcomes) and r.written == 1
    assert r.fallback and "not logged in" in r.fallback and len([n for n in r.notes if "offline" in n]) == 1
    wm = json.loads((brain.root / "harvest" / "claude.json").read_text())
    assert all(s.get("offline") for s in wm["sessions"].values())
    _login(home, "claude-code")
    brain.config.save()
    main(["--brain", str(brain.root), "doctor", "--json"])
    out = capsys.readouterr().out
    checks = {c["check"]: c for c in json.loads(out[out.index("["):])}
    assert "read offline" in checks["llm"]["detail"] and "not logged in" in checks["llm"]["detail"]


def test_the_cli_prints_the_fallback_last_for_the_tray(brain, fakes, tmp_path, capsys, monkeypatch):
    roots = make_homes(tmp_path / "h", memory=False, mtime=T0 - 7200)
    set_mode(fakes, "codex", "limited")
    _cfg(brain, **{"llm.provider": "codex", "harvest.roots": {k: str(v) for k, v in roots.items()}})
    brain.config.save()
    assert main(["--brain", str(brain.root), "brain", "harvest", "--no-mirror"]) == 0
    last = capsys.readouterr().out.strip().splitlines()[-1]
    assert last.startswith("Read offline:") and "usage limit" in last


def test_ask_and_the_judge_use_the_same_provider(brain, fakes):
    brain.remember("We deploy the billing service on Tuesdays because support is staffed.", type="decision",
                   key="deploy-day")
    from brain_core.answer.ask import ask

    llm = make_provider({"llm": {"provider": "gemini-cli"}})
    answer = ask(brain, "When do we deploy billing?", llm=llm)
    assert calls(fakes) and calls(fakes)[-1]["exe"] == "gemini"
    assert "deploy" in calls(fakes)[-1]["stdin"].lower()
    assert answer is not None
