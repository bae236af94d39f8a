"""The composition root of the desktop app: settings in, the Qt application out.

``run_app`` hands the settings read once by the CLI to the GUI package, which starts the qasync
loop and opens the memory (``explorer.memory.open_memory``) in the background.
"""

from __future__ import annotations

from explorer.settings import Settings


def run_app(settings: Settings) -> int:
    """Open the main window on the configured memory; returns the exit status."""
    from explorer.gui import run_app as run_gui

    return run_gui(settings)
