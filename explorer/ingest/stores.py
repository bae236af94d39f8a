"""What ingest writes to: an open memory's stores, as a protocol and as a plain record.

Its own module so that the pipeline and the statistics both use it without importing each
other. Imports the core ports and the extractor's protocol.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Protocol

from explorer.core.ports import ChunkStore, ConceptStore, Embedder, GraphStore
from explorer.ingest.extractor import Extractor


class MemoryStores(Protocol):
    """What the pipeline needs of an open memory: the three stores and the embedder."""

    chunks: ChunkStore | None
    graph: GraphStore | None
    concepts: ConceptStore | None
    embedder: Embedder


@dataclass
class Stores:
    """A plain ``MemoryStores`` (tests, benchmarks, scripts), optionally with an extractor."""

    chunks: ChunkStore | None
    graph: GraphStore | None
    concepts: ConceptStore | None
    embedder: Embedder
    extractor: Extractor | None = None
    errors: dict[str, str] = field(default_factory=dict)
