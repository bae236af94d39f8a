"""Forgetting a scope removes it, and every scope below it, from both halves (real stores).

The caches a query builds (the BM25 index, the graph's shape, the concept scan) must not serve
what was forgotten, the sibling scopes must answer as before, and the root is never forgotten
by naming it.
"""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime
from pathlib import Path

import pytest

from explorer.adapters.falkor import store as falkor_store
from explorer.cli import main
from explorer.compose import open_memory
from explorer.core.errors import InvalidArgument, MemoryBusy
from explorer.core.policy import preset
from explorer.core.scour import ScourRequest, ScourResult
from explorer.ingest.pipeline import ingest_turns
from explorer.settings import Settings, load_settings
from tests.turns import chat_turns

START = datetime(2026, 5, 1, 9, tzinfo=UTC)
FORGOTTEN = "friends/ana"
BELOW = "friends/ana/trips"
KEPT = "friends/bob"
ANA = [
    ("Ana", "We booked the Lisbon trip for May, flights are sorted."),
    ("Marta", "Lovely! Lisbon in May is perfect. My friend Rui runs a guesthouse in Alfama."),
]
TRIPS = [("Ana", "Rui says the Alfama guesthouse has a room for the Lisbon trip.")]
BOB = [
    ("Bob", "Our Lisbon trip is in June, Carl booked the hotel."),
    ("Carl", "Yes, the Lisbon hotel is near the river."),
]
REQUEST = ScourRequest(query="Lisbon trip guesthouse Rui", scope="", n_chunks=8, kg_top_k=8)


def _scopes(result: ScourResult) -> set[str]:
    return {m.candidate.scope for m in (*result.chunks, *result.entities)}


def _inside(scope: str) -> bool:
    return scope == FORGOTTEN or scope.startswith(FORGOTTEN + "/")


async def test_a_forgotten_scope_is_gone_from_both_halves_and_its_siblings_stay(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(falkor_store, "FORGET_BATCH", 2)  # several deletes, as a big scope takes
    settings = Settings(data_dir=tmp_path / "data", load_demo=False)
    async with open_memory(settings) as memory:
        for scope, lines in ((FORGOTTEN, ANA), (BELOW, TRIPS), (KEPT, BOB)):
            report = await ingest_turns(memory, chat_turns(scope, scope, lines, START))
            assert report.ok
        await memory.settle()
        before = await memory.scour(REQUEST, preset("full"))
        assert any(_inside(scope) for scope in _scopes(before))  # the caches hold it now

        forgotten = await memory.forget_scope(FORGOTTEN + "/")
        assert forgotten.scope == FORGOTTEN
        assert forgotten.chunks == len(ANA) + len(TRIPS)
        assert forgotten.entities > 0 and forgotten.concepts > 0

        await memory.settle()
        after = await memory.scour(REQUEST, preset("full"))
        assert after.chunks and not any(_inside(scope) for scope in _scopes(after))
        assert KEPT in _scopes(after)
        assert memory.graph is not None and memory.chunks is not None
        assert memory.concepts is not None
        graph_counts, chunk_counts = await memory.graph.counts(), await memory.chunks.counts()
        assert chunk_counts["chunks"] == len(BOB)
        assert not [key for key in (*graph_counts, *chunk_counts) if "friends/ana" in key]
        assert f"scope:{KEPT}" in graph_counts
        assert not [agent for agent in await memory.concepts.agents() if _inside(agent)]
        # Every source left is still some entity's.
        assert graph_counts["sources"] == len(await _mentioned_chunks(memory.graph))

        again = await memory.forget_scope(FORGOTTEN)
        assert (again.chunks, again.entities, again.concepts) == (0, 0, 0)
        with pytest.raises(InvalidArgument, match="root scope"):
            await memory.forget_scope(" / ")
        async with memory._writing:  # an import is running
            with pytest.raises(MemoryBusy, match="import"):
                await memory.forget_scope(KEPT)
        with pytest.raises(InvalidArgument, match=r"'\.\.'"):
            await memory.forget_scope("friends/../bob")
        assert (await memory.chunks.counts())["chunks"] == len(BOB)


async def _mentioned_chunks(graph: object) -> list[str]:
    conn = graph._conn  # type: ignore[attr-defined]
    rows = await conn.read("MATCH (:Entity)-[:MENTIONED_IN]->(s:Source) RETURN DISTINCT s.id", {})
    return [str(row[0]) for row in rows]


def test_the_cli_says_what_would_go_then_forgets_and_an_emptied_memory_stays_empty(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data = tmp_path / "data"
    settings = load_settings(overrides={"data_dir": data})
    assert settings.load_demo  # the default: the demo goes into an empty memory

    async def arrange() -> None:
        async with open_memory(settings) as memory:
            assert (await ingest_turns(memory, chat_turns(KEPT, "bob", BOB, START))).ok

    asyncio.run(arrange())
    assert main(["--data-dir", str(data), "forget", "friends"]) == 1
    said = capsys.readouterr().out
    assert f"{KEPT}: 2 chunks" in said and "--yes" in said
    assert main(["--data-dir", str(data), "forget", " friends/ ", "--yes"]) == 0
    assert "forgot 'friends': 2 chunks" in capsys.readouterr().out
    assert main(["--data-dir", str(data), "forget", "friends", "--yes"]) == 1
    assert "nothing is stored under 'friends'" in capsys.readouterr().err
    # The emptied memory stays empty: a query (which loads the demo into an empty memory) does
    # not bring the demo in, until it is asked for by name.
    main(["--data-dir", str(data), "query", "Lisbon"])
    capsys.readouterr()
    assert main(["--data-dir", str(data), "stats", "--json"]) == 0
    assert '"chunks": 0' in capsys.readouterr().out
    assert main(["--data-dir", str(data), "forget", ""]) == 2
    assert "root scope" in capsys.readouterr().err
