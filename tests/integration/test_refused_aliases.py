"""A merge the user undid stays undone: detached aliases against later imports, on the real
embedded stores (the same evidence in another conversation, a re-extraction, a resumed import)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from pathlib import Path

import pytest

from explorer.adapters.falkor import FalkorGraphStore
from explorer.core.errors import WriteFailed
from explorer.core.models import Entity, Relation
from explorer.ingest import pipeline
from explorer.ingest.chunking import chunk_turns
from explorer.ingest.importers import read_turns
from explorer.ingest.pipeline import Stores, ingest_file
from tests.integration import test_ingest
from tests.integration.test_ingest import content, everything, write_messages
from tests.stores import unique_name

SCOPE = "demo/helper/maya"


def kate_chat(path: Path, conversation: str, day: int, errand: str) -> Path:
    """tobes addresses emi as Kate twice, which links the name to emi."""
    return write_messages(
        path,
        conversation,
        day,
        [
            ("emi", f"morning! did you get the {errand}?"),
            ("tobes", f"Hey Kate! Yes, the {errand} are sorted."),
            ("emi", "amazing, thank you"),
            ("tobes", f"Thanks for reminding me about the {errand}, Kate."),
        ],
    )


# Memories opened by (graph, schema) name and dropped after the test.
named_stores = test_ingest.named_stores


@pytest.fixture
def memories(
    named_stores: Callable[[str, str], Awaitable[Stores]],
) -> Callable[[], Awaitable[Stores]]:
    """Opens a fresh memory (a graph and a schema of its own) each call."""

    async def fresh() -> Stores:
        return await named_stores(unique_name("refused"), unique_name("refused"))

    return fresh


async def named(stores: Stores, names: list[str]) -> dict[str, Entity]:
    assert stores.graph is not None
    hits = await stores.graph.most_salient(10_000, scope=SCOPE)
    return {entity.name: entity for entity in hits if entity.name in names}


async def chunk_ids(path: Path) -> set[str]:
    return {chunk.id for chunk in chunk_turns(read_turns(path, "jsonl").turns)}


async def relations_of(stores: Stores, entity: Entity) -> list[Relation]:
    assert stores.graph is not None
    subgraph = await stores.graph.neighbourhood([entity.id], limit_per_node=100)
    return [r for r in subgraph.relations if entity.id in (r.source_id, r.target_id)]


async def test_a_detached_alias_stays_detached_when_another_conversation_says_it_again(
    memories: Callable[[], Awaitable[Stores]], tmp_path: Path
) -> None:
    stores = await memories()
    assert stores.graph is not None
    first = kate_chat(tmp_path / "tickets.jsonl", "tickets", 2, "tickets")
    await ingest_file(stores, first, "jsonl")
    emi = (await named(stores, ["emi"]))["emi"]
    assert "Kate" in emi.aliases  # the merge the user is about to undo
    assert await stores.graph.detach_alias(emi.id, "Kate") is True

    second = kate_chat(tmp_path / "dinner.jsonl", "dinner", 9, "dinner plans")
    await ingest_file(stores, second, "jsonl")
    found = await named(stores, ["emi", "Kate", "tobes"])
    emi, kate, tobes = found["emi"], found["Kate"], found["tobes"]
    assert "Kate" not in emi.aliases and emi.refused_aliases == ("Kate",)
    assert not [e for e in emi.alias_evidence if e.alias == "Kate"]
    # The name is an entity of its own now, holding what the new conversation said of it.
    new_chunks = await chunk_ids(second)
    assert not [m for m in emi.mentions if m.chunk_id in new_chunks]
    assert len([m for m in kate.mentions if m.chunk_id in new_chunks]) == 2
    spoke_of_kate = {r.type for r in await relations_of(stores, kate) if r.source_id == tobes.id}
    assert "MENTIONS" in spoke_of_kate
    assert not [
        r
        for r in await relations_of(stores, emi)
        if any(m.chunk_id in new_chunks for m in r.mentions)
        and r.source_id == tobes.id
        and r.type == "MENTIONS"
    ]

    # Reading both conversations again does not bring the alias back either, and changes
    # nothing the second time.
    for path in (first, second):
        await ingest_file(stores, path, "jsonl", reextract=True)
    before = await everything(stores, [SCOPE])
    emi = (await named(stores, ["emi"]))["emi"]
    assert "Kate" not in emi.aliases and emi.refused_aliases == ("Kate",)
    for path in (first, second):
        await ingest_file(stores, path, "jsonl", reextract=True)
    assert await everything(stores, [SCOPE]) == before


async def test_a_detached_short_name_does_not_merge_into_the_full_name_again(
    memories: Callable[[], Awaitable[Stores]], tmp_path: Path
) -> None:
    stores = await memories()
    assert stores.graph is not None
    lines = [("Maya Okafor", "My neighbour Hannah Lee lent us her ladder today.")]
    ladder = write_messages(tmp_path / "ladder.jsonl", "ladder", 2, lines)
    lines = [("Assistant", "Did Lee want the ladder back by Sunday?")]
    call = write_messages(tmp_path / "call.jsonl", "call", 5, lines)
    for path in (ladder, call):
        await ingest_file(stores, path, "jsonl")
    found = await named(stores, ["Hannah Lee", "Lee"])
    assert "Lee" not in found and "Lee" in found["Hannah Lee"].aliases
    assert await stores.graph.detach_alias(found["Hannah Lee"].id, "Lee") is True

    again = write_messages(
        tmp_path / "again.jsonl",
        "again",
        9,
        [("Assistant", "Did Lee say the ladder can stay until Friday?")],
    )
    await ingest_file(stores, again, "jsonl")
    found = await named(stores, ["Hannah Lee", "Lee"])
    hannah, lee = found["Hannah Lee"], found["Lee"]
    assert "Lee" not in hannah.aliases and hannah.refused_aliases == ("Lee",)
    assert {m.chunk_id for m in lee.mentions} == await chunk_ids(again)


async def test_an_import_resumed_after_a_detach_stores_what_a_clean_one_does(
    memories: Callable[[], Awaitable[Stores]], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    stores, other_stores = await memories(), await memories()
    first = kate_chat(tmp_path / "tickets.jsonl", "tickets", 2, "tickets")
    second = kate_chat(tmp_path / "dinner.jsonl", "dinner", 9, "dinner plans")
    monkeypatch.setattr(pipeline, "ENTITY_BATCH", 2)
    for memory in (stores, other_stores):
        assert memory.graph is not None
        await ingest_file(memory, first, "jsonl")
        emi = (await named(memory, ["emi"]))["emi"]
        assert await memory.graph.detach_alias(emi.id, "Kate") is True
    await ingest_file(stores, second, "jsonl")  # clean

    graph = other_stores.graph
    assert isinstance(graph, FalkorGraphStore)
    upsert = graph.upsert
    writes = 0

    async def crashing(*args: object, **kwargs: object) -> None:
        nonlocal writes
        writes += 1
        if writes == 2:
            raise WriteFailed("the graph went away half-way")
        await upsert(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(graph, "upsert", crashing)
    with pytest.raises(WriteFailed):
        await ingest_file(other_stores, second, "jsonl")
    monkeypatch.setattr(graph, "upsert", upsert)
    await ingest_file(other_stores, second, "jsonl")  # resumed

    clean, resumed = await content(stores, [SCOPE]), await content(other_stores, [SCOPE])
    assert clean == resumed
    kate = [e for e in clean["entities"].values() if e["name"] == "Kate"]  # type: ignore[attr-defined]
    assert kate, "the detached name should be an entity of its own"
