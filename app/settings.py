"""The settings dialog: brain folder, hotkeys, voice, language model and key, sweep, start at login.

Everything lands in the core's settings file (:class:`brain_core.config.Config`), which the CLI,
the hooks and the MCP server read too; QSettings keeps only window geometry. The API key goes to
the OS keyring through :mod:`brain_core.config.keys` and is never shown: the field starts empty, says
whether a key is stored and where, and typing a new one replaces it.
"""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import Qt, Signal, Slot
from PySide6.QtGui import QKeySequence
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QFileDialog,
    QFormLayout,
    QGroupBox,
    QHBoxLayout,
    QKeySequenceEdit,
    QLabel,
    QLineEdit,
    QPushButton,
    QSpinBox,
    QVBoxLayout,
    QWidget,
)

from brain_core.config import Config
from brain_core.errors import BrainError
from brain_core.store.fsutil import absolute

from . import autostart
from .hotkeys import BIND_COMMANDS, DEFAULT_PTT, DEFAULT_RECALL, Support, support

WHISPER_MODELS = ("tiny.en", "base.en", "base", "small.en", "small", "medium", "large-v3", "distil-large-v3")
DEVICES = ("auto", "cpu", "cuda")
DEFAULT_SWEEP_MINUTES = 5


def providers() -> list[str]:
    from brain_core.llm.factory import FLAVOURS, OFFLINE

    return [OFFLINE, *FLAVOURS]


def key_status(provider: str) -> str:
    """Where the key for ``provider`` comes from, in words, without the key."""
    if provider == "none":
        return "No key needed: answers are made offline from your records."
    from brain_core.config.keys import lookup

    try:
        key, where = lookup(provider)
    except BrainError as e:
        return str(e)
    if not key:
        return "No key is stored."
    if where == "keyring":
        return "A key is stored in the system keyring; type a new one to replace it."
    return f"A key comes from the environment ({where.split(':', 1)[-1]}); a key typed here goes to the keyring."


class SettingsDialog(QDialog):
    saved = Signal()

    def __init__(self, config: Config, parent: QWidget | None = None, hotkey_support: Support | None = None,
                 microphones=None) -> None:
        super().__init__(parent)
        self.config = config
        self.setWindowTitle("Aida settings")
        self.setMinimumWidth(520)
        self.support = hotkey_support or support()

        # brain
        self.brain = QLineEdit(str(config.brain_path()))
        browse = QPushButton("Choose…")
        browse.clicked.connect(self._browse)
        brain_row = QHBoxLayout()
        brain_row.addWidget(self.brain, 1)
        brain_row.addWidget(browse)

        # hotkeys
        self.recall_key = QKeySequenceEdit(QKeySequence(config.get("tray.hotkeys.recall", DEFAULT_RECALL)))
        self.ptt_key = QKeySequenceEdit(QKeySequence(config.get("tray.hotkeys.ptt", DEFAULT_PTT)))
        self.hotkeys_on = QCheckBox("Listen for these shortcuts everywhere")
        self.hotkeys_on.setChecked(bool(config.get("tray.hotkeys.enabled", True)))
        self.hotkey_note = QLabel(self._hotkey_note())
        self.hotkey_note.setWordWrap(True)
        self.hotkey_note.setTextFormat(Qt.TextFormat.RichText)
        self.hotkey_note.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        for w in (self.recall_key, self.ptt_key, self.hotkeys_on):
            w.setEnabled(self.support.available)

        # voice
        self.model = QComboBox()
        self.model.setEditable(True)  # a model folder works too
        self.model.addItems(WHISPER_MODELS)
        self.model.setCurrentText(str(config.get("voice.model", "tiny.en")))
        self.device = QComboBox()
        self.device.addItems(DEVICES)
        self.device.setCurrentText(str(config.get("voice.device", "auto")))
        self.microphone = QComboBox()  # voice.input_device: what the no-microphone message points to
        self.mic_note = QLabel()
        self.mic_note.setWordWrap(True)
        self._fill_microphones(microphones)

        # language model
        self.provider = QComboBox()
        self.provider.addItems(providers())
        current = str(config.get("llm.provider", "none") or "none")
        self.provider.setCurrentText(current if current in providers() else "none")
        self.llm_model = QLineEdit(str(config.get("llm.model", "") or ""))
        self.llm_model.setPlaceholderText("default for the provider")
        self.base_url = QLineEdit(str(config.get("llm.base_url", "") or ""))
        self.base_url.setPlaceholderText("default for the provider")
        self.key = QLineEdit()
        self.key.setEchoMode(QLineEdit.EchoMode.Password)
        self.key.setPlaceholderText("paste a new key to store it")
        self.key.setAttribute(Qt.WidgetAttribute.WA_InputMethodEnabled, False)
        self.key_state = QLabel()
        self.key_state.setWordWrap(True)
        self.forget_key = QPushButton("Remove stored key")
        self.forget_key.clicked.connect(self._forget)
        self.provider.currentTextChanged.connect(self._provider_changed)

        # sweep and start
        self.sweep = QSpinBox()
        self.sweep.setRange(0, 24 * 60)
        self.sweep.setSuffix(" min")
        self.sweep.setSpecialValueText("off")
        self.sweep.setValue(int(config.get("tray.sweep_minutes", DEFAULT_SWEEP_MINUTES)))
        self.login = QCheckBox("Start Aida when I log in")
        self.login.setChecked(autostart.is_enabled())

        self.error = QLabel()
        self.error.setStyleSheet("color: #b91c1c;")
        self.error.setWordWrap(True)

        form = QFormLayout()
        form.addRow("Brain folder", brain_row)
        keys_box = QGroupBox("Shortcuts")
        kf = QFormLayout(keys_box)
        kf.addRow("Quick recall", self.recall_key)
        kf.addRow("Push-to-talk (hold)", self.ptt_key)
        kf.addRow(self.hotkeys_on)
        kf.addRow(self.hotkey_note)
        voice_box = QGroupBox("Voice")
        vf = QFormLayout(voice_box)
        vf.addRow("Whisper model", self.model)
        vf.addRow("Device", self.device)
        vf.addRow("Microphone", self.microphone)
        vf.addRow("", self.mic_note)
        llm_box = QGroupBox("Language model")
        lf = QFormLayout(llm_box)
        lf.addRow("Provider", self.provider)
        lf.addRow("Model", self.llm_model)
        lf.addRow("Server URL", self.base_url)
        lf.addRow("API key", self.key)
        lf.addRow("", self.key_state)
        lf.addRow("", self.forget_key)
        other = QFormLayout()
        other.addRow("Harvest sweep every", self.sweep)
        other.addRow(self.login)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Save | QDialogButtonBox.StandardButton.Cancel)
        buttons.accepted.connect(self.save)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addLayout(form)
        layout.addWidget(keys_box)
        layout.addWidget(voice_box)
        layout.addWidget(llm_box)
        layout.addLayout(other)
        layout.addWidget(self.error)
        layout.addWidget(buttons)
        self._provider_changed(self.provider.currentText())

    def _fill_microphones(self, microphones) -> None:
        """System default first, then every input device the audio system lists (``microphones``:
        a callable returning ``(names, problem)``, :func:`brain_core.agents.setup.microphones` by default);
        a chosen one that is not connected now stays in the list, marked so."""
        if microphones is None:
            from brain_core.agents.setup import microphones
        try:
            names, problem = microphones()
        except Exception as e:  # noqa: BLE001 - the dialog must open whatever the audio system does
            names, problem = [], f"The audio system could not be asked for microphones ({e})."
        self.microphone.addItem("System default", None)
        for name in names:
            self.microphone.addItem(name, name)
        chosen = self.config.get("voice.input_device", None)
        if chosen is not None and str(chosen) not in names:
            self.microphone.addItem(f"{chosen} (not connected)", chosen)
        index = self.microphone.findData(chosen) if chosen is not None else 0
        self.microphone.setCurrentIndex(max(index, 0))
        self.mic_note.setText(problem or "")
        self.mic_note.setVisible(bool(problem))

    def _hotkey_note(self) -> str:
        if self.support.available:
            return self.support.reason
        lines = "".join(f"<br>{label}: <code>{cmd}</code>" for label, cmd in BIND_COMMANDS.items())
        return f"{self.support.reason}{lines}"

    @Slot()
    def _browse(self) -> None:
        folder = QFileDialog.getExistingDirectory(self, "Brain folder", self.brain.text() or str(Path.home()))
        if folder:
            self.brain.setText(folder)

    @Slot(str)
    def _provider_changed(self, provider: str) -> None:
        offline = provider == "none"
        for w in (self.llm_model, self.base_url, self.key, self.forget_key):
            w.setEnabled(not offline)
        self.key_state.setText(key_status(provider))

    @Slot()
    def _forget(self) -> None:
        from brain_core.config.keys import delete_key

        provider = self.provider.currentText()
        try:
            removed = delete_key(provider)
        except BrainError as e:
            self.error.setText(str(e))
            return
        self.key_state.setText(key_status(provider) if removed else "No key was stored in the keyring.")

    @Slot()
    def save(self) -> None:
        """Store everything; on a refused value, say why and keep the dialog open."""
        self.error.clear()
        provider = self.provider.currentText()
        secret = self.key.text().strip()
        try:
            if secret:
                from brain_core.config.keys import set_key

                set_key(provider, secret)
            brain = self.brain.text().strip()
            self.config.set("brain", str(absolute(brain)) if brain else None)  # resolved here, at the edge
            self.config.set("tray.hotkeys.recall", self.recall_key.keySequence().toString(
                QKeySequence.SequenceFormat.PortableText) or DEFAULT_RECALL)
            self.config.set("tray.hotkeys.ptt", self.ptt_key.keySequence().toString(
                QKeySequence.SequenceFormat.PortableText) or DEFAULT_PTT)
            self.config.set("tray.hotkeys.enabled", self.hotkeys_on.isChecked())
            self.config.set("voice.model", self.model.currentText().strip() or "tiny.en")
            self.config.set("voice.device", self.device.currentText())
            self.config.set("voice.input_device", self.microphone.currentData())
            self.config.set("llm.provider", provider)
            self.config.set("llm.model", self.llm_model.text().strip() or None)
            self.config.set("llm.base_url", self.base_url.text().strip() or None)
            self.config.set("tray.sweep_minutes", self.sweep.value())
            self.config.save()
            if self.login.isChecked() != autostart.is_enabled():
                autostart.set_enabled(self.login.isChecked())
        except (BrainError, OSError) as e:
            self.error.setText(str(e))
            return
        finally:
            self.key.clear()  # never kept in the widget, stored or not
        self.key_state.setText(key_status(provider))
        self.saved.emit()
        self.accept()
