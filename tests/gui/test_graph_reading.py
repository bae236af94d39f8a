"""Reading the graph, over the real demo memory: legend toggles, find, time filter, stable
positions, shortest path, style that persists.
"""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtGui import QColor

from explorer.gui import style
from explorer.gui.graph_filter import outside, parse_time
from explorer.gui.graph_search import find_nodes
from tests.gui.conftest import wait_for_answer


def _ask(qtbot: Any, window: Any, text: str) -> Any:
    token = window.run_query(text)
    wait_for_answer(qtbot, window, token, 120_000)
    return window.graph_view


def test_legend_click_hides_and_shows_a_type(qtbot: Any, window: Any) -> None:
    view = _ask(qtbot, window, "Where does Maya live?")
    kinds = {n.type for n in view.state.nodes.values()}
    assert set(view.legend.buttons) == kinds
    kind = "place" if "place" in kinds else sorted(kinds)[0]
    ids = [n.id for n in view.state.nodes.values() if n.type == kind]
    qtbot.mouseClick(view.legend.buttons[kind], Qt.MouseButton.LeftButton)
    assert all(not view.node_item(i).isVisible() for i in ids)
    assert all(view.node_item(n).isVisible() for n in view.state.nodes if n not in ids)
    assert not view.legend.buttons[kind].isChecked()
    scene = view.scene_json()
    assert not {n["id"] for n in scene["nodes"]} & set(ids)
    assert all(e["source"] not in ids and e["target"] not in ids for e in scene["edges"])
    # The legend still lists the hidden type, and another query keeps it hidden.
    assert kind in {e["type"] for e in view.legend.entries()}
    qtbot.mouseClick(view.legend.buttons[kind], Qt.MouseButton.LeftButton)
    assert all(view.node_item(i).isVisible() for i in ids)


def test_find_ignores_accents_and_case(qtbot: Any, window: Any) -> None:
    view = _ask(qtbot, window, "Who did Maya hire as a product designer?")
    tomas = [n.id for n in view.state.nodes.values() if n.name == "Tomás Ruiz"]
    assert tomas, sorted(n.name for n in view.state.nodes.values())
    qtbot.keyClick(window, Qt.Key.Key_F, Qt.KeyboardModifier.ControlModifier)
    assert view.search.isVisible()
    # The full name: "tomas" alone also finds the other scope's Maya Okafor by the label
    # "Maya Okafor · tomas" that tells her apart, and names sort before Tomás Ruiz.
    matches = view.search.search_for("tomas ruiz")
    assert matches[0] == tomas[0]
    assert view.selected_ids() == [tomas[0]]
    assert "1/" in view.search.count.text()
    assert find_nodes(view.state, "TOMÁS ruiz")[0] == tomas[0]
    assert find_nodes(view.state, "zzzz-nothing") == []


def test_time_window_greys_out_what_lies_outside(qtbot: Any, window: Any) -> None:
    view = _ask(qtbot, window, "Where does Maya live?")
    bar = window.graph_filter
    span = bar.span
    assert span is not None
    start, end = span[0], span[0] + (span[1] - span[0]) / 20
    bar.set_time_window(start, end)
    low, high = bar.time_window()
    assert abs(low - start) < timedelta(days=1) and abs(high - end) < timedelta(days=1)
    expected = outside(view.state, low, high)
    assert expected and view.dimmed == expected
    for node_id, node in view.state.nodes.items():
        item = view.node_item(node_id)
        first, last = parse_time(node.first_seen), parse_time(node.last_seen)
        if node_id in expected:
            assert item.opacity() < 0.5
            assert (first is not None and first > high) or (last is not None and last < low)
        else:
            assert item.opacity() == 1.0
    bar.start.setValue(0)
    bar.end.setValue(bar.end.maximum())
    assert view.dimmed == set()


def test_layer_toggle_keeps_surviving_positions(qtbot: Any, window: Any) -> None:
    view = _ask(qtbot, window, "Who recommended the builder Maya hired?")
    before = dict(view.state.positions)
    dock = window.trace.policy_dock
    dock.layer_boxes["concept"].setChecked(False)
    qtbot.waitUntil(lambda: not view.is_layout_pending(), timeout=10_000)
    after = view.state.positions
    kept = set(before) & set(after)
    assert kept  # the nodes that stay are many; each keeps its place
    assert all(after[n] == before[n] for n in kept)
    dock.layer_boxes["concept"].setChecked(True)
    qtbot.waitUntil(lambda: not view.is_layout_pending(), timeout=10_000)
    back = view.state.positions
    assert all(back[n] == before[n] for n in set(before) & set(back))


def test_shortest_path_between_two_selected(qtbot: Any, window: Any) -> None:
    view = _ask(qtbot, window, "Who recommended the builder Maya hired?")
    roots = [n for n, node in view.state.nodes.items() if node.root]
    # Two nodes at least two steps apart: a neighbour of one result entity and another result.
    start = roots[0]
    far = next(
        n
        for n, node in view.state.nodes.items()
        if not node.root and node.parent not in (None, start)
    )
    view.node_item(start).setSelected(True)
    view.node_item(far).setSelected(True)
    qtbot.waitUntil(lambda: len(view.selected_ids()) == 2, timeout=2_000)
    path = window.graph_menu.show_path()
    assert path is not None and {path.nodes[0], path.nodes[-1]} == {start, far}
    assert len(path.nodes) >= 3
    for edge, (a, b) in zip(path.edges, zip(path.nodes, path.nodes[1:], strict=False), strict=True):
        assert {edge.source, edge.target} == {a, b} and edge.id in view.state.edges
    assert view.highlighted_ids() == set(path.nodes)
    assert "Path" in window.chunk_list.title.text()
    window.graph_menu.clear_path()
    assert view.path is None and not view.highlighted_ids()


def test_style_colour_and_caption_persist(qtbot: Any, window: Any, settings_store: Any) -> None:
    view = _ask(qtbot, window, "Where does Maya live?")
    try:
        dialog = window.graph_menu.open_style()
        dialog.set_colour("person", QColor("#123456"))
        dialog.caption_boxes["person"].setCurrentText("name and type")
        dialog.size_boxes["place"].setCurrentText("degree")
        dialog.accept()
        person = next(n for n in view.state.nodes.values() if n.type == "person")
        item = view.node_item(person.id)
        assert item.brush().color().name() == "#123456"
        assert item.label.text().endswith("(person)")
        stored = settings_store.value("graph/style")
        assert "#123456" in str(stored) and '"place": "degree"' in str(stored)
        assert view.type_sizes == {"place": "degree"}
        places = [n for n in view.state.nodes.values() if n.type == "place"]
        degrees = view._size_values["degree"]
        assert places and all(
            view.node_item(p.id).r == style.node_radius(degrees[p.id], True) for p in places
        )
        style.TYPE_COLOUR_OVERRIDES.clear()
        window.graph_menu.restore()  # as a new window would
        assert style.type_colour("person").name() == "#123456"
        window.graph_menu.set_size_by("centrality")
        assert view.size_by == "centrality"
    finally:
        window.graph_menu.apply({}, {}, {})
        window.graph_menu.set_size_by("score")


def test_hovering_a_chunk_lights_its_entities_and_draws_missing_ones(
    qtbot: Any, window: Any
) -> None:
    view = _ask(qtbot, window, "Who recommended the builder Maya hired?")
    links = window._links
    chunk_id = next(c for c, named in links.items() if named)
    named = set(links[chunk_id])
    # Take one of the chunk's entities off the screen, then hover the chunk.
    gone = sorted(named)[0]
    view.hide_nodes([gone])
    assert gone not in view.state.nodes
    window._on_chunks_hovered(chunk_id)
    qtbot.waitUntil(
        lambda: gone in view.state.nodes and not view.is_layout_pending(), timeout=20_000
    )
    qtbot.waitUntil(lambda: view.highlighted_ids() == named & set(view.state.nodes), timeout=5_000)
    for node_id, item in ((n, view.node_item(n)) for n in view.state.nodes):
        assert item is not None
        if node_id in named:
            assert item.highlighted and item.opacity() == 1.0 and item.label_shown()
        else:
            assert item.opacity() < 0.5
    window._on_chunks_hovered("")
    assert all(view.node_item(n).opacity() == 1.0 for n in view.state.nodes)


def test_parallel_relations_are_one_line_listed_on_hover(qtbot: Any, window: Any) -> None:
    view = _ask(qtbot, window, "Who recommended the builder Maya hired?")
    groups = view.edge_groups()
    multi = next(((pair, edges) for pair, edges in groups.items() if len(edges) > 1), None)
    assert multi is not None, "the demo answer has parallel relations"
    (a, b), edges = multi
    drawn = [e for e in view.scene_json()["edges"] if {e["source"], e["target"]} == {a, b}]
    assert len(drawn) == 1 and drawn[0]["count"] == len(edges)
    text = view.pair_tooltip(edges[0])
    assert len(text.splitlines()) >= len(edges)
    assert all(edge.type in text for edge in edges)


def test_the_scene_says_each_drawn_relation_in_its_own_direction(qtbot: Any, window: Any) -> None:
    view = _ask(qtbot, window, "Who recommended the builder Maya hired?")
    scene = {(e["source"], e["target"]): e for e in view.scene_json()["edges"]}
    # a line whose relation runs against the pair's order (the scene lists pairs sorted)
    against = [
        (pair, edges)
        for pair, edges in view.edge_groups().items()
        if any(edge.source != pair[0] for edge in edges)
    ]
    assert against, "the demo answer has a relation whose source sorts after its target"
    for pair, edges in against:
        line = scene[pair]
        assert sorted((r["source"], r["type"], r["target"]) for r in line["relations"]) == sorted(
            (edge.source, edge.type, edge.target) for edge in edges
        )
        facts = sorted(edge.type for edge in edges if edge.type not in ("MENTIONS", "CO_OCCURS"))
        assert all(kind in line["caption"] for kind in facts)
        assert line["caption"] or not facts
