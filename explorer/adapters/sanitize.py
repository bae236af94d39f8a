"""Turning caller values into plain built-in values before they reach a store driver.

The ``falkordb`` client pastes query parameters into the query text using ``str()`` and the
value's own ``replace``, so an ``int`` or ``str`` subclass with a hostile ``__str__`` or
``replace`` could rewrite the query. Everything here copies values through the built-in types'
own slots (``str.__str__``, ``int.__index__``, ``float.__float__``), which never run a subclass's
overrides, and rejects what the stores cannot hold (NUL bytes, lone surrogates, non-finite
floats, unknown types) with ``InvalidArgument`` before any I/O. It also builds safe full-text
search terms from user text with ``core.text``. Imports only the standard library, core errors
and core text.
"""

from __future__ import annotations

import functools
import math
import re
from collections.abc import Mapping, Sequence

from explorer.core.errors import InvalidArgument
from explorer.core.text import SEARCH_STOP_WORDS, key_words, stem

PlainValue = None | bool | int | float | str | list["PlainValue"] | dict[str, "PlainValue"]

MAX_TEXT_CHARS = 1_000_000
MAX_DEPTH = 8
# Parameter names and map keys are written into the query header as identifiers.
_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]{0,62}")


def _plain_str(value: str, name: str, max_chars: int) -> str:
    text = str.__str__(value)
    if len(text) > max_chars:
        raise InvalidArgument(f"{name} is longer than {max_chars} characters")
    if "\x00" in text:
        raise InvalidArgument(f"{name} contains a NUL character")
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        raise InvalidArgument(f"{name} is not valid Unicode text (lone surrogate)") from None
    return text


def plain(value: object, name: str = "value", *, max_chars: int = MAX_TEXT_CHARS) -> PlainValue:
    """A copy of ``value`` made only of exact built-in types, or ``InvalidArgument``.

    Accepts ``None``, ``bool``, ``int``, finite ``float``, ``str``, lists and tuples of those, and
    dicts with identifier keys, nested at most ``MAX_DEPTH`` deep.
    """
    return _plain(value, name, max_chars, 0)


def _plain(value: object, name: str, max_chars: int, depth: int) -> PlainValue:
    if depth > MAX_DEPTH:
        raise InvalidArgument(f"{name} is nested too deeply")
    if value is None:
        return None
    if isinstance(value, bool):
        return bool(value)
    if isinstance(value, int):
        return int.__index__(value)
    if isinstance(value, float):
        number = float.__float__(value)
        if not math.isfinite(number):
            raise InvalidArgument(f"{name} must be a finite number")
        return number
    if isinstance(value, str):
        return _plain_str(value, name, max_chars)
    if isinstance(value, list | tuple):
        # A vector: one check for all of it (a bad number is named by the loop below).
        if all(type(item) is float for item in value) and all(map(math.isfinite, value)):
            return list(value)
        return [
            _plain(item, f"{name}[{index}]", max_chars, depth + 1)
            for index, item in enumerate(value)
        ]
    if isinstance(value, dict):
        result: dict[str, PlainValue] = {}
        for key, item in dict.items(value):
            plain_key = identifier(key, f"key of {name}")
            result[plain_key] = _plain(item, f"{name}.{plain_key}", max_chars, depth + 1)
        return result
    raise InvalidArgument(f"{name} has an unsupported type {type(value).__name__}")


def plain_params(params: Mapping[str, object]) -> dict[str, PlainValue]:
    """Query parameters with validated names and plain values."""
    result: dict[str, PlainValue] = {}
    for key, value in params.items():
        plain_key = identifier(key, "parameter name")
        result[plain_key] = plain(value, f"parameter {plain_key}")
    return result


def identifier(value: object, name: str = "identifier") -> str:
    """A strict ASCII identifier (letters, digits, underscore), as an exact ``str``."""
    if not isinstance(value, str):
        raise InvalidArgument(f"{name} must be a string")
    text = str.__str__(value)
    if _IDENTIFIER.fullmatch(text) is None:
        raise InvalidArgument(f"{name} must be a plain identifier, got {text[:40]!r}")
    return text


def plain_text(
    value: object, name: str, *, max_chars: int = MAX_TEXT_CHARS, allow_empty: bool = True
) -> str:
    """An exact ``str`` without NUL bytes or lone surrogates, at most ``max_chars`` long."""
    if not isinstance(value, str):
        raise InvalidArgument(f"{name} must be a string, got {type(value).__name__}")
    text = _plain_str(value, name, max_chars)
    if not allow_empty and not text.strip():
        raise InvalidArgument(f"{name} must not be empty")
    return text


def optional_text(value: object, name: str, *, max_chars: int = MAX_TEXT_CHARS) -> str | None:
    """Like ``plain_text`` but passes ``None`` through."""
    return None if value is None else plain_text(value, name, max_chars=max_chars)


def plain_int(value: object, name: str, *, low: int, high: int) -> int:
    """An exact ``int`` within ``[low, high]``; booleans and floats are refused."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise InvalidArgument(f"{name} must be an integer, got {type(value).__name__}")
    number = int.__index__(value)
    if not low <= number <= high:
        raise InvalidArgument(f"{name} must be between {low} and {high}, got {number}")
    return number


def plain_float(
    value: object, name: str, *, low: float = -math.inf, high: float = math.inf
) -> float:
    """An exact finite ``float`` within ``[low, high]``; integers are widened, booleans refused."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise InvalidArgument(f"{name} must be a number, got {type(value).__name__}")
    number = float(int.__index__(value)) if isinstance(value, int) else float.__float__(value)
    if not math.isfinite(number) or not low <= number <= high:
        raise InvalidArgument(f"{name} must be a finite number between {low} and {high}")
    return number


def plain_strings(
    values: object, name: str, *, max_items: int, max_chars: int = 10_000
) -> list[str]:
    """A list of exact strings from a sequence that is not itself a string."""
    if isinstance(values, str | bytes) or not isinstance(values, Sequence):
        raise InvalidArgument(f"{name} must be a sequence of strings")
    if len(values) > max_items:
        raise InvalidArgument(f"{name} has more than {max_items} items")
    return [
        plain_text(item, f"{name}[{index}]", max_chars=max_chars)
        for index, item in enumerate(values)
    ]


def search_terms(text: str, *, max_terms: int = 32) -> list[str]:
    """The full-text search terms of ``text``: ``core.text`` words without its search stop words,
    each once, in order, at most ``max_terms``.

    Only runs of letters and digits survive, so no full-text query syntax
    (``| - @ ~ * % " ( ) { }``) can reach the search engine; the caller joins the terms itself.
    """
    return key_words(str.__str__(text), SEARCH_STOP_WORDS)[:max_terms]


@functools.lru_cache(maxsize=1 << 16)
def light_stem(word: str) -> str:
    """``core.text.stem`` for prefix matching, so "engines" and "engine" meet when scoring."""
    return stem(word, for_prefix=True)


_DSN_PORT = re.compile(r"(?:^|\s)port\s*=\s*'?([^\s']*)")


def dsn(value: object) -> str:
    """A PostgreSQL DSN (URL or ``key=value`` form) whose ports are real ones.

    libpq-style drivers take a port like 99999 modulo 65536 and connect somewhere else.
    """
    text = plain_text(value, "dsn", max_chars=4_000, allow_empty=False)
    ports: list[str] = []
    if "://" in text:
        rest = text.split("://", 1)[1]
        netloc = re.split(r"[/?]", rest, maxsplit=1)[0].rpartition("@")[2]
        for host in netloc.split(","):
            port = host.rpartition("]")[2] if host.startswith("[") else host
            if ":" in port:
                ports.append(port.rpartition(":")[2])
        query = text.partition("?")[2]
        ports += [part[5:] for part in query.split("&") if part.startswith("port=")]
    else:
        ports += _DSN_PORT.findall(text)
    for listed in ports:
        for port in listed.split(","):
            if port and not (port.isdigit() and 1 <= int(port) <= 65535):
                raise InvalidArgument(f"the PostgreSQL dsn has port {port[:20]!r}; use 1-65535")
    return text
