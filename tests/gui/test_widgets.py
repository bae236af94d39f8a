"""Widget-level tests of the main window over the in-memory fake memory (no servers).

They pin the behaviour that does not depend on the real stores: the query bar, linking by
provenance, undo, exports, latest-wins cancellation, the error dialog and the health banners.
The same flows over the real embedded stores are in ``test_real_service.py``.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import QPoint, QPointF, QSettings, Qt

from explorer.core.errors import StoreUnavailable
from explorer.gui.bridge import ServiceBridge
from explorer.gui.graph_items import NodeItem
from explorer.gui.main_window import MainWindow
from explorer.testing import FakeMemory
from tests.gui.conftest import close_window, make_window, wait_for_answer

QUERY = "Where does Marta live in Lisbon?"


@pytest.fixture
def fake() -> FakeMemory:
    return FakeMemory()


@pytest.fixture
def fake_window(
    qloop: asyncio.AbstractEventLoop, qtbot: Any, fake: FakeMemory, settings_store: Any
) -> Iterator[Any]:
    bridge = ServiceBridge(memory=fake, poll_interval=0.1)
    window = make_window(bridge, settings_store)
    bridge.open()
    qtbot.waitUntil(lambda: bridge.opened, timeout=5_000)
    yield window
    unexpected = list(window.errors)
    close_window(qloop, window)
    assert not unexpected, f"errors shown to the user: {unexpected}"


def _query(qtbot: Any, window: Any, text: str = QUERY) -> Any:
    token = window.run_query(text)
    wait_for_answer(qtbot, window, token, 10_000)
    return window.outcome


def test_domains_fill_the_combo(fake_window: Any) -> None:
    combo = fake_window.query_bar.domain
    assert [combo.itemText(i) for i in range(combo.count())][1:] == ["family", "garden", "travel"]


def test_typing_a_query_and_enter_shows_nodes_and_chunks(qtbot: Any, fake_window: Any) -> None:
    editor = fake_window.query_bar.query_editor
    editor.setFocus()
    qtbot.keyClicks(editor, QUERY)
    qtbot.keyClick(editor, Qt.Key.Key_Return)
    qtbot.waitUntil(
        lambda: fake_window.outcome is not None and bool(fake_window.graph_view.node_ids),
        timeout=5_000,
    )
    outcome = fake_window.outcome
    assert {e.id for e in outcome.entities} <= set(fake_window.graph_view.node_ids)
    assert fake_window.chunk_list.chunk_ids() == [c.id for c in outcome.chunks]
    assert "graph" in fake_window.timings_label.text()
    assert fake_window.query_bar.history()[0] == QUERY


def test_expand_then_undo_and_redo(qtbot: Any, fake_window: Any) -> None:
    _query(qtbot, fake_window)
    view = fake_window.graph_view
    before = set(view.node_ids)
    # The fake memory is small enough to be all on screen: hide a neighbour, then bring it
    # back by expanding the node it hangs off.
    view.hide_nodes(["taberna"])
    before = set(view.node_ids)
    view.undo_stack.clear()
    view.expand("marta")
    qtbot.waitUntil(lambda: set(view.node_ids) != before, timeout=5_000)
    grown = set(view.node_ids)
    assert grown == before | {"taberna"}
    assert view.state.nodes["taberna"].parent == "marta"
    positions = {n: (view.node_item(n).x(), view.node_item(n).y()) for n in before}
    for node_id in before:  # existing nodes did not move
        item = view.node_item(node_id)
        assert (item.x(), item.y()) == positions[node_id]
    view.undo_stack.undo()
    assert set(view.node_ids) == before
    view.undo_stack.redo()
    assert set(view.node_ids) == grown


def test_hide_collapse_and_move_are_undoable(qtbot: Any, fake_window: Any) -> None:
    _query(qtbot, fake_window)
    view = fake_window.graph_view
    nodes = set(view.node_ids)
    victim = sorted(nodes)[0]
    view.hide_nodes([victim])
    assert victim not in view.node_ids
    view.undo_stack.undo()
    assert set(view.node_ids) == nodes

    item = view.node_item(victim)
    start = (item.x(), item.y())
    press = view.mapFromScene(item.scenePos())
    qtbot.mousePress(view.viewport(), Qt.MouseButton.LeftButton, pos=press)
    for step in range(1, 6):
        _drag_to(view, press + QPoint(10 * step, 4 * step))
    qtbot.mouseRelease(view.viewport(), Qt.MouseButton.LeftButton, pos=press + QPoint(50, 20))
    moved = (item.x(), item.y())
    assert moved != start
    assert victim in view.state.pinned
    assert view.state.positions[victim] == moved
    view.undo_stack.undo()
    assert (item.x(), item.y()) == start and victim not in view.state.pinned
    view.undo_stack.redo()
    assert (item.x(), item.y()) == moved


def _drag_to(view: Any, point: QPoint) -> None:
    """A mouse move with the left button held (QTest's move carries no buttons)."""
    from PySide6.QtCore import QEvent
    from PySide6.QtGui import QMouseEvent
    from PySide6.QtWidgets import QApplication

    event = QMouseEvent(
        QEvent.Type.MouseMove,
        QPointF(point),
        QPointF(view.viewport().mapToGlobal(point)),
        Qt.MouseButton.NoButton,
        Qt.MouseButton.LeftButton,
        Qt.KeyboardModifier.NoModifier,
    )
    QApplication.sendEvent(view.viewport(), event)


def test_selecting_an_entity_lists_its_mentions_with_spans(qtbot: Any, fake_window: Any) -> None:
    _query(qtbot, fake_window)
    view = fake_window.graph_view
    view.select_entity("marta")
    qtbot.waitUntil(lambda: fake_window.chunk_list.mode == "mentions", timeout=5_000)
    chunk_list = fake_window.chunk_list
    qtbot.waitUntil(lambda: set(chunk_list.chunk_ids()) == {"c2", "c4"}, timeout=5_000)
    for card in chunk_list.cards:
        assert card.highlighted_texts() == [card.text[0:3]]
        assert "ffd54f" in card.body.text()
    assert "Marta" in fake_window.inspector.toPlainText()
    view.select_entity("marta")  # reselecting is harmless
    fake_window.graph_view.scene().clearSelection()
    qtbot.waitUntil(lambda: chunk_list.mode == "result", timeout=5_000)


def test_hovering_a_chunk_lights_up_its_entities(qtbot: Any, fake_window: Any) -> None:
    outcome = _query(qtbot, fake_window)
    chunk_id = next(cid for cid, ents in outcome.entities_by_chunk.items() if ents)
    expected = {
        e for e in outcome.entities_by_chunk[chunk_id] if e in fake_window.graph_view.node_ids
    }
    assert expected
    fake_window.chunk_list.hover_chunk(chunk_id)
    assert fake_window.graph_view.highlighted_ids() == expected
    assert all(fake_window.graph_view.node_item(n).highlighted for n in expected)
    fake_window.chunk_list._on_card_hovered(chunk_id, False)
    assert fake_window.graph_view.highlighted_ids() == set()


def test_hovering_an_entity_marks_its_chunks(qtbot: Any, fake_window: Any) -> None:
    _query(qtbot, fake_window)
    fake_window.graph_view._on_node_hovered("lisbon", True)
    assert set(fake_window.chunk_list.linked_ids()) >= {"c1", "c2"} & set(
        fake_window.chunk_list.chunk_ids()
    )
    fake_window.graph_view._on_node_hovered("lisbon", False)
    assert fake_window.chunk_list.linked_ids() == []


def test_inspector_relation_link_selects_the_neighbour(qtbot: Any, fake_window: Any) -> None:
    _query(qtbot, fake_window)
    fake_window.graph_view.select_entity("marta")
    qtbot.waitUntil(lambda: fake_window.inspector.entity_id == "marta", timeout=5_000)
    targets = fake_window.inspector.link_targets("entity")
    assert targets
    fake_window.inspector.activate_relation(targets[0])
    qtbot.waitUntil(lambda: fake_window.graph_view.selected_ids() == [targets[0]], timeout=5_000)


def test_a_speakers_own_turns_are_listed_after_the_turns_that_name_them(
    qtbot: Any, fake_window: Any, fake: FakeMemory
) -> None:
    first = fake.chunks.chunks["c1"]
    said = replace(first, id="m1", text="Lisbon is lovely in May", speaker="Marta", position=9)
    fake.chunks.add(said)
    _query(qtbot, fake_window)
    fake_window.graph_view.select_entity("marta")
    chunks = fake_window.chunk_list
    qtbot.waitUntil(lambda: "turns they said: 1 of 1" in chunks.title.text(), timeout=5_000)
    # Her mentions first, then what she said herself.
    assert chunks.chunk_ids()[-1] == "m1" and {"c2", "c4"} <= set(chunks.chunk_ids())


def test_newer_query_cancels_the_stale_one(qtbot: Any, fake_window: Any, fake: FakeMemory) -> None:
    fake.delay = 0.3
    cancelled: list[int] = []
    fake_window.bridge.query_cancelled.connect(cancelled.append)
    first = fake_window.run_query("garden tomatoes")
    second = fake_window.run_query(QUERY)
    wait_for_answer(qtbot, fake_window, second, 10_000)
    assert cancelled == [first]
    assert fake_window.outcome.params.query == QUERY
    qtbot.waitUntil(lambda: not fake_window.bridge.busy, timeout=5_000)


def test_escape_cancels_a_running_query(qtbot: Any, fake_window: Any, fake: FakeMemory) -> None:
    fake.delay = 2.0
    cancelled: list[int] = []
    fake_window.bridge.query_cancelled.connect(cancelled.append)
    token = fake_window.run_query(QUERY)
    qtbot.waitUntil(lambda: fake_window.bridge.busy, timeout=5_000)
    assert fake_window.query_bar.cancel_button.isEnabled()
    qtbot.keyClick(fake_window.query_bar.query_editor, Qt.Key.Key_Escape)
    qtbot.waitUntil(lambda: cancelled == [token], timeout=5_000)
    qtbot.waitUntil(lambda: not fake_window.bridge.busy, timeout=5_000)
    assert fake_window.outcome is None
    assert "cancelled" in fake_window.status_message.text()


def test_temporal_field_is_validated_as_you_type(qtbot: Any, fake_window: Any) -> None:
    bar = fake_window.query_bar
    qtbot.keyClicks(bar.temporal, "2023-13")
    assert bar.temporal_error
    assert bar.temporal.styleSheet() != "" and bar.temporal.toolTip() == bar.temporal_error
    assert not bar.run_button.isEnabled()
    bar.temporal.clear()
    qtbot.keyClicks(bar.temporal, "2023..2024-06")
    assert bar.temporal_error == "" and bar.run_button.isEnabled()
    assert bar.params().temporal == "2023..2024-06"


def test_history_steps_with_arrow_keys(qtbot: Any, fake_window: Any) -> None:
    bar = fake_window.query_bar
    bar.set_history(["third", "second", "first"])
    bar.set_query("")
    bar.query_box.setCurrentIndex(0)
    qtbot.keyClick(bar.query_editor, Qt.Key.Key_Down)
    assert bar.query_box.currentText() == "second"
    qtbot.keyClick(bar.query_editor, Qt.Key.Key_Up)
    assert bar.query_box.currentText() == "third"


def test_geometry_splitter_and_recent_queries_persist(
    qloop: asyncio.AbstractEventLoop, qtbot: Any, fake: FakeMemory, tmp_path: Path
) -> None:
    path = str(tmp_path / "persist.ini")
    bridge = ServiceBridge(memory=fake)
    window = MainWindow(bridge, settings_store=QSettings(path, QSettings.Format.IniFormat))
    window.show()
    bridge.open()
    qtbot.waitUntil(lambda: bridge.opened, timeout=5_000)
    window.resize(790, 640)  # not the default size, and inside the 800×800 offscreen screen
    expected = (window.size().width(), window.size().height())
    assert expected[1] == 640
    window.splitter.setSizes([300, 700])
    sizes = window.splitter.sizes()
    window.query_bar.kg_top_k.setValue(13)
    _query(qtbot, window, "garden tomatoes")
    close_window(qloop, window)

    bridge = ServiceBridge(memory=fake)
    again = MainWindow(bridge, settings_store=QSettings(path, QSettings.Format.IniFormat))
    again.show()
    try:
        assert (again.size().width(), again.size().height()) == expected
        assert again.splitter.sizes() == sizes
        assert again.query_bar.history()[0] == "garden tomatoes"
        assert again.query_bar.kg_top_k.value() == 13
    finally:
        close_window(qloop, again)


def test_exports_png_svg_and_json(qtbot: Any, fake_window: Any, tmp_path: Path) -> None:
    from PySide6.QtGui import QImage

    _query(qtbot, fake_window)
    png, svg, js = tmp_path / "g.png", tmp_path / "g.svg", tmp_path / "r.json"
    fake_window.graph_view.export_png(png)
    fake_window.graph_view.export_svg(svg)
    fake_window.export_json(js)
    image = QImage(str(png))
    assert not image.isNull() and image.width() > 50
    assert (
        len(
            {
                image.pixel(x, y)
                for x in range(0, image.width(), 7)
                for y in range(0, image.height(), 7)
            }
        )
        > 3
    )
    text = svg.read_text("utf-8")
    assert text.lstrip().startswith("<?xml") and "<svg" in text and "Marta" in text
    body = json.loads(js.read_text("utf-8"))
    assert body["result"]["query"] == QUERY
    assert {n["id"] for n in body["graph"]["nodes"]} == set(fake_window.graph_view.node_ids)
    assert all(len(n["position"]) == 2 for n in body["graph"]["nodes"])


def test_graph_half_down_shows_banner_keeps_chunks_and_recovers(
    qtbot: Any, fake_window: Any, fake: FakeMemory
) -> None:
    fake.graph.fail = StoreUnavailable("connection refused")
    outcome = _query(qtbot, fake_window)
    assert outcome.kg_error
    assert fake_window.graph_banner.isVisible()
    assert "Knowledge graph unavailable" in fake_window.graph_banner.text()
    assert not fake_window.chunks_banner.isVisible()
    assert fake_window.chunk_list.chunk_ids()
    first = outcome.token
    fake.graph.fail = None
    qtbot.waitUntil(
        lambda: fake_window.outcome.token != first and not fake_window.graph_banner.isVisible(),
        timeout=10_000,
    )
    assert fake_window.graph_view.node_ids


def test_an_exception_in_a_task_reaches_a_visible_error_dialog(
    qtbot: Any, fake_window: Any, fake: FakeMemory
) -> None:
    async def broken(*_: Any, **__: Any) -> Any:
        raise RuntimeError("boom in the store")

    fake.scour = broken  # type: ignore[method-assign]
    fake_window.run_query(QUERY)
    qtbot.waitUntil(lambda: fake_window._error_box is not None, timeout=5_000)
    box = fake_window._error_box
    assert box.isVisible() and not box.isModal()
    assert "boom in the store" in box.informativeText()
    qtbot.waitUntil(lambda: not fake_window.bridge.busy, timeout=5_000)
    box.close()
    assert fake_window.errors == []


def test_node_double_click_asks_for_expansion(qtbot: Any, fake_window: Any) -> None:
    _query(qtbot, fake_window)
    view = fake_window.graph_view
    asked: list[tuple[str, int]] = []
    view.expand_requested.connect(lambda node, cap: asked.append((node, cap)))
    item = view.node_item("marta")
    assert isinstance(item, NodeItem)
    point = view.mapFromScene(item.scenePos())
    qtbot.mouseDClick(view.viewport(), Qt.MouseButton.LeftButton, pos=point)
    assert asked and asked[0][0] == "marta"


def test_zoom_and_fit_keys(qtbot: Any, fake_window: Any) -> None:
    _query(qtbot, fake_window)
    view = fake_window.graph_view
    view.setFocus()
    scale = view.transform().m11()
    qtbot.keyClick(view, Qt.Key.Key_Plus)
    assert view.transform().m11() > scale
    qtbot.keyClick(view, Qt.Key.Key_Minus)
    qtbot.keyClick(view, Qt.Key.Key_Minus)
    assert view.transform().m11() < scale
    qtbot.keyClick(view, Qt.Key.Key_F)
    rect = view.mapToScene(view.viewport().rect()).boundingRect()
    for node_id in view.node_ids:
        assert rect.contains(view.node_item(node_id).scenePos() + QPointF(0, 0))


def test_an_exception_in_a_slot_reaches_the_reporter_not_a_crash(qloop: Any, qtbot: Any) -> None:
    from PySide6.QtCore import QObject, Signal

    from explorer.gui.application import ErrorReporter, error_hooks

    class Source(QObject):
        fired = Signal()

    def broken_slot() -> None:
        raise ValueError("bad slot")

    reporter = ErrorReporter()
    seen: list[tuple[str, str]] = []
    reporter.reported.connect(lambda title, detail: seen.append((title, detail)))
    source = Source()
    source.fired.connect(broken_slot)
    import sys

    before = sys.excepthook
    with error_hooks(reporter, qloop):
        assert sys.excepthook == reporter.excepthook
        source.fired.emit()
        qloop.call_exception_handler({"message": "loop trouble"})
    assert sys.excepthook is before
    assert seen[0][0] == "Unexpected error: ValueError" and "bad slot" in seen[0][1]
    assert seen[1] == ("Event loop error", "loop trouble")


def test_rubber_band_selects_nodes_and_selection_shows_relation_types(
    qtbot: Any, fake_window: Any
) -> None:
    _query(qtbot, fake_window)
    view = fake_window.graph_view
    corner = view.viewport().rect().topLeft() + QPoint(2, 2)
    far = view.viewport().rect().bottomRight() - QPoint(2, 2)
    qtbot.mousePress(view.viewport(), Qt.MouseButton.LeftButton, pos=corner)
    for step in range(1, 11):
        _drag_to(view, corner + (far - corner) * step / 10)
    qtbot.mouseRelease(view.viewport(), Qt.MouseButton.LeftButton, pos=far)
    assert set(view.selected_ids()) == set(view.node_ids)

    view.select_entity("marta")
    qtbot.waitUntil(lambda: view.selected_ids() == ["marta"], timeout=5_000)
    # Zoomed in, every line in view is labelled until the focus's own labels are placed.
    wanted = sorted(e.type for e in view.state.edges_of("marta"))
    qtbot.waitUntil(
        lambda: sorted(label.text() for label in view._edge_labels) == wanted, timeout=5_000
    )
    assert not view._focus_edges.path().isEmpty()


def test_more_handle_asks_for_more_neighbours(qtbot: Any, fake_window: Any) -> None:
    _query(qtbot, fake_window)
    view = fake_window.graph_view
    state = view.state.copy()
    state.degrees["marta"] = len(state.edges_of("marta")) + 7
    view._apply_state(state)
    handle = view._handles.get("marta")
    assert handle is not None and handle.text() == "+7 more"
    qtbot.waitUntil(handle.isVisible, timeout=5_000)  # placed beside its node with the labels
    asked: list[tuple[str, int]] = []
    view.expand_requested.connect(lambda node, cap: asked.append((node, cap)))
    # The badge ignores the view's zoom: where it is on screen is its device transform's say.
    centre = handle.deviceTransform(view.viewportTransform()).map(handle.boundingRect().center())
    point = centre.toPoint()
    qtbot.mouseClick(view.viewport(), Qt.MouseButton.LeftButton, pos=point)
    assert asked and asked[0][0] == "marta" and asked[0][1] > len(state.edges_of("marta"))


def test_copy_chunk_text(qtbot: Any, fake_window: Any) -> None:
    from PySide6.QtGui import QGuiApplication

    _query(qtbot, fake_window)
    card = fake_window.chunk_list.cards[0]
    card.copy_text()
    assert QGuiApplication.clipboard().text() == card.text


def test_selecting_a_node_in_view_leaves_the_view_where_it_was(
    qtbot: Any, fake_window: Any
) -> None:
    _query(qtbot, fake_window)
    view = fake_window.graph_view
    view.fit()
    before = view.mapToScene(view.viewport().rect().center())
    visible = view.mapToScene(view.viewport().rect()).boundingRect()
    node = next(n for n in view.node_ids if visible.contains(view._items[n].pos()))
    view.select_entity(node)
    assert view.selected_ids() == [node]
    assert view.mapToScene(view.viewport().rect().center()) == before
    # A node out of view is scrolled in.
    view.centerOn(view._items[node].pos() + QPointF(5 * view.viewport().width(), 0))
    view.select_entity(node)
    shown = view.mapToScene(view.viewport().rect()).boundingRect()
    assert shown.contains(view._items[node].pos())


def test_a_selected_node_draws_arrows_for_its_facts_not_for_what_came_up_with_it(
    qtbot: Any, fake_window: Any
) -> None:
    from explorer.gui.graph_model import EdgeData, GraphState, NodeData

    view = fake_window.graph_view
    state = GraphState()
    for node_id in ("meera", "vancouver", "toronto"):
        state.nodes[node_id] = NodeData(id=node_id, name=node_id.title(), type="person")
    state.positions.update({"meera": (0.0, 0.0), "vancouver": (200.0, 0.0), "toronto": (0, 200.0)})
    state.edges["w"] = EdgeData(id="w", source="meera", target="vancouver", type="CO_OCCURS")
    view._apply_state(state)
    view.select_entity("meera")
    qtbot.waitUntil(lambda: view.selected_ids() == ["meera"], timeout=5_000)
    assert view._focus_edges.path().isEmpty()  # came up together: no arrow, no fact drawn
    with_fact = state.copy()
    with_fact.edges["f"] = EdgeData(id="f", source="meera", target="toronto", type="LIVES_IN")
    view._apply_state(with_fact)
    view.select_entity("meera")
    qtbot.waitUntil(lambda: not view._focus_edges.path().isEmpty(), timeout=5_000)
    assert view._focus_edges.path().boundingRect().bottom() > 150  # towards Toronto
    assert view._focus_edges.path().boundingRect().right() < 100  # not towards Vancouver
