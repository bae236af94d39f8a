"""Reading import files without trusting them: encodings, size caps, bounded lines.

Whole-document formats (LoCoMo, ChatGPT exports) are read only under a size cap; line formats are
read one line at a time with a byte cap per line, and an over-long line is skipped in bounded
reads so it is never held in memory. Every problem becomes an ``ImportFormatError`` (the file is
unusable) or an error string for one line (the caller decides). Imports only the standard library
and core errors.
"""

from __future__ import annotations

import codecs
import json
from collections.abc import Iterator
from pathlib import Path

from explorer.core.errors import ImportFormatError, InvalidArgument
from explorer.ingest.importers.base import BytesProgress, ImportLimits, parse_int

_SKIP_BLOCK = 1 << 20
_UTF8_BOM = codecs.BOM_UTF8
_OTHER_BOMS = (
    (codecs.BOM_UTF32_LE, "UTF-32"),
    (codecs.BOM_UTF32_BE, "UTF-32"),
    (codecs.BOM_UTF16_LE, "UTF-16"),
    (codecs.BOM_UTF16_BE, "UTF-16"),
)


def check_file(path: Path) -> int:
    """The file's size; a missing path, a directory or an unreadable file is the caller's error."""
    try:
        if not path.exists():
            raise InvalidArgument(f"{path}: no such file")
        if not path.is_file():
            raise InvalidArgument(f"{path}: not a regular file")
        with path.open("rb"):
            pass
        return path.stat().st_size
    except OSError as error:
        raise InvalidArgument(f"{path}: cannot read: {error.strerror or error}") from None


def _check_encoding(path: Path, head: bytes) -> int:
    """How many bytes of BOM to skip; any encoding but UTF-8 is refused by name."""
    if head.startswith(_UTF8_BOM):
        return len(_UTF8_BOM)
    for bom, name in _OTHER_BOMS:
        if head.startswith(bom):
            raise ImportFormatError(f"{path}: the file is {name}-encoded; save it as UTF-8")
    if b"\x00" in head[:4]:
        raise ImportFormatError(
            f"{path}: the file has NUL bytes at the start (UTF-16 or UTF-32 without a byte order "
            "mark?); save it as UTF-8"
        )
    return 0


def _utf8_problem(raw: bytes) -> str | None:
    try:
        raw.decode("utf-8")
    except UnicodeDecodeError as error:
        return f"not valid UTF-8 (byte {error.start})"
    return None


def read_document(path: Path, limits: ImportLimits) -> object:
    """Parse a whole-file JSON document, under the size cap, as UTF-8."""
    size = check_file(path)
    if size > limits.max_document_bytes:
        raise ImportFormatError(
            f"{path}: the file is {size} bytes, over the {limits.max_document_bytes}-byte limit "
            "for this format"
        )
    try:
        raw = path.read_bytes()
    except OSError as error:
        raise InvalidArgument(f"{path}: cannot read: {error.strerror or error}") from None
    raw = raw[_check_encoding(path, raw[:4]) :]
    problem = _utf8_problem(raw)
    if problem is not None:
        raise ImportFormatError(f"{path}: {problem}")
    text = raw.decode("utf-8")
    del raw
    if not text.strip():
        raise ImportFormatError(f"{path}: the file is empty")
    try:
        return json.loads(text, parse_int=parse_int)
    except json.JSONDecodeError as error:
        raise ImportFormatError(
            f"{path}: not valid JSON at line {error.lineno} column {error.colno}: {error.msg}"
        ) from None
    except RecursionError:
        raise ImportFormatError(f"{path}: the JSON is nested too deeply") from None


def iter_json_lines(
    path: Path, limits: ImportLimits, on_bytes: BytesProgress | None = None
) -> Iterator[tuple[int, object, str | None]]:
    """``(line number, parsed value, None)`` per non-blank line, or ``(n, None, reason)``.

    A line longer than the cap is skipped in bounded reads and reported, never held whole.
    """
    size = check_file(path)
    cap = limits.max_line_bytes
    with path.open("rb") as handle:
        handle.seek(_check_encoding(path, handle.read(4)))
        number = 0
        while True:
            raw = handle.readline(cap + 1)
            if not raw:
                break
            number += 1
            if len(raw) > cap and not raw.endswith(b"\n"):
                while True:
                    rest = handle.readline(_SKIP_BLOCK)
                    if not rest or rest.endswith(b"\n"):
                        break
                yield number, None, f"the line is longer than {cap} bytes"
            else:
                yield (number, *_parse_line(raw))
            if on_bytes is not None and number % 1000 == 0:
                on_bytes(handle.tell(), size)
        if on_bytes is not None:
            on_bytes(size, size)


def _parse_line(raw: bytes) -> tuple[object, str | None]:
    problem = _utf8_problem(raw)
    if problem is not None:
        return None, problem
    text = raw.decode("utf-8").rstrip("\r\n")
    if not text.strip():
        return _BLANK, None
    try:
        return json.loads(text, parse_int=parse_int), None
    except json.JSONDecodeError as error:
        return None, f"not valid JSON at column {error.colno}: {error.msg}"
    except RecursionError:
        return None, "the JSON is nested too deeply"


class _Blank:
    """Marks a blank line, which is neither a record nor an error."""


_BLANK = _Blank()


def is_blank(value: object) -> bool:
    return value is _BLANK
