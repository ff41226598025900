"""The settings dialog: values land in the core's settings file; the API key goes to the keyring, unseen."""

from __future__ import annotations

import pytest

pytest.importorskip("PySide6.QtWidgets")

from PySide6.QtCore import Qt  # noqa: E402
from PySide6.QtGui import QKeySequence  # noqa: E402
from PySide6.QtWidgets import QAbstractButton, QComboBox, QLabel, QLineEdit  # noqa: E402

from tests.helpers.keyring_memory import memory_keyring  # noqa: F401,E402  (fixture)

pytestmark = pytest.mark.gui
SECRET = "sk-test-0123456789abcdefSECRET"


def every_text(dialog) -> str:
    """All text a person could see or copy out of the dialog."""
    parts = [dialog.windowTitle()]
    for w in dialog.findChildren(QLineEdit):
        parts += [w.text(), w.displayText(), w.placeholderText()]
    for w in dialog.findChildren(QLabel):
        parts.append(w.text())
    for w in dialog.findChildren(QAbstractButton):
        parts.append(w.text())
    for w in dialog.findChildren(QComboBox):
        parts.append(w.currentText())
    return "\n".join(parts)


@pytest.fixture
def config(tmp_path, monkeypatch):
    from brain_core.config import Config

    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg"))  # start-at-login writes here
    return Config.load()


def open_dialog(qtbot, config, **kw):
    from app.settings import SettingsDialog

    d = SettingsDialog(config, **kw)
    qtbot.addWidget(d)
    d.show()
    return d


def test_the_key_is_stored_in_the_keyring_and_never_shown(qtbot, config, memory_keyring, tmp_path):
    d = open_dialog(qtbot, config)
    assert d.key_state.text().startswith("No key needed")
    d.provider.setCurrentText("openai")
    assert d.key.isEnabled() and "No key is stored" in d.key_state.text()
    assert d.key.echoMode() == QLineEdit.EchoMode.Password
    qtbot.keyClicks(d.key, SECRET)
    assert SECRET not in d.key.displayText()  # masked while typed
    d.llm_model.setText("gpt-4o-mini")
    d.model.setCurrentText("base.en")
    d.device.setCurrentText("cpu")
    d.sweep.setValue(15)
    d.brain.setText(str(tmp_path / "my-brain"))
    d.recall_key.setKeySequence(QKeySequence("Ctrl+Shift+K"))
    d.login.setChecked(True)
    with qtbot.waitSignal(d.saved, timeout=2000):
        d.save()

    assert memory_keyring == {("aida", "openai"): SECRET}
    assert d.key.text() == ""
    assert SECRET not in every_text(d)
    assert "stored in the system keyring" in d.key_state.text()

    # Everything else is in the core's settings file, which never holds the key.
    from brain_core.config import Config

    saved = Config.load(config.path)
    assert saved.get("llm.provider") == "openai" and saved.get("llm.model") == "gpt-4o-mini"
    assert saved.get("voice.model") == "base.en" and saved.get("voice.device") == "cpu"
    assert saved.get("tray.sweep_minutes") == 15
    assert saved.get("tray.hotkeys.recall") == "Ctrl+Shift+K"
    assert saved.brain_path() == tmp_path / "my-brain"
    assert SECRET not in config.path.read_text()
    autostart = tmp_path / "xdg" / "autostart" / "aida.desktop"
    assert "Exec=" in autostart.read_text() and " tray" in autostart.read_text()

    # Opened again: the field is empty, the state line says a key is there.
    again = open_dialog(qtbot, saved)
    assert again.provider.currentText() == "openai"
    assert again.key.text() == "" and SECRET not in every_text(again)
    assert "stored in the system keyring" in again.key_state.text()
    assert again.login.isChecked()
    again.login.setChecked(False)
    again.forget_key.click()
    assert memory_keyring == {}
    assert "No key is stored" in again.key_state.text()
    again.save()
    assert not autostart.exists()


def test_a_refused_key_keeps_the_dialog_open_and_still_clears_the_field(qtbot, config, memory_keyring):
    d = open_dialog(qtbot, config)
    d.provider.setCurrentText("anthropic")
    qtbot.keyClicks(d.key, "two words")
    d.save()
    assert "whitespace" in d.error.text()
    assert d.result() == 0 and d.isVisible()
    assert d.key.text() == "" and memory_keyring == {}


def test_on_wayland_the_settings_show_the_commands_to_bind(qtbot, config):
    from app.hotkeys import support

    wayland = support({"WAYLAND_DISPLAY": "wayland-0", "XDG_SESSION_TYPE": "wayland"}, "linux")
    d = open_dialog(qtbot, config, hotkey_support=wayland)
    note = d.hotkey_note.text()
    assert "Wayland" in note and "aida popup" in note and "aida ptt" in note
    assert not d.recall_key.isEnabled() and not d.hotkeys_on.isEnabled()
    x11 = open_dialog(qtbot, config, hotkey_support=support({"DISPLAY": ":0"}, "linux"))
    assert x11.recall_key.isEnabled() and "aida popup" not in x11.hotkey_note.text()
    assert x11.recall_key.keySequence().toString() == "Ctrl+Alt+Space"


def test_the_key_field_is_not_offered_to_the_input_method_or_the_clipboard(qtbot, config, memory_keyring):
    d = open_dialog(qtbot, config)
    d.provider.setCurrentText("openai")
    assert not d.key.testAttribute(Qt.WidgetAttribute.WA_InputMethodEnabled)
    # A password field refuses copy and cut (Qt's own rule for Password echo mode).
    qtbot.keyClicks(d.key, SECRET)
    d.key.selectAll()
    d.key.copy()
    from PySide6.QtGui import QGuiApplication

    assert QGuiApplication.clipboard().text() != SECRET
