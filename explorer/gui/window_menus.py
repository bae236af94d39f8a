"""The main window's menus and what they do (exports, graph edits, the shortcut list), as a mixin.

``WindowMenus`` builds File, Edit, View, Query and Help over the window's widgets and the bridge,
and holds the actions that are the window's own: export the graph as PNG or SVG and the answer as
JSON (scour's JSON with the graph as drawn), hide and pin the selection, the legend, the query
focus and the keyboard shortcuts. ``MainWindow`` mixes it in; it reads only what the window
declares below. Imports Qt, the standard library and the GUI's widgets and request values.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import Qt
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import QFileDialog, QMainWindow, QMenu, QMessageBox

from explorer.gui.bridge import ServiceBridge
from explorer.gui.graph_view import GraphView
from explorer.gui.query_bar import QueryBarWidget
from explorer.gui.requests import QueryOutcome

Shortcut = str | QKeySequence | QKeySequence.StandardKey


class WindowMenus(QMainWindow):
    """See the module docstring."""

    bridge: ServiceBridge
    graph_view: GraphView
    query_bar: QueryBarWidget
    outcome: QueryOutcome | None

    if TYPE_CHECKING:  # the window's own, from ``WindowStatus`` and ``MainWindow``

        def _set_status(self, text: str) -> None: ...
        def show_error(self, title: str, detail: str) -> None: ...
        def _show_result_chunks(self) -> None: ...

    def _build_menus(self) -> None:
        menus = self.menuBar()
        file_menu = menus.addMenu("&File")
        self.file_menu = file_menu
        self._action(file_menu, "Export graph as &PNG…", self.export_png_dialog, "Ctrl+E")
        self._action(file_menu, "Export graph as &SVG…", self.export_svg_dialog)
        self._action(file_menu, "Export result as &JSON…", self.export_json_dialog, "Ctrl+S")
        file_menu.addSeparator()
        self._action(file_menu, "&Quit", self.close, QKeySequence.StandardKey.Quit)

        edit_menu = menus.addMenu("&Edit")
        stack = self.graph_view.undo_stack
        undo = stack.createUndoAction(self, "&Undo")
        undo.setShortcuts([QKeySequence("Ctrl+Z")])
        redo = stack.createRedoAction(self, "&Redo")
        redo.setShortcuts([QKeySequence("Ctrl+Shift+Z"), QKeySequence("Ctrl+Y")])
        edit_menu.addAction(undo)
        edit_menu.addAction(redo)
        self.undo_action, self.redo_action = undo, redo
        edit_menu.addSeparator()
        self._action(
            edit_menu, "&Find in graph…", self.graph_view.search.open, QKeySequence.StandardKey.Find
        )
        self._action(edit_menu, "&Hide selected nodes", self._hide_selected)
        self._action(edit_menu, "&Pin / unpin selected nodes", self._pin_selected)
        self._action(
            edit_menu, "Re-&layout (keeps pinned nodes)", self.graph_view.relayout, "Ctrl+L"
        )

        view_menu = menus.addMenu("&View")
        self.view_menu = view_menu
        self._action(view_menu, "&Fit graph", self.graph_view.fit)
        self._action(view_menu, "Zoom &in", lambda: self.graph_view.zoom(1.25))
        self._action(view_menu, "Zoom &out", lambda: self.graph_view.zoom(0.8))
        legend = QAction("Show &legend", self, checkable=True, checked=True)
        legend.toggled.connect(self._toggle_legend)
        view_menu.addAction(legend)
        view_menu.addSeparator()
        self.docks_menu = view_menu.addMenu("&Panels")

        query_menu = menus.addMenu("&Query")
        self._action(query_menu, "&Run", self.query_bar.submit)
        self._action(query_menu, "&Cancel", self.bridge.cancel_query)
        self._action(query_menu, "&Focus query", self._focus_query, "Ctrl+K")
        self._action(query_menu, "Back to &result chunks", self._show_result_chunks)

        help_menu = menus.addMenu("&Help")
        self._action(help_menu, "&Keyboard shortcuts", self._show_shortcuts, "F1")

    def _action(
        self, menu: QMenu, text: str, slot: Callable[[], object], shortcut: Shortcut | None = None
    ) -> QAction:
        action = QAction(text, self)
        if shortcut is not None:
            action.setShortcut(QKeySequence(shortcut))
        action.triggered.connect(slot)
        menu.addAction(action)
        return action

    # ------------------------------------------------------------------ menu actions

    def _hide_selected(self) -> None:
        self.graph_view.hide_nodes(self.graph_view.selected_ids())

    def _pin_selected(self) -> None:
        self.graph_view.toggle_pin(self.graph_view.selected_ids())

    def _toggle_legend(self, on: bool) -> None:
        self.graph_view.legend.setVisible(on and bool(self.graph_view.legend.types))

    def _focus_query(self) -> None:
        self.query_bar.query_box.setFocus()
        self.query_bar.query_box.setFocus()
        editor = self.query_bar.query_box.lineEdit()
        if editor is not None:
            editor.selectAll()

    def _show_shortcuts(self) -> None:
        box = QMessageBox(self)
        box.setWindowTitle("Keyboard shortcuts")
        box.setWindowModality(Qt.WindowModality.NonModal)
        box.setText(
            "Enter: run query · Esc: cancel · Ctrl+K: focus query\n"
            "Graph: wheel or +/−: zoom · F: fit · middle-drag or Alt+drag: pan\n"
            "drag: move (and pin)\n"
            "double-click: expand · E: expand · C: collapse · Delete/H: hide · P: pin\n"
            "Ctrl+Z / Ctrl+Shift+Z: undo / redo · Ctrl+L: re-layout · Ctrl+E: export PNG"
        )
        box.show()

    def export_png_dialog(self) -> None:
        path, _ = QFileDialog.getSaveFileName(
            self, "Export graph as PNG", "graph.png", "PNG (*.png)"
        )
        if path:
            self._export(lambda: self.graph_view.export_png(Path(path)), path)

    def export_svg_dialog(self) -> None:
        path, _ = QFileDialog.getSaveFileName(
            self, "Export graph as SVG", "graph.svg", "SVG (*.svg)"
        )
        if path:
            self._export(lambda: self.graph_view.export_svg(Path(path)), path)

    def export_json_dialog(self) -> None:
        path, _ = QFileDialog.getSaveFileName(
            self, "Export result as JSON", "scour-result.json", "JSON (*.json)"
        )
        if path:
            self._export(lambda: self.export_json(Path(path)), path)

    def _export(self, action: Callable[[], object], path: str) -> None:
        try:
            action()
        except OSError as exc:
            self.show_error("Export failed", str(exc))
        else:
            self._set_status(f"Saved {path}")

    def export_json(self, path: Path) -> None:
        """The current answer (scour's JSON) with the graph as drawn."""
        # The published JSON, from the answer's one codec, as an agent receives it.
        body: dict[str, object] = {
            "result": self.outcome.answer.to_json_dict() if self.outcome else None
        }
        if self.outcome is not None:
            body["params"] = {
                "query": self.outcome.params.query,
                "n_chunks": self.outcome.params.n_chunks,
                "kg_top_k": self.outcome.params.kg_top_k,
                "domain": self.outcome.params.domain,
                "temporal": self.outcome.params.temporal,
                "scope": self.outcome.params.scope,
            }
        body["graph"] = self.graph_view.graph_json()
        path.write_text(json.dumps(body, indent=2, ensure_ascii=False, default=str), "utf-8")
