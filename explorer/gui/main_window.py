"""The main window: query bar, neighbourhood graph beside the verbatim chunks, inspector, status.

``MainWindow`` wires the widgets to the ``ServiceBridge``: widgets emit what the user asked for,
the window turns that into bridge calls, and the bridge's answers come back as signals that the
window hands to the widgets. It also links the two halves by provenance (hover a chunk → its
entities light up; hover or select an entity → the chunks that mention it, spans highlighted),
shows per-half health as banners and status-bar entries, and remembers geometry, splitter sizes
and recent queries in ``QSettings``. Later docks plug in with ``add_dock`` and follow the current
answer through ``outcome_changed``. Imports Qt, the standard library and the GUI modules.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import replace

from PySide6.QtCore import QByteArray, QSettings, Qt, QTimer, Signal
from PySide6.QtGui import QCloseEvent
from PySide6.QtWidgets import (
    QDockWidget,
    QLabel,
    QMainWindow,
    QMessageBox,
    QSplitter,
    QStackedWidget,
    QVBoxLayout,
    QWidget,
)

from explorer.core.models import Chunk, Entity
from explorer.core.scour import MAX_PROVENANCE
from explorer.gui.bridge import ServiceBridge
from explorer.gui.chunk_list import ChunkListWidget
from explorer.gui.graph_analytics import GraphPath
from explorer.gui.graph_model import relations_of
from explorer.gui.graph_view import GraphView
from explorer.gui.inspector import InspectorWidget
from explorer.gui.query_bar import QueryBarWidget
from explorer.gui.recalled import ShownChunk, ShownEntity, timings_of
from explorer.gui.requests import EntityDetails, QueryOutcome, QueryParams
from explorer.gui.window_menus import WindowMenus
from explorer.gui.window_status import APPLICATION, WindowStatus

_log = logging.getLogger(__name__)

ORGANIZATION = "scour-explorer"
RECENT_LIMIT = 30
SIDE_WIDTH = 280  # the column of side docks, when no layout was saved
DOCK_LAYOUT = 2  # a dock layout saved by an older arrangement is not restored


def default_settings_store() -> QSettings:
    return QSettings(ORGANIZATION, APPLICATION)


class MainWindow(WindowStatus, WindowMenus):
    """See the module docstring."""

    outcome_changed = Signal(object)  # QueryOutcome, for docks that follow the current answer
    window_closed = Signal()

    def __init__(
        self,
        bridge: ServiceBridge,
        *,
        settings_store: QSettings | None = None,
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self.setWindowTitle(APPLICATION)
        self.setObjectName("mainWindow")
        self.bridge = bridge
        self.store = settings_store if settings_store is not None else default_settings_store()
        self.outcome: QueryOutcome | None = None
        self._latest_token = 0
        self._links: dict[str, list[str]] = {}
        self._selected_entity = ""
        self._selected_chunk = ""
        self._hovered_chunk = ""
        self._asked: set[str] = set()  # entity ids fetched for a hovered chunk
        self._pending_highlight = False
        self._mention_chunks: dict[str, ShownChunk] = {}
        self._entity_cache: dict[str, Entity] = {}
        self._close_started = False
        self._close_task: asyncio.Future[None] | None = None
        self._error_box: QMessageBox | None = None
        self.errors: list[tuple[str, str]] = []

        self.query_bar = QueryBarWidget()
        self.graph_view = GraphView()
        self.chunk_list = ChunkListWidget()
        self.inspector = InspectorWidget()
        self.graph_banner = _banner()
        self.chunks_banner = _banner()

        graph_panel = QWidget()
        graph_layout = QVBoxLayout(graph_panel)
        graph_layout.setContentsMargins(0, 0, 0, 0)
        graph_layout.setSpacing(2)
        graph_layout.addWidget(self.graph_banner)
        graph_layout.addWidget(self.graph_view, 1)
        from explorer.gui.graph_filter import GraphFilterBar

        self.graph_filter = GraphFilterBar(self.graph_view)
        graph_layout.addWidget(self.graph_filter)
        chunk_panel = QWidget()
        chunk_layout = QVBoxLayout(chunk_panel)
        chunk_layout.setContentsMargins(0, 0, 0, 0)
        chunk_layout.setSpacing(2)
        chunk_layout.addWidget(self.chunks_banner)
        # The chunk list shares its place with the overview shown before the first query.
        self.side = QStackedWidget()
        self.side.addWidget(self.chunk_list)
        chunk_layout.addWidget(self.side, 1)
        self.splitter = QSplitter(Qt.Orientation.Horizontal)
        self.splitter.setObjectName("graphChunkSplitter")
        self.splitter.addWidget(graph_panel)
        self.splitter.addWidget(chunk_panel)
        self.splitter.setStretchFactor(0, 3)
        self.splitter.setStretchFactor(1, 2)
        self.splitter.setChildrenCollapsible(False)

        central = QWidget()
        central_layout = QVBoxLayout(central)
        central_layout.setContentsMargins(4, 4, 4, 4)
        central_layout.setSpacing(4)
        central_layout.addWidget(self.splitter, 1)
        self.setCentralWidget(central)
        # The query bar spans the window above the docks, so its boxes keep readable widths.
        self.addToolBar(Qt.ToolBarArea.TopToolBarArea, self.query_bar.toolbar(self))
        self.setDockOptions(
            QMainWindow.DockOption.AnimatedDocks
            | QMainWindow.DockOption.AllowTabbedDocks
            | QMainWindow.DockOption.AllowNestedDocks
        )

        self._build_status_bar()
        self._build_menus()
        self.inspector_dock = self.add_dock(
            self.inspector, "Inspector", "inspectorDock", Qt.DockWidgetArea.RightDockWidgetArea
        )
        self._connect()
        # Retrieval-trace docks (policy, ledger, activation, hits): before the saved dock
        # state is restored, so their places are restored too.
        from explorer.gui.trace import install_trace

        self.trace = install_trace(self)
        from explorer.gui.recall_feed import install_recall_feed

        self.recall_feed = install_recall_feed(self)
        from explorer.gui.memory_actions import install_memory_actions

        self.memory_actions = install_memory_actions(self)
        from explorer.gui.graph_menu import install_graph_menu

        self.graph_menu = install_graph_menu(self)
        from explorer.gui.store_actions import install_store_actions

        self.store_actions = install_store_actions(self)
        self._restore_settings()
        self.chunk_list.show_message("Type a query above and press Enter.")

    # ------------------------------------------------------------------ construction

    def add_dock(
        self,
        widget: QWidget,
        title: str,
        object_name: str,
        area: Qt.DockWidgetArea = Qt.DockWidgetArea.RightDockWidgetArea,
    ) -> QDockWidget:
        """Add a rearrangeable dock, listed in the View menu and kept across sessions."""
        dock = QDockWidget(title, self)
        dock.setObjectName(object_name)
        dock.setWidget(widget)
        dock.setFeatures(
            QDockWidget.DockWidgetFeature.DockWidgetMovable
            | QDockWidget.DockWidgetFeature.DockWidgetFloatable
            | QDockWidget.DockWidgetFeature.DockWidgetClosable
        )
        self.addDockWidget(area, dock)
        self.docks_menu.addAction(dock.toggleViewAction())
        return dock

    def _connect(self) -> None:
        bridge = self.bridge
        self.query_bar.query_submitted.connect(self._on_query_bar_submitted)
        self.query_bar.cancel_requested.connect(bridge.cancel_query)
        bridge.busy_changed.connect(self._on_bridge_busy_changed)
        bridge.opening_progress.connect(self._set_status)
        bridge.memory_ready.connect(self._on_bridge_memory_ready)
        bridge.memory_failed.connect(self._on_bridge_memory_failed)
        bridge.domains_loaded.connect(self.query_bar.set_domains)
        bridge.query_started.connect(self._on_bridge_query_started)
        bridge.query_finished.connect(self._on_bridge_query_finished)
        bridge.query_preview.connect(self._on_bridge_query_preview)
        bridge.query_failed.connect(self._on_bridge_query_failed)
        bridge.query_cancelled.connect(self._on_bridge_query_cancelled)
        bridge.expansion_ready.connect(self.graph_view.apply_expansion)
        bridge.layout_ready.connect(self.graph_view.on_layout_ready)
        bridge.entity_ready.connect(self._on_bridge_entity_ready)
        bridge.chunk_links_ready.connect(self._on_bridge_chunk_links_ready)
        bridge.entities_ready.connect(self._on_bridge_entities_ready)
        self.graph_view.graph_changed.connect(self._on_graph_graph_changed)
        bridge.health_changed.connect(self._show_health)
        bridge.error_occurred.connect(self.show_error)
        bridge.closed.connect(self._on_bridge_closed)
        self.graph_view.layout_requested.connect(bridge.request_layout)
        self.graph_view.expand_requested.connect(bridge.request_expand)
        self.graph_view.entity_selected.connect(self._on_graph_entity_selected)
        self.graph_view.entity_hovered.connect(self._on_graph_entity_hovered)
        self.graph_view.layout_settled.connect(self._on_graph_layout_settled)
        self.chunk_list.chunk_hovered.connect(self._on_chunks_hovered)
        self.chunk_list.chunk_selected.connect(self._on_chunks_selected)
        self.chunk_list.all_mentions_requested.connect(self._on_chunks_all_mentions)
        self.chunk_list.back_requested.connect(self._show_result_chunks)
        self.inspector.entity_activated.connect(self._on_inspector_entity_activated)
        self.inspector.chunk_activated.connect(self._on_inspector_chunk_activated)
        self.inspector.alias_detach_requested.connect(self._on_inspector_alias_detach_requested)
        bridge.alias_detached.connect(self._on_bridge_alias_detached)
        bridge.alias_detach_failed.connect(self._on_bridge_alias_detach_failed)
        self.inspector.alias_allow_requested.connect(self._on_inspector_alias_allow_requested)
        bridge.alias_allowed.connect(self._on_bridge_alias_allowed)
        bridge.alias_allow_failed.connect(self._on_bridge_alias_allow_failed)

    # ------------------------------------------------------------------ settings

    def _restore_settings(self) -> None:
        store = self.store
        geometry = store.value("window/geometry")
        if isinstance(geometry, QByteArray) and not geometry.isEmpty():
            self.restoreGeometry(geometry)
        else:
            self.resize(1280, 800)
        state = store.value("window/state")
        restored = isinstance(state, QByteArray) and not state.isEmpty()
        if not (restored and self.restoreState(state, DOCK_LAYOUT)):
            self.resizeDocks([self.inspector_dock], [SIDE_WIDTH], Qt.Orientation.Horizontal)
        self.trace.bottom.restore()
        splitter = store.value("window/splitter")
        if isinstance(splitter, QByteArray) and not splitter.isEmpty():
            self.splitter.restoreState(splitter)
        else:
            self.splitter.setSizes([640, 420])
        recent: object = store.value("query/recent", [])
        if isinstance(recent, str):
            recent = [recent]
        if not isinstance(recent, list):
            recent = []
        self.query_bar.set_history([str(q) for q in recent])
        for key, box in (
            ("query/n_chunks", self.query_bar.n_chunks),
            ("query/kg_top_k", self.query_bar.kg_top_k),
        ):
            value = store.value(key)
            if value is not None:
                with contextlib.suppress(TypeError, ValueError):
                    box.setValue(int(value))

    def save_settings(self) -> None:
        store = self.store
        store.setValue("window/geometry", self.saveGeometry())
        store.setValue("window/state", self.saveState(DOCK_LAYOUT))
        store.setValue("window/splitter", self.splitter.saveState())
        store.setValue("query/recent", self.query_bar.history()[:RECENT_LIMIT])
        store.setValue("query/n_chunks", self.query_bar.n_chunks.value())
        store.setValue("query/kg_top_k", self.query_bar.kg_top_k.value())
        store.sync()

    # ------------------------------------------------------------------ queries

    def run_query(self, params: QueryParams | str) -> int:
        """Run a query as if typed (scripts, screenshots and tests)."""
        if isinstance(params, str):
            self.query_bar.set_query(params)
            params = self.query_bar.params()
            self.query_bar.remember(params.query)
        return self._on_query_bar_submitted(params)

    def show_outcome(self, outcome: QueryOutcome) -> None:
        """Show an answer made without the bridge (a what-if re-decision, an opened case)."""
        self._latest_token = max(self._latest_token, outcome.token)
        self._on_bridge_query_finished(replace(outcome, token=self._latest_token))

    def _on_query_bar_submitted(self, params: QueryParams) -> int:
        self._latest_token = self.bridge.submit_query(params)
        self.save_settings()
        return self._latest_token

    def _on_bridge_query_started(self, token: int, query: str) -> None:
        # The bridge may start a query by itself (a re-run after a store came back).
        self._latest_token = max(self._latest_token, token)
        if token == self._latest_token:
            self._set_status(f"Scouring “{query}”…")

    def _on_bridge_query_finished(self, outcome: QueryOutcome) -> None:
        if outcome.token != self._latest_token:
            return
        self.outcome = outcome
        self._links = {k: list(v) for k, v in outcome.entities_by_chunk.items()}
        self._asked.clear()
        self._selected_entity = ""
        self._selected_chunk = ""
        self._entity_cache.clear()
        self.graph_view.show_outcome(outcome)
        self._show_result_chunks()
        self.inspector.show_nothing()
        timings = timings_of(outcome.answer)
        self._show_timings(timings)
        self._show_banners(outcome, timings)
        kg, chunks = len(outcome.entities), len(outcome.chunks)
        self._set_status(f"“{outcome.params.query}”: {kg} entities, {chunks} chunks")
        self.outcome_changed.emit(outcome)

    def _on_bridge_query_preview(self, outcome: QueryOutcome) -> None:
        """The chunks of a query whose graph half is still answering, shown at once."""
        if outcome.token != self._latest_token:
            return
        chunks = outcome.chunks
        title = (
            f"<b>{len(chunks)}</b> chunks for “{_esc(outcome.params.query)}” "
            "— the knowledge graph is still answering…"
        )
        self.side.setCurrentWidget(self.chunk_list)
        self.chunk_list.show_chunks(chunks, query=outcome.params.query, title=title)
        self._set_status(f"“{outcome.params.query}”: chunks shown; waiting for the graph…")

    def _on_bridge_query_failed(self, token: int, message: str) -> None:
        if token == self._latest_token:
            self._set_status(f"Query failed: {message}")
            self.show_error("Query failed", message)

    def _on_bridge_query_cancelled(self, token: int) -> None:
        if token == self._latest_token:
            self._set_status("Query cancelled")

    def _on_bridge_busy_changed(self, busy: bool) -> None:
        self.query_bar.set_busy(busy)
        self.progress.setVisible(busy)

    def _on_bridge_memory_ready(self) -> None:
        self.inspector.read_only = self.bridge.read_only
        self._set_status("Ready: type a query and press Enter")

    def _on_bridge_memory_failed(self, message: str) -> None:
        self._set_status("The memory could not be opened")
        self.show_error("Memory unavailable", message)

    def _on_graph_layout_settled(self) -> None:
        if self._selected_entity:
            self.graph_view.select_entity(self._selected_entity, centre=False)

    # ------------------------------------------------------------------ linking by provenance

    def _result_chunks(self) -> Sequence[ShownChunk]:
        return self.outcome.chunks if self.outcome else ()

    def _result_entity(self, entity_id: str) -> ShownEntity | None:
        return self.outcome.entity(entity_id) if self.outcome is not None else None

    def _show_result_chunks(self) -> None:
        if self.outcome is None:
            return
        chunks = self._result_chunks()
        title = f"<b>{len(chunks)}</b> chunks for “{_esc(self.outcome.params.query)}”"
        domain = self.outcome.answer.request.domain
        if domain:
            title += f" in {_esc(domain)}"
        if self.chunk_list.mode != "result" or self.chunk_list.chunk_ids() != [
            c.id for c in chunks
        ]:
            answers = [answer.answer for answer in self.outcome.answer.answers]
            self.chunk_list.show_chunks(
                chunks, query=self.outcome.params.query, title=title, answers=answers
            )
        self.chunk_list.select_chunk(self._selected_chunk)

    def _chunks_mentioning(self, entity_id: str) -> list[str]:
        ids = [cid for cid, entities in self._links.items() if entity_id in entities]
        entity = self._result_entity(entity_id)
        if entity is not None:
            ids += [m.chunk_id for m in entity.entity.mentions[:MAX_PROVENANCE]]
        return list(dict.fromkeys(ids))

    def _on_graph_entity_hovered(self, entity_id: str) -> None:
        if entity_id:
            self.chunk_list.mark_linked(self._chunks_mentioning(entity_id))
        else:
            self.chunk_list.mark_linked([])

    def _on_chunks_hovered(self, chunk_id: str) -> None:
        chunk_id = chunk_id or self._selected_chunk
        self._hovered_chunk = chunk_id
        named = self._links.get(chunk_id, []) if chunk_id else []
        self.graph_view.highlight_entities(named)
        # Entities the chunk names that are not drawn are fetched once and drawn beside.
        missing = [
            e for e in named if e not in self.graph_view.state.nodes and e not in self._asked
        ]
        self._asked.update(missing)
        self.bridge.request_entities(missing)

    def _on_bridge_entities_ready(self, entities: list[Entity]) -> None:
        if self.graph_view.add_entities(entities):
            self._pending_highlight = True

    def _on_graph_graph_changed(self) -> None:
        if self._pending_highlight:
            self._pending_highlight = False
            self.graph_view.highlight_entities(self._links.get(self._hovered_chunk, []))

    def _on_chunks_selected(self, chunk_id: str) -> None:
        self._selected_chunk = chunk_id
        self.graph_view.highlight_entities(self._links.get(chunk_id, []))

    def _on_graph_entity_selected(self, entity_id: str) -> None:
        if entity_id == self._selected_entity:
            return
        self._selected_entity = entity_id
        if not entity_id:
            self.inspector.show_nothing()
            self._show_result_chunks()
            return
        self._show_entity(entity_id)

    def _show_entity(self, entity_id: str) -> None:
        """Inspector and mention list for an entity from what is in hand, then fetch the rest."""
        shown = self._result_entity(entity_id)
        relations = relations_of(entity_id, self.graph_view.state)
        degree = self.graph_view.state.degrees.get(entity_id)
        if shown is None:
            cached = self._entity_cache.get(entity_id)
            node = self.graph_view.state.nodes.get(entity_id)
            if cached is not None:
                shown = ShownEntity.read(cached)
            elif node is not None:
                shown = ShownEntity.stub(node.id, node.name, node.type)
            else:
                shown = ShownEntity.stub(entity_id, entity_id, "")
        entity = shown.entity
        full = self._full_mentions(entity_id)
        self.inspector.show_entity(
            shown, relations=relations, degree=degree, loading=full is None and not entity.mentions
        )
        if full is not None:
            self._show_mentions(entity_id, entity.name, full, fetched=())
        else:
            spans = [(m.chunk_id, m.start, m.end) for m in entity.mentions[:MAX_PROVENANCE]]
            total = len(entity.mentions) or len({s[0] for s in spans})
            self._show_mentions(entity_id, entity.name, spans, fetched=(), total=total)
        have = [c.id for c in self._result_chunks()] + list(self._mention_chunks)
        self.bridge.request_entity(entity_id, have=have)

    def _full_mentions(self, entity_id: str) -> list[tuple[str, int, int]] | None:
        """Every mention of an entity known without asking the store, or None."""
        cached = self._entity_cache.get(entity_id)
        if cached is not None:
            return [(m.chunk_id, m.start, m.end) for m in cached.mentions]
        answer = self.outcome.answer if self.outcome else None
        for recalled in answer.entities if answer is not None else ():
            record = recalled.candidate.record
            if isinstance(record, Entity) and record.id == entity_id:
                return [(m.chunk_id, m.start, m.end) for m in record.mentions]
        return None

    def _show_mentions(
        self,
        entity_id: str,
        name: str,
        spans: Sequence[tuple[str, int, int]],
        *,
        fetched: Iterable[Chunk],
        total: int | None = None,
        said: Sequence[Chunk] = (),
        said_total: int = 0,
    ) -> None:
        for chunk in [*fetched, *said]:
            self._mention_chunks[chunk.id] = ShownChunk.read(chunk)
        in_hand = {c.id: c for c in self._result_chunks()}
        in_hand.update({k: v for k, v in self._mention_chunks.items() if k not in in_hand})
        by_chunk: dict[str, list[tuple[int, int]]] = {}
        for chunk_id, start, end in spans:
            by_chunk.setdefault(chunk_id, []).append((start, end))
        order = list(by_chunk)
        shown = [in_hand[cid] for cid in order if cid in in_hand]
        count = total if total is not None else len(order)
        self.chunk_list.show_mentions(
            entity_id,
            name,
            shown,
            by_chunk,
            total=max(count, len(shown)),
            query=self.outcome.params.query if self.outcome else "",
            said=[self._mention_chunks[chunk.id] for chunk in said],
            said_total=said_total,
        )
        listed = [*shown, *(self._mention_chunks[chunk.id] for chunk in said)]
        missing_links = [c.id for c in listed if c.id not in self._links]
        self.bridge.request_chunk_links(missing_links)

    def _on_bridge_entity_ready(self, details: EntityDetails) -> None:
        if details.entity_id != self._selected_entity:
            return
        if details.entity is None:
            if not details.complete:
                self._set_status("The knowledge graph did not answer; provenance not loaded")
            return
        entity = details.entity
        self._entity_cache[entity.id] = entity
        recalled = self._result_entity(entity.id)
        # Keep the query's scores and source; take the record, with every mention, from the store.
        shown = (
            replace(recalled, entity=entity, placeholder=False)
            if recalled is not None
            else ShownEntity.read(entity)
        )
        self.inspector.show_entity(
            shown,
            relations=relations_of(entity.id, self.graph_view.state),
            degree=self.graph_view.state.degrees.get(entity.id),
        )
        spans = [(m.chunk_id, m.start, m.end) for m in entity.mentions]
        self._show_mentions(
            entity.id,
            entity.name,
            spans,
            fetched=details.chunks,
            total=details.mention_total,
            said=details.said,
            said_total=details.said_total,
        )

    def show_path_chunks(self, path: GraphPath) -> None:
        """A path's steps with their facts, above the chunks in hand that mention both ends of
        a step (where the relation was said)."""
        names = {n: node.name for n, node in self.graph_view.state.nodes.items()}
        steps = [
            f"{_esc(names.get(e.source, e.source))} —{_esc(e.type)}→ "
            f"{_esc(names.get(e.target, e.target))}"
            + (f": <i>{_esc(e.fact)}</i>" if e.fact else "")
            for e in path.edges
        ]
        in_hand = {c.id: c for c in self._result_chunks()}
        in_hand.update({k: v for k, v in self._mention_chunks.items() if k not in in_hand})

        def states_a_step(chunk_id: str, chunk: ShownChunk) -> bool:
            # The chunk says the relation's fact, or names both of its ends.
            named = set(self._links.get(chunk_id, ()))
            text = chunk.chunk.text
            return any(
                (edge.fact and edge.fact in text) or {edge.source, edge.target} <= named
                for edge in path.edges
            )

        shown = [chunk for chunk_id, chunk in in_hand.items() if states_a_step(chunk_id, chunk)]
        title = f"<b>Path</b> ({len(path.edges)} relations)<br/>" + "<br/>".join(steps)
        if not shown:
            title += "<br/>No chunk in hand mentions both ends of a step."
        self.side.setCurrentWidget(self.chunk_list)
        self.chunk_list.show_chunks(shown, title=title)

    def _on_chunks_all_mentions(self, entity_id: str) -> None:
        have = [c.id for c in self._result_chunks()] + list(self._mention_chunks)
        self._set_status("Fetching all mentions…")
        self.bridge.request_entity(entity_id, have=have, everything=True)

    def _on_bridge_chunk_links_ready(self, links: Mapping[str, list[str]]) -> None:
        for chunk_id, entities in links.items():
            self._links[chunk_id] = list(entities)
        for chunk_id in self.chunk_list.chunk_ids():
            self._links.setdefault(chunk_id, [])

    def _on_inspector_entity_activated(self, entity_id: str) -> None:
        if self.graph_view.node_item(entity_id) is not None:
            self.graph_view.select_entity(entity_id)
        else:
            self._selected_entity = entity_id
            self._show_entity(entity_id)

    def _on_inspector_chunk_activated(self, chunk_id: str) -> None:
        self._selected_chunk = chunk_id
        self.chunk_list.select_chunk(chunk_id)

    def _on_inspector_alias_detach_requested(self, entity_id: str, alias: str) -> None:
        self._set_status(f"Detaching “{alias}”…")
        self.bridge.detach_alias(entity_id, alias)

    def _on_bridge_alias_detached(self, entity_id: str, alias: str, removed: bool) -> None:
        note = (
            f"Detached “{alias}”: later imports keep it apart from this entity"
            if removed
            else f"“{alias}” was no longer an alias here"
        )
        self._after_alias_change(entity_id, note)

    def _on_bridge_alias_detach_failed(self, entity_id: str, alias: str, why: str) -> None:
        self._alias_change_failed(entity_id, f"Could not detach “{alias}”: {why}")

    def _on_inspector_alias_allow_requested(self, entity_id: str, alias: str) -> None:
        self._set_status(f"Allowing “{alias}” again…")
        self.bridge.allow_alias(entity_id, alias)

    def _on_bridge_alias_allowed(self, entity_id: str, alias: str, allowed: bool) -> None:
        note = (
            f"“{alias}” is no longer kept apart: new conversations that link it to this "
            "entity merge it again"
            if allowed
            else f"“{alias}” was no longer kept apart here"
        )
        self._after_alias_change(entity_id, note)

    def _on_bridge_alias_allow_failed(self, entity_id: str, alias: str, why: str) -> None:
        self._alias_change_failed(entity_id, f"Could not allow “{alias}” again: {why}")

    def _after_alias_change(self, entity_id: str, note: str) -> None:
        """Say what an alias change did and show the entity as it is stored now."""
        self._entity_cache.pop(entity_id, None)
        self._set_status(note)
        if entity_id == self._selected_entity:
            self.inspector.show_note(note)
            have = [c.id for c in self._result_chunks()] + list(self._mention_chunks)
            self.bridge.request_entity(entity_id, have=have)

    def _alias_change_failed(self, entity_id: str, why: str) -> None:
        self._set_status(why)
        if entity_id == self.inspector.entity_id:
            self.inspector.show_note(why)

    # ------------------------------------------------------------------ closing

    def closeEvent(self, event: QCloseEvent) -> None:
        """Save the layout, then close the bridge before the window really goes."""
        if self.bridge.is_closed:
            self.window_closed.emit()
            event.accept()
            return
        event.ignore()
        if self._close_started:
            return
        self._close_started = True
        self.save_settings()
        self._set_status("Shutting down…")
        self.hide()
        self._close_task = asyncio.ensure_future(self.bridge.aclose())

    def _on_bridge_closed(self) -> None:
        if self._close_started:
            QTimer.singleShot(0, self.close)


def _banner() -> QLabel:
    banner = QLabel()
    banner.setWordWrap(True)
    banner.setTextFormat(Qt.TextFormat.PlainText)
    banner.hide()
    return banner


def _esc(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
