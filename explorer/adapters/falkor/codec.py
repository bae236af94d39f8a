"""Between core models and FalkorDB: rows to write, replies decoded, parameters checked.

Outbound, entities, mentions, relations and vectors become plain parameter rows (every value
through ``adapters.sanitize``, every timestamp as epoch seconds, naive datetimes taken as UTC),
and ids, vectors, scopes and periods are checked before any I/O. Inbound, the compact
``GRAPH.RO_QUERY`` reply is decoded cell by cell (the client's own decoder awaits per cell, which
costs more than the query) and its records become core models. Imports the core,
``adapters.sanitize``, ``adapters.falkor.cypher`` (its field lists), ``falkordb``'s parameter
quoting and ``redis``'s error types.
"""

from __future__ import annotations

import functools
import json
import math
import sys
import time
from array import array
from collections.abc import Iterable, Mapping, Sequence
from datetime import UTC, datetime
from typing import Any, SupportsFloat

import redis.exceptions as redis_errors
from falkordb.helpers import stringify_param_value

from explorer.adapters import sanitize
from explorer.adapters.falkor import cypher
from explorer.core.entity_ranking import EntityCandidate
from explorer.core.errors import EmbeddingMismatch, InvalidArgument, StoreUnavailable
from explorer.core.models import (
    DEFAULT_SCOPE,
    AliasEvidence,
    Entity,
    MemoryLayer,
    Mention,
    Period,
    Relation,
    normalise_scope,
)
from explorer.core.ports import Vector

MAX_IDS = 10_000
MAX_FIELD_CHARS = 100_000
MAX_VECTOR_DIMENSION = 4_096
MENTIONS_PER_RELATION = 50


def epoch(moment: datetime | None) -> float | None:
    """Epoch seconds of ``moment``; naive datetimes are taken as UTC."""
    if moment is None:
        return None
    if not isinstance(moment, datetime):
        raise InvalidArgument(f"expected a datetime, got {type(moment).__name__}")
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    return datetime.timestamp(moment)


def moment(seconds: object) -> datetime | None:
    """The UTC datetime of stored epoch seconds (``None`` stays ``None``)."""
    if isinstance(seconds, int | float) and not isinstance(seconds, bool):
        return datetime.fromtimestamp(float(seconds), tz=UTC)
    return None


# Cell kinds of FalkorDB's compact result set that the reads here return.
_NULL, _STRING, _INTEGER, _BOOLEAN, _DOUBLE, _ARRAY, _MAP, _VECTOR = 1, 2, 3, 4, 5, 6, 10, 12


def params_header(params: Mapping[str, object]) -> str:
    """The ``CYPHER name=value ...`` prefix, quoted by the client's own quoting."""
    if not params:
        return ""
    return "CYPHER " + "".join(f"`{key}`={_literal(value)} " for key, value in params.items())


def _literal(value: object) -> str:
    """The client's literal for ``value``; a list of floats (a query vector) written at once,
    as the client would write it number by number."""
    if type(value) is list and all(type(item) is float for item in value):
        return _vector_literal(array("d", value).tobytes())
    return str(stringify_param_value(value))


@functools.lru_cache(maxsize=4)
def _vector_literal(packed: bytes) -> str:
    # A query's vector goes out with both of its entity reads: written once. Keyed by its
    # bytes, since 0.0 == -0.0 (and so are tuples of them) but their literals differ.
    return f"[{','.join(map(str, array('d', packed)))}]"


def _cell(cell: Sequence[Any]) -> Any:
    kind, value = cell
    if kind == _STRING:
        return value.decode() if isinstance(value, bytes) else str(value)
    if kind == _INTEGER:
        return int(value)
    if kind == _DOUBLE:
        return float(value)
    if kind == _NULL:
        return None
    if kind == _ARRAY:
        return [_cell(item) for item in value]
    if kind == _BOOLEAN:
        return value in ("true", b"true")
    if kind == _VECTOR:  # a vecf32 property, e.g. a graphiti graph's stored embeddings
        return [float(item) for item in value]
    if kind == _MAP:
        return {
            (key.decode() if isinstance(key, bytes) else str(key)): _cell(item)
            for key, item in zip(value[::2], value[1::2], strict=True)
        }
    raise StoreUnavailable(f"FalkorDB returned a value of kind {kind} that no read here asks for")


def compact_rows(reply: Sequence[Any]) -> list[list[Any]]:
    """The rows of a compact ``GRAPH.RO_QUERY`` reply as plain values; errors raised."""
    for part in (reply[0], reply[-1]) if reply else ():
        if isinstance(part, redis_errors.ResponseError):
            raise StoreUnavailable(f"FalkorDB refused the read: {part}")
    if len(reply) < 3:
        return []  # statistics only: the statement returns nothing
    return [[_cell(cell) for cell in row] for row in reply[1]]


def _interned(value: object) -> object:
    return sys.intern(value) if isinstance(value, str) else value


def shape_page(
    entity_reply: Any, relation_reply: Any, mention_reply: Any
) -> tuple[list[Entity], list[Relation], list[tuple[str, str]]]:
    """One page of the graph's shape, decoded as ``spread_neighbourhood`` decodes its rows
    (types, scopes and layers interned: they repeat across the graph)."""
    entities = [
        decode_entity(dict(zip(cypher.SPREAD_ENTITY_KEYS, map(_interned, values), strict=True)), ())
        for (values,) in compact_rows(entity_reply)
    ]
    relations = [
        Relation(
            id=str(relation_id),
            source_id=str(source),
            target_id=str(target),
            type=sys.intern(str(kind or "")),
            fact=str(fact or ""),
            confidence=float(confidence or 0.0),
            valid_from=moment(valid_from),
            valid_to=moment(valid_to),
        )
        for source, target, relation_id, kind, fact, confidence, valid_from, valid_to in (
            compact_rows(relation_reply)
        )
    ]
    mentions = [(str(chunk), str(entity)) for chunk, entity in compact_rows(mention_reply)]
    return entities, relations, mentions


def module_version(modules: Any) -> str:
    """``MODULE LIST``'s entry for the graph module, as ``major.minor.patch``."""
    for module in modules or ():
        if isinstance(module, list):  # RESP2 servers without the client's parsing
            module = dict(zip(module[::2], module[1::2], strict=False))
        if isinstance(module, Mapping) and str(module.get("name", "")).lower() == "graph":
            number = int(module.get("ver", 0))
            return f"FalkorDB {number // 10000}.{number // 100 % 100}.{number % 100}"
    return "no FalkorDB module loaded"


def plain_ids(values: object, name: str) -> list[str]:
    return sanitize.plain_strings(values, name, max_items=MAX_IDS, max_chars=1_000)


def plain_vector(values: object, name: str) -> list[float]:
    if isinstance(values, str | bytes) or not isinstance(values, Sequence | Iterable):
        raise InvalidArgument(f"{name} must be a sequence of numbers")
    numbers = []
    for value in values:
        if isinstance(value, bool) or not isinstance(value, int | float | SupportsFloat):
            raise InvalidArgument(f"{name} must contain only numbers")
        numbers.append(float(value))
    if not 0 < len(numbers) <= MAX_VECTOR_DIMENSION:
        raise InvalidArgument(f"{name} must have 1 to {MAX_VECTOR_DIMENSION} numbers")
    if not all(math.isfinite(v) for v in numbers):
        raise InvalidArgument(f"{name} must contain only finite numbers")
    return numbers


def scope_params(scope: str | None) -> dict[str, object]:
    return {"scope": scope, "scope_below": None if scope is None else scope + "/"}


def filter_params(scope: str | None, period: Period | None) -> dict[str, object]:
    plain_scope = sanitize.optional_text(scope, "scope", max_chars=1_000)
    if plain_scope is not None:
        plain_scope = normalise_scope(plain_scope)
    if period is not None and not isinstance(period, Period):
        raise InvalidArgument("period must be a Period")
    return {
        **scope_params(plain_scope),
        "start": None if period is None else epoch(period.start),
        "end": None if period is None else epoch(period.end),
    }


def _text_list(values: object, name: str) -> list[str]:
    return sanitize.plain_strings(values, name, max_items=1_000, max_chars=10_000)


def entity_rows(entities: Sequence[Entity]) -> list[dict[str, object]]:
    if isinstance(entities, str | bytes) or not isinstance(entities, Sequence):
        raise InvalidArgument("entities must be a sequence of Entity")
    now = time.time()
    rows: dict[str, dict[str, object]] = {}
    for index, entity in enumerate(entities):
        if not isinstance(entity, Entity):
            raise InvalidArgument(f"entities[{index}] is not an Entity")
        name = f"entities[{index}]"
        mention_times = [epoch(m.timestamp) for m in _mentions(entity.mentions, name)]
        first_seen = epoch(entity.first_seen)
        last_seen = epoch(entity.last_seen)
        if first_seen is None and mention_times:
            first_seen = min(t for t in mention_times if t is not None)
        if last_seen is None and mention_times:
            last_seen = max(t for t in mention_times if t is not None)
        entity_id = sanitize.plain_text(entity.id, f"{name}.id", max_chars=1_000, allow_empty=False)
        updated_at = epoch(entity.updated_at)
        aliases = list(dict.fromkeys(_text_list(entity.aliases, f"{name}.aliases")))
        evidence = encode_alias_evidence(entity.alias_evidence, name)
        rows[entity_id] = {
            "id": entity_id,
            "name": sanitize.plain_text(entity.name, f"{name}.name", max_chars=10_000),
            "type": sanitize.plain_text(entity.type, f"{name}.type", max_chars=200),
            "description": sanitize.plain_text(
                entity.description, f"{name}.description", max_chars=MAX_FIELD_CHARS
            ),
            "aliases": aliases,
            # Each alias's and evidence item's case fold, which the upsert compares with the
            # names the stored entity refuses.
            "alias_folds": [alias.casefold() for alias in aliases],
            "alias_evidence": evidence,
            "evidence_folds": [str(json.loads(item)[0]).casefold() for item in evidence],
            "temporal": list(dict.fromkeys(_text_list(entity.temporal, f"{name}.temporal"))),
            "domains": list(dict.fromkeys(_text_list(entity.domains, f"{name}.domains"))),
            "confidence": sanitize.plain_float(entity.confidence, f"{name}.confidence"),
            "salience": sanitize.plain_float(entity.salience, f"{name}.salience"),
            "scope": normalise_scope(
                sanitize.plain_text(entity.scope, f"{name}.scope", max_chars=1_000)
            )
            or DEFAULT_SCOPE,
            "layer": _plain_layer(entity.layer, f"{name}.layer"),
            "created_at": epoch(entity.created_at) or now,
            "updated_at": updated_at or now,
            "given_updated_at": updated_at,
            "first_seen": first_seen,
            "last_seen": last_seen,
        }
    return list(rows.values())


def encode_alias_evidence(evidence: Sequence[AliasEvidence], name: str) -> list[str]:
    """Each alias's evidence as one JSON array text ``[alias, chunk_id, reason]``, so the graph
    keeps a plain string list that upserts can merge item by item."""
    items: list[str] = []
    for index, item in enumerate(evidence):
        if not isinstance(item, AliasEvidence):
            raise InvalidArgument(f"{name}.alias_evidence[{index}] is not an AliasEvidence")
        where = f"{name}.alias_evidence[{index}]"
        fields = [
            sanitize.plain_text(item.alias, f"{where}.alias", max_chars=10_000),
            sanitize.plain_text(item.chunk_id, f"{where}.chunk_id", max_chars=1_000),
            sanitize.plain_text(item.reason, f"{where}.reason", max_chars=1_000),
        ]
        items.append(json.dumps(fields, ensure_ascii=False))
    return list(dict.fromkeys(items))


def decode_alias_evidence(values: object) -> tuple[AliasEvidence, ...]:
    """The evidence items of a node; an item that does not parse is left out."""
    if not isinstance(values, list | tuple):
        return ()
    found: list[AliasEvidence] = []
    for value in values:
        try:
            fields = json.loads(str(value))
        except ValueError:
            continue
        if isinstance(fields, list) and len(fields) == 3:
            found.append(AliasEvidence(*(str(field) for field in fields)))
    return tuple(found)


def _plain_layer(value: object, name: str) -> str:
    text = sanitize.plain_text(value, name, max_chars=100)
    try:
        return str.__str__(MemoryLayer(text).value)
    except ValueError:
        raise InvalidArgument(f"{name} is not a memory layer: {text[:40]!r}") from None


def _mentions(mentions: object, name: str) -> list[Mention]:
    if not isinstance(mentions, Sequence):
        raise InvalidArgument(f"{name}.mentions must be a sequence of Mention")
    for index, mention in enumerate(mentions):
        if not isinstance(mention, Mention):
            raise InvalidArgument(f"{name}.mentions[{index}] is not a Mention")
    return list(mentions)


def _mention_row(mention: Mention, name: str) -> dict[str, object]:
    start = sanitize.plain_int(mention.start, f"{name}.start", low=0, high=2**53)
    end = sanitize.plain_int(mention.end, f"{name}.end", low=0, high=2**53)
    if end < start:
        raise InvalidArgument(f"{name} ends before it starts")
    return {
        "chunk": sanitize.plain_text(
            mention.chunk_id, f"{name}.chunk_id", max_chars=1_000, allow_empty=False
        ),
        "start": start,
        "end": end,
        "ts": epoch(mention.timestamp),
    }


def mention_rows(entities: Sequence[Entity]) -> list[dict[str, object]]:
    rows: dict[tuple[object, ...], dict[str, object]] = {}
    for index, entity in enumerate(entities):
        entity_id = sanitize.plain_text(entity.id, f"entities[{index}].id", max_chars=1_000)
        for position, mention in enumerate(_mentions(entity.mentions, f"entities[{index}]")):
            row = _mention_row(mention, f"entities[{index}].mentions[{position}]")
            row["entity"] = entity_id
            rows.setdefault((entity_id, row["chunk"], row["start"], row["end"]), row)
    return list(rows.values())


def relation_rows(relations: Sequence[Relation]) -> list[dict[str, object]]:
    if isinstance(relations, str | bytes) or not isinstance(relations, Sequence):
        raise InvalidArgument("relations must be a sequence of Relation")
    rows: dict[str, dict[str, object]] = {}
    for index, relation in enumerate(relations):
        name = f"relations[{index}]"
        if not isinstance(relation, Relation):
            raise InvalidArgument(f"{name} is not a Relation")
        mentions: dict[tuple[object, ...], dict[str, object]] = {}
        for position, mention in enumerate(_mentions(relation.mentions, name)):
            row = _mention_row(mention, f"{name}.mentions[{position}]")
            mentions.setdefault((row["chunk"], row["start"], row["end"]), row)
        relation_id = sanitize.plain_text(
            relation.id, f"{name}.id", max_chars=1_000, allow_empty=False
        )
        rows[relation_id] = {
            "id": relation_id,
            "source": sanitize.plain_text(relation.source_id, f"{name}.source_id", max_chars=1_000),
            "target": sanitize.plain_text(relation.target_id, f"{name}.target_id", max_chars=1_000),
            "type": sanitize.plain_text(relation.type, f"{name}.type", max_chars=200),
            "fact": sanitize.plain_text(relation.fact, f"{name}.fact", max_chars=MAX_FIELD_CHARS),
            "confidence": sanitize.plain_float(relation.confidence, f"{name}.confidence"),
            "valid_from": epoch(relation.valid_from),
            "valid_to": epoch(relation.valid_to),
            "mentions": list(mentions.values()),
        }
    return list(rows.values())


def vector_rows(vectors: Mapping[str, Vector]) -> list[dict[str, object]]:
    if not isinstance(vectors, Mapping):
        raise InvalidArgument("vectors must be a mapping of entity id to vector")
    rows: list[dict[str, object]] = []
    dimensions: set[int] = set()
    for key, value in vectors.items():
        entity_id = sanitize.plain_text(key, "vectors key", max_chars=1_000, allow_empty=False)
        numbers = plain_vector(value, f"vectors[{entity_id[:40]!r}]")
        dimensions.add(len(numbers))
        rows.append({"id": entity_id, "vector": numbers})
    if len(dimensions) > 1:
        raise EmbeddingMismatch("entity vectors in one upsert have different dimensions")
    return rows


def _mention_tuple(items: Sequence[Mapping[str, Any]]) -> tuple[Mention, ...]:
    mentions = []
    for item in items:
        if item is None:
            continue
        when = moment(item.get("ts"))
        mentions.append(
            Mention(
                chunk_id=str(item["chunk"]),
                start=int(item["start"]),
                end=int(item["end"]),
                timestamp=when or datetime.fromtimestamp(0, tz=UTC),
            )
        )
    mentions.sort(key=lambda m: (m.timestamp, m.chunk_id, m.start))
    return tuple(mentions)


def decode_entity(fields: Mapping[str, Any], mentions: Sequence[Mapping[str, Any]]) -> Entity:
    layer = fields.get("layer") or MemoryLayer.SEMANTIC.value
    return Entity(
        id=str(fields["id"]),
        name=str(fields.get("name") or ""),
        type=str(fields.get("type") or ""),
        description=str(fields.get("description") or ""),
        aliases=tuple(str(a) for a in fields.get("aliases") or ()),
        alias_evidence=decode_alias_evidence(fields.get("alias_evidence")),
        refused_aliases=tuple(str(a) for a in fields.get("refused_aliases") or ()),
        confidence=float(fields.get("confidence") or 0.0),
        salience=float(fields.get("salience") or 0.0),
        created_at=moment(fields.get("created_at")),
        updated_at=moment(fields.get("updated_at")),
        first_seen=moment(fields.get("first_seen")),
        last_seen=moment(fields.get("last_seen")),
        temporal=tuple(str(t) for t in fields.get("temporal") or ()),
        domains=tuple(str(d) for d in fields.get("domains") or ()),
        scope=str(fields.get("scope") or DEFAULT_SCOPE),
        layer=_layer(layer),
        mentions=_mention_tuple(mentions),
    )


def _layer(value: object) -> MemoryLayer:
    try:
        return MemoryLayer(str(value))
    except ValueError:
        return MemoryLayer.SEMANTIC


def decode_relation(source: str, target: str, fields: Mapping[str, Any]) -> Relation:
    chunks = list(fields.get("mention_chunk") or [])
    starts = list(fields.get("mention_start") or [])
    ends = list(fields.get("mention_end") or [])
    stamps = list(fields.get("mention_ts") or [])
    items = [
        {"chunk": c, "start": s, "end": e, "ts": t}
        for c, s, e, t in zip(chunks, starts, ends, stamps, strict=False)
    ]
    mentions = _mention_tuple(items)[-MENTIONS_PER_RELATION:]
    return Relation(
        id=str(fields["id"]),
        source_id=source,
        target_id=target,
        type=str(fields.get("type") or ""),
        fact=str(fields.get("fact") or ""),
        confidence=float(fields.get("confidence") or 0.0),
        valid_from=moment(fields.get("valid_from")),
        valid_to=moment(fields.get("valid_to")),
        mentions=mentions,
    )


def candidates(
    text_rows: Sequence[Sequence[Any]], vector_rows: Sequence[Sequence[Any]]
) -> list[EntityCandidate]:
    """The rows of the two candidate reads (full text first) as ranking's candidates."""
    fulltext = {str(row[0]): float(row[1]) for row in text_rows}
    return [
        EntityCandidate(
            id=str(entity_id),
            names=f"{name or ''} {alias_text or ''}",
            description=str(description or ""),
            scope=str(entity_scope or ""),
            distance=None if distance is None else float(distance),
            fulltext=fulltext.get(str(entity_id), 0.0),
            alias_text=str(alias_text or ""),
        )
        for entity_id, _, name, alias_text, description, entity_scope, distance in (
            *text_rows,
            *vector_rows,
        )
    ]
