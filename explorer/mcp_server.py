"""``scour-explorer mcp``: the memory's tools for agents over the Model Context Protocol (stdio).

Every tool of the registry (``explorer.tools``: ``scour`` and the read-only ``memory_stats``) is
served with the official ``mcp`` SDK's low-level server: the tool's parameters become its input
schema and its docstring its description. A call goes through ``execute_tool`` with the
arguments exactly as the client sent them, so the tool contract's own checks decide what is
accepted (no coercion of ``"3"`` or ``true`` into a count) and its error objects (bad or unknown
argument, missing privilege, failed call) come back as MCP tool errors; nothing a client sends
stops the server. Who calls and with which privileges comes from the settings (``mcp_user``,
``mcp_privileges``), never from the client. The memory is opened when the session starts, inside
the SDK's stdio transport (which points the process's stdout at stderr while it serves, so
nothing printed while opening corrupts the protocol), and closed when it ends. Imports the SDK,
the composition root, the service's type, the settings and the tool registry.
"""

from __future__ import annotations

import inspect
import json
import logging
import types
import typing
from collections.abc import AsyncIterator, Mapping
from contextlib import asynccontextmanager
from typing import Any

import mcp_types
from mcp.server.lowlevel import Server
from mcp.server.stdio import stdio_server

from explorer import __version__
from explorer.compose import open_memory
from explorer.core.errors import InvalidArgument
from explorer.memory import StoreMemoryService
from explorer.settings import Settings
from explorer.tools import ToolContext, ToolHandler, discover_tools, execute_tool, privilege_bits

log = logging.getLogger(__name__)

SERVER_NAME = "scour-explorer"
INSTRUCTIONS = (
    "Long-term memory of this agent: a knowledge graph of entities and facts beside the verbatim "
    "conversation chunks they came from. Call scour to recall what is known about something "
    "(pass explain=true to see why each memory was recalled or dropped); memory_stats tells "
    "what the memory holds."
)
_JSON_TYPES: Mapping[Any, str] = {str: "string", int: "integer", bool: "boolean", float: "number"}


def _json_type(annotation: Any, where: str) -> str | list[str]:
    """The JSON Schema type of a plain annotation (``str``, ``int | None``, ...)."""
    if annotation in _JSON_TYPES:
        return _JSON_TYPES[annotation]
    if isinstance(annotation, types.UnionType) or typing.get_origin(annotation) is typing.Union:
        members = [a for a in typing.get_args(annotation) if a is not type(None)]
        if len(members) == 1 and members[0] in _JSON_TYPES:
            return [_JSON_TYPES[members[0]], "null"]
    raise InvalidArgument(f"{where}: no JSON Schema type for {annotation!r}")


def input_schema(name: str, handler: ToolHandler) -> dict[str, Any]:
    """The tool's input schema from its signature (``ctx`` is the server's, never the client's)."""
    properties: dict[str, Any] = {}
    required: list[str] = []
    for parameter in inspect.signature(handler, eval_str=True).parameters.values():
        if parameter.name == "ctx":
            continue
        where = f"{name}.{parameter.name}"
        entry: dict[str, Any] = {"type": _json_type(parameter.annotation, where)}
        if parameter.default is inspect.Parameter.empty:
            required.append(parameter.name)
        else:
            entry["default"] = parameter.default
        properties[parameter.name] = entry
    return {
        "type": "object",
        "properties": properties,
        "required": required,
        "additionalProperties": False,
    }


class _Session:
    """The open memory of the running server and the caller every tool call runs as."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        # Checked before the memory opens: a misspelt privilege is a start-up error.
        self.privileges = privilege_bits(settings.mcp_privileges)
        self.memory: StoreMemoryService | None = None

    def context(self) -> ToolContext:
        return ToolContext(
            user_id=self.settings.mcp_user,
            privileges=self.privileges,
            memory=self.memory,
            scope=self.settings.default_scope or None,
        )


def build_server(settings: Settings) -> Server[Any]:
    """The MCP server over the configured memory (opened when a session starts)."""
    session = _Session(settings)
    handlers = discover_tools()
    listed = [
        mcp_types.Tool(
            name=name,
            description=inspect.getdoc(handler) or name,
            input_schema=input_schema(name, handler),
        )
        for name, handler in sorted(handlers.items())
    ]

    @asynccontextmanager
    async def lifespan(_: Server[Any]) -> AsyncIterator[None]:
        async with open_memory(settings) as memory:
            if settings.load_demo:
                await memory.ensure_demo()
            session.memory = memory
            try:
                yield None
            finally:
                session.memory = None

    async def list_tools(_: Any, __: Any) -> mcp_types.ListToolsResult:
        return mcp_types.ListToolsResult(tools=listed)

    async def call_tool(_: Any, params: mcp_types.CallToolRequestParams) -> Any:
        answer = await execute_tool(params.name, params.arguments or {}, session.context())
        failed = json.loads(answer).get("success") is False
        return mcp_types.CallToolResult(
            content=[mcp_types.TextContent(type="text", text=answer)], is_error=failed
        )

    return Server(
        SERVER_NAME,
        version=__version__,
        instructions=INSTRUCTIONS,
        lifespan=lifespan,
        on_list_tools=list_tools,
        on_call_tool=call_tool,
    )


async def serve_stdio(settings: Settings) -> int:
    """Serve MCP on stdin/stdout until the client closes the connection."""
    server = build_server(settings)
    log.info("MCP server for %s with privileges %s", settings.mcp_user, settings.mcp_privileges)
    async with stdio_server() as (read, write):
        await server.run(read, write, server.create_initialization_options())
    return 0
