"""The word lists the extractor ships beside its modules: read once, rewritten by their builders.

A list is a UTF-8 text file in ``explorer.ingest``, one entry a line in the order written, with
``#`` comment lines (its source and how to rewrite it) skipped. Imports only the standard
library.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from functools import cache
from importlib.resources import files


def read_list(name: str) -> list[str]:
    """The entries of the shipped list ``name``, in file order."""
    text = files("explorer.ingest").joinpath(name).read_text(encoding="utf-8")
    return [line for line in text.splitlines() if line and not line.startswith("#")]


#: English's most frequent words, most frequent first (``casing`` builds it).
EVERYDAY_WORDS = "everyday_words.txt"


@cache
def ranks(name: str) -> dict[str, int]:
    """Each entry of the shipped list ``name`` with its place in it (0 first)."""
    return {entry: rank for rank, entry in enumerate(read_list(name))}


def write_list(name: str, header: str, entries: Sequence[str], what: str) -> int:
    """Rewrite the shipped list ``name`` (the source tree's copy); 0, as a ``main`` returns."""
    target = files("explorer.ingest").joinpath(name)
    with open(str(target), "w", encoding="utf-8") as out:
        out.write(header + "\n" + "\n".join(entries) + "\n")
    print(f"wrote {len(entries)} {what} to {name}", file=sys.stderr)
    return 0
