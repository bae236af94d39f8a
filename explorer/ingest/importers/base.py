"""The common shape of every importer: turns out, bad records aside, limits on what is read.

An importer turns one file into ``Turn`` values (one message each, in conversation order) and a
list of ``BadRecord`` values for what it could not use. Whether a bad record stops the import is
decided once, in ``read_turns``: strict by default, so a half-good file never half-imports.
Imports only the standard library and core models/errors.
"""

from __future__ import annotations

import math
import unicodedata
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

from explorer.core.errors import InvalidArgument
from explorer.core.models import DEFAULT_SCOPE, SCOPE_SEPARATOR, scope_parts
from explorer.core.validate import has_control, validate_scope

MAX_NAME_CHARS = 200  # speakers, conversation and turn ids
MAX_DOMAINS = 32
MAX_DOMAIN_CHARS = 64
MAX_BAD_KEPT = 1000  # bad records listed in a report; the rest are only counted

BytesProgress = Callable[[int, int], None]


@dataclass(frozen=True, slots=True)
class ImportLimits:
    """Caps that keep a hostile or broken file from exhausting memory."""

    max_line_bytes: int = 16 * 1024 * 1024
    max_document_bytes: int = 256 * 1024 * 1024
    max_text_chars: int = 1_000_000


@dataclass(frozen=True, slots=True)
class Turn:
    """One message of a conversation, as read from a file; chunking turns it into chunks."""

    scope: str
    conversation_id: str
    turn_id: str
    speaker: str
    text: str
    timestamp: datetime
    domains: tuple[str, ...] = ()
    title: str = ""  # the conversation's, when the file names it


@dataclass(frozen=True, slots=True)
class BadRecord:
    """A record an importer could not use: where it is (line or record) and why."""

    location: str
    reason: str

    def describe(self, path: Path | str) -> str:
        return f"{path}: {self.location}: {self.reason}"


@dataclass(slots=True)
class ImportResult:
    """What an importer read: the usable turns and the records it had to leave out."""

    turns: list[Turn] = field(default_factory=list)
    bad: list[BadRecord] = field(default_factory=list)
    bad_count: int = 0
    skipped_empty: int = 0
    _seen_turns: set[tuple[str, str, str]] = field(default_factory=set, repr=False)

    def add_bad(self, location: str, reason: str) -> None:
        self.bad_count += 1
        if len(self.bad) < MAX_BAD_KEPT:
            self.bad.append(BadRecord(location, reason))

    def add_turn(self, turn: Turn, location: str) -> None:
        """Keep a turn unless its id repeats one already kept (its chunks would collide)."""
        key = (turn.scope, turn.conversation_id, turn.turn_id)
        if key in self._seen_turns:
            self.add_bad(location, f"turn id {turn.turn_id!r} repeats an earlier one")
            return
        self._seen_turns.add(key)
        self.turns.append(turn)


class BadValue(ValueError):
    """Raised by the field checkers below; the importer turns it into a ``BadRecord``."""


def check_text(value: object, what: str, limits: ImportLimits) -> str:
    """A message text: a string PostgreSQL can store, within the size cap (may be empty)."""
    if not isinstance(value, str):
        raise BadValue(f"{what} must be a string, not {type_name(value)}")
    if "\x00" in value:
        raise BadValue(f"{what} contains a NUL character")
    if len(value) > limits.max_text_chars:
        raise BadValue(f"{what} is longer than {limits.max_text_chars} characters")
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        raise BadValue(f"{what} contains an unpaired surrogate (not valid Unicode)") from None
    return value


def check_name(value: object, what: str, *, numbers: bool = True) -> str:
    """A short identifier-like string (speaker, conversation id, turn id).

    Integers are accepted as ids (``numbers``) and written out as text; a speaker must be text.
    """
    if numbers and isinstance(value, int) and not isinstance(value, bool):
        value = str(value)
    if not isinstance(value, str):
        raise BadValue(f"{what} must be a string, not {type_name(value)}")
    value = value.strip()
    if not value:
        raise BadValue(f"{what} is empty")
    if all(char.isspace() or unicodedata.category(char) == "Cf" for char in value):
        # Zero-width spaces and joiners, direction marks: a name no one could see or type.
        raise BadValue(f"{what} has no visible characters")
    if len(value) > MAX_NAME_CHARS:
        raise BadValue(f"{what} is longer than {MAX_NAME_CHARS} characters")
    if has_control(value):
        raise BadValue(f"{what} contains control characters")
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        raise BadValue(f"{what} contains an unpaired surrogate (not valid Unicode)") from None
    return value


def check_domains(value: object) -> tuple[str, ...]:
    """Domain tags: a list of short strings, case-folded, duplicates dropped, order kept."""
    if value is None:
        return ()
    if not isinstance(value, list):
        raise BadValue(f"domains must be a list of strings, not {type_name(value)}")
    if len(value) > MAX_DOMAINS:
        raise BadValue(f"more than {MAX_DOMAINS} domains")
    tags: list[str] = []
    for tag in value:
        if not isinstance(tag, str):
            raise BadValue(f"domains must be strings, not {type_name(tag)}")
        folded = " ".join(tag.casefold().split())
        if not folded or len(folded) > MAX_DOMAIN_CHARS or has_control(folded):
            raise BadValue(f"domain {tag[:40]!r} is empty, too long or has control characters")
        if folded not in tags:
            tags.append(folded)
    return tuple(tags)


def check_scope(value: object) -> str:
    """A scope path: non-empty "/"-separated parts (spaces around them trimmed) that a query
    may name (``core.validate.validate_scope``)."""
    if not isinstance(value, str):
        raise BadValue(f"scope must be a string, not {type_name(value)}")
    parts = tuple(part.strip() for part in scope_parts(value))
    if not parts or any(not part for part in parts):
        raise BadValue(f"scope {value[:60]!r} has no usable parts")
    try:
        return validate_scope(SCOPE_SEPARATOR.join(parts))
    except InvalidArgument as error:
        raise BadValue(str(error)) from None


def join_scope(prefix: str | None, sub: str | None) -> str:
    """A record's own scope placed under the import's prefix; the default when neither is set."""
    parts = [part for part in (prefix, sub) if part]
    return SCOPE_SEPARATOR.join(parts) if parts else DEFAULT_SCOPE


class HugeNumber:
    """Stands in for a JSON integer too long to convert (Python refuses over 4,300 digits), so
    the record holding it is reported bad instead of the whole file failing to parse."""

    def __init__(self, digits: str) -> None:
        self.digits = len(digits.lstrip("-"))

    def __repr__(self) -> str:
        return f"<a {self.digits}-digit number>"


#: Longest integer literal parsed from an import file; anything longer is a ``HugeNumber``.
MAX_INT_DIGITS = 100


def parse_int(literal: str) -> int | HugeNumber:
    """``json.loads``'s ``parse_int`` for import files."""
    return int(literal) if len(literal) <= MAX_INT_DIGITS else HugeNumber(literal)


def type_name(value: object) -> str:
    """How a value's type reads in a message."""
    return "a number too large" if isinstance(value, HugeNumber) else type(value).__name__


# Times are kept a day inside datetime's range, so the arithmetic done on them (a turn's offset,
# a period's bounds, recency) can never overflow.
EARLIEST = datetime(1, 1, 2, tzinfo=UTC)
LATEST = datetime(9999, 12, 30, tzinfo=UTC)


def check_moment(moment: datetime, what: str) -> datetime:
    """``moment`` in UTC, or a ``BadValue`` when it falls outside ``EARLIEST``..``LATEST``."""
    try:
        utc = as_utc(moment)
    except OverflowError:
        utc = None
    if utc is None or not EARLIEST <= utc <= LATEST:
        shown = moment.isoformat()
        raise BadValue(f"{what} {shown} is out of range (0001-01-02 to 9999-12-30 UTC)")
    return utc


def check_timestamp(value: object, what: str = "timestamp") -> datetime:
    """An ISO 8601 string; one without a zone is taken as UTC. Returned in UTC."""
    if not isinstance(value, str):
        raise BadValue(f"{what} must be an ISO 8601 string, not {type_name(value)}")
    try:
        moment = datetime.fromisoformat(value.strip())
    except ValueError:
        raise BadValue(f"{what} {value[:40]!r} is not an ISO 8601 date and time") from None
    return check_moment(moment, what)


def epoch_timestamp(value: object, what: str) -> datetime:
    """A Unix time in seconds (int or float) as a UTC datetime."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise BadValue(f"{what} must be a number of seconds since 1970, not {type_name(value)}")
    try:
        seconds = float(value)
        if not math.isfinite(seconds):
            raise OverflowError
        return check_moment(datetime.fromtimestamp(seconds, UTC), what)
    except (OverflowError, OSError, ValueError):
        raise BadValue(f"{what} {value!r} is out of range") from None


def as_utc(moment: datetime) -> datetime:
    if moment.tzinfo is None:
        return moment.replace(tzinfo=UTC)
    return moment.astimezone(UTC)
