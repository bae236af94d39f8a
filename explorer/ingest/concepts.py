"""Concept records for the lexical term scan: one per entity, in the shape the scan reads.

A record carries the entity's ``name``, ``description`` and ``type``, its ``confidence``,
``provenance`` (chunk ids), ``sources`` (conversation ids), ``occurrences`` (mention count), a
``body`` of evidence (the latest few sentences that mention it, with who said them and when) and
``updated_at``; plus the entity id, aliases, salience and first/last sighting for display. The
scan weighs name, description and body 3/2/1, so the aliases go into the description, where a
query for an alias still finds the concept. Records are grouped by scope, the store's agent
(``ROOT_AGENT`` for the root scope, since an agent cannot be empty).
Imports the standard library, core models and ingest helpers.
"""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Mapping, Sequence
from datetime import datetime

from explorer.core.models import Chunk, Entity
from explorer.ingest.chunking import sentence_spans
from explorer.ingest.ids import entity_kind

# The concept store needs a non-empty agent; records of the root scope ("") are kept under this.
ROOT_AGENT = "default"
MAX_PROVENANCE = 50
MAX_SOURCES = 20
MAX_BODY_SENTENCES = 3
MAX_BODY_CHARS = 900
MAX_SENTENCE_CHARS = 300


def _iso(moment: datetime | None) -> str | None:
    return None if moment is None else moment.isoformat()


def _sentence(text: str, start: int, end: int) -> str:
    for sentence_start, sentence_end in sentence_spans(text):
        if sentence_start <= start < sentence_end:
            return text[sentence_start : max(sentence_end, min(end, len(text)))]
    return text[start:end]


def evidence_body(entity: Entity, chunks: Mapping[str, Chunk], spoken: Sequence[str] = ()) -> str:
    """The latest few distinct sentences mentioning the entity, as "Speaker (date): sentence"."""
    lines: list[str] = []
    seen: set[str] = set()
    sources = [(mention.chunk_id, mention.start, mention.end) for mention in entity.mentions]
    if not sources:
        sources = [(chunk_id, 0, 0) for chunk_id in spoken]
    for chunk_id, start, end in reversed(sources):
        chunk = chunks.get(chunk_id)
        if chunk is None:
            continue
        sentence = _sentence(chunk.text, start, end).strip()[:MAX_SENTENCE_CHARS]
        if not sentence or sentence in seen:
            continue
        seen.add(sentence)
        lines.append(f"{chunk.speaker} ({chunk.timestamp.date()}): {sentence}")
        if len(lines) == MAX_BODY_SENTENCES:
            break
    return "\n".join(reversed(lines))[:MAX_BODY_CHARS]


def concept_agent(scope: str) -> str:
    """The concept store agent that holds a scope's records."""
    return scope or ROOT_AGENT


def concept_records(
    entities: Sequence[Entity],
    chunks: Mapping[str, Chunk],
    *,
    now: datetime,
    spoken: Mapping[str, Sequence[str]] | None = None,
) -> dict[str, list[dict[str, object]]]:
    """Records by agent (the scope, ``ROOT_AGENT`` for the root); within one scope two entities
    with the same name get their type appended to keep concept names unique."""
    spoken = spoken or {}
    by_scope: dict[str, list[dict[str, object]]] = defaultdict(list)
    taken: dict[str, set[str]] = defaultdict(set)
    ordered = sorted(
        entities, key=lambda entity: (entity.name.casefold(), entity_kind(entity.type), entity.id)
    )
    for entity in ordered:
        name = entity.name
        if name.casefold() in taken[entity.scope]:
            name = f"{entity.name} ({entity.type})"
        taken[entity.scope].add(name.casefold())
        chunk_ids = list(dict.fromkeys(mention.chunk_id for mention in entity.mentions))
        if not chunk_ids:
            chunk_ids = list(spoken.get(entity.id, ()))
        sources = list(
            dict.fromkeys(
                chunks[chunk_id].conversation_id for chunk_id in chunk_ids if chunk_id in chunks
            )
        )
        by_scope[concept_agent(entity.scope)].append(
            {
                "name": name,
                "description": entity.description,
                "type": entity.type,
                "confidence": entity.confidence,
                "provenance": chunk_ids[-MAX_PROVENANCE:],
                "sources": sources[-MAX_SOURCES:],
                "occurrences": len(entity.mentions),
                "body": evidence_body(entity, chunks, spoken.get(entity.id, ())),
                "updated_at": now.isoformat(),
                "id": entity.id,
                "aliases": list(entity.aliases),
                "salience": entity.salience,
                "first_seen": _iso(entity.first_seen),
                "last_seen": _iso(entity.last_seen),
                "scope": entity.scope,
            }
        )
    return dict(by_scope)


def merged_with_stored(record: dict[str, object], stored: str | None) -> dict[str, object]:
    """``record`` with the sources and provenance an earlier import gave the same concept kept
    in front of its own (each once, newest last), so importing another file never drops them."""
    if not stored:
        return record
    try:
        old = json.loads(stored)
    except ValueError:
        return record
    if not isinstance(old, dict):
        return record
    merged = dict(record)
    for key, cap in (("sources", MAX_SOURCES), ("provenance", MAX_PROVENANCE)):
        merged[key] = list(dict.fromkeys([*_strings(old.get(key)), *_strings(record.get(key))]))[
            -cap:
        ]
    if not merged.get("body") and isinstance(old.get("body"), str):
        merged["body"] = old["body"]
    return merged


def _strings(value: object) -> list[str]:
    return [item for item in value if isinstance(item, str)] if isinstance(value, list) else []
