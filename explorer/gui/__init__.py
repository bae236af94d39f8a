"""The desktop explorer: a PySide6 window on a qasync loop over the memory service.

Everything that imports Qt lives in this package; ``layout``, ``graph_model``, ``highlight``,
``requests`` and ``service_thread`` are plain Python and can be used (and tested) without Qt.
The entry points import Qt only when called, so importing this package stays cheap. Imports
nothing at module level beyond the standard library.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any


def run_app(settings: Any) -> int:
    """Open the explorer window (the memory opens in the background); returns the exit code."""
    from explorer.gui.application import run_app as _run_app

    return _run_app(settings)


def run_screenshot(
    out: Path | str,
    query: str | None = None,
    size: str | tuple[int, int] | None = None,
    settings: Any = None,
) -> int:
    """Render the real main window after a query to a PNG; returns the exit code."""
    from explorer.gui.screenshot import run_screenshot as _run_screenshot

    return _run_screenshot(out, query, size, settings)


__all__ = ["run_app", "run_screenshot"]
