"""The ``ChunkStore`` contract, for the fake and for PostgreSQL + pgvector."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime, timedelta

import pytest

from explorer.core.errors import EmbeddingMismatch, InvalidArgument
from explorer.core.models import Chunk, EmbeddingSpec
from explorer.core.ports import ChunkStore
from explorer.testing import FakeEmbedder

T0 = datetime(2024, 5, 1, 9, tzinfo=UTC)
EMBEDDER = FakeEmbedder(dimension=64)
TEXTS = {
    "c1": ("Noor", "We booked the ferry to Lisbon for May.", "travel", "home/noor"),
    "c2": ("Karim", "The tomato seedlings need more light.", "garden", "home/noor"),
    "c3": ("Noor", "Lisbon has the best custard tarts.", "travel", "home/karim"),
    "c4": ("Karim", "My tax return is due on Friday.", "finance", "work"),
}


def _chunk(chunk_id: str, position: int) -> Chunk:
    speaker, text, domain, scope = TEXTS[chunk_id]
    return Chunk(
        id=chunk_id,
        text=text,
        conversation_id="talk",
        position=position,
        speaker=speaker,
        timestamp=T0 + timedelta(hours=position),
        domains=(domain,),
        scope=scope,
        content_hash=f"hash-{chunk_id}",
    )


CHUNKS = [_chunk(chunk_id, n) for n, chunk_id in enumerate(TEXTS)]


async def _filled(store: ChunkStore, *, pending: bool = False) -> ChunkStore:
    vectors = await EMBEDDER.embed([chunk.text for chunk in CHUNKS])
    assert await store.upsert(CHUNKS, vectors, EMBEDDER.spec, pending=pending) == len(CHUNKS)
    return store


async def test_an_empty_store_has_no_model_nor_time_span(chunks: ChunkStore) -> None:
    assert await chunks.embedding_spec() is None
    assert await chunks.time_span() is None
    assert (await chunks.counts())["chunks"] == 0


async def test_upsert_counts_only_new_chunks_and_get_keeps_the_order_asked(
    chunks: ChunkStore,
) -> None:
    store = await _filled(chunks)
    vectors = await EMBEDDER.embed([CHUNKS[0].text])
    assert await store.upsert(CHUNKS[:1], vectors, EMBEDDER.spec) == 0
    found = await store.get(["c3", "missing", "c1"])
    assert [chunk.id for chunk in found] == ["c3", "c1"]
    assert found[0] == CHUNKS[2]
    assert await store.embedding_spec() == EMBEDDER.spec
    assert (await store.counts())["chunks"] == 4


async def test_search_is_best_first_and_filters_inside_the_query(chunks: ChunkStore) -> None:
    store = await _filled(chunks)
    (query,) = await EMBEDDER.embed(["ferry to Lisbon"])
    hits = await store.search(query, 4, spec=EMBEDDER.spec)
    assert hits[0].chunk.id == "c1"
    assert [hit.similarity for hit in hits] == sorted((h.similarity for h in hits), reverse=True)
    # Filters apply before the cut: k hits whenever k matching chunks exist.
    assert [h.chunk.id for h in await store.search(query, 1, spec=EMBEDDER.spec, scope="work")] == [
        "c4"
    ]
    travel = await store.search(query, 2, spec=EMBEDDER.spec, domain="travel")
    assert {hit.chunk.id for hit in travel} == {"c1", "c3"}
    below = await store.search(query, 4, spec=EMBEDDER.spec, scope="home")
    assert {hit.chunk.id for hit in below} == {"c1", "c2", "c3"}


async def test_a_query_from_another_model_is_refused(chunks: ChunkStore) -> None:
    store = await _filled(chunks)
    other = EmbeddingSpec(model="another-model", dimension=64)
    with pytest.raises(EmbeddingMismatch):
        await store.search([1.0] + [0.0] * 63, 3, spec=other)


async def test_lexical_search_ranks_shared_words_and_is_empty_without_them(
    chunks: ChunkStore,
) -> None:
    store = await _filled(chunks)
    hits = await store.lexical_search("custard tarts in Lisbon", 4)
    assert hits and hits[0].chunk.id == "c3"
    assert {hit.chunk.id for hit in hits} <= {"c1", "c3"}
    assert await store.lexical_search("xylophone", 4) == []
    assert [h.chunk.id for h in await store.lexical_search("Lisbon", 4, scope="home/karim")] == [
        "c3"
    ]


async def test_pending_chunks_stay_pending_until_marked_done(chunks: ChunkStore) -> None:
    store = await _filled(chunks, pending=True)
    assert sorted(chunk.id for chunk in await store.pending()) == ["c1", "c2", "c3", "c4"]
    await store.mark_done(["c1", "c2"])
    assert sorted(chunk.id for chunk in await store.pending()) == ["c3", "c4"]
    await store.mark_done(["c3", "c4", "unknown"])
    assert await store.pending() == []


async def test_domains_sorted_and_the_time_span_of_what_is_stored(chunks: ChunkStore) -> None:
    store = await _filled(chunks)
    assert await store.domains() == ["finance", "garden", "travel"]
    assert await store.time_span() == (T0, T0 + timedelta(hours=3))
    counts = await store.counts()
    assert counts["scope:home/noor"] == 2 and counts["scope:work"] == 1
    assert await store.version()


async def test_forgetting_a_scope_deletes_it_and_below_and_nothing_else(
    chunks: ChunkStore,
) -> None:
    store = await _filled(chunks, pending=True)
    # A scope whose name only begins the same way is another scope.
    (noorah,) = await EMBEDDER.embed(["Noorah's notes"])
    twin = Chunk("c5", "Noorah's notes", "talk", 5, "Noorah", T0, scope="home/noorah")
    assert await store.upsert([twin], [noorah], EMBEDDER.spec) == 1
    # "home/noor" and below go; its siblings and the parent "home" scope stay.
    assert await store.forget_scope("home/noor/") == 2
    assert [chunk.id for chunk in await store.get(["c5"])] == ["c5"]
    assert await store.forget_scope("home/noorah") == 1
    assert [chunk.id for chunk in await store.get(list(TEXTS))] == ["c3", "c4"]
    assert [chunk.id for chunk in await store.pending()] == ["c3", "c4"]
    assert await store.forget_scope("home/noor") == 0
    assert await store.forget_scope("home") == 1  # home/karim is below home
    with pytest.raises(InvalidArgument, match="root scope"):
        await store.forget_scope("")
    assert (await store.counts())["chunks"] == 1


async def test_a_mark_is_kept_and_replaced(chunks: ChunkStore) -> None:
    assert await chunks.read_mark("demo") is None
    await chunks.write_mark("demo", "loading")
    await chunks.write_mark("demo", "loaded")
    assert await chunks.read_mark("demo") == "loaded"
    assert await chunks.read_mark("other") is None


async def test_a_conversation_title_is_kept_with_its_chunks(chunks: ChunkStore) -> None:
    titled = replace(CHUNKS[0], title="Planning the Lisbon ferry")
    vectors = await EMBEDDER.embed([titled.text, CHUNKS[1].text])
    assert await chunks.upsert([titled, CHUNKS[1]], vectors, EMBEDDER.spec) == 2
    found = {chunk.id: chunk.title for chunk in await chunks.get(["c1", "c2"])}
    assert found == {"c1": "Planning the Lisbon ferry", "c2": ""}
    (hit, *_) = await chunks.lexical_search("Lisbon ferry", 1)
    assert hit.chunk == titled


async def test_the_scopes_already_holding_some_messages_are_named(chunks: ChunkStore) -> None:
    store = await _filled(chunks)
    said = [(c.speaker, c.timestamp, c.text) for c in (CHUNKS[0], CHUNKS[1], CHUNKS[2])]
    unknown = ("Noor", T0, "Never said this.")
    other_time = (CHUNKS[3].speaker, T0 + timedelta(days=9), CHUNKS[3].text)  # said another day
    held = await store.scopes_holding([*said, unknown, other_time])
    assert held == {"home/noor": 2, "home/karim": 1}
    assert await store.scopes_holding([]) == {}
