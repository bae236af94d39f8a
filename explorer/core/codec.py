"""The one JSON codec of the core models: chunks, entities, relations and their mentions.

Two forms, written here once. The record forms (``chunk_to_json``, ``entity_to_json``,
``relation_to_json`` and their ``*_from_json`` inverses) hold every field and read back to equal
models; recall cases store them. The answer forms (``chunk_fields``, ``entity_fields``,
``relationship_fields``) are what scour's JSON shows of a chunk, an entity (with some of its
provenance) and a relation seen from one of its ends; they are one-way. Times are ISO 8601
strings or ``null``; a malformed time raises ``InvalidArgument``. ``indented_json`` writes an
answer. Imports the standard library, orjson and core models and errors.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import Any

import orjson

from explorer.core.errors import InvalidArgument
from explorer.core.models import Chunk, Entity, MemoryLayer, Mention, Neighbour, Relation

JsonDict = dict[str, Any]


def indented_json(value: Any) -> str:
    """``value`` as the indented JSON answers are given in (two spaces, UTF-8 text as it is).

    orjson writes it ten times faster than the standard library's pure-Python indenting encoder.
    What orjson refuses (a lone surrogate echoed from a caller, an integer past 64 bits, a type
    it does not know) is written by the standard library as before, so an answer never fails
    for being written; numpy numbers are numbers either way.
    """
    try:
        return orjson.dumps(value, option=_ORJSON).decode()
    except TypeError:  # orjson.JSONEncodeError is a TypeError
        return json.dumps(value, indent=2, ensure_ascii=False, default=_plain)


_ORJSON = orjson.OPT_INDENT_2 | orjson.OPT_NON_STR_KEYS | orjson.OPT_SERIALIZE_NUMPY


def _plain(value: Any) -> Any:
    """A numpy number as the Python number it holds, anything else as its ``str``."""
    item = getattr(value, "item", None)
    return item() if callable(item) else str(value)


def iso(moment: datetime | None) -> str | None:
    """``moment`` in ISO 8601, or ``None``."""
    return moment.isoformat() if moment is not None else None


def moment_from_json(value: Any) -> datetime | None:
    """The time an ISO 8601 string names; ``None`` for ``None``."""
    if value is None:
        return None
    if not isinstance(value, str):
        raise InvalidArgument(f"expected an ISO 8601 time or null, not {value!r}")
    return datetime.fromisoformat(value)


def _required_moment(value: Any) -> datetime:
    moment = moment_from_json(value)
    assert moment is not None
    return moment


def mention_to_json(mention: Mention) -> JsonDict:
    return {
        "chunk_id": mention.chunk_id,
        "start": mention.start,
        "end": mention.end,
        "timestamp": iso(mention.timestamp),
    }


def mention_from_json(data: Mapping[str, Any]) -> Mention:
    moment = _required_moment(data["timestamp"])
    return Mention(str(data["chunk_id"]), int(data["start"]), int(data["end"]), moment)


# ---------------------------------------------------------------------- the answer forms


def chunk_fields(chunk: Chunk) -> JsonDict:
    """The stored part of a scour ``chunks`` item."""
    return {
        "id": chunk.id,
        "text": chunk.text,
        "conversation_id": chunk.conversation_id,
        "position": chunk.position,
        "speaker": chunk.speaker,
        "timestamp": iso(chunk.timestamp),
        "domains": list(chunk.domains),
        "scope": chunk.scope,
        "layer": chunk.layer.value,
        "turn_id": chunk.turn_id,
    }


def entity_fields(entity: Entity, mentions: Sequence[Mention] | None = None) -> JsonDict:
    """The stored part of a scour ``kg_entities`` item: an entity and (some of) its provenance."""
    shown = entity.mentions if mentions is None else mentions
    return {
        "id": entity.id,
        "name": entity.name,
        "type": entity.type,
        "description": entity.description,
        "aliases": list(entity.aliases),
        "confidence": entity.confidence,
        "salience": entity.salience,
        "first_seen": iso(entity.first_seen),
        "last_seen": iso(entity.last_seen),
        "scope": entity.scope,
        "layer": entity.layer.value,
        "temporal_concepts": list(entity.temporal),
        "domain_concepts": list(entity.domains),
        "provenance": [mention_to_json(mention) for mention in shown],
    }


def relationship_fields(neighbour: Neighbour) -> JsonDict:
    """A scour ``relationships`` item: a relation as seen from the entity it is listed under."""
    relation = neighbour.relation
    return {
        "id": relation.id,
        "type": relation.type,
        "fact": relation.fact,
        "direction": "out" if neighbour.outgoing else "in",
        "neighbour": {"id": neighbour.entity_id, "name": neighbour.name, "type": neighbour.type},
        "confidence": relation.confidence,
        "valid_from": iso(relation.valid_from),
        "valid_to": iso(relation.valid_to),
        # Transaction time, where the store keeps it (graphiti): when the fact was learned and
        # when it was retired.
        "recorded_at": iso(relation.recorded_at),
        "expired_at": iso(relation.expired_at),
    }


# ---------------------------------------------------------------------- the record forms


def chunk_to_json(chunk: Chunk) -> JsonDict:
    return {
        "type": "chunk",
        **chunk_fields(chunk),
        "content_hash": chunk.content_hash,
        "turn_offset": chunk.turn_offset,
        **({"title": chunk.title} if chunk.title else {}),
    }


def chunk_from_json(data: Mapping[str, Any]) -> Chunk:
    return Chunk(
        id=str(data["id"]),
        text=str(data["text"]),
        conversation_id=str(data["conversation_id"]),
        position=int(data["position"]),
        speaker=str(data["speaker"]),
        timestamp=_required_moment(data["timestamp"]),
        domains=tuple(data["domains"]),
        scope=str(data["scope"]),
        layer=MemoryLayer(data["layer"]),
        content_hash=str(data["content_hash"]),
        turn_id=str(data["turn_id"]),
        turn_offset=int(data["turn_offset"]),
        title=str(data.get("title", "")),
    )


def entity_to_json(entity: Entity) -> JsonDict:
    return {
        "type": "entity",
        "id": entity.id,
        "name": entity.name,
        "entity_type": entity.type,
        "description": entity.description,
        "aliases": list(entity.aliases),
        "confidence": entity.confidence,
        "salience": entity.salience,
        "created_at": iso(entity.created_at),
        "updated_at": iso(entity.updated_at),
        "first_seen": iso(entity.first_seen),
        "last_seen": iso(entity.last_seen),
        "temporal": list(entity.temporal),
        "domains": list(entity.domains),
        "scope": entity.scope,
        "layer": entity.layer.value,
        "mentions": [mention_to_json(m) for m in entity.mentions],
    }


def entity_from_json(data: Mapping[str, Any]) -> Entity:
    return Entity(
        id=str(data["id"]),
        name=str(data["name"]),
        type=str(data["entity_type"]),
        description=str(data["description"]),
        aliases=tuple(data["aliases"]),
        confidence=data["confidence"],
        salience=data["salience"],
        created_at=moment_from_json(data["created_at"]),
        updated_at=moment_from_json(data["updated_at"]),
        first_seen=moment_from_json(data["first_seen"]),
        last_seen=moment_from_json(data["last_seen"]),
        temporal=tuple(data["temporal"]),
        domains=tuple(data["domains"]),
        scope=str(data["scope"]),
        layer=MemoryLayer(data["layer"]),
        mentions=tuple(mention_from_json(m) for m in data["mentions"]),
    )


def relation_to_json(relation: Relation) -> JsonDict:
    return {
        "id": relation.id,
        "source_id": relation.source_id,
        "target_id": relation.target_id,
        "type": relation.type,
        "fact": relation.fact,
        "confidence": relation.confidence,
        "valid_from": iso(relation.valid_from),
        "valid_to": iso(relation.valid_to),
        "recorded_at": iso(relation.recorded_at),
        "expired_at": iso(relation.expired_at),
        "mentions": [mention_to_json(m) for m in relation.mentions],
    }


def relation_from_json(data: Mapping[str, Any]) -> Relation:
    return Relation(
        id=str(data["id"]),
        source_id=str(data["source_id"]),
        target_id=str(data["target_id"]),
        type=str(data["type"]),
        fact=str(data["fact"]),
        confidence=data["confidence"],
        valid_from=moment_from_json(data["valid_from"]),
        valid_to=moment_from_json(data["valid_to"]),
        mentions=tuple(mention_from_json(m) for m in data["mentions"]),
        # Records written before these fields existed have neither.
        recorded_at=moment_from_json(data.get("recorded_at")),
        expired_at=moment_from_json(data.get("expired_at")),
    )
