"""The window's layout over the real memory: the graph and the chunks get the window.

At 1280x800 and 1920x1080 the central area (graph beside chunks) takes most of the window, the
ledger, "Why not", hits and agent recalls are pages of one bottom dock that starts collapsed and
is remembered, the policy dock needs no horizontal scrollbar and the query bar's boxes stay
readable.
"""

from __future__ import annotations

from typing import Any

import pytest
from PySide6.QtCore import QPoint, Qt

from explorer.gui.bridge import ServiceBridge
from explorer.gui.requests import QueryParams
from tests.gui.conftest import close_window, make_window, wait, wait_for_answer

QUERY = "Who recommended the builder Maya hired?"
MIN_BOX = 110


def _settle(window: Any, width: int, height: int) -> None:
    window.resize(width, height)
    wait(0.3)
    assert (window.width(), window.height()) == (width, height)


@pytest.mark.parametrize("size", [(1280, 800), (1920, 1080)])
def test_graph_and_chunks_are_the_main_area(qtbot: Any, window: Any, size: tuple[int, int]) -> None:
    token = window.run_query(QueryParams(query=QUERY, n_chunks=8, kg_top_k=8))
    wait_for_answer(qtbot, window, token, 120_000)
    _settle(window, *size)
    bottom = window.trace.bottom
    assert bottom.collapsed and bottom.isVisible(), "the bottom dock starts collapsed"
    assert bottom.height() <= 48
    for page in (window.trace.ledger_dock, window.trace.ledger_dock.why_panel, window.trace.hits):
        assert page in bottom.pages and page.visibleRegion().isEmpty()
    assert window.recall_feed in bottom.pages

    width, height = size
    central = window.centralWidget()
    assert central.height() >= 0.55 * height, (central.height(), height)
    view = window.graph_view
    assert view.width() * view.height() >= 0.35 * width * height, (view.size(), size)
    chunks = window.chunk_list
    assert chunks.isVisible() and chunks.width() >= 0.2 * width

    bar = window.query_bar
    for box in (bar.temporal, bar.scope_picker.edit, bar.domain):
        assert box.width() >= MIN_BOX, (box.objectName() or box.placeholderText(), box.width())
    metrics = bar.domain.fontMetrics()
    assert bar.domain.width() > metrics.horizontalAdvance(bar.domain.currentText()) + 20


@pytest.mark.parametrize("size", [(1280, 800), (1920, 1080)])
def test_the_policy_dock_needs_no_horizontal_scrollbar(
    qtbot: Any, window: Any, size: tuple[int, int]
) -> None:
    _settle(window, *size)
    dock = window.trace.policy_dock
    dock.raise_()
    qtbot.waitUntil(lambda: not dock.visibleRegion().isEmpty(), timeout=2_000)
    wait(0.2)
    scroll = dock.scroll_area
    assert not scroll.horizontalScrollBar().isVisible()
    assert scroll.widget().minimumSizeHint().width() <= scroll.viewport().width()
    # The side column cannot be dragged narrower than the controls either.
    window.resizeDocks([dock], [120], Qt.Orientation.Horizontal)
    wait(0.2)
    assert not scroll.horizontalScrollBar().isVisible()
    assert scroll.widget().minimumSizeHint().width() <= scroll.viewport().width()


def test_tabs_open_and_collapse_the_bottom_dock(qtbot: Any, window: Any) -> None:
    _settle(window, 1280, 800)
    bottom = window.trace.bottom
    collapsed_central = window.centralWidget().height()
    hits = bottom.pages.index(window.trace.hits)
    qtbot.mouseClick(bottom.bar, Qt.MouseButton.LeftButton, pos=bottom.bar.tabRect(hits).center())
    wait(0.3)
    assert not bottom.collapsed and bottom.current_page() is window.trace.hits
    assert not window.trace.hits.visibleRegion().isEmpty()
    assert bottom.height() >= 120
    assert window.centralWidget().height() < collapsed_central
    why = bottom.pages.index(window.trace.ledger_dock.why_panel)
    qtbot.mouseClick(bottom.bar, Qt.MouseButton.LeftButton, pos=bottom.bar.tabRect(why).center())
    wait(0.2)
    assert not bottom.collapsed and bottom.current_page() is window.trace.ledger_dock.why_panel
    # The open page's tab collapses the dock again.
    qtbot.mouseClick(bottom.bar, Qt.MouseButton.LeftButton, pos=bottom.bar.tabRect(why).center())
    wait(0.3)
    assert bottom.collapsed and window.trace.ledger_dock.why_panel.visibleRegion().isEmpty()
    assert window.centralWidget().height() == collapsed_central
    qtbot.mouseClick(bottom.arrow, Qt.MouseButton.LeftButton, pos=QPoint(4, 4))
    assert not bottom.collapsed


def test_the_bottom_dock_is_remembered(qloop: Any, qtbot: Any, window: Any, memory: Any) -> None:
    _settle(window, 1280, 800)
    store = window.store
    bottom = window.trace.bottom
    bottom.show_page(window.trace.hits)
    wait(0.3)
    opened_height = bottom.height()
    assert opened_height >= 120
    window.save_settings()

    def reopen() -> Any:
        bridge = ServiceBridge(memory=memory, poll_interval=0.3)
        again = make_window(bridge, store)
        bridge.open()
        qtbot.waitUntil(lambda: bridge.opened, timeout=30_000)
        again.resize(1280, 800)
        wait(0.3)
        return again

    again = reopen()
    try:
        kept = again.trace.bottom
        assert not kept.collapsed and kept.current_page() is again.trace.hits
        assert abs(kept.height() - opened_height) <= 8, (kept.height(), opened_height)
        kept.set_collapsed(True)
        again.save_settings()
    finally:
        close_window(qloop, again)
    again = reopen()
    try:
        assert again.trace.bottom.collapsed
        assert again.trace.bottom.current_page() is again.trace.hits
    finally:
        close_window(qloop, again)


def test_a_dock_layout_saved_by_an_older_arrangement_is_not_restored(
    qloop: Any, qtbot: Any, window: Any, memory: Any
) -> None:
    store = window.store
    policy = window.trace.policy_dock
    window.addDockWidget(Qt.DockWidgetArea.LeftDockWidgetArea, policy)
    assert window.dockWidgetArea(policy) == Qt.DockWidgetArea.LeftDockWidgetArea
    window.save_settings()
    store.setValue("window/state", window.saveState(0))  # as an older version saved it
    bridge = ServiceBridge(memory=memory, poll_interval=0.3)
    again = make_window(bridge, store)
    try:
        moved = again.trace.policy_dock
        assert again.dockWidgetArea(moved) == Qt.DockWidgetArea.RightDockWidgetArea
    finally:
        close_window(qloop, again)
    # The current arrangement's own layout is restored as saved.
    window.save_settings()
    bridge = ServiceBridge(memory=memory, poll_interval=0.3)
    again = make_window(bridge, store)
    try:
        moved = again.trace.policy_dock
        assert again.dockWidgetArea(moved) == Qt.DockWidgetArea.LeftDockWidgetArea
    finally:
        close_window(qloop, again)
