"""The one object that talks to the memory service; every async call of the GUI goes through it.

``ServiceBridge`` opens the memory in the background (the window is already up, with progress
messages) through the ``ServiceFactory`` it is handed, on a service thread with its own loop (the
drivers parse replies in Python, which must not freeze the window; see ``service_thread``), runs
queries with latest-wins cancellation, fetches neighbourhoods, entities and mention chunks, detaches
aliases (undoing a merge) and allows detached ones again, runs layouts on a worker thread, keeps
per-half health (``store_health``), and shuts everything down in order. It speaks to the memory
only through ``core.ports.MemoryService`` and hands widgets typed answers (``ScourResult`` inside
a ``QueryOutcome``). Widgets call its plain methods and listen to its signals; they never await.
Failures become signals (``query_failed``, ``error_occurred``), never exceptions in a slot. Imports
Qt, asyncio, the standard library, core types and the GUI's plain modules; never the service, an
adapter or ingest.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable, Collection, Coroutine, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import cast

from PySide6.QtCore import QObject, Signal

from explorer.core.credit import SPEAKER_TYPES
from explorer.core.errors import ExplorerError, ReadOnlyStore, StoreUnavailable, WriteFailed
from explorer.core.models import DEFAULT_SCOPE, Chunk
from explorer.core.policy import DEFAULT_POLICY, RetrievalPolicy
from explorer.core.ports import CHUNKS, GRAPH, HALVES, OK, MemoryService, ServiceFactory
from explorer.core.progress import Progress
from explorer.core.scour import ScourRequest, ScourResult
from explorer.gui import import_run
from explorer.gui.layout import LayoutRequest, compute_layout
from explorer.gui.query_run import build_request, links_for, scour_with_preview
from explorer.gui.recalled import timings_of
from explorer.gui.requests import (
    EntityDetails,
    Expansion,
    ImportOutcome,
    ImportRequest,
    QueryOutcome,
    QueryParams,
)
from explorer.gui.service_thread import MemoryHost
from explorer.gui.store_health import StoreHealth
from explorer.settings import Settings

_log = logging.getLogger(__name__)

__all__ = ["CHUNKS", "GRAPH", "HALVES", "OK", "Opener", "ServiceBridge"]

#: Mentions fetched at once when an entity is selected; "all N mentions" fetches the rest.
FIRST_MENTIONS = 12
MAX_MENTIONS = 500

Opener = Callable[[Settings], contextlib.AbstractAsyncContextManager[MemoryService]]


def _loop() -> asyncio.AbstractEventLoop:
    try:
        return asyncio.get_running_loop()
    except RuntimeError:
        # A Qt slot runs outside any coroutine; qasync's loop is the thread's current one.
        return asyncio.get_event_loop_policy().get_event_loop()


class ServiceBridge(QObject):
    """See the module docstring. Construct with settings and the services that open them (it
    opens and owns the memory) or with an already-open ``memory`` (it only borrows it and never
    closes it)."""

    opening_progress = Signal(str)
    memory_ready = Signal()
    memory_failed = Signal(str)
    domains_loaded = Signal(list)
    busy_changed = Signal(bool)
    query_started = Signal(int, str)
    query_finished = Signal(object)  # QueryOutcome
    query_preview = Signal(object)  # QueryOutcome of the chunks alone, while the graph is slow
    query_failed = Signal(int, str)
    query_cancelled = Signal(int)
    expansion_ready = Signal(object)  # Expansion
    entity_ready = Signal(object)  # EntityDetails
    chunk_links_ready = Signal(dict)  # chunk id -> entity ids
    entities_ready = Signal(list)  # Entity values asked for by id
    alias_detached = Signal(str, str, bool)  # entity id, alias, whether the store removed it
    alias_detach_failed = Signal(str, str, str)  # entity id, alias, why (a read-only memory)
    alias_allowed = Signal(str, str, bool)  # entity id, alias, whether a refusal was dropped
    alias_allow_failed = Signal(str, str, str)  # entity id, alias, why (a read-only memory)
    layout_ready = Signal(object)  # LayoutResult
    health_changed = Signal(dict)  # half -> "ok" or what is wrong
    overview_ready = Signal(object)  # MemoryOverview
    scope_forgotten = Signal(object)  # core.ports.Forgotten
    scope_forget_failed = Signal(str, str, bool)  # scope, why, whether part of it went
    import_progress = Signal(object)  # core.progress.Progress
    import_finished = Signal(object)  # ImportOutcome
    connection_tested = Signal(dict)  # half -> (answers, version or reason)
    graphiti_listed = Signal(list)  # the graphiti graphs found on a server
    graphiti_list_failed = Signal(str)
    error_occurred = Signal(str, str)  # title, detail
    closed = Signal()

    def __init__(
        self,
        settings: Settings | None = None,
        *,
        services: ServiceFactory | None = None,
        memory: MemoryService | None = None,
        opener: Opener | None = None,
        poll_interval: float = 2.0,
        service_thread: bool = True,
        parent: QObject | None = None,
    ) -> None:
        super().__init__(parent)
        self._settings = settings if settings is not None or memory is None else memory.settings
        self._memory = memory
        self.services = services
        self._opener = opener if opener is not None else (services.open if services else None)
        self._stack: contextlib.AsyncExitStack | None = None
        # A memory this bridge opens lives on its own thread and loop (see service_thread);
        # one handed in is used as it is, on whatever loop it belongs to.
        self._use_host = memory is None and service_thread
        self._host: MemoryHost | None = None
        self._tasks: set[asyncio.Task[None]] = set()
        # Tasks a close waits for rather than cancels: a forget cut short leaves half a scope.
        self._finish_before_close: set[asyncio.Task[None]] = set()
        self._latest: dict[str, asyncio.Task[None]] = {}
        self._query_tokens: dict[asyncio.Task[None], int] = {}
        self._opening: asyncio.Task[None] | None = None
        self._executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="layout")
        self._token = 0
        self._busy = False
        self._closing = False
        self._closed = False
        self._opened = False
        self._closed_event = asyncio.Event()
        self._pending_query: QueryParams | None = None
        self._last_query: QueryParams | None = None
        self._import_cancelled = False
        self._health = StoreHealth(self, poll_interval)
        self.timings: dict[str, float] = {}

    # ------------------------------------------------------------------ state

    @property
    def memory(self) -> MemoryService | None:
        return self._memory

    @property
    def settings(self) -> Settings | None:
        return self._memory.settings if self._memory is not None else self._settings

    @property
    def health(self) -> dict[str, str]:
        """Per half, ``"ok"`` or what is wrong with it."""
        return self._health.halves

    @property
    def policy(self) -> RetrievalPolicy:
        """The policy the next query runs under (the memory's own)."""
        return self._memory.policy if self._memory is not None else DEFAULT_POLICY

    def set_policy(self, policy: RetrievalPolicy) -> None:
        """The policy the next query (and a re-run) runs under."""
        if self._memory is not None:
            self._memory.policy = policy

    @property
    def read_only(self) -> bool:
        """True when the open memory is only ever read (a graphiti graph): no alias changes."""
        return self._memory is not None and self._memory.read_only

    @property
    def ready(self) -> bool:
        return self._memory is not None and not self._closing

    @property
    def opened(self) -> bool:
        """True once the memory is open and the first-run demo check is done."""
        return self._opened and self.ready

    @property
    def busy(self) -> bool:
        return self._busy

    @property
    def closing(self) -> bool:
        return self._closing

    @property
    def is_closed(self) -> bool:
        return self._closed

    def pending_tasks(self) -> int:
        return sum(1 for task in self._tasks if not task.done())

    # ------------------------------------------------------------------ task plumbing

    def spawn(
        self, coro: Coroutine[object, object, None], kind: str | None = None
    ) -> asyncio.Task[None]:
        """Run ``coro`` as one of the bridge's tasks (a newer one of the same ``kind`` cancels
        it); its failure becomes ``error_occurred``."""
        if kind is not None:
            stale = self._latest.get(kind)
            if stale is not None and not stale.done():
                stale.cancel()
        task = _loop().create_task(coro)
        self._tasks.add(task)
        if kind is not None:
            self._latest[kind] = task
        task.add_done_callback(self._on_task_done)
        return task

    def _on_task_done(self, task: asyncio.Task[None]) -> None:
        self._tasks.discard(task)
        self._finish_before_close.discard(task)
        token = self._query_tokens.pop(task, None)
        if token is not None and task.cancelled():
            self.query_cancelled.emit(token)
        if not task.cancelled():
            error = task.exception()
            if error is not None:
                _log.error("background task failed", exc_info=error)
                self.error_occurred.emit("Unexpected error", f"{type(error).__name__}: {error}")
        self._update_busy()

    def _update_busy(self) -> None:
        query = self._latest.get("query")
        busy = (self._opening is not None and not self._opening.done()) or (
            query is not None and not query.done()
        )
        if busy != self._busy:
            self._busy = busy
            self.busy_changed.emit(busy)

    # ------------------------------------------------------------------ opening

    def open(self) -> None:
        """Open the memory in the background; ``memory_ready`` or ``memory_failed`` follows."""
        if self._memory is not None:
            self.spawn(self._after_open(self._memory, load_demo=False), kind="open-rest")
            return
        if self._opening is not None:
            return
        self._opening = self.spawn(self._open())
        self._update_busy()

    async def _open(self) -> None:
        self.opening_progress.emit("Starting the memory stores…")
        try:
            memory = await self._enter_memory()
        except asyncio.CancelledError:
            raise
        except Exception as exc:
            # Whatever went wrong (a store, the settings, a bug), opening has ended and the
            # window must say so instead of waiting forever.
            if not isinstance(exc, ExplorerError | OSError):
                _log.error("opening the memory failed", exc_info=exc)
            message = (
                f"{type(exc).__name__}: {exc}" if not isinstance(exc, ExplorerError) else str(exc)
            )
            self._health.reset(message)
            self.opening_progress.emit("The memory could not be opened")
            self.memory_failed.emit(message)
            return
        self._memory = memory
        if self._closing:
            return
        self.spawn(self._after_open(memory, load_demo=True), kind="open-rest")

    async def _enter_memory(self) -> MemoryService:
        opener, settings = self._opener, self._settings
        if opener is None or settings is None:
            raise ExplorerError("there is no memory to open: no settings or no way to open them")
        if self._use_host and self._host is None:
            self._host = MemoryHost()
        if self._host is not None:
            # The proxy stands in for the memory on the service loop.
            return cast(MemoryService, await self._host.open(opener, settings))
        stack = contextlib.AsyncExitStack()
        memory = await stack.enter_async_context(opener(settings))
        self._stack = stack
        return memory

    async def _after_open(self, memory: MemoryService, *, load_demo: bool) -> None:
        if load_demo and memory.settings.load_demo:
            self.opening_progress.emit("Checking for the demo memory…")
            try:
                await memory.ensure_demo(progress=self._demo_progress)
            except ExplorerError as exc:
                self.error_occurred.emit(
                    "Demo memory", f"The demo memory could not be loaded: {exc}"
                )
        await self._health.refresh(memory)
        await self.refresh_domains()
        self.opening_progress.emit("Ready")
        self._opened = True
        self.memory_ready.emit()
        self.request_overview()
        self.spawn(self._health.watch_servers(memory), kind="watchdog")
        pending, self._pending_query = self._pending_query, None
        if pending is not None:
            self.submit_query(pending)
        else:
            self.spawn(self._warm(memory), kind="warm")

    async def _warm(self, memory: MemoryService) -> None:
        """Build the default scope's search indexes while the user is still typing."""
        try:
            await memory.warm(memory.settings.default_scope or DEFAULT_SCOPE)
        except ExplorerError as exc:
            _log.info("warming the search indexes failed: %s", exc)

    def _demo_progress(self, *args: object, **kwargs: object) -> None:
        text = " ".join(str(a) for a in args if a is not None)
        if kwargs:
            text += " " + " ".join(f"{k}={v}" for k, v in kwargs.items())
        self.opening_progress.emit(f"Loading the demo memory… {text}".strip())

    def _service(self) -> MemoryService:
        if self._memory is None:
            raise StoreUnavailable("the memory is not open")
        return self._memory

    async def refresh_domains(self) -> None:
        try:
            domains = await self._service().domains()
        except ExplorerError as exc:
            _log.warning("domains unavailable: %s", exc)
            return
        self.domains_loaded.emit(list(domains))

    # ------------------------------------------------------------------ queries

    def submit_query(self, params: QueryParams) -> int:
        """Run a query; a newer one cancels this one. Returns its token."""
        self._token += 1
        token = self._token
        self._last_query = params
        if self._closing:
            return token
        if self._memory is None:
            self._pending_query = params
            self.opening_progress.emit("The query will run once the memory is open…")
            return token
        task = self.spawn(self._run_query(self._memory, token, params), kind="query")
        # A query cancelled before it ever ran never sees CancelledError, so the cancellation
        # is reported from the task's done-callback instead.
        self._query_tokens[task] = token
        self._update_busy()
        return token

    def rerun_after_recovery(self, halves: Sequence[str]) -> None:
        """A half came back: run the last query again, so its answer has both halves."""
        if self._last_query is not None:
            self.opening_progress.emit(
                "Recovered: " + ", ".join(halves) + "; running the query again"
            )
            self.submit_query(self._last_query)

    def cancel_query(self) -> None:
        self._pending_query = None
        task = self._latest.get("query")
        if task is not None and not task.done():
            task.cancel()

    async def _run_query(self, memory: MemoryService, token: int, params: QueryParams) -> None:
        self.query_started.emit(token, params.query)
        try:
            request = build_request(memory, params)

            def preview(answer: ScourResult) -> None:
                self.query_preview.emit(QueryOutcome.of(token, params, answer))

            answer = await scour_with_preview(memory, request, preview)
            if answer.failure is not None:
                # Every half failed: the lights still say which store is down and why.
                self._health.from_answer(answer)
                self.query_failed.emit(token, answer.failure)
                return
            links, degrees = await links_for(
                memory, answer, lambda error: self._health.set({GRAPH: error})
            )
            outcome = QueryOutcome.of(
                token, params, answer, entities_by_chunk=links, degrees=degrees
            )
            self.timings = timings_of(answer)
            self._health.from_answer(answer)
            self.query_finished.emit(outcome)
        except ExplorerError as exc:
            if isinstance(exc, StoreUnavailable):
                self._health.set({GRAPH: str(exc), CHUNKS: str(exc)})
            self.query_failed.emit(token, str(exc))

    def scour_then(
        self,
        request: ScourRequest,
        policy: RetrievalPolicy,
        then: Callable[[ScourResult], None],
        *,
        kind: str,
    ) -> None:
        """Scour ``request`` under ``policy`` without showing it (a comparison, a re-run case)
        and hand the answer to ``then``; a failure becomes ``error_occurred``."""

        async def run() -> None:
            try:
                answer = await self._service().scour(request, policy)
            except ExplorerError as exc:
                self.error_occurred.emit("Scour failed", str(exc))
                return
            then(answer)

        self.spawn(run(), kind)

    # ------------------------------------------------------------------ graph and entities

    def request_expand(self, node_id: str, cap: int) -> None:
        """Fetch up to ``cap`` neighbours of a node; answers on ``expansion_ready``."""
        if not self.ready:
            return
        self.spawn(self._expand(self._service(), node_id, cap))

    async def _expand(self, memory: MemoryService, node_id: str, cap: int) -> None:
        self._token += 1
        try:
            subgraph = await memory.neighbourhood([node_id], limit_per_node=cap)
            ids = list(subgraph.entities)
            degrees = await memory.degree(ids) if ids else {}
        except ExplorerError as exc:
            self._health.set({GRAPH: str(exc)})
            self.error_occurred.emit("Knowledge graph unavailable", str(exc))
            return
        self.expansion_ready.emit(
            Expansion(
                token=self._token,
                node_id=node_id,
                cap=cap,
                entities=tuple(subgraph.entities.values()),
                relations=tuple(subgraph.relations),
                degrees=degrees,
            )
        )

    def request_entity(
        self, entity_id: str, *, have: Collection[str] = (), everything: bool = False
    ) -> None:
        """Fetch an entity with its provenance and the chunks it is mentioned in.

        The first few mention chunks are fetched (all of them with ``everything``), skipping the
        ids in ``have``, which the caller already holds. Latest wins: selecting another entity
        drops this answer.
        """
        if not self.ready:
            return
        self._token += 1
        memory = self._service()
        self.spawn(self._entity(memory, self._token, entity_id, set(have), everything), "entity")

    def detach_alias(self, entity_id: str, alias: str) -> None:
        """Undo a merge: take ``alias`` off the entity in the graph store; the answer comes as
        ``alias_detached``, or ``alias_detach_failed`` when the memory refuses (read-only)."""
        if self.ready:
            memory = self._service()
            self._change_alias(
                lambda: memory.detach_alias(entity_id, alias),
                lambda done: self.alias_detached.emit(entity_id, alias, done),
                lambda why: self.alias_detach_failed.emit(entity_id, alias, why),
            )

    def allow_alias(self, entity_id: str, alias: str) -> None:
        """Forget that the user detached ``alias`` from the entity, so later imports may merge
        it again; the answer comes as ``alias_allowed``, or ``alias_allow_failed`` when the
        memory refuses (read-only)."""
        if self.ready:
            memory = self._service()
            self._change_alias(
                lambda: memory.allow_alias(entity_id, alias),
                lambda done: self.alias_allowed.emit(entity_id, alias, done),
                lambda why: self.alias_allow_failed.emit(entity_id, alias, why),
            )

    def _change_alias(
        self,
        change: Callable[[], Awaitable[bool]],
        done: Callable[[bool], None],
        failed: Callable[[str], None],
    ) -> None:
        """Run an alias change on the loop; its answer goes to ``done``, a refusal or a failed
        store (which also marks the graph half unhealthy) to ``failed`` in words."""

        async def run() -> None:
            try:
                changed = await change()
            except ReadOnlyStore as exc:
                failed(str(exc))
                return
            except ExplorerError as exc:
                self._health.set({GRAPH: str(exc)})
                failed(str(exc))
                return
            done(changed)

        self.spawn(run())

    async def _entity(
        self, memory: MemoryService, token: int, entity_id: str, have: set[str], everything: bool
    ) -> None:
        try:
            found = await memory.entities([entity_id])
        except ExplorerError as exc:
            self._health.set({GRAPH: str(exc)})
            self.entity_ready.emit(EntityDetails(token, entity_id, None))
            return
        entity = found[0] if found else None
        if entity is None:
            self.entity_ready.emit(EntityDetails(token, entity_id, None, complete=True))
            return
        order = list(dict.fromkeys(m.chunk_id for m in entity.mentions))
        wanted = order[: MAX_MENTIONS if everything else FIRST_MENTIONS]
        missing = [cid for cid in wanted if cid not in have]
        fetched: tuple[Chunk, ...] = ()
        said: tuple[Chunk, ...] = ()
        said_total = 0
        try:
            if missing:
                fetched = tuple(await memory.chunks_by_id(missing))
            if entity.type in SPEAKER_TYPES:
                limit = MAX_MENTIONS if everything else FIRST_MENTIONS
                turns, said_total = await memory.chunks_said_by(
                    entity.name, limit, scope=entity.scope or None
                )
                said = tuple(turns)
        except ExplorerError as exc:
            self._health.set({CHUNKS: str(exc)})
        self.entity_ready.emit(
            EntityDetails(
                token=token,
                entity_id=entity_id,
                entity=entity,
                chunks=fetched,
                mention_total=len(order),
                complete=len(wanted) == len(order) and len(said) == said_total,
                said=said,
                said_total=said_total,
            )
        )

    def request_entities(self, entity_ids: Sequence[str]) -> None:
        """Read some entities by id (ones a hovered chunk names); answers on ``entities_ready``."""
        if self.ready and entity_ids:
            self.spawn(self._entities(self._service(), list(entity_ids)))

    async def _entities(self, memory: MemoryService, entity_ids: list[str]) -> None:
        try:
            found = await memory.entities(entity_ids)
        except ExplorerError as exc:
            self._health.set({GRAPH: str(exc)})
            return
        self.entities_ready.emit(list(found))

    def request_chunk_links(self, chunk_ids: Sequence[str]) -> None:
        """Find which entities some chunks mention; answers on ``chunk_links_ready``."""
        if self.ready and chunk_ids:
            self.spawn(self._chunk_links(self._service(), list(chunk_ids)))

    async def _chunk_links(self, memory: MemoryService, chunk_ids: list[str]) -> None:
        try:
            links = await memory.entities_in_chunks(chunk_ids)
        except ExplorerError as exc:
            self._health.set({GRAPH: str(exc)})
            return
        self.chunk_links_ready.emit(links)

    def request_layout(self, request: LayoutRequest) -> None:
        """Lay out on the worker thread; answers on ``layout_ready``."""
        if self._closing:
            return
        self.spawn(self._layout(request))

    async def _layout(self, request: LayoutRequest) -> None:
        result = await _loop().run_in_executor(self._executor, compute_layout, request)
        self.layout_ready.emit(result)

    # ------------------------------------------------------------------ the memory as a whole

    def request_overview(self, scope: str = DEFAULT_SCOPE) -> None:
        """What the memory holds, for the overview and the scope picker; on ``overview_ready``."""
        if self.ready:
            self.spawn(self._overview(self._service(), scope), kind="overview")

    async def _overview(self, memory: MemoryService, scope: str) -> None:
        overview = await memory.overview(scope)
        for half in HALVES:
            if half in overview.errors:
                self._health.set({half: overview.errors[half]})
        self.overview_ready.emit(overview)

    def forget_scope(self, scope: str) -> None:
        """Delete a scope and every scope below it: ``scope_forgotten`` or
        ``scope_forget_failed`` with the reason, then a fresh overview either way. Never
        cancelled, by a later call or by closing the memory (a forget cut short would leave half
        a scope)."""
        if not self.ready:
            self.scope_forget_failed.emit(scope, "the memory is not open", False)
            return
        self._finish_before_close.add(self.spawn(self._forget(self._service(), scope)))

    async def _forget(self, memory: MemoryService, scope: str) -> None:
        try:
            forgotten = await memory.forget_scope(scope)
        except WriteFailed as exc:
            self.scope_forget_failed.emit(scope, str(exc), True)
        except ExplorerError as exc:
            self.scope_forget_failed.emit(scope, str(exc), False)
        else:
            self.scope_forgotten.emit(forgotten)
        await self._overview(memory, DEFAULT_SCOPE)
        await self.refresh_domains()

    def start_import(self, request: ImportRequest) -> None:
        """Import a file into the open memory; ``import_progress`` then ``import_finished``."""
        if not self.ready:
            self.import_finished.emit(ImportOutcome(request, error="the memory is not open"))
            return
        self.spawn(self._import(self._service(), request), kind="import")

    def _import_progress(self, progress: Progress) -> None:
        self.import_progress.emit(progress)

    async def _import(self, memory: MemoryService, request: ImportRequest) -> None:
        self._import_cancelled = False
        try:
            outcome = await import_run.import_file(memory, request, self._import_progress)
        except asyncio.CancelledError:
            # The user's cancel (not a shutdown): finish what the import wrote, in a task of
            # its own since this one is ending.
            if self._import_cancelled and not self._closing:
                self.spawn(self._finish_cancelled(memory, request), kind="import-finish")
            raise
        self.import_finished.emit(outcome)
        if not outcome.error:
            self.request_overview()
            await self.refresh_domains()

    async def _finish_cancelled(self, memory: MemoryService, request: ImportRequest) -> None:
        outcome = await import_run.finish_cancelled(memory, request, self._import_progress)
        self.import_finished.emit(outcome)
        if not outcome.error:
            self.request_overview()

    def cancel_import(self) -> None:
        task = self._latest.get("import")
        if task is not None and not task.done():
            self._import_cancelled = True
            task.cancel()

    def _factory(self) -> ServiceFactory:
        if self.services is None:
            raise ExplorerError("this window cannot reach stores on its own")
        return self.services

    def test_connection(self, settings: Settings) -> None:
        """Ask each store of ``settings`` for its version without opening a memory on it."""
        self.spawn(self._test_connection(settings), kind="test-connection")

    async def _test_connection(self, settings: Settings) -> None:
        try:
            report = await self._factory().test_connection(settings)
        except (ExplorerError, OSError) as exc:
            report = {half: (False, str(exc)) for half in HALVES}
        self.connection_tested.emit(report)

    def list_graphiti_graphs(self, settings: Settings) -> None:
        """The graphiti graphs on the FalkorDB of ``settings``; on ``graphiti_listed`` (or
        ``graphiti_list_failed``)."""
        self.spawn(self._list_graphiti(settings), kind="graphiti-list")

    async def _list_graphiti(self, settings: Settings) -> None:
        try:
            names = await self._factory().graphiti_graphs(settings)
        except (ExplorerError, OSError) as exc:
            self.graphiti_list_failed.emit(str(exc))
            return
        self.graphiti_listed.emit(list(names))

    def reopen(self, settings: Settings) -> None:
        """Close the open memory and open the one ``settings`` describe (another data
        directory, external servers, new options); ``memory_ready`` or ``memory_failed``."""
        if not self._closing:
            self.spawn(self._reopen(settings), kind="reopen")

    async def _reopen(self, settings: Settings) -> None:
        self.opening_progress.emit("Closing the memory…")
        await self._close_memory()
        self._settings = settings
        self._opening = None
        self._opened = False
        self._health.reset()
        self._opening = self.spawn(self._open())
        self._update_busy()

    def run_soon(self, factory: Callable[[], Awaitable[None]], kind: str | None = None) -> None:
        """Run some other coroutine under the bridge's supervision (for later docks)."""

        async def wrapper() -> None:
            await factory()

        self.spawn(wrapper(), kind)

    def reconnect_store(self, half: str) -> None:
        """Connect one half's store (``graph``/``chunks``) anew; health follows."""
        if self._memory is not None:
            act = self._health.act_on_store(self._memory, half, restart=False)
            self.spawn(act, kind=f"store-{half}")

    def restart_store(self, half: str) -> None:
        """Restart one half's embedded server (reconnect an external one); health follows."""
        if self._memory is not None:
            act = self._health.act_on_store(self._memory, half, restart=True)
            self.spawn(act, kind=f"store-{half}")

    # ------------------------------------------------------------------ shutdown

    async def _close_memory(self) -> None:
        """Cancel every other task (a forget is let finish), then close the memory if this
        bridge opened it."""
        current = asyncio.current_task()
        tasks = [t for t in self._tasks if t is not current and not t.done()]
        for task in tasks:
            if task not in self._finish_before_close:
                task.cancel()
        if tasks:
            await asyncio.gather(*tasks, return_exceptions=True)
        try:
            if self._host is not None:
                host, self._host = self._host, None
                await host.aclose()
            elif self._stack is not None:
                stack, self._stack = self._stack, None
                await stack.aclose()
        except Exception as exc:
            _log.error("closing the memory failed", exc_info=exc)
            self.error_occurred.emit("Shutdown", f"closing the memory failed: {exc}")
        self._memory = None

    async def aclose(self) -> None:
        """Cancel everything, close the memory if this bridge opened it, and say ``closed``."""
        if self._closed:
            return
        if self._closing:
            await self._closed_event.wait()
            return
        self._closing = True
        opening = self._opening
        if opening is not None and not opening.done():
            # Let a half-started server finish starting so that it can be stopped cleanly.
            await asyncio.wait({opening})
        await self._close_memory()
        self._executor.shutdown(wait=True, cancel_futures=True)
        self._closed = True
        self._closed_event.set()
        self._update_busy()
        self.closed.emit()
