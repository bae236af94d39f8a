"""The scope box of the query bar: type a scope path or pick it from the memory's scope tree.

``ScopePickerWidget`` is a line edit with a completer over every scope the stores hold and a
button that drops down the scope tree with chunk and entity counts per node, so nobody has to
know ``tenant/agent/user`` paths. Empty means the default scope (the root unless configured).
A scope that holds nothing is flagged inline, the way the period box flags a bad period, and
``error`` says why. Imports Qt, the standard library and core overview values; never awaits.
"""

from __future__ import annotations

from PySide6.QtCore import QStringListModel, Qt, Signal
from PySide6.QtWidgets import (
    QCompleter,
    QHBoxLayout,
    QLineEdit,
    QMenu,
    QToolButton,
    QTreeWidget,
    QTreeWidgetItem,
    QWidget,
    QWidgetAction,
)

from explorer.core.overview import ScopeNode
from explorer.gui import style

TIP = "Whose memory: a scope path such as tenant/agent/user; empty searches the whole memory"


class ScopePickerWidget(QWidget):
    """See the module docstring."""

    changed = Signal()
    submitted = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        layout = QHBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(0)
        self.edit = QLineEdit()
        self.edit.setPlaceholderText("scope: whole memory")
        self.edit.setToolTip(TIP)
        self.edit.setClearButtonEnabled(True)
        self.edit.setMinimumWidth(150)
        self.edit.textChanged.connect(self._validate)
        self.edit.returnPressed.connect(self.submitted)
        self._paths = QStringListModel()
        completer = QCompleter(self._paths, self)
        completer.setCaseSensitivity(Qt.CaseSensitivity.CaseInsensitive)
        completer.setFilterMode(Qt.MatchFlag.MatchContains)
        self.edit.setCompleter(completer)
        layout.addWidget(self.edit, 1)

        self.tree = QTreeWidget()
        self.tree.setHeaderLabels(["scope", "chunks", "entities"])
        self.tree.setRootIsDecorated(True)
        self.tree.setMinimumSize(360, 240)
        self.tree.itemClicked.connect(self._on_tree_item_clicked)
        self.menu = QMenu(self)
        holder = QWidgetAction(self.menu)
        holder.setDefaultWidget(self.tree)
        self.menu.addAction(holder)
        self.button = QToolButton()
        self.button.setText("▾")
        self.button.setToolTip("Pick a scope from the memory's scope tree")
        self.button.setPopupMode(QToolButton.ToolButtonPopupMode.InstantPopup)
        self.button.setMenu(self.menu)
        layout.addWidget(self.button)

        self.root: ScopeNode | None = None
        self.error = ""

    # ------------------------------------------------------------------ state

    def text(self) -> str:
        return self.edit.text().strip()

    def set_text(self, scope: str) -> None:
        self.edit.setText(scope)

    def paths(self) -> list[str]:
        return self._paths.stringList()

    def set_tree(self, root: ScopeNode) -> None:
        """Fill the completer and the tree from the stores' scope tree."""
        self.root = root
        self._paths.setStringList([node.path for node in root.walk() if node.path])
        self.tree.clear()
        self.tree.addTopLevelItem(_item(root))
        self.tree.expandToDepth(2)
        for column in range(3):
            self.tree.resizeColumnToContents(column)
        self._validate(self.edit.text())

    # ------------------------------------------------------------------ reactions

    def _on_tree_item_clicked(self, item: QTreeWidgetItem, _column: int) -> None:
        self.edit.setText(str(item.data(0, Qt.ItemDataRole.UserRole)))
        self.menu.hide()
        self.edit.setFocus()

    def _validate(self, text: str) -> None:
        scope = text.strip()
        self.error = ""
        if scope and self.root is not None and self.root.find(scope) is None:
            self.error = f"no memory is stored under scope “{scope}”; pick one from the list (▾)"
        if self.error:
            self.edit.setStyleSheet(style.INVALID_INPUT)
            self.edit.setToolTip(self.error)
        else:
            self.edit.setStyleSheet("")
            self.edit.setToolTip(TIP)
        self.changed.emit()


def _item(node: ScopeNode) -> QTreeWidgetItem:
    item = QTreeWidgetItem([node.name, f"{node.chunks:,}", f"{node.entities:,}"])
    item.setData(0, Qt.ItemDataRole.UserRole, node.path)
    item.setToolTip(0, node.path or "the whole memory")
    for column in (1, 2):
        item.setTextAlignment(column, Qt.AlignmentFlag.AlignRight)
    for child in node.children:
        item.addChild(_item(child))
    return item
