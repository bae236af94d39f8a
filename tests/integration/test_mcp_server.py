"""``scour-explorer mcp`` as a real subprocess, driven by the official SDK's stdio client.

The server runs on the demo memory (its embedded servers shared with the test session); the
caller's identity and privileges come from the environment the server is started with, the way
a desktop MCP client's configuration sets them.
"""

from __future__ import annotations

import json
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any, cast

from mcp.client.session import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client

from explorer.adapters.embedded import EmbeddedServers
from explorer.adapters.postgres.journal import PgRecallJournal
from explorer.core.journal import RecallSummary

COMMAND = str(Path(sys.executable).parent / "scour-explorer")


@asynccontextmanager
async def _client(data_dir: Path, **env: str) -> AsyncIterator[ClientSession]:
    params = StdioServerParameters(
        command=COMMAND, args=["--data-dir", str(data_dir), "mcp"], env=env
    )
    async with (
        stdio_client(params) as (read, write),
        ClientSession(read, write, read_timeout_seconds=120) as session,
    ):
        await session.initialize()
        yield session


async def _journaled(data_dir: Path, caller: str) -> list[RecallSummary]:
    journal = await PgRecallJournal.connect(EmbeddedServers(data_dir).postgres_dsn)
    try:
        return [s for s in await journal.recent(limit=1000) if s.caller == caller]
    finally:
        await journal.aclose()


def _text(result: Any) -> str:
    assert len(result.content) == 1
    text: str = result.content[0].text
    return text


async def test_tools_answer_refuse_bad_arguments_and_stay_up(demo_dir: Path) -> None:
    async with _client(demo_dir, SCOUR_MCP_USER="desk-agent") as session:
        tools = {tool.name: tool for tool in (await session.list_tools()).tools}
        assert set(tools) == {"scour", "memory_stats"}
        schema = tools["scour"].input_schema
        assert set(schema["properties"]) == {
            "query", "n_chunks", "kg_top_k", "domain", "temporal", "explain",
        }  # fmt: skip
        assert schema["required"] == ["query"]
        assert schema["additionalProperties"] is False
        assert schema["properties"]["domain"]["type"] == ["string", "null"]
        assert schema["properties"]["n_chunks"]["default"] == 3
        assert "explain" in (tools["scour"].description or "")

        answer = await session.call_tool("scour", {"query": "Lisbon"})
        assert answer.is_error is False
        body = json.loads(_text(answer))
        assert body["success"] is True and body["kg_count"] > 0 and body["chunk_count"] > 0
        assert len(_text(answer).encode()) <= 8 * 1024
        assert "activation" not in body

        full = await session.call_tool("scour", {"query": "Lisbon", "explain": True})
        assert "activation" in json.loads(_text(full))

        refused = await session.call_tool("scour", {"query": "Lisbon", "n_chunks": -1})
        assert refused.is_error is True
        assert "n_chunks must be within 0..100" in _text(refused)
        for arguments, message in [
            ({"query": "Lisbon", "kg_top_k": "many"}, "kg_top_k must be an integer, not str"),
            ({"query": "Lisbon", "n_chunks": True}, "n_chunks must be an integer, not bool"),
            ({"query": "Lisbon", "n_chunks": 2.0}, "n_chunks must be an integer, not float"),
            ({"query": "Lisbon", "explain": "yes"}, "explain must be true or false"),
            ({"query": "Lisbon", "temporal": "last summer"}, "temporal"),
            ({"query": "Lisbon", "limit": 3}, "unexpected arguments: limit"),
            ({}, "needs the arguments: query"),
        ]:
            refused = await session.call_tool("scour", cast(dict[str, Any], arguments))
            assert refused.is_error is True, arguments
            assert message in json.loads(_text(refused))["error"], arguments
        unknown = await session.call_tool("forget_everything", {})
        assert unknown.is_error is True and "unknown tool" in _text(unknown)

        again = await session.call_tool("scour", {"query": "Priya", "n_chunks": 2})
        assert again.is_error is False
        assert json.loads(_text(again))["chunk_count"] == 2

        stats = await session.call_tool("memory_stats", {})
        assert stats.is_error is False
        figures = json.loads(_text(stats))
        assert figures["chunks"] > 0 and figures["entities"] > 0
        # Every scour call was journaled under the caller the settings name (read while the
        # session is open, so the stores are up whoever started them).
        calls = await _journaled(demo_dir, "desk-agent")
        assert [(c.query, c.success) for c in calls][:2] == [("Lisbon", True), ("Lisbon", True)]
        assert ("Priya", True, 2) in {(c.query, c.success, c.chunk_count) for c in calls}
        # Six were refused by scour itself; the registry refused three before scour ran
        # (unexpected and missing arguments, an unknown tool): not scour calls, not journaled.
        assert sum(not c.success for c in calls) == 6


async def test_a_caller_without_core_memory_gets_the_permission_error(demo_dir: Path) -> None:
    async with _client(demo_dir, SCOUR_MCP_USER="guest", SCOUR_MCP_PRIVILEGES="none") as session:
        denied = await session.call_tool("scour", {"query": "Lisbon"})
        assert denied.is_error is True
        body = json.loads(_text(denied))
        assert body == {
            "success": False,
            "error": "permission denied: scour requires the CORE_MEMORY privilege",
        }
        # The client cannot hand itself a context or privileges.
        smuggled = await session.call_tool(
            "scour", {"query": "Lisbon", "ctx": {"privileges": 2}, "privileges": 2}
        )
        assert smuggled.is_error is True
        assert "unexpected arguments: ctx, privileges" in _text(smuggled)
        stats = await session.call_tool("memory_stats", {})
        assert stats.is_error is True and "CORE_MEMORY" in _text(stats)
        calls = await _journaled(demo_dir, "guest")
        assert calls and all(not c.success and "CORE_MEMORY" in str(c.error) for c in calls)


async def test_a_misspelt_privilege_stops_the_server_with_a_clear_line(
    demo_dir: Path, tmp_path: Path
) -> None:
    import asyncio

    process = await asyncio.create_subprocess_exec(
        COMMAND,
        "--data-dir",
        str(demo_dir),
        "mcp",
        env={"PATH": "", "HOME": str(tmp_path), "SCOUR_MCP_PRIVILEGES": "CORE_MEMROY"},
        stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    out, err = await asyncio.wait_for(process.communicate(b""), 60)
    assert process.returncode == 2
    assert out == b""
    assert "unknown privilege 'CORE_MEMROY'" in err.decode()
