"""A ``MemoryService`` fake over the store fakes, for code (the window) that needs no servers.

It runs the real ``core.scour`` over the in-memory fakes of ``stores``, so the answers have
exactly the shape the real service gives; mypy checks it against the port (``_CHECK`` below), so
it cannot drift from what the window may ask. A store's ``fail`` makes its half unhealthy and
its reads raise, as a down store does. Imports the standard library, core, the settings and the
store fakes.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable, Mapping, Sequence
from contextlib import asynccontextmanager
from pathlib import Path

from explorer.core.errors import ReadOnlyStore, StoreUnavailable
from explorer.core.journal import RecallCall, RecallSummary
from explorer.core.models import DEFAULT_SCOPE, Chunk, Entity, Subgraph
from explorer.core.overview import MemoryOverview
from explorer.core.policy import DEFAULT_POLICY, RetrievalPolicy
from explorer.core.ports import OK, Forgotten, Health, ImportReport, MemoryService
from explorer.core.progress import ProgressCallback
from explorer.core.scour import ScourRequest, ScourResult, scour
from explorer.core.validate import forgettable_scope
from explorer.settings import Settings
from explorer.testing.stores import sample_memory


class FakeMemory:
    """A ``MemoryService`` over ``sample_memory``; ``delay`` holds every scour back that long;
    ``read_only`` makes it refuse alias changes, as a graphiti memory does."""

    def __init__(self, *, delay: float = 0.0, read_only: bool = False) -> None:
        self.embedder, self.chunks, self.graph, self.concepts = sample_memory()
        self._settings = Settings(default_scope="acme/ana", load_demo=False)
        self.policy: RetrievalPolicy = DEFAULT_POLICY
        self.delay = delay
        self.closed = False
        self.scour_calls = 0
        self._read_only = read_only

    @property
    def settings(self) -> Settings:
        return self._settings

    @property
    def read_only(self) -> bool:
        return self._read_only

    async def scour(
        self, request: ScourRequest, policy: RetrievalPolicy | None = None
    ) -> ScourResult:
        self.scour_calls += 1
        if self.delay:
            await asyncio.sleep(self.delay)
        return await scour(
            request,
            graph=self.graph,
            chunks=self.chunks,
            concepts=self.concepts,
            embedder=self.embedder,
            policy=policy or self.policy,
        )

    async def health(self) -> Health:
        graph, chunks = self.graph.fail, self.chunks.fail
        return Health(
            graph=OK if graph is None else str(graph), chunks=OK if chunks is None else str(chunks)
        )

    async def supervise(self) -> Mapping[str, str]:
        return {}

    async def reconnect_half(self, half: str) -> None:
        return None

    async def restart_half(self, half: str) -> None:
        return None

    async def warm(self, scope: str = DEFAULT_SCOPE) -> None:
        return None

    async def overview(self, scope: str = DEFAULT_SCOPE, salient: int = 20) -> MemoryOverview:
        return MemoryOverview()

    async def domains(self) -> list[str]:
        return await self.chunks.domains()

    async def entities(self, ids: Sequence[str]) -> list[Entity]:
        return await self.graph.get_entities(ids)

    async def neighbourhood(self, ids: Sequence[str], *, limit_per_node: int = 50) -> Subgraph:
        return await self.graph.neighbourhood(ids, limit_per_node=limit_per_node)

    async def degree(self, ids: Sequence[str]) -> dict[str, int]:
        return await self.graph.degree(ids)

    async def detach_alias(self, entity_id: str, alias: str) -> bool:
        self._refuse_if_read_only("detaching an alias")
        return await self.graph.detach_alias(entity_id, alias)

    async def allow_alias(self, entity_id: str, alias: str) -> bool:
        self._refuse_if_read_only("allowing an alias again")
        return await self.graph.allow_alias(entity_id, alias)

    def _refuse_if_read_only(self, what: str) -> None:
        if self._read_only:
            raise ReadOnlyStore(f"this memory is opened read-only: {what} changes nothing")

    async def entities_in_chunks(self, chunk_ids: Sequence[str]) -> dict[str, list[str]]:
        return await self.graph.entities_in_chunks(chunk_ids)

    async def chunks_by_id(self, ids: Sequence[str]) -> list[Chunk]:
        return await self.chunks.get(ids)

    async def chunks_said_by(
        self, speaker: str, limit: int, *, scope: str | None = None
    ) -> tuple[list[Chunk], int]:
        return await self.chunks.said_by(speaker, limit, scope=scope)

    async def recent_calls(self, after: int = 0, limit: int = 100) -> list[RecallSummary]:
        raise StoreUnavailable("the fake memory keeps no recall journal")

    async def recall_call(self, call_id: int) -> RecallCall | None:
        raise StoreUnavailable("the fake memory keeps no recall journal")

    async def ensure_demo(
        self, progress: Callable[..., None] | None = None, *, reset: bool = False
    ) -> bool:
        return False

    async def import_file(
        self,
        path: Path | str,
        fmt: str,
        *,
        scope: str | None = None,
        skip_bad: bool = False,
        progress: ProgressCallback | None = None,
    ) -> ImportReport:
        raise StoreUnavailable("the fake memory imports nothing")

    async def finish_pending(self, progress: ProgressCallback | None = None) -> int:
        return 0

    async def forget_scope(self, scope: str) -> Forgotten:
        self._refuse_if_read_only("forgetting a scope")
        entities = await self.graph.forget_scope(scope)
        records = await self.concepts.forget_scope(scope)
        chunks = await self.chunks.forget_scope(scope)
        return Forgotten(forgettable_scope(scope), chunks, entities, records)


_CHECK: type[MemoryService] = FakeMemory


@asynccontextmanager
async def fake_opener(settings: Settings | None = None) -> AsyncIterator[FakeMemory]:
    memory = FakeMemory()
    try:
        yield memory
    finally:
        memory.closed = True
