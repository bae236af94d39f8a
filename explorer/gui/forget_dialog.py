"""File → Forget a scope: delete one scope, and every scope below it, from both stores.

``ForgetDialog`` lists the scopes the overview knows with what each holds (its counts include
the scopes below it), says in words what will be deleted and that it cannot be undone, and
asks the bridge to forget the chosen scope only when the user presses Forget. The answer comes
back to ``memory_actions`` as the bridge's ``scope_forgotten`` or ``scope_forget_failed``.
Imports Qt and the overview's scope tree; all work goes through the bridge.
"""

from __future__ import annotations

from PySide6.QtWidgets import (
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QLabel,
    QVBoxLayout,
    QWidget,
)

from explorer.core.models import normalise_scope
from explorer.core.overview import ScopeNode
from explorer.gui.bridge import ServiceBridge


class ForgetDialog(QDialog):
    """See the module docstring."""

    def __init__(
        self,
        bridge: ServiceBridge,
        scopes: ScopeNode,
        chosen: str = "",
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self.setWindowTitle("Forget a scope")
        self.setMinimumWidth(520)
        self.bridge = bridge
        self.nodes = [node for node in scopes.walk() if node.path]
        self.scope = QComboBox()
        for node in self.nodes:
            self.scope.addItem(f"{node.path}  ({node.chunks:,} chunks, {node.entities:,} entities)")
        self.asked = ""
        # The scope in the scope box, if the memory holds it; else nothing chosen yet.
        paths = [node.path for node in self.nodes]
        wanted = normalise_scope(chosen)
        self.scope.setCurrentIndex(paths.index(wanted) if wanted in paths else -1)
        self.scope.currentIndexChanged.connect(self._describe)
        self.warning = QLabel()
        self.warning.setWordWrap(True)
        # Room for the longest warning from the start: a wrapped label does not grow its dialog.
        self.warning.setMinimumHeight(self.warning.fontMetrics().lineSpacing() * 5)
        self.buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Cancel)
        self.forget_button = self.buttons.addButton(
            "Forget", QDialogButtonBox.ButtonRole.DestructiveRole
        )
        self.forget_button.clicked.connect(self._forget)
        self.buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(QLabel("Scope to forget:"))
        layout.addWidget(self.scope)
        layout.addWidget(self.warning)
        layout.addWidget(self.buttons)
        self._describe()

    def chosen(self) -> ScopeNode | None:
        index = self.scope.currentIndex()
        return self.nodes[index] if 0 <= index < len(self.nodes) else None

    def _describe(self) -> None:
        node = self.chosen()
        self.forget_button.setEnabled(node is not None)
        if node is None:
            self.warning.setText(
                "Choose the scope to forget." if self.nodes else "This memory holds no scope."
            )
            return
        below = len([n for n in node.walk() if n is not node])
        others = f" and the {below} scope{'s' if below != 1 else ''} below it" if below else ""
        self.warning.setText(
            f"Deletes “{node.path}”{others} from both stores: {node.chunks:,} chunks with "
            f"their words, {node.entities:,} entities with their facts, and their concept "
            "records. It cannot be undone; importing the files again brings them back."
        )

    def _forget(self) -> None:
        node = self.chosen()
        if node is not None:
            self.asked = node.path
            self.accept()  # says "Forgetting…" first, so a refusal's words replace it
            self.bridge.forget_scope(node.path)
