"""``aida doctor`` separates what is broken from what is merely absent, and the messages a new user
meets name the real problem (a folder is not an audio file; no display means no tray)."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import keyring.core
import pytest

from brain_core.cli import main


def _doctor(capsys, *argv):
    rc = main(["doctor", "--json", *argv])
    return rc, {r["check"]: r for r in json.loads(capsys.readouterr().out)}


@pytest.fixture
def null_keyring(monkeypatch):
    previous = keyring.core._keyring_backend
    monkeypatch.setenv("PYTHON_KEYRING_BACKEND", "keyring.backends.null.Keyring")
    for name in ("OPENAI_API_KEY", "AIDA_OPENAI_API_KEY"):
        monkeypatch.delenv(name, raising=False)
    keyring.core.init_backend()
    yield
    keyring.core._keyring_backend = previous


def test_a_fresh_machine_has_no_failures_for_optional_parts(brain, null_keyring, capsys):
    rc, r = _doctor(capsys, "--brain", str(brain.root))
    assert r["brain"]["status"] == "ok" and r["settings"]["status"] == "ok"
    assert r["sqlite-vec"]["status"] == "ok" and r["embedding model"]["status"] == "ok"
    # nothing the user turned on needs these: never [FAIL]
    assert r["gpu"]["status"] in ("ok", "optional")
    assert r["keyring"]["status"] == "optional" and "null" in r["keyring"]["detail"]
    assert r["llm"]["status"] == "optional"
    assert "read offline" in r["llm"]["detail"] and "unchecked" in r["llm"]["detail"]
    assert all(x["status"] != "fail" for x in r.values()), r
    assert rc == 0


def test_text_output_marks_optional_parts(brain, null_keyring, capsys):
    assert main(["doctor", "--brain", str(brain.root)]) == 0
    out = capsys.readouterr().out
    assert "[ok]   sqlite-vec:" in out and "[--]   keyring (optional, not present):" in out and "[FAIL]" not in out


def test_portaudio_is_found_the_way_sounddevice_finds_it(capsys):
    try:
        import sounddevice  # noqa: F401  (loads libportaudio through ctypes.util.find_library)
    except OSError:
        present = False
    else:
        present = True
    _, r = _doctor(capsys)
    assert r["audio"]["status"] == ("ok" if present else "optional")
    if present:
        assert "PortAudio" in r["audio"]["detail"] and "install" not in r["audio"]["detail"]
        assert r["microphone"]["status"] in ("ok", "optional")  # a server without a microphone is fine


def test_bad_settings_fail_and_name_the_key(capsys, tmp_path, monkeypatch):
    cfg = tmp_path / "config.yaml"
    monkeypatch.setenv("AIDA_CONFIG", str(cfg))
    cfg.write_text("recall:\n  half_life_days: banana\n")
    rc, r = _doctor(capsys)
    assert rc == 1 and r["settings"]["status"] == "fail"
    assert "recall.half_life_days" in r["settings"]["detail"] and "aida config set" in r["settings"]["fix"]
    cfg.write_text("recal:\n  half_life_days: 5\n")
    rc, r = _doctor(capsys)
    assert rc == 1 and "did you mean recall.half_life_days" in r["settings"]["detail"]
    cfg.write_text("recall: [\n")
    rc, r = _doctor(capsys)
    assert rc == 1 and "cannot be read" in r["settings"]["detail"] and r["git"]["status"] == "ok"


def test_a_gpu_asked_for_and_absent_fails(capsys, tmp_path, monkeypatch):
    from brain_core.voice.transcribe import cuda_devices

    if cuda_devices() > 0:
        pytest.skip("this machine has a GPU")
    cfg = tmp_path / "config.yaml"
    monkeypatch.setenv("AIDA_CONFIG", str(cfg))
    cfg.write_text("voice:\n  device: cuda\n")
    rc, r = _doctor(capsys)
    assert rc == 1 and r["gpu"]["status"] == "fail" and "voice.device is cuda" in r["gpu"]["detail"]


def test_a_provider_that_needs_a_key_without_one_fails(null_keyring, capsys, tmp_path, monkeypatch):
    cfg = tmp_path / "config.yaml"
    monkeypatch.setenv("AIDA_CONFIG", str(cfg))
    cfg.write_text("llm:\n  provider: openai\n")
    rc, r = _doctor(capsys)
    assert rc == 1 and r["llm"]["status"] == "fail" and r["keyring"]["status"] == "fail"
    monkeypatch.setenv("OPENAI_API_KEY", "sk-from-env")
    rc, r = _doctor(capsys)
    assert r["llm"]["status"] == "ok" and "env:OPENAI_API_KEY" in r["llm"]["detail"]
    assert r["keyring"]["status"] == "optional"


def test_transcribing_a_folder_says_it_is_a_folder(tmp_path, capsys):
    assert main(["transcribe", str(tmp_path)]) == 1
    err = capsys.readouterr().err.strip()
    assert "is a folder, not an audio file" in err and "does not exist" not in err and "\n" not in err


@pytest.mark.slow
def test_the_tray_hint_on_a_machine_without_a_display(tmp_path):
    env = {k: v for k, v in os.environ.items() if k not in ("DISPLAY", "WAYLAND_DISPLAY")}
    env["AIDA_CONFIG"] = str(tmp_path / "config.yaml")
    env["XDG_RUNTIME_DIR"] = str(tmp_path)  # no tray listens here
    r = subprocess.run([sys.executable, "-m", "brain_core", "popup"], capture_output=True, text=True, env=env,
                       timeout=120)
    assert r.returncode == 1
    if sys.platform.startswith("linux"):
        assert "no display" in r.stderr and "aida ask" in r.stderr and "make run" not in r.stderr


def test_with_no_model_set_doctor_names_the_agent_cli_already_logged_in(brain, null_keyring, capsys, tmp_path,
                                                                         monkeypatch):
    from tests.helpers.fake_agents import install, on_path

    for var in ("CLAUDE_CONFIG_DIR", "CODEX_HOME", "GEMINI_CLI_HOME", "ANTHROPIC_API_KEY", "GEMINI_API_KEY",
                "GOOGLE_API_KEY"):
        monkeypatch.delenv(var, raising=False)
    home = tmp_path / "home"
    (home / ".claude").mkdir(parents=True)
    monkeypatch.setenv("HOME", str(home))
    on_path(monkeypatch, install(tmp_path / "bin"))
    _, r = _doctor(capsys, "--brain", str(brain.root))
    assert "log in to claude, codex or gemini once" in r["llm"]["fix"]
    (home / ".claude" / ".credentials.json").write_text("{}")
    _, r = _doctor(capsys, "--brain", str(brain.root))
    assert r["llm"]["status"] == "optional"
    assert r["llm"]["fix"].startswith("`aida config set llm.provider auto` uses claude-code, logged in on this machine")
