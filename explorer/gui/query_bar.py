"""The query bar: the text with its history, result sizes, and the domain, period and scope filters.

Enter runs the query, Esc cancels a running one. The period is checked with the same parser scour
uses while it is typed, so a filter the store would refuse turns red with the reason before it is
ever sent. The scope is picked from the memory's scope tree and flagged the same way when nothing
is stored under it. The history is a drop-down and ↑/↓ steps through it. Imports Qt, the standard
library, core temporal parsing and the GUI's request values; never awaits.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from PySide6.QtCore import QEvent, QObject, Qt, Signal
from PySide6.QtWidgets import (
    QComboBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QSizePolicy,
    QSpinBox,
    QToolBar,
    QWidget,
)

from explorer.core.errors import InvalidArgument
from explorer.core.temporal import ACCEPTED_FORMS, parse_period
from explorer.gui import style
from explorer.gui.requests import QueryParams
from explorer.gui.scope_picker import ScopePickerWidget

ANY_DOMAIN = "(any domain)"
HISTORY_LIMIT = 50
MIN_BOX_WIDTH = 130  # the period and scope boxes stay readable in a narrow window


class QueryBarWidget(QWidget):
    """See the module docstring."""

    query_submitted = Signal(object)  # QueryParams
    cancel_requested = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        layout = QHBoxLayout(self)
        layout.setContentsMargins(6, 4, 6, 4)
        layout.setSpacing(6)
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Preferred)

        self.query_box = QComboBox()
        self.query_box.setEditable(True)
        self.query_box.setInsertPolicy(QComboBox.InsertPolicy.NoInsert)
        self.query_box.setMaxCount(HISTORY_LIMIT)
        self.query_box.setMinimumContentsLength(14)
        self.query_box.setSizeAdjustPolicy(
            QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon
        )
        editor = self.query_box.lineEdit()
        assert editor is not None  # an editable combo box always has one
        self.query_editor = editor
        editor.setPlaceholderText("Ask the memory… (Enter runs, Esc cancels)")
        editor.returnPressed.connect(self.submit)
        self.query_box.setToolTip("Query text; ↑/↓ or the arrow step through recent queries")
        layout.addWidget(self.query_box, 4)

        layout.addWidget(QLabel("chunks"))
        self.n_chunks = _spin(0, 200, 8, "Verbatim chunks to fetch; 0 skips the chunk half")
        layout.addWidget(self.n_chunks)
        layout.addWidget(QLabel("entities"))
        self.kg_top_k = _spin(0, 200, 8, "Graph entities to fetch; 0 skips the graph half")
        layout.addWidget(self.kg_top_k)

        self.domain = QComboBox()
        self.domain.addItem(ANY_DOMAIN)
        self.domain.setToolTip("Only chunks tagged with this domain")
        self.domain.setMinimumContentsLength(len(ANY_DOMAIN))
        self.domain.setSizeAdjustPolicy(
            QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon
        )
        layout.addWidget(self.domain, 1)

        self.temporal = QLineEdit()
        self.temporal.setPlaceholderText("period, e.g. 2023-Q2 or 2023..2024-06")
        self.temporal.setToolTip(
            "Only entities mentioned in this period. Accepted: " + ACCEPTED_FORMS
        )
        self.temporal.setClearButtonEnabled(True)
        self.temporal.setMinimumWidth(MIN_BOX_WIDTH)
        self.temporal.textChanged.connect(self._on_temporal_changed)
        self.temporal.returnPressed.connect(self.submit)
        layout.addWidget(self.temporal, 1)

        self.scope_picker = ScopePickerWidget()
        self.scope = self.scope_picker.edit
        self.scope_picker.changed.connect(self._update_run_button)
        self.scope_picker.submitted.connect(self.submit)
        layout.addWidget(self.scope_picker, 1)

        self.run_button = QPushButton("Scour")
        self.run_button.setDefault(True)
        self.run_button.clicked.connect(self.submit)
        layout.addWidget(self.run_button)
        self.cancel_button = QPushButton("Cancel")
        self.cancel_button.setEnabled(False)
        self.cancel_button.clicked.connect(self.cancel_requested)
        layout.addWidget(self.cancel_button)

        self.temporal_error = ""
        for widget in (self.query_box, self.temporal, self.scope, self.n_chunks, self.kg_top_k):
            widget.installEventFilter(self)
        self.query_editor.installEventFilter(self)

    def toolbar(self, parent: QWidget) -> QToolBar:
        """A fixed tool bar holding this bar, so it spans the window above the docks."""
        bar = QToolBar("Query", parent)
        bar.setObjectName("queryToolBar")
        bar.setMovable(False)
        bar.setFloatable(False)
        bar.toggleViewAction().setVisible(False)
        bar.addWidget(self)
        return bar

    # ------------------------------------------------------------------ state

    def params(self) -> QueryParams:
        domain = self.domain.currentText()
        return QueryParams(
            query=self.query_box.currentText().strip(),
            n_chunks=self.n_chunks.value(),
            kg_top_k=self.kg_top_k.value(),
            domain=None if domain in ("", ANY_DOMAIN) else domain,
            temporal=self.temporal.text().strip() or None,
            scope=self.scope_picker.text() or None,
        )

    def set_query(self, text: str) -> None:
        self.query_box.setEditText(text)

    def set_domains(self, domains: Iterable[str]) -> None:
        current = self.domain.currentText()
        self.domain.blockSignals(True)
        self.domain.clear()
        self.domain.addItem(ANY_DOMAIN)
        self.domain.addItems(sorted(set(domains)))
        index = self.domain.findText(current)
        self.domain.setCurrentIndex(max(index, 0))
        self.domain.blockSignals(False)

    def history(self) -> list[str]:
        return [self.query_box.itemText(i) for i in range(self.query_box.count())]

    def set_history(self, queries: Sequence[str]) -> None:
        text = self.query_box.currentText()
        self.query_box.clear()
        for query in list(dict.fromkeys(q for q in queries if q))[:HISTORY_LIMIT]:
            self.query_box.addItem(query)
        self.query_box.setEditText(text)

    def remember(self, query: str) -> None:
        if not query:
            return
        existing = self.query_box.findText(query, Qt.MatchFlag.MatchExactly)
        if existing >= 0:
            self.query_box.removeItem(existing)
        self.query_box.insertItem(0, query)
        while self.query_box.count() > HISTORY_LIMIT:
            self.query_box.removeItem(self.query_box.count() - 1)
        self.query_box.setCurrentIndex(0)

    def set_busy(self, busy: bool) -> None:
        self.cancel_button.setEnabled(busy)

    # ------------------------------------------------------------------ actions

    def submit(self) -> None:
        params = self.params()
        if not params.query:
            return
        if self.temporal_error:
            self.temporal.setFocus()
            return
        if self.scope_picker.error:
            self.scope.setFocus()
            return
        self.remember(params.query)
        self.query_submitted.emit(params)

    def _on_temporal_changed(self, text: str) -> None:
        self.temporal_error = ""
        if text.strip():
            try:
                parse_period(text)
            except InvalidArgument as exc:
                self.temporal_error = str(exc)
        if self.temporal_error:
            self.temporal.setStyleSheet(style.INVALID_INPUT)
            self.temporal.setToolTip(self.temporal_error)
        else:
            self.temporal.setStyleSheet("")
            self.temporal.setToolTip(
                "Only entities mentioned in this period. Accepted: " + ACCEPTED_FORMS
            )
        self._update_run_button()

    def _update_run_button(self) -> None:
        self.run_button.setEnabled(not self.temporal_error and not self.scope_picker.error)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if event.type() == QEvent.Type.KeyPress:
            key = event.key()  # type: ignore[attr-defined]
            if key == Qt.Key.Key_Escape:
                self.cancel_requested.emit()
                return True
            if key in (Qt.Key.Key_Return, Qt.Key.Key_Enter) and watched in (
                self.n_chunks,
                self.kg_top_k,
            ):
                self.submit()
                return True
        return super().eventFilter(watched, event)


def _spin(low: int, high: int, value: int, tip: str) -> QSpinBox:
    box = QSpinBox()
    box.setRange(low, high)
    box.setValue(value)
    box.setToolTip(tip)
    return box
