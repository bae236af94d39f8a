"""The scour tool: one call that recalls from the knowledge graph and the chunk store at once.

The agent-facing contract of the seed: ``TOOL_NAME`` and ``run(...)`` returning indented JSON,
compact by default (``core.compact``) and the full trace with ``explain=True``. A missing context
is an immediate error object; the CORE_MEMORY privilege is checked before anything else;
arguments are validated before any store is asked; the user id and a truncated query are logged
at info for auditing. The two halves run concurrently inside ``core.scour``, each awaited on its
own. Every call with a memory that keeps a journal is journaled (``core.journal``), refused ones
included: who, when, the arguments, the compact answer and the recall case. Imports core and the
tool registry's types only.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from datetime import UTC, datetime
from typing import Any

from explorer.core.codec import indented_json
from explorer.core.compact import compact_answer
from explorer.core.errors import ExplorerError, InvalidArgument
from explorer.core.journal import recall_call
from explorer.core.models import DEFAULT_SCOPE
from explorer.core.scour import ScourRequest, ScourResult
from explorer.core.validate import printable
from explorer.tools import CORE_MEMORY, ToolContext, error_json

TOOL_NAME = "scour"
AUDIT_QUERY_CHARS = 120
#: Longest a call's answer waits for its journal write (a store in trouble has its own deadline).
JOURNAL_WAIT = 1.0

audit = logging.getLogger("explorer.audit")
log = logging.getLogger(__name__)


def failure(message: str, **extra: Any) -> dict[str, Any]:
    """The error object of a call that could not be made (see ``error_json``)."""
    return {"success": False, "error": message, **extra}


def _echo(query: object) -> str | None:
    """The query as echoed in an error object: only a string, and never a huge one."""
    return printable(query[:AUDIT_QUERY_CHARS]) if type(query) is str else None


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
    if not isinstance(ctx, ToolContext):
        return error_json("scour needs a tool context (the caller and its memory); none was given")
    if type(ctx.user_id) is not str or not (ctx.scope is None or type(ctx.scope) is str):
        return error_json("scour's tool context needs a string user_id and a string scope or null")
    arguments = {
        "query": query,
        "n_chunks": n_chunks,
        "kg_top_k": kg_top_k,
        "domain": domain,
        "temporal": temporal,
        "explain": explain,
    }
    result, failure = await _recall(query, n_chunks, kg_top_k, domain, temporal, explain, ctx)
    full = result.to_json_dict() if result is not None else failure
    compact = compact_answer(full)
    await _journal(ctx, arguments, compact, result, full)
    return indented_json(full if explain is True else compact)


async def _recall(
    query: object,
    n_chunks: object,
    kg_top_k: object,
    domain: object,
    temporal: object,
    explain: object,
    ctx: ToolContext,
) -> tuple[ScourResult | None, dict[str, Any]]:
    """The answer, or ``None`` and the error object of a call that could not be made."""
    if type(ctx.privileges) is not int or not ctx.privileges & CORE_MEMORY:
        return None, failure("permission denied: scour requires the CORE_MEMORY privilege")
    if type(explain) is not bool:
        message = f"explain must be true or false, not {type(explain).__name__}"
        return None, failure(message, query=_echo(query))
    try:
        request = ScourRequest(
            query=query,  # type: ignore[arg-type]  # validated by the request itself
            n_chunks=n_chunks,  # type: ignore[arg-type]
            kg_top_k=kg_top_k,  # type: ignore[arg-type]
            domain=domain,  # type: ignore[arg-type]
            temporal=temporal,  # type: ignore[arg-type]
            scope=ctx.scope or DEFAULT_SCOPE,
            agent=ctx.scope or None,  # the empty scope is the root, not an agent
        )
    except InvalidArgument as error:
        return None, failure(str(error), query=_echo(query))
    # repr escapes newlines, so a caller's id or query can never forge another audit line.
    audit.info("scour user=%r query=%r", ctx.user_id, request.query[:AUDIT_QUERY_CHARS])
    if ctx.memory is None:
        return None, failure("scour has no open memory in its context", query=_echo(query))
    try:
        result: ScourResult = await ctx.memory.scour(request, policy=ctx.policy)
    except ExplorerError as error:
        return None, failure(f"scour failed: {error}", query=_echo(query))
    return result, {}


async def _journal(
    ctx: ToolContext,
    arguments: dict[str, Any],
    answer: dict[str, Any],
    result: ScourResult | None,
    full: dict[str, Any],
) -> None:
    """Journal the call when the memory keeps a journal; a failing journal never fails it, and
    a slow one holds the answer back at most ``JOURNAL_WAIT`` seconds (the write goes on)."""
    journal = getattr(ctx.memory, "journal", None)
    if journal is None:
        return
    try:
        call = recall_call(str(ctx.user_id), datetime.now(UTC), arguments, answer, result, full)
    except (ExplorerError, ValueError, TypeError) as error:
        log.warning("the recall journal could not record the call: %s", error)
        return
    writing = asyncio.ensure_future(journal.record(call))
    _writes.add(writing)
    writing.add_done_callback(_written)
    # Shielded: a write that outlasts the wait is not cancelled, only no longer waited for.
    with contextlib.suppress(Exception):  # a failed write is logged by ``_written``
        await asyncio.wait_for(asyncio.shield(writing), JOURNAL_WAIT)


#: Journal writes still running, kept referenced until they end.
_writes: set[asyncio.Future[Any]] = set()


def _written(writing: asyncio.Future[Any]) -> None:
    _writes.discard(writing)
    if writing.cancelled():
        return
    error = writing.exception()
    if error is not None:
        log.warning("the recall journal did not take the call: %s", error)
