"""The memory_stats tool: what the open memory holds, read-only, for an agent or a client.

Counts by layer, type, scope and domain, the embedding model and the store versions (the same
figures as ``scour-explorer stats``), behind the same CORE_MEMORY privilege as scour, since the
scope names alone say whose memories are held. Imports the tool registry's types and
``ingest.stats``.
"""

from __future__ import annotations

from explorer.core.codec import indented_json
from explorer.core.errors import ExplorerError
from explorer.ingest.stats import answered, memory_stats
from explorer.tools import CORE_MEMORY, ToolContext, error_json

TOOL_NAME = "memory_stats"


async def run(ctx: ToolContext | None = None) -> str:
    """Counts of what the memory holds: chunks, entities, relations and concepts, by layer,
    entity type, scope and domain, with the embedding model and the stores' versions.
    Read-only; a store that does not answer is named under ``errors`` and its counts are
    null; with neither answering the call fails."""
    if ctx is None:
        return error_json("memory_stats needs a tool context; none was given")
    if type(ctx.privileges) is not int or not ctx.privileges & CORE_MEMORY:
        return error_json("permission denied: memory_stats requires the CORE_MEMORY privilege")
    if ctx.memory is None:
        return error_json("memory_stats has no open memory in its context")
    try:
        figures = await memory_stats(ctx.memory)
    except ExplorerError as error:
        return error_json(f"memory_stats failed: {error}")
    if not answered(figures):
        reasons = figures.get("errors")
        said = (
            "; ".join(f"{half}: {why}" for half, why in reasons.items())
            if isinstance(reasons, dict)
            else "no store is connected"
        )
        return error_json(f"memory_stats failed: neither store answered ({said})")
    return indented_json({"success": True, **figures})
