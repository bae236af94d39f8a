"""The journal's records: arguments kept as sent (made storable), summaries, and the case."""

from __future__ import annotations

import asyncio
import json
import time
from datetime import UTC, datetime
from typing import Any

from explorer.core.journal import MAX_ARGUMENT_CHARS, journal_arguments, recall_call
from explorer.core.policy import RetrievalPolicy
from explorer.core.scour import ScourRequest, scour
from explorer.testing import FakeMemory, sample_memory
from explorer.tools import CORE_MEMORY, ToolContext, execute_tool

AT = datetime(2026, 5, 1, 12, 0, tzinfo=UTC)


class Sneaky(str):
    pass


def test_arguments_are_kept_as_sent_but_storable() -> None:
    kept = journal_arguments(
        {"query": "a\x00b", "n_chunks": True, "kg_top_k": 2.5, "domain": None,
         "temporal": Sneaky("2026"), "long": "x" * 10_000, "odd": {"a": 1}}
    )  # fmt: skip
    assert kept["query"] == "a\\x00b"
    assert kept["n_chunks"] is True and kept["kg_top_k"] == 2.5 and kept["domain"] is None
    assert kept["temporal"] == "<Sneaky>" and kept["odd"] == "<dict>"
    assert len(kept["long"]) == MAX_ARGUMENT_CHARS


def test_a_refused_call_has_its_error_and_no_case() -> None:
    answer = {"success": False, "error": "permission denied", "query": None}
    call = recall_call("guest", AT, {"query": "Lisbon"}, answer)
    summary = call.summary()
    assert call.case is None and call.recall_case() is None
    assert (summary.caller, summary.query, summary.success) == ("guest", "Lisbon", False)
    assert summary.error == "permission denied" and summary.kg_count == 0


async def test_an_answer_carries_a_case_that_decides_again_to_the_same_hits() -> None:
    embedder, chunks, graph, concepts = sample_memory()
    result = await scour(
        ScourRequest(query="Lisbon trip with Marta", scope="acme/ana"),
        graph=graph,
        chunks=chunks,
        concepts=concepts,
        embedder=embedder,
        policy=RetrievalPolicy(),
    )
    full = result.to_json_dict()
    call = recall_call("agent", AT, {"query": "Lisbon trip with Marta"}, full, result)
    summary = call.summary()
    assert summary.success and summary.kg_count == full["kg_count"]
    case = call.recall_case()
    assert case is not None and case.title == "agent: Lisbon trip with Marta"
    assert case.saved_at == AT.isoformat()
    again = case.scour_result().to_json_dict()
    assert [e["id"] for e in again["kg_entities"]] == [e["id"] for e in full["kg_entities"]]
    assert [c["id"] for c in again["chunks"]] == [c["id"] for c in full["chunks"]]


class SlowJournal:
    """Takes each call after ``delay`` seconds, as a journal on a store in trouble would."""

    def __init__(self, delay: float) -> None:
        self.delay = delay
        self.calls: list[Any] = []

    async def record(self, call: Any) -> Any:
        await asyncio.sleep(self.delay)
        self.calls.append(call)
        return call


def _context(journal: SlowJournal) -> ToolContext:
    memory = FakeMemory()
    memory.journal = journal  # type: ignore[attr-defined]
    return ToolContext(user_id="agent", privileges=CORE_MEMORY, memory=memory)


async def test_a_slow_journal_holds_the_answer_back_a_second_at_most_and_still_writes() -> None:
    journal = SlowJournal(2.5)
    began = time.monotonic()
    body = json.loads(await execute_tool("scour", {"query": "Lisbon"}, _context(journal)))
    assert body["success"] is True and time.monotonic() - began < 2.0
    assert journal.calls == []
    await asyncio.sleep(2.0)
    assert [call.arguments["query"] for call in journal.calls] == ["Lisbon"]


async def test_a_count_that_is_no_finite_number_is_refused_and_journaled() -> None:
    journal = SlowJournal(0.0)
    arguments = {"query": "Lisbon", "n_chunks": float("inf")}
    body = json.loads(await execute_tool("scour", arguments, _context(journal)))
    assert body["success"] is False and "n_chunks must be an integer" in body["error"]
    (call,) = journal.calls
    assert call.arguments["n_chunks"] == "inf" and call.success is False
