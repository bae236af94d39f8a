"""Importers: conversation files in three formats turned into ``Turn`` values, safely.

``read_turns(path, fmt, scope=..., skip_bad=...)`` is the one entry point. Strict by default: if
any record is bad, an ``ImportFormatError`` names the file and the first bad line or record (and
how many more) and nothing is returned to import; with ``skip_bad`` the good records come back
with the bad ones listed. A file that cannot be read at all is an ``ImportFormatError`` (or an
``InvalidArgument`` when it does not exist) in either mode. Imports only the standard library,
core models/errors and the importer modules.
"""

from __future__ import annotations

from pathlib import Path

from explorer.core.errors import ImportFormatError, InvalidArgument
from explorer.core.validate import MAX_SCOPE_PART_CHARS
from explorer.ingest.importers.base import (
    BadRecord,
    BadValue,
    BytesProgress,
    ImportLimits,
    ImportResult,
    Turn,
    check_scope,
)
from explorer.ingest.importers.chatgpt import read_chatgpt
from explorer.ingest.importers.jsonl import read_jsonl
from explorer.ingest.importers.locomo import read_locomo

FORMATS = ("locomo", "jsonl", "chatgpt")

__all__ = [
    "FORMATS",
    "BadRecord",
    "ImportLimits",
    "ImportResult",
    "Turn",
    "detect_format",
    "read_turns",
    "suggest_scope",
]


def read_turns(
    path: Path | str,
    fmt: str,
    *,
    scope: str | None = None,
    skip_bad: bool = False,
    limits: ImportLimits | None = None,
    on_bytes: BytesProgress | None = None,
) -> ImportResult:
    """Read and validate a whole file. Blocking: run it in a worker thread from async code.

    ``scope`` is the prefix every record's scope goes under (LoCoMo samples add
    ``locomo/<sample_id>``, JSONL records their own ``scope``).
    """
    path = Path(path)
    limits = limits or ImportLimits()
    if fmt not in FORMATS:
        raise InvalidArgument(f"unknown format {fmt!r}; use one of {', '.join(FORMATS)}")
    try:
        prefix = None if scope is None else check_scope(scope)
    except BadValue as error:
        raise InvalidArgument(str(error)) from None
    try:
        if fmt == "jsonl":
            result = read_jsonl(path, prefix, limits, on_bytes)
        elif fmt == "locomo":
            result = read_locomo(path, prefix, limits)
        else:
            result = read_chatgpt(path, prefix, limits)
    except BadValue as error:
        raise ImportFormatError(f"{path}: {error}") from None
    except RecursionError:
        raise ImportFormatError(f"{path}: the data is nested too deeply") from None
    if result.bad_count and not skip_bad:
        first = result.bad[0].describe(path)
        more = result.bad_count - 1
        tail = f" (and {more} more bad record{'s' if more != 1 else ''})" if more else ""
        raise ImportFormatError(
            f"{first}{tail}; nothing was imported (skip bad records to import the rest)"
        )
    if not result.turns and not result.bad_count and not skip_bad:
        raise ImportFormatError(f"{path}: no messages found in this {fmt} file")
    return result


#: Bytes read from the start of a file to tell its format.
SNIFF_BYTES = 65_536


def detect_format(path: Path | str) -> str | None:
    """The import format a file looks like (``jsonl``, ``chatgpt`` or ``locomo``), or ``None``.

    Reads only the start of the file: JSON lines whose first record has ``speaker`` and
    ``text`` are ``jsonl``; a JSON document with ChatGPT's ``mapping`` of messages is
    ``chatgpt``; one with LoCoMo's ``speaker_a`` conversations is ``locomo``.
    """
    try:
        with Path(path).open("rb") as handle:
            head = handle.read(SNIFF_BYTES).decode("utf-8", errors="replace").lstrip("\ufeff")
    except OSError:
        return None
    text = head.lstrip()
    if text.startswith("{"):
        first_line = text.split("\n", 1)[0]
        if '"speaker"' in first_line and '"text"' in first_line:
            return "jsonl"
    if '"mapping"' in head and '"author"' in head:
        return "chatgpt"
    if '"speaker_a"' in head or '"session_1"' in head:
        return "locomo"
    return None


def suggest_scope(path: Path | str) -> str:
    """A scope for a file imported from the window: its name, made safe, under the root."""
    stem = Path(path).name.split(".")[0].casefold()[:MAX_SCOPE_PART_CHARS]
    cleaned = "".join(ch if ch.isalnum() or ch in "-_" else "-" for ch in stem).strip("-_")
    return "-".join(part for part in cleaned.split("-") if part) or "imported"
