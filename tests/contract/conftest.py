"""Each port's fake (``explorer.testing``) and its real adapter, behind one parametrised fixture.

A contract test asks for ``chunks``, ``graph``, ``concepts`` or ``embedder_impl`` and runs once per
implementation, so what the unit tests learn from a fake holds for the store the app uses.
"""

from __future__ import annotations

import pytest

from explorer.core.ports import ChunkStore, ConceptStore, Embedder, GraphStore
from explorer.testing import FakeChunkStore, FakeConceptStore, FakeEmbedder, FakeGraphStore

# The real adapters come from the fixtures of tests/stores.py. ``servers`` (session-wide) is
# asked for by name so it is up before the leak guard (tests/leak_guard.py) takes its snapshot.


@pytest.fixture(params=["fake", "wordllama"])
def embedder_impl(request: pytest.FixtureRequest, embedder: Embedder) -> Embedder:
    if request.param == "fake":
        return FakeEmbedder(dimension=64)
    return embedder


@pytest.fixture(params=["fake", "postgres"])
def chunks(request: pytest.FixtureRequest, servers: object) -> ChunkStore:
    if request.param == "fake":
        return FakeChunkStore(FakeEmbedder())
    real: ChunkStore = request.getfixturevalue("chunk_store")
    return real


@pytest.fixture(params=["fake", "falkordb"])
def graph(request: pytest.FixtureRequest, servers: object) -> GraphStore:
    if request.param == "fake":
        return FakeGraphStore(FakeEmbedder())
    real: GraphStore = request.getfixturevalue("graph_store")
    return real


@pytest.fixture(params=["fake", "postgres"])
def concepts(request: pytest.FixtureRequest, servers: object) -> ConceptStore:
    if request.param == "fake":
        return FakeConceptStore()
    real: ConceptStore = request.getfixturevalue("concept_store")
    return real
