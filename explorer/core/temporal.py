"""Parsing scour's ``temporal`` argument into a ``Period``.

Accepted forms (UTC, half-open intervals): ``YYYY`` (the year), ``YYYY-MM`` (the month),
``YYYY-MM-DD`` (the day), ``YYYY-Qn`` (quarter ``n`` of 1..4), and ranges ``START..END`` where
each side is one of those forms and either side may be left open (``2023..``, ``..2023-06``).
A range runs from the start of ``START`` to the end of ``END`` (so ``2023..2024`` covers both
years). Anything else is an ``InvalidArgument`` that lists the accepted forms; nothing is ever
silently ignored. Imports only the standard library and core.
"""

from __future__ import annotations

import re
from datetime import UTC, datetime

from explorer.core.errors import InvalidArgument
from explorer.core.models import Period

ACCEPTED_FORMS = (
    "YYYY, YYYY-MM, YYYY-MM-DD, YYYY-Qn (n in 1..4), or a range START..END of those "
    "with either end open (e.g. 2023..2024-06, 2023.., ..2023-06)"
)
MAX_LENGTH = 64

_YEAR = re.compile(r"([0-9]{4})")
_MONTH = re.compile(r"([0-9]{4})-([0-9]{2})")
_DAY = re.compile(r"([0-9]{4})-([0-9]{2})-([0-9]{2})")
_QUARTER = re.compile(r"([0-9]{4})-[Qq]([1-4])")


def _reject(text: str, why: str = "") -> InvalidArgument:
    detail = f" ({why})" if why else ""
    return InvalidArgument(f"invalid temporal filter {text!r}{detail}; expected {ACCEPTED_FORMS}")


def _after(year: int, month: int) -> datetime | None:
    """The first moment after the month ending at ``year``/``month`` (None past year 9999)."""
    if month == 12:
        return None if year >= 9999 else datetime(year + 1, 1, 1, tzinfo=UTC)
    return datetime(year, month + 1, 1, tzinfo=UTC)


def _single(original: str, part: str) -> tuple[datetime, datetime | None]:
    """The ``[start, end)`` of one non-range form."""
    try:
        if match := _DAY.fullmatch(part):
            year, month, day = (int(group) for group in match.groups())
            start = datetime(year, month, day, tzinfo=UTC)
            following = start.toordinal() + 1
            end = (
                None
                if following > datetime.max.toordinal()
                else datetime.fromordinal(following).replace(tzinfo=UTC)
            )
            return start, end
        if match := _MONTH.fullmatch(part):
            year, month = (int(group) for group in match.groups())
            return datetime(year, month, 1, tzinfo=UTC), _after(year, month)
        if match := _QUARTER.fullmatch(part):
            year, quarter = (int(group) for group in match.groups())
            first = 3 * (quarter - 1) + 1
            return datetime(year, first, 1, tzinfo=UTC), _after(year, first + 2)
        if match := _YEAR.fullmatch(part):
            year = int(match.group(1))
            return datetime(year, 1, 1, tzinfo=UTC), _after(year, 12)
    except ValueError as error:
        raise _reject(original, str(error)) from error
    raise _reject(original)


def parse_period(text: str) -> Period:
    """The period ``text`` names; see the module docstring for the accepted forms."""
    if not isinstance(text, str):
        raise InvalidArgument(f"temporal filter must be a string, not {type(text).__name__}")
    if len(text) > MAX_LENGTH:
        raise _reject(text[:MAX_LENGTH] + "…", f"longer than {MAX_LENGTH} characters")
    cleaned = text.strip()
    if not cleaned:
        raise _reject(text, "empty")
    if ".." not in cleaned:
        start, end = _single(text, cleaned)
        return Period(start=start, end=end, text=cleaned)
    if cleaned.count("..") != 1:
        raise _reject(text, "a range has exactly one '..'")
    left, right = (side.strip() for side in cleaned.split(".."))
    if not left and not right:
        raise _reject(text, "a range needs at least one end")
    begins = _single(text, left)[0] if left else None
    ends = _single(text, right)[1] if right else None
    if begins is not None and ends is not None and begins >= ends:
        raise _reject(text, "the range ends before it starts")
    return Period(start=begins, end=ends, text=f"{left}..{right}")
