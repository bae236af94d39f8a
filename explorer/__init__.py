"""Scour Explorer: look inside an AI agent's long-term memory.

``open_memory`` is the one entry point scripts need; it is resolved lazily so that importing a
pure submodule (``explorer.core``) never loads database drivers.
"""

from __future__ import annotations

from typing import Any

__version__ = "0.1.0"
__all__ = ["open_memory"]


def __getattr__(name: str) -> Any:
    if name == "open_memory":
        from explorer.compose import open_memory

        return open_memory
    raise AttributeError(f"module 'explorer' has no attribute {name!r}")
