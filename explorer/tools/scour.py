"""The scour tool: one call that recalls from the knowledge graph and the chunk store at once.

The agent-facing contract of the seed: ``TOOL_NAME`` and ``run(...)`` returning indented JSON.
A missing context is an immediate error object; the CORE_MEMORY privilege is checked before
anything else; arguments are validated before any store is asked; the user id and a truncated
query are logged at info for auditing. The two halves run concurrently inside ``core.scour``,
each awaited on its own. Imports core and the tool registry's types only.
"""

from __future__ import annotations

import json
import logging

from explorer.core.compact import compact_answer
from explorer.core.errors import ExplorerError, InvalidArgument
from explorer.core.models import DEFAULT_SCOPE
from explorer.core.scour import ScourRequest
from explorer.tools import CORE_MEMORY, ToolContext, error_json

TOOL_NAME = "scour"
AUDIT_QUERY_CHARS = 120

audit = logging.getLogger("explorer.audit")


def _echo(query: object) -> str | None:
    """The query as echoed in an error object: only a string, and never a huge one."""
    return query[:AUDIT_QUERY_CHARS] if type(query) is str else None


async def run(
    query: str,
    n_chunks: int = 3,
    kg_top_k: int = 5,
    domain: str | None = None,
    temporal: str | None = None,
    explain: bool = False,
    ctx: ToolContext | None = None,
) -> str:
    """Recall ``query`` from both memory systems and return one JSON answer.

    ``n_chunks`` verbatim chunks (0 skips the vector half), ``kg_top_k`` graph entities (0 skips
    the graph half), ``domain`` filters chunks by tag inside the query, ``temporal`` keeps
    entities with provenance in a period (``2023``, ``2023-05``, ``2023-05-08``, ``2023-Q2``,
    ``START..END``). Per-half failures land in ``kg_error``/``chunks_error``. The answer is
    compact (entities with key facts and provenance spans, chunks with their verbatim text);
    ``explain=True`` returns the full trace as well: the ledger of drops, the activation log,
    per-hit score breakdowns and timings.
    """
    if ctx is None:
        return error_json("scour needs a tool context (the caller and its memory); none was given")
    if type(ctx.privileges) is not int or not ctx.privileges & CORE_MEMORY:
        return error_json("permission denied: scour requires the CORE_MEMORY privilege")
    if type(explain) is not bool:
        return error_json(
            f"explain must be true or false, not {type(explain).__name__}", query=_echo(query)
        )
    try:
        request = ScourRequest(
            query=query,
            n_chunks=n_chunks,
            kg_top_k=kg_top_k,
            domain=domain,
            temporal=temporal,
            scope=ctx.scope or DEFAULT_SCOPE,
            agent=ctx.scope or None,  # the empty scope is the root, not an agent
        )
    except InvalidArgument as error:
        return error_json(str(error), query=_echo(query))
    audit.info("scour user=%s query=%r", ctx.user_id, request.query[:AUDIT_QUERY_CHARS])
    if ctx.memory is None:
        return error_json("scour has no open memory in its context", query=_echo(query))
    try:
        result = await ctx.memory.scour(request, policy=ctx.policy)
    except ExplorerError as error:
        return error_json(f"scour failed: {error}", query=_echo(query))
    if explain:
        answer: str = result.to_json()
        return answer
    return json.dumps(compact_answer(result.to_json_dict()), indent=2, ensure_ascii=False)
