"""Agent-facing tools: the context a tool runs in, privilege bits, and the registry.

A tool is a module in this package exposing ``TOOL_NAME`` and ``async def run(..., ctx=None)``
returning a JSON string. The registry discovers tools by that contract and dispatches
``execute_tool(name, args, ctx)``. Imports core and the standard library; the memory handle
arrives inside the context, so tools never pick adapters themselves.
"""

from __future__ import annotations

import functools
import importlib
import inspect
import logging
import pkgutil
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from typing import Any

from explorer.core.codec import indented_json
from explorer.core.errors import InvalidArgument

CORE_MEMORY = 1 << 1
#: Privilege names as settings spell them (``mcp_privileges = "CORE_MEMORY"``).
PRIVILEGES = {"CORE_MEMORY": CORE_MEMORY}

ToolHandler = Callable[..., Awaitable[str]]

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class ToolContext:
    """Who is calling and with what: user id, privilege bits, the open memory, the scope."""

    user_id: str
    privileges: int
    memory: Any  # explorer.memory.StoreMemoryService; typed loosely so tools stay import-light
    scope: str | None = None
    policy: Any = None  # an explorer.core.policy.RetrievalPolicy overriding the memory's own


def privilege_bits(names: str) -> int:
    """The privilege bits named in a comma-separated list; ``""`` or ``"none"`` grants none."""
    bits = 0
    for name in (part.strip().upper() for part in str(names).split(",")):
        if name in ("", "NONE"):
            continue
        if name not in PRIVILEGES:
            known = ", ".join(sorted(PRIVILEGES))
            raise InvalidArgument(f"unknown privilege {name!r}; known: {known} (or none)")
        bits |= PRIVILEGES[name]
    return bits


def error_json(message: str, **extra: Any) -> str:
    """The error object every tool returns instead of raising."""
    return indented_json({"success": False, "error": message, **extra})


@functools.cache
def discover_tools() -> dict[str, ToolHandler]:
    """Every module of this package that meets the ``TOOL_NAME``/``run`` contract, by name.

    Scanned once per process: the package's modules do not change while it runs.
    """
    tools: dict[str, ToolHandler] = {}
    for info in pkgutil.iter_modules(__path__, f"{__name__}."):
        module = importlib.import_module(info.name)
        name = getattr(module, "TOOL_NAME", None)
        handler = getattr(module, "run", None)
        if isinstance(name, str) and inspect.iscoroutinefunction(handler):
            tools[name] = handler
    return tools


async def execute_tool(name: str, args: Mapping[str, Any], ctx: ToolContext | None) -> str:
    """Dispatch one tool call; an unknown tool or malformed arguments give an error object."""
    tools = discover_tools()
    if type(name) is not str:
        return error_json(f"the tool name must be a string, not {type(name).__name__}")
    handler = tools.get(name)
    if handler is None:
        return error_json(f"unknown tool {name!r}; known tools: {', '.join(sorted(tools))}")
    if not isinstance(args, Mapping):
        return error_json(f"arguments for {name!r} must be an object, not {type(args).__name__}")
    # Only plain string keys: a key object's own __str__ or __eq__ never runs here.
    if any(type(key) is not str for key in args):
        return error_json(f"argument names for {name!r} must be strings")
    parameters = inspect.signature(handler).parameters
    accepted = set(parameters) - {"ctx"}
    unexpected = sorted(str(key) for key in args if key not in accepted)
    if unexpected:
        return error_json(f"{name!r} got unexpected arguments: {', '.join(unexpected)}")
    missing = [
        key
        for key in sorted(accepted)
        if parameters[key].default is inspect.Parameter.empty and key not in args
    ]
    if missing:
        return error_json(f"{name!r} needs the arguments: {', '.join(missing)}")
    try:
        return await handler(**dict(args), ctx=ctx)
    except Exception as error:  # the boundary: a caller gets an error object, never a raise
        log.exception("tool %r failed", name)
        return error_json(f"{name!r} failed: {type(error).__name__}")


__all__ = [
    "CORE_MEMORY",
    "PRIVILEGES",
    "ToolContext",
    "discover_tools",
    "error_json",
    "execute_tool",
    "privilege_bits",
]
