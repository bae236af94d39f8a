"""The one object that talks to the memory service; every async call of the GUI goes through it.

``ServiceBridge`` opens the memory in the background (the window is already up, with progress
messages) on a service thread with its own loop (the drivers parse replies in Python, which must
not freeze the window; see ``service_thread``), runs queries with latest-wins cancellation,
fetches neighbourhoods, entities and mention chunks, runs layouts on a worker thread, tracks
per-half health from each answer, polls a half that went down until it answers again (then
re-runs the last query), and shuts everything down in order. Widgets call its plain methods and
listen to its signals; they never await. Failures become signals (``query_failed``,
``error_occurred``), never exceptions in a slot. Imports Qt, asyncio, the standard library, core
types and the memory facade.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import logging
from collections.abc import Awaitable, Callable, Collection, Coroutine, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from PySide6.QtCore import QObject, Signal

from explorer.core.errors import ExplorerError, StoreUnavailable
from explorer.core.models import DEFAULT_SCOPE, Chunk
from explorer.gui.layout import LayoutRequest, compute_layout
from explorer.gui.requests import (
    EntityDetails,
    Expansion,
    ImportOutcome,
    ImportRequest,
    QueryOutcome,
    QueryParams,
)
from explorer.gui.service_thread import MemoryHost

_log = logging.getLogger(__name__)

GRAPH = "graph"
CHUNKS = "chunks"
HALVES = (GRAPH, CHUNKS)
OK = "ok"
#: Mentions fetched at once when an entity is selected; "all N mentions" fetches the rest.
FIRST_MENTIONS = 12
MAX_MENTIONS = 500
#: How long a query may take before its chunks are asked for (and shown) on their own.
PREVIEW_AFTER = 0.3

Opener = Callable[..., contextlib.AbstractAsyncContextManager[Any]]


def _loop() -> asyncio.AbstractEventLoop:
    try:
        return asyncio.get_running_loop()
    except RuntimeError:
        # A Qt slot runs outside any coroutine; qasync's loop is the thread's current one.
        return asyncio.get_event_loop_policy().get_event_loop()


def _half_of(store: str) -> str | None:
    name = store.lower()
    if any(word in name for word in ("graph", "falkor", "kg", "concept")):
        return GRAPH
    if any(word in name for word in ("chunk", "postgres", "vector", "pg")):
        return CHUNKS
    return None


def halves_from_health(report: Mapping[str, str]) -> dict[str, str]:
    """Per-half status from ``Memory.health()``'s per-store report ("ok" or the problem)."""
    halves = {half: OK for half in HALVES}
    for store, status in report.items():
        half = _half_of(store)
        if half is not None and str(status).lower() != OK:
            halves[half] = f"{store}: {status}" if halves[half] == OK else halves[half]
    return halves


class ServiceBridge(QObject):
    """See the module docstring. Construct with settings (it opens and owns the memory) or with
    an already-open ``memory`` (it only borrows it and never closes it)."""

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
    layout_ready = Signal(object)  # LayoutResult
    health_changed = Signal(dict)  # half -> "ok" or what is wrong
    overview_ready = Signal(object)  # MemoryOverview
    import_progress = Signal(object)  # ingest.progress.Progress
    import_finished = Signal(object)  # ImportOutcome
    connection_tested = Signal(dict)  # half -> (answers, version or reason)
    error_occurred = Signal(str, str)  # title, detail
    closed = Signal()

    def __init__(
        self,
        settings: Any = None,
        *,
        memory: Any = None,
        opener: Opener | None = None,
        poll_interval: float = 2.0,
        service_thread: bool = True,
        parent: QObject | None = None,
    ) -> None:
        super().__init__(parent)
        self._settings = settings if settings is not None else getattr(memory, "settings", None)
        self._memory = memory
        self._opener = opener
        self._stack: contextlib.AsyncExitStack | None = None
        # A memory this bridge opens lives on its own thread and loop (see service_thread);
        # one handed in is used as it is, on whatever loop it belongs to.
        self._use_host = memory is None and service_thread
        self._host: MemoryHost | None = None
        self._tasks: set[asyncio.Task[Any]] = set()
        self._latest: dict[str, asyncio.Task[Any]] = {}
        self._query_tokens: dict[asyncio.Task[Any], int] = {}
        self._opening: asyncio.Task[Any] | None = None
        self._executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="layout")
        self._token = 0
        self._busy = False
        self._closing = False
        self._closed = False
        self._opened = False
        self._closed_event = asyncio.Event()
        self._pending_query: QueryParams | None = None
        self._last_query: QueryParams | None = None
        self._poll_interval = poll_interval
        self._poller: asyncio.Task[Any] | None = None
        self._import_cancelled = False
        self.health: dict[str, str] = {half: OK for half in HALVES}
        self.timings: dict[str, float] = {}

    # ------------------------------------------------------------------ state

    @property
    def memory(self) -> Any:
        return self._memory

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
    def is_closed(self) -> bool:
        return self._closed

    def pending_tasks(self) -> int:
        return sum(1 for task in self._tasks if not task.done())

    # ------------------------------------------------------------------ task plumbing

    def _spawn(self, coro: Coroutine[Any, Any, Any], kind: str | None = None) -> asyncio.Task[Any]:
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

    def _on_task_done(self, task: asyncio.Task[Any]) -> None:
        self._tasks.discard(task)
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
            self._spawn(self._after_open(load_demo=False), kind="open-rest")
            return
        if self._opening is not None:
            return
        self._opening = self._spawn(self._open())
        self._update_busy()

    async def _open(self) -> None:
        opener = self._opener
        if opener is None:
            from explorer.memory import open_memory

            opener = open_memory
        self.opening_progress.emit("Starting the memory stores…")
        if self._use_host and self._host is None:
            self._host = MemoryHost()
        host = self._host
        try:
            memory: Any
            if host is not None:
                memory = await host.open(opener, self._settings)
            else:
                stack = contextlib.AsyncExitStack()
                memory = await stack.enter_async_context(opener(self._settings))
                self._stack = stack
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
            self.health = {GRAPH: message, CHUNKS: message}
            self.health_changed.emit(dict(self.health))
            self.opening_progress.emit("The memory could not be opened")
            self.memory_failed.emit(message)
            return
        self._memory = memory
        if self._closing:
            return
        self._spawn(self._after_open(load_demo=True), kind="open-rest")

    async def _after_open(self, *, load_demo: bool) -> None:
        memory = self._memory
        settings = getattr(memory, "settings", None) or self._settings
        if load_demo and getattr(settings, "load_demo", True) and hasattr(memory, "ensure_demo"):
            self.opening_progress.emit("Checking for the demo memory…")
            try:
                await memory.ensure_demo(progress=self._demo_progress)
            except ExplorerError as exc:
                self.error_occurred.emit(
                    "Demo memory", f"The demo memory could not be loaded: {exc}"
                )
        await self._refresh_health()
        await self.refresh_domains()
        self.opening_progress.emit("Ready")
        self._opened = True
        self.memory_ready.emit()
        self.request_overview()
        self._spawn(self._watch_servers(), kind="watchdog")
        pending, self._pending_query = self._pending_query, None
        if pending is not None:
            self.submit_query(pending)
        elif hasattr(memory, "warm"):
            self._spawn(self._warm(), kind="warm")

    async def _warm(self) -> None:
        """Build the default scope's search indexes while the user is still typing."""
        settings = getattr(self._memory, "settings", None) or self._settings
        scope = getattr(settings, "default_scope", None) or DEFAULT_SCOPE
        try:
            await self._memory.warm(str(scope))
        except ExplorerError as exc:
            _log.info("warming the search indexes failed: %s", exc)

    def _demo_progress(self, *args: Any, **kwargs: Any) -> None:
        text = " ".join(str(a) for a in args if a is not None)
        if kwargs:
            text += " " + " ".join(f"{k}={v}" for k, v in kwargs.items())
        self.opening_progress.emit(f"Loading the demo memory… {text}".strip())

    def _graph(self) -> Any:
        graph = getattr(self._memory, "graph", None)
        if graph is None:
            reason = getattr(self._memory, "errors", {}).get("graph", "not connected")
            raise StoreUnavailable(f"knowledge graph unavailable: {reason}")
        return graph

    def _chunks(self) -> Any:
        chunks = getattr(self._memory, "chunks", None)
        if chunks is None:
            reason = getattr(self._memory, "errors", {}).get("chunks", "not connected")
            raise StoreUnavailable(f"chunk store unavailable: {reason}")
        return chunks

    async def refresh_domains(self) -> None:
        try:
            domains = await self._chunks().domains()
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
        task = self._spawn(self._run_query(token, params), kind="query")
        # A query cancelled before it ever ran never sees CancelledError, so the cancellation
        # is reported from the task's done-callback instead.
        self._query_tokens[task] = token
        self._update_busy()
        return token

    def cancel_query(self) -> None:
        self._pending_query = None
        task = self._latest.get("query")
        if task is not None and not task.done():
            task.cancel()

    def _build_request(self, params: QueryParams) -> Any:
        from explorer.core.scour import ScourRequest

        settings = getattr(self._memory, "settings", None) or self._settings
        scope = params.scope or getattr(settings, "default_scope", None) or DEFAULT_SCOPE
        return ScourRequest(
            query=params.query,
            n_chunks=params.n_chunks,
            kg_top_k=params.kg_top_k,
            domain=params.domain,
            temporal=params.temporal,
            scope=str(scope),
        )

    async def _run_query(self, token: int, params: QueryParams) -> None:
        self.query_started.emit(token, params.query)
        try:
            request = self._build_request(params)
            raw = await self._scour_with_preview(token, params, request)
            result = raw.to_json_dict() if hasattr(raw, "to_json_dict") else dict(raw)
            if not result.get("success", True):
                # Every half failed: the lights still say which store is down and why.
                if "kg_entities" in result:
                    self._health_from_result(result)
                self.query_failed.emit(token, str(result.get("error", "the query failed")))
                return
            links, degrees = await self._links_for(result)
            outcome = QueryOutcome(
                token=token,
                params=params,
                result=result,
                raw=raw,
                entities_by_chunk=links,
                degrees=degrees,
            )
            self.timings = {k: float(v) for k, v in (result.get("timings_ms") or {}).items()}
            self._health_from_result(result)
            self.query_finished.emit(outcome)
        except ExplorerError as exc:
            if isinstance(exc, StoreUnavailable):
                self._set_health({GRAPH: str(exc), CHUNKS: str(exc)})
            self.query_failed.emit(token, str(exc))

    async def _scour_with_preview(self, token: int, params: QueryParams, request: Any) -> Any:
        """The whole answer; if it is not there within ``PREVIEW_AFTER`` seconds (a slow or
        frozen graph half), the chunks alone are asked for as well and shown as soon as they
        arrive (``query_preview``), while the whole answer is still awaited."""
        full = asyncio.ensure_future(self._memory.scour(request))
        preview: asyncio.Future[Any] | None = None
        try:
            if request.kg_top_k and request.n_chunks:
                done, _ = await asyncio.wait({full}, timeout=PREVIEW_AFTER)
                if not done:
                    chunks_only = dataclasses.replace(request, kg_top_k=0)
                    preview = asyncio.ensure_future(self._memory.scour(chunks_only))
                    await asyncio.wait({full, preview}, return_when=asyncio.FIRST_COMPLETED)
                    if preview.done() and not full.done():
                        self._emit_preview(token, params, preview)
            return await full
        finally:
            for future in (full, preview):
                if future is not None and not future.done():
                    future.cancel()

    def _emit_preview(self, token: int, params: QueryParams, preview: asyncio.Future[Any]) -> None:
        if preview.cancelled() or preview.exception() is not None:
            return
        raw = preview.result()
        result = raw.to_json_dict() if hasattr(raw, "to_json_dict") else dict(raw)
        if result.get("success") and result.get("chunks"):
            self.query_preview.emit(
                QueryOutcome(token=token, params=params, result=result, raw=raw)
            )

    async def _links_for(
        self, result: Mapping[str, Any]
    ) -> tuple[dict[str, list[str]], dict[str, int]]:
        """Which entities each returned chunk mentions, and the degree of each entity."""
        if result.get("kg_error"):
            return {}, {}
        chunk_ids = [str(c["id"]) for c in result.get("chunks") or []]
        entity_ids = [str(e["id"]) for e in result.get("kg_entities") or []]
        graph = self._memory.graph
        links: dict[str, list[str]] = {}
        degrees: dict[str, int] = {}
        if graph is None:
            return links, degrees
        try:
            if chunk_ids:
                links = {k: list(v) for k, v in (await graph.entities_in_chunks(chunk_ids)).items()}
            if entity_ids:
                degrees = dict(await graph.degree(entity_ids))
        except ExplorerError as exc:
            self._set_health({GRAPH: str(exc)})
        return links, degrees

    # ------------------------------------------------------------------ graph and entities

    def request_expand(self, node_id: str, cap: int) -> None:
        """Fetch up to ``cap`` neighbours of a node; answers on ``expansion_ready``."""
        if not self.ready:
            return
        self._spawn(self._expand(node_id, cap))

    async def _expand(self, node_id: str, cap: int) -> None:
        self._token += 1
        try:
            graph = self._graph()
            subgraph = await graph.neighbourhood([node_id], limit_per_node=cap)
            ids = list(subgraph.entities)
            degrees = dict(await graph.degree(ids)) if ids else {}
        except ExplorerError as exc:
            self._set_health({GRAPH: str(exc)})
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
        self._spawn(self._entity(self._token, entity_id, set(have), everything), "entity")

    async def _entity(self, token: int, entity_id: str, have: set[str], everything: bool) -> None:
        try:
            found = await self._graph().get_entities([entity_id])
        except ExplorerError as exc:
            self._set_health({GRAPH: str(exc)})
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
        if missing:
            try:
                fetched = tuple(await self._chunks().get(missing))
            except ExplorerError as exc:
                self._set_health({CHUNKS: str(exc)})
        self.entity_ready.emit(
            EntityDetails(
                token=token,
                entity_id=entity_id,
                entity=entity,
                chunks=fetched,
                mention_total=len(order),
                complete=len(wanted) == len(order),
            )
        )

    def request_entities(self, entity_ids: Sequence[str]) -> None:
        """Read some entities by id (ones a hovered chunk names); answers on ``entities_ready``."""
        if self.ready and entity_ids:
            self._spawn(self._entities(list(entity_ids)))

    async def _entities(self, entity_ids: list[str]) -> None:
        try:
            found = await self._graph().get_entities(entity_ids)
        except ExplorerError as exc:
            self._set_health({GRAPH: str(exc)})
            return
        self.entities_ready.emit(list(found))

    def request_chunk_links(self, chunk_ids: Sequence[str]) -> None:
        """Find which entities some chunks mention; answers on ``chunk_links_ready``."""
        if self.ready and chunk_ids:
            self._spawn(self._chunk_links(list(chunk_ids)))

    async def _chunk_links(self, chunk_ids: list[str]) -> None:
        try:
            links = await self._graph().entities_in_chunks(chunk_ids)
        except ExplorerError as exc:
            self._set_health({GRAPH: str(exc)})
            return
        self.chunk_links_ready.emit({k: list(v) for k, v in links.items()})

    def request_layout(self, request: LayoutRequest) -> None:
        """Lay out on the worker thread; answers on ``layout_ready``."""
        if self._closing:
            return
        self._spawn(self._layout(request))

    async def _layout(self, request: LayoutRequest) -> None:
        result = await _loop().run_in_executor(self._executor, compute_layout, request)
        self.layout_ready.emit(result)

    # ------------------------------------------------------------------ the memory as a whole

    @property
    def settings(self) -> Any:
        return getattr(self._memory, "settings", None) or self._settings

    def request_overview(self, scope: str = DEFAULT_SCOPE) -> None:
        """What the memory holds, for the overview and the scope picker; on ``overview_ready``."""
        if self.ready and hasattr(self._memory, "overview"):
            self._spawn(self._overview(scope), kind="overview")

    async def _overview(self, scope: str) -> None:
        overview = await self._memory.overview(scope)
        for half in HALVES:
            if half in overview.errors:
                self._set_health({half: overview.errors[half]})
        self.overview_ready.emit(overview)

    def start_import(self, request: ImportRequest) -> None:
        """Import a file into the open memory; ``import_progress`` then ``import_finished``."""
        if not self.ready:
            self.import_finished.emit(ImportOutcome(request, error="the memory is not open"))
            return
        self._spawn(self._import(request), kind="import")

    async def _import(self, request: ImportRequest) -> None:
        self._import_cancelled = False
        try:
            report = await self._memory.import_file(
                request.path,
                request.format,
                scope=request.scope,
                skip_bad=request.skip_bad,
                progress=self.import_progress.emit,
            )
        except asyncio.CancelledError:
            # The user's cancel (not a shutdown): finish what the import wrote, in a task of
            # its own since this one is ending.
            if self._import_cancelled and not self._closing:
                self._spawn(self._finish_cancelled(request), kind="import-finish")
            raise
        except (ExplorerError, OSError) as exc:
            self.import_finished.emit(ImportOutcome(request, error=str(exc)))
            return
        self.import_finished.emit(ImportOutcome(request, report=report))
        self.request_overview()
        await self.refresh_domains()

    async def _finish_cancelled(self, request: ImportRequest) -> None:
        try:
            completed = await self._memory.finish_pending(progress=self.import_progress.emit)
        except ExplorerError as exc:
            message = f"cancelled; completing what was written failed ({exc}): import again"
            self.import_finished.emit(ImportOutcome(request, cancelled=True, error=message))
            return
        self.import_finished.emit(ImportOutcome(request, cancelled=True, completed=completed))
        self.request_overview()

    def cancel_import(self) -> None:
        task = self._latest.get("import")
        if task is not None and not task.done():
            self._import_cancelled = True
            task.cancel()

    def test_connection(self, settings: Any) -> None:
        """Ask each store of ``settings`` for its version without opening a memory on it."""
        self._spawn(self._test_connection(settings), kind="test-connection")

    async def _test_connection(self, settings: Any) -> None:
        from explorer.memory import test_connection

        try:
            report = await test_connection(settings)
        except (ExplorerError, OSError) as exc:
            report = {half: (False, str(exc)) for half in HALVES}
        self.connection_tested.emit(report)

    def reopen(self, settings: Any) -> None:
        """Close the open memory and open the one ``settings`` describe (another data
        directory, external servers, new options); ``memory_ready`` or ``memory_failed``."""
        if not self._closing:
            self._spawn(self._reopen(settings), kind="reopen")

    async def _reopen(self, settings: Any) -> None:
        self.opening_progress.emit("Closing the memory…")
        await self._close_memory()
        self._settings = settings
        self._opening = None
        self._opened = False
        self.health = {half: OK for half in HALVES}
        self.health_changed.emit(dict(self.health))
        self._opening = self._spawn(self._open())
        self._update_busy()

    def run_soon(self, factory: Callable[[], Awaitable[Any]], kind: str | None = None) -> None:
        """Run some other coroutine under the bridge's supervision (for later docks)."""

        async def wrapper() -> Any:
            return await factory()

        self._spawn(wrapper(), kind)

    # ------------------------------------------------------------------ health

    def _set_health(self, changes: Mapping[str, str]) -> None:
        updated = dict(self.health)
        updated.update(changes)
        if updated != self.health:
            self.health = updated
            self.health_changed.emit(dict(updated))
        if any(status != OK for status in self.health.values()):
            self._start_polling()

    def _health_from_result(self, result: Mapping[str, Any]) -> None:
        changes = {}
        if "kg_error" in result or result.get("kg_entities") is not None:
            changes[GRAPH] = str(result["kg_error"]) if result.get("kg_error") else OK
        if "chunks_error" in result or result.get("chunks") is not None:
            changes[CHUNKS] = str(result["chunks_error"]) if result.get("chunks_error") else OK
        self._set_health(changes)

    async def _refresh_health(self) -> dict[str, str]:
        report = await self._memory.health()
        halves = halves_from_health(report)
        self._set_health(halves)
        return halves

    def _start_polling(self) -> None:
        if self._closing or self._memory is None:
            return
        if self._poller is None or self._poller.done():
            self._poller = self._spawn(self._poll_until_healthy())

    async def _poll_until_healthy(self) -> None:
        while not self._closing:
            await asyncio.sleep(self._poll_interval)
            was_down = {half for half, status in self.health.items() if status != OK}
            try:
                halves = await self._refresh_health()
            except ExplorerError as exc:
                _log.info("health check failed: %s", exc)
                continue
            recovered = {half for half in was_down if halves.get(half) == OK}
            if recovered and self._last_query is not None:
                self.opening_progress.emit(
                    "Recovered: " + ", ".join(sorted(recovered)) + "; running the query again"
                )
                self.submit_query(self._last_query)
            if all(status == OK for status in halves.values()):
                return

    async def _watch_servers(self) -> None:
        """Every few seconds, have the memory restart an embedded server that died; its half
        shows ``restarting…`` and the health poll turns it green once it answers."""
        memory = self._memory
        if not hasattr(memory, "supervise"):
            return
        while not self._closing and memory is self._memory:
            await asyncio.sleep(self._poll_interval * 1.5)
            try:
                changes = await memory.supervise()
            except ExplorerError as exc:
                _log.info("server watch failed: %s", exc)
                continue
            if changes:
                self._set_health(changes)

    def reconnect_store(self, half: str) -> None:
        """Connect one half's store (``graph``/``chunks``) anew; health follows."""
        self._spawn(self._act_on_store("reconnect_half", half), kind=f"store-{half}")

    def restart_store(self, half: str) -> None:
        """Restart one half's embedded server (reconnect an external one); health follows."""
        self._spawn(self._act_on_store("restart_half", half), kind=f"store-{half}")

    async def _act_on_store(self, action: str, half: str) -> None:
        memory = self._memory
        if memory is None or not hasattr(memory, action):
            return
        verb = "Restarting" if action == "restart_half" else "Reconnecting"
        self._set_health({half: f"{verb.lower()}…"})
        self.opening_progress.emit(f"{verb} the {'graph' if half == GRAPH else 'chunk'} store…")
        try:
            await getattr(memory, action)(half)
        except ExplorerError as exc:
            self._set_health({half: str(exc)})
            self.error_occurred.emit(f"{verb} failed", str(exc))
            return
        await self._refresh_health()

    # ------------------------------------------------------------------ shutdown

    async def _close_memory(self) -> None:
        """Cancel every other task, then close the memory if this bridge opened it."""
        current = asyncio.current_task()
        tasks = [t for t in self._tasks if t is not current and not t.done()]
        for task in tasks:
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
