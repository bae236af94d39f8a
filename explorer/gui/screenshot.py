"""Headless screenshots of the real main window, for scripts, docs and tests.

``run_screenshot`` opens the same ``MainWindow`` the app shows (on the offscreen platform when
there is no display), opens the memory, optionally runs a query (and selects an entity), waits
until the answer is shown and laid out, saves a PNG of the whole window and shuts down cleanly.
``capture`` is the part that runs inside an already running loop, for callers that own the
window. Imports Qt, qasync, the standard library and the GUI modules.
"""

from __future__ import annotations

import asyncio
import json
import logging
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path

from PySide6.QtCore import QSettings

from explorer.core.ports import ServiceFactory
from explorer.gui.application import application, ensure_platform
from explorer.gui.bridge import ServiceBridge
from explorer.gui.main_window import MainWindow
from explorer.gui.requests import QueryOutcome
from explorer.settings import Settings

_log = logging.getLogger(__name__)

DEFAULT_SIZE = (1400, 860)
SETTLE_SECONDS = 0.15


def parse_size(size: str | tuple[int, int] | None) -> tuple[int, int]:
    """``"1400x860"`` → ``(1400, 860)``; ``None`` gives the default size."""
    if size is None:
        return DEFAULT_SIZE
    if isinstance(size, tuple):
        width, height = size
    else:
        left, sep, right = size.lower().partition("x")
        if not sep or not left.strip().isdigit() or not right.strip().isdigit():
            raise ValueError(f"size must look like 1400x860, not {size!r}")
        width, height = int(left), int(right)
    if not (200 <= width <= 8000 and 150 <= height <= 8000):
        raise ValueError(f"size {width}x{height} is out of range (200x150 .. 8000x8000)")
    return width, height


async def _until(predicate: Callable[[], bool], limit: float, what: str) -> None:
    deadline = time.monotonic() + limit
    while not predicate():
        if time.monotonic() > deadline:
            raise TimeoutError(f"timed out after {limit:.0f} s waiting for {what}")
        await asyncio.sleep(0.02)


async def capture(
    window: MainWindow,
    out: Path,
    query: str | Sequence[str] | None = None,
    *,
    limit: float = 120.0,
    scene: Path | None = None,
    select: str | None = None,
) -> Path:
    """Run the queries one after another in an open window, wait for each answer and its
    layout, select the entity named ``select`` (its inspector and mentions shown), and save the
    window (and with ``scene``, what the graph shows, as JSON)."""
    queries = [query] if isinstance(query, str) else list(query or ())
    bridge = window.bridge
    failures: list[str] = []
    bridge.memory_failed.connect(failures.append)
    try:
        await _until(
            lambda: bridge.opened or bridge.is_closed or bool(failures), limit, "the memory"
        )
    finally:
        bridge.memory_failed.disconnect(failures.append)
    if not bridge.opened:
        raise RuntimeError("the memory could not be opened")
    for text in queries:
        await _ask(window, text, limit)
    if not queries:
        actions = window.memory_actions
        await _until(
            lambda: actions.overview is not None and not window.graph_view.is_layout_pending(),
            limit,
            "the overview",
        )
    if select is not None:
        await _select(window, select, limit)
    # The loop paints while it sleeps, and grab() renders the widgets afresh. No
    # processEvents() here: run inside this task it could wake another task of the loop's
    # ("Cannot enter into task ... while another task is being executed"), which aborted a run.
    await asyncio.sleep(SETTLE_SECONDS)
    pixmap = window.grab()
    out.parent.mkdir(parents=True, exist_ok=True)
    if not pixmap.save(str(out), "PNG"):
        raise OSError(f"could not write {out}")
    if scene is not None:
        scene.parent.mkdir(parents=True, exist_ok=True)
        scene.write_text(json.dumps(window.graph_view.scene_json(), indent=2), "utf-8")  # noqa: ASYNC240 (small, once)
    return out


async def _ask(window: MainWindow, query: str, limit: float) -> None:
    """Run one query as if typed and wait until its answer is shown and laid out."""
    bridge = window.bridge
    finished: list[int] = []
    failed: list[str] = []

    def on_finished(outcome: QueryOutcome) -> None:
        finished.append(outcome.token)

    def on_failed(_token: int, message: str) -> None:
        failed.append(message)

    bridge.query_finished.connect(on_finished)
    bridge.query_failed.connect(on_failed)
    try:
        token = window.run_query(query)
        await _until(lambda: token in finished or bool(failed), limit, "the query")
    finally:
        bridge.query_finished.disconnect(on_finished)
        bridge.query_failed.disconnect(on_failed)
    if failed:
        raise RuntimeError(f"the query failed: {failed[-1]}")
    await _until(lambda: not window.graph_view.is_layout_pending(), limit, "the layout")


async def _select(window: MainWindow, name: str, limit: float) -> None:
    """Select the drawn entity called ``name`` (any case) and wait for its details."""
    nodes = window.graph_view.state.nodes.values()
    found = [node.id for node in nodes if node.name.casefold() == name.casefold()]
    if not found:
        raise RuntimeError(f"no entity called {name!r} is shown")
    window.graph_view.select_entity(found[0])
    await _until(
        lambda: (
            window.inspector.entity_id == found[0]
            and "Loading" not in window.inspector.toPlainText()
            and window.chunk_list.mode == "mentions"
        ),
        limit,
        f"the details of {name!r}",
    )


def shown_line(window: MainWindow) -> str:
    """What the window displays, in one line: ``shown: N entities, M chunks, scope S`` (the
    entities the answer or the overview put in the graph, the chunks in the list)."""
    state = window.graph_view.state
    entities = sum(1 for node in state.nodes.values() if node.root)
    chunks = 0 if window.memory_actions.overview_shown() else len(window.chunk_list.chunk_ids())
    outcome = window.outcome
    settings = window.bridge.settings
    scope = (outcome.params.scope if outcome else None) or getattr(settings, "default_scope", "")
    return f"shown: {entities} entities, {chunks} chunks, scope {scope or '(root)'}"


def run_screenshot(
    out: Path | str,
    query: str | Sequence[str] | None,
    size: str | tuple[int, int] | None,
    settings: Settings,
    services: ServiceFactory,
    *,
    scene: Path | None = None,
    select: str | None = None,
) -> int:
    """Open the main window, run ``query``, save a PNG of the window to ``out``; 0 on success."""
    import qasync

    out = Path(out)
    width, height = parse_size(size)
    ensure_platform()
    app = application()
    loop = qasync.QEventLoop(app)
    asyncio.set_event_loop(loop)
    limit = settings.start_timeout * 2 + 60.0
    with tempfile.TemporaryDirectory(prefix="scour-shot-") as scratch:
        # A scratch settings file: a screenshot neither reads nor changes the user's layout.
        store = QSettings(str(Path(scratch) / "window.ini"), QSettings.Format.IniFormat)
        bridge = ServiceBridge(settings, services=services)
        window = MainWindow(bridge, settings_store=store)
        window.resize(width, height)
        code = 0
        try:
            window.show()
            bridge.open()
            loop.run_until_complete(
                capture(window, out, query, limit=limit, scene=scene, select=select)
            )
            print(shown_line(window))
        except (RuntimeError, TimeoutError, OSError) as exc:
            _log.error("screenshot failed: %s", exc)
            print(f"screenshot failed: {exc}")
            code = 1
        finally:
            loop.run_until_complete(bridge.aclose())
            window.hide()
            window.deleteLater()
            loop.close()
            asyncio.set_event_loop(None)
    return code
