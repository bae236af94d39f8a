"""Starting and stopping the explorer: the QApplication, the qasync loop, and clean shutdown.

``run_app`` shows the window at once, opens the memory in the background, runs until the window
closes, then cancels the bridge's tasks and closes the memory (which stops embedded servers it
started). SIGINT and SIGTERM close the window the same way, so the servers never outlive the app.
Uncaught exceptions in slots and in loop callbacks reach the log and a non-modal error box instead
of ending the process. Imports Qt, qasync, the standard library and the GUI modules.
"""

from __future__ import annotations

import asyncio
import logging
import os
import signal
import sys
import traceback
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from types import FrameType, TracebackType
from typing import Any

from PySide6.QtCore import QObject, QTimer, Signal
from PySide6.QtWidgets import QApplication

from explorer.assets import APP_ID
from explorer.core.ports import ServiceFactory
from explorer.gui.bridge import ServiceBridge
from explorer.gui.icon import app_icon
from explorer.gui.main_window import ORGANIZATION, MainWindow
from explorer.gui.window_status import APPLICATION
from explorer.settings import Settings

_log = logging.getLogger(__name__)


def ensure_platform() -> None:
    """Use the offscreen platform when there is no display (servers, CI, screenshots)."""
    if sys.platform.startswith("linux") and not (
        os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY")
    ):
        os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")


def application() -> QApplication:
    app = QApplication.instance()
    if app is None:
        app = QApplication(sys.argv[:1])
    app.setOrganizationName(ORGANIZATION)
    app.setApplicationName(APPLICATION)
    assert isinstance(app, QApplication)
    app.setWindowIcon(app_icon())
    # Lets Wayland match the window to its launcher entry (and so to its icon).
    app.setDesktopFileName(APP_ID)
    return app


class ErrorReporter(QObject):
    """Routes uncaught exceptions to the log and to whoever shows them (the main window)."""

    reported = Signal(str, str)

    def excepthook(
        self, kind: type[BaseException], error: BaseException, tb: TracebackType | None
    ) -> None:
        if issubclass(kind, KeyboardInterrupt):
            sys.__excepthook__(kind, error, tb)
            return
        detail = "".join(traceback.format_exception(kind, error, tb))
        _log.error("uncaught exception\n%s", detail)
        self.reported.emit(f"Unexpected error: {kind.__name__}", f"{error}\n\n{detail[-2000:]}")

    def loop_handler(self, loop: asyncio.AbstractEventLoop, context: dict[str, Any]) -> None:
        error = context.get("exception")
        message = str(context.get("message", "error in the event loop"))
        if error is not None:
            self.excepthook(type(error), error, error.__traceback__)
        else:
            _log.error("event loop: %s", message)
            self.reported.emit("Event loop error", message)


@contextmanager
def error_hooks(reporter: ErrorReporter, loop: asyncio.AbstractEventLoop) -> Iterator[None]:
    previous = sys.excepthook
    sys.excepthook = reporter.excepthook
    loop.set_exception_handler(reporter.loop_handler)
    try:
        yield
    finally:
        sys.excepthook = previous
        loop.set_exception_handler(None)


def _install_signal_handlers(close: Callable[[], None]) -> QTimer:
    """Close on SIGINT/SIGTERM; a ticking timer lets Python run its handlers inside Qt's loop."""

    def handler(_signum: int, _frame: FrameType | None) -> None:
        QTimer.singleShot(0, close)

    for sig in (signal.SIGINT, signal.SIGTERM):
        signal.signal(sig, handler)
    timer = QTimer()
    timer.start(200)
    timer.timeout.connect(lambda: None)
    return timer


def run_app(settings: Settings, services: ServiceFactory) -> int:
    """Run the explorer window until it closes; returns the process exit code."""
    import qasync

    ensure_platform()
    app = application()
    app.setQuitOnLastWindowClosed(False)
    loop = qasync.QEventLoop(app)
    asyncio.set_event_loop(loop)
    reporter = ErrorReporter()
    bridge = ServiceBridge(settings, services=services)
    window = MainWindow(bridge)
    reporter.reported.connect(window.show_error)
    finished: asyncio.Future[None] = loop.create_future()

    def on_closed() -> None:
        if not finished.done():
            finished.set_result(None)

    window.window_closed.connect(on_closed)

    def close_window() -> None:
        window.close()

    ticker = _install_signal_handlers(close_window)
    try:
        with error_hooks(reporter, loop):
            window.show()
            bridge.open()
            loop.run_until_complete(finished)
            if not bridge.is_closed:
                loop.run_until_complete(bridge.aclose())
    finally:
        ticker.stop()
        for sig in (signal.SIGINT, signal.SIGTERM):
            signal.signal(sig, signal.SIG_DFL)
        loop.close()
        asyncio.set_event_loop(None)
    return 0
