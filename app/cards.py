"""The pieces the quick-recall popup shows: a result card with its "why", and an answer view.

Both are plain widgets fed with brain_core values (a :class:`~brain_core.recall.hybrid.Hit`, an
:class:`~brain_core.answer.ask.Answer`); they do no work and emit signals for what the user asks for.
"""

from __future__ import annotations

import html
from typing import Any

from PySide6.QtCore import Qt, Signal, Slot
from PySide6.QtWidgets import (
    QFrame,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QListWidget,
    QListWidgetItem,
    QPushButton,
    QSizePolicy,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from brain_core.answer.ask import answered_how
from brain_core.marks import OFFLINE_TAG

SNIPPET = 200
TYPE_COLOURS = {"decision": "#7c3aed", "fact": "#0f766e", "instruction": "#b45309", "preference": "#be185d",
                "event": "#1d4ed8", "lesson": "#4d7c0f", "note": "#475569"}


def snippet(text: str, limit: int = SNIPPET) -> str:
    one = " ".join((text or "").split())
    return one if len(one) <= limit else one[: limit - 1].rstrip() + "…"


def format_explain(explain: dict[str, Any] | None) -> str:
    """The recall trace in words: which stage found it, at what rank, and what changed its score."""
    if not explain:
        return "No trace was kept for this result."
    lines = []
    if explain.get("mode") == "recency":
        lines.append(f"newest first: #{explain.get('rank')} (created {explain.get('created')})")
    for stage, label in (("bm25", "words (bm25)"), ("vector", "meaning (vector)")):
        st = explain.get(stage)
        if st:
            lines.append(f"{label}: rank {st.get('rank')}, score {st.get('score')}")
        elif stage in explain:
            lines.append(f"{label}: not matched")
    if "fused" in explain:
        fused = explain["fused"]
        lines.append(f"fused: {fused:.5f}" if isinstance(fused, (int, float)) else f"fused: {fused}")
    if "decay" in explain:
        uses = explain.get("uses")
        lines.append(f"decay: ×{explain['decay']}" + (f" (recalled {uses} times)" if uses else ""))
    if explain.get("dated"):
        lines.append(f"date match: {explain['dated']}")
    for lesson in explain.get("lessons") or ():
        lines.append(f"lesson {lesson.get('lesson')}: thumbs-{lesson.get('verdict')} ×{lesson.get('factor')}")
    if explain.get("fts_query"):
        lines.append(f"word query: {explain['fts_query']}")
    known = {"mode", "rank", "created", "bm25", "vector", "fused", "decay", "uses", "dated", "lessons", "fts_query",
             "path", "ms"}
    for k, v in explain.items():
        if k not in known:
            lines.append(f"{k}: {v}")
    return "\n".join(lines)


def _label(text: str, rich: bool = False) -> QLabel:
    """A label whose format is decided here, never guessed from the text (a record is not HTML)."""
    label = QLabel(text)
    label.setTextFormat(Qt.TextFormat.RichText if rich else Qt.TextFormat.PlainText)
    return label


def date_of(created: str) -> str:
    return (created or "")[:10]


class ResultCard(QFrame):
    """One recalled record: type, key, date, profile, a snippet, and a "why" toggle."""

    whyToggled = Signal(bool)

    def __init__(self, hit: Any, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.hit = hit
        r = hit.record
        colour = TYPE_COLOURS.get(r.type, "#475569")
        self.setObjectName("resultCard")
        self.type_label = _label(r.type.upper())
        self.type_label.setStyleSheet(f"color: white; background: {colour}; border-radius: 4px; padding: 1px 5px; "
                                      "font-size: 10px; font-weight: 600;")
        self.key_label = _label(f"<b>{html.escape(r.key or hit.path)}</b>", rich=True)
        self.closest = getattr(hit, "confidence", None) == "weak"
        also = len(getattr(hit, "also", None) or ())
        self._meta = (("closest · " if self.closest else "") + f"{date_of(r.created)} · {r.profile}"
                      + (f" · +{also} source{'s' if also != 1 else ''}" if also else "")
                      + (" · stale" if hit.stale else ""))
        self.meta_label = _label(self._meta + (" · unchecked" if OFFLINE_TAG in r.tags else ""))
        self.meta_label.setStyleSheet("color: #6b7280;")
        if OFFLINE_TAG in r.tags:
            self.meta_label.setToolTip("Read offline, with no model: no one has checked it yet (\"It's right\" "
                                       "confirms it, \"Forget this\" archives it)")
        self.why = QToolButton()
        self.why.setText("why")
        self.why.setCheckable(True)
        self.why.setToolTip("Show how recall found this (Ctrl+E)")
        self.why.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        self.why.toggled.connect(self._toggle)
        self.forget = QToolButton()
        self.forget.setText("Forget this")
        self.forget.setToolTip("This memory is wrong or stale: archive it (Ctrl+Delete; Undo brings it back)")
        self.forget.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        head = QHBoxLayout()
        head.setContentsMargins(0, 0, 0, 0)
        head.addWidget(self.type_label)
        head.addWidget(self.key_label, 1)
        head.addWidget(self.meta_label)
        head.addWidget(self.why)
        self.confirm = None  # "It's right": only on a record read offline, which no one has checked yet
        if OFFLINE_TAG in r.tags:
            self.confirm = QToolButton()
            self.confirm.setText("It's right")
            self.confirm.setToolTip("This memory, read offline, is right: no longer unchecked")
            self.confirm.setFocusPolicy(Qt.FocusPolicy.NoFocus)
            head.addWidget(self.confirm)
        head.addWidget(self.forget)
        self.snippet = _label(snippet(r.body))
        self.snippet.setWordWrap(True)
        if self.closest:  # only the closest there is: greyed, so it does not read as an answer
            self.snippet.setStyleSheet("color: #9ca3af;")
            self.key_label.setStyleSheet("color: #9ca3af;")
        self.trace = _label(format_explain(hit.explain))
        self.trace.setWordWrap(True)
        self.trace.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.trace.setStyleSheet("font-family: monospace; font-size: 11px; color: #374151; background: #f3f4f6; "
                                 "padding: 4px; border-radius: 4px;")
        self.trace.hide()
        layout = QVBoxLayout(self)
        layout.setContentsMargins(8, 6, 8, 6)
        layout.setSpacing(3)
        layout.addLayout(head)
        layout.addWidget(self.snippet)
        layout.addWidget(self.trace)
        self.setSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Minimum)

    def confirmed(self) -> None:
        """The user found this memory, read offline, right: no mark and no button any more."""
        self.meta_label.setText(self._meta)
        self.meta_label.setToolTip("")
        if self.confirm is not None:
            self.confirm.hide()

    @property
    def why_shown(self) -> bool:
        return self.why.isChecked()

    @Slot(bool)
    def _toggle(self, on: bool) -> None:
        self.trace.setVisible(on)
        self.whyToggled.emit(on)


class AnswerView(QFrame):
    """The answer to a question, the memories it cites, and thumbs up/down (which become lessons)."""

    feedback = Signal(str, str, str)  # run id, "up" | "down", why
    openPath = Signal(str)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.answer = None
        self.heard_label = _label("")
        self.heard_label.setWordWrap(True)
        self.heard_label.setStyleSheet("color: #6b7280;")
        self.question_label = _label("", rich=True)
        self.question_label.setWordWrap(True)
        self.text = _label("")
        self.text.setWordWrap(True)
        self.text.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.text.setStyleSheet("font-size: 14px; padding: 4px 0;")
        self.route_label = _label("")
        self.route_label.setStyleSheet("color: #6b7280; font-size: 11px;")
        self.cited_title = QLabel("From your memory:")
        self.cited = QListWidget()
        self.cited.setMaximumHeight(110)
        self.cited.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)  # long lines are elided
        self.cited.itemActivated.connect(self._open)
        self.cited.itemClicked.connect(self._open)
        self.why = QLineEdit()
        self.why.setPlaceholderText("What was wrong or right? (optional, kept with the lesson)")
        self.up = QPushButton("Helpful")
        self.down = QPushButton("Not helpful")
        self.up.setToolTip("Thumbs up: these memories answered it (becomes a lesson)")
        self.down.setToolTip("Thumbs down: the answer leaned on the wrong memory (becomes a lesson)")
        self.up.clicked.connect(lambda: self._vote("up"))
        self.down.clicked.connect(lambda: self._vote("down"))
        self.thanks = _label("")
        self.thanks.setStyleSheet("color: #0f766e;")
        votes = QHBoxLayout()
        votes.addWidget(self.why, 1)
        votes.addWidget(self.up)
        votes.addWidget(self.down)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        for w in (self.heard_label, self.question_label, self.text, self.route_label, self.cited_title, self.cited):
            layout.addWidget(w)
        layout.addLayout(votes)
        layout.addWidget(self.thanks)
        layout.addStretch(1)  # keep it together at the top, however tall the popup

    def show_heard(self, heard: Any) -> None:
        fixes = len(getattr(heard, "replacements", ()) or ())
        extra = f" ({fixes} name{'s' if fixes != 1 else ''} corrected by the glossary)" if fixes else ""
        self.heard_label.setText(f"Heard: “{heard.text}”{extra}")
        self.heard_label.show()

    def show_answer(self, answer: Any) -> None:
        self.answer = answer
        self.question_label.setText(f"<b>{html.escape(answer.question)}</b>")
        self.text.setText(answer.text)
        route = answer.route
        where = ("searched your memory, newest first" if route.mode == "recency" else "searched your memory by meaning") \
            if route.recall else "did not search your memory"
        self.route_label.setText(f"{where}; {answered_how(answer)}" + ("; repeated answer" if answer.cached else ""))
        self.cited.clear()
        cited = set(answer.cited)
        strong = [h for h in answer.hits if (getattr(h, "confidence", None) or "strong") == "strong"]
        weak = [h for h in answer.hits if getattr(h, "confidence", None) == "weak"]
        for h in sorted(strong, key=lambda h: h.record.id not in cited):
            self._add_cited(h, "★ " if h.record.id in cited else "")
        for h in weak[:1]:  # one greyed "closest" line, never passed off as an answer
            item = self._add_cited(h, "closest: ")
            item.setForeground(Qt.GlobalColor.gray)
        memory = answer.route.recall
        self.cited_title.setText("From your memory:" if strong else "Nothing that answers it; the closest:" if weak
                                 else "Nothing close in your memory.")
        self.cited_title.setVisible(memory)
        self.cited.setVisible(bool(strong or weak))
        self.why.clear()
        self.thanks.clear()
        for b in (self.up, self.down):
            b.setEnabled(True)

    def _add_cited(self, h: Any, mark: str) -> QListWidgetItem:
        r = h.record
        also = len(getattr(h, "also", None) or ())
        more = f" (+{also} source{'s' if also != 1 else ''})" if also else ""
        item = QListWidgetItem(f"{mark}{r.key} · {date_of(r.created)}{more} — {snippet(r.body, 90)}")
        item.setData(Qt.ItemDataRole.UserRole, h.path)
        item.setToolTip(r.body[:600])
        self.cited.addItem(item)
        return item

    def clear_heard(self) -> None:
        self.heard_label.clear()
        self.heard_label.hide()

    def _open(self, item: QListWidgetItem) -> None:
        path = item.data(Qt.ItemDataRole.UserRole)
        if path:
            self.openPath.emit(path)

    def _vote(self, verdict: str) -> None:
        if self.answer is None:
            return
        for b in (self.up, self.down):
            b.setEnabled(False)
        self.thanks.setText("Saving…")
        self.feedback.emit(self.answer.run_id, verdict, self.why.text().strip())

    def saved(self, record: Any) -> None:
        self.thanks.setText(f"Thanks: kept as a lesson ({record.id}); similar questions will use it.")
