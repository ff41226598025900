"""A first run that explains itself: setup's plan and its result agree, sessions inside the quiet
window are counted and named (text and --json), the overview shows the whole backfill; and with
an agent CLI logged in, setup offers `auto` and the backfill reads through it (a fake `claude`)."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

import pytest

from brain_core.cli import main
from tests.helpers.fake_agents import calls, install, on_path
from tests.helpers.harvest_homes import make_homes


@pytest.fixture
def home(tmp_path, monkeypatch):
    h = tmp_path / "home"
    h.mkdir()
    for var in ("CLAUDE_CONFIG_DIR", "CODEX_HOME", "GEMINI_CLI_HOME", "AIDA_CHILD", "ANTHROPIC_API_KEY",
                "OPENAI_API_KEY", "GEMINI_API_KEY", "GOOGLE_API_KEY"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv("HOME", str(h))
    monkeypatch.setenv("AIDA_STATE_DIR", str(tmp_path / "state"))
    monkeypatch.setenv("PYTHON_KEYRING_BACKEND", "tests.helpers.keyring_memory.MemoryKeyring")
    return h


def _one_active(roots) -> Path:
    """The Codex session changed a minute ago: still inside the quiet window."""
    f = next((roots["codex"] / "sessions").rglob("rollout-*.jsonl"))
    now = time.time() - 60
    os.utime(f, (now, now))
    return f


def _setup(capsys, brain: Path, *args: str):
    rc = main(["--brain", str(brain), "setup", *args])
    out = capsys.readouterr()
    assert rc == 0, out.out + out.err
    return out.out


def test_setup_counts_and_names_the_sessions_inside_the_quiet_window(home, tmp_path, capsys):
    roots = make_homes(home, mtime=1.7e9, memory=False)
    _one_active(roots)
    got = json.loads(_setup(capsys, tmp_path / "brain", "--json", "--dry-run"))
    assert got["found"]["pending_sessions"] == 2 and got["found"]["active_sessions"] == 1
    step = next(s for s in got["steps"] if s["id"] == "backfill")
    assert step["title"].startswith("Learn from the 2 sessions already on disk")
    note, offline = step["notes"]
    assert note.startswith("1 session changed in the last 10 minutes (codex 019ec8a2 in acme-billing)") and "--include-active" in note
    assert got["found"]["notes"] == [note]
    # no agent CLI logged in, no key: the plan says what reading offline means and how to get the model
    assert offline.startswith("With no model on this machine (claude, codex and gemini sessions are here but no agent "
                              "CLI is logged in, and no API key), they are read offline") and "marked unchecked" in offline
    assert "`codex login`" in offline and "run `aida setup` again" in offline

    got = json.loads(_setup(capsys, tmp_path / "brain", "--json", "--yes"))
    result = got["outcome"]["backfill"]
    assert result.startswith("2 sessions read"), result  # the plan said 2: the result says 2
    assert "1 changed in the last 10 minutes" in result and "--include-active" in result
    assert not (tmp_path / "brain" / "harvest" / "codex.json").exists()  # the active one was left alone

    got = json.loads(_setup(capsys, tmp_path / "brain", "--json", "--yes", "--include-active"))
    assert next(s for s in got["steps"] if s["id"] == "backfill")["title"].startswith("Learn from the 1 session ")
    assert got["outcome"]["backfill"].startswith("1 sessions read")


def test_setup_text_says_the_same_as_its_plan(home, tmp_path, capsys):
    roots = make_homes(home, mtime=1.7e9, memory=False)
    _one_active(roots)
    out = _setup(capsys, tmp_path / "brain", "--yes")
    assert "Sessions: 2 quiet, ready to learn from; 1 changed in the last 10 minutes" in out
    assert "[yes] backfill: Learn from the 2 sessions already on disk" in out
    assert "1 session changed in the last 10 minutes (codex 019ec8a2 in acme-billing); they are read once quiet" in out
    line = next(ln for ln in out.splitlines() if ln.startswith("Learn from the 2 sessions"))
    assert ": 2 sessions read" in line and "1 changed in the last 10 minutes" in line


def test_the_overview_shows_the_whole_backfill_not_its_last_batch(home, tmp_path, capsys):
    from brain_core import Brain
    from brain_core.harvest.backfill import backfill
    from brain_core.lifecycle.overview import overview

    roots = make_homes(home, mtime=1.7e9, memory=False)
    brain = Brain.init(tmp_path / "brain")
    try:
        p = backfill(brain, roots=roots, batch=1)
        o = overview(brain)
    finally:
        brain.close()
    bf = o["backfill"]
    assert bf["sessions"] == p.done == 3 and bf["planned"] == 3
    assert bf["kept"] + sum(bf["dropped"].values()) == 3 and bf["records"] == p.records
    assert bf["provider"] == "none" and bf["offline"] == 3 and bf["active_left"] == 0
    main(["--brain", str(tmp_path / "brain"), "brain", "overview"])
    out = capsys.readouterr().out
    assert "Backfill " in out and "3 sessions read (none)" in out


def test_setup_offers_auto_and_the_backfill_reads_through_claude_code(home, tmp_path, capsys, monkeypatch):
    bin_dir = install(tmp_path / "bin")
    on_path(monkeypatch, bin_dir)
    roots = make_homes(home, mtime=1.7e9, memory=False)
    (roots["claude"] / ".credentials.json").write_text("{}")
    got = json.loads(_setup(capsys, tmp_path / "brain", "--json", "--dry-run"))
    step = next(s for s in got["steps"] if s["id"] == "llm")
    assert step["value"] == "auto" and "claude-code" in step["title"] and got["found"]["auto_provider"] == "claude-code"
    backfill = next(s for s in got["steps"] if s["id"] == "backfill")
    assert not any("read offline" in n for n in backfill["notes"])  # a model reads them: no offline note
    got = json.loads(_setup(capsys, tmp_path / "brain", "--json", "--yes"))
    assert got["outcome"]["llm"] == "set; the connection test answered"
    assert got["outcome"]["backfill"].startswith("3 sessions read")
    made = calls(bin_dir)
    assert len(made) == 1 + 3 and all(c["exe"] == "claude" and c["child"] == "1" for c in made)
    assert "provider: auto" in Path(os.environ["AIDA_CONFIG"]).read_text()
    bf = json.loads((tmp_path / "brain" / "harvest" / "backfill.json").read_text())
    assert bf["provider"] == "claude-code" and bf["calls"] == 3 and bf["offline"] == 0


def test_setup_again_with_a_model_offers_to_relearn_what_was_read_offline(home, tmp_path, capsys, monkeypatch):
    """The first setup had no model, so the backfill read offline; once an agent CLI is logged in,
    setup offers the model and a relearn of those sessions, and the unchecked records give way to the
    model's."""
    from brain_core.marks import OFFLINE_TAG

    roots = make_homes(home, mtime=1.7e9, memory=False)
    brain = tmp_path / "brain"
    first = json.loads(_setup(capsys, brain, "--json", "--yes"))
    assert first["outcome"]["backfill"].startswith("3 sessions read")
    assert not any(s["id"] == "relearn" for s in first["steps"])
    offline = [json.loads(f.read_text()) for f in (brain / "memories").rglob("*.json")]
    assert offline and all(OFFLINE_TAG in r["tags"] for r in offline)

    bin_dir = install(tmp_path / "bin")
    on_path(monkeypatch, bin_dir)
    (roots["claude"] / ".credentials.json").write_text("{}")
    text = _setup(capsys, brain, "--dry-run")
    assert "3 read offline, leaving " in text and "relearn: Read again with the model the 3 sessions" in text
    got = json.loads(_setup(capsys, brain, "--json", "--dry-run"))
    step = next(s for s in got["steps"] if s["id"] == "relearn")
    assert step["default"] and "3 sessions read offline" in step["title"]
    assert got["found"]["offline_sessions"] == 3 and got["found"]["offline_records"] == len(offline)
    assert [s["id"] for s in got["steps"]].index("llm") < [s["id"] for s in got["steps"]].index("relearn")

    got = json.loads(_setup(capsys, brain, "--json", "--yes"))
    assert got["outcome"]["llm"] == "set; the connection test answered"
    assert got["outcome"]["relearn"].startswith("3 sessions read")
    made = [c for c in calls(bin_dir) if c["exe"] == "claude"]
    assert len(made) >= 1 + 1  # the connection test, then the sessions (batched)
    live = [json.loads(f.read_text()) for f in (brain / "memories").rglob("*.json")]
    assert live and not any(OFFLINE_TAG in r["tags"] for r in live)
    # the offline record the three sessions shared (linked on write) is retired once all three are relearned
    assert [f.name for f in (brain / "archive").rglob("exponential-backoff-capped-six-attempts-total*.json")]
    assert json.loads(_setup(capsys, brain, "--json", "--dry-run"))["found"]["offline_sessions"] == 0
