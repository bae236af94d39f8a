"""The memory service: both stores, the embedder and the retrieval policy behind one handle.

``StoreMemoryService`` implements ``core.ports.MemoryService`` over the four store ports. It is
built and opened by the composition root (``explorer.compose.open_memory``), which picks the
adapters and hands them in as a ``StoreConnector``; this module names no adapter. A store that
cannot be reached does not stop the other: its half is ``None`` with the reason in ``errors``
and ``reconnect`` tries again, so scour answers with the half it has. Imports the standard
library, core, the settings and (lazily, for import and the demo) ingest and ``supervise``.
"""

from __future__ import annotations

import asyncio
import ctypes
import functools
import gc
import logging
import time
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from explorer.core.admission import Admission
from explorer.core.errors import (
    ExplorerError,
    MemoryBusy,
    ReadOnlyStore,
    StoreUnavailable,
    WriteFailed,
)
from explorer.core.freshness import query_began
from explorer.core.journal import RecallCall, RecallSummary
from explorer.core.lexical import LexicalIndexCache
from explorer.core.models import DEFAULT_SCOPE, Chunk, Entity, Subgraph
from explorer.core.overview import (
    MemoryOverview,
    example_queries,
    prefixed_counts,
    scope_tree,
)
from explorer.core.policy import RetrievalPolicy
from explorer.core.ports import (
    CHUNKS,
    GRAPH,
    OK,
    ChunkStore,
    ConceptStore,
    Embedder,
    Forgotten,
    GraphStore,
    Health,
    IndexSnapshots,
    RecallJournal,
)
from explorer.core.progress import ProgressCallback
from explorer.core.scour import ScourRequest, ScourResult, scour
from explorer.core.shape import ShapeCache
from explorer.core.termscan import TermScan
from explorer.core.validate import forgettable_scope
from explorer.settings import Settings

if TYPE_CHECKING:
    from explorer.adapters.embedded import EmbeddedServers
    from explorer.ingest.extractor import Extractor
    from explorer.ingest.pipeline import IngestReport

log = logging.getLogger(__name__)

#: The shortest pause between two attempts to reach a store that was down.
RECONNECT_SECONDS = 2.0
#: Scour calls running at once (``core.admission``; the rest wait their turn in order): four
#: still overlap one call's store waits with another's CPU. One running longer than the hold is
#: taken to be waiting on a store in trouble and lets the next one in.
CONCURRENT_SCOURS = 4
SCOUR_HOLD_SECONDS = 0.25


#: Container objects allocated (net of those freed) before a young-generation collection; the
#: default is 700. A scour holds a few thousand short-lived records at once (candidates,
#: relations, activation steps), so at 700 the collector ran 3 times a call and each young
#: collection promoted live records to be walked again by the older ones: 1 ms of CPU a warm
#: call at seed scale, against 0.1 ms at 10,000 (the bench memory, 200 warm calls).
YOUNG_COLLECTION_THRESHOLD = 10_000


def _exempt_long_lived() -> None:
    """Take what is alive now, the search caches just built, out of later garbage collections.

    At the seed scale the BM25 indexes and concept records are hundreds of thousands of
    long-lived objects, and every full collection walked them all again (it doubled scour's
    p95). They hold no reference cycles, so reference counting still frees a replaced cache.
    Young collections wait for ``YOUNG_COLLECTION_THRESHOLD`` allocations.
    """
    gc.collect()
    gc.freeze()
    _, middle, oldest = gc.get_threshold()
    gc.set_threshold(YOUNG_COLLECTION_THRESHOLD, middle, oldest)
    _return_freed_memory()


@functools.cache
def _malloc_trim() -> Callable[[int], int] | None:
    """glibc's ``malloc_trim``, where the C library has one (Linux); else ``None``."""
    try:
        trim: Callable[[int], int] = ctypes.CDLL(None).malloc_trim
    except (AttributeError, OSError, TypeError):  # no such C function, or no C library handle
        return None
    return trim


def _return_freed_memory() -> None:
    """Give the heap an index build freed (the chunks, records and pages it read) back to the
    system: left in the heap, it sat under the next build's peak (70 MB at the seed scale)."""
    trim = _malloc_trim()
    if trim is not None:
        trim(0)


class StoreConnector(Protocol):
    """How the service reaches its stores: the composition root's, which knows the adapters.

    Each call connects one store anew and raises ``StoreUnavailable`` when it cannot; a graphiti
    memory takes all three read stores from ``graphiti`` and has no journal.
    """

    async def graph(self) -> GraphStore: ...
    async def chunks(self) -> ChunkStore: ...
    async def concepts(self) -> ConceptStore: ...
    async def journal(self) -> RecallJournal: ...
    async def graphiti(self) -> tuple[GraphStore, ChunkStore, ConceptStore]: ...


@dataclass
class StoreMemoryService:
    """The ``MemoryService`` over the stores (``None`` while unreachable) and the policy."""

    settings: Settings
    embedder: Embedder
    connector: StoreConnector
    policy: RetrievalPolicy = field(default_factory=RetrievalPolicy)
    graph: GraphStore | None = None
    chunks: ChunkStore | None = None
    concepts: ConceptStore | None = None
    # The agent calls made through the tool contract, beside the chunks in PostgreSQL.
    journal: RecallJournal | None = None
    servers: EmbeddedServers | None = None  # when the embedded default is used
    extractor: Extractor | None = None  # None means ingest's offline default
    errors: dict[str, str] = field(default_factory=dict)
    # Why an embedded server did not start, by half: a better reason than "cannot connect".
    start_errors: dict[str, str] = field(default_factory=dict)
    # The concept scan with its read cache, kept across calls once the concept store is up.
    term_scan: TermScan | None = None
    # Per-scope BM25 indexes of the lexical route, kept across calls (a write invalidates).
    lexical_index: LexicalIndexCache = field(default_factory=LexicalIndexCache)
    # Where built search indexes are kept between runs (the BM25 one's cache has its own).
    snapshots: IndexSnapshots | None = None
    # The graph's entities and relations in process for activation (a write invalidates).
    shape: ShapeCache = field(default_factory=ShapeCache)
    # Restart attempts of embedded servers that died (``explorer.supervise``).
    supervision: dict[str, Any] = field(default_factory=dict, repr=False)
    # Halves a Reconnect or Restart is working on, with what it is doing: health reports that
    # and the watchdog leaves their server alone until it is done.
    acting: dict[str, str] = field(default_factory=dict, repr=False)
    _next_reconnect: float = field(default=0.0, repr=False)
    _import: asyncio.Task[Any] | None = field(default=None, repr=False)
    # Cache builds already taken out of garbage collection (the shape also builds between calls).
    _exempted_builds: int = field(default=0, repr=False)
    # One connect at a time: a scour's reconnect and a restarted server's both find a half
    # down, and two stores connected for it at once left one unclosed.
    _connecting: asyncio.Lock = field(default_factory=asyncio.Lock, repr=False)
    _supervising: asyncio.Lock = field(default_factory=asyncio.Lock, repr=False)
    # One write to the memory at a time from this process: an import, finishing one, the demo
    # load and a forget each hold it, so a forget never runs beside something writing.
    _writing: asyncio.Lock = field(default_factory=asyncio.Lock, repr=False)
    _admission: Admission = field(
        default_factory=lambda: Admission(CONCURRENT_SCOURS, SCOUR_HOLD_SECONDS), repr=False
    )

    async def scour(
        self, request: ScourRequest, policy: RetrievalPolicy | None = None
    ) -> ScourResult:
        """Run scour over whichever halves are connected, ``CONCURRENT_SCOURS`` calls at a time
        (the others wait their turn, first come first served)."""
        with query_began():
            async with self._admission.turn():
                return await self._scour(request, policy)

    async def _scour(self, request: ScourRequest, policy: RetrievalPolicy | None) -> ScourResult:
        if self.errors:
            await self.reconnect()
        result = await scour(
            request,
            graph=self.graph,
            chunks=self.chunks,
            concepts=self.concepts,
            embedder=self.embedder,
            policy=policy or self.policy,
            term_scan=self.term_scan,
            lexical_index=self.lexical_index,
            shape=self.shape,
            deadline=self.settings.query_timeout,
        )
        if self._cache_builds() != self._exempted_builds:
            self._exempted_builds = self._cache_builds()
            _exempt_long_lived()
        # A half whose store never connected is reported with the reason, like a failed call.
        if self.graph is None and request.kg_top_k and result.kg_error is None:
            reason = self.errors.get("graph", "not connected")
            result = replace(result, kg_error=f"knowledge graph unavailable: {reason}")
        if self.chunks is None and request.n_chunks and result.chunks_error is None:
            reason = self.errors.get("chunks", "not connected")
            result = replace(result, chunks_error=f"chunk store unavailable: {reason}")
        # A store that never connected gave nothing: its half failed, like every route of it
        # (the graph half still has its concept route while PostgreSQL is up).
        down = {"chunks"} if self.chunks is None else set()
        if self.graph is None and self.concepts is None:
            down.add("graph")
        if down - result.failed_halves:
            result = replace(result, failed_halves=result.failed_halves | down)
        if result.failed_halves or result.kg_error or result.chunks_error:
            await self._look_after_servers()
        return result

    async def _look_after_servers(self) -> None:
        """A half failed: restart its embedded server in the background if it died, as the
        window's health poll does, so every client (an agent's MCP server too) recovers."""
        try:
            await self.supervise()
        except Exception as error:  # best effort: the answer in hand is never lost to it
            log.warning("checking the embedded servers failed: %s", error)

    async def settle(self) -> None:
        """Wait for caches still loading in the background (the graph's shape, after a first
        query) and take them out of garbage collection, as a query that built them would."""
        await self.shape.settled()
        if self._cache_builds() != self._exempted_builds:
            self._exempted_builds = self._cache_builds()
            _exempt_long_lived()

    async def warm(self, scope: str = DEFAULT_SCOPE) -> None:
        """Build what a first query at ``scope`` would build (its BM25 and concept word indexes,
        the loaded embedding model), so the first real query does not wait seconds for it on a
        large memory. It is one query whose answer is dropped; a store that is down is left to
        the next real query to report.
        """
        await self.scour(ScourRequest(query="warm up", scope=scope))

    async def overview(self, scope: str = DEFAULT_SCOPE, salient: int = 20) -> MemoryOverview:
        """What the memory holds (see ``core.overview``); a store that fails is named in
        ``errors`` and its figures are left at zero, never raised."""
        if self.errors:
            await self.reconnect()
        errors = {half: f"{half} unavailable: {why}" for half, why in self.errors.items()}

        async def chunk_half() -> tuple[Mapping[str, int], tuple[datetime, datetime] | None]:
            if self.chunks is None:
                return {}, None
            return await self.chunks.counts(), await self.chunks.time_span()

        async def graph_half() -> tuple[Mapping[str, int], list[Entity], Subgraph]:
            if self.graph is None:
                return {}, [], Subgraph()
            counts = await self.graph.counts()
            top = await self.graph.most_salient(salient, scope=scope or None)
            links = await self.graph.neighbourhood([e.id for e in top], limit_per_node=0)
            return counts, top, links

        chunk_part, graph_part = await asyncio.gather(
            chunk_half(), graph_half(), return_exceptions=True
        )
        chunk_counts: Mapping[str, int] = {}
        graph_counts: Mapping[str, int] = {}
        span: tuple[datetime, datetime] | None = None
        top: list[Entity] = []
        links = Subgraph()
        if isinstance(chunk_part, ExplorerError):
            errors["chunks"] = str(chunk_part)
        elif isinstance(chunk_part, BaseException):
            raise chunk_part
        else:
            chunk_counts, span = chunk_part
        if isinstance(graph_part, ExplorerError):
            errors["graph"] = str(graph_part)
        elif isinstance(graph_part, BaseException):
            raise graph_part
        else:
            graph_counts, top, links = graph_part
        return MemoryOverview(
            chunks=int(chunk_counts.get("chunks", 0)),
            entities=int(graph_counts.get("entities", 0)),
            relations=int(graph_counts.get("relations", 0)),
            first=span[0] if span else None,
            last=span[1] if span else None,
            scopes=scope_tree(
                prefixed_counts(chunk_counts, "scope:"), prefixed_counts(graph_counts, "scope:")
            ),
            domains=prefixed_counts(chunk_counts, "domain:"),
            salient=tuple(top),
            links=tuple(links.relations),
            examples=example_queries(top),
            errors=errors,
        )

    async def import_file(
        self,
        path: Path | str,
        fmt: str,
        *,
        scope: str | None = None,
        skip_bad: bool = False,
        progress: ProgressCallback | None = None,
    ) -> IngestReport:
        """Import a conversation file (see ``ingest.pipeline.ingest_file``). While it runs it is
        this memory's current import, which ``finish_pending`` waits for."""
        from explorer.ingest.pipeline import ingest_file

        self._import = asyncio.current_task()
        async with self._writing:
            return await ingest_file(
                self, path, fmt, scope=scope, skip_bad=skip_bad, progress=progress
            )

    async def finish_pending(self, progress: ProgressCallback | None = None) -> int:
        """After an import was cancelled: wait until it has stopped, then complete the chunks it
        left pending (their entities, relations and concepts), so nothing stays half-imported.
        Returns how many chunks were completed."""
        from explorer.ingest.pipeline import reconcile

        running = self._import
        if running is not None and not running.done() and running is not asyncio.current_task():
            await asyncio.wait({running})
        async with self._writing:
            return await reconcile(self, progress=progress)

    async def forget_scope(self, scope: str) -> Forgotten:
        plain = forgettable_scope(scope)
        if self.read_only:
            raise ReadOnlyStore("a graphiti memory is opened read-only: nothing is forgotten")
        if self._writing.locked():
            raise MemoryBusy(
                "an import, a demo load or another forget is running: try again once it is done"
            )
        async with self._writing:
            return await self._forget(plain)

    async def _forget(self, plain: str) -> Forgotten:
        """Forget ``plain`` (the caller holds ``_writing``)."""
        from explorer.ingest.demo import after_forget, before_forget

        graph, chunks, concepts = self._graph(), self._chunks(), self._concepts()
        try:
            await before_forget(chunks, plain)
            # The graph first and the chunks last: a forget cut short leaves chunks whose
            # entities are gone (still found by the chunk half), never entities pointing at
            # chunks that are gone; running it again finishes it.
            entities = await graph.forget_scope(plain)
            records = await concepts.forget_scope(plain)
            removed = await chunks.forget_scope(plain)
            await after_forget(chunks)
        except ExplorerError as exc:
            raise WriteFailed(
                f"forgetting {plain!r} did not finish ({exc}); forget it again to finish"
            ) from exc
        finally:
            if self.snapshots is not None:  # no index kept on disk holds its words any more
                await asyncio.to_thread(self.snapshots.clear)
        return Forgotten(plain, chunks=removed, entities=entities, concepts=records)

    def _cache_builds(self) -> int:
        scans = self.term_scan.builds if self.term_scan is not None else 0
        # A loaded shape counts too: its records are made whichever way it came.
        return self.lexical_index.builds + scans + self.shape.builds + self.shape.loads

    async def connect(self) -> None:
        """Connect every store not yet connected; failures are kept in ``errors``."""
        async with self._connecting:
            if self.settings.graphiti_graph:
                await asyncio.gather(self._connect_graphiti(), self._connect_postgres())
                return
            await asyncio.gather(self._connect_graph(), self._connect_postgres())

    @property
    def read_only(self) -> bool:
        """True for a graphiti memory, which is only ever read."""
        return bool(self.settings.graphiti_graph)

    async def _connect_graphiti(self) -> None:
        """All three stores from the graphiti graph (``NotGraphiti`` is raised, not kept: it
        will not heal by reconnecting)."""
        if self.graph is not None:
            return
        try:
            self.graph, self.chunks, self.concepts = await self.connector.graphiti()
        except StoreUnavailable as error:
            self.errors[GRAPH] = self.errors[CHUNKS] = str(error)
            return
        self.term_scan = TermScan(self.concepts, snapshots=self.snapshots)
        self.errors.pop(GRAPH, None)
        self.errors.pop(CHUNKS, None)

    async def reconnect(self) -> None:
        """Try again the stores that were unreachable, at most once per ``RECONNECT_SECONDS``.

        Every scour calls this while a store is down; without the pause each query would wait
        out a connect deadline against a store that is known to be gone.
        """
        if self.errors and time.monotonic() >= self._next_reconnect:
            self._next_reconnect = time.monotonic() + RECONNECT_SECONDS
            await self.connect()

    def hold_reconnect(self, seconds: float) -> None:
        """No reconnect attempt for ``seconds`` (a store that just failed to connect)."""
        self._next_reconnect = time.monotonic() + seconds

    async def _connect_graph(self) -> None:
        if self.graph is not None:
            return
        try:
            self.graph = await self.connector.graph()
            self.errors.pop(GRAPH, None)
            self.start_errors.pop(GRAPH, None)
        except StoreUnavailable as error:
            self.errors[GRAPH] = self.start_errors.get(GRAPH) or str(error)

    async def _connect_postgres(self) -> None:
        if self.read_only:
            return  # a graphiti memory has no PostgreSQL half (and so no recall journal)
        try:
            if self.chunks is None:
                self.chunks = await self.connector.chunks()
            if self.concepts is None:
                self.concepts = await self.connector.concepts()
                self.term_scan = TermScan(self.concepts, snapshots=self.snapshots)
            if self.journal is None:
                self.journal = await self.connector.journal()
            self.errors.pop(CHUNKS, None)
            self.start_errors.pop(CHUNKS, None)
        except StoreUnavailable as error:
            self.errors[CHUNKS] = self.start_errors.get(CHUNKS) or str(error)

    def require_stores(self) -> tuple[GraphStore, ChunkStore, ConceptStore]:
        """All three stores, or ``StoreUnavailable`` naming the ones that are down."""
        if self.graph is None or self.chunks is None or self.concepts is None:
            reasons = "; ".join(f"{name}: {why}" for name, why in self.errors.items())
            raise StoreUnavailable(f"this command needs both stores: {reasons or 'not connected'}")
        return self.graph, self.chunks, self.concepts

    async def supervise(self) -> dict[str, str]:
        """Restart embedded servers that died (see ``explorer.supervise``); the halves being
        restarted and how it goes. Only looks at processes while everything runs. One look at
        a time: scours that fail together and the health poll would each start a restart."""
        from explorer.supervise import supervise

        async with self._supervising:
            return await supervise(self)

    async def reconnect_half(self, half: str) -> None:
        """Connect the stores of one half (``graph``, ``chunks``) anew."""
        from explorer.supervise import reconnect_half

        self.supervision.clear()
        self.acting[half] = "reconnecting…"
        try:
            await reconnect_half(self, half)
        finally:
            self.acting.pop(half, None)

    async def restart_half(self, half: str) -> None:
        """Restart the embedded server of one half and reconnect its stores."""
        from explorer.supervise import restart_half

        self.supervision.clear()
        self.acting[half] = "restarting…"
        try:
            await restart_half(self, half)
        finally:
            self.acting.pop(half, None)

    async def health(self) -> Health:
        """``"ok"`` or the reason, per half; never raises. A dead embedded server is
        restarted first (its half says ``restarting…`` until it answers). A half a Reconnect
        or Restart is working on says so, and is neither probed nor connected meanwhile."""
        try:
            restarting = await self.supervise()
        except ExplorerError as error:
            restarting = {GRAPH: str(error), CHUNKS: str(error)}
        restarting.update(self.acting)
        if not self.acting:
            await self.reconnect()
        report = {
            GRAPH: self.errors.get(GRAPH, OK),
            CHUNKS: self.errors.get(CHUNKS, OK),
            **restarting,
        }
        probes: list[tuple[str, Awaitable[Mapping[str, int]]]] = []
        if self.graph is not None and GRAPH not in restarting:
            probes.append((GRAPH, self.graph.counts()))
        if self.chunks is not None and CHUNKS not in restarting:
            probes.append((CHUNKS, self.chunks.counts()))
        results = await asyncio.gather(*(probe for _, probe in probes), return_exceptions=True)
        for (name, _), outcome in zip(probes, results, strict=True):
            if isinstance(outcome, BaseException):
                report[name] = str(outcome) or type(outcome).__name__
        return Health(graph=report[GRAPH], chunks=report[CHUNKS])

    # ------------------------------------------------------------------ reads of one half

    def _graph(self) -> GraphStore:
        if self.graph is None:
            reason = self.errors.get(GRAPH, "not connected")
            raise StoreUnavailable(f"knowledge graph unavailable: {reason}")
        return self.graph

    def _chunks(self) -> ChunkStore:
        if self.chunks is None:
            reason = self.errors.get(CHUNKS, "not connected")
            raise StoreUnavailable(f"chunk store unavailable: {reason}")
        return self.chunks

    def _concepts(self) -> ConceptStore:
        if self.concepts is None:
            reason = self.errors.get(CHUNKS, "not connected")
            raise StoreUnavailable(f"concept store unavailable: {reason}")
        return self.concepts

    async def domains(self) -> list[str]:
        return list(await self._chunks().domains())

    async def entities(self, ids: Sequence[str]) -> list[Entity]:
        return list(await self._graph().get_entities(ids))

    async def neighbourhood(self, ids: Sequence[str], *, limit_per_node: int = 50) -> Subgraph:
        return await self._graph().neighbourhood(ids, limit_per_node=limit_per_node)

    async def degree(self, ids: Sequence[str]) -> dict[str, int]:
        return dict(await self._graph().degree(ids))

    async def detach_alias(self, entity_id: str, alias: str) -> bool:
        return await self._graph().detach_alias(entity_id, alias)

    async def allow_alias(self, entity_id: str, alias: str) -> bool:
        return await self._graph().allow_alias(entity_id, alias)

    async def entities_in_chunks(self, chunk_ids: Sequence[str]) -> dict[str, list[str]]:
        links = await self._graph().entities_in_chunks(chunk_ids)
        return {chunk: list(entities) for chunk, entities in links.items()}

    async def chunks_by_id(self, ids: Sequence[str]) -> list[Chunk]:
        return list(await self._chunks().get(ids))

    async def chunks_said_by(
        self, speaker: str, limit: int, *, scope: str | None = None
    ) -> tuple[list[Chunk], int]:
        return await self._chunks().said_by(speaker, limit, scope=scope)

    def _journal(self) -> RecallJournal:
        if self.journal is None:
            reason = self.errors.get(CHUNKS, "not open")
            raise StoreUnavailable(f"the recall journal is unavailable: {reason}")
        return self.journal

    async def recent_calls(self, after: int = 0, limit: int = 100) -> list[RecallSummary]:
        return await self._journal().recent(after=after, limit=limit)

    async def recall_call(self, call_id: int) -> RecallCall | None:
        return await self._journal().get(call_id)

    async def ensure_demo(
        self, progress: Callable[..., None] | None = None, *, reset: bool = False
    ) -> bool:
        """Load the demo memory if this memory is empty (or ``reset``); True if it loaded."""
        from explorer.ingest.demo import DEMO_SCOPE, load_demo

        if self.read_only:
            if reset:
                raise ReadOnlyStore("a graphiti memory is opened read-only: no demo is loaded")
            return False
        async with self._writing:
            if reset:  # what was added to the demo since goes with it
                await self._forget(DEMO_SCOPE)
            return await load_demo(self, progress=progress, reset=reset)

    async def aclose(self) -> None:
        # A server start under way finishes first: it runs in a thread that nothing cancels,
        # and one that finished after the servers were let go would leave a server running
        # that no process uses. The reconnect after it is not waited for.
        starting = self.supervision.get("starting")
        if starting is not None:
            await asyncio.gather(starting, return_exceptions=True)  # its failure was reported
        restarting = self.supervision.get("task")
        if restarting is not None and not restarting.done():
            restarting.cancel()
            await asyncio.gather(restarting, return_exceptions=True)
        for store in (self.graph, self.chunks, self.concepts, self.journal):
            if store is not None:
                try:
                    await store.aclose()
                except ExplorerError as error:
                    log.warning("closing a store failed: %s", error)
        self.graph = self.chunks = self.concepts = None
        self.journal = None
