"""The LoCoMo evaluation end to end on the real stores, over a tiny hand-written file."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from explorer.adapters.falkor import FalkorGraphStore
from explorer.adapters.local_embedder import LocalEmbedder
from explorer.adapters.postgres.chunks import PgChunkStore
from explorer.adapters.postgres.concepts import PgConceptStore
from explorer.core.lexical import LexicalIndexCache
from explorer.core.policy import RetrievalPolicy
from explorer.core.scour import ScourRequest, ScourResult, scour
from explorer.eval.locomo import evaluate_locomo, expected_chunks

FIXTURE = Path(__file__).parent.parent / "fixtures" / "eval" / "benchmark-tiny.json"


@dataclass
class StoreMemory:
    """The parts of an open memory the evaluation and the ingest pipeline use."""

    graph: FalkorGraphStore
    chunks: PgChunkStore
    concepts: PgConceptStore
    embedder: LocalEmbedder
    lexical_index: LexicalIndexCache = field(default_factory=LexicalIndexCache)
    asked: list[str] = field(default_factory=list)

    async def scour(
        self, request: ScourRequest, policy: RetrievalPolicy | None = None
    ) -> ScourResult:
        assert policy is not None
        self.asked.append(request.scope)
        return await scour(
            request,
            graph=self.graph,
            chunks=self.chunks,
            concepts=self.concepts,
            embedder=self.embedder,
            policy=policy,
            lexical_index=self.lexical_index,
        )


async def test_the_tiny_file_is_ingested_once_and_every_configuration_answers(
    graph_store: FalkorGraphStore,
    chunk_store: PgChunkStore,
    concept_store: PgConceptStore,
    embedder: LocalEmbedder,
) -> None:
    memory = StoreMemory(graph_store, chunk_store, concept_store, embedder)
    configs = ("lexical", "vector", "hybrid", "full")
    results = await evaluate_locomo(memory, FIXTURE, ks=(1, 3, 10), configs=configs)

    counts = await chunk_store.counts()
    for scope, wanted in expected_chunks(FIXTURE).items():
        assert counts[f"scope:{scope}"] == wanted
    assert set(memory.asked) == {"locomo/tiny-1", "locomo/tiny-2"}
    assert list(results) == list(configs)
    for body in results.values():
        assert body["questions"] == 6
        assert set(body["recall"]) == {"1", "3", "10"}
        values = [*body["recall"].values()]
        values += [v for per_k in body["recall_by_category"].values() for v in per_k.values()]
        assert all(0.0 <= value <= 1.0 for value in values)
        # Recall can only grow with k.
        assert body["recall"]["1"] <= body["recall"]["3"] <= body["recall"]["10"]
    # Ten turns per conversation at most, so k=10 sees every turn of its own conversation.
    assert results["lexical"]["recall"]["10"] == 1.0
    # The name of the greyhound is asked in words the answer turn shares ("name", "greyhound"
    # in the question's neighbour), so the lexical route ranks it in the top 3.
    assert results["lexical"]["recall_by_category"]["4"]["3"] >= 0.5

    # A second run finds both conversations complete and loads nothing again.
    before = await chunk_store.scope_stamp("locomo")
    again = await evaluate_locomo(memory, FIXTURE, ks=(3,), configs=("lexical",))
    assert await chunk_store.scope_stamp("locomo") == before
    assert again["lexical"]["recall"]["3"] == results["lexical"]["recall"]["3"]
