"""The Graph menu: shortest path, colour by community, size by a measure, and the style editor.

``install_graph_menu(window)`` adds a Graph menu. *Shortest path* (two nodes selected) draws
the fewest-relations path between them and lists its steps, each relation with its fact,
above the chunks in hand that mention both ends of a step (their provenance). *Colour by
community* and *Size by* (score, salience, degree, centrality) come from networkx over the
drawn graph. *Style…* sets a colour, a caption and what sizes the nodes per entity type; the
style is kept in the window's ``QSettings`` and used by PNG/SVG export. Imports Qt, the standard
library and the GUI modules.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

from PySide6.QtCore import QObject
from PySide6.QtGui import QAction, QActionGroup, QColor
from PySide6.QtWidgets import (
    QColorDialog,
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QGridLayout,
    QLabel,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from explorer.gui import style
from explorer.gui.graph_analytics import GraphPath

if TYPE_CHECKING:
    from explorer.gui.main_window import MainWindow

STYLE_KEY = "graph/style"
SIZE_MEASURES = ("score", "salience", "degree", "centrality")
CAPTIONS = ("name", "name and type")
SAME_SIZE = "as all nodes"


class GraphMenu(QObject):
    """See the module docstring."""

    def __init__(self, window: MainWindow) -> None:
        super().__init__(window)
        self.window = window
        view = window.graph_view
        menu = window.menuBar().addMenu("&Graph")
        window._action(menu, "Shortest &path between selected", self.show_path, "Ctrl+Shift+P")
        window._action(menu, "&Clear path", self.clear_path)
        menu.addSeparator()
        self.community_action = QAction("Colour by &community", window, checkable=True)
        self.community_action.toggled.connect(
            lambda on: view.set_colour_by("community" if on else "type")
        )
        menu.addAction(self.community_action)
        sizes = menu.addMenu("&Size by")
        group = QActionGroup(window)
        self.size_actions: dict[str, QAction] = {}
        for measure in SIZE_MEASURES:
            action = QAction(measure, window, checkable=True)
            action.setChecked(measure == "score")
            action.triggered.connect(lambda _=False, m=measure: self.set_size_by(m))
            group.addAction(action)
            sizes.addAction(action)
            self.size_actions[measure] = action
        menu.addSeparator()
        window._action(menu, "S&tyle…", self.open_style)
        self.dialog: StyleDialog | None = None
        view.graph_changed.connect(self._on_view_graph_changed)
        self.restore()

    # ------------------------------------------------------------------ analytics

    def show_path(self) -> GraphPath | None:
        view = self.window.graph_view
        selected = view.selected_ids()
        if len(selected) != 2:
            self.window.status_message.setText("Select exactly two nodes (Ctrl+click) for a path")
            return None
        path = view.show_path(selected[0], selected[1])
        names = {n: view.state.nodes[n].name for n in view.state.nodes}
        if path is None:
            self.window.status_message.setText(
                f"No path between {names[selected[0]]} and {names[selected[1]]} on screen"
            )
            return None
        self.window.status_message.setText(
            f"Path of {len(path.edges)} relations: " + " → ".join(names[n] for n in path.nodes)
        )
        self.window.show_path_chunks(path)
        return path

    def clear_path(self) -> None:
        self.window.graph_view.clear_path()

    def set_size_by(self, measure: str) -> None:
        self.window.graph_view.set_size_by(measure)
        self.size_actions[measure].setChecked(True)
        self._save()

    def _on_view_graph_changed(self) -> None:
        view = self.window.graph_view
        # Measures and communities depend on what is drawn; recompute them for the new graph.
        if view.size_by != "score":
            view.set_size_by(view.size_by)
        if view.colour_by == "community":
            view.set_colour_by("community")

    # ------------------------------------------------------------------ style

    def open_style(self) -> StyleDialog:
        view = self.window.graph_view
        types = sorted({n.type for n in view.state.nodes.values()} | set(view.captions))
        dialog = StyleDialog(types, view.captions, view.type_sizes, self.window)
        dialog.accepted.connect(
            lambda: self.apply(dialog.colours(), dialog.captions(), dialog.sizes())
        )
        self.dialog = dialog
        dialog.show()
        return dialog

    def apply(
        self,
        colours: dict[str, str],
        captions: dict[str, str],
        sizes: dict[str, str] | None = None,
    ) -> None:
        self.window.graph_view.set_style(colours, captions, sizes)
        self._save()

    def _save(self) -> None:
        view = self.window.graph_view
        body = {
            "colours": dict(style.TYPE_COLOUR_OVERRIDES),
            "captions": view.captions,
            "sizes": view.type_sizes,
            "size_by": view.size_by,
        }
        self.window.store.setValue(STYLE_KEY, json.dumps(body))

    def restore(self) -> None:
        raw: object = self.window.store.value(STYLE_KEY)
        try:
            body = json.loads(str(raw)) if raw else {}
        except ValueError:
            body = {}
        if not isinstance(body, dict):
            return
        colours = {str(k): str(v) for k, v in (body.get("colours") or {}).items()}
        captions = {str(k): str(v) for k, v in (body.get("captions") or {}).items()}
        sizes = {str(k): str(v) for k, v in (body.get("sizes") or {}).items() if v in SIZE_MEASURES}
        self.window.graph_view.set_style(colours, captions, sizes)
        measure = body.get("size_by")
        if measure in SIZE_MEASURES:
            self.window.graph_view.set_size_by(str(measure))
            self.size_actions[str(measure)].setChecked(True)


class StyleDialog(QDialog):
    """A colour and a caption per entity type."""

    def __init__(
        self,
        types: list[str],
        captions: dict[str, str],
        sizes: dict[str, str],
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self.setWindowTitle("Graph style")
        grid = QGridLayout()
        grid.addWidget(QLabel("<b>type</b>"), 0, 0)
        grid.addWidget(QLabel("<b>colour</b>"), 0, 1)
        grid.addWidget(QLabel("<b>caption</b>"), 0, 2)
        grid.addWidget(QLabel("<b>size by</b>"), 0, 3)
        self.size_boxes: dict[str, QComboBox] = {}
        self._colours: dict[str, QColor] = {}
        self.colour_buttons: dict[str, QPushButton] = {}
        self.caption_boxes: dict[str, QComboBox] = {}
        for row, name in enumerate(types, start=1):
            grid.addWidget(QLabel(name or "untyped"), row, 0)
            button = QPushButton()
            self._colours[name] = style.type_colour(name)
            button.clicked.connect(lambda _=False, n=name: self._pick(n))
            self.colour_buttons[name] = button
            grid.addWidget(button, row, 1)
            box = QComboBox()
            box.addItems(list(CAPTIONS))
            box.setCurrentText(captions.get(name, "name"))
            self.caption_boxes[name] = box
            grid.addWidget(box, row, 2)
            size = QComboBox()
            size.addItems([SAME_SIZE, *SIZE_MEASURES])
            size.setCurrentText(sizes.get(name) or SAME_SIZE)
            self.size_boxes[name] = size
            grid.addWidget(size, row, 3)
            self._show(name)
        buttons = QDialogButtonBox(
            QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel
        )
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addLayout(grid)
        layout.addWidget(buttons)

    def set_colour(self, name: str, colour: QColor) -> None:
        self._colours[name] = colour
        self._show(name)

    def _pick(self, name: str) -> None:
        colour = QColorDialog.getColor(self._colours[name], self, f"Colour of {name}")
        if colour.isValid():
            self.set_colour(name, colour)

    def _show(self, name: str) -> None:
        self.colour_buttons[name].setIcon(style.swatch_icon(self._colours[name]))
        self.colour_buttons[name].setText(self._colours[name].name())

    def colours(self) -> dict[str, str]:
        return {name: colour.name() for name, colour in self._colours.items()}

    def captions(self) -> dict[str, str]:
        return {name: box.currentText() for name, box in self.caption_boxes.items()}

    def sizes(self) -> dict[str, str]:
        """The measure chosen per type; types left at "as all nodes" are absent."""
        chosen = {name: box.currentText() for name, box in self.size_boxes.items()}
        return {name: measure for name, measure in chosen.items() if measure != SAME_SIZE}


def install_graph_menu(window: MainWindow) -> GraphMenu:
    return GraphMenu(window)
