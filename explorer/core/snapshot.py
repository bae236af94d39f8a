"""Indexes kept as flat arrays (``ports.IndexSnapshots``): the helpers the index modules share.

``pack_texts`` puts a list of strings into one UTF-8 byte array (each ended by a NUL: no term,
chunk id or concept name holds one, and an empty string survives) and ``unpack_texts`` reads it
back. ``load`` reads a snapshot through an index's own reader and treats one of another shape
as missing, so a snapshot can only ever save a build, never change an answer. Each index kind
has a ``FORMAT`` number, part of its snapshots' key and raised by hand whenever what its arrays
mean changes (tokenising, scoring, columns), so a start after an upgrade rebuilds instead of
loading arrays of the old meaning. Imports the standard library, numpy and core ports.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any, TypeVar

import numpy as np
import numpy.typing as npt

from explorer.core.ports import IndexSnapshots

SEPARATOR = "\x00"
Arrays = Mapping[str, npt.NDArray[Any]]
T = TypeVar("T")


def pack_texts(texts: Sequence[str]) -> npt.NDArray[np.uint8]:
    return np.frombuffer("".join(t + SEPARATOR for t in texts).encode("utf-8"), dtype=np.uint8)


def unpack_texts(packed: npt.NDArray[np.uint8]) -> list[str]:
    text = packed.tobytes().decode("utf-8")
    if text and not text.endswith(SEPARATOR):
        raise ValueError("packed texts do not end with their separator")
    return text.split(SEPARATOR)[:-1]


def load(
    snapshots: IndexSnapshots | None,
    kind: str,
    slot: str,
    key: str,
    read: Callable[[Arrays], T],
) -> T | None:
    """``read`` of ``slot``'s snapshot saved under ``key``; ``None`` when there is none or it
    does not describe an index ``read`` understands (it is rebuilt, not trusted)."""
    arrays = snapshots.load(kind, slot, key) if snapshots is not None else None
    if arrays is None:
        return None
    try:
        return read(arrays)
    except (KeyError, IndexError, ValueError, UnicodeDecodeError):
        return None
