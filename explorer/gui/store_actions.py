"""Reconnect and Restart per store, and the health lights while a store is brought back.

``install_store_actions(window)`` adds a Stores menu (Reconnect / Restart for the knowledge graph
and for the chunk store; Restart stops and starts an embedded server, reconnecting is all an
external one gets) and the same two actions on each health light's context menu. While the
memory restarts a server that died, or an action runs, the light is amber and its banner says
so; the window's own handler turns it green once the store answers. Imports Qt and the bridge's
half names.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

from PySide6.QtCore import QPoint, Qt
from PySide6.QtGui import QAction
from PySide6.QtWidgets import QLabel, QMenu

from explorer.gui import style
from explorer.gui.bridge import CHUNKS, GRAPH

if TYPE_CHECKING:
    from explorer.gui.main_window import MainWindow

NAMES = {GRAPH: "knowledge graph", CHUNKS: "chunk store"}
#: How a half's status reads while it is being brought back.
RECOVERING = ("restarting", "reconnecting")


def recovering(status: str) -> bool:
    return status.lower().startswith(RECOVERING)


class StoreActions:
    """The actions of one window, kept so tests can trigger them."""

    def __init__(self, window: MainWindow) -> None:
        self.window = window
        bridge = window.bridge
        menu = window.menuBar().addMenu("&Stores")
        self.actions: dict[tuple[str, str], QAction] = {}
        for half in (GRAPH, CHUNKS):
            for verb, slot in (
                ("Reconnect", bridge.reconnect_store),
                ("Restart", bridge.restart_store),
            ):
                action = QAction(f"{verb} the {NAMES[half]}", window)
                action.triggered.connect(lambda _=False, s=slot, h=half: s(h))
                menu.addAction(action)
                self.actions[(verb.lower(), half)] = action
            menu.addSeparator()
        for half, label in ((GRAPH, window.graph_status), (CHUNKS, window.chunks_status)):
            label.setContextMenuPolicy(Qt.ContextMenuPolicy.CustomContextMenu)
            label.customContextMenuRequested.connect(
                lambda position, h=half, w=label: self._light_menu(h, w, position)
            )
        bridge.health_changed.connect(self.show_recovering)

    def _light_menu(self, half: str, label: QLabel, position: QPoint) -> None:
        menu = QMenu(label)
        menu.addAction(self.actions[("reconnect", half)])
        menu.addAction(self.actions[("restart", half)])
        menu.exec(label.mapToGlobal(position))

    def show_recovering(self, health: Mapping[str, str]) -> None:
        """Amber light and a banner for a half being brought back (after the window's own
        red/green handling, which this only refines)."""
        window = self.window
        for half, label, banner in (
            (GRAPH, window.graph_status, window.graph_banner),
            (CHUNKS, window.chunks_status, window.chunks_banner),
        ):
            status = str(health.get(half, ""))
            if not recovering(status):
                continue
            name = "graph" if half == GRAPH else "chunks"
            label.setText(f"<span style='color:#f29900'>●</span> {name}: {status.split(' (')[0]}")
            label.setToolTip(f"{name}: {status}")
            banner.setText(f"The {NAMES[half]} is {status}")
            banner.setToolTip(status)
            banner.setStyleSheet(style.BANNER_WARNING)
            banner.setProperty("kind", "down")
            banner.show()


def install_store_actions(window: MainWindow) -> StoreActions:
    return StoreActions(window)
