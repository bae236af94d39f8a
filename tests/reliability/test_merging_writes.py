"""Imports merge what they know about a concept instead of the last writer replacing it."""

from __future__ import annotations

import asyncio
import json
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from explorer.compose import open_memory
from explorer.ingest.concepts import concept_agent
from explorer.ingest.importers.base import Turn
from explorer.ingest.pipeline import ingest_turns
from explorer.settings import Settings, load_settings
from tests.reliability.conftest import run_cli, write_settings

SCOPE = "merge/helper/noor"


def _file(conversation: str, day: int) -> list[Turn]:
    start = datetime(2025, 3, 1, 9, tzinfo=UTC) + timedelta(days=day)
    return [
        Turn(
            scope=SCOPE,
            conversation_id=conversation,
            turn_id=f"{conversation}-{i}",
            speaker="Noor",
            text=f"Noor booked a flight to Lisbon with Karim, note {conversation} {i}.",
            timestamp=start + timedelta(minutes=i),
        )
        for i in range(3)
    ]


async def _lisbon(memory: object) -> dict[str, object]:
    concepts = memory.concepts  # type: ignore[attr-defined]
    agent = concept_agent(SCOPE)
    names = [name for name in await concepts.names(agent) if name.startswith("Lisbon")]
    assert names, await concepts.names(agent)
    record: dict[str, object] = json.loads((await concepts.read(agent, names[:1]))[names[0]])
    return record


async def test_a_second_file_adds_its_sources_and_keeps_the_firsts(tmp_path: Path) -> None:
    settings = Settings(data_dir=tmp_path / "data", load_demo=False)
    async with open_memory(settings) as memory:
        assert (await ingest_turns(memory, _file("trip-a", 0))).ok
        first = await _lisbon(memory)
        assert first["sources"] == ["trip-a"]
        assert (await ingest_turns(memory, _file("trip-b", 5))).ok
        both = await _lisbon(memory)
        assert both["sources"] == ["trip-a", "trip-b"]
        assert set(first["provenance"]) < set(both["provenance"])  # type: ignore[call-overload]
        # The same file again adds nothing and loses nothing.
        assert (await ingest_turns(memory, _file("trip-a", 0))).ok
        assert (await _lisbon(memory))["sources"] == ["trip-a", "trip-b"]


def _jsonl(path: Path, name: str, day: int) -> Path:
    lines = [
        json.dumps(
            {
                "conversation_id": f"trip-{name}-{i % 4}",
                "speaker": "Noor",
                "text": f"Noor flew to Lisbon with Karim, note {name}{i}.",
                "timestamp": f"2025-03-{day:02d}T10:{i:02d}:00",
            }
        )
        for i in range(40)
    ]
    path.write_text("\n".join(lines) + "\n")
    return path


@pytest.mark.timeout(240)
async def test_two_overlapping_imports_both_keep_what_they_add(tmp_path: Path) -> None:
    data = tmp_path / "data"
    write_settings(data)
    files = [_jsonl(tmp_path / f"{n}.jsonl", n, day) for n, day in (("a", 1), ("b", 2))]
    args = ["--data-dir", str(data)]
    assert run_cli([*args, "servers", "start"], tmp_path).returncode == 0
    try:
        runs = await asyncio.gather(
            *(
                asyncio.to_thread(
                    run_cli,
                    [*args, "ingest", str(f), "--format", "jsonl", "--scope", SCOPE],
                    tmp_path,
                )
                for f in files
            )
        )
        assert [r.returncode for r in runs] == [0, 0], [r.stderr[-500:] for r in runs]
        async with open_memory(load_settings(overrides={"data_dir": data})) as memory:
            record = await _lisbon(memory)
            wanted = {f"trip-{n}-{i}" for n in "ab" for i in range(4)}
            assert set(record["sources"]) == wanted  # type: ignore[call-overload]
            assert memory.chunks is not None and memory.graph is not None
            assert (await memory.chunks.counts())["chunks"] == 80
            hits = await memory.graph.search_entities("Lisbon", 5, scope=SCOPE)
            found = [(h.entity.id, h.entity.name, h.entity.type) for h in hits]
            lisbons = [h.entity for h in hits if h.entity.name == "Lisbon"]
            assert len(lisbons) == 1, found  # both imports landed on one node
            # An entity reads its latest mentions only (a cap), so provenance is checked whole in
            # the store: every entity is mentioned in each of the 80 turns, none lost or doubled.
            counts = await memory.graph.counts()
            pairs = await memory.graph._conn.read(  # type: ignore[attr-defined]
                "MATCH (e:Entity)-[:MENTIONED_IN]->(s:Source) "
                "RETURN e.name, count(DISTINCT s.id), count(*) ORDER BY e.name",
                {},
            )
            # Once each: two writers MERGE-ing one mention at once must not both create it.
            assert all(int(row[1]) == int(row[2]) == 80 for row in pairs), (pairs, counts, found)
            assert len(pairs) == counts["entities"], (pairs, counts, found)
            latest = lisbons[0].mentions
            chunks = await memory.chunks.get([m.chunk_id for m in latest])
            conversations = {chunk.conversation_id for chunk in chunks}
            # The latest mentions come from both files (b's 40 turns are newer, the cap is 50).
            # A failure names what was read: each mention's chunk, time and whether it was found.
            read = [(m.chunk_id[:8], m.timestamp.isoformat()) for m in latest]
            assert conversations == wanted, (len(latest), len(chunks), read, pairs)
    finally:
        run_cli([*args, "servers", "stop"], tmp_path)
