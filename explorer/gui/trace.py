"""Seeing the retrieval think: the docks that show and change every decision, wired to the window.

``install_trace(window)`` adds the policy dock and the activation overlay as tabs beside the
inspector (with a score chart under it), the bottom dock with the ledger of drops, "Why not" and
the hits panel (every hit badged by layer and source, the sources tally, unavailable routes) as
its pages, plus File-menu actions for recall cases and comparisons, and returns the
``TraceController`` that links them. A policy change that needs no new candidates is a what-if:
``TraceController.what_if`` re-decides the answer in hand with ``ScourResult.decide``
synchronously and shows it (no store is asked); any other change sets the memory's policy and
runs the query again through the bridge. Recall cases save the answer in hand, open read-only
exactly as saved, and re-run against the current memory with the difference shown. Imports Qt,
the standard library, core types and the GUI's widgets.
"""

from __future__ import annotations

import json
import logging
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, Qt, QTimer, Signal
from PySide6.QtGui import QAction, QColor
from PySide6.QtWidgets import (
    QAbstractItemView,
    QDialog,
    QFileDialog,
    QInputDialog,
    QLabel,
    QMenu,
    QMenuBar,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from explorer.core.candidates import Candidate, CandidateKind
from explorer.core.codec import JsonDict
from explorer.core.coordinator import CoordinatedRetrieval, RetrievalResult, refetch_reasons
from explorer.core.errors import ExplorerError, InvalidArgument
from explorer.core.models import Chunk, Entity
from explorer.core.policy import DEFAULT_POLICY, RetrievalPolicy, preset_names
from explorer.core.recall_case import (
    CaseDiff,
    RecallCase,
    diff_results,
    dropped_from_json,
    load_case,
    save_case,
)
from explorer.core.scour import SOURCE_KEYS, ScourResult
from explorer.gui.activation_overlay import ActivationOverlay
from explorer.gui.bottom_dock import BottomDock
from explorer.gui.compare_dialog import CompareDialog
from explorer.gui.layout import LayoutRequest, compute_layout
from explorer.gui.ledger_dock import GhostPainter, LedgerPanel
from explorer.gui.policy_dock import PolicyDock, describe_change
from explorer.gui.recalled import ShownChunk, ShownEntity
from explorer.gui.requests import QueryOutcome, QueryParams
from explorer.gui.score_chart import ScoreChart, show_hit

if TYPE_CHECKING:
    from explorer.gui.main_window import MainWindow

_log = logging.getLogger(__name__)

SOURCE_COLOURS = {
    "graph": "#4e79a7",
    "vector": "#59a14f",
    "lexical": "#f28e2b",
    "activation": "#b3001b",
}
REFETCH_DELAY_MS = 400
#: A what-if lays out at most this many nodes on the GUI thread (new ones only move); larger
#: graphs wait for the layout worker like any other answer.
SYNC_LAYOUT_MAX_NODES = 400
WHAT_IF_ITERATIONS = 30


# ---------------------------------------------------------------------- hits panel


class HitsPanel(QWidget):
    """Every hit with its layer and source badges and score; the sources tally above."""

    hit_selected = Signal(str, str)  # kind, id

    COLUMNS = ("rank", "kind", "hit", "layer", "source", "score")

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        self.tally = QLabel("No answer yet")
        self.tally.setWordWrap(True)
        self.tally.setTextFormat(Qt.TextFormat.RichText)
        layout.addWidget(self.tally)
        self.table = QTableWidget(0, len(self.COLUMNS))
        self.table.setHorizontalHeaderLabels(list(self.COLUMNS))
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.verticalHeader().setVisible(False)
        self.table.horizontalHeader().setStretchLastSection(True)
        self.table.setColumnWidth(2, 200)
        self.table.itemSelectionChanged.connect(self._on_selected)
        layout.addWidget(self.table, 1)
        self.chart = ScoreChart()
        layout.addWidget(self.chart)
        self.rows: list[ShownEntity | ShownChunk] = []

    def set_outcome(self, outcome: QueryOutcome) -> None:
        result = outcome.answer.retrieval.result
        tally = " · ".join(
            f"<span style='color:{SOURCE_COLOURS.get(key.value, '#3c4043')}'>{key.value}</span> "
            f"{int(result.sources.get(key.value, 0))}"
            for key in SOURCE_KEYS
        )
        text = f"sources: {tally or 'none'}"
        if result.unavailable:
            text += (
                " · <span style='color:#d93025'>unavailable: "
                + ", ".join(_esc(u) for u in result.unavailable)
                + "</span>"
            )
        answers = outcome.answer.answers
        if answers:
            text += "<br/>the lexical route also looked for what the graph holds: " + "; ".join(
                f"<b>{_esc(a.answer)}</b> ({_esc(a.kind)} of {_esc(a.named)})" for a in answers
            )
        self.tally.setText(text)
        self.rows = [*outcome.entities, *outcome.chunks]
        self.table.blockSignals(True)
        self.table.setRowCount(len(self.rows))
        ranks = {"entity": 0, "chunk": 0}
        for row, hit in enumerate(self.rows):
            kind = _kind(hit)
            ranks[kind] += 1
            label = (hit.entity.name if isinstance(hit, ShownEntity) else hit.chunk.text)[:100]
            values = (
                str(ranks[kind]),
                kind,
                label,
                hit.layer,
                hit.source,
                f"{hit.score or 0.0:.3f}",
            )
            for column, value in enumerate(values):
                item = QTableWidgetItem(value)
                if column == 4:
                    item.setForeground(QColor(SOURCE_COLOURS.get(value, "#3c4043")))
                if column == 2:
                    item.setToolTip(label)
                self.table.setItem(row, column, item)
        self.table.blockSignals(False)
        self.chart.set_breakdown(None)

    def badges(self) -> list[tuple[str, str, str, str]]:
        """(kind, id, layer, source) of every hit, in the order shown."""
        return [(_kind(h), h.id, h.layer, h.source) for h in self.rows]

    def show_hit(self, kind: str, hit_id: str) -> bool:
        for row, hit in enumerate(self.rows):
            if _kind(hit) == kind and hit.id == hit_id:
                self.table.blockSignals(True)
                self.table.selectRow(row)
                self.table.blockSignals(False)
                self._chart_for(hit)
                return True
        return False

    def _chart_for(self, hit: ShownEntity | ShownChunk) -> None:
        show_hit(self.chart, hit)

    def _on_selected(self) -> None:
        rows = self.table.selectionModel().selectedRows()
        if not rows:
            return
        hit = self.rows[rows[0].row()]
        self._chart_for(hit)
        self.hit_selected.emit(_kind(hit), hit.id)


# ---------------------------------------------------------------------- the controller


class TraceController(QObject):
    """Links the trace docks to the window's current answer; see the module docstring."""

    answer_shown = Signal(object)  # ScourResult (or None for a case without candidates)
    compared = Signal(object)  # CaseDiff

    def __init__(self, window: MainWindow, *, preset_path: Path | None = None) -> None:
        super().__init__(window)
        self.window = window
        self.answer: ScourResult | None = None
        self.fetched: ScourResult | None = None
        self.case: RecallCase | None = None
        self.case_path: Path | None = None
        self.baseline: tuple[str, JsonDict] | None = None
        self.last_diff: CaseDiff | None = None
        self.last_what_if_ms = 0.0
        self.what_if_count = 0
        self.refetch_count = 0
        self._showing_own = False
        self._dialogs: list[QDialog] = []

        self.policy_dock = PolicyDock(window, preset_path=preset_path, policy=window.bridge.policy)
        self.ledger_dock = LedgerPanel(window)
        self.overlay = ActivationOverlay(window.graph_view)
        self.hits = HitsPanel()
        self.ghosts = GhostPainter(window.graph_view, window.chunk_list)
        self.chart = ScoreChart()

        # The graph and the chunks keep the window: one side column of tabs (inspector,
        # activation, policy) and one bottom dock of pages, collapsed until asked for.
        self.activation_dock = window.add_dock(
            self.overlay, "Activation", "activationDock", Qt.DockWidgetArea.RightDockWidgetArea
        )
        window.addDockWidget(Qt.DockWidgetArea.RightDockWidgetArea, self.policy_dock)
        window.docks_menu.addAction(self.policy_dock.toggleViewAction())
        side = getattr(window, "inspector_dock", None) or self.activation_dock
        for dock in (self.activation_dock, self.policy_dock):
            if dock is not side:
                window.tabifyDockWidget(side, dock)
        side.raise_()
        self.bottom = BottomDock(window, window.store)
        window.addDockWidget(Qt.DockWidgetArea.BottomDockWidgetArea, self.bottom)
        window.docks_menu.addAction(self.bottom.toggleViewAction())
        self.bottom.add_page(self.ledger_dock, "Ledger of drops")
        self.bottom.add_page(self.ledger_dock.why_panel, "Why not")
        self.bottom.add_page(self.hits, "Hits and sources")
        self._chart_under_inspector()

        self._refetch_timer = QTimer(self)
        self._refetch_timer.setSingleShot(True)
        self._refetch_timer.setInterval(REFETCH_DELAY_MS)
        self._refetch_timer.timeout.connect(self.refetch)

        self._layout_request: LayoutRequest | None = None
        window.graph_view.layout_requested.connect(self._remember_layout)
        window.outcome_changed.connect(self._on_outcome)
        self.policy_dock.policy_changed.connect(self.on_policy_changed)
        self.ledger_dock.ghost_requested.connect(self.show_ghost)
        self.hits.hit_selected.connect(self._on_hit_selected)
        window.graph_view.entity_selected.connect(lambda i: self._chart_for("entity", i))
        window.chunk_list.chunk_selected.connect(lambda i: self._chart_for("chunk", i))
        self._install_menu()

    # ------------------------------------------------------------------ construction

    def _chart_under_inspector(self) -> None:
        dock = getattr(self.window, "inspector_dock", None)
        if dock is None:
            return
        holder = QWidget()
        layout = QVBoxLayout(holder)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(2)
        layout.addWidget(self.window.inspector, 1)
        layout.addWidget(self.chart)
        dock.setWidget(holder)

    def _install_menu(self) -> None:
        file_menu = _menu_named(self.window.menuBar(), "&File")
        if file_menu is None:
            file_menu = self.window.menuBar().addMenu("&File")
        first = file_menu.actions()[0] if file_menu.actions() else None
        entries: list[tuple[str, Callable[[], object]]] = [
            ("Save recall &case…", self.save_case_dialog),
            ("&Open recall case…", self.open_case_dialog),
            ("&Re-run case against current memory", self.rerun_case),
            ("Pin answer as &baseline", self.pin_baseline),
            ("Compare with &baseline", self.compare_with_baseline),
            ("Compare with another &query…", self.compare_query_dialog),
            ("Compare with a policy &preset…", self.compare_preset_dialog),
        ]
        self.actions: dict[str, QAction] = {}
        for text, slot in entries:
            action = QAction(text, self.window)
            action.triggered.connect(slot)
            file_menu.insertAction(first, action) if first else file_menu.addAction(action)
            self.actions[text.replace("&", "").rstrip("…")] = action
        if first is not None:
            file_menu.insertSeparator(first)

    # ------------------------------------------------------------------ answers

    def _on_outcome(self, outcome: QueryOutcome) -> None:
        if self._showing_own:
            return
        raw = outcome.answer
        self.case = None
        self.case_path = None
        self.fetched = raw
        if raw is not None:
            self.policy_dock.set_context(
                raw.retrieval.policy or self.policy_dock.policy, raw.retrieval.gathered
            )
        self._show_panels(raw, outcome)

    def _show_panels(self, raw: ScourResult | None, outcome: QueryOutcome) -> None:
        """The docks for ``outcome``; ``raw`` is ``None`` for a case that cannot be decided
        again (its ledger is the saved one)."""
        self.answer = raw
        self.ghosts.clear()
        if raw is not None:
            self.ledger_dock.set_retrieval(raw.retrieval)
        else:
            self.ledger_dock.set_retrieval(None, outcome.answer.retrieval.result.dropped)
        self.overlay.set_answer(outcome.answer.retrieval.activation, outcome.entities)
        self.hits.set_outcome(outcome)
        self.chart.set_breakdown(None)
        self.answer_shown.emit(raw)

    def _links(self, answer: ScourResult, base: Mapping[str, list[str]]) -> dict[str, list[str]]:
        """Which entities each chunk mentions, from the links in hand and the gathered graph."""
        links = {key: list(value) for key, value in base.items()}
        gathered = answer.retrieval.gathered
        if gathered is not None and gathered.associations is not None:
            for chunk_id, entities in gathered.associations.chunk_entities.items():
                links.setdefault(chunk_id, list(entities))
        return links

    def _show_own(self, outcome: QueryOutcome) -> None:
        self._showing_own = True
        try:
            self.window.show_outcome(outcome)
        finally:
            self._showing_own = False

    # ------------------------------------------------------------------ policy changes

    def on_policy_changed(
        self, policy: RetrievalPolicy, needs_stores: bool, reasons: list[str]
    ) -> None:
        if self.case is not None and needs_stores:
            self.policy_dock.show_note(
                "this is a saved case (read-only): re-run it against the memory to ask the stores"
            )
            return
        if self.case is None:
            # The next query (and a re-run) uses what the user set here.
            self.window.bridge.set_policy(policy)
        if needs_stores:
            self._refetch_timer.start()
            return
        self._refetch_timer.stop()
        if self.answer is not None:
            elapsed = self.what_if(policy)
            self.policy_dock.show_note(f"re-decided and shown in {elapsed:.0f} ms")

    def what_if(self, policy: RetrievalPolicy) -> float:
        """Re-decide the answer in hand under ``policy`` and show it; no store is asked.

        Returns the milliseconds taken to decide and update the graph, chunks and docks.
        """
        source = self.answer or self.fetched
        outcome = self.window.outcome
        if source is None or outcome is None:
            raise InvalidArgument("there is no answer in hand to decide again")
        started = time.perf_counter()
        answer = source.decide(policy)
        shown = replace(
            outcome,
            answer=answer,
            entities_by_chunk=self._links(answer, outcome.entities_by_chunk),
        )
        self._layout_request = None
        self._show_own(shown)
        self._settle_layout_now()
        self._show_panels(answer, shown)
        self.last_what_if_ms = (time.perf_counter() - started) * 1000.0
        self.what_if_count += 1
        return self.last_what_if_ms

    def _remember_layout(self, request: LayoutRequest) -> None:
        self._layout_request = request

    def _settle_layout_now(self) -> None:
        """Lay out the what-if's graph at once: known nodes keep their places, few are new."""
        request, self._layout_request = self._layout_request, None
        if request is None or len(request.nodes) > SYNC_LAYOUT_MAX_NODES:
            return
        # The worker's later answer to the same request is ignored by the view.
        # New nodes start beside their parents, so a short relaxation places them well enough.
        quick = replace(
            request, iterations=min(request.iterations or WHAT_IF_ITERATIONS, WHAT_IF_ITERATIONS)
        )
        self.window.graph_view.on_layout_ready(compute_layout(quick))

    def refetch(self) -> None:
        """Run the current query again through the bridge with the memory's (new) policy."""
        outcome = self.window.outcome
        if outcome is None:
            return
        self.refetch_count += 1
        self.window.run_query(outcome.params)

    # ------------------------------------------------------------------ ghosts and charts

    def _candidate(self, item_id: str) -> Candidate | None:
        answer = self.answer
        gathered = answer.retrieval.gathered if answer is not None else None
        if gathered is None:
            return None
        return next((c for c in gathered.candidates if c.id == item_id), None)

    def show_ghost(self, item_id: str, kind: str) -> None:
        if not item_id or not kind:
            self.ghosts.clear()
            return
        entry = next((d for d in self.ledger_dock.model.entries() if d.id == item_id), None)
        note = entry.reason if entry is not None else ""
        candidate = self._candidate(item_id)
        record = candidate.record if candidate is not None else None
        if kind == CandidateKind.CHUNK.value:
            layer = entry.layer.value if entry and entry.layer else ""
            source = entry.source if entry else ""
            if isinstance(record, Chunk):
                chunk = ShownChunk.read(record, layer=layer, source=source)
            else:
                label = entry.label if entry else item_id
                chunk = ShownChunk.stub(item_id, label, layer=layer, source=source)
            self.ghosts.show_chunk(chunk, note=note)
            return
        name = entry.label if entry is not None else item_id
        node_type = record.type if isinstance(record, Entity) else kind
        self.ghosts.show_node(item_id, name, node_type, near=self._neighbours(item_id), note=note)

    def _neighbours(self, node: str) -> list[str]:
        answer = self.answer
        gathered = answer.retrieval.gathered if answer is not None else None
        near: list[str] = []
        if gathered is not None and gathered.associations is not None:
            for relation in gathered.associations.subgraph.relations:
                if relation.source_id == node:
                    near.append(relation.target_id)
                elif relation.target_id == node:
                    near.append(relation.source_id)
        candidate = self._candidate(node)
        for neighbour in candidate.neighbours if candidate is not None else ():
            near.append(neighbour.entity_id)
        return list(dict.fromkeys(near))

    def _on_hit_selected(self, kind: str, hit_id: str) -> None:
        if kind == "entity":
            self.window.graph_view.select_entity(hit_id)
        else:
            self.window.chunk_list.select_chunk(hit_id)
        self._chart_for(kind, hit_id)

    def _chart_for(self, kind: str, hit_id: str) -> None:
        outcome = self.window.outcome
        if not hit_id or outcome is None:
            return
        hits: Sequence[ShownEntity | ShownChunk] = (
            outcome.entities if kind == "entity" else outcome.chunks
        )
        hit = next((h for h in hits if h.id == hit_id), None)
        if hit is None:
            self.chart.set_breakdown(None, title="not a hit of this answer")
            return
        show_hit(self.chart, hit)
        self.hits.show_hit(kind, hit_id)

    # ------------------------------------------------------------------ recall cases

    def current_case(self) -> RecallCase:
        if self.case is not None and self.answer is self._case_answer:
            return self.case
        if self.answer is None:
            raise InvalidArgument("there is no answer in hand to save")
        from datetime import UTC, datetime

        return RecallCase.capture(
            self.answer, title=self.answer.request.query, saved_at=datetime.now(UTC)
        )

    _case_answer: ScourResult | None = None
    case_label = ""

    def save_case(self, path: Path) -> RecallCase:
        case = self.current_case()
        save_case(path, case)
        self.window.status_message.setText(f"Saved the recall case to {path}")
        return case

    def open_case(self, path: Path) -> RecallCase:
        """Show a saved case exactly as it was saved (read-only)."""
        case = load_case(path)
        self.show_case(case, path.name)
        self.case_path = path
        return case

    def show_case(self, case: RecallCase, label: str) -> None:
        """Show a recall case (from a file or the recall journal) read-only, as it was made."""
        request = case.request
        params = QueryParams(
            query=str(request["query"]),
            n_chunks=int(request["n_chunks"]),
            kg_top_k=int(request["kg_top_k"]),
            domain=request.get("domain"),
            temporal=request.get("temporal"),
            scope=request.get("scope") or None,
        )
        raw = case.scour_result() if case.can_decide else None
        links: dict[str, list[str]] = self._links(raw, {}) if raw is not None else {}
        previous = self.window.outcome
        outcome = QueryOutcome(
            token=previous.token if previous is not None else 0,
            params=params,
            answer=raw if raw is not None else _ledger_only(case),
            entities_by_chunk=links,
        )
        self._show_own(outcome)
        self.case, self.case_path, self.fetched = case, None, raw
        self.case_label = label
        self._case_answer = raw
        policy = case.retrieval_policy()
        self.policy_dock.set_context(policy, raw.retrieval.gathered if raw is not None else None)
        self._show_panels(raw, outcome)
        self.window.status_message.setText(
            f"Viewing the recall case {label} (read-only, as saved"
            + (f" {case.saved_at}" if case.saved_at else "")
            + ")"
        )

    def rerun_case(self) -> None:
        """Run the open case's query and policy against the current memory; show the diff."""
        case = self.case
        if case is None:
            self.window.show_error("No recall case", "Open a recall case first.")
            return
        request, policy = case.scour_request(), case.retrieval_policy()
        label = f"case {self.case_label}".strip()

        def compare(answer: ScourResult) -> None:
            self._compare(case.result, answer.to_json_dict(), label, "current memory")

        self.window.bridge.scour_then(request, policy, compare, kind="trace-compare")

    # ------------------------------------------------------------------ comparisons

    def _compare(
        self, before: JsonDict, after: JsonDict, a: str, b: str, show: bool = True
    ) -> CaseDiff:
        diff = diff_results(before, after)
        self.last_diff = diff
        self.compared.emit(diff)
        if show:
            dialog = CompareDialog(diff, a, b, self.window)
            dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose, True)
            dialog.setModal(False)
            self._dialogs = [d for d in self._dialogs if d.isVisible()] + [dialog]
            dialog.show()
        return diff

    def pin_baseline(self) -> None:
        outcome = self.window.outcome
        if outcome is None:
            return
        self.baseline = (
            f"“{outcome.params.query}” (pinned)",
            json.loads(json.dumps(outcome.answer.to_json_dict())),
        )
        self.window.status_message.setText("Pinned this answer as the baseline for comparison")

    def compare_with_baseline(self, show: bool = True) -> CaseDiff | None:
        outcome = self.window.outcome
        if self.baseline is None or outcome is None:
            self.window.show_error("No baseline", "Pin an answer as the baseline first.")
            return None
        label, body = self.baseline
        now = outcome.answer.to_json_dict()
        return self._compare(body, now, label, f"“{outcome.params.query}” now", show)

    def compare_policy(self, policy: RetrievalPolicy, label: str, show: bool = True) -> None:
        """Compare the answer in hand with the same query under ``policy``."""
        answer, outcome = self.answer, self.window.outcome
        if answer is None or outcome is None:
            return
        gathered = answer.retrieval.gathered
        fetched_under = (self.fetched or answer).retrieval.policy or DEFAULT_POLICY
        reasons = (
            refetch_reasons(fetched_under, policy, gathered.query, gathered=gathered)
            if gathered is not None
            else []
        )
        if not reasons:
            other = answer.decide(policy).to_json_dict()
            self._compare(outcome.answer.to_json_dict(), other, "as shown", label, show)
            return
        request = answer.request

        def compare(fresh: ScourResult) -> None:
            shown = outcome.answer.to_json_dict()
            self._compare(shown, fresh.to_json_dict(), "as shown", label, show)

        self.window.status_message.setText(f"{label}: {describe_change(reasons)}")
        self.window.bridge.scour_then(request, policy, compare, kind="trace-compare")

    def compare_query(self, text: str, show: bool = True) -> None:
        """Compare the answer in hand with another query under the same policy."""
        answer, outcome = self.answer, self.window.outcome
        if answer is None or outcome is None:
            return
        request = replace(answer.request, query=text)
        policy = answer.retrieval.policy or self.policy_dock.policy

        def compare(fresh: ScourResult) -> None:
            self._compare(
                outcome.answer.to_json_dict(),
                fresh.to_json_dict(),
                f"“{answer.request.query}”",
                f"“{text}”",
                show,
            )

        self.window.bridge.scour_then(request, policy, compare, kind="trace-compare")

    # ------------------------------------------------------------------ dialogs

    def save_case_dialog(self) -> None:
        path, _ = QFileDialog.getSaveFileName(
            self.window, "Save recall case", "recall-case.json", "Recall case (*.json)"
        )
        if path:
            self._guard("Save recall case", lambda: self.save_case(Path(path)))

    def open_case_dialog(self) -> None:
        path, _ = QFileDialog.getOpenFileName(
            self.window, "Open recall case", "", "Recall case (*.json)"
        )
        if path:
            self._guard("Open recall case", lambda: self.open_case(Path(path)))

    def compare_query_dialog(self) -> None:
        text, ok = QInputDialog.getText(self.window, "Compare with another query", "Query:")
        if ok and text.strip():
            self._guard("Compare", lambda: self.compare_query(text.strip()))

    def compare_preset_dialog(self) -> None:
        names = list(preset_names()) + [
            n for n in self.policy_dock.user_presets() if n not in preset_names()
        ]
        name, ok = QInputDialog.getItem(
            self.window, "Compare with a policy preset", "Preset:", names, 0, False
        )
        if ok and name:
            self._guard(
                "Compare",
                lambda: self.compare_policy(self.policy_dock.preset_policy(name), f"preset {name}"),
            )

    def _guard(self, title: str, action: Callable[[], object]) -> None:
        try:
            action()
        except (ExplorerError, OSError, ValueError) as error:
            self.window.show_error(title, str(error))


def _kind(hit: ShownEntity | ShownChunk) -> str:
    return "entity" if isinstance(hit, ShownEntity) else "chunk"


def _ledger_only(case: RecallCase) -> ScourResult:
    """The answer of a case saved without its candidates: nothing recalled, the saved ledger."""
    dropped = dropped_from_json(case.result.get("dropped") or [])
    return ScourResult(
        case.scour_request(), CoordinatedRetrieval(RetrievalResult(dropped=tuple(dropped)))
    )


def _menu_named(bar: QMenuBar, text: str) -> QMenu | None:
    for action in bar.actions():
        menu = action.menu()
        if isinstance(menu, QMenu) and action.text() == text:
            return menu
    return None


def _esc(text: object) -> str:
    return str(text).replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def install_trace(window: MainWindow, *, preset_path: Path | None = None) -> TraceController:
    """Add the retrieval-trace docks and menu actions to ``window``; see the module docstring."""
    return TraceController(window, preset_path=preset_path)
