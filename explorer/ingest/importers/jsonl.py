"""The ``jsonl`` format: one message per line, conversations in order.

Each line is an object with ``conversation_id``, ``speaker``, ``text``, ``timestamp`` (ISO 8601)
and optionally ``domains`` (list of tags), ``scope`` (placed under the import's scope) and
``turn_id`` (else the message's position in its conversation). Imports only the standard library
and the importer base.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from pathlib import Path

from explorer.ingest.importers.base import (
    BadValue,
    BytesProgress,
    ImportLimits,
    ImportResult,
    Turn,
    check_domains,
    check_name,
    check_scope,
    check_text,
    check_timestamp,
    join_scope,
)
from explorer.ingest.importers.reading import is_blank, iter_json_lines

REQUIRED_FIELDS = ("conversation_id", "speaker", "text", "timestamp")


def read_jsonl(
    path: Path,
    scope: str | None,
    limits: ImportLimits,
    on_bytes: BytesProgress | None = None,
) -> ImportResult:
    result = ImportResult()
    positions: Counter[tuple[str, str]] = Counter()
    for number, value, problem in iter_json_lines(path, limits, on_bytes):
        location = f"line {number}"
        if problem is not None:
            result.add_bad(location, problem)
            continue
        if is_blank(value):
            continue
        try:
            turn = _turn(value, scope, limits, positions)
        except (ValueError, OverflowError) as error:  # BadValue, or arithmetic on a bad value
            result.add_bad(location, str(error))
            continue
        if turn is None:
            result.skipped_empty += 1
        else:
            result.add_turn(turn, location)
    return result


def _turn(
    value: object,
    scope: str | None,
    limits: ImportLimits,
    positions: Counter[tuple[str, str]],
) -> Turn | None:
    if not isinstance(value, Mapping):
        raise BadValue(f"expected a JSON object, found {type(value).__name__}")
    missing = [name for name in REQUIRED_FIELDS if name not in value]
    if missing:
        raise BadValue(f"missing field(s): {', '.join(missing)}")
    conversation_id = check_name(value["conversation_id"], "conversation_id")
    speaker = check_name(value["speaker"], "speaker", numbers=False)
    text = check_text(value["text"], "text", limits)
    timestamp = check_timestamp(value["timestamp"])
    domains = check_domains(value.get("domains"))
    own_scope = value.get("scope")
    record_scope = join_scope(scope, None if own_scope is None else check_scope(own_scope))
    key = (record_scope, conversation_id)
    position = positions[key]
    turn_id = check_name(value["turn_id"], "turn_id") if value.get("turn_id") is not None else None
    # Every line counts towards the position, empty ones too, so ids do not shift when an empty
    # message is later filled in.
    positions[key] += 1
    if not text.strip():
        return None
    return Turn(
        scope=record_scope,
        conversation_id=conversation_id,
        turn_id=turn_id if turn_id is not None else str(position),
        speaker=speaker,
        text=text,
        timestamp=timestamp,
        domains=domains,
    )
