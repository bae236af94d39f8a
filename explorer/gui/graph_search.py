"""Find in the graph (Ctrl+F or /): type part of a name or alias, Enter steps through matches.

``find_nodes`` matches the nodes on screen by name, label or alias, ignoring case and accents
("tomas" finds "Tomás Ruiz"), exact and prefix matches first. ``GraphSearchBar`` floats at the
top right of the graph view: each Enter (Shift+Enter goes back) selects and centres the next
match, the counter says which of how many, Esc closes it. Imports Qt, the standard library, core
text folding and the graph model.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import QEvent, QObject, Qt
from PySide6.QtGui import QKeyEvent
from PySide6.QtWidgets import QFrame, QHBoxLayout, QLabel, QLineEdit, QWidget

from explorer.core.text import fold
from explorer.gui.graph_model import GraphState

if TYPE_CHECKING:
    from explorer.gui.graph_view import GraphView


def find_nodes(state: GraphState, text: str) -> list[str]:
    """Ids of the nodes whose name, label or an alias contains ``text`` (folded), best first:
    an exact name, then a name starting with it, then the rest, each by name."""
    wanted = fold(text)
    if not wanted:
        return []
    ranked: list[tuple[int, str, str]] = []
    for node in state.nodes.values():
        names = [fold(node.name), fold(node.label), *(fold(a) for a in node.aliases)]
        if any(n == wanted for n in names):
            rank = 0
        elif any(n.startswith(wanted) or f" {wanted}" in n for n in names):
            rank = 1
        elif any(wanted in n for n in names):
            rank = 2
        else:
            continue
        ranked.append((rank, fold(node.name), node.id))
    return [node_id for _, _, node_id in sorted(ranked)]


class GraphSearchBar(QFrame):
    """See the module docstring."""

    def __init__(self, view: GraphView, parent: QWidget) -> None:
        super().__init__(parent)
        self.view = view
        self.setObjectName("graphSearch")
        self.setStyleSheet(
            "#graphSearch{background:rgba(255,255,255,235);border:1px solid #dadce0;"
            "border-radius:4px}"
        )
        layout = QHBoxLayout(self)
        layout.setContentsMargins(4, 2, 4, 2)
        self.edit = QLineEdit()
        self.edit.setPlaceholderText("find in graph…")
        self.edit.setClearButtonEnabled(True)
        self.edit.setMinimumWidth(180)
        self.edit.textChanged.connect(self._on_text_changed)
        self.edit.installEventFilter(self)
        self.count = QLabel()
        layout.addWidget(self.edit)
        layout.addWidget(self.count)
        self.matches: list[str] = []
        self.current = -1
        self.hide()

    def open(self) -> None:
        self.show()
        self.raise_()
        self.place()
        self.edit.setFocus()
        self.edit.selectAll()

    def place(self) -> None:
        self.adjustSize()
        self.move(self.parentWidget().width() - self.width() - 8, 8)  # type: ignore[union-attr]

    def search_for(self, text: str) -> list[str]:
        """Search for ``text`` and go to the first match; the matches' ids."""
        self.edit.setText(text)
        return self.matches

    def step(self, forward: bool = True) -> str:
        """Select and centre the next (or previous) match; its id, "" when none."""
        if not self.matches:
            return ""
        self.current = (self.current + (1 if forward else -1)) % len(self.matches)
        node_id = self.matches[self.current]
        self.view.select_entity(node_id)
        self._show_count()
        return node_id

    def _on_text_changed(self, text: str) -> None:
        self.matches = find_nodes(self.view.state, text)
        self.current = -1
        if self.matches:
            self.step()
        else:
            self._show_count()

    def _show_count(self) -> None:
        if not self.edit.text():
            self.count.setText("")
        elif not self.matches:
            self.count.setText("no match")
        else:
            self.count.setText(f"{self.current + 1}/{len(self.matches)}")
        self.place()

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if watched is self.edit and isinstance(event, QKeyEvent):
            key = event.key()
            if key in (Qt.Key.Key_Return, Qt.Key.Key_Enter):
                shift = event.modifiers() & Qt.KeyboardModifier.ShiftModifier
                self.step(forward=not shift)
                return True
            if key == Qt.Key.Key_Escape:
                self.hide()
                self.view.setFocus()
                return True
        return super().eventFilter(watched, event)
