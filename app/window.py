"""A normal window with the tray's actions, for desktops without a system tray.

Some desktops have no tray at all (GNOME without the AppIndicator extension, a bare window
manager, a kiosk). There the app opens this window instead: the same actions as the menu, the
recent memories (click to open), the state, and the notifications the tray would have shown.
Closing it quits, since nothing else would be left to reach the app.
"""

from __future__ import annotations

import html

from PySide6.QtCore import QSettings, Qt, Slot
from PySide6.QtWidgets import (
    QCheckBox,
    QGridLayout,
    QLabel,
    QListWidget,
    QListWidgetItem,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from .icons import app_icon
from .service import AidaService
from .tray import STATE_WORDS, Actions, _short


def window_state(config) -> QSettings:
    """Window geometry lives next to the settings file, apart from the settings themselves."""
    return QSettings(str(config.path.parent / "window-state.ini"), QSettings.Format.IniFormat)


class MainWindow(QWidget):
    def __init__(self, service: AidaService, actions: Actions, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.service = service
        self.actions = actions
        self.setWindowTitle("Aida")
        self.setWindowIcon(app_icon())
        self.state_label = QLabel()
        self.brain_label = QLabel()
        self.brain_label.setStyleSheet("color: #6b7280;")
        buttons = QGridLayout()
        self.buttons: dict[str, QPushButton] = {}
        for i, (text, slot) in enumerate((("Ask…", actions.ask), ("Quick recall", actions.quick_recall),
                                          ("Drop a recording…", actions.drop_recording),
                                          ("Harvest now", actions.harvest_now),
                                          ("Open brain folder", actions.open_brain_folder),
                                          ("Overview…", actions.overview),
                                          ("Settings…", actions.settings),
                                          ("Welcome and setup…", actions.welcome))):
            b = QPushButton(text)
            b.clicked.connect(slot)
            self.buttons[text] = b
            buttons.addWidget(b, i // 2, i % 2)
        self.pause = QCheckBox("Pause harvesting")
        self.pause.setChecked(service.paused)
        self.pause.toggled.connect(actions.set_paused)
        self.recent = QListWidget()
        self.recent.itemActivated.connect(self._open)
        self.recent.itemClicked.connect(self._open)
        self.notices = QLabel()
        self.notices.setWordWrap(True)
        self.notices.setTextFormat(Qt.TextFormat.RichText)
        self.notices.setStyleSheet("color: #0f766e;")
        quit_button = QPushButton("Quit")
        quit_button.clicked.connect(actions.quit)
        layout = QVBoxLayout(self)
        layout.addWidget(self.state_label)
        layout.addWidget(self.brain_label)
        layout.addLayout(buttons)
        layout.addWidget(self.pause)
        layout.addWidget(QLabel("Recent memories"))
        layout.addWidget(self.recent, 1)
        layout.addWidget(self.notices)
        layout.addWidget(quit_button, alignment=Qt.AlignmentFlag.AlignRight)
        service.stateChanged.connect(self.refresh)
        service.settingsChanged.connect(self.refresh)
        self.resize(420, 480)
        geometry = window_state(service.config).value("window/geometry")
        if geometry is not None:
            self.restoreGeometry(geometry)
        self.refresh()

    @Slot()
    @Slot(str)
    def refresh(self, _state: str = "") -> None:
        s = self.service
        self.state_label.setText(f"<b>Aida</b>: {html.escape(STATE_WORDS.get(s.state(), s.state()))}")
        self.brain_label.setText(f"Brain: {_short(s.root)}")
        self.buttons["Harvest now"].setEnabled(not s.running("harvest"))
        self.pause.blockSignals(True)
        self.pause.setChecked(s.paused)
        self.pause.blockSignals(False)
        self.recent.clear()
        for ev in s.recent(10):
            item = QListWidgetItem(f"{ev.key} · {ev.profile} — {ev.first_line[:80]}")
            item.setData(Qt.ItemDataRole.UserRole, ev.path)
            self.recent.addItem(item)

    def message(self, title: str, text: str) -> None:
        """What the tray would show as a notification."""
        self.notices.setText(f"<b>{html.escape(title)}</b><br>{html.escape(text)}")
        self.refresh()

    def _open(self, item: QListWidgetItem) -> None:
        self.actions.open_memory(item.data(Qt.ItemDataRole.UserRole))

    def closeEvent(self, event) -> None:
        window_state(self.service.config).setValue("window/geometry", self.saveGeometry())
        super().closeEvent(event)
        self.actions.quit()
