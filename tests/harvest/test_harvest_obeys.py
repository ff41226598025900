"""The harvest's own files stay private and the harvest obeys the user: watermarks with no home
path and no login name (old ones migrated), one switch that pauses every path that harvests,
folders excluded by a setting or an ``.aidaignore`` before any transcript is read."""

from __future__ import annotations

import json
import os
import shutil
import subprocess

from brain_core.cli import main
from brain_core.harvest.run import sweep
from brain_core.harvest.watermark import Watermark
from tests.helpers.harvest_homes import FIXTURES, make_homes

T0 = 1_787_000_000.0
LATER = lambda: T0 + 3600  # noqa: E731


def _zoe_home(tmp_path, monkeypatch):
    home = tmp_path / "zoe"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    roots = make_homes(home, memory=False, mtime=T0)
    own = roots["claude"] / "projects" / "-home-zoe-work-app"
    own.mkdir()
    shutil.copy(FIXTURES / "claude_code_session.jsonl", own / "11111111-2222-4333-8444-555555555555.jsonl")
    os.utime(own / "11111111-2222-4333-8444-555555555555.jsonl", (T0, T0))
    return home, roots


def test_watermarks_hold_no_home_path_and_no_login_name(brain, tmp_path, monkeypatch):
    home, roots = _zoe_home(tmp_path, monkeypatch)
    r = sweep(brain, roots=roots, clock=LATER, include_mirror=False)
    assert len(r.outcomes) == 4 and not r.errors
    for tool in ("claude", "codex", "gemini"):
        text = (brain.root / "harvest" / f"{tool}.json").read_text()
        assert str(tmp_path) not in text and "zoe" not in text.lower(), text
        paths = [s["path"] for s in json.loads(text)["sessions"].values()]
        # (a Codex rollout's long name is masked by the write gate's entropy rule, as before)
        assert paths and all(p.startswith(f"~/.{tool}/") or p.startswith("~/.[REDACTED") for p in paths), paths
    log = subprocess.run(["git", "-C", str(brain.root), "log", "-p", "--", "harvest"], capture_output=True, text=True,
                         check=True).stdout
    assert "zoe" not in log.lower() and str(home) not in log
    # nothing is harvested twice because the paths moved to ~
    again = sweep(brain, roots=roots, clock=LATER, include_mirror=False)
    assert again.outcomes == [] and again.skipped == {"unchanged": 4}


def test_an_old_watermark_with_absolute_paths_is_migrated_on_read(brain, tmp_path, monkeypatch):
    home, roots = _zoe_home(tmp_path, monkeypatch)
    sweep(brain, roots=roots, clock=LATER, include_mirror=False)
    data = json.loads((brain.root / "harvest" / "codex.json").read_text())
    for s in data["sessions"].values():  # as written before: the absolute path
        s["path"] = s["path"].replace("~", str(home), 1)
    brain.write_text("harvest/codex.json", json.dumps(data), "old watermark")
    assert str(home) in (brain.root / "harvest" / "codex.json").read_text()
    wm = Watermark.load(brain, "codex")
    assert all(s["path"].startswith("~/.") for s in wm.sessions.values())
    again = sweep(brain, roots=roots, clock=LATER, include_mirror=False)
    assert again.outcomes == []  # the migrated watermark still knows each session
    wm.save(brain)
    assert str(home) not in (brain.root / "harvest" / "codex.json").read_text()


def test_pause_stops_the_hook_the_sweep_and_the_cli_but_not_force(brain, tmp_path, monkeypatch, capsys):
    roots = make_homes(tmp_path / "h", memory=False, mtime=T0)
    brain.config.set("tray.harvest_paused", True)
    brain.config.set("harvest.roots", {k: str(v) for k, v in roots.items()})
    brain.config.save()
    r = sweep(brain, roots=roots, clock=LATER)
    assert r.paused and r.outcomes == [] and "paused" in r.notes[0]
    started = []
    monkeypatch.setattr("brain_core.agents.hooks.spawn_detached", lambda *a, **k: started.append(a) or 1)
    assert main(["--brain", str(brain.root), "brain", "harvest", "--hook", "claude", "{}"]) == 0
    assert started == []
    assert main(["--brain", str(brain.root), "brain", "harvest", "--now"]) == 0
    assert "paused" in capsys.readouterr().out and not (brain.root / "harvest" / "claude.json").exists()
    from brain_core.harvest.backfill import backfill

    assert backfill(brain, roots=roots).records == 0 and not (brain.root / "harvest" / "claude.json").exists()
    assert main(["--brain", str(brain.root), "brain", "harvest", "--now", "--force", "--no-mirror"]) == 0
    assert "1 record(s) written." in capsys.readouterr().out
    brain.config.set("tray.harvest_paused", False)
    brain.config.save()
    main(["--brain", str(brain.root), "brain", "harvest", "--hook", "claude", "{}"])
    assert len(started) == 1  # unpaused: the hook starts a harvest again


def test_inside_an_agent_call_the_hook_and_the_sweep_do_nothing(brain, tmp_path, monkeypatch):
    roots = make_homes(tmp_path / "h", memory=False, mtime=T0)
    started = []
    monkeypatch.setattr("brain_core.agents.hooks.spawn_detached", lambda *a, **k: started.append(a) or 1)
    monkeypatch.setenv("AIDA_CHILD", "1")
    assert main(["--brain", str(brain.root), "brain", "harvest", "--hook", "codex", "{}"]) == 0
    r = sweep(brain, roots=roots, clock=LATER)
    assert started == [] and r.outcomes == [] and "AIDA_CHILD" in r.notes[0]
    monkeypatch.delenv("AIDA_CHILD")
    assert sweep(brain, roots=roots, clock=LATER, include_mirror=False).outcomes


def _broken_tail(path):
    """Keep the head (where the folder is named), break the rest: parsing it would fail or differ."""
    head = path.read_text().splitlines()[:3]
    path.write_text("\n".join(head) + "\n" + "\x00not json at all\n" * 50)
    os.utime(path, (T0, T0))


def test_excluded_folders_and_aidaignore_are_left_out_before_reading(brain, tmp_path, monkeypatch):
    roots = make_homes(tmp_path / "h", memory=False, mtime=T0)
    from brain_core.harvest.sources import claude as claude_src

    parsed = []
    real = claude_src.Source.parse
    monkeypatch.setattr(claude_src.Source, "parse", lambda self, p: parsed.append(p) or real(self, p))
    brain.config.set("harvest.exclude", ["/home/dev/acme-*"])
    r = sweep(brain, roots=roots, clock=LATER, include_mirror=False)
    # all three fixture sessions ran in /home/dev/acme-billing
    assert r.outcomes == [] and r.skipped == {"excluded": 3} and parsed == []
    assert not (brain.root / "harvest" / "claude.json").exists()

    brain.config.set("harvest.exclude", [])
    repo = tmp_path / "work" / "secret-app"
    (repo / "src").mkdir(parents=True)
    (repo / ".aidaignore").write_text("")
    project = roots["claude"] / "projects" / "-work-secret-app-src"
    project.mkdir()
    line = {"type": "user", "cwd": str(repo / "src"), "sessionId": "x", "uuid": "u", "timestamp": "2026-08-20T10:00:00Z",
            "message": {"role": "user", "content": "We decided to always ship the secret thing on Mondays."}}
    f = project / "99999999-2222-4333-8444-555555555555.jsonl"
    f.write_text(json.dumps(line) + "\n")
    _broken_tail(f)
    r = sweep(brain, roots=roots, clock=LATER, include_mirror=False)
    assert r.skipped == {"aidaignore": 1} and len(r.outcomes) == 3
    assert f not in parsed and not any("secret thing" in rec.body for _, rec in brain.records())
    # --file is no way around it
    r = sweep(brain, files=[f], clock=LATER)
    assert r.outcomes == [] and r.skipped == {"aidaignore": 1}
