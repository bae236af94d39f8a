"""Between core models and PostgreSQL rows: chunks, embedding specs and vector matrices checked.

Outbound, a ``Chunk`` becomes the tuple of its column values (every value through
``adapters.sanitize``, the scope normalised, naive timestamps taken as UTC) and vectors one
``float32`` matrix of the spec's dimension with finite numbers only; inbound, a row becomes a
``Chunk`` (an unknown layer reads as episodic). A spec other than the stored one raises
``EmbeddingMismatch``. Imports the core, ``adapters.sanitize``, ``asyncpg`` and ``numpy``.
"""

from __future__ import annotations

import contextlib
from collections.abc import Sequence
from datetime import UTC, datetime
from typing import Any

import asyncpg
import numpy as np

from explorer.adapters import sanitize
from explorer.core.errors import EmbeddingMismatch, InvalidArgument
from explorer.core.models import DEFAULT_SCOPE, Chunk, EmbeddingSpec, MemoryLayer, normalise_scope

MAX_CHUNK_CHARS = 1_000_000
MAX_DIMENSION = 16_000


def plain_moment(value: object, name: str) -> datetime:
    if not isinstance(value, datetime):
        raise InvalidArgument(f"{name} must be a datetime")
    return value if value.tzinfo is not None else value.replace(tzinfo=UTC)


def plain_spec(spec: object) -> EmbeddingSpec:
    if not isinstance(spec, EmbeddingSpec):
        raise InvalidArgument("spec must be an EmbeddingSpec")
    return EmbeddingSpec(
        sanitize.plain_text(spec.model, "spec.model", max_chars=200, allow_empty=False),
        sanitize.plain_int(spec.dimension, "spec.dimension", low=1, high=MAX_DIMENSION),
    )


def vector_matrix(
    vectors: object, rows: int, dimension: int
) -> np.ndarray[Any, np.dtype[np.float32]]:
    if isinstance(vectors, str | bytes) or not isinstance(vectors, Sequence | np.ndarray):
        raise InvalidArgument("vectors must be a sequence of vectors")
    if len(vectors) != rows:
        raise InvalidArgument(f"got {rows} chunks but {len(vectors)} vectors")
    if rows == 0:
        return np.zeros((0, dimension), dtype=np.float32)
    try:
        matrix = np.asarray(vectors, dtype=np.float64)
    except (TypeError, ValueError):
        raise InvalidArgument("vectors must be equal-length sequences of numbers") from None
    if matrix.ndim != 2:
        raise InvalidArgument("vectors must be equal-length sequences of numbers")
    if matrix.shape[1] != dimension:
        raise EmbeddingMismatch(
            f"vectors have dimension {matrix.shape[1]} but the spec says {dimension}"
        )
    if not np.isfinite(matrix).all():
        raise InvalidArgument("vectors must contain only finite numbers")
    return matrix.astype(np.float32)


def check_spec(stored: EmbeddingSpec, given: EmbeddingSpec) -> None:
    if stored != given:
        raise EmbeddingMismatch(
            f"the chunk store holds {stored.model!r} vectors of dimension {stored.dimension}; "
            f"got {given.model!r} of dimension {given.dimension}. Re-embed the store or query "
            f"it with the model it was built with."
        )


def chunk_values(chunk: object, index: int) -> tuple[object, ...]:
    name = f"chunks[{index}]"
    if not isinstance(chunk, Chunk):
        raise InvalidArgument(f"{name} is not a Chunk")
    layer = sanitize.plain_text(chunk.layer, f"{name}.layer", max_chars=100)
    try:
        layer = str.__str__(MemoryLayer(layer).value)
    except ValueError:
        raise InvalidArgument(f"{name}.layer is not a memory layer") from None
    content_hash = sanitize.plain_text(chunk.content_hash, f"{name}.content_hash", max_chars=200)
    return (
        sanitize.plain_text(chunk.id, f"{name}.id", max_chars=1_000, allow_empty=False),
        sanitize.plain_text(chunk.text, f"{name}.text", max_chars=MAX_CHUNK_CHARS),
        sanitize.plain_text(chunk.conversation_id, f"{name}.conversation_id", max_chars=1_000),
        sanitize.plain_int(chunk.position, f"{name}.position", low=0, high=2**31 - 1),
        sanitize.plain_text(chunk.speaker, f"{name}.speaker", max_chars=1_000),
        plain_moment(chunk.timestamp, f"{name}.timestamp"),
        list(
            dict.fromkeys(sanitize.plain_strings(chunk.domains, f"{name}.domains", max_items=1_000))
        ),
        normalise_scope(sanitize.plain_text(chunk.scope, f"{name}.scope", max_chars=1_000))
        or DEFAULT_SCOPE,
        layer,
        content_hash or None,
        sanitize.plain_text(chunk.turn_id, f"{name}.turn_id", max_chars=1_000),
        sanitize.plain_int(chunk.turn_offset, f"{name}.turn_offset", low=0, high=2**31 - 1),
        sanitize.plain_text(chunk.title, f"{name}.title", max_chars=1_000),
    )


def decode_chunk(row: asyncpg.Record) -> Chunk:
    layer = str(row["layer"])
    with contextlib.suppress(ValueError):
        return _build_chunk(row, MemoryLayer(layer))
    return _build_chunk(row, MemoryLayer.EPISODIC)


def _build_chunk(row: asyncpg.Record, layer: MemoryLayer) -> Chunk:
    return Chunk(
        id=str(row["id"]),
        text=str(row["text"]),
        conversation_id=str(row["conversation_id"]),
        position=int(row["position"]),
        speaker=str(row["speaker"]),
        timestamp=row["ts"],
        domains=tuple(str(d) for d in row["domains"] or ()),
        scope=str(row["scope"]),
        layer=layer,
        content_hash=str(row["content_hash"] or ""),
        turn_id=str(row["turn_id"] or ""),
        turn_offset=int(row["turn_offset"] or 0),
        title=str(row["title"] or ""),
    )
