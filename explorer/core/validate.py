"""Validation of scour's arguments before anything reaches a store.

Each check accepts only plain built-in values (``type(x) is int``, not a bool or a subclass whose
``__str__`` could smuggle text into a query) and raises ``InvalidArgument`` with a message that
says what was wrong and what is accepted. Imports only the standard library and core.
"""

from __future__ import annotations

import re
import unicodedata

from explorer.core.errors import InvalidArgument
from explorer.core.models import SCOPE_SEPARATOR, Period, scope_parts
from explorer.core.temporal import parse_period

MAX_QUERY_CHARS = 4_000
MAX_COUNT = 100
MAX_DOMAIN_CHARS = 64
MAX_SCOPE_CHARS = 512
MAX_SCOPE_PART_CHARS = 128
_DOMAIN = re.compile(r"[\w-]+")


def validate_query(query: object) -> str:
    """A non-empty plain ``str`` of at most ``MAX_QUERY_CHARS`` characters without NUL bytes."""
    if type(query) is not str:
        raise InvalidArgument(f"query must be a string, not {type(query).__name__}")
    if not query.strip():
        raise InvalidArgument("query must not be empty")
    if len(query) > MAX_QUERY_CHARS:
        raise InvalidArgument(
            f"query is {len(query)} characters long; at most {MAX_QUERY_CHARS} are accepted"
        )
    if "\x00" in query:
        raise InvalidArgument("query must not contain NUL bytes")
    try:
        query.encode("utf-8")
    except UnicodeEncodeError as error:
        # A lone surrogate (e.g. undecodable bytes on a command line) would make an answer
        # that cannot be written out as UTF-8.
        raise InvalidArgument(
            f"query is not valid Unicode: a lone surrogate at character {error.start} cannot "
            "be encoded as UTF-8"
        ) from None
    return query


def printable(text: str) -> str:
    """``text`` with anything UTF-8 cannot encode escaped, so an echo of it can be written."""
    return text.encode("utf-8", "backslashreplace").decode("utf-8")


def validate_count(name: str, value: object) -> int:
    """A plain ``int`` (not a bool) within ``0..MAX_COUNT``; 0 means "skip"."""
    if type(value) is not int:
        raise InvalidArgument(f"{name} must be an integer, not {type(value).__name__}")
    if not 0 <= value <= MAX_COUNT:
        raise InvalidArgument(f"{name} must be within 0..{MAX_COUNT}, not {value}")
    return value


def validate_domain(domain: object) -> str | None:
    """``None`` or a short tag of letters, digits, ``_`` and ``-``."""
    if domain is None:
        return None
    if type(domain) is not str:
        raise InvalidArgument(f"domain must be a string or null, not {type(domain).__name__}")
    if len(domain) > MAX_DOMAIN_CHARS or not _DOMAIN.fullmatch(domain):
        shown = domain if len(domain) <= MAX_DOMAIN_CHARS else domain[:MAX_DOMAIN_CHARS] + "…"
        raise InvalidArgument(
            f"domain {shown!r} is not a tag: use 1..{MAX_DOMAIN_CHARS} letters, digits, '_' or '-'"
        )
    return domain


def validate_temporal(temporal: object) -> Period | None:
    """``None`` or a period in one of the forms ``parse_period`` accepts."""
    if temporal is None:
        return None
    if type(temporal) is not str:
        raise InvalidArgument(f"temporal must be a string or null, not {type(temporal).__name__}")
    return parse_period(temporal)


def has_control(text: str) -> bool:
    """Whether ``text`` holds a control character (a newline, NUL, an escape...)."""
    return any(unicodedata.category(char) == "Cc" for char in text)


def validate_scope(scope: object, what: str = "scope") -> str:
    """A scope path as a query may name it: a string (empty for the root) of bounded length,
    without control characters or lone surrogates."""
    if type(scope) is not str:
        raise InvalidArgument(f"{what} must be a string, not {type(scope).__name__}")
    parts = scope_parts(scope)
    if len(scope) > MAX_SCOPE_CHARS or any(len(part) > MAX_SCOPE_PART_CHARS for part in parts):
        raise InvalidArgument(
            f"{what} {printable(scope[:60])!r}… is too long: at most {MAX_SCOPE_CHARS} "
            f"characters, {MAX_SCOPE_PART_CHARS} a level"
        )
    if has_control(scope):
        raise InvalidArgument(f"{what} {printable(scope[:60])!r} contains control characters")
    if any(part.strip() in (".", "..") for part in parts):
        raise InvalidArgument(f"{what} {printable(scope[:60])!r} has a '.' or '..' level")
    if printable(scope) != scope:
        raise InvalidArgument(f"{what} {printable(scope[:60])!r} is not valid Unicode")
    return scope


def forgettable_scope(scope: object) -> str:
    """A scope to delete, written as an import stores it ("demo/" and " demo " are "demo"): a
    valid scope path that names one, for the root holds every memory and is never deleted by
    naming it."""
    parts = (part.strip() for part in scope_parts(validate_scope(scope)))
    plain = SCOPE_SEPARATOR.join(part for part in parts if part)
    if not plain:
        raise InvalidArgument("name the scope to forget: the root scope holds the whole memory")
    return plain


def validate_scour_arguments(
    query: object, n_chunks: object, kg_top_k: object, domain: object, temporal: object
) -> tuple[str, int, int, str | None, Period | None]:
    """Every scour argument checked, in the order they appear in the call."""
    return (
        validate_query(query),
        validate_count("n_chunks", n_chunks),
        validate_count("kg_top_k", kg_top_k),
        validate_domain(domain),
        validate_temporal(temporal),
    )
