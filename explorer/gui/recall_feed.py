"""The "Agent recalls" page: a live feed of what agents asked scour, opened like a recall case.

``install_recall_feed(window)`` adds the page to the bottom dock (beside the ledger) and returns
the ``RecallFeed``. It polls the memory's recall journal through the bridge (``run_soon``, so
the bridge owns every call and cancels them on close) for calls newer than the last one shown,
and lists each with its time, caller, query, counts and per-half errors, newest first; while the
page is not on screen its tab counts the calls not yet seen. Opening a call fetches it in full
and shows its recall case in the window, read-only (graph, chunks, ledger, activation replay);
"Re-run now" runs the same request and policy against the current memory and shows what changed.
A refused call has no case: its error is shown instead. Imports Qt, the standard library, core
types and the GUI's trace controller.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from datetime import datetime
from typing import TYPE_CHECKING

from PySide6.QtCore import QTimer, Signal
from PySide6.QtGui import QColor
from PySide6.QtWidgets import (
    QAbstractItemView,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QSizePolicy,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from explorer.core.errors import ExplorerError
from explorer.core.journal import RecallCall, RecallSummary
from explorer.core.ports import MemoryService

if TYPE_CHECKING:
    from explorer.gui.bottom_dock import BottomDock
    from explorer.gui.main_window import MainWindow

_log = logging.getLogger(__name__)

POLL_MS = 750
#: Calls fetched per poll; the table keeps at most ``MAX_ROWS`` of them.
BATCH = 200
MAX_ROWS = 1000
TITLE = "Agent recalls"
ERROR_COLOUR = "#d93025"


def _when(moment: datetime) -> str:
    local = moment.astimezone()
    if local.date() == datetime.now().astimezone().date():
        return local.strftime("%H:%M:%S")
    return local.strftime("%Y-%m-%d %H:%M")


def _errors(summary: RecallSummary) -> str:
    if not summary.success:
        return summary.error or "refused"
    halves = [f"graph: {summary.kg_error}" if summary.kg_error else ""]
    halves.append(f"chunks: {summary.chunks_error}" if summary.chunks_error else "")
    return "; ".join(h for h in halves if h)


class RecallFeed(QWidget):
    """See the module docstring."""

    COLUMNS = ("time", "caller", "query", "entities", "chunks", "errors")
    calls_arrived = Signal(int)  # how many new calls the last poll brought
    call_opened = Signal(object)  # RecallCall

    def __init__(self, window: MainWindow, *, poll_ms: int = POLL_MS) -> None:
        super().__init__(window)
        self.main = window
        self.bridge = window.bridge
        self.summaries: list[RecallSummary] = []  # newest first, as shown
        self.opened: RecallCall | None = None
        self.unseen = 0
        self._last_id = 0
        self._memory: MemoryService | None = None  # the memory whose journal the rows list
        self.dock: BottomDock | None = None

        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        self.table = QTableWidget(0, len(self.COLUMNS))
        self.table.setHorizontalHeaderLabels(list(self.COLUMNS))
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.verticalHeader().setVisible(False)
        self.table.horizontalHeader().setStretchLastSection(True)
        self.table.setColumnWidth(0, 80)
        self.table.setColumnWidth(2, 320)
        # Selecting a call opens it (the keyboard walks through calls the same way).
        self.table.itemSelectionChanged.connect(self.open_selected)
        layout.addWidget(self.table, 1)
        buttons = QHBoxLayout()
        self.status = QLabel("Calls agents make to scour (MCP or the tool API) appear here.")
        # One line that may be cut: a wrapping label would make the bottom docks taller.
        self.status.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        buttons.addWidget(self.status, 1)
        self.open_button = QPushButton("Open")
        self.open_button.setToolTip("Show this call as a recall case (graph, chunks, ledger)")
        self.open_button.clicked.connect(self.open_selected)
        self.rerun_button = QPushButton("Re-run now")
        self.rerun_button.setToolTip("Run this call again on the current memory and compare")
        self.rerun_button.clicked.connect(self.rerun_selected)
        buttons.addWidget(self.open_button)
        buttons.addWidget(self.rerun_button)
        layout.addLayout(buttons)

        self.timer = QTimer(self)
        self.timer.setInterval(poll_ms)
        self.timer.timeout.connect(self.poll)
        self.timer.start()

    # ------------------------------------------------------------------ the feed

    def _journal(self) -> MemoryService | None:
        """The open memory, whose recall journal this feed lists (``None`` while none is)."""
        return self.bridge.memory if self.bridge.ready else None

    def poll(self) -> None:
        """Ask the journal for calls newer than the newest shown (answers arrive via ``add``)."""
        if not self.bridge.opened:
            return
        if self.bridge.memory is not self._memory:
            # Another memory was opened: its journal numbers its calls on its own.
            self.reset(self.bridge.memory)
        if self._journal() is not None:
            self.bridge.run_soon(self._fetch, kind="recall-feed")

    def reset(self, memory: MemoryService | None) -> None:
        """Forget the calls shown; the next poll lists those of ``memory``'s journal."""
        self._memory = memory
        self._last_id = 0
        self.summaries = []
        self.opened = None
        self.unseen = 0
        self.table.setRowCount(0)
        self._retitle()

    async def _fetch(self) -> None:
        journal, memory = self._journal(), self._memory
        if journal is None:
            return
        try:
            summaries = await journal.recent_calls(after=self._last_id, limit=BATCH)
        except ExplorerError as error:
            self.status.setText(f"The recall journal is unavailable: {error}")
            return
        if memory is self._memory:  # not an answer about a memory closed meanwhile
            self.add(summaries)

    def add(self, summaries: Sequence[RecallSummary]) -> None:
        """Show new calls (oldest first in ``summaries``) at the top of the table."""
        fresh = [s for s in summaries if s.id > self._last_id]
        if not fresh:
            return
        self._last_id = max(s.id for s in fresh)
        selected = self.selected()
        self.summaries = (list(reversed(fresh)) + self.summaries)[:MAX_ROWS]
        self._fill()
        if selected is not None:
            self._select(selected.id)
        self.status.setText(f"{len(self.summaries)} calls; the newest at {_when(fresh[-1].at)}")
        # A dock behind another tab still reports itself visible; what is on screen tells.
        if self.visibleRegion().isEmpty():
            self.unseen += len(fresh)
            self._retitle()
        self.calls_arrived.emit(len(fresh))

    def _fill(self) -> None:
        # Rows move down as calls arrive; that is not the user selecting another call.
        self.table.blockSignals(True)
        try:
            self._fill_rows()
        finally:
            self.table.blockSignals(False)

    def _fill_rows(self) -> None:
        self.table.setRowCount(len(self.summaries))
        for row, summary in enumerate(self.summaries):
            errors = _errors(summary)
            values = (
                _when(summary.at),
                summary.caller,
                summary.query,
                str(summary.kg_count) if summary.success else "–",
                str(summary.chunk_count) if summary.success else "–",
                errors,
            )
            for column, value in enumerate(values):
                item = QTableWidgetItem(value)
                item.setToolTip(value if column != 0 else summary.at.astimezone().isoformat())
                if column == 5 or (errors and not summary.success):
                    item.setForeground(QColor(ERROR_COLOUR))
                self.table.setItem(row, column, item)

    def _retitle(self) -> None:
        if self.dock is not None:
            self.dock.set_page_title(self, f"{TITLE} ({self.unseen} new)" if self.unseen else TITLE)

    def seen(self, visible: bool = True) -> None:
        if visible:
            self.unseen = 0
            self._retitle()

    def row_of(self, call_id: int) -> int | None:
        return next((row for row, s in enumerate(self.summaries) if s.id == call_id), None)

    def selected(self) -> RecallSummary | None:
        rows = self.table.selectionModel().selectedRows()
        return self.summaries[rows[0].row()] if rows else None

    def _select(self, call_id: int) -> None:
        row = self.row_of(call_id)
        if row is not None:
            self.table.blockSignals(True)
            self.table.selectRow(row)
            self.table.blockSignals(False)

    # ------------------------------------------------------------------ opening a call

    def open_selected(self) -> None:
        summary = self.selected()
        if summary is None:
            self.status.setText("Select a call first.")
            return
        self.open_call(summary.id)

    def open_row(self, row: int) -> None:
        """Select a row, which opens its call."""
        if 0 <= row < len(self.summaries):
            self.table.clearSelection()
            self.table.selectRow(row)

    def open_call(self, call_id: int, *, then_rerun: bool = False) -> None:
        """Fetch one call and show it as a recall case (answers on ``call_opened``)."""
        if self._journal() is None:
            self.status.setText("The recall journal is not open (is PostgreSQL up?).")
            return
        self.bridge.run_soon(lambda: self._open(call_id, then_rerun), kind="recall-open")

    async def _open(self, call_id: int, then_rerun: bool) -> None:
        journal = self._journal()
        if journal is None:
            return
        try:
            call = await journal.recall_call(call_id)
        except ExplorerError as error:
            self.status.setText(f"The call could not be read: {error}")
            return
        if call is None:
            self.status.setText(f"Call {call_id} is no longer in the journal (past its bounds).")
            return
        self.show_call(call)
        if then_rerun and call.case is not None and self.opened is call:
            self.main.trace.rerun_case()

    def show_call(self, call: RecallCall) -> None:
        try:
            case = call.recall_case()
        except ExplorerError as error:
            self.status.setText(f"Call {call.id} cannot be shown: {error}")
            return
        if case is None:
            reason = call.answer.get("error", "it did not answer")
            self.status.setText(f"{call.caller}'s call was refused: {reason}")
            return
        self.main.trace.show_case(case, f"{call.caller} at {_when(call.at)}")
        self.opened = call
        self.status.setText(
            f"Showing {call.caller}'s call “{call.summary().query}” as it was answered"
        )
        self.call_opened.emit(call)

    def rerun_selected(self) -> None:
        """Open the selected call (unless it is open) and compare it with the memory now."""
        summary = self.selected()
        if summary is None:
            self.status.setText("Select a call first.")
            return
        opened = self.opened
        if opened is not None and opened.id == summary.id and self.main.trace.case is not None:
            self.main.trace.rerun_case()
            return
        self.open_call(summary.id, then_rerun=True)


def install_recall_feed(window: MainWindow) -> RecallFeed:
    """Add the "Agent recalls" page to ``window``'s bottom dock, beside the ledger."""
    feed = RecallFeed(window)
    dock = window.trace.bottom
    dock.add_page(feed, TITLE)
    feed.dock = dock
    dock.page_shown.connect(lambda page: feed.seen() if page is feed else None)
    return feed
