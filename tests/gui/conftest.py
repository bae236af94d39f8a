"""Fixtures for the GUI tests: an offscreen Qt, a qasync loop, and a real memory on embedded stores.

The platform is forced offscreen before anything imports Qt. One qasync loop serves the whole
package and is marked as running, so Qt's own event processing (``qtbot.waitUntil`` and friends)
drives asyncio; it is unset again when the package is done, so the other test packages get a
clean asyncio. The memory is the real service: embedded FalkorDB and PostgreSQL started in a
temporary data directory through ``open_memory`` on a service thread (as the app runs it), loaded
with the demo memory.
"""

from __future__ import annotations

import os

os.environ["QT_QPA_PLATFORM"] = "offscreen"

import asyncio
import logging
import time
from collections.abc import Awaitable, Iterator
from pathlib import Path
from typing import Any, TypeVar

import pytest

T = TypeVar("T")


def spin_until_done(future: asyncio.Future[T], limit: float) -> T:
    """Run Qt's event loop (and so asyncio on qasync) until ``future`` is done."""
    from PySide6.QtCore import QEventLoop, QTimer

    waiter = QEventLoop()
    future.add_done_callback(lambda _: waiter.quit())
    timer = QTimer()
    timer.setSingleShot(True)
    timer.timeout.connect(waiter.quit)
    timer.start(int(limit * 1000))
    if not future.done():
        waiter.exec()
    timer.stop()
    if not future.done():
        future.cancel()
        raise TimeoutError(f"not done within {limit} s")
    return future.result()


def run(loop: asyncio.AbstractEventLoop, awaitable: Awaitable[T], limit: float = 120.0) -> T:
    return spin_until_done(asyncio.ensure_future(awaitable, loop=loop), limit)


class LoopErrors(logging.Handler):
    """Collects what asyncio and qasync log as errors (e.g. "Task was destroyed ...")."""

    def __init__(self) -> None:
        super().__init__(logging.ERROR)
        self.messages: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.messages.append(record.getMessage())


@pytest.fixture(scope="package")
def qloop(qapp: Any) -> Iterator[asyncio.AbstractEventLoop]:
    import qasync

    loop = qasync.QEventLoop(qapp, already_running=True)
    asyncio.set_event_loop(loop)
    errors: list[dict[str, Any]] = []
    loop.set_exception_handler(lambda _loop, context: errors.append(context))
    yield loop
    pending = [t for t in asyncio.all_tasks(loop) if not t.done()]
    for task in pending:
        task.cancel()
    if pending:
        run(loop, asyncio.gather(*pending, return_exceptions=True), 30)
    loop.stop()
    asyncio.events._set_running_loop(None)
    loop.close()
    asyncio.set_event_loop(None)
    assert not errors, f"errors reported to the event loop: {errors}"


@pytest.fixture(scope="package")
def loop_errors() -> Iterator[LoopErrors]:
    handler = LoopErrors()
    for name in ("asyncio", "qasync"):
        logging.getLogger(name).addHandler(handler)
    yield handler
    for name in ("asyncio", "qasync"):
        logging.getLogger(name).removeHandler(handler)


@pytest.fixture(scope="package")
def memory_settings(tmp_path_factory: pytest.TempPathFactory) -> Any:
    from explorer.settings import Settings

    data_dir = tmp_path_factory.mktemp("gui-memory")
    return Settings(data_dir=data_dir, load_demo=True, start_timeout=120.0)


@pytest.fixture(scope="package")
def memory(qloop: asyncio.AbstractEventLoop, memory_settings: Any) -> Iterator[Any]:
    """The real memory service on embedded stores, with the demo memory loaded.

    Hosted the way the app hosts it: on its own service thread and loop, reached through a
    ``LoopProxy`` (awaiting its coroutines from the GUI loop runs them there).
    """
    from explorer.compose import open_memory
    from explorer.gui.service_thread import MemoryHost

    host = MemoryHost("test-memory")
    try:
        opened = run(qloop, host.open(open_memory, memory_settings), 300)
        assert opened.graph is not None and opened.chunks is not None, opened.errors
        run(qloop, opened.ensure_demo(), 900)
        yield opened
    finally:
        run(qloop, host.aclose(), 120)


@pytest.fixture
def settings_store(tmp_path: Path) -> Any:
    from PySide6.QtCore import QSettings

    return QSettings(str(tmp_path / "explorer.ini"), QSettings.Format.IniFormat)


def make_window(bridge: Any, settings_store: Any) -> Any:
    from explorer.gui.main_window import MainWindow

    window = MainWindow(bridge, settings_store=settings_store)
    window.resize(1300, 820)
    window.show()
    return window


def close_window(loop: asyncio.AbstractEventLoop, window: Any) -> None:
    run(loop, window.bridge.aclose(), 120)
    window.close()
    window.deleteLater()


@pytest.fixture
def window(
    qloop: asyncio.AbstractEventLoop, qtbot: Any, memory: Any, settings_store: Any
) -> Iterator[Any]:
    """The real main window over the shared real memory (borrowed, not closed by the window)."""
    from explorer.gui.bridge import ServiceBridge

    bridge = ServiceBridge(memory=memory, poll_interval=0.3)
    window = make_window(bridge, settings_store)
    bridge.open()
    qtbot.waitUntil(lambda: bridge.opened, timeout=30_000)
    yield window
    close_window(qloop, window)


def wait_for_answer(qtbot: Any, window: Any, token: int, limit_ms: int = 60_000) -> None:
    """Wait until the answer to ``token`` is shown and laid out."""

    def shown() -> bool:
        outcome = window.outcome
        return (
            outcome is not None
            and outcome.token == token
            and not window.graph_view.is_layout_pending()
        )

    qtbot.waitUntil(shown, timeout=limit_ms)


def wait(seconds: float) -> None:
    from PySide6.QtCore import QCoreApplication

    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        QCoreApplication.processEvents()
        time.sleep(0.005)
