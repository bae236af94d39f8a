"""The ``locomo`` format: the LoCoMo benchmark's list of two-person, many-session conversations.

Each sample has a ``sample_id`` and a ``conversation`` with ``session_N`` turn lists and
``session_N_date_time`` strings such as "1:56 pm on 8 May, 2023" (read as UTC; the data carries
no zone). A turn's time is its session's, plus one second per position so order survives. An image
a speaker shared is kept as its caption, appended to the turn text as "[image: caption]", so the
words that describe it are searchable like the rest. Imports only the standard library and the
importer base.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from datetime import UTC, datetime, timedelta
from pathlib import Path

from explorer.ingest.importers.base import (
    BadValue,
    ImportLimits,
    ImportResult,
    Turn,
    check_moment,
    check_name,
    check_text,
    join_scope,
)
from explorer.ingest.importers.reading import read_document

_SESSION_KEY = re.compile(r"session_(\d+)")
_SESSION_TIME = re.compile(
    r"\s*(\d{1,2}):(\d{2})\s*([ap])\.?\s*m\.?\s+on\s+(\d{1,2})\s+([a-z]+)\.?,?\s+(\d{4})\s*",
    re.IGNORECASE,
)
_MONTHS = {
    name: number
    for number, names in enumerate(
        (
            ("january", "jan"),
            ("february", "feb"),
            ("march", "mar"),
            ("april", "apr"),
            ("may",),
            ("june", "jun"),
            ("july", "jul"),
            ("august", "aug"),
            ("september", "sep", "sept"),
            ("october", "oct"),
            ("november", "nov"),
            ("december", "dec"),
        ),
        start=1,
    )
    for name in names
}


def parse_session_time(text: object) -> datetime:
    """ "1:56 pm on 8 May, 2023" as a UTC datetime; anything else is a ``BadValue``."""
    if not isinstance(text, str):
        raise BadValue(f"session date must be a string, not {type(text).__name__}")
    match = _SESSION_TIME.fullmatch(text)
    month = _MONTHS.get(match.group(5).casefold()) if match else None
    if match is None or month is None:
        raise BadValue(f"session date {text[:40]!r} is not like '1:56 pm on 8 May, 2023'")
    hour, minute = int(match.group(1)), int(match.group(2))
    if not 1 <= hour <= 12:
        raise BadValue(f"session date {text!r} has an hour outside 1-12")
    hour = hour % 12 + (12 if match.group(3).casefold() == "p" else 0)
    try:
        moment = datetime(int(match.group(6)), month, int(match.group(4)), hour, minute, tzinfo=UTC)
    except ValueError as error:
        raise BadValue(f"session date {text!r}: {error}") from None
    return check_moment(moment, "session date")


def read_locomo(path: Path, scope: str | None, limits: ImportLimits) -> ImportResult:
    document = read_document(path, limits)
    result = ImportResult()
    samples = [document] if isinstance(document, Mapping) else document
    if not isinstance(samples, list):
        raise BadValue(f"expected a list of samples, found {type(document).__name__}")
    for index, sample in enumerate(samples):
        _read_sample(index, sample, scope, limits, result)
    return result


def _read_sample(
    index: int, sample: object, scope: str | None, limits: ImportLimits, result: ImportResult
) -> None:
    where = f"sample {index}"
    try:
        if not isinstance(sample, Mapping):
            raise BadValue(f"expected an object, found {type(sample).__name__}")
        if "sample_id" not in sample:
            raise BadValue("missing field: sample_id")
        sample_id = check_name(sample["sample_id"], "sample_id")
        where = f"sample {index} ({sample_id})"
        conversation = sample.get("conversation")
        if not isinstance(conversation, Mapping):
            raise BadValue("missing or malformed field: conversation")
    except (ValueError, OverflowError) as error:  # BadValue, or arithmetic on a bad value
        result.add_bad(where, str(error))
        return
    sample_scope = join_scope(scope, f"locomo/{sample_id}")
    sessions = sorted(
        (int(match.group(1)), key)
        for key in conversation
        if isinstance(key, str) and (match := _SESSION_KEY.fullmatch(key))
    )
    if not sessions:
        result.add_bad(where, "no session_N turn lists")
    for number, key in sessions:
        session_where = f"{where}, {key}"
        try:
            turns = conversation[key]
            if not isinstance(turns, list):
                raise BadValue(f"{key} must be a list of turns")
            started = parse_session_time(conversation.get(f"{key}_date_time"))
        except (ValueError, OverflowError) as error:  # BadValue, or arithmetic on a bad value
            result.add_bad(session_where, str(error))
            continue
        for position, raw in enumerate(turns):
            turn_where = f"{session_where}, turn {position}"
            try:
                turn = _turn(raw, number, position, started, sample_id, sample_scope, limits)
            except (ValueError, OverflowError) as error:  # BadValue, or arithmetic on a bad value
                result.add_bad(turn_where, str(error))
                continue
            if turn is None:
                result.skipped_empty += 1
            else:
                result.add_turn(turn, f"{turn_where} ({turn.turn_id})")


def _turn(
    raw: object,
    session: int,
    position: int,
    started: datetime,
    sample_id: str,
    scope: str,
    limits: ImportLimits,
) -> Turn | None:
    if not isinstance(raw, Mapping):
        raise BadValue(f"expected an object, found {type(raw).__name__}")
    missing = [name for name in ("speaker", "text") if name not in raw]
    if missing:
        raise BadValue(f"missing field(s): {', '.join(missing)}")
    speaker = check_name(raw["speaker"], "speaker", numbers=False)
    text = check_text(raw["text"], "text", limits).strip()
    turn_id = check_name(raw.get("dia_id", f"D{session}:{position + 1}"), "dia_id")
    caption = raw.get("blip_caption")
    if caption is not None:
        caption = check_text(caption, "blip_caption", limits).strip()
        if caption:
            text = f"{text} [image: {caption}]" if text else f"[image: {caption}]"
    if not text:
        return None
    return Turn(
        scope=scope,
        conversation_id=sample_id,
        turn_id=turn_id,
        speaker=speaker,
        text=text,
        timestamp=check_moment(started + timedelta(seconds=position), "the turn's time"),
    )
