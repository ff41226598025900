"""The `aida brain` commands as a user runs them (in-process through main(), and one real process)."""

from __future__ import annotations

import json
import os
import subprocess
import sys

from brain_core.cli import build_parser, main


def run(capsys, *argv):
    rc = main(list(argv))
    out = capsys.readouterr()
    return rc, out.out, out.err


def test_init_remember_recall_json(tmp_path, capsys):
    b = str(tmp_path / "brain")
    assert run(capsys, "--brain", b, "brain", "init")[0] == 0
    rc, out, _ = run(capsys, "--brain", b, "brain", "remember", "--key", "webhook-retry-policy", "--profile", "codex",
                     "--tags", "project:damage-control,infra", "Webhook retries are capped at six attempts.")
    assert rc == 0 and "codex/webhook-retry-policy" in out
    rc, out, _ = run(capsys, "--brain", b, "brain", "recall", "--json", "-k", "3", "why is the retry cap six")
    hits = json.loads(out)
    assert rc == 0 and hits[0]["key"] == "webhook-retry-policy"
    for field in ("id", "key", "type", "profile", "tags", "body", "path", "created", "score"):
        assert field in hits[0]
    assert hits[0]["tags"] == ["project:damage-control", "infra"]
    rc, out, _ = run(capsys, "--brain", b, "brain", "recall", "--explain", "retry cap")
    assert "bm25 #1" in out and "vector #1" in out and "decay" in out and "memories/codex/webhook-retry-policy.json" in out


def test_env_brain_and_errors_are_one_sentence(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("AIDA_BRAIN", str(tmp_path / "nowhere"))
    rc, out, err = run(capsys, "brain", "recall", "anything")
    assert rc != 0 and err.startswith("aida: ") and "aida brain init" in err and len(err.strip().splitlines()) == 1
    run(capsys, "brain", "init")
    rc, out, err = run(capsys, "brain", "remember", "--key", "../../x", "escape")
    assert rc == 2 and "kebab-case" in err and "Traceback" not in err


def test_status_and_index(tmp_path, capsys):
    b = str(tmp_path / "brain")
    run(capsys, "--brain", b, "brain", "init")
    run(capsys, "--brain", b, "brain", "remember", "One fact.")
    rc, out, _ = run(capsys, "--brain", b, "brain", "status", "--json")
    st = json.loads(out)
    assert st["indexed_total"] == 1 and st["pending"]["total"] == 0 and st["uncommitted"] == []
    (tmp_path / "brain/memories/me/hand.json").write_text(json.dumps(
        {"id": "20260101-000000000-abcdef", "type": "note", "key": "hand", "profile": "me", "body": "By hand."}))
    st = json.loads(run(capsys, "--brain", b, "brain", "status", "--json")[1])
    assert st["pending"]["new"] == 1 and st["uncommitted"] == ["memories/me/hand.json"]
    rc, out, _ = run(capsys, "--brain", b, "brain", "index")
    assert "1 new" in out and "Committed 1" in out
    st = json.loads(run(capsys, "--brain", b, "brain", "status", "--json")[1])
    assert st["pending"]["total"] == 0 and st["uncommitted"] == []


def test_every_command_has_help_text():
    parser = build_parser()
    missing = []

    def walk(p, prefix):
        for action in p._actions:
            if action.__class__.__name__ == "_SubParsersAction":
                helps = {a.dest: a.help for a in action._choices_actions}
                for name, sub in action.choices.items():
                    if not helps.get(name):
                        missing.append(f"{prefix} {name}")
                    walk(sub, f"{prefix} {name}")

    walk(parser, "aida")
    assert missing == []


def test_the_installed_command_runs(tmp_path):
    env = dict(os.environ, AIDA_BRAIN=str(tmp_path / "brain"))
    aida = [sys.executable, "-m", "brain_core"]
    subprocess.run([*aida, "brain", "init"], check=True, env=env, capture_output=True)
    subprocess.run([*aida, "brain", "remember", "The cluster is named orca."], check=True, env=env, capture_output=True)
    out = subprocess.run([*aida, "brain", "recall", "--json", "cluster name"], check=True, env=env,
                         capture_output=True, text=True).stdout
    assert json.loads(out)[0]["body"] == "The cluster is named orca."
