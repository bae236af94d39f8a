"""The "Agent recalls" feed over the real stores: a call made through the tool contract appears
within 2 s, opens as its recall case with the same entities and chunks, and re-runs against the
current memory."""

from __future__ import annotations

import json
import time
import uuid
from typing import Any

from explorer.tools import CORE_MEMORY, ToolContext, execute_tool
from tests.gui.conftest import run

QUERY = "Who recommended the builder Maya hired?"


def _call(qloop: Any, memory: Any, caller: str, arguments: dict[str, Any]) -> dict[str, Any]:
    ctx = ToolContext(user_id=caller, privileges=CORE_MEMORY, memory=memory)
    answer: dict[str, Any] = json.loads(run(qloop, execute_tool("scour", arguments, ctx)))
    return answer


def _row(feed: Any, caller: str) -> int | None:
    return next((row for row, s in enumerate(feed.summaries) if s.caller == caller), None)


def test_a_tool_call_appears_within_2_s_and_opens_with_its_hits(
    qloop: Any, qtbot: Any, window: Any, memory: Any
) -> None:
    feed = window.recall_feed
    caller = f"agent-{uuid.uuid4().hex[:8]}"
    answer = _call(qloop, memory, caller, {"query": QUERY, "n_chunks": 4})
    assert answer["success"] is True and answer["kg_count"] > 0
    made = time.monotonic()
    qtbot.waitUntil(lambda: _row(feed, caller) is not None, timeout=2_000)
    assert time.monotonic() - made <= 2.0
    row = _row(feed, caller)
    assert row == 0, "the newest call is listed first"
    cells = [feed.table.item(row, column).text() for column in range(len(feed.COLUMNS))]
    assert cells[1:] == [caller, QUERY, str(answer["kg_count"]), "4", ""]

    with qtbot.waitSignal(feed.call_opened, timeout=20_000):
        feed.open_row(row)
    shown = window.outcome.answer.to_json_dict()
    assert [e["id"] for e in shown["kg_entities"]] == [e["id"] for e in answer["kg_entities"]]
    assert [c["id"] for c in shown["chunks"]] == [c["id"] for c in answer["chunks"]]
    assert window.chunk_list.chunk_ids() == [c["id"] for c in answer["chunks"]]
    qtbot.waitUntil(lambda: not window.graph_view.is_layout_pending(), timeout=10_000)
    assert {e["id"] for e in answer["kg_entities"]} <= set(window.graph_view.node_ids)
    trace = window.trace
    assert trace.case is not None and trace.case.can_decide
    assert trace.ledger_dock.model.entries(), "the ledger of the call is shown"
    assert window.outcome.answer.to_json_dict()["activation"], (
        "the activation log is there for the replay"
    )

    trace.last_diff = None
    feed.rerun_button.click()
    qtbot.waitUntil(lambda: trace.last_diff is not None, timeout=30_000)
    # Nothing was written since, so the same hits come back (recency may move a score).
    assert not trace.last_diff.entered and not trace.last_diff.left


def test_a_refused_call_is_listed_with_its_error_and_opens_nothing(
    qloop: Any, qtbot: Any, window: Any, memory: Any
) -> None:
    feed = window.recall_feed
    caller = f"guest-{uuid.uuid4().hex[:8]}"
    ctx = ToolContext(user_id=caller, privileges=0, memory=memory)
    run(qloop, execute_tool("scour", {"query": "Lisbon"}, ctx))
    qtbot.waitUntil(lambda: _row(feed, caller) is not None, timeout=2_000)
    row = _row(feed, caller)
    assert row is not None
    assert "CORE_MEMORY" in feed.table.item(row, 5).text()
    before = window.outcome
    feed.open_row(row)
    qtbot.waitUntil(lambda: "refused" in feed.status.text(), timeout=10_000)
    assert window.outcome is before


def test_the_tab_counts_calls_not_yet_seen(
    qloop: Any, qtbot: Any, window: Any, memory: Any
) -> None:
    feed = window.recall_feed
    bottom = window.trace.bottom
    bottom.show_page(window.trace.ledger_dock)
    qtbot.waitUntil(lambda: feed.visibleRegion().isEmpty(), timeout=2_000)
    caller = f"agent-{uuid.uuid4().hex[:8]}"
    _call(qloop, memory, caller, {"query": "Priya", "n_chunks": 1, "kg_top_k": 1})
    qtbot.waitUntil(lambda: _row(feed, caller) is not None, timeout=2_000)
    assert bottom.page_title(feed).startswith("Agent recalls (")
    bottom.show_page(feed)
    qtbot.waitUntil(lambda: bottom.page_title(feed) == "Agent recalls", timeout=2_000)


def test_opening_another_memory_starts_the_feed_again(
    qloop: Any, qtbot: Any, window: Any, memory: Any
) -> None:
    feed = window.recall_feed
    caller = f"agent-{uuid.uuid4().hex[:8]}"
    _call(qloop, memory, caller, {"query": "Priya", "n_chunks": 1, "kg_top_k": 1})
    qtbot.waitUntil(lambda: _row(feed, caller) is not None, timeout=2_000)
    feed.reset(object())  # as if the rows came from a memory opened before this one
    assert feed.summaries == [] and feed.table.rowCount() == 0
    qtbot.waitUntil(lambda: _row(feed, caller) is not None, timeout=2_000)
    assert feed._memory is window.bridge.memory
