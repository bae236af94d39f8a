"""Imports merge what they know about a concept instead of the last writer replacing it."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from pathlib import Path

from explorer.ingest.concepts import concept_agent
from explorer.ingest.importers.base import Turn
from explorer.ingest.pipeline import ingest_turns
from explorer.memory import open_memory
from explorer.settings import Settings

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
        assert set(first["provenance"]) < set(both["provenance"])  # type: ignore[arg-type]
        # The same file again adds nothing and loses nothing.
        assert (await ingest_turns(memory, _file("trip-a", 0))).ok
        assert (await _lisbon(memory))["sources"] == ["trip-a", "trip-b"]
