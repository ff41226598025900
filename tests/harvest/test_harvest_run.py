"""The sweep end to end on a real brain: records, supersession, redaction, dry run, readers, mirror, CLI."""

from __future__ import annotations

import json
import subprocess

import pytest

from brain_core.cli import main
from brain_core.harvest.run import sweep
from brain_core.marks import OFFLINE_CONFIDENCE, OFFLINE_TAG
from tests.helpers.harvest_homes import CLAUDE_ID, CODEX_ID, GEMINI_ID, PLANTED_SECRETS, make_homes, session_files

T0 = 1_787_000_000.0
LATER = lambda: T0 + 3600  # noqa: E731 - every session quiet for an hour


def _all_brain_text(brain) -> str:
    """Every byte the brain holds in files and in git history, as text."""
    parts = []
    for p in brain.root.rglob("*"):
        if p.is_file() and ".git" not in p.relative_to(brain.root).parts[:1] and ".aida" not in p.parts:
            parts.append(p.read_text(encoding="utf-8", errors="replace"))
    log = subprocess.run(["git", "-C", str(brain.root), "log", "-p", "--all"], capture_output=True, text=True, check=True)
    parts.append(log.stdout)
    parts.append((brain.root / ".aida" / "events.jsonl").read_text(encoding="utf-8")
                 if (brain.root / ".aida" / "events.jsonl").exists() else "")
    return "\n".join(parts)


def test_full_sweep_writes_each_agents_decision_and_no_secret(brain, tmp_path):
    roots = make_homes(tmp_path / "home", mtime=T0)
    result = sweep(brain, roots=roots, clock=LATER)
    by_tool = {o.tool: o for o in result.outcomes}
    assert set(by_tool) == {"claude", "codex", "gemini", "mirror"}
    # the three agents made the same decision: Claude's record is written, the others link to it
    path = "memories/claude/exponential-backoff-capped-six-attempts-total.json"
    rec = json.loads((brain.root / path).read_text())
    assert rec["type"] == "decision" and rec["profile"] == "claude"
    assert rec["tags"] == ["project:acme-billing", OFFLINE_TAG] and rec["confidence"] == OFFLINE_CONFIDENCE
    assert rec["source"] == f"claude:session:{CLAUDE_ID}"
    assert [s["source"] for s in rec["sources"]] == [f"codex:session:{CODEX_ID}", f"gemini:session:{GEMINI_ID}"]
    for tool, sid in (("claude", CLAUDE_ID), ("codex", CODEX_ID), ("gemini", GEMINI_ID)):
        o = by_tool[tool]
        assert o.session == sid and o.error is None
        assert o.written == ([path] if tool == "claude" else [])
        assert {"stripe-key", "aws-key", "aws-secret"} <= set(o.redactions)
    text = _all_brain_text(brain)
    for secret in PLANTED_SECRETS:
        assert secret not in text, secret
        assert secret.lower() not in text.lower()
    hits = brain.recall("how many times do outbound webhooks retry", k=3)
    assert any("six attempts" in h.record.body for h in hits)
    events = [json.loads(line) for line in (brain.root / ".aida" / "events.jsonl").read_text().splitlines()]
    assert sum(1 for e in events if e["event"] == "remembered" and e["path"] == path) == 3


def test_mirror_records(brain, tmp_path):
    roots = make_homes(tmp_path / "home", mtime=T0)
    result = sweep(brain, sources=("claude", "gemini"), roots=roots, clock=lambda: T0 + 1)  # sessions still active
    assert [o.tool for o in result.outcomes] == ["mirror"]
    topic = json.loads((brain.root / "memories/claude/acme-billing-webhook-retry-policy.json").read_text())
    assert topic["type"] == "fact" and "claude-memory:project" in topic["tags"] and "project:acme-billing" in topic["tags"]
    assert topic["source"].startswith("claude:memory:") and topic["source"].endswith("memory/webhook-retry-policy.md")
    assert topic["created"] == "2026-08-20T14:05:21Z"  # from the front matter's `modified`
    assert "**Why:**" in topic["body"]
    index = json.loads((brain.root / "memories/claude/acme-billing-memory-md.json").read_text())
    assert "webhook-retry-policy.md" not in index["body"]  # lines pointing at mirrored topic files are dropped
    gemini = {r.key: r for _, r in brain.records() if r.profile == "gemini"}
    assert any("small, reviewable commits" in r.body for r in gemini.values())
    leaked = [r for r in gemini.values() if "staging AWS key" in r.body]
    assert leaked and "[REDACTED:aws-key]" in leaked[0].body and "[REDACTED:aws-secret]" in leaked[0].body
    assert all("akia" not in k for k in gemini)  # keys are file names: made from masked text
    assert any(r.tags == ["project:acme-billing"] and "ledger API" in r.body for r in gemini.values())

    # Unchanged files are not rewritten; an edited file supersedes its record.
    assert sweep(brain, sources=("claude", "gemini"), roots=roots, clock=lambda: T0 + 1).outcomes == []
    path = roots["claude"] / "projects" / "-home-dev-acme-billing" / "memory" / "webhook-retry-policy.md"
    path.write_text(path.read_text().replace("six attempts", "eight attempts"))
    r = sweep(brain, sources=("claude",), roots=roots, clock=lambda: T0 + 1)
    assert r.outcomes[0].written == ["memories/claude/acme-billing-webhook-retry-policy.json"]
    new = json.loads((brain.root / "memories/claude/acme-billing-webhook-retry-policy.json").read_text())
    assert new["supersedes"] == topic["id"] and "eight attempts" in new["body"]


def test_session_with_nothing_durable_writes_no_record_but_is_marked(brain, tmp_path):
    roots = make_homes(tmp_path / "home", memory=False, mtime=T0)
    path = session_files(roots)["claude"]
    noise = [
        {"type": "user", "uuid": "u1", "parentUuid": None, "isSidechain": False, "cwd": "/home/dev/x",
         "message": {"role": "user", "content": "run the tests"}, "timestamp": "2026-08-20T10:00:00Z"},
        {"type": "assistant", "uuid": "a1", "parentUuid": "u1", "isSidechain": False, "timestamp": "2026-08-20T10:00:01Z",
         "message": {"id": "m1", "role": "assistant", "content": [{"type": "tool_use", "id": "t1", "name": "Bash",
                                                                    "input": {"command": "pytest -q"}}]}},
        {"type": "user", "uuid": "r1", "parentUuid": "a1", "isSidechain": False, "timestamp": "2026-08-20T10:00:02Z",
         "message": {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t1",
                                                  "content": "12 passed; never flaky, always green"}]}},
        {"type": "assistant", "uuid": "a2", "parentUuid": "r1", "isSidechain": False, "timestamp": "2026-08-20T10:00:03Z",
         "message": {"id": "m2", "role": "assistant", "content": [{"type": "text", "text": "All 12 tests pass."}]}},
    ]
    path.write_text("".join(json.dumps(e) + "\n" for e in noise))
    import os

    os.utime(path, (T0, T0))
    head = brain.head()
    r = sweep(brain, sources=("claude",), roots=roots, clock=LATER, include_mirror=False)
    assert len(r.outcomes) == 1 and r.outcomes[0].records == [] and r.written == 0
    assert list(brain.records()) == []
    wm = json.loads((brain.root / "harvest" / "claude.json").read_text())
    assert wm["sessions"][CLAUDE_ID]["records"] == []
    assert brain.head() != head  # only the watermark was committed


def test_same_decision_harvested_twice_supersedes_instead_of_duplicating(brain, tmp_path):
    roots = make_homes(tmp_path / "home", memory=False, mtime=T0)
    f = session_files(roots)["codex"]
    sweep(brain, sources=("codex",), roots=roots, clock=LATER)
    first = json.loads((brain.root / "memories/codex/exponential-backoff-capped-six-attempts-total.json").read_text())
    # The same decision, restated with a reason in a later turn of the same session.
    extra = {"timestamp": "2026-08-20T15:00:00Z", "type": "response_item", "payload": {
        "type": "message", "role": "user", "content": [{"type": "input_text", "text":
            "Go with exponential backoff, capped at six attempts total, then dead-letter to the webhook_failures "
            "table, because the ledger API flaps during deploys."}]}}
    with f.open("a") as fh:
        fh.write(json.dumps(extra) + "\n")
    import os

    os.utime(f, (T0 + 10, T0 + 10))
    r = sweep(brain, sources=("codex",), roots=roots, clock=LATER)
    assert r.outcomes[0].reason == "grew"
    files = list((brain.root / "memories" / "codex").glob("*.json"))
    assert [p.name for p in files] == ["exponential-backoff-capped-six-attempts-total.json"]
    second = json.loads(files[0].read_text())
    assert second["supersedes"] == first["id"] and "flaps during deploys" in second["body"]
    log = subprocess.run(["git", "-C", str(brain.root), "log", "--format=%s", "--",
                          "memories/codex/exponential-backoff-capped-six-attempts-total.json"],
                         capture_output=True, text=True).stdout.splitlines()
    assert len(log) == 2  # git keeps the first version


def test_dry_run_writes_nothing_and_reports_redactions(brain, tmp_path):
    roots = make_homes(tmp_path / "home", mtime=T0)
    head = brain.head()
    r = sweep(brain, roots=roots, clock=LATER, dry_run=True)
    assert r.dry_run and r.written == 0
    assert brain.head() == head and list(brain.records()) == []
    assert not (brain.root / "harvest" / "claude.json").exists()
    claude = next(o for o in r.outcomes if o.tool == "claude")
    assert claude.records and claude.redactions["stripe-key"] == 1
    dumped = json.dumps(r.to_dict())
    assert not any(s in dumped for s in PLANTED_SECRETS)


def test_a_reader_machine_never_writes(brain, tmp_path):
    roots = make_homes(tmp_path / "home", mtime=T0)
    brain.config.set("machine.role", "reader")
    head = brain.head()
    r = sweep(brain, roots=roots, clock=LATER)
    assert r.reader and r.dry_run and r.written == 0
    assert any(o.records for o in r.outcomes)
    assert brain.head() == head and list(brain.records()) == []


def test_invalid_llm_output_is_never_written_and_the_session_is_retried(brain, tmp_path):
    class BadModel:
        name, model = "test", "bad"

        def complete(self, system, user, *, json=False, max_tokens=800):
            return "I think the retry cap is six."

    roots = make_homes(tmp_path / "home", memory=False, mtime=T0)
    r = sweep(brain, sources=("gemini",), roots=roots, clock=LATER, llm=BadModel())
    assert r.outcomes[0].error and "rejected" in r.outcomes[0].error
    assert list(brain.records()) == [] and not (brain.root / "harvest" / "gemini.json").exists()
    r = sweep(brain, sources=("gemini",), roots=roots, clock=LATER, llm=None)
    assert r.written == 1  # not marked as harvested, so the next sweep takes it


def test_notify_callback(brain, tmp_path):
    roots = make_homes(tmp_path / "home", memory=False, mtime=T0)
    seen = []
    sweep(brain, sources=("claude", "codex"), roots=roots, clock=LATER, notify=seen.append)
    # Codex's session made Claude's decision again: it becomes a source of that record, nothing new to announce
    assert sorted(o.tool for o in seen) == ["claude"]
    brain.config.set("dedupe.link_on_write", False)
    seen.clear()
    sweep(brain, sources=("claude", "codex"), roots=roots, clock=LATER, notify=seen.append, files=[
        session_files(roots)["codex"]])
    assert [o.tool for o in seen] == ["codex"]


# ------------------------------------------------------------------------------------------ CLI
@pytest.fixture
def cli_env(brain, tmp_path, monkeypatch):
    roots = make_homes(tmp_path / "home", mtime=T0)
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(roots["claude"]))
    monkeypatch.setenv("CODEX_HOME", str(roots["codex"]))
    monkeypatch.setenv("GEMINI_CLI_HOME", str(tmp_path / "home"))
    monkeypatch.setenv("AIDA_BRAIN", str(brain.root))
    return roots


def test_cli_dry_run_then_harvest(cli_env, brain, capsys):
    assert main(["brain", "harvest", "--dry-run"]) == 0
    out = capsys.readouterr().out
    assert "would write" in out and "redacted" in out and "stripe-key x1" in out
    assert "+ [decision] codex/exponential-backoff-capped-six-attempts-total" in out
    assert not any(s in out for s in PLANTED_SECRETS)
    assert list(brain.records()) == []

    assert main(["brain", "harvest", "--source", "codex", "--json", "--no-mirror"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["written"] == 1 and [o["tool"] for o in data["outcomes"]] == ["codex"]

    assert main(["brain", "harvest", "--source", "codex"]) == 0
    assert "Skipped: 1 unchanged" in capsys.readouterr().out


def test_cli_file_harvests_one_transcript_now(cli_env, brain, capsys):
    f = session_files(cli_env)["gemini"]
    assert main(["brain", "harvest", "--file", str(f)]) == 0
    out = capsys.readouterr().out
    assert "gemini 5e1d9c3a-7b2f (file)" in out and "1 record(s) written" in out
    assert main(["brain", "harvest", "--file", str(f.parent / "missing.jsonl")]) == 2


def test_a_second_sweep_leaves_the_work_to_the_running_one(brain, tmp_path):
    from brain_core.store.locks import FileLock

    roots = make_homes(tmp_path / "home", memory=False, mtime=T0)
    held = FileLock(brain.root / ".aida" / "harvest.lock")
    held.acquire()
    try:
        r = sweep(brain, roots=roots, clock=LATER)
        assert r.outcomes == [] and "Another harvest is running" in r.notes[0]
        assert sweep(brain, roots=roots, clock=LATER, dry_run=True).outcomes  # a dry run needs no lock
    finally:
        held.release()
    assert sweep(brain, roots=roots, clock=LATER).written == 1  # one decision, three sessions: one record


def test_an_unreadable_transcript_fails_alone(cli_env, brain, capsys):
    day = cli_env["codex"] / "sessions" / "2026" / "08" / "20"
    bad = day / "rollout-2026-08-20T18-00-00-019ec8a2-0000-7000-8000-00000000dead.jsonl.zst"
    bad.write_bytes(b"this is not zstd at all")
    import os

    os.utime(bad, (T0, T0))
    assert main(["brain", "harvest", "--source", "codex", "--no-mirror"]) == 1
    lines = capsys.readouterr().out.strip().splitlines()
    assert "1 record(s) written." in lines
    assert lines[-1].startswith("1 session(s) could not be harvested and will be retried:") and "zstd" in lines[-1]
    wm = json.loads((brain.root / "harvest" / "codex.json").read_text())
    assert list(wm["sessions"]) == [CODEX_ID]  # the bad one is not marked, so it is retried


def test_a_rule_stated_mid_session_survives_a_long_session():
    from pathlib import Path

    from brain_core.harvest import Session, Turn
    from brain_core.harvest.run import session_text

    work = [Turn("assistant", "Running the migration step by step. " * 40), Turn("tool", "ok " * 200)] * 40
    rule = Turn("user", "Never run migrations without a backup, because the ledger cannot be rebuilt.")
    s = Session(tool="claude", id="x", path=Path("x"), turns=(Turn("user", "Migrate the ledger."), *work, rule, *work))
    assert len(s.transcript()) > 60_000
    assert rule.text in session_text(s, offline=True)
    bounded = session_text(s, offline=False)
    assert rule.text in bounded and len(bounded) <= 31_000
