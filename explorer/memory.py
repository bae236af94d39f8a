"""The open memory: both stores, the embedder and the retrieval policy behind one handle.

``open_memory`` starts or attaches the configured stores (the embedded servers under the data
directory by default, or external ones by URL), connects the adapters and yields a ``Memory``.
A store that cannot be reached does not stop the other: its half is ``None`` with the reason in
``errors`` and ``reconnect`` tries again, so scour answers with the half it has. Embedded servers
this process started are stopped when the context exits; ones it found running are left alone
(``scour-explorer servers start`` keeps them up between commands). This module and ``app.py`` are
the only places that know which adapters are in use.
"""

from __future__ import annotations

import asyncio
import gc
import logging
import time
from collections.abc import AsyncIterator, Mapping
from contextlib import asynccontextmanager
from dataclasses import dataclass, field, replace
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from explorer.core.errors import ExplorerError, ReadOnlyStore, StoreUnavailable
from explorer.core.lexical import LexicalIndexCache
from explorer.core.models import DEFAULT_SCOPE, Entity, Subgraph
from explorer.core.overview import (
    MemoryOverview,
    example_queries,
    prefixed_counts,
    scope_tree,
)
from explorer.core.policy import RetrievalPolicy
from explorer.core.ports import ChunkStore, ConceptStore, Embedder, GraphStore, RecallJournal
from explorer.core.scour import ScourRequest, ScourResult, scour
from explorer.core.shape import ShapeCache
from explorer.core.termscan import TermScan
from explorer.settings import Settings, load_settings

if TYPE_CHECKING:
    from explorer.ingest.pipeline import IngestReport
    from explorer.ingest.progress import ProgressCallback

log = logging.getLogger(__name__)

#: The shortest pause between two attempts to reach a store that was down.
RECONNECT_SECONDS = 2.0


def _exempt_long_lived() -> None:
    """Take what is alive now, the search caches just built, out of later garbage collections.

    At the seed scale the BM25 indexes and concept records are hundreds of thousands of
    long-lived objects, and every full collection walked them all again (it doubled scour's
    p95). They hold no reference cycles, so reference counting still frees a replaced cache.
    """
    gc.collect()
    gc.freeze()


def make_embedder(settings: Settings) -> Embedder:
    """The configured embedder; the local one unless Gemini is chosen and has a key."""
    if settings.embedder == "gemini":
        from explorer.adapters.gemini import GeminiEmbedder, load_gemini_key

        key = settings.gemini_api_key or load_gemini_key({})
        if not key:
            raise ExplorerError(
                "embedder 'gemini' needs a key: set GEMINI_API_KEY or store one in the OS keyring"
            )
        return GeminiEmbedder(
            api_key=key, model=settings.gemini_model, dimension=settings.gemini_dimension
        )
    from explorer.adapters.local_embedder import LocalEmbedder

    return LocalEmbedder()


def make_extractor(settings: Settings) -> Any:
    """The Gemini extractor when chosen, else ``None`` (ingest then uses the offline one)."""
    if settings.extractor != "gemini":
        return None
    from explorer.adapters.gemini import GeminiJsonModel, load_gemini_key
    from explorer.ingest.gemini_extractor import GeminiExtractor

    key = settings.gemini_api_key or load_gemini_key({})
    if not key:
        raise ExplorerError(
            "extractor 'gemini' needs a key: set GEMINI_API_KEY or store one in the OS keyring"
        )
    return GeminiExtractor(GeminiJsonModel(key, model=settings.gemini_extract_model))


@dataclass
class Memory:
    """What ``open_memory`` yields: the stores (``None`` while unreachable) and the policy."""

    settings: Settings
    embedder: Embedder
    policy: RetrievalPolicy = field(default_factory=RetrievalPolicy)
    graph: GraphStore | None = None
    chunks: ChunkStore | None = None
    concepts: ConceptStore | None = None
    # The agent calls made through the tool contract, beside the chunks in PostgreSQL.
    journal: RecallJournal | None = None
    servers: Any = None  # EmbeddedServers when the embedded default is used
    extractor: Any = None  # an ingest Extractor; None means the offline default
    errors: dict[str, str] = field(default_factory=dict)
    # Why an embedded server did not start, by half: a better reason than "cannot connect".
    start_errors: dict[str, str] = field(default_factory=dict)
    # The concept scan with its read cache, kept across calls once the concept store is up.
    term_scan: TermScan | None = None
    # Per-scope BM25 indexes of the lexical route, kept across calls (a write invalidates).
    lexical_index: LexicalIndexCache = field(default_factory=LexicalIndexCache)
    # The graph's entities and relations in process for activation (a write invalidates).
    shape: ShapeCache = field(default_factory=ShapeCache)
    # Restart attempts of embedded servers that died (``explorer.supervise``).
    supervision: dict[str, Any] = field(default_factory=dict, repr=False)
    _next_reconnect: float = field(default=0.0, repr=False)
    _import: asyncio.Task[Any] | None = field(default=None, repr=False)
    # Cache builds already taken out of garbage collection (the shape also builds between calls).
    _exempted_builds: int = field(default=0, repr=False)

    async def scour(
        self, request: ScourRequest, policy: RetrievalPolicy | None = None
    ) -> ScourResult:
        """Run scour over whichever halves are connected."""
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
        return result

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
        return await ingest_file(self, path, fmt, scope=scope, skip_bad=skip_bad, progress=progress)

    async def finish_pending(self, progress: ProgressCallback | None = None) -> int:
        """After an import was cancelled: wait until it has stopped, then complete the chunks it
        left pending (their entities, relations and concepts), so nothing stays half-imported.
        Returns how many chunks were completed."""
        from explorer.ingest.pipeline import reconcile

        running = self._import
        if running is not None and not running.done() and running is not asyncio.current_task():
            await asyncio.wait({running})
        return await reconcile(self, progress=progress)

    def _cache_builds(self) -> int:
        scans = self.term_scan.builds if self.term_scan is not None else 0
        return self.lexical_index.builds + scans + self.shape.builds

    async def connect(self) -> None:
        """Connect every store not yet connected; failures are kept in ``errors``."""
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
        from explorer.adapters.graphiti import open_graphiti

        settings = self.settings
        assert settings.graphiti_graph is not None
        where: dict[str, Any] = (
            {"url": settings.falkordb_url}
            if settings.falkordb_url
            else {"socket_path": self.servers.falkordb_socket}
        )
        try:
            stores = await open_graphiti(
                settings.graphiti_graph,
                query_spec=self.embedder.spec,
                embedding_model=settings.graphiti_embedding_model,
                deadline=settings.query_timeout,
                **where,
            )
        except StoreUnavailable as error:
            self.errors["graph"] = self.errors["chunks"] = str(error)
            return
        self.graph, self.chunks, self.concepts = stores.graph, stores.chunks, stores.concepts
        self.term_scan = TermScan(self.concepts)
        self.errors.pop("graph", None)
        self.errors.pop("chunks", None)

    async def reconnect(self) -> None:
        """Try again the stores that were unreachable, at most once per ``RECONNECT_SECONDS``.

        Every scour calls this while a store is down; without the pause each query would wait
        out a connect deadline against a store that is known to be gone.
        """
        if self.errors and time.monotonic() >= self._next_reconnect:
            self._next_reconnect = time.monotonic() + RECONNECT_SECONDS
            await self.connect()

    async def _connect_graph(self) -> None:
        if self.graph is not None:
            return
        from explorer.adapters.falkor import FalkorGraphStore

        settings = self.settings
        try:
            if settings.falkordb_url:
                self.graph = await FalkorGraphStore.connect(
                    url=settings.falkordb_url,
                    graph=settings.graph_name,
                    deadline=settings.query_timeout,
                    connect_deadline=settings.connect_timeout,
                )
            else:
                self.graph = await FalkorGraphStore.connect(
                    socket_path=self.servers.falkordb_socket,
                    graph=settings.graph_name,
                    deadline=settings.query_timeout,
                    connect_deadline=settings.connect_timeout,
                )
            self.errors.pop("graph", None)
            self.start_errors.pop("graph", None)
        except StoreUnavailable as error:
            self.errors["graph"] = self.start_errors.get("graph") or str(error)

    async def _connect_postgres(self) -> None:
        if self.read_only:
            return  # a graphiti memory has no PostgreSQL half (and so no recall journal)
        if self.chunks is not None and self.concepts is not None and self.journal is not None:
            return
        from explorer.adapters.postgres.chunks import PgChunkStore
        from explorer.adapters.postgres.concepts import PgConceptStore
        from explorer.adapters.postgres.journal import PgRecallJournal

        dsn = self.settings.postgres_dsn or self.servers.postgres_dsn
        deadline = self.settings.query_timeout
        try:
            if self.chunks is None:
                self.chunks = await PgChunkStore.connect(
                    dsn, deadline=deadline, connect_deadline=self.settings.connect_timeout
                )
            if self.concepts is None:
                self.concepts = await PgConceptStore.connect(
                    dsn, deadline=deadline, connect_deadline=self.settings.connect_timeout
                )
                self.term_scan = TermScan(self.concepts)
            if self.journal is None:
                self.journal = await PgRecallJournal.connect(
                    dsn,
                    deadline=deadline,
                    keep_days=self.settings.journal_keep_days,
                    keep_calls=self.settings.journal_keep_calls,
                )
            self.errors.pop("chunks", None)
            self.start_errors.pop("chunks", None)
        except StoreUnavailable as error:
            self.errors["chunks"] = self.start_errors.get("chunks") or str(error)

    def require_stores(self) -> tuple[GraphStore, ChunkStore, ConceptStore]:
        """All three stores, or ``StoreUnavailable`` naming the ones that are down."""
        if self.graph is None or self.chunks is None or self.concepts is None:
            reasons = "; ".join(f"{name}: {why}" for name, why in self.errors.items())
            raise StoreUnavailable(f"this command needs both stores: {reasons or 'not connected'}")
        return self.graph, self.chunks, self.concepts

    async def supervise(self) -> dict[str, str]:
        """Restart embedded servers that died (see ``explorer.supervise``); the halves being
        restarted and how it goes. Only looks at processes while everything runs."""
        from explorer.supervise import supervise

        return await supervise(self)

    async def reconnect_half(self, half: str) -> None:
        """Connect the stores of one half (``graph``, ``chunks``) anew."""
        from explorer.supervise import reconnect_half

        self.supervision.clear()
        await reconnect_half(self, half)

    async def restart_half(self, half: str) -> None:
        """Restart the embedded server of one half and reconnect its stores."""
        from explorer.supervise import restart_half

        self.supervision.clear()
        await restart_half(self, half)

    async def health(self) -> dict[str, str]:
        """``"ok"`` or the reason, per store; never raises. A dead embedded server is
        restarted first (its half says ``restarting…`` until it answers)."""
        try:
            restarting = await self.supervise()
        except ExplorerError as error:
            restarting = {"graph": str(error), "chunks": str(error)}
        await self.reconnect()
        report = {
            "graph": self.errors.get("graph", "ok"),
            "chunks": self.errors.get("chunks", "ok"),
            **restarting,
        }
        probes: list[tuple[str, Any]] = []
        if self.graph is not None and "graph" not in restarting:
            probes.append(("graph", self.graph.counts()))
        if self.chunks is not None and "chunks" not in restarting:
            probes.append(("chunks", self.chunks.counts()))
        results = await asyncio.gather(*(probe for _, probe in probes), return_exceptions=True)
        for (name, _), outcome in zip(probes, results, strict=True):
            if isinstance(outcome, BaseException):
                report[name] = str(outcome) or type(outcome).__name__
        return report

    async def ensure_demo(self, progress: Any = None, *, reset: bool = False) -> bool:
        """Load the demo memory if this memory is empty (or ``reset``); True if it loaded."""
        from explorer.ingest.demo import load_demo

        if self.read_only:
            if reset:
                raise ReadOnlyStore("a graphiti memory is opened read-only: no demo is loaded")
            return False
        return await load_demo(self, progress=progress, reset=reset)

    async def aclose(self) -> None:
        for store in (self.graph, self.chunks, self.concepts, self.journal):
            if store is not None:
                try:
                    await store.aclose()
                except ExplorerError as error:
                    log.warning("closing a store failed: %s", error)
        self.graph = self.chunks = self.concepts = None
        self.journal = None


async def test_connection(settings: Settings) -> dict[str, tuple[bool, str]]:
    """Whether each store of ``settings`` answers, with its version, per half; writes nothing.

    An external store is connected to once and left; an embedded one is only looked at (it is
    started when the memory is opened).
    """
    from explorer.adapters.embedded import EmbeddedServers
    from explorer.adapters.falkor import FalkorGraphStore
    from explorer.adapters.postgres.pool import server_version

    deadline = settings.connect_timeout
    # Looking at embedded servers probes their sockets, which blocks.
    statuses = (
        await asyncio.to_thread(EmbeddedServers(settings.data_dir).status)
        if settings.embedded
        else ()
    )
    embedded = {status.name: status for status in statuses}

    def local(name: str) -> tuple[bool, str]:
        status = embedded[name]
        if status.running:
            return True, f"embedded {name} {status.version}, running at {status.address}"
        return True, f"embedded {name} under {settings.data_dir}, started when opened"

    async def graph() -> tuple[bool, str]:
        if settings.falkordb_url is None:
            return local("falkordb")
        store = await FalkorGraphStore.connect(
            url=settings.falkordb_url,
            graph=settings.graph_name,
            deadline=deadline,
            ensure_schema=False,
        )
        try:
            return True, await store.version()
        finally:
            await store.aclose()

    async def chunks() -> tuple[bool, str]:
        if settings.postgres_dsn is None:
            return local("postgres")
        return True, await server_version(settings.postgres_dsn, deadline)

    report: dict[str, tuple[bool, str]] = {}
    for half, outcome in zip(
        ("graph", "chunks"),
        await asyncio.gather(graph(), chunks(), return_exceptions=True),
        strict=True,
    ):
        if isinstance(outcome, ExplorerError):
            report[half] = (False, str(outcome))
        elif isinstance(outcome, BaseException):
            raise outcome
        else:
            report[half] = outcome
    return report


async def list_graphiti_graphs(settings: Settings) -> list[str]:
    """The graphs on the FalkorDB of ``settings`` (``falkordb_url``, else the embedded one, which
    must be running) that look like graphiti's; reads nothing else."""
    from explorer.adapters.graphiti import graphiti_graphs

    if settings.falkordb_url:
        return await graphiti_graphs(url=settings.falkordb_url, deadline=settings.connect_timeout)
    from explorer.adapters.embedded import EmbeddedServers

    servers = EmbeddedServers(settings.data_dir)
    return await graphiti_graphs(
        socket_path=servers.falkordb_socket, deadline=settings.connect_timeout
    )


async def _start_servers(memory: Memory) -> None:
    """Start or reuse the embedded servers under this process's lease; a server that did not
    start is kept in ``start_errors`` (the other one is still half a memory)."""
    loop = asyncio.get_running_loop()
    try:
        await loop.run_in_executor(None, memory.servers.open, memory.settings.idle_timeout)
    except StoreUnavailable as error:
        failures = getattr(error, "failures", None) or {
            "falkordb": str(error),
            "postgres": str(error),
        }
        for server, half in (("falkordb", "graph"), ("postgres", "chunks")):
            if server in failures:
                memory.start_errors[half] = failures[server]
                log.warning("embedded %s did not start: %s", server, failures[server])


@asynccontextmanager
async def open_memory(
    settings: Settings | None = None,
    *,
    data_dir: Path | None = None,
    stop_servers: bool | None = None,
) -> AsyncIterator[Memory]:
    """Start or attach the configured stores and yield the open ``Memory``.

    Embedded servers are used under a lease (``adapters.embedded.lease``): on exit the last
    process using them stops them, unless ``servers start`` made them persistent, and a
    watcher stops them ``idle_timeout`` seconds after a killed process. ``stop_servers=True``
    stops them on exit whoever else uses them.
    """
    if settings is None:
        settings = load_settings(overrides={"data_dir": data_dir})
    elif data_dir is not None:
        settings = Settings(**{**settings.__dict__, "data_dir": Path(data_dir)})
    memory = Memory(
        settings=settings, embedder=make_embedder(settings), extractor=make_extractor(settings)
    )
    # A graphiti graph on an external FalkorDB needs no embedded server at all.
    if settings.embedded and not (settings.graphiti_graph and settings.falkordb_url):
        from explorer.adapters.embedded import EmbeddedServers

        memory.servers = EmbeddedServers(
            settings.data_dir,
            start_timeout=settings.start_timeout,
            reuse_timeout=settings.connect_timeout,
        )
    try:
        # Inside the try: a command cancelled (SIGTERM) while the servers start still lets go.
        if memory.servers is not None:
            await _start_servers(memory)
        await memory.connect()
        if memory.errors:
            # A store just failed within connect_timeout; the first query must not wait again.
            memory._next_reconnect = time.monotonic() + RECONNECT_SECONDS
        yield memory
    finally:
        await memory.aclose()
        if memory.servers is not None:
            servers = memory.servers
            leave = servers.stop if stop_servers else servers.close
            try:
                await asyncio.get_running_loop().run_in_executor(None, leave)
            except StoreUnavailable as error:
                # The command's own answer stands; a server left running is named here.
                log.warning("embedded servers were not stopped: %s", error)
