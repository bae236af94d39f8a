"""The window on a graphiti memory: a graph graphiti-core wrote, opened read-only.

Embedded servers of this module hold a graphiti graph written with graphiti's own models. The
window opened on it shows its overview, answers a query, and for a selected entity shows its
facts with their validity history in the inspector beside the episode texts with the entity's
name highlighted. File → Open graphiti memory… lists the server's graphiti graphs (not the
explorer's own graph) and switches the window to the chosen one; a graph that is not there is
named with the ones that are. Exports and a screenshot with an entity selected work on it. The
graph is unchanged after every test.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from explorer.adapters.embedded import EmbeddedServers
from explorer.compose import SERVICES
from explorer.gui.bridge import ServiceBridge
from explorer.gui.moments import local_time
from explorer.settings import Settings
from tests.graphiti_graph import GraphitiFixture, graph_snapshot, write_graphiti_graph
from tests.gui.conftest import close_window, make_window, run, wait, wait_for_answer


@pytest.fixture(scope="module")
def graphiti_dir(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    data_dir = tmp_path_factory.mktemp("graphiti-memory")
    servers = EmbeddedServers(data_dir)
    servers.start()
    try:
        yield data_dir
    finally:
        servers.stop()


@pytest.fixture(scope="module")
def written(qloop: asyncio.AbstractEventLoop, graphiti_dir: Path) -> GraphitiFixture:
    socket = EmbeddedServers(graphiti_dir).falkordb_socket
    return run(qloop, write_graphiti_graph(socket, "agent_memory"))


@pytest.fixture
def graphiti(graphiti_dir: Path, written: GraphitiFixture) -> Iterator[GraphitiFixture]:
    socket = EmbeddedServers(graphiti_dir).falkordb_socket
    before = graph_snapshot(socket, written.graph)
    yield written
    assert graph_snapshot(socket, written.graph) == before, "the graphiti graph was written"


def _window(qtbot: Any, settings: Settings, settings_store: Any) -> Any:
    bridge = ServiceBridge(settings, services=SERVICES, poll_interval=0.3)
    window = make_window(bridge, settings_store)
    bridge.open()
    qtbot.waitUntil(lambda: window.memory_actions.overview is not None, timeout=60_000)
    return window


def test_the_window_shows_an_entitys_facts_beside_the_episode_text(
    qloop: asyncio.AbstractEventLoop,
    qtbot: Any,
    graphiti_dir: Path,
    graphiti: GraphitiFixture,
    settings_store: Any,
    tmp_path: Path,
) -> None:
    settings = Settings(data_dir=graphiti_dir, graphiti_graph=graphiti.graph, load_demo=True)
    window = _window(qtbot, settings, settings_store)
    try:
        overview = window.memory_actions.overview
        assert (overview.chunks, overview.entities, overview.relations) == (4, 8, 6)
        assert "graphiti graph “agent_memory”" in window.windowTitle()
        token = window.run_query("Where does Maya live?")
        wait_for_answer(qtbot, window, token, 120_000)
        maya = graphiti.entities["Maya"]
        assert maya in window.graph_view.node_ids
        window.graph_view.select_entity(maya)
        chunks = window.chunk_list
        qtbot.waitUntil(
            lambda: (
                chunks.mode == "mentions" and chunks.entity_id == maya and len(chunks.cards) == 3
            ),
            timeout=60_000,
        )
        qtbot.waitUntil(lambda: window.inspector.entity_id == maya, timeout=60_000)
        wait(0.5)
        page = window.inspector.toPlainText()
        assert "Maya lives in Lisbon" in page and "Maya lives in Berlin" in page
        # Shown in the reader's own time zone, with its name.
        jan, may, may3 = (
            datetime(2026, m, d, 10, tzinfo=UTC) for m, d in ((1, 25), (5, 1), (5, 3))
        )
        assert f"valid {local_time(jan, seconds=False)} → {local_time(may, seconds=False)}" in page
        assert f"expired {local_time(may3, seconds=False)}" in page
        assert f"valid {local_time(may, seconds=False)} → now" in page
        # A read-only memory offers no alias changes.
        assert window.inspector.read_only and not window.inspector.link_targets("detach")
        texts = {card.chunk_id: card.text for card in chunks.cards}
        assert texts[graphiti.episodes["lisbon"]] == graphiti.contents["lisbon"]
        lisbon = chunks.card(graphiti.episodes["lisbon"])
        assert lisbon is not None
        assert sorted(t.lower() for t in lisbon.highlighted_texts()) == ["maya", "maya"]
        # The exports work on it as on any memory.
        window.export_json(tmp_path / "result.json")
        exported = json.loads((tmp_path / "result.json").read_text("utf-8"))
        assert maya in {e["id"] for e in exported["result"]["kg_entities"]}
        window.graph_view.export_svg(tmp_path / "graph.svg")
        assert "Maya" in (tmp_path / "graph.svg").read_text("utf-8")
    finally:
        close_window(qloop, window)


def test_file_open_graphiti_memory_lists_the_graphs_and_switches_to_one(
    qloop: asyncio.AbstractEventLoop,
    qtbot: Any,
    graphiti_dir: Path,
    graphiti: GraphitiFixture,
    settings_store: Any,
) -> None:
    from explorer.gui.graphiti_dialog import GraphitiDialog

    own = Settings(data_dir=graphiti_dir, load_demo=False, file=graphiti_dir / "settings.toml")
    window = _window(qtbot, own, settings_store)
    try:
        assert window.memory_actions.overview.chunks == 0
        action = next(a for a in window.file_menu.actions() if a.text() == "Open &graphiti memory…")
        action.trigger()
        dialog = window.memory_actions.dialog
        assert isinstance(dialog, GraphitiDialog)
        qtbot.waitUntil(lambda: dialog.status.text().startswith(("✔", "✘")), timeout=30_000)
        listed = [dialog.graphs.itemText(i) for i in range(dialog.graphs.count())]
        assert listed == [graphiti.graph]  # the explorer's own graph there is not offered
        dialog._on_open()
        qtbot.waitUntil(
            lambda: (
                window.bridge.opened
                and window.memory_actions.overview is not None
                and window.memory_actions.overview.chunks == 4
            ),
            timeout=60_000,
        )
        assert window.bridge.settings.graphiti_graph == graphiti.graph
        assert "graphiti graph" in window.windowTitle()
        recent = window.memory_actions.recent_menu.actions()
        assert recent and recent[0].text().startswith("graphiti “agent_memory”")
    finally:
        close_window(qloop, window)


def test_a_screenshot_can_select_an_entity(
    qloop: asyncio.AbstractEventLoop,
    qtbot: Any,
    graphiti_dir: Path,
    graphiti: GraphitiFixture,
    settings_store: Any,
    tmp_path: Path,
) -> None:
    from PySide6.QtGui import QImage

    from explorer.gui.screenshot import capture

    settings = Settings(data_dir=graphiti_dir, graphiti_graph=graphiti.graph)
    window = _window(qtbot, settings, settings_store)
    try:
        out = tmp_path / "shot.png"
        run(qloop, capture(window, out, "Where does Maya live?", select="maya"))
        assert window.inspector.entity_id == graphiti.entities["Maya"]
        assert "Maya lives in Berlin" in window.inspector.toPlainText()
        assert not QImage(str(out)).isNull()
        with pytest.raises(RuntimeError, match="no entity called 'Nobody'"):
            run(qloop, capture(window, tmp_path / "none.png", select="Nobody"))
    finally:
        close_window(qloop, window)


def test_a_graph_that_is_not_there_is_named_in_the_window(
    qloop: asyncio.AbstractEventLoop,
    qtbot: Any,
    graphiti_dir: Path,
    graphiti: GraphitiFixture,
    settings_store: Any,
) -> None:
    settings = Settings(data_dir=graphiti_dir, graphiti_graph="nothing_here")
    bridge = ServiceBridge(settings, services=SERVICES, poll_interval=0.3)
    window = make_window(bridge, settings_store)
    try:
        with qtbot.waitSignal(bridge.memory_failed, timeout=60_000) as failed:
            bridge.open()
        message = failed.args[0]
        assert "there is no graph 'nothing_here'" in message and graphiti.graph in message
        assert window.errors and window.errors[-1] == ("Memory unavailable", message)
    finally:
        close_window(qloop, window)
