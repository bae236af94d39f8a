"""The composition root: settings in, the memory service out, with the adapters it runs on.

The only module that knows which adapters are in use. ``open_memory`` starts or attaches the
configured stores (the embedded servers under the data directory by default, external ones by
URL, or a graphiti graph read-only), builds the ``StoreMemoryService`` over them and yields it;
the CLI, the window (through ``SERVICES``, the ``ServiceFactory`` that ``app.py`` hands it), the
MCP server, eval and bench all open their memory here. Embedded servers this process started are
stopped when the context exits; ones it found running are left alone (``scour-explorer servers
start`` keeps them up between commands). Imports core, the settings, the service and, inside each
function so that ``--help`` stays quick, the adapters and ingest.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING

from explorer.adapters.snapshots import FileSnapshots
from explorer.core.errors import ExplorerError, StoreUnavailable
from explorer.core.lexical import LexicalIndexCache
from explorer.core.ports import (
    CHUNKS,
    GRAPH,
    ChunkStore,
    ConceptStore,
    Embedder,
    GraphStore,
    RecallJournal,
)
from explorer.core.shape import ShapeCache
from explorer.memory import RECONNECT_SECONDS, StoreMemoryService
from explorer.settings import Settings, load_settings

if TYPE_CHECKING:
    from explorer.adapters.embedded import EmbeddedServers
    from explorer.ingest.extractor import Extractor

log = logging.getLogger(__name__)


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


def make_extractor(settings: Settings) -> Extractor | None:
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


def embedded_servers(settings: Settings, *, reuse_timeout: float | None = None) -> EmbeddedServers:
    """The manager of the embedded servers under the data directory of ``settings``; a running
    server that does not answer within ``reuse_timeout`` (default: the start timeout) is taken
    for frozen."""
    from explorer.adapters.embedded import EmbeddedServers

    return EmbeddedServers(
        settings.data_dir, start_timeout=settings.start_timeout, reuse_timeout=reuse_timeout
    )


@dataclass(frozen=True)
class AdapterConnector:
    """The ``StoreConnector`` of ``settings``: FalkorDB and PostgreSQL adapters at the configured
    URLs, else on the sockets of the embedded ``servers``."""

    settings: Settings
    servers: EmbeddedServers | None
    embedder: Embedder

    def _servers(self) -> EmbeddedServers:
        if self.servers is None:
            raise StoreUnavailable("no embedded servers and no external store configured")
        return self.servers

    def _dsn(self) -> str:
        return self.settings.postgres_dsn or self._servers().postgres_dsn

    async def graph(self) -> GraphStore:
        from explorer.adapters.falkor import FalkorGraphStore

        settings = self.settings
        if settings.falkordb_url:
            return await FalkorGraphStore.connect(
                url=settings.falkordb_url,
                graph=settings.graph_name,
                deadline=settings.query_timeout,
                connect_deadline=settings.connect_timeout,
            )
        return await FalkorGraphStore.connect(
            socket_path=self._servers().falkordb_socket,
            graph=settings.graph_name,
            deadline=settings.query_timeout,
            connect_deadline=settings.connect_timeout,
        )

    async def chunks(self) -> ChunkStore:
        from explorer.adapters.postgres.chunks import PgChunkStore

        settings = self.settings
        return await PgChunkStore.connect(
            self._dsn(), deadline=settings.query_timeout, connect_deadline=settings.connect_timeout
        )

    async def concepts(self) -> ConceptStore:
        from explorer.adapters.postgres.concepts import PgConceptStore

        settings = self.settings
        return await PgConceptStore.connect(
            self._dsn(), deadline=settings.query_timeout, connect_deadline=settings.connect_timeout
        )

    async def journal(self) -> RecallJournal:
        from explorer.adapters.postgres.journal import PgRecallJournal

        settings = self.settings
        return await PgRecallJournal.connect(
            self._dsn(),
            deadline=settings.query_timeout,
            keep_days=settings.journal_keep_days,
            keep_calls=settings.journal_keep_calls,
        )

    async def graphiti(self) -> tuple[GraphStore, ChunkStore, ConceptStore]:
        from explorer.adapters.graphiti import open_graphiti

        settings = self.settings
        assert settings.graphiti_graph is not None
        url = settings.falkordb_url
        stores = await open_graphiti(
            settings.graphiti_graph,
            url=url,
            socket_path=None if url else self._servers().falkordb_socket,
            query_spec=self.embedder.spec,
            embedding_model=settings.graphiti_embedding_model,
            deadline=settings.query_timeout,
        )
        return stores.graph, stores.chunks, stores.concepts


def build_memory(
    settings: Settings,
    *,
    embedder: Embedder | None = None,
    servers: EmbeddedServers | None = None,
) -> StoreMemoryService:
    """The service of ``settings``, not yet connected (``open_memory`` also starts servers)."""
    chosen = embedder if embedder is not None else make_embedder(settings)
    # A graphiti graph's stamps do not name the graph, so its indexes are not kept between runs.
    snapshots = None if settings.graphiti_graph else FileSnapshots(settings.data_dir / "indexes")
    return StoreMemoryService(
        settings=settings,
        embedder=chosen,
        connector=AdapterConnector(settings, servers, chosen),
        servers=servers,
        extractor=make_extractor(settings),
        lexical_index=LexicalIndexCache(snapshots=snapshots),
        shape=ShapeCache(snapshots=snapshots),
        snapshots=snapshots,
    )


async def _start_servers(memory: StoreMemoryService, servers: EmbeddedServers) -> None:
    """Start or reuse the embedded servers under this process's lease; a server that did not
    start is kept in ``start_errors`` (the other one is still half a memory)."""
    from explorer.adapters.embedded import ServersFailed

    loop = asyncio.get_running_loop()
    try:
        await loop.run_in_executor(None, servers.open, memory.settings.idle_timeout)
    except StoreUnavailable as error:
        failures = (
            error.failures
            if isinstance(error, ServersFailed) and error.failures
            else {"falkordb": str(error), "postgres": str(error)}
        )
        for server, half in (("falkordb", GRAPH), ("postgres", CHUNKS)):
            if server in failures:
                memory.start_errors[half] = failures[server]
                log.warning("embedded %s did not start: %s", server, failures[server])


async def _load_model(embedder: Embedder) -> None:
    """Load a local embedder's model in a worker thread; a failure is left to the first query
    that needs the model, which reports it."""
    warm_up = getattr(embedder, "warm_up", None)
    if callable(warm_up):
        try:
            await asyncio.to_thread(warm_up)
        except Exception as error:  # reported again, in words, by the query that needs it
            log.warning("the embedding model did not load: %s", error)


@asynccontextmanager
async def open_memory(
    settings: Settings | None = None,
    *,
    data_dir: Path | None = None,
    stop_servers: bool | None = None,
) -> AsyncIterator[StoreMemoryService]:
    """Start or attach the configured stores and yield the open memory service.

    Embedded servers are used under a lease (``adapters.embedded.lease``): on exit the last
    process using them stops them, unless ``servers start`` made them persistent, and a
    watcher stops them ``idle_timeout`` seconds after a killed process. ``stop_servers=True``
    stops them on exit whoever else uses them.
    """
    if settings is None:
        settings = load_settings(overrides={"data_dir": data_dir})
    elif data_dir is not None:
        settings = replace(settings, data_dir=Path(data_dir))
    # A graphiti graph on an external FalkorDB needs no embedded server at all.
    servers = (
        embedded_servers(settings, reuse_timeout=settings.connect_timeout)
        if settings.embedded and not (settings.graphiti_graph and settings.falkordb_url)
        else None
    )
    memory = build_memory(settings, servers=servers)
    try:
        # Inside the try: a command cancelled (SIGTERM) while the servers start still lets go.
        # The embedding model loads while the servers start, not during the first query.
        if servers is not None:
            await asyncio.gather(_start_servers(memory, servers), _load_model(memory.embedder))
        else:
            await _load_model(memory.embedder)
        await memory.connect()
        if memory.errors:
            # A store just failed within connect_timeout; the first query must not wait again.
            memory.hold_reconnect(RECONNECT_SECONDS)
        yield memory
    finally:
        await memory.aclose()
        if servers is not None:
            leave = servers.stop if stop_servers else servers.close
            try:
                await asyncio.get_running_loop().run_in_executor(None, leave)
            except StoreUnavailable as error:
                # The command's own answer stands; a server left running is named here.
                log.warning("embedded servers were not stopped: %s", error)


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
        (GRAPH, CHUNKS),
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
    from explorer.adapters.embedded import EmbeddedServers
    from explorer.adapters.graphiti import graphiti_graphs

    if settings.falkordb_url:
        return await graphiti_graphs(url=settings.falkordb_url, deadline=settings.connect_timeout)
    servers = EmbeddedServers(settings.data_dir)
    return await graphiti_graphs(
        socket_path=servers.falkordb_socket, deadline=settings.connect_timeout
    )


class Services:
    """The ``ServiceFactory`` the window is handed: opens memories and looks at stores here, so
    that the GUI package never imports an adapter, ingest or the service itself."""

    @property
    def formats(self) -> tuple[str, ...]:
        from explorer.ingest.importers import FORMATS

        return FORMATS

    def open(self, settings: Settings) -> AbstractAsyncContextManager[StoreMemoryService]:
        return open_memory(settings)

    async def test_connection(self, settings: Settings) -> dict[str, tuple[bool, str]]:
        return await test_connection(settings)

    async def graphiti_graphs(self, settings: Settings) -> list[str]:
        return await list_graphiti_graphs(settings)

    def detect_format(self, path: Path | str) -> str | None:
        from explorer.ingest.importers import detect_format

        return detect_format(path)

    def suggest_scope(self, path: Path | str) -> str:
        from explorer.ingest.importers import suggest_scope

        return suggest_scope(path)


SERVICES = Services()
