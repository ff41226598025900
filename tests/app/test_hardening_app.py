"""Where the user looks: a broken settings file is shown in a dialog when the tray starts (with the
line), a shortcut such as Ctrl+Alt+Banana is refused where it is set, the settings have a
microphone chooser (the no-microphone message points to it), and a mistyped command gets a
"did you mean"."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from tests.helpers.paths import REPO


def aida(*args, env=None):
    full = dict(os.environ, PYTHONPATH=str(REPO), **(env or {}))
    return subprocess.run([sys.executable, "-m", "brain_core", *args], capture_output=True, text=True, env=full)


# -- the CLI ----------------------------------------------------------------------------------------

@pytest.mark.parametrize("typed, meant", [(["brain", "recal", "x"], "recall"), (["aks", "q"], "ask"),
                                          (["recall", "x"], "brain recall"), (["config", "sett", "a", "b"], "set")])
def test_a_mistyped_command_gets_did_you_mean(typed, meant):
    run = aida(*typed)
    assert run.returncode == 2 and f"did you mean '{meant}'?" in run.stderr


def test_a_shortcut_that_is_not_one_is_refused_by_config_set_and_doctor(tmp_path):
    cfg = tmp_path / "config.yaml"
    env = {"AIDA_CONFIG": str(cfg)}
    bad = aida("config", "set", "tray.hotkeys.recall", "Ctrl+Alt+Banana", env=env)
    assert bad.returncode == 2 and "'Banana' is not a key name" in bad.stderr
    assert not cfg.exists()
    good = aida("config", "set", "tray.hotkeys.recall", "Ctrl+Alt+K", env=env)
    assert good.returncode == 0, good.stderr
    cfg.write_text("recall:\n  fusion: score\ntray:\n  hotkeys:\n    ptt: Ctrl+Alt+Banana\n")
    doc = aida("doctor", "--json", env=env)
    import json

    settings = next(c for c in json.loads(doc.stdout) if c["check"] == "settings")
    assert settings["status"] == "fail" and "Banana" in settings["detail"]
    status = aida("brain", "status", env=env)
    assert status.returncode != 0 and "(line 5)" in status.stderr and "Banana" in status.stderr


def test_the_no_microphone_message_names_a_setting_that_exists():
    from brain_core.config.schema import BY_KEY
    from brain_core.voice.capture import SoundDeviceSource

    class NoDevices:  # what sounddevice answers on a machine without a microphone
        class PortAudioError(Exception):
            pass

        def query_devices(self, device=None, kind=None):
            raise self.PortAudioError("Error querying device -1")

    from brain_core.errors import AudioError

    with pytest.raises(AudioError) as e:
        SoundDeviceSource(module=NoDevices()).check()
    assert "Settings > Voice > Microphone" in str(e.value) and "voice.input_device" in str(e.value)
    assert "voice.input_device" in BY_KEY


# -- the tray -----------------------------------------------------------------------------------------

pytest.importorskip("PySide6.QtWidgets")


def _answer_dialog(qtbot, seen: list):
    from PySide6.QtCore import QTimer
    from PySide6.QtWidgets import QApplication, QMessageBox

    def look():
        boxes = [w for w in QApplication.topLevelWidgets() if isinstance(w, QMessageBox) and w.isVisible()]
        if not boxes:
            QTimer.singleShot(50, look)
            return
        box = boxes[0]
        seen.append((box.windowTitle(), box.text(), [b.text() for b in box.buttons()]))
        next(b for b in box.buttons() if b.text() == "Quit").click()

    QTimer.singleShot(0, look)


@pytest.mark.gui
def test_a_broken_settings_file_is_shown_in_a_dialog_when_the_tray_starts(qtbot, tmp_path, monkeypatch, capsys):
    from brain_core.cli import main

    cfg = tmp_path / "config.yaml"
    cfg.write_text("recall:\n  fusion: score\ntray:\n  hotkeys:\n    recall: Ctrl+Alt+Banana\n")
    monkeypatch.setenv("AIDA_CONFIG", str(cfg))
    seen: list = []
    _answer_dialog(qtbot, seen)
    rc = main(["tray"])
    assert rc == 1
    title, text, buttons = seen[0]
    assert title == "Aida cannot start" and "(line 5)" in text and "Banana" in text and str(cfg) in text
    assert "Open the settings file" in buttons
    cfg.write_text("recall: [unclosed\n")
    seen.clear()
    _answer_dialog(qtbot, seen)
    assert main(["tray"]) == 1
    assert "line 2" in seen[0][1] or "line 1" in seen[0][1]


@pytest.mark.gui
def test_the_settings_dialog_chooses_a_microphone(qtbot, tmp_path, monkeypatch):
    from brain_core.config import Config

    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg"))
    config = Config.load()
    from app.settings import SettingsDialog

    mics = lambda: (["USB Headset", "Built-in Microphone"], None)  # noqa: E731 - the devices PortAudio lists
    d = SettingsDialog(config, microphones=mics)
    qtbot.addWidget(d)
    items = [d.microphone.itemText(i) for i in range(d.microphone.count())]
    assert items == ["System default", "USB Headset", "Built-in Microphone"]
    d.microphone.setCurrentIndex(1)
    d.save()
    assert Config.load().get("voice.input_device") == "USB Headset"
    again = SettingsDialog(Config.load(), microphones=lambda: (["Built-in Microphone"], None))
    qtbot.addWidget(again)
    assert again.microphone.currentText() == "USB Headset (not connected)"
    none = SettingsDialog(Config.load(), microphones=lambda: ([], "No microphone was found; plug one in."))
    qtbot.addWidget(none)
    assert none.mic_note.text().startswith("No microphone") and none.microphone.itemText(0) == "System default"
    real = SettingsDialog(Config.load())  # whatever this machine's audio system lists
    qtbot.addWidget(real)
    assert real.microphone.itemText(0) == "System default"
