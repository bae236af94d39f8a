"""Shipped fakes: the store ports' in-memory fakes and a ``MemoryService`` built on them.

For tests of the core, of the window and of code built on them, here and in other projects.
``stores`` holds the fakes of the store ports (embedder, chunk, graph and concept stores, the
association source) with ``sample_memory``; ``memory`` holds ``FakeMemory``, the memory service
over them that the window can open, checked against the port by mypy. Two modules rather than
one keep each under the size the project allows a module. Imports the standard library, core
and the settings.
"""

from explorer.testing.memory import FakeMemory, fake_opener
from explorer.testing.stores import (
    T0,
    Call,
    FakeAssociations,
    FakeChunkStore,
    FakeConceptStore,
    FakeEmbedder,
    FakeGraphStore,
    cosine,
    in_scope,
    make_candidate,
    sample_memory,
    words,
)

__all__ = [
    "T0",
    "Call",
    "FakeAssociations",
    "FakeChunkStore",
    "FakeConceptStore",
    "FakeEmbedder",
    "FakeGraphStore",
    "FakeMemory",
    "cosine",
    "fake_opener",
    "in_scope",
    "make_candidate",
    "sample_memory",
    "words",
]
