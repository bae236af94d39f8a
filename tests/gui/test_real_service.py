"""The explorer window over the real service: embedded FalkorDB and PostgreSQL with the demo memory.

Type a query and see nodes and chunks; expand and undo; select an entity and see its exact
mention spans; hover a chunk and see its entities light up; stop FalkorDB and see the banner while
the chunks stay (and the graph come back by itself); take a screenshot; close the window in the
middle of a query and leave no server and no pending task behind.
"""

from __future__ import annotations

import asyncio
import gc
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import psutil
import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QImage
from PySide6.QtWidgets import QApplication

from explorer.compose import SERVICES
from explorer.core.models import WEAK_RELATIONS
from explorer.gui.bridge import ServiceBridge
from explorer.gui.graph_items import edge_caption
from explorer.gui.screenshot import capture
from explorer.gui.service_thread import LoopProxy
from explorer.memory import StoreMemoryService
from tests.gui.conftest import LoopErrors, make_window, run, wait, wait_for_answer
from tests.gui.links import click_link

QUERY = "Where does Maya live?"
ROOT = Path(__file__).resolve().parents[2]


def _ask(qtbot: Any, window: Any, text: str = QUERY) -> Any:
    token = window.run_query(text)
    wait_for_answer(qtbot, window, token, 120_000)
    return window.outcome


def test_typing_a_query_fills_graph_and_chunk_list(qtbot: Any, window: Any) -> None:
    editor = window.query_bar.query_editor
    editor.setFocus()
    qtbot.keyClicks(editor, QUERY)
    qtbot.keyClick(editor, Qt.Key.Key_Return)
    qtbot.waitUntil(
        lambda: window.outcome is not None and not window.graph_view.is_layout_pending(),
        timeout=120_000,
    )
    result = window.outcome.answer.to_json_dict()
    assert result["success"] and "kg_error" not in result and "chunks_error" not in result
    assert result["kg_entities"] and result["chunks"]
    nodes = set(window.graph_view.node_ids)
    assert {e["id"] for e in result["kg_entities"]} <= nodes
    assert len(nodes) > len(result["kg_entities"])  # neighbours too
    assert window.chunk_list.chunk_ids() == [c["id"] for c in result["chunks"]]
    assert all(card.text for card in window.chunk_list.cards)
    assert "total" in window.timings_label.text()
    assert not window.graph_banner.isVisible() and not window.chunks_banner.isVisible()
    assert window.query_bar.domain.count() > 1  # filled from the store's domains


def test_the_window_warms_the_search_indexes_once_the_memory_is_ready(
    qtbot: Any, window: Any, memory: Any
) -> None:
    task = window.bridge._latest.get("warm")
    assert task is not None, "no warm-up was started after opening"
    qtbot.waitUntil(task.done, timeout=120_000)
    assert not task.cancelled() and task.exception() is None
    assert memory.proxied.lexical_index.builds > 0


def test_expand_a_node_then_undo_and_redo(qtbot: Any, window: Any) -> None:
    outcome = _ask(qtbot, window)
    view = window.graph_view
    before = set(view.node_ids)
    # A result entity with relations not yet drawn grows when expanded.
    candidates = [
        e["id"]
        for e in outcome.answer.to_json_dict()["kg_entities"]
        if view.state.hidden_relations(e["id"]) > 0
    ]
    assert candidates, "the demo memory should have an entity with undrawn relations"
    target = candidates[0]
    positions = {n: view.state.positions[n] for n in before}
    view.expand(target)
    qtbot.waitUntil(lambda: set(view.node_ids) > before, timeout=60_000)
    grown = set(view.node_ids)
    assert all(view.state.nodes[n].parent == target for n in grown - before)
    assert all(view.state.positions[n] == positions[n] for n in before)  # nothing jumped
    new_points = [view.state.positions[n] for n in grown - before]
    parent_point = view.state.positions[target]
    spread = max(abs(p[0] - parent_point[0]) + abs(p[1] - parent_point[1]) for p in new_points)
    assert spread < 2000
    qtbot.keyClick(window, Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier)
    assert set(view.node_ids) == before
    qtbot.keyClick(
        window,
        Qt.Key.Key_Z,
        Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.ShiftModifier,
    )
    assert set(view.node_ids) == grown


def test_selecting_an_entity_highlights_its_exact_mention_spans(
    qloop: asyncio.AbstractEventLoop, qtbot: Any, window: Any, memory: Any
) -> None:
    outcome = _ask(qtbot, window)
    entity = next(e for e in outcome.answer.to_json_dict()["kg_entities"] if e.get("provenance"))
    stored = run(qloop, memory.graph.get_entities([entity["id"]]))[0]
    window.graph_view.select_entity(entity["id"])
    chunks = window.chunk_list
    qtbot.waitUntil(
        lambda: (
            chunks.mode == "mentions" and chunks.entity_id == entity["id"] and bool(chunks.cards)
        ),
        timeout=60_000,
    )
    # The answer fetched from the store replaces the first listing; wait for it to settle.
    qtbot.waitUntil(lambda: window.inspector.entity_id == entity["id"], timeout=60_000)
    wait(0.5)
    spans: dict[str, list[tuple[int, int]]] = {}
    for mention in stored.mentions:
        spans.setdefault(mention.chunk_id, []).append((mention.start, mention.end))
    assert chunks.cards
    # The turns that name it come first; a speaker's own turns follow them, unhighlighted.
    named = [card for card in chunks.cards if card.chunk_id in spans]
    assert named and chunks.cards[: len(named)] == named
    if len(named) < len(chunks.cards):
        assert "turns they said" in chunks.title.text()
    for card in named:
        expected = [card.text[s:e] for s, e in sorted(spans[card.chunk_id])]
        assert sorted(card.highlighted_texts()) == sorted(expected)
        assert all(text.strip() for text in expected)
        assert "ffd54f" in card.body.text()
    total = len({m.chunk_id for m in stored.mentions})
    assert f"of {total} chunk" in chunks.title.text()
    if total > len(named):
        chunks.more_button.click()
        qtbot.waitUntil(
            lambda: sum(card.chunk_id in spans for card in chunks.cards) == min(total, 500),
            timeout=60_000,
        )
    assert entity["name"] in window.inspector.toPlainText()


def test_hovering_a_chunk_lights_up_the_entities_it_mentions(qtbot: Any, window: Any) -> None:
    outcome = _ask(qtbot, window)
    view = window.graph_view
    on_screen = set(view.node_ids)
    chunk_id, entities = next(
        (cid, set(ents) & on_screen)
        for cid, ents in outcome.entities_by_chunk.items()
        if set(ents) & on_screen
    )
    card = window.chunk_list.card(chunk_id)
    assert card is not None
    window.chunk_list.hover_chunk(chunk_id)
    assert view.highlighted_ids() == entities
    for node_id in entities:
        item = view.node_item(node_id)
        assert item is not None and item.highlighted and item.label_shown()
    window.chunk_list._on_card_hovered(chunk_id, False)
    assert view.highlighted_ids() == set()
    # And back: hovering an entity marks the chunks that mention it.
    node = next(iter(entities))
    view._on_node_hovered(node, True)
    assert chunk_id in window.chunk_list.linked_ids()
    view._on_node_hovered(node, False)


def _falkordb(memory: Any) -> psutil.Process:
    pid = memory.servers.falkordb_pid()
    assert pid is not None, "FalkorDB should be running"
    return psutil.Process(pid)


def test_stopping_falkordb_shows_the_banner_keeps_chunks_and_recovers(
    qloop: asyncio.AbstractEventLoop, qtbot: Any, window: Any, memory: Any
) -> None:
    healthy = _ask(qtbot, window)
    assert healthy.answer.to_json_dict()["kg_entities"]
    # The memory restarts a server that died; hold that back while the outage is looked at.
    memory.supervision.update(next_try=time.monotonic() + 3600, why="(held by the test)")
    server = _falkordb(memory)
    server.send_signal(signal.SIGTERM)
    server.wait(30)
    try:
        outcome = _ask(qtbot, window)
        assert outcome.kg_error
        assert not outcome.chunks_error
        assert window.graph_banner.isVisible()
        assert "knowledge graph" in window.graph_banner.text().lower()
        assert not window.chunks_banner.isVisible()
        assert window.chunk_list.chunk_ids() == [
            c["id"] for c in outcome.answer.to_json_dict()["chunks"]
        ]
        assert window.chunk_list.cards
        assert "●" in window.graph_status.text()
        assert "d93025" in window.graph_status.text() or "f29900" in window.graph_status.text()
    finally:
        memory.supervision.clear()
    # Recovery is automatic: the memory restarts the server, the bridge polls health and runs
    # the query again.
    qtbot.waitUntil(
        lambda: (
            window.outcome.token != outcome.token
            and not window.outcome.kg_error
            and not window.graph_banner.isVisible()
        ),
        timeout=60_000,
    )
    assert window.outcome.answer.to_json_dict()["kg_entities"]
    assert window.graph_view.node_ids


def test_screenshot_of_the_window_after_a_query(
    qloop: asyncio.AbstractEventLoop, window: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    process_events = QApplication.processEvents
    nested: list[str] = []

    def watched(*args: Any) -> None:
        # Spun inside a task of the loop, a nested event loop can wake another of its tasks
        # mid-step: a screenshot run once aborted that way.
        task = asyncio.current_task(qloop) if qloop.is_running() else None
        if task is not None:
            nested.append(task.get_name())
        process_events(*args)

    monkeypatch.setattr(QApplication, "processEvents", staticmethod(watched))
    out = run(qloop, capture(window, tmp_path / "shot.png", QUERY), 180)
    assert not nested, f"a task spun a nested event loop: {nested}"
    _assert_not_blank(out, minimum=(1000, 600))
    assert window.graph_view.node_ids


def test_screenshot_command_in_its_own_process(memory_settings: Any, tmp_path: Path) -> None:
    """``run_screenshot`` as the CLI calls it; the servers are already up, so it reuses them."""
    out = tmp_path / "cli.png"
    script = (
        "import sys; from pathlib import Path; from explorer.settings import Settings;"
        "from explorer.app import run_screenshot;"
        f"sys.exit(run_screenshot(Path({str(out)!r}), [{QUERY!r}], (1200, 800),"
        f" Settings(data_dir=Path({str(memory_settings.data_dir)!r}), load_demo=False)))"
    )
    env = {k: v for k, v in os.environ.items() if k != "DISPLAY"}
    env.pop("QT_QPA_PLATFORM", None)  # the command must pick offscreen by itself
    done = subprocess.run(
        [sys.executable, "-W", "error", "-c", script],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    _assert_not_blank(out, minimum=(1200, 800))


def _assert_not_blank(path: Path, minimum: tuple[int, int]) -> None:
    image = QImage(str(path))
    assert not image.isNull()
    assert image.width() >= minimum[0] and image.height() >= minimum[1]
    colours = {
        image.pixel(x, y) for x in range(0, image.width(), 11) for y in range(0, image.height(), 11)
    }
    assert len(colours) > 20, "the screenshot looks blank"


def test_closing_during_a_query_leaves_no_server_and_no_pending_task(
    qloop: asyncio.AbstractEventLoop,
    qtbot: Any,
    tmp_path: Path,
    settings_store: Any,
    loop_errors: LoopErrors,
) -> None:
    from explorer.settings import Settings

    settings = Settings(data_dir=tmp_path / "own", load_demo=True, start_timeout=120.0)
    bridge = ServiceBridge(settings, services=SERVICES)
    window = make_window(bridge, settings_store)
    bridge.open()
    assert window.isVisible()  # the window is up while the stores start
    qtbot.waitUntil(lambda: bridge.opened or bridge.is_closed, timeout=600_000)
    assert bridge.opened, window.errors
    # The bridge holds the memory through its service thread's proxy.
    proxy = bridge.memory
    assert isinstance(proxy, LoopProxy) and isinstance(proxy.proxied, StoreMemoryService)
    servers = proxy.proxied.servers
    assert servers is not None
    pids = [servers.falkordb_pid(), servers.postgres_pid()]
    assert all(pids)
    postgres_children = [p.pid for p in psutil.Process(pids[1]).children(recursive=True)]
    before = len(loop_errors.messages)

    window.run_query(QUERY)
    qtbot.waitUntil(lambda: bridge.busy, timeout=10_000)
    window.close()  # mid-query
    qtbot.waitUntil(lambda: bridge.is_closed, timeout=120_000)
    qtbot.waitUntil(lambda: not window.isVisible(), timeout=10_000)
    assert bridge.pending_tasks() == 0
    assert window.outcome is None  # the query was cancelled, not shown after closing
    gc.collect()
    wait(0.2)
    alive = [pid for pid in pids + postgres_children if _running(pid)]
    assert not alive, f"server processes left running: {alive}"
    destroyed = [m for m in loop_errors.messages[before:] if "destroyed but it is pending" in m]
    assert not destroyed, destroyed
    window.deleteLater()


def _running(pid: int) -> bool:
    try:
        return bool(psutil.Process(pid).status() != psutil.STATUS_ZOMBIE)
    except psutil.NoSuchProcess:
        return False


def test_screenshot_size_is_parsed() -> None:
    from explorer.gui.screenshot import parse_size

    assert parse_size("1400x860") == (1400, 860)
    assert parse_size(None) == (1400, 860)
    for bad in ("big", "10x10", "1400x"):
        with pytest.raises(ValueError):
            parse_size(bad)


def test_run_app_opens_the_stores_and_stops_them_on_sigterm(tmp_path: Path) -> None:
    """The app as the launcher runs it: embedded servers started in the background, then a
    SIGTERM closes the window, the memory and the servers, and the process exits 0."""
    from explorer.adapters.embedded import EmbeddedServers

    data_dir = tmp_path / "app-data"
    script = (
        "import sys; from pathlib import Path; from explorer.settings import Settings;"
        "from explorer.app import run_app;"
        f"sys.exit(run_app(Settings(data_dir=Path({str(data_dir)!r}), load_demo=False)))"
    )
    env = {k: v for k, v in os.environ.items() if k not in ("DISPLAY", "QT_QPA_PLATFORM")}
    env["XDG_CONFIG_HOME"] = str(tmp_path / "config")  # QSettings stays out of the user's home
    process = subprocess.Popen(
        [sys.executable, "-W", "error", "-c", script],
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    servers = EmbeddedServers(data_dir)
    try:
        deadline = time.monotonic() + 300
        while not all(status.running for status in servers.status()):
            assert process.poll() is None, process.communicate()[0]
            assert time.monotonic() < deadline, "the app did not start its servers"
            time.sleep(0.2)
        pids = [servers.falkordb_pid(), servers.postgres_pid()]
        time.sleep(2.0)  # let the window finish opening the memory
        process.send_signal(signal.SIGTERM)
        output, _ = process.communicate(timeout=120)
    finally:
        if process.poll() is None:
            process.kill()
            process.communicate()
            servers.stop()
    assert process.returncode == 0, output
    assert not any(status.running for status in servers.status())
    assert not [pid for pid in pids if pid is not None and _running(pid)]
    assert "destroyed but it is pending" not in output
    assert "Traceback" not in output, output


def test_a_frozen_graph_shows_the_chunks_at_once(
    qloop: asyncio.AbstractEventLoop, qtbot: Any, window: Any, memory: Any
) -> None:
    from explorer.gui.query_run import PREVIEW_AFTER

    _ask(qtbot, window)  # warm: the first query builds the search indexes
    previews: list[Any] = []
    window.bridge.query_preview.connect(previews.append)
    server = _falkordb(memory)
    server.suspend()
    try:
        started = time.monotonic()
        token = window.run_query("Where does Maya live?")
        qtbot.waitUntil(lambda: bool(previews), timeout=8_000)
        shown_after = time.monotonic() - started
        assert window.outcome is None or window.outcome.token != token  # still waiting
        chunks = previews[-1].answer.to_json_dict()["chunks"]
        assert chunks and window.chunk_list.chunk_ids() == [c["id"] for c in chunks]
        assert "still answering" in window.chunk_list.title.text()
        assert shown_after < PREVIEW_AFTER + 5.0
    finally:
        server.resume()
        window.bridge.query_preview.disconnect(previews.append)
    wait_for_answer(qtbot, window, token, 60_000)
    assert window.outcome.token == token and window.outcome.answer.to_json_dict()["chunks"]


def test_the_window_draws_what_the_agent_receives(qtbot: Any, window: Any) -> None:
    outcome = _ask(qtbot, window)
    body = outcome.answer.to_json_dict()
    entities, chunks = body["kg_entities"], body["chunks"]
    assert [(e.id, e.score, e.layer, e.source) for e in outcome.entities] == [
        (e["id"], e["score"], e["layer"], e["source"]) for e in entities
    ]
    assert [(e.entity.name, list(e.entity.aliases)) for e in outcome.entities] == [
        (e["name"], e["aliases"]) for e in entities
    ]
    assert [len(e.entity.mentions) for e in outcome.entities] == [
        e["provenance_count"] for e in entities
    ]
    assert [[n.relation.id for n in e.neighbours] for e in outcome.entities] == [
        [r["id"] for r in e["relationships"]] for e in entities
    ]
    assert [(c.id, c.score, c.layer, c.source) for c in outcome.chunks] == [
        (c["id"], c["score"], c["layer"], c["source"]) for c in chunks
    ]
    assert [c.credit is not None for c in outcome.chunks] == [
        c["activation_credit"] is not None for c in chunks
    ]


def test_an_alias_shows_its_evidence_detaching_undoes_the_merge_and_allow_again_forgets_it(
    qloop: asyncio.AbstractEventLoop, qtbot: Any, window: Any, memory: Any
) -> None:
    salient = run(qloop, memory.graph.most_salient(500))
    merged = next((e for e in salient if e.alias_evidence), None)
    assert merged is not None, "the demo memory should link a name with evidence"
    evidence = merged.alias_evidence[0]
    inspector = window.inspector
    window._on_inspector_entity_activated(merged.id)
    qtbot.waitUntil(lambda: evidence.alias in inspector.alias_reasons(), timeout=60_000)
    assert inspector.alias_reasons()[evidence.alias][0] == evidence.reason
    assert evidence.reason in inspector.toPlainText()
    if evidence.chunk_id:
        assert evidence.chunk_id in inspector.link_targets("chunk")
    try:
        assert click_link(qtbot, inspector, "detach", evidence.alias) == "detach"
        qtbot.waitUntil(lambda: evidence.alias not in inspector.alias_reasons(), timeout=60_000)
        assert inspector.entity_id == merged.id and f"Detached “{evidence.alias}”" in (
            inspector.toPlainText()
        )
        qtbot.waitUntil(lambda: "Detached by you" in inspector.toPlainText(), timeout=60_000)
        stored = run(qloop, memory.graph.get_entities([merged.id]))[0]
        folded = evidence.alias.casefold()
        assert folded not in {a.casefold() for a in stored.aliases}
        assert all(e.alias.casefold() != folded for e in stored.alias_evidence)
        assert folded in {a.casefold() for a in stored.refused_aliases}
        # "allow again" beside the detached name forgets the refusal, in the store and on screen.
        assert click_link(qtbot, inspector, "allow", stored.refused_aliases[0]) == "allow again"
        qtbot.waitUntil(lambda: "Detached by you" not in inspector.toPlainText(), timeout=60_000)
        assert "no longer kept apart" in inspector.note
        stored = run(qloop, memory.graph.get_entities([merged.id]))[0]
        assert folded not in {a.casefold() for a in stored.refused_aliases}
        assert folded not in {a.casefold() for a in stored.aliases}
    finally:
        # The demo memory is shared by the GUI tests: put the merge back as it was.
        run(qloop, memory.graph.allow_alias(merged.id, evidence.alias))
        run(qloop, memory.graph.upsert([merged], []))
    restored = run(qloop, memory.graph.get_entities([merged.id]))[0]
    assert evidence.alias in restored.aliases


def test_weak_signals_are_drawn_apart_from_facts_and_can_be_hidden(qtbot: Any, window: Any) -> None:
    _ask(qtbot, window)
    view = window.graph_view
    state = view.state
    weak = {e.type for e in state.edges.values() if e.type in WEAK_RELATIONS}
    assert weak, "the demo answer should hold co-occurrences or mentions"
    groups = view.edge_groups()
    weak_only = [p for p, edges in groups.items() if all(e.type in WEAK_RELATIONS for e in edges)]
    assert weak_only and not view._edge_layers[-1].path().isEmpty()
    # Never a fact caption, in the hover or on the line.
    for pair in weak_only:
        assert edge_caption(groups[pair]) == ""
        assert "came up together" in view.pair_tooltip(groups[pair][0])
    hub = max(state.nodes, key=lambda n: sum(e.type in WEAK_RELATIONS for e in state.edges_of(n)))
    window._on_inspector_entity_activated(hub)
    qtbot.waitUntil(lambda: window.inspector.entity_id == hub, timeout=30_000)
    text = window.inspector.toPlainText()
    assert "Came up together" in text and not any(f" {t} " in text for t in weak)
    # The Relations filter names them and hides them.
    labels = [a.text() for a in window.graph_filter.menus["relation"].actions()]
    assert any("came up together" in label for label in labels)
    for kind in weak:
        view.set_filter_value("relation", kind, False)
    assert all(any(e.type not in WEAK_RELATIONS for e in es) for es in view.edge_groups().values())
    assert view._edge_layers[-1].path().isEmpty()
    for kind in weak:
        view.set_filter_value("relation", kind, True)


def test_the_names_the_graph_gave_in_answer_are_highlighted_and_said(
    qtbot: Any, window: Any
) -> None:
    # The demo's first turn about Halvorsen Logistics says no word of the question: it is
    # recalled and highlighted because the graph's WORKS_AT fact of Maya names it.
    outcome = _ask(qtbot, window, "Where does Maya work?")
    answers = [(a.named, a.kind, a.answer) for a in outcome.answer.answers]
    assert ("Maya Okafor", "WORKS_AT", "Halvorsen Logistics") in answers
    cards = [card for card in window.chunk_list.cards if "Halvorsen Logistics" in card.text]
    assert cards, [card.text[:60] for card in window.chunk_list.cards]
    assert 'background-color:#c8e6c9;color:#000">Halvorsen</span>' in cards[0].body.text()
    tally = window.trace.hits.tally.text()
    assert "<b>Halvorsen Logistics</b> (WORKS_AT of Maya Okafor)" in tally
