"""The recall journal's records: what an agent asked scour, when, and what it was given.

``RecallCall`` is one call made through the tool contract: the caller's id, the time, the
arguments as sent (made JSON-safe and cut to size), the compact answer (or the error object) and,
for a call that answered, the recall case (``core.recall_case``) from which the full trace is
rebuilt: the ledger, the activation replay and the what-ifs. ``RecallSummary`` is the light part
a feed lists. Nothing from the settings or the environment is ever part of a record, so a
journal holds no secrets. Imports only the standard library and core.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from explorer.core.policy import policy_to_dict
from explorer.core.recall_case import RecallCase, gathered_to_json, request_to_json
from explorer.core.scour import ScourResult
from explorer.core.validate import printable

#: Longest string argument kept (a query is at most 4,000 characters when it is valid).
MAX_ARGUMENT_CHARS = 4_000
MAX_ARGUMENTS = 20


def _plain(value: Any) -> Any:
    """A JSON-safe stand-in for one argument value as the caller sent it."""
    if value is None or type(value) in (bool, int):
        return value
    if type(value) is float:
        return value if math.isfinite(value) else repr(value)  # JSON has no inf or NaN
    if type(value) is str:
        # NUL and lone surrogates cannot be stored as PostgreSQL text; they are kept escaped.
        return printable(value[:MAX_ARGUMENT_CHARS]).replace("\x00", "\\x00")
    return f"<{type(value).__name__}>"


def journal_arguments(arguments: Mapping[str, Any]) -> dict[str, Any]:
    """The arguments of a call as they can be journaled (values the tool refused included)."""
    items = list(arguments.items())[:MAX_ARGUMENTS]
    return {str(key)[:100]: _plain(value) for key, value in items}


@dataclass(frozen=True)
class RecallSummary:
    """One journaled call as a feed lists it."""

    id: int
    at: datetime
    caller: str
    query: str
    success: bool
    error: str | None = None
    kg_count: int = 0
    chunk_count: int = 0
    kg_error: str | None = None
    chunks_error: str | None = None


@dataclass(frozen=True)
class RecallCall:
    """One journaled call in full; ``id`` is 0 until the journal has stored it."""

    caller: str
    at: datetime
    arguments: Mapping[str, Any]
    answer: Mapping[str, Any]
    case: Mapping[str, Any] | None = None
    id: int = 0

    @property
    def success(self) -> bool:
        return self.answer.get("success") is True

    def summary(self) -> RecallSummary:
        answer = self.answer
        query = answer.get("query")
        if not isinstance(query, str):  # an error object echoes only a plain string query
            query = self.arguments.get("query")
        return RecallSummary(
            id=self.id,
            at=self.at,
            caller=self.caller,
            query=query if isinstance(query, str) else "",
            success=self.success,
            error=_text(answer.get("error")),
            kg_count=int(answer.get("kg_count") or 0),
            chunk_count=int(answer.get("chunk_count") or 0),
            kg_error=_text(answer.get("kg_error")),
            chunks_error=_text(answer.get("chunks_error")),
        )

    def recall_case(self) -> RecallCase | None:
        """The call as a recall case (``None`` for a call that did not answer)."""
        return RecallCase.from_json_dict(self.case) if self.case is not None else None


def _text(value: Any) -> str | None:
    return None if value is None else str(value)


def recall_call(
    caller: str,
    at: datetime,
    arguments: Mapping[str, Any],
    answer: Mapping[str, Any],
    result: ScourResult | None = None,
    full: Mapping[str, Any] | None = None,
) -> RecallCall:
    """The journal record of one call; ``result`` (when it answered) becomes its recall case.

    ``full`` is the result's full JSON when the caller has it already. The case is built as
    ``RecallCase.capture`` builds it but without its pass through canonical text: the journal
    stores it as JSON anyway, and that pass took half the time of a call.
    """
    case = None
    policy = result.retrieval.policy if result is not None else None
    if result is not None and policy is not None:
        gathered = result.retrieval.gathered
        case = RecallCase(
            request=request_to_json(result.request),
            policy=policy_to_dict(policy),
            result=dict(full) if full is not None else result.to_json_dict(),
            gathered=gathered_to_json(gathered) if gathered is not None else None,
            title=f"{caller}: {result.request.query}",
            saved_at=at.isoformat(),
        ).to_json_dict()
    return RecallCall(
        caller=caller,
        at=at,
        arguments=journal_arguments(arguments),
        answer=dict(answer),
        case=case,
    )
