"""The overview window: the brain at a glance, each element a link to its file.

A bar chart of records per month (stacked by type, painted with QPainter: no chart or web
module needed), the newest memories with their origin, what the last harvest kept and dropped,
INDEX.md's budget as a gauge (with ``aida brain budget``'s exit code), the catalog's freshness,
the entries no session has used (when the usage audit is there), and the records read offline that
no one has checked, each confirmed or forgotten with a button. Double-clicking a row or clicking a
gauge opens the file it stands for. The data is :func:`brain_core.lifecycle.overview.overview`.
"""

from __future__ import annotations

from typing import Any, Callable

from PySide6.QtCore import QRectF, Qt, Signal, Slot
from PySide6.QtGui import QColor, QFont, QPainter, QPen
from PySide6.QtWidgets import (
    QGridLayout,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QListWidget,
    QListWidgetItem,
    QProgressBar,
    QPushButton,
    QSizePolicy,
    QVBoxLayout,
    QWidget,
)

TYPE_COLOURS = {"decision": "#4c78a8", "fact": "#59a14f", "instruction": "#f28e2b", "preference": "#b07aa1",
                "event": "#76b7b2", "lesson": "#e15759", "note": "#9c755f", "task": "#edc948"}


class MonthChart(QWidget):
    """Stacked bars: records per month, one colour per type, with a legend."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.months: list[dict[str, Any]] = []
        self.setMinimumHeight(170)
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Preferred)

    def set_months(self, months: list[dict[str, Any]]) -> None:
        self.months = months
        self.update()

    def paintEvent(self, _event) -> None:  # noqa: N802 - Qt's name
        p = QPainter(self)
        p.setRenderHint(QPainter.RenderHint.Antialiasing)
        w, h = self.width(), self.height()
        legend_h, axis_h = 18, 16
        top, bottom = legend_h + 20, h - axis_h  # room for the legend and the totals above the bars
        p.setPen(self.palette().text().color())
        if not self.months:
            p.drawText(self.rect(), Qt.AlignmentFlag.AlignCenter, "No memories yet: they appear here month by month.")
            return
        types = sorted({t for m in self.months for t in m["types"]})
        x = 4.0
        for t in types:  # legend
            p.fillRect(QRectF(x, 4, 10, 10), QColor(TYPE_COLOURS.get(t, "#888888")))
            p.drawText(QRectF(x + 14, 0, 90, 18), Qt.AlignmentFlag.AlignVCenter, t)
            x += 14 + p.fontMetrics().horizontalAdvance(t) + 12
        peak = max(sum(m["types"].values()) for m in self.months) or 1
        slot = (w - 8) / len(self.months)
        bar_w = max(4.0, slot * 0.7)
        small = QFont(self.font())
        small.setPointSizeF(max(6.0, small.pointSizeF() * 0.8))
        for i, m in enumerate(self.months):
            bx = 4 + i * slot + (slot - bar_w) / 2
            y = float(bottom)
            for t in types:
                n = m["types"].get(t, 0)
                if not n:
                    continue
                bh = (bottom - top) * n / peak
                y -= bh
                p.fillRect(QRectF(bx, y, bar_w, bh), QColor(TYPE_COLOURS.get(t, "#888888")))
            p.setFont(small)
            p.drawText(QRectF(bx - 10, bottom + 1, bar_w + 20, axis_h), Qt.AlignmentFlag.AlignHCenter, m["month"][2:])
            total = sum(m["types"].values())
            p.drawText(QRectF(bx - 10, y - 14, bar_w + 20, 14), Qt.AlignmentFlag.AlignHCenter, str(total))
        p.setPen(QPen(self.palette().mid().color()))
        p.drawLine(0, bottom, w, bottom)


class OverviewWindow(QWidget):
    opened = Signal(str)  # a brain-relative path the user asked to open

    def __init__(self, brain_factory: Callable[[], Any], opener: Callable[[str], None] | None = None,
                 parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._brain_factory = brain_factory
        self._opener = opener
        self.setWindowTitle("Aida: overview")
        self.setMinimumSize(760, 700)
        self.data: dict[str, Any] = {}
        grid = QGridLayout(self)

        chart_box = QGroupBox("Memories per month")
        self.chart = MonthChart()
        self.total = QLabel("")
        v = QVBoxLayout(chart_box)
        v.addWidget(self.chart)
        v.addWidget(self.total)
        grid.addWidget(chart_box, 0, 0, 1, 2)

        self.newest = self._list("Newest memories (double-click to open)", grid, 1, 0)
        self.harvest = self._list("Last harvest: kept and dropped", grid, 1, 1)

        health = QGroupBox("Health")
        hv = QVBoxLayout(health)
        self.budget = QProgressBar()
        self.budget.setToolTip("INDEX.md against its budget; click to open it")
        self.budget.mousePressEvent = lambda _e: self._open(self.data.get("index_budget", {}).get("path"))
        self.budget_label = QLabel("")
        self.budget_label.setWordWrap(True)
        self.catalog_label = QLabel("")
        self.catalog_label.setWordWrap(True)
        hv.addWidget(self.budget)
        hv.addWidget(self.budget_label)
        hv.addWidget(self.catalog_label)
        grid.addWidget(health, 2, 0)
        self.unused = self._list("Never used by a session", grid, 2, 1)

        review = QGroupBox("Read offline, unchecked: confirm the right ones, forget the wrong (double-click to open)")
        rv = QVBoxLayout(review)
        self.unchecked = QListWidget()
        self.unchecked.itemDoubleClicked.connect(lambda item: self._open(item.data(Qt.ItemDataRole.UserRole)))
        self.unchecked.currentItemChanged.connect(lambda *_: self._can_judge())
        rv.addWidget(self.unchecked)
        buttons = QHBoxLayout()
        self.review_note = QLabel("")
        self.review_note.setWordWrap(True)
        self.confirm_button = QPushButton("Confirm: it is right")
        self.forget_button = QPushButton("Forget: it is wrong")
        self.confirm_button.clicked.connect(lambda: self._judge("confirm"))
        self.forget_button.clicked.connect(lambda: self._judge("forget"))
        buttons.addWidget(self.review_note, 1)
        buttons.addWidget(self.confirm_button)
        buttons.addWidget(self.forget_button)
        rv.addLayout(buttons)
        grid.addWidget(review, 3, 0, 1, 2)

        refresh = QPushButton("Refresh")
        refresh.clicked.connect(self.refresh)
        grid.addWidget(refresh, 4, 1, alignment=Qt.AlignmentFlag.AlignRight)
        self.refresh()

    def _list(self, title: str, grid: QGridLayout, row: int, col: int) -> QListWidget:
        box = QGroupBox(title)
        lw = QListWidget()
        lw.itemDoubleClicked.connect(lambda item: self._open(item.data(Qt.ItemDataRole.UserRole)))
        QVBoxLayout(box).addWidget(lw)
        grid.addWidget(box, row, col)
        return lw

    @Slot()
    def refresh(self) -> None:
        from brain_core.lifecycle.overview import overview

        brain = self._brain_factory()
        try:
            self.show_data(overview(brain))
        finally:
            close = getattr(brain, "close", None)
            if close:
                close()

    def show_data(self, data: dict[str, Any]) -> None:
        self.data = data
        self.chart.set_months(data["by_month"])
        unchecked = data.get("unchecked", 0)
        self.total.setText(f"{data['records']} records in all" + (f", {unchecked} unchecked" if unchecked else ""))
        self._fill(self.unchecked, [(f"{r['key']} · {r['type']}: {r['first_line'][:90]}\n    {r['origin']}", r["path"])
                                    for r in data.get("unchecked_newest", [])],
                   "Nothing to review: every record was read by a model or by you.")
        self._can_judge()
        self._fill(self.newest, [(f"{r['created'][:10]}  {r['key']} · {r['type']}: {r['first_line'][:60]}\n    {r['origin']}"
                                  + ("; unchecked" if r.get("unchecked") else ""), r["path"]) for r in data["newest"]],
                   "No memories yet.")
        rows = []
        for h in data["last_harvest"]:
            if "error" in h:
                rows.append((f"{h['tool']}: {h['error']}", h["path"]))
                continue
            rows.append((f"{h['tool']} at {h['at'][:16].replace('T', ' ')}: {h['sessions']} sessions read", h["path"]))
            for k in h["kept"]:
                for rec in k["records"]:
                    rows.append((f"    kept {rec}", rec))
            for d in h["dropped"]:
                rows.append((f"    dropped session {d['session'][:8]}: {d['why']}", h["path"]))
        self._fill(self.harvest, rows, "No harvest has run yet.")
        b = data["index_budget"]
        self.budget.setMaximum(max(b["cap"], 1))
        self.budget.setValue(min(b["chars"], b["cap"]))
        self.budget.setFormat(f"INDEX.md {b['chars']}/{b['cap']} characters (exit {b['exit_code']})")
        self.budget_label.setText(b["message"])
        c = data["catalog"]
        fresh = "up to date" if c["fresh"] else f"{c['pending']} files waiting to be indexed"
        self.catalog_label.setText(f"Card catalog: {c['indexed']} records indexed, {fresh}; last scan "
                                   f"{(c['last_scan'] or 'never').replace('T', ' ')}"
                                   + (f"; {c['problems']} files with problems (aida brain lint)" if c["problems"] else ""))
        unused = data.get("never_used")
        if unused is None:
            self._fill(self.unused, [], "No agent session to judge by yet.")
        else:
            self._fill(self.unused, [(f"{u['key']} ({u['where']})", u["path"]) for u in unused],
                       "Every entry has been used.")

    def _can_judge(self) -> None:
        item = self.unchecked.currentItem()
        ok = item is not None and bool(item.data(Qt.ItemDataRole.UserRole))
        self.confirm_button.setEnabled(ok)
        self.forget_button.setEnabled(ok)

    def _judge(self, verdict: str) -> None:
        """Confirm or forget the selected unchecked record (one commit each), then show the brain again."""
        from brain_core.errors import BrainError
        from brain_core.lifecycle.forget import confirm, forget

        item = self.unchecked.currentItem()
        rel = item.data(Qt.ItemDataRole.UserRole) if item is not None else None
        if not rel:
            return
        brain = self._brain_factory()
        try:
            if verdict == "confirm":
                _, rec, _ = confirm(brain, rel)
                self.review_note.setText(f"Confirmed {rec.key}: no longer unchecked.")
            else:
                moved = forget(brain, rel, reason="wrong: found so in the overview", by="overview")
                self.review_note.setText(f"Forgot {moved.record.key}; `aida brain restore {moved.record.key}` "
                                         "brings it back.")
        except BrainError as e:
            self.review_note.setText(str(e))
        finally:
            close = getattr(brain, "close", None)
            if close:
                close()
        self.refresh()

    @staticmethod
    def _fill(lw: QListWidget, rows: list[tuple[str, str | None]], empty: str) -> None:
        lw.clear()
        if not rows:
            item = QListWidgetItem(empty)
            item.setFlags(Qt.ItemFlag.NoItemFlags)
            lw.addItem(item)
        for text, path in rows:
            item = QListWidgetItem(text)
            item.setData(Qt.ItemDataRole.UserRole, path)
            lw.addItem(item)

    def _open(self, rel: str | None) -> None:
        if not rel:
            return
        self.opened.emit(rel)
        if self._opener:
            self._opener(rel)
