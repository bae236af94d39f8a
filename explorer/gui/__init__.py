"""The desktop explorer: a PySide6 window on a qasync loop over the memory service.

Everything that imports Qt lives in this package; ``layout``, ``graph_model``, ``highlight``,
``requests`` and ``service_thread`` are plain Python and can be used (and tested) without Qt.
The window talks to one ``core.ports.MemoryService`` and opens it through the
``ServiceFactory`` it is handed (``explorer.app`` passes the composition root's), so nothing here
imports the service, an adapter or ingest. The entry points import Qt only when called, so
importing this package stays cheap. Imports nothing at module level beyond the standard library
and core.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from explorer.core.ports import ServiceFactory
    from explorer.settings import Settings


def run_app(settings: Settings, services: ServiceFactory) -> int:
    """Open the explorer window (the memory opens in the background); returns the exit code."""
    from explorer.gui.application import run_app as _run_app

    return _run_app(settings, services)


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
    """Render the real main window after a query to a PNG; returns the exit code."""
    from explorer.gui.screenshot import run_screenshot as _run_screenshot

    return _run_screenshot(out, query, size, settings, services, scene=scene, select=select)


__all__ = ["run_app", "run_screenshot"]
