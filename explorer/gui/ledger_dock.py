"""The ledger of drops: every candidate the coordinator did not recall, and "why not X?".

``LedgerModel`` is a ``QAbstractTableModel`` over the ledger (the core's ``Dropped`` entries):
what it was, the gate, its value against the floor and the margin, layer, scope, source and the
reason; ``set_near_misses_first`` orders the numeric drops by how little they missed by (the
core's ``near_misses``) ahead of the rest. ``LedgerPanel`` shows it, emits ``ghost_requested(id,
kind)`` when a row is selected so the window can show the dropped item ghosted in the graph or
the chunk list (``GhostPainter`` does that on their public items), and answers "why not X?"
from the retrieval in hand with ``explain.why_not``, never asking the stores; that question and
its answer are a page of their own (``why_panel``) beside the ledger in the bottom dock. Imports
Qt, the standard library, core types and the GUI's chunk and graph views.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from PySide6.QtCore import (
    QAbstractTableModel,
    QModelIndex,
    QObject,
    QPersistentModelIndex,
    Qt,
    Signal,
)
from PySide6.QtGui import QBrush, QColor, QFont, QPen
from PySide6.QtWidgets import (
    QAbstractItemView,
    QCheckBox,
    QGraphicsEllipseItem,
    QGraphicsItem,
    QGraphicsOpacityEffect,
    QGraphicsSimpleTextItem,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QTableView,
    QTextBrowser,
    QVBoxLayout,
    QWidget,
)

from explorer.core.candidates import Dropped
from explorer.core.coordinator import CoordinatedRetrieval
from explorer.core.explain import Explanation, why_not
from explorer.core.gates import near_misses
from explorer.gui import style
from explorer.gui.chunk_list import ChunkCard
from explorer.gui.recalled import ShownChunk

if TYPE_CHECKING:
    from explorer.gui.chunk_list import ChunkListWidget
    from explorer.gui.graph_view import GraphView

COLUMNS = ("what", "kind", "gate", "value", "floor", "margin", "layer", "scope", "source", "reason")
Index = QModelIndex | QPersistentModelIndex


def _number(value: float | None) -> str:
    return "" if value is None else f"{value:.4f}"


class LedgerModel(QAbstractTableModel):
    """The ledger as a table; rows are ``Dropped`` entries (see the module docstring)."""

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._ledger: list[Dropped] = []
        self._rows: list[Dropped] = []
        self.near_misses_first = False

    def set_entries(self, entries: Sequence[Dropped]) -> None:
        self.beginResetModel()
        self._ledger = list(entries)
        self._rows = self._ordered()
        self.endResetModel()

    def set_near_misses_first(self, on: bool) -> None:
        if on == self.near_misses_first:
            return
        self.beginResetModel()
        self.near_misses_first = on
        self._rows = self._ordered()
        self.endResetModel()

    def _ordered(self) -> list[Dropped]:
        if not self.near_misses_first:
            return list(self._ledger)
        close = near_misses(self._ledger)
        chosen = {id(entry) for entry in close}
        return close + [entry for entry in self._ledger if id(entry) not in chosen]

    def entries(self) -> list[Dropped]:
        """The rows in the order shown."""
        return list(self._rows)

    def entry(self, row: int) -> Dropped:
        return self._rows[row]

    def row_of(self, entry_id: str) -> int:
        return next((row for row, entry in enumerate(self._rows) if entry.id == entry_id), -1)

    def rowCount(self, parent: Index = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(self._rows)

    def columnCount(self, parent: Index = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(COLUMNS)

    def headerData(
        self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole
    ) -> object:
        if role == Qt.ItemDataRole.DisplayRole and orientation == Qt.Orientation.Horizontal:
            return COLUMNS[section]
        return None

    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole) -> object:
        if not index.isValid():
            return None
        entry = self._rows[index.row()]
        column = COLUMNS[index.column()]
        if role == Qt.ItemDataRole.DisplayRole:
            return self.cell(entry, column)
        if role == Qt.ItemDataRole.ToolTipRole:
            return entry.reason
        if role == Qt.ItemDataRole.UserRole:
            return entry
        if role == Qt.ItemDataRole.TextAlignmentRole and column in ("value", "floor", "margin"):
            return int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        return None

    @staticmethod
    def cell(entry: Dropped, column: str) -> str:
        if column == "what":
            return entry.label if len(entry.label) <= 80 else entry.label[:79] + "…"
        if column == "value":
            return _number(entry.value)
        if column == "floor":
            return _number(entry.threshold)
        if column == "margin":
            return _number(entry.margin)
        if column == "layer":
            return entry.layer.value if entry.layer is not None else ""
        return str(getattr(entry, column))


def explain_html(answers: Sequence[Explanation]) -> str:
    lines = []
    for answer in answers:
        extra = ""
        if answer.outranked_by:
            rivals = ", ".join(
                f"{_esc(m.candidate.label[:40])} ({m.score:.3f})" for m in answer.outranked_by[:5]
            )
            extra = f"<br/><span style='color:#5f6368'>outranked by: {rivals}</span>"
        lines.append(f"<p><b>{_esc(answer.verdict)}</b>: {_esc(answer.message)}{extra}</p>")
    return "".join(lines)


class LedgerPanel(QWidget):
    """See the module docstring."""

    ghost_requested = Signal(str, str)  # id, kind ("chunk" | "entity" | "concept"); "" clears

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("ledgerPanel")
        self.retrieval: CoordinatedRetrieval | None = None
        self.model = LedgerModel(self)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        top = QHBoxLayout()
        self.count_label = QLabel("No retrieval yet")
        self.near_box = QCheckBox("Near misses first")
        self.near_box.toggled.connect(self.model.set_near_misses_first)
        top.addWidget(self.count_label, 1)
        top.addWidget(self.near_box)
        layout.addLayout(top)
        self.table = QTableView()
        self.table.setModel(self.model)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.table.setAlternatingRowColors(True)
        self.table.verticalHeader().setVisible(False)
        self.table.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Interactive)
        self.table.horizontalHeader().setStretchLastSection(True)
        self.table.setColumnWidth(0, 220)
        self.table.selectionModel().selectionChanged.connect(self._on_selection)
        layout.addWidget(self.table, 1)

        self.why_panel = QWidget()
        why = QVBoxLayout(self.why_panel)
        why.setContentsMargins(4, 4, 4, 4)
        ask = QHBoxLayout()
        ask.addWidget(QLabel("Why not"))
        self.why_edit = QLineEdit()
        self.why_edit.setPlaceholderText("an entity name or a phrase, then Enter")
        self.why_edit.returnPressed.connect(lambda: self.ask(self.why_edit.text()))
        ask.addWidget(self.why_edit, 1)
        why.addLayout(ask)
        self.answer = QTextBrowser()
        why.addWidget(self.answer, 1)
        self.answers: list[Explanation] = []

    def set_retrieval(
        self, retrieval: CoordinatedRetrieval | None, ledger: Sequence[Dropped] | None = None
    ) -> None:
        """Show a retrieval's ledger (or, for a case without candidates, the saved ledger)."""
        self.retrieval = retrieval
        entries = list(retrieval.result.dropped) if retrieval is not None else list(ledger or [])
        self.model.set_entries(entries)
        candidates = sum(1 for e in entries if e.kind != "none")
        routes = len(entries) - candidates
        text = f"{candidates} candidates dropped"
        if routes:
            text += f", {routes} route problems"
        self.count_label.setText(text)
        if self.why_edit.text().strip():
            self.ask(self.why_edit.text())

    def ask(self, text: str) -> list[Explanation]:
        """Answer "why not ``text``?" from the retrieval in hand."""
        if self.retrieval is None:
            self.answers = []
            self.answer.setHtml(
                "<p>This answer carries no candidates to explain from (a case saved without "
                "them); see the ledger above.</p>"
            )
            return []
        self.answers = why_not(self.retrieval, text)
        self.answer.setHtml(explain_html(self.answers))
        return self.answers

    def select_row(self, row: int) -> None:
        self.table.selectRow(row)

    def _on_selection(self, *_: object) -> None:
        rows = self.table.selectionModel().selectedRows()
        if not rows:
            self.ghost_requested.emit("", "")
            return
        entry = self.model.entry(rows[0].row())
        self.ghost_requested.emit(entry.id, entry.kind if entry.kind != "none" else "")


class GhostPainter:
    """Shows one dropped item ghosted: a faded card atop the chunk list, or a faded graph node.

    Works on the views' public items only: the chunk list's card layout and the graph view's
    scene and node items.
    """

    def __init__(self, graph_view: GraphView, chunk_list: ChunkListWidget) -> None:
        self.graph_view = graph_view
        self.chunk_list = chunk_list
        self.ghost_id = ""
        self.ghost_kind = ""
        self._graph_items: list[QGraphicsItem] = []
        self._card: QWidget | None = None

    def clear(self) -> None:
        scene = self.graph_view.scene()
        for item in self._graph_items:
            if item.scene() is scene:
                scene.removeItem(item)
        self._graph_items = []
        if self._card is not None:
            self._card.hide()
            self._card.deleteLater()
            self._card = None
        self.ghost_id = self.ghost_kind = ""

    def show_chunk(self, chunk: ShownChunk, *, note: str = "") -> QWidget:
        self.clear()
        card = ChunkCard(chunk, [], [], self.chunk_list.holder)
        card.setObjectName("ghostCard")
        card.header.setText(
            "<i>dropped</i> · " + card.header.text() + (f"<br/>{_esc(note)}" if note else "")
        )
        card.setStyleSheet("#ghostCard { border: 1px dashed #9aa0a6; background: #f1f3f4; }")
        effect = QGraphicsOpacityEffect(card)
        effect.setOpacity(0.55)
        card.setGraphicsEffect(effect)
        self.chunk_list.insert_above(card)
        self.chunk_list.scroll_area.verticalScrollBar().setValue(0)
        self._card = card
        self.ghost_id, self.ghost_kind = chunk.id, "chunk"
        return card

    def show_node(
        self,
        node_id: str,
        name: str,
        node_type: str = "",
        *,
        near: Sequence[str] = (),
        note: str = "",
    ) -> QGraphicsItem:
        """Ghost a node: a dashed ring around it if drawn, else a faded node beside ``near``."""
        self.clear()
        view = self.graph_view
        scene = view.scene()
        existing = view.node_item(node_id)
        pen = QPen(QColor("#5f6368"), 2.0, Qt.PenStyle.DashLine)
        if existing is not None:
            radius = existing.radius + 6
            ring = QGraphicsEllipseItem(-radius, -radius, 2 * radius, 2 * radius)
            ring.setPen(pen)
            ring.setBrush(QBrush(Qt.BrushStyle.NoBrush))
            ring.setPos(existing.pos())
            ring.setZValue(5)
            ring.setToolTip(f"dropped: {name}" + (f"\n{note}" if note else ""))
            scene.addItem(ring)
            self._graph_items = [ring]
            view.centerOn(existing)
        else:
            anchors = [view.node_item(n) for n in near]
            placed = [a for a in anchors if a is not None]
            if placed:
                x = sum(a.x() for a in placed) / len(placed) + 40
                y = sum(a.y() for a in placed) / len(placed) - 40
            else:
                centre = view.mapToScene(view.viewport().rect().center())
                x, y = centre.x(), centre.y()
            colour = QColor(style.type_colour(node_type or "thing"))
            colour.setAlpha(90)
            node = QGraphicsEllipseItem(-10, -10, 20, 20)
            node.setBrush(QBrush(colour))
            node.setPen(pen)
            node.setPos(x, y)
            node.setZValue(5)
            node.setToolTip(f"dropped: {name}" + (f"\n{note}" if note else ""))
            label = QGraphicsSimpleTextItem(name[:32], node)
            font = QFont()
            font.setItalic(True)
            label.setFont(font)
            label.setBrush(QBrush(QColor("#80868b")))
            label.setPos(-label.boundingRect().width() / 2, 12)
            scene.addItem(node)
            self._graph_items = [node]
            view.centerOn(node)
        self.ghost_id, self.ghost_kind = node_id, "entity"
        return self._graph_items[0]

    @property
    def graph_items(self) -> list[QGraphicsItem]:
        return list(self._graph_items)

    @property
    def card(self) -> QWidget | None:
        return self._card


def _esc(text: object) -> str:
    return str(text).replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
