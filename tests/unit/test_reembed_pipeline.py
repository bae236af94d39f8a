"""``reembed_all`` refuses clearly when a store is missing or cannot replace its vectors."""

from __future__ import annotations

from typing import Any

import pytest

from explorer.core.errors import InvalidArgument, StoreUnavailable
from explorer.ingest.pipeline import Stores, reembed_all
from explorer.testing import FakeConceptStore, FakeEmbedder
from tests.unit.ingest_fakes import IngestChunkStore, IngestGraphStore


async def test_a_missing_store_is_named_with_its_reason() -> None:
    # The ingest fakes have only what ingest asks of a store, not the whole port.
    graph: Any = IngestGraphStore()
    stores = Stores(None, graph, FakeConceptStore(), FakeEmbedder(), errors={"chunks": "down"})
    with pytest.raises(StoreUnavailable, match=r"chunks store is unavailable \(down\)"):
        await reembed_all(stores)


async def test_stores_without_a_reembed_method_are_refused_before_any_work() -> None:
    embedder = FakeEmbedder()
    chunks: Any = IngestChunkStore()
    graph: Any = IngestGraphStore()
    stores = Stores(chunks, graph, FakeConceptStore(), embedder)
    with pytest.raises(InvalidArgument, match="cannot replace its embeddings"):
        await reembed_all(stores)
    assert embedder.calls == []
