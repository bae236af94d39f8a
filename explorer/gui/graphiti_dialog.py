"""File → Open graphiti memory…: pick a graph that graphiti-core wrote into FalkorDB.

``GraphitiDialog`` takes a FalkorDB URL (``redis://``, ``rediss://`` or ``unix://``; empty means
the embedded FalkorDB of the current data directory), lists the graphs on that server that look
like graphiti's, and optionally the embedding model the graph's vectors came from (graphiti does
not record it; without it vector search stays off). It hands back ``Settings`` that open the
chosen graph read-only; the window reopens the memory with them. Listing reads the server's graph
names and each graph's labels only, through the bridge. Imports Qt, the standard library, the
settings module and the bridge.
"""

from __future__ import annotations

import dataclasses

from PySide6.QtWidgets import (
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QFormLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from explorer.core.errors import InvalidArgument
from explorer.gui import style
from explorer.gui.bridge import ServiceBridge
from explorer.settings import Settings


class GraphitiDialog(QDialog):
    """See the module docstring; ``selected`` holds the settings after Open."""

    def __init__(
        self, bridge: ServiceBridge, settings: Settings, parent: QWidget | None = None
    ) -> None:
        super().__init__(parent)
        self.setWindowTitle("Open a graphiti memory")
        self.setMinimumWidth(560)
        self.bridge = bridge
        bridge.graphiti_listed.connect(self._on_bridge_graphiti_listed)
        bridge.graphiti_list_failed.connect(self._on_bridge_graphiti_list_failed)
        self.settings = settings
        self.selected: Settings | None = None
        self.url = QLineEdit(settings.falkordb_url or "")
        self.url.setPlaceholderText(
            "empty: the embedded FalkorDB; or redis://host:6379, unix:///path/falkordb.sock"
        )
        self.graphs = QComboBox()
        self.graphs.setEditable(True)
        self.graphs.setPlaceholderText("list the graphs, or type a graph name")
        if settings.graphiti_graph:
            self.graphs.setEditText(settings.graphiti_graph)
        self.model = QLineEdit(settings.graphiti_embedding_model or "")
        self.model.setPlaceholderText("the model that wrote the graph's vectors (optional)")
        self.list_button = QPushButton("List graphiti graphs")
        self.list_button.clicked.connect(self.list_graphs)
        self.status = QLabel("Not listed yet")
        self.status.setWordWrap(True)
        form = QFormLayout()
        form.addRow("FalkorDB URL", self.url)
        form.addRow("Graph", self.graphs)
        form.addRow("Embedding model", self.model)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Cancel)
        self.open_button = buttons.addButton("Open", QDialogButtonBox.ButtonRole.AcceptRole)
        self.open_button.clicked.connect(self._on_open)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addLayout(form)
        layout.addWidget(self.list_button)
        layout.addWidget(self.status)
        layout.addWidget(buttons)

    def chosen(self) -> Settings:
        """The settings opening the graph the form names; ``InvalidArgument`` when it names
        none."""
        graph = self.graphs.currentText().strip()
        if not graph:
            raise InvalidArgument("choose or type the graphiti graph to open")
        return dataclasses.replace(
            self._server(),
            graphiti_graph=graph,
            graphiti_embedding_model=self.model.text().strip() or None,
        )

    def _server(self) -> Settings:
        return dataclasses.replace(self.settings, falkordb_url=self.url.text().strip() or None)

    def list_graphs(self) -> None:
        """Fill the picker with the server's graphiti graphs (in the background)."""
        try:
            server = self._server()
        except InvalidArgument as exc:
            self._show(str(exc), error=True)
            return
        self._show("listing…")
        self.bridge.list_graphiti_graphs(server)

    def _on_bridge_graphiti_list_failed(self, message: str) -> None:
        self._show(f"✘ {message}", error=True)

    def _on_bridge_graphiti_listed(self, names: list[str]) -> None:
        typed = self.graphs.currentText().strip()
        self.graphs.clear()
        self.graphs.addItems(names)
        if typed in names:
            self.graphs.setCurrentText(typed)
        elif names:
            self.graphs.setCurrentIndex(0)
        found = f"{len(names)} graphiti graph{'s' if len(names) != 1 else ''}"
        self._show(f"✔ {found}: {', '.join(names)}" if names else "✘ no graphiti graph there")

    def _show(self, text: str, *, error: bool = False) -> None:
        self.status.setText(text)
        self.status.setStyleSheet(style.INVALID_INPUT if error else "")

    def _on_open(self) -> None:
        try:
            self.selected = self.chosen()
        except InvalidArgument as exc:
            self._show(str(exc), error=True)
            return
        self.accept()
