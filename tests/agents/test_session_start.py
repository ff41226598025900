"""The session-start block through the real hook command: what `aida hooks install` writes into an
agent's settings, run by a shell with Claude Code's SessionStart JSON on stdin."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from brain_core.agents.hooks import apply, connect_plans, plan_install
from brain_core.cli import main
from brain_core.lifecycle.forget import forget
from brain_core.lifecycle.tier_index import regenerate
from tests.helpers.paths import REPO


def _env():
    env = {k: v for k, v in os.environ.items() if k in ("PATH", "HOME", "AIDA_CONFIG", "LANG", "HF_HUB_OFFLINE",
                                                         "AIDA_STATE_DIR")}
    env["PYTHONPATH"] = str(REPO)
    return env


def _start_command(home: Path, brain_root: Path) -> str:
    """Install the Claude hooks into ``home`` and return the SessionStart command they hold."""
    apply(plan_install("claude", str(brain_root), home / ".claude"))
    data = json.loads((home / ".claude" / "settings.json").read_text())
    [cmd] = [h["command"] for g in data["hooks"]["SessionStart"] for h in g["hooks"]]
    return cmd


def _claude_payload(cwd: Path, session="5b0c7c86-4a52-4d0e-9a1b-2f7f3c1d8e10") -> str:
    return json.dumps({"session_id": session, "transcript_path": str(cwd / "t.jsonl"), "cwd": str(cwd),
                       "hook_event_name": "SessionStart", "source": "startup"})


def _run(cmd: str, payload: str, cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run(cmd, shell=True, input=payload, capture_output=True, text=True, cwd=str(cwd), env=_env(),
                          timeout=120)


@pytest.fixture
def projects(brain, tmp_path):
    """A brain with a rule, two projects' near-identical records and one untagged preference;
    a git checkout of the billing project to start a session in."""
    brain.remember("Never force-push to main; open a revert commit instead.", type="instruction",
                   key="no-force-push", profile="me", created="2026-05-01T10:00:00Z")
    brain.remember("Billing deploys blue-green on Fridays, after the finance batch.", type="decision",
                   key="billing-deploy", profile="claude", tags=["project:billing"], created="2026-06-01T10:00:00Z")
    brain.remember("Search deploys with a five percent canary for an hour.", type="decision",
                   key="search-deploy", profile="claude", tags=["project:search"], created="2026-07-01T10:00:00Z")
    brain.remember("My preferred commit message style is imperative mood, under 72 characters.", type="preference",
                   key="commit-style", profile="me", created="2026-04-01T10:00:00Z")
    regenerate(brain)
    repo = tmp_path / "code" / "billing"
    (repo / "src").mkdir(parents=True)
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    return repo


def test_the_installed_hook_prints_rules_then_the_project_then_the_rest(brain, projects, home):
    cmd = _start_command(home, brain.root)
    assert cmd.endswith(f"-m brain_core.agents.session_start --brain {brain.root} --hook claude")
    proc = _run(cmd, _claude_payload(projects / "src"), projects / "src")
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    assert out["hookSpecificOutput"]["hookEventName"] == "SessionStart"
    text = out["hookSpecificOutput"]["additionalContext"]
    rules = text.index("## Standing instructions")
    ours = text.index("## This project: billing")
    rest = text.index("## Also in memory")
    assert rules < ours < rest
    assert "Never force-push to main" in text[rules:ours]
    assert "Billing deploys blue-green" in text[ours:rest]
    assert "search-deploy" in text[rest:] and "commit-style" in text[rest:]  # a boost, not a filter
    assert text[rest:].index("search-deploy") < text[rest:].index("commit-style")  # newest first
    assert len(text) <= 6000

    # the injection is noted, and the audit counts it as a use of each entry it carried
    log = [json.loads(x) for x in (brain.root / ".aida" / "injections.jsonl").read_text().splitlines()]
    assert log[-1]["tool"] == "claude" and log[-1]["project"] == "billing"
    assert "memories/claude/billing-deploy.json" in log[-1]["paths"]
    from brain_core.lifecycle.audit import audit

    rows = {r.path: r for r in audit(brain, roots={"claude": home / "none", "codex": home / "none",
                                                    "gemini": home / "none"}).rows}
    assert rows["memories/claude/billing-deploy.json"].sessions == 1
    assert rows["memories/claude/billing-deploy.json"].injected == 1


def test_in_another_folder_there_is_no_project_section(brain, projects, home, tmp_path):
    cmd = _start_command(home, brain.root)
    elsewhere = tmp_path / "scratch"
    elsewhere.mkdir()
    text = json.loads(_run(cmd, _claude_payload(elsewhere), elsewhere).stdout)["hookSpecificOutput"]["additionalContext"]
    assert "## This project" not in text and "billing-deploy" in text


def test_a_forgotten_record_leaves_the_block_even_before_index_md_is_regenerated(brain, projects, home):
    cmd = _start_command(home, brain.root)
    older = (brain.root / "INDEX.md").read_text()
    forget(brain, "billing-deploy", reason="wrong day")
    assert "billing-deploy" not in (brain.root / "INDEX.md").read_text()  # forget regenerated it
    (brain.root / "INDEX.md").write_text(older)  # an INDEX.md older than the forget (from another machine, say)
    text = json.loads(_run(cmd, _claude_payload(projects), projects).stdout)["hookSpecificOutput"]["additionalContext"]
    assert "billing-deploy" not in text and "Billing deploys" not in text and "search-deploy" in text


def test_the_block_keeps_to_the_budget(brain, tmp_path, home):
    brain.remember_many([dict(body=f"Service number {i} listens on port {8000 + i} behind the gateway.",
                              key=f"service-{i}-port", type="fact", tags=["project:fleet"]) for i in range(200)])
    regenerate(brain)
    brain.config.set("tier_index.budget_chars", 1500)
    brain.config.save()
    from brain_core.agents.session_start import build

    block = build(brain.root, 1500, "fleet")
    assert 1000 < block.chars <= 1500 and block.left_out > 150
    assert "more: `aida brain recall` finds them" in block.text
    cmd = _start_command(home, brain.root)
    text = json.loads(_run(cmd, _claude_payload(tmp_path), tmp_path).stdout)["hookSpecificOutput"]["additionalContext"]
    assert len(text) <= 1500


def test_a_standing_instruction_is_shown_whole_as_far_as_it_fits(brain):
    # The first sentence of a rule said in a turn is often its context; the rule is the next one.
    brain.remember("This is a good lesson of reality not meeting spec. When it happens, take the question to the person "
                   "to decide, case by case, never assumed.", type="instruction", key="spec-gaps", profile="me")
    brain.remember("Releases are cut from main. " + "Every release note names the migration steps and who runs them. " * 8,
                   type="instruction", key="release-notes", profile="me")
    brain.remember("Billing deploys blue-green on Fridays. The finance batch runs before it.", type="decision",
                   key="billing-deploy", profile="claude", tags=["project:billing"])
    regenerate(brain)
    from brain_core.agents.session_start import RULE_CHARS, build

    lines = build(brain.root, 6000, "billing").text.splitlines()
    [gaps] = [ln for ln in lines if "spec-gaps" in ln]
    assert "take the question to the person to decide, case by case, never assumed." in gaps
    [notes] = [ln for ln in lines if "release-notes" in ln]
    said = notes[2:notes.rindex(" (memories/")]
    assert said.startswith("Releases are cut from main. Every release note") and said.endswith("…")
    assert len(said) <= RULE_CHARS
    brain.remember("Never " + "touch the shared staging database, the fixtures and the seed scripts, " * 8 + "without asking.",
                   type="instruction", key="staging-db", profile="me")
    regenerate(brain)
    [one] = [ln for ln in build(brain.root, 6000, None).text.splitlines() if "staging-db" in ln]
    assert one.count("…") == 1 and len(one[2:one.rindex(" (memories/")]) <= RULE_CHARS  # one long sentence, clipped
    # the project's records are still their first sentence
    [billing] = [ln for ln in lines if "billing-deploy" in ln]
    assert "Fridays." in billing and "finance batch" not in billing


def test_prints_nothing_when_the_brain_is_unreachable(tmp_path, home):
    cmd = _start_command(home, tmp_path / "no-brain-here")
    proc = _run(cmd, _claude_payload(tmp_path), tmp_path)
    assert proc.returncode == 0 and proc.stdout == ""
    proc = _run(cmd, "{ not json", tmp_path)
    assert proc.returncode == 0 and proc.stdout == ""


@pytest.mark.parametrize("entry,args", [("brain_core.agents.session_start", ["--hook", "claude"]),
                                         ("brain_core.cli", ["brain", "session-start", "--hook", "claude"])])
def test_the_hook_embeds_nothing(brain, projects, entry, args):
    """The hook's process (the installed module, and the same through the CLI) loads neither the
    embedding runtime nor the vector extension."""
    code = (f"import sys; from {entry} import main; rc = main(sys.argv[1:]); "
            "print(sorted(m for m in ('onnxruntime', 'sqlite_vec', 'numpy', 'PySide6') if m in sys.modules), "
            "file=sys.stderr); sys.exit(rc)")
    proc = subprocess.run([sys.executable, "-c", code, "--brain", str(brain.root), *args],
                          input=_claude_payload(projects), capture_output=True, text=True, env=_env(), timeout=120)
    assert proc.returncode == 0 and "additionalContext" in proc.stdout
    assert proc.stderr.strip().splitlines()[-1] == "[]"


def test_gemini_gets_a_session_start_hook_too(brain, home):
    plan = plan_install("gemini", str(brain.root), home / ".gemini")
    data = json.loads(plan.after)
    [h] = [h for g in data["hooks"]["SessionStart"] for h in g["hooks"]]
    assert h["name"] == "aida-session-start" and h["command"].endswith("session_start --brain " + str(brain.root) + " --hook gemini")
    assert plan_install("gemini", str(brain.root), home / ".gemini").changed is not False  # not yet written
    apply(plan)
    assert not plan_install("gemini", str(brain.root), home / ".gemini").changed  # idempotent


def test_codex_gets_a_block_in_agents_md_that_maintain_refreshes(brain, projects, home, capsys):
    agents = home / ".codex" / "AGENTS.md"
    agents.parent.mkdir()
    agents.write_text("# My rules\n\nUse tabs in Makefiles.\n")
    assert main(["--brain", str(brain.root), "hooks", "install", "codex"]) == 0
    out = capsys.readouterr().out
    assert "+<!-- aida:memory:begin" in out  # the diff is shown
    text = agents.read_text()
    assert text.startswith("# My rules\n\nUse tabs in Makefiles.\n")
    assert "Never force-push to main" in text and "aida:query-first:begin" in text
    assert all(not p.changed for p in connect_plans("codex", str(brain.root), home / ".codex"))  # idempotent

    brain.remember("Always run the migrations before the tests.", type="instruction", key="migrations-first")
    assert main(["--brain", str(brain.root), "brain", "maintain"]) == 0
    assert f"Memory block refreshed in {agents}" in capsys.readouterr().out
    again = agents.read_text()
    assert again.startswith("# My rules\n\nUse tabs in Makefiles.\n") and "Always run the migrations" in again
    assert again.count("aida:memory:begin") == 1

    assert main(["--brain", str(brain.root), "hooks", "remove", "codex"]) == 0
    assert agents.read_text() == "# My rules\n\nUse tabs in Makefiles.\n"
