"""graphiti's stored records turned into the explorer's own models (no I/O).

graphiti-core writes every timestamp as an ISO-8601 text in UTC, node types as extra labels
beside ``Entity`` (plus ``Entity_<group>`` in some versions), and no salience, confidence or
aliases. So here: an entity's type is its first other label (``Entity`` when it has none), its
salience grows with the episodes that mention it (``m / (m + 2)``), confidence is 1, and its
mentions are the character spans where its name occurs in each mentioning episode's text (the
whole episode when the name does not occur). A ``RELATES_TO`` fact is a relation typed by its
``name`` and valid from ``valid_at`` to ``invalid_at``, with ``created_at`` and ``expired_at``
kept as when graphiti learned and retired it, confidence 1 while it is current and
``RETIRED_CONFIDENCE`` once invalidated or expired; its provenance is its ``episodes``, each a
whole-episode mention. An episode is a chunk: its content as text, ``valid_at`` as its time,
``source_description`` as the conversation, ``group_id`` as the scope, the actor of a one-line
``message`` episode (``"actor: text"``) as the speaker. Imports only the standard library and
core models.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from explorer.core.models import Chunk, Entity, MemoryLayer, Mention, Relation

#: The epoch, for a record whose time graphiti did not write.
NO_TIME = datetime.fromtimestamp(0, tz=UTC)
#: The type of an entity graphiti gave no label beyond ``Entity``.
PLAIN_TYPE = "Entity"
#: The confidence of a fact graphiti has invalidated or expired (a current one has 1), so
#: activation spreads less over it and answers list current facts first.
RETIRED_CONFIDENCE = 0.5
#: The longest message-episode actor taken as the chunk's speaker.
MAX_SPEAKER = 60


def when(value: object) -> datetime | None:
    """A stored ISO-8601 text as an aware datetime (naive ones are UTC); else ``None``."""
    if isinstance(value, datetime):
        moment = value
    elif isinstance(value, str) and value:
        try:
            moment = datetime.fromisoformat(value)
        except ValueError:
            return None
    else:
        return None
    return moment if moment.tzinfo is not None else moment.replace(tzinfo=UTC)


def iso_bound(moment: datetime | None) -> str | None:
    """A period bound in graphiti's own text form, so stored times compare to it as text."""
    if moment is None:
        return None
    aware = moment if moment.tzinfo is not None else moment.replace(tzinfo=UTC)
    return aware.astimezone(UTC).isoformat()


def entity_type(labels: Sequence[object], group: str) -> str:
    """The first label other than ``Entity`` and graphiti's per-group ``Entity_<group>``."""
    skip = {"Entity", "Entity_" + group.replace("-", "")}
    for label in labels or ():
        if str(label) not in skip:
            return str(label)
    return PLAIN_TYPE


def salience(mentioned: int) -> float:
    return mentioned / (mentioned + 2.0) if mentioned > 0 else 0.0


def name_spans(name: str, text: str) -> list[tuple[int, int]]:
    """Where ``name`` occurs in ``text`` as a whole word, ignoring case."""
    if not name.strip():
        return []
    pattern = re.compile(r"(?<!\w)" + re.escape(name.strip()) + r"(?!\w)", re.IGNORECASE)
    return [(found.start(), found.end()) for found in pattern.finditer(text)]


@dataclass(frozen=True, slots=True)
class Episode:
    """What a mention needs of an episode: its id, text length and time."""

    uuid: str
    length: int
    valid_at: datetime


def entity_mentions(name: str, episodes: Sequence[Sequence[Any]]) -> tuple[Mention, ...]:
    """Spans of ``name`` in each ``[uuid, content, valid_at, created_at]`` episode, oldest
    first; an episode that never spells the name is one whole-episode mention."""
    mentions: list[Mention] = []
    for item in episodes or ():
        if item is None:
            continue
        uuid, content, valid_at, created_at = item
        text = str(content or "")
        stamp = when(valid_at) or when(created_at) or NO_TIME
        spans = name_spans(name, text) or [(0, len(text))]
        mentions.extend(Mention(str(uuid), start, end, stamp) for start, end in spans)
    mentions.sort(key=lambda m: (m.timestamp, m.chunk_id, m.start))
    return tuple(mentions)


def entity(row: Sequence[Any], episodes: Sequence[Sequence[Any]] = ()) -> Entity:
    """An entity from ``[uuid, name, summary, group_id, created_at, labels, mentioned, first,
    last]`` and (optionally) its mentioning episodes."""
    uuid, name, summary, group, created, labels, mentioned, first, last = row[:9]
    group_text = str(group or "")
    created_at = when(created)
    return Entity(
        id=str(uuid),
        name=str(name or ""),
        type=entity_type(labels or (), group_text),
        description=str(summary or ""),
        confidence=1.0,
        salience=salience(int(mentioned or 0)),
        created_at=created_at,
        updated_at=created_at,
        first_seen=when(first),
        last_seen=when(last),
        scope=group_text,
        layer=MemoryLayer.SEMANTIC,
        mentions=entity_mentions(str(name or ""), episodes),
    )


def relation(
    source: object, target: object, fields: Mapping[str, Any], episodes: Mapping[str, Episode]
) -> Relation:
    """A relation from a ``RELATES_TO`` edge's fields and the episodes its ``episodes`` name."""
    mentions = []
    for uuid in fields.get("episodes") or ():
        episode = episodes.get(str(uuid))
        if episode is not None:
            mentions.append(Mention(episode.uuid, 0, episode.length, episode.valid_at))
    mentions.sort(key=lambda m: (m.timestamp, m.chunk_id))
    valid_to, expired_at = when(fields.get("invalid_at")), when(fields.get("expired_at"))
    return Relation(
        id=str(fields["uuid"]),
        source_id=str(source),
        target_id=str(target),
        type=str(fields.get("name") or ""),
        fact=str(fields.get("fact") or ""),
        confidence=1.0 if valid_to is None and expired_at is None else RETIRED_CONFIDENCE,
        valid_from=when(fields.get("valid_at")),
        valid_to=valid_to,
        recorded_at=when(fields.get("created_at")),
        expired_at=expired_at,
        mentions=tuple(mentions),
    )


def speaker(source: object, content: str) -> str:
    """The actor of a one-line ``message`` episode (graphiti's ``"actor: text"``), else ``""``."""
    if str(source) != "message" or "\n" in content.strip():
        return ""
    actor, colon, _ = content.partition(":")
    return actor.strip() if colon and 0 < len(actor.strip()) <= MAX_SPEAKER else ""


def chunk(row: Sequence[Any], position: int) -> Chunk:
    """A chunk from ``[uuid, content, source_description, source, valid_at, created_at,
    group_id]``."""
    uuid, content, description, source, valid_at, created_at, group = row[:7]
    text = str(content or "")
    group_text = str(group or "")
    return Chunk(
        id=str(uuid),
        text=text,
        conversation_id=str(description or "") or group_text,
        position=position,
        speaker=speaker(source, text),
        timestamp=when(valid_at) or when(created_at) or NO_TIME,
        scope=group_text,
        layer=MemoryLayer.EPISODIC,
        turn_id=str(uuid),
    )


def positioned(rows: Sequence[Sequence[Any]]) -> list[Chunk]:
    """Chunks of rows ordered by group, conversation and time, numbered within each
    conversation."""
    chunks: list[Chunk] = []
    counters: dict[tuple[str, str], int] = {}

    def order(row: Sequence[Any]) -> tuple[str, str, datetime, str]:
        return (str(row[6] or ""), str(row[2] or ""), when(row[4]) or NO_TIME, str(row[0]))

    for row in sorted(rows, key=order):
        key = (str(row[6] or ""), str(row[2] or ""))
        position = counters.get(key, 0)
        counters[key] = position + 1
        chunks.append(chunk(row, position))
    return chunks
