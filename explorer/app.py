"""The desktop launcher: the window (or a screenshot of it) on the composition root's services.

The one module outside ``explorer.gui`` that imports it, and only inside each function, so the
CLI stays quick and Qt-free until the window is asked for. The settings read once by the CLI and
``compose.SERVICES`` (how to open a memory, test a store, list graphiti graphs) are handed to the
GUI, which never names an adapter. Imports the settings, the composition root and the GUI.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from explorer.compose import SERVICES
from explorer.settings import Settings


def run_app(settings: Settings) -> int:
    """Open the main window on the memory of ``settings``; returns the exit status."""
    from explorer.gui import run_app as run_gui

    return run_gui(settings, SERVICES)


def run_screenshot(
    out: Path,
    queries: Sequence[str] | None,
    size: tuple[int, int],
    settings: Settings,
    *,
    scene: Path | None = None,
    select: str | None = None,
) -> int:
    """Render the main window on the memory of ``settings`` to ``out``, then exit."""
    from explorer.gui import run_screenshot as shoot

    return shoot(out, queries, size, settings, SERVICES, scene=scene, select=select)
