"""The scour tool's contract over a real embedded FalkorDB and PostgreSQL.

One memory per module, opened through ``open_memory`` on servers of its own (tests here stop and
freeze them), filled with a small conversation set written for these tests.
"""

from __future__ import annotations

import asyncio
import gc
import json
import signal
import time
from collections.abc import AsyncIterator
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import psutil
import pytest

from explorer.compose import open_memory
from explorer.core.models import WEAK_RELATIONS, MemoryLayer
from explorer.core.scour import ScourRequest
from explorer.ingest.importers.base import Turn
from explorer.ingest.pipeline import ingest_turns
from explorer.memory import YOUNG_COLLECTION_THRESHOLD, StoreMemoryService
from explorer.settings import Settings
from explorer.tools import CORE_MEMORY, ToolContext, discover_tools, execute_tool
from explorer.tools.scour import TOOL_NAME, run

SCOPE = "acme/helper/rosa"
START = datetime(2024, 3, 1, 9, 0, tzinfo=UTC)


def _turns() -> list[Turn]:
    """Many hobby turns about the garden and a few finance turns about it, months apart."""
    turns: list[Turn] = []
    for day in range(24):
        when = START + timedelta(days=day)
        turns.append(
            Turn(
                scope=SCOPE,
                conversation_id=f"garden-{day}",
                turn_id=f"g{day}",
                speaker="Rosa",
                text=f"Rosa watered the tomatoes at Elm Road allotment with Marek, day {day}.",
                timestamp=when,
                domains=("hobbies",),
            )
        )
    for index in range(4):
        when = START + timedelta(days=120 + index)
        turns.append(
            Turn(
                scope=SCOPE,
                conversation_id=f"money-{index}",
                turn_id=f"m{index}",
                speaker="Rosa",
                text=f"The allotment fee went up again; budget item {index} for Brightline Bank.",
                timestamp=when,
                domains=("finance",),
            )
        )
    return turns


@pytest.fixture(scope="module")
async def memory(tmp_path_factory: pytest.TempPathFactory) -> AsyncIterator[StoreMemoryService]:
    settings = Settings(data_dir=tmp_path_factory.mktemp("scour-tool"), query_timeout=2.0)
    async with open_memory(settings, stop_servers=True) as opened:
        report = await ingest_turns(opened, _turns())
        assert report.ok
        yield opened


def _ctx(memory: StoreMemoryService, privileges: int = CORE_MEMORY) -> ToolContext:
    return ToolContext(user_id="tester", privileges=privileges, memory=memory, scope=SCOPE)


async def _scour(
    memory: StoreMemoryService, query: str = "tomatoes allotment", **kwargs: Any
) -> dict[str, Any]:
    answer = await run(query, ctx=_ctx(memory), **kwargs)
    parsed: dict[str, Any] = json.loads(answer)
    return parsed


SEED_KEYS = ("success", "query", "kg_entities", "kg_count", "chunks", "chunk_count")
TRACE_KEYS = ("dropped", "activation", "answers", "layers", "sources", "unavailable", "timings_ms")


async def test_the_default_answer_is_compact_with_the_seed_fields(
    memory: StoreMemoryService,
) -> None:
    answer = await _scour(memory, n_chunks=3, kg_top_k=5)
    assert set(SEED_KEYS) <= set(answer)
    assert answer["success"] is True
    assert answer["query"] == "tomatoes allotment"
    assert answer["chunk_count"] == len(answer["chunks"]) == 3
    assert answer["kg_count"] == len(answer["kg_entities"]) > 0
    assert "kg_error" not in answer and "chunks_error" not in answer
    chunk = answer["chunks"][0]
    for key in ("id", "text", "speaker", "timestamp", "conversation_id", "domains", "score"):
        assert key in chunk
    assert "score_breakdown" not in chunk and "activation_credit" not in chunk
    names = {entity["name"] for entity in answer["kg_entities"]}
    assert names & {"Rosa", "Marek", "Elm Road", "Elm Road allotment", "tomatoes"}
    for entity in answer["kg_entities"]:
        for key in ("id", "type", "description", "facts", "provenance", "score"):
            assert key in entity
        assert "score_breakdown" not in entity and "relationships" not in entity
        for span in entity["provenance"]:
            chunk_id, _, rest = span.partition("[")
            start, end = (int(x) for x in rest.rstrip("]").split(":"))
            assert len(chunk_id) > 0 and 0 <= start < end
    # These turns state no typed fact, only names that came up together: no facts to give.
    facts = [fact for entity in answer["kg_entities"] for fact in entity["facts"]]
    assert not any(f" {weak} " in fact for fact in facts for weak in WEAK_RELATIONS), facts
    assert not set(TRACE_KEYS) & set(answer)


async def test_explain_gives_the_full_trace_with_the_same_hits(memory: StoreMemoryService) -> None:
    compact = await _scour(memory, n_chunks=3, kg_top_k=5)
    full = await _scour(memory, n_chunks=3, kg_top_k=5, explain=True)
    assert set(SEED_KEYS) | set(TRACE_KEYS) <= set(full)
    entity = full["kg_entities"][0]
    for key in ("relationships", "provenance", "score_breakdown", "aliases", "salience"):
        assert key in entity
    assert "score_breakdown" in full["chunks"][0] and "activation_credit" in full["chunks"][0]
    assert [e["id"] for e in full["kg_entities"]] == [e["id"] for e in compact["kg_entities"]]
    assert [c["id"] for c in full["chunks"]] == [c["id"] for c in compact["chunks"]]
    assert len(json.dumps(compact, indent=2)) < len(json.dumps(full, indent=2)) / 3


async def test_explain_must_be_a_bool(memory: StoreMemoryService) -> None:
    answer = await _scour(memory, explain="yes")
    assert answer["success"] is False and "explain" in answer["error"]


async def test_each_half_can_be_skipped(memory: StoreMemoryService) -> None:
    no_graph = await _scour(memory, kg_top_k=0)
    assert no_graph["kg_count"] == 0 and no_graph["chunk_count"] == 3
    no_chunks = await _scour(memory, n_chunks=0)
    assert no_chunks["chunk_count"] == 0 and no_chunks["kg_count"] > 0


async def test_domain_filter_runs_inside_the_query(memory: StoreMemoryService) -> None:
    # The three nearest chunks overall are hobby turns; filtering them afterwards would leave none.
    answer = await _scour(memory, "watered the tomatoes with Marek", n_chunks=3, domain="finance")
    assert answer["domain_filter"] == "finance"
    assert answer["chunk_count"] == 3
    assert all("finance" in chunk["domains"] for chunk in answer["chunks"])


async def test_temporal_filter_keeps_entities_with_provenance_in_the_period(
    memory: StoreMemoryService,
) -> None:
    answer = await _scour(memory, "Brightline Bank budget", temporal="2024-07..", explain=True)
    assert answer["temporal_filter"] == "2024-07.."
    assert answer["kg_count"] > 0
    assert "Brightline Bank" in {entity["name"] for entity in answer["kg_entities"]}
    for entity in answer["kg_entities"]:
        # Evidence in the period: a mention there, or (for a speaker) a turn spoken there.
        stamps = [item["timestamp"] for item in entity["provenance"]]
        assert any(stamp >= "2024-07" for stamp in stamps) or entity["last_seen"] >= "2024-07"
    # Marek and Elm Road are only evidenced in March: the period gate drops them.
    plain = await _scour(memory, "Marek Elm Road allotment", temporal="2024-07..")
    assert "Marek" not in {entity["name"] for entity in plain["kg_entities"]}


async def test_bad_temporal_is_a_clear_error() -> None:
    answer = json.loads(await run("x", temporal="last summer", ctx=_ctx(None)))  # type: ignore[arg-type]
    assert answer["success"] is False
    assert "YYYY" in answer["error"]


async def test_missing_context_and_missing_privilege() -> None:
    assert json.loads(await run("tomatoes"))["success"] is False
    denied = json.loads(await run("tomatoes", ctx=_ctx(None, privileges=1)))  # type: ignore[arg-type]
    assert denied["success"] is False
    assert "CORE_MEMORY" in denied["error"]


@pytest.mark.parametrize(
    "arguments",
    [
        {"query": ""},
        {"query": "x" * 100_000},
        {"query": "nul\x00byte"},
        {"query": 42},
        {"query": "ok", "n_chunks": -1},
        {"query": "ok", "n_chunks": 10**9},
        {"query": "ok", "kg_top_k": True},
        {"query": "ok", "n_chunks": "3"},
        {"query": "ok", "domain": "'; DROP TABLE chunks; --"},
    ],
)
async def test_bad_arguments_are_refused_before_any_store(
    memory: StoreMemoryService, arguments: dict[str, Any]
) -> None:
    answer = json.loads(await execute_tool(TOOL_NAME, arguments, _ctx(memory)))
    assert answer["success"] is False
    assert answer["error"]


async def test_registry_discovers_scour_and_refuses_unknown_tools(
    memory: StoreMemoryService,
) -> None:
    assert TOOL_NAME in discover_tools()
    unknown = json.loads(await execute_tool("nope", {}, _ctx(memory)))
    assert unknown["success"] is False
    extra = json.loads(await execute_tool(TOOL_NAME, {"query": "x", "evil": 1}, _ctx(memory)))
    assert "evil" in extra["error"]


class HostileStr(str):
    def __str__(self) -> str:
        return 'x"}) MATCH (n) DETACH DELETE n //'


class HostileInt(int):
    def __str__(self) -> str:
        return "1 MATCH (n) DETACH DELETE n"


async def _counts(memory: StoreMemoryService) -> tuple[int, int, int]:
    assert memory.graph is not None and memory.chunks is not None
    graph = await memory.graph.counts()
    chunks = await memory.chunks.counts()
    return graph["entities"], graph["relations"], chunks["chunks"]


@pytest.mark.parametrize(
    "arguments",
    [
        {"query": 'Rosa"}) MATCH (n) DETACH DELETE n //'},
        {"query": "tomatoes'); DELETE FROM chunks; --"},
        {"query": "tomatoes", "domain": "hobbies' OR '1'='1"},
        {"query": HostileStr("tomatoes")},
        {"query": "tomatoes", "kg_top_k": HostileInt(3)},
        {"query": "tomatoes", "temporal": "2024'..'2025"},
    ],
)
async def test_injection_attempts_leave_the_stores_untouched(
    memory: StoreMemoryService, arguments: dict[str, Any]
) -> None:
    before = await _counts(memory)
    await execute_tool(TOOL_NAME, arguments, _ctx(memory))
    assert await _counts(memory) == before


async def test_a_stopped_graph_store_leaves_the_chunks_answering(
    memory: StoreMemoryService,
) -> None:
    servers = memory.servers
    assert servers is not None
    pid = servers.falkordb_pid()
    assert pid is not None
    process = psutil.Process(pid)
    process.send_signal(signal.SIGTERM)
    process.wait(10)
    try:
        answer = await _scour(memory)
        assert answer["success"] is True
        assert answer["kg_error"]
        assert answer["chunk_count"] == 3
    finally:
        await asyncio.get_running_loop().run_in_executor(None, servers.start)
    healed = await _scour(memory)
    assert "kg_error" not in healed and healed["kg_count"] > 0


async def test_a_frozen_chunk_store_errors_within_its_deadline(memory: StoreMemoryService) -> None:
    assert memory.servers is not None
    pid = memory.servers.postgres_pid()
    assert pid is not None
    server = psutil.Process(pid)
    processes = [server, *server.children(recursive=True)]
    for process in processes:
        process.send_signal(signal.SIGSTOP)
    try:
        started = time.monotonic()
        answer = await _scour(memory)
        elapsed = time.monotonic() - started
    finally:
        for process in processes:
            process.send_signal(signal.SIGCONT)
    assert answer["chunks_error"]
    assert answer["kg_count"] > 0
    # The deadline is 2 s per call; a hang would take the test's own timeout.
    assert elapsed < 10


async def test_a_frozen_graph_store_errors_within_its_deadline(memory: StoreMemoryService) -> None:
    assert memory.servers is not None
    pid = memory.servers.falkordb_pid()
    assert pid is not None
    process = psutil.Process(pid)
    process.send_signal(signal.SIGSTOP)
    try:
        started = time.monotonic()
        answer = await _scour(memory)
        elapsed = time.monotonic() - started
    finally:
        process.send_signal(signal.SIGCONT)
    assert answer["kg_error"]
    assert answer["chunk_count"] == 3
    assert elapsed < 10


async def test_data_survives_a_restart_of_the_embedded_servers(tmp_path: Path) -> None:
    settings = Settings(data_dir=tmp_path / "data")
    async with open_memory(settings, stop_servers=True) as first:
        await ingest_turns(first, _turns()[:3])
        before = await _counts(first)
    async with open_memory(settings, stop_servers=True) as second:
        assert await _counts(second) == before
        answer = json.loads(await run("tomatoes", ctx=_ctx(second)))
        assert answer["chunk_count"] == 3


async def test_entities_found_by_activation_are_shown_in_full(memory: StoreMemoryService) -> None:
    # The spread reads entities lean; what it recalls must still carry every stored field.
    # Full text alone finds Marek, so everyone else in the answer came by activation.
    policy = replace(
        memory.policy,
        enabled_layers=frozenset({MemoryLayer.SEMANTIC}),
        weights=replace(memory.policy.weights, similarity=0.0),
    )
    result = await memory.scour(
        ScourRequest(query="Marek", n_chunks=0, kg_top_k=5, scope=SCOPE), policy
    )
    answer = result.to_json_dict()
    found = [e for e in answer["kg_entities"] if e["source"] == "activation"]
    assert found, "expected the spread to bring neighbours of Marek along"
    assert memory.graph is not None
    stored = {e.id: e for e in await memory.graph.get_entities([e["id"] for e in found])}
    for entity in found:
        full = stored[entity["id"]]
        assert entity["description"] == full.description != ""
        assert entity["aliases"] == list(full.aliases)
        assert entity["domain_concepts"] == list(full.domains)
        assert len(entity["provenance"]) == min(len(full.mentions), 20) > 0


async def test_only_a_cache_build_takes_the_heap_out_of_garbage_collection_and_spaces_young_ones(
    memory: StoreMemoryService,
) -> None:
    request = ScourRequest(query="tomatoes", scope="acme/helper")  # a scope not searched before
    gc.unfreeze()
    default = gc.get_threshold()
    gc.set_threshold(700, *default[1:])
    builds = memory.lexical_index.builds
    await memory.scour(request)
    assert memory.lexical_index.builds > builds
    assert gc.get_freeze_count() > 0
    # Young collections then wait for many more allocations than the default 700.
    assert gc.get_threshold() == (YOUNG_COLLECTION_THRESHOLD, *default[1:])
    await memory.settle()  # the graph's shape, loading in the background, is a build too
    gc.unfreeze()
    await memory.scour(request)  # the same scope again: its index is reused
    assert gc.get_freeze_count() == 0


async def test_warming_builds_what_the_first_query_would(memory: StoreMemoryService) -> None:
    builds = memory.lexical_index.builds
    scope = f"{SCOPE}/warm"  # no other test searches it; its parent holds the turns
    await memory.warm(scope)
    assert memory.lexical_index.builds > builds
    warmed = memory.lexical_index.builds
    answer = await memory.scour(ScourRequest(query="tomatoes", scope=scope))
    assert answer.chunks and memory.lexical_index.builds == warmed


async def test_a_chunk_says_where_its_activation_credit_came_from(
    memory: StoreMemoryService,
) -> None:
    answer = await _scour(memory, "What did Rosa say about the tomatoes?", n_chunks=5, explain=True)
    credited = [c for c in answer["chunks"] if c["activation_credit"] is not None]
    assert credited, "Rosa is named, so her turns should be credited with her energy"
    names = {step["node"]: step["name"] for step in answer["activation"]}
    for chunk in credited:
        credit = chunk["activation_credit"]
        said = credit["said"]
        assert said["by"] == "speaker" and said["name"] == names[said["id"]] == chunk["speaker"]
        assert 0.0 < credit["credit"] <= 1.0
        if credit["next_to"] is not None:
            assert credit["next_to"]["chunk_id"] != chunk["id"]


async def test_connecting_at_once_opens_one_store(
    memory: StoreMemoryService, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A scour's reconnect and a restarted server's can both find the graph half down at once:
    # the second finds it connected, instead of connecting a store that nobody closes.
    made: list[Any] = []

    class Counting:
        def __init__(self, inner: Any) -> None:
            self.inner = inner

        def __getattr__(self, name: str) -> Any:
            return getattr(self.inner, name)

        async def graph(self) -> Any:
            made.append(await self.inner.graph())
            return made[-1]

    monkeypatch.setattr(memory, "connector", Counting(memory.connector))
    old, memory.graph = memory.graph, None
    assert old is not None
    await old.aclose()
    try:
        await asyncio.gather(memory.connect(), memory.connect(), memory.connect())
    finally:
        for store in made:
            if store is not memory.graph:
                await store.aclose()
    assert len(made) == 1 and memory.graph is made[0]
