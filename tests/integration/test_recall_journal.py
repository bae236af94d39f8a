"""The recall journal on the real PostgreSQL: every call through the tool contract is kept with
enough to rebuild its trace, refused calls included, within its bounds and without secrets."""

from __future__ import annotations

import json
import uuid
from collections.abc import AsyncIterator
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import asyncpg
import pytest

from explorer.adapters.embedded import EmbeddedServers
from explorer.adapters.postgres.journal import PgRecallJournal
from explorer.compose import open_memory
from explorer.core.errors import InvalidArgument
from explorer.core.journal import RecallCall
from explorer.memory import StoreMemoryService
from explorer.settings import Settings
from explorer.tools import CORE_MEMORY, ToolContext, execute_tool
from tests.stores import drop_schema

SECRET = "sk-journal-test-" + uuid.uuid4().hex


@pytest.fixture(scope="module")
async def memory(demo_dir: Path) -> AsyncIterator[StoreMemoryService]:
    settings = Settings(data_dir=demo_dir, gemini_api_key=SECRET)
    async with open_memory(settings) as opened:
        assert opened.journal is not None, opened.errors
        yield opened


def _caller() -> str:
    return f"agent-{uuid.uuid4().hex[:8]}"


async def _calls_of(memory: StoreMemoryService, caller: str) -> list[Any]:
    assert memory.journal is not None
    return [s for s in await memory.journal.recent(limit=1000) if s.caller == caller]


async def test_a_tool_call_is_journaled_with_its_trace(memory: StoreMemoryService) -> None:
    caller = _caller()
    ctx = ToolContext(user_id=caller, privileges=CORE_MEMORY, memory=memory)
    arguments = {"query": "Who recommended the builder Maya hired?", "n_chunks": 4}
    before = datetime.now(UTC)
    answer = json.loads(await execute_tool("scour", arguments, ctx))
    [summary] = await _calls_of(memory, caller)
    assert before <= summary.at <= datetime.now(UTC)
    assert summary.query == arguments["query"] and summary.success
    assert summary.kg_count == answer["kg_count"] and summary.chunk_count == 4
    assert memory.journal is not None
    call = await memory.journal.get(summary.id)
    assert call is not None
    assert call.arguments == {**arguments, "kg_top_k": 5, "domain": None, "temporal": None,
                              "explain": False}  # fmt: skip
    assert call.answer == answer
    case = call.recall_case()
    assert case is not None and case.can_decide
    rebuilt = case.scour_result().to_json_dict()
    assert [e["id"] for e in rebuilt["kg_entities"]] == [e["id"] for e in answer["kg_entities"]]
    assert [c["id"] for c in rebuilt["chunks"]] == [c["id"] for c in answer["chunks"]]
    assert case.result["dropped"] == rebuilt["dropped"]
    assert [s["node"] for s in case.result["activation"]] == [
        s["node"] for s in rebuilt["activation"]
    ]


async def test_refused_calls_are_journaled_without_a_trace(memory: StoreMemoryService) -> None:
    caller = _caller()
    denied = ToolContext(user_id=caller, privileges=0, memory=memory)
    allowed = replace(denied, privileges=CORE_MEMORY)
    await execute_tool("scour", {"query": "Lisbon"}, denied)
    await execute_tool("scour", {"query": "nul\x00byte \ud800"}, allowed)
    await execute_tool("scour", {"query": "Lisbon", "n_chunks": 10**9}, allowed)
    summaries = await _calls_of(memory, caller)
    assert [s.success for s in summaries] == [False, False, False]
    assert "CORE_MEMORY" in str(summaries[0].error)
    assert "NUL" in str(summaries[1].error) and "n_chunks" in str(summaries[2].error)
    assert memory.journal is not None
    stored = [await memory.journal.get(s.id) for s in summaries]
    assert all(call is not None and call.case is None for call in stored)
    assert stored[1] is not None
    kept = stored[1].arguments["query"]
    assert kept.startswith("nul\\x00byte ") and "\x00" not in kept  # stored, NUL escaped


async def test_the_journal_holds_no_secrets(memory: StoreMemoryService, demo_dir: Path) -> None:
    caller = _caller()
    ctx = ToolContext(user_id=caller, privileges=CORE_MEMORY, memory=memory)
    await execute_tool("scour", {"query": "Priya"}, ctx)
    assert memory.servers is not None
    dsn = memory.servers.postgres_dsn
    connection = await asyncpg.connect(dsn)
    try:
        rows = await connection.fetch(
            "SELECT recall_journal::text AS row FROM recall_journal WHERE caller = $1", caller
        )
    finally:
        await connection.close()
    [row] = rows
    assert SECRET not in row["row"]
    assert dsn not in row["row"] and str(demo_dir) not in row["row"]


def _call(index: int, at: datetime) -> RecallCall:
    answer = {"success": True, "query": f"q{index}", "kg_count": 0, "chunk_count": 0}
    return RecallCall(caller="bounds", at=at, arguments={"query": f"q{index}"}, answer=answer)


async def test_the_journal_keeps_the_newest_calls_within_its_days(
    servers: EmbeddedServers, pg_schema: str
) -> None:
    journal = await PgRecallJournal.connect(
        servers.postgres_dsn, schema=pg_schema, keep_calls=3, keep_days=30
    )
    try:
        now = datetime.now(UTC)
        ids = [await journal.record(_call(i, now)) for i in range(5)]
        assert ids == sorted(ids)
        assert [s.query for s in await journal.recent()] == ["q2", "q3", "q4"]
        assert await journal.get(ids[0]) is None
        assert [s.query for s in await journal.recent(after=ids[3])] == ["q4"]
        assert [s.query for s in await journal.recent(limit=2)] == ["q3", "q4"]
        old = await journal.record(_call(5, now - timedelta(days=31)))  # past the days already
        assert await journal.get(old) is None
        assert [s.query for s in await journal.recent()] == ["q2", "q3", "q4"]
        await journal.record(_call(6, now))
        assert [s.query for s in await journal.recent()] == ["q3", "q4", "q6"]
        with pytest.raises(InvalidArgument, match="time zone"):
            await journal.record(_call(7, datetime(2026, 1, 1)))
    finally:
        await journal.aclose()
        await drop_schema(servers.postgres_dsn, pg_schema)
