"""The stores' version stamps: one row lookup that changes when rows change, and only then."""

from __future__ import annotations

from datetime import UTC, datetime

from explorer.adapters.postgres.chunks import PgChunkStore
from explorer.adapters.postgres.concepts import PgConceptStore
from explorer.core.models import Chunk, EmbeddingSpec

SPEC = EmbeddingSpec("test-model", 4)
AGENT = "acme/bot"


def chunk(number: int, scope: str = "acme/bot/ana") -> Chunk:
    return Chunk(
        id=f"c{number}",
        text=f"turn number {number}",
        conversation_id="conv-1",
        position=number,
        speaker="user",
        timestamp=datetime(2024, 3, 1, 9, number, tzinfo=UTC),
        scope=scope,
        content_hash=f"hash-{number}",
    )


async def test_chunk_stamp_changes_with_writes_and_not_with_reads_or_no_ops(
    chunk_store: PgChunkStore,
) -> None:
    empty = await chunk_store.scope_stamp("acme")
    await chunk_store.upsert([chunk(1), chunk(2)], [[1, 0, 0, 0], [0, 1, 0, 0]], SPEC)
    written = await chunk_store.scope_stamp("acme")
    assert written != empty

    await chunk_store.search([1, 0, 0, 0], 2, spec=SPEC, scope="acme")
    await chunk_store.upsert([chunk(1)], [[1, 0, 0, 0]], SPEC)  # already there: no row changes
    assert await chunk_store.scope_stamp("acme") == written

    await chunk_store.upsert([chunk(3)], [[0, 0, 1, 0]], SPEC, pending=True)
    pending = await chunk_store.scope_stamp("acme")
    assert pending != written
    await chunk_store.mark_done(["c3"])
    assert await chunk_store.scope_stamp("acme") != pending


async def test_concept_version_changes_with_every_upsert_only(
    concept_store: PgConceptStore,
) -> None:
    before = await concept_store.version(AGENT)
    await concept_store.upsert(AGENT, [{"name": "Kestrel", "description": "a falcon"}])
    first = await concept_store.version(AGENT)
    assert first != before

    await concept_store.names(AGENT)
    await concept_store.read(AGENT, ["Kestrel"])
    assert await concept_store.version(AGENT) == first

    await concept_store.upsert(AGENT, [{"name": "Kestrel", "description": "a small falcon"}])
    assert await concept_store.version(AGENT) != first


async def test_every_write_draws_a_new_epoch_so_a_restored_count_is_another_state(
    concept_store: PgConceptStore,
) -> None:
    # A backup restored at an older count would count up to stamps seen before; the epoch
    # drawn with each write keeps those apart (saved search indexes are keyed by the stamp).
    epochs = set()
    for n in range(3):
        await concept_store.upsert(AGENT, [{"name": f"Kestrel {n}"}])
        epoch, _, count = (await concept_store.version(AGENT)).partition(":v")
        assert count.isdigit()
        epochs.add(epoch)
    assert len(epochs) == 3
