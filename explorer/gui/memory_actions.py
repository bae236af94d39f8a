"""The window's own-memory path: the overview, the scope tree, import, settings and connections.

``install_memory_actions(window)`` adds File → Import… (and importing a file dropped on the
window), Forget a scope…, Open memory…, Open graphiti memory…, Open recent and Settings…, and the
overview page beside the chunk list. Whenever a memory is opened (at start, after Connect, after
Settings), an import ends or a scope is forgotten, the bridge's overview fills the scope picker
and, until the first query, shows the memory's counts and example queries beside its most salient
entities drawn as a starting graph. Recent memories (data directories, external connections or
graphiti graphs) are kept in the window's ``QSettings``. Imports Qt, the standard library, the
settings module and the GUI modules.
"""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QEvent, QObject
from PySide6.QtGui import QDragEnterEvent, QDropEvent
from PySide6.QtWidgets import QFrame, QScrollArea

from explorer.core.models import scope_distance
from explorer.core.overview import MemoryOverview
from explorer.core.ports import Forgotten
from explorer.gui.forget_dialog import ForgetDialog
from explorer.gui.graphiti_dialog import GraphitiDialog
from explorer.gui.import_dialog import ImportDialog
from explorer.gui.overview import OverviewWidget, overview_entities
from explorer.gui.requests import ImportOutcome, QueryOutcome, QueryParams
from explorer.gui.settings_dialogs import ConnectDialog, SettingsDialog
from explorer.settings import Settings

if TYPE_CHECKING:
    from explorer.gui.main_window import MainWindow

APPLICATION = "Scour Explorer"

RECENT_KEY = "memory/recent"
RECENT_LIMIT = 8
#: What a recent-memory entry remembers of the settings.
CONNECTION_FIELDS = (
    "data_dir",
    "falkordb_url",
    "postgres_dsn",
    "graph_name",
    "graphiti_graph",
    "graphiti_embedding_model",
)


class MemoryActions(QObject):
    """See the module docstring."""

    def __init__(self, window: MainWindow) -> None:
        super().__init__(window)
        self.window = window
        self.bridge = window.bridge
        self.overview: MemoryOverview | None = None
        self.overview_page = OverviewWidget()
        # Scrolls rather than clips when the side panel is short.
        self.overview_area = QScrollArea()
        self.overview_area.setWidgetResizable(True)
        self.overview_area.setFrameShape(QFrame.Shape.NoFrame)
        self.overview_area.setWidget(self.overview_page)
        window.side.addWidget(self.overview_area)
        window.side.setCurrentWidget(self.overview_area)
        self.import_dialog: ImportDialog | None = None
        self.forget_dialog: ForgetDialog | None = None
        self.dialog: SettingsDialog | ConnectDialog | GraphitiDialog | None = None
        # What the last import or forget said, kept for the status line the overview writes after.
        self._said = ""
        self._forgot = False  # the next overview replaces whatever is on screen

        menu = window.file_menu
        first = menu.actions()[0]
        for text, slot, keys in (
            ("&Import conversations…", self.open_import, "Ctrl+I"),
            ("&Forget a scope…", self.open_forget, None),
            ("&Open memory…", self.open_connect, "Ctrl+O"),
            ("Open &graphiti memory…", self.open_graphiti, "Ctrl+Shift+O"),
        ):
            action = window._action(menu, text, slot, keys)
            menu.insertAction(first, action)
        self.recent_menu = menu.addMenu("Open &recent")
        menu.insertMenu(first, self.recent_menu)
        settings_action = window._action(menu, "&Settings…", self.open_settings, "Ctrl+,")
        menu.insertAction(first, settings_action)
        menu.insertSeparator(first)
        overview_action = window._action(window.view_menu, "&Overview", self.show_overview, "Home")
        window.view_menu.insertAction(window.view_menu.actions()[0], overview_action)

        self.overview_page.example_chosen.connect(window.run_query)
        self.bridge.overview_ready.connect(self._on_bridge_overview_ready)
        self.bridge.memory_ready.connect(self._on_bridge_memory_ready)
        self.bridge.import_finished.connect(self._on_bridge_import_finished)
        self.bridge.scope_forgotten.connect(self._on_bridge_scope_forgotten)
        self.bridge.scope_forget_failed.connect(self._on_bridge_scope_forget_failed)
        window.outcome_changed.connect(self._on_window_outcome_changed)
        window.graph_view.entity_selected.connect(self._on_graph_entity_selected)
        window.setAcceptDrops(True)
        window.installEventFilter(self)
        self._rebuild_recent()

    # ------------------------------------------------------------------ overview

    def _on_bridge_memory_ready(self) -> None:
        settings = self.bridge.settings
        if isinstance(settings, Settings):
            self.remember(settings)
            self.window.setWindowTitle(f"{APPLICATION} — {where(settings)}")

    def _on_bridge_overview_ready(self, overview: MemoryOverview) -> None:
        # Until the first answer is shown; an answer that came first is not replaced, unless
        # a scope was just forgotten (the answer on screen may show what is gone).
        first = self.window.outcome is None or self._forgot
        self.overview = overview
        self.window.query_bar.scope_picker.set_tree(overview.scopes)
        settings = self.bridge.settings
        self.overview_page.show_overview(
            overview, where(settings) if isinstance(settings, Settings) else ""
        )
        if first:
            self._forgot = False
            self.show_overview()
        else:
            self._said = ""  # already on the status line; not for a later overview

    def show_overview(self) -> None:
        """The overview page and the starting graph (after opening, or from View → Overview)."""
        overview = self.overview
        if overview is None:
            return
        self.window.side.setCurrentWidget(self.overview_area)
        self.window.graph_view.show_entities(
            overview_entities(overview), {}, question=QueryParams(query="")
        )
        counts = f"{overview.chunks:,} chunks and {overview.entities:,} entities"
        said, self._said = self._said, ""
        self.window.status_message.setText(
            f"{said} · {counts} in all" if said else f"{counts}: try an example or type a query"
        )

    def overview_shown(self) -> bool:
        return self.window.side.currentWidget() is self.overview_area

    def _on_window_outcome_changed(self, _outcome: QueryOutcome) -> None:
        self.window.side.setCurrentWidget(self.window.chunk_list)

    def _on_graph_entity_selected(self, entity_id: str) -> None:
        if entity_id:
            self.window.side.setCurrentWidget(self.window.chunk_list)

    # ------------------------------------------------------------------ import

    def open_import(self, path: str | Path | None = None) -> ImportDialog:
        dialog = ImportDialog(self.bridge, self.window)
        if path:
            dialog.set_path(path)
        self.import_dialog = dialog
        dialog.show()
        return dialog

    def _on_bridge_import_finished(self, outcome: ImportOutcome) -> None:
        if outcome.report is not None or outcome.completed:
            scope = outcome.request.scope
            self._said = f"Imported into “{scope}”; pick it in the scope box ▾ to ask it alone"
            self.window.status_message.setText(self._said)

    # ------------------------------------------------------------------ forget

    def open_forget(self) -> ForgetDialog | None:
        """File → Forget a scope…: the scopes the overview knows, the query bar's one chosen."""
        if self.overview is None:
            return None
        scope = self.window.query_bar.scope_picker.text()
        dialog = ForgetDialog(self.bridge, self.overview.scopes, scope, self.window)
        dialog.accepted.connect(
            lambda: self.window.status_message.setText(f"Forgetting “{dialog.asked}”…")
        )
        self.forget_dialog = dialog
        dialog.show()
        return dialog

    def _on_bridge_scope_forgotten(self, forgotten: Forgotten) -> None:
        picker = self.window.query_bar.scope_picker
        if scope_distance(picker.text(), forgotten.scope) == 0:
            picker.set_text("")  # the scope box no longer names what is gone
        self._forgot = True  # the answer on screen may show what is gone
        said = forgotten.describe()
        self._said = said[:1].upper() + said[1:]
        self.window.status_message.setText(self._said)

    def _on_bridge_scope_forget_failed(self, scope: str, why: str, changed: bool) -> None:
        self._said = f"Forget “{scope}”: {why}"
        self.window.status_message.setText(self._said)
        if changed:  # part of it went: the overview that follows replaces what is on screen
            self._forgot = True

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if watched is self.window and event.type() == QEvent.Type.DragEnter:
            assert isinstance(event, QDragEnterEvent)
            if _dropped_file(event) is not None:
                event.acceptProposedAction()
                return True
        if watched is self.window and event.type() == QEvent.Type.Drop:
            assert isinstance(event, QDropEvent)
            path = _dropped_file(event)
            if path is not None:
                event.acceptProposedAction()
                self.open_import(path)
                return True
        return super().eventFilter(watched, event)

    # ------------------------------------------------------------------ settings, connections

    def open_settings(self) -> SettingsDialog | None:
        settings = self.bridge.settings
        if not isinstance(settings, Settings):
            return None
        dialog = SettingsDialog(settings, self.window)
        dialog.accepted.connect(lambda: self._reopen(dialog.saved))
        self.dialog = dialog
        dialog.show()
        return dialog

    def open_connect(self) -> ConnectDialog | None:
        settings = self.bridge.settings
        if not isinstance(settings, Settings):
            return None
        dialog = ConnectDialog(self.bridge, settings, self.window)
        # The explorer's own stores: whatever graphiti graph was open is left.
        dialog.accepted.connect(lambda: self._reopen(_own_memory(dialog.selected)))
        self.dialog = dialog
        dialog.show()
        return dialog

    def open_graphiti(self) -> GraphitiDialog | None:
        """File → Open graphiti memory…: a graph graphiti-core wrote, opened read-only."""
        settings = self.bridge.settings
        if not isinstance(settings, Settings):
            return None
        dialog = GraphitiDialog(self.bridge, settings, self.window)
        dialog.accepted.connect(lambda: self._reopen(dialog.selected))
        self.dialog = dialog
        dialog.show()
        dialog.list_graphs()
        return dialog

    def _reopen(self, settings: Settings | None) -> None:
        if settings is None:
            return
        self.overview = None
        self.window.outcome = None
        self.window.graph_view.clear()
        self.window.chunk_list.show_message("Opening the memory…")
        self.window.side.setCurrentWidget(self.overview_area)
        self.bridge.reopen(settings)

    def remember(self, settings: Settings) -> None:
        """Put a memory first in the recent list."""
        entry = json.dumps(_connection(settings), sort_keys=True)
        recent = [entry, *(e for e in self._recent() if e != entry)][:RECENT_LIMIT]
        self.window.store.setValue(RECENT_KEY, recent)
        self._rebuild_recent()

    def _recent(self) -> list[str]:
        value: object = self.window.store.value(RECENT_KEY, [])
        if isinstance(value, str):
            value = [value]
        return [str(v) for v in value] if isinstance(value, list) else []

    def _rebuild_recent(self) -> None:
        self.recent_menu.clear()
        for entry in self._recent():
            try:
                connection = json.loads(entry)
            except ValueError:
                continue
            if not isinstance(connection, dict):
                continue
            label = connection.get("falkordb_url") or connection.get("data_dir") or "?"
            if connection.get("graphiti_graph"):
                label = f"graphiti “{connection['graphiti_graph']}” on {label}"
            action = self.recent_menu.addAction(str(label))
            action.triggered.connect(lambda _=False, c=connection: self.open_recent(c))
        self.recent_menu.setEnabled(bool(self.recent_menu.actions()))

    def open_recent(self, connection: dict[str, Any]) -> None:
        settings = self.bridge.settings
        if isinstance(settings, Settings):
            values: dict[str, Any] = {
                k: connection.get(k) for k in CONNECTION_FIELDS if k in connection
            }
            values["data_dir"] = Path(str(values.get("data_dir") or settings.data_dir))
            # Entries from before graphiti memories existed are the explorer's own stores.
            values.setdefault("graphiti_graph", None)
            self._reopen(dataclasses.replace(settings, **values))


def where(settings: Settings) -> str:
    """Which memory these settings open, in a few words."""
    if settings.graphiti_graph:
        server = settings.falkordb_url or "the embedded FalkorDB"
        return f"graphiti graph “{settings.graphiti_graph}” on {server}"
    if settings.falkordb_url or settings.postgres_dsn:
        return settings.falkordb_url or settings.postgres_dsn or ""
    home = Path.home()
    if settings.data_dir.is_relative_to(home):
        return str(Path("~") / settings.data_dir.relative_to(home))
    return str(settings.data_dir)


def _connection(settings: Settings) -> dict[str, Any]:
    return {
        "data_dir": str(settings.data_dir),
        "falkordb_url": settings.falkordb_url,
        "postgres_dsn": settings.postgres_dsn,
        "graph_name": settings.graph_name,
        "graphiti_graph": settings.graphiti_graph,
        "graphiti_embedding_model": settings.graphiti_embedding_model,
    }


def _own_memory(settings: Settings | None) -> Settings | None:
    return None if settings is None else dataclasses.replace(settings, graphiti_graph=None)


def _dropped_file(event: QDragEnterEvent | QDropEvent) -> str | None:
    mime = event.mimeData()
    if mime is None or not mime.hasUrls():
        return None
    for url in mime.urls():
        if url.isLocalFile() and Path(url.toLocalFile()).is_file():
            return url.toLocalFile()
    return None


def install_memory_actions(window: MainWindow) -> MemoryActions:
    return MemoryActions(window)
