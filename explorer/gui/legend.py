"""The graph's legend: the entity types on screen with their colours and counts, clickable.

``LegendWidget`` floats in a corner of the graph view. Each row is a toggle: clicking it hides
that type's nodes (the row greys out) and clicking again shows them, through ``type_toggled``.
It keeps its rows through every query and lists every type present, hidden ones included.
``entries()`` says what it shows, for the scene description and exports. Imports Qt, the
standard library and the GUI style.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import QFrame, QToolButton, QVBoxLayout, QWidget

from explorer.gui import style


class LegendWidget(QFrame):
    """See the module docstring."""

    type_toggled = Signal(str, bool)  # entity type, now visible

    def __init__(self, parent: QWidget) -> None:
        super().__init__(parent)
        self.setObjectName("legend")
        self.setStyleSheet(
            "#legend{background:rgba(255,255,255,225);border:1px solid #dadce0;border-radius:4px}"
            "QToolButton{border:none;text-align:left;padding:0 2px}"
        )
        self._box = QVBoxLayout(self)
        self._box.setContentsMargins(6, 4, 6, 4)
        self._box.setSpacing(0)
        self.types: dict[str, int] = {}
        self.hidden: set[str] = set()
        self.buttons: dict[str, QToolButton] = {}

    def set_types(self, counts: Mapping[str, int], hidden: Iterable[str] = ()) -> None:
        """Show these types with their counts (and which are hidden)."""
        self.hidden = set(hidden)
        counts = dict(counts)
        if counts != self.types:
            self.types = counts
            for button in self.buttons.values():
                self._box.removeWidget(button)
                button.deleteLater()
            self.buttons = {}
            for name, _ in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0])):
                button = QToolButton(self)
                button.setCheckable(True)
                button.setCursor(Qt.CursorShape.PointingHandCursor)
                button.toggled.connect(lambda on, n=name: self.type_toggled.emit(n, on))
                self._box.addWidget(button)
                button.show()  # a child added to a visible widget stays hidden otherwise
                self.buttons[name] = button
        self.restyle()
        self.adjustSize()
        self.setVisible(bool(counts))

    def restyle(self) -> None:
        """Colours and texts after a change of counts, visibility or the style."""
        for name, button in self.buttons.items():
            visible = name not in self.hidden
            button.blockSignals(True)
            button.setChecked(visible)
            button.blockSignals(False)
            label = name or "untyped"
            button.setIcon(style.swatch_icon(style.type_colour(name) if visible else None))
            button.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextBesideIcon)
            button.setText(f"{label} ({self.types.get(name, 0)})")
            button.setStyleSheet("" if visible else "color:#9aa0a6;")
            button.setToolTip(f"Click to {'hide' if visible else 'show'} the {label} nodes")

    def entries(self) -> list[dict[str, object]]:
        return [
            {
                "type": name,
                "colour": style.type_colour(name).name(),
                "count": self.types[name],
                "hidden": name in self.hidden,
            }
            for name in self.buttons
        ]
