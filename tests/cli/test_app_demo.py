"""`aida demo` (headless, no Qt) and the app commands' edges: no display, Qt kept out of brain_core."""

from __future__ import annotations

import io
import os
import subprocess
import sys

import pytest

from tests.helpers.speech import says


def test_demo_runs_every_step_offline_without_voice(tmp_path):
    from brain_core.cli.demo import run_demo

    out = io.StringIO()
    assert run_demo(keep=tmp_path / "demo", voice=False, out=out) == 0
    text = out.getvalue()
    for step in ("1. Make a brain", "2. Harvest the sample agent sessions", "3. Hear the sample question",
                 "4. Route it", "5. Recall from the brain", "6. Answer"):
        assert step in text
    assert "claude session 5b8e1c2d" in text and "codex session 019ec8a2" in text
    assert "3 of them read offline: marked unchecked" in text  # no model here: every record is an extract
    assert "recall: True" in text
    # The harvested decision is recalled first and the offline answer cites it.
    recall_part = text.split("5. Recall from the brain")[1].split("6. Answer")[0]
    first = recall_part.strip().splitlines()[0]
    assert "webhook" in first and "decision" in first
    answer_part = text.split("6. Answer")[1]
    assert "six attempts" in answer_part and "run record" in answer_part
    brain = tmp_path / "demo" / "brain"
    assert len(list((brain / "memories").rglob("*.json"))) >= 3
    assert list((brain / ".aida" / "runs").glob("*.json"))
    log = subprocess.run(["git", "log", "--format=%an %s"], cwd=brain, capture_output=True, text=True).stdout
    assert "Aida harvest: claude" in log and "Aida harvest: codex" in log  # committed under Aida's name


def test_demo_hears_the_sample_question(tmp_path):
    pytest.importorskip("faster_whisper")
    from brain_core.cli.demo import run_demo
    from brain_core.voice.transcribe import WhisperTranscriber

    out = io.StringIO()
    assert run_demo(voice=True, out=out, transcriber=WhisperTranscriber(device="cpu")) == 0
    heard = out.getvalue().split("3. Hear the sample question")[1].split("4. Route it")[0]
    assert "question.wav" in heard and "tiny.en" in heard
    assert says(heard, "retry policy"), heard  # numerals, case and punctuation may differ between CPUs
    assert not (tmp_path / "demo").exists()


def test_the_demo_command_loads_no_qt_and_cleans_up():
    code = ("import sys, io, contextlib; from brain_core.cli import main\n"
            "buf = io.StringIO()\n"
            "with contextlib.redirect_stdout(buf): rc = main(['demo', '--no-voice'])\n"
            "assert rc == 0, buf.getvalue()\n"
            "assert not [m for m in sys.modules if m.startswith(('PySide6', 'shiboken6', 'app'))], 'Qt was imported'\n"
            "print('ok', 'demo brain was removed' in buf.getvalue())")
    env = {k: v for k, v in os.environ.items() if k not in ("DISPLAY", "WAYLAND_DISPLAY", "QT_QPA_PLATFORM")}
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=240)
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == "ok True"


def test_tray_without_a_display_says_to_run_the_demo(monkeypatch, capsys):
    from brain_core.cli import main

    for var in ("DISPLAY", "WAYLAND_DISPLAY", "QT_QPA_PLATFORM"):
        monkeypatch.delenv(var, raising=False)
    if sys.platform.startswith(("win", "darwin")):
        pytest.skip("there is always a display on Windows and macOS")
    assert main(["tray"]) == 1
    err = capsys.readouterr().err
    assert "No display was found" in err and "aida demo" in err


def test_app_commands_are_registered_with_help():
    from brain_core.cli import build_parser

    parser = build_parser()
    sub = next(a for a in parser._actions if a.dest == "command")
    for name in ("tray", "popup", "ptt", "demo"):
        assert name in sub.choices
        assert sub.choices[name].format_help().strip()
    helps = {c.dest: c.help for c in sub._choices_actions}
    assert all(helps[n] for n in ("tray", "popup", "ptt", "demo"))
