"""Merging what several extractions and the graph know of an entity, and scoring the evidence.

An entity's final record is computed from the union of its mentions, so the result does not
depend on how the evidence was split between imports or batches:

* ``m`` = distinct mentions (chunk, span); ``d`` = distinct UTC days among their timestamps.
* confidence = ``1 - (1 - base) · 0.7^(m-1) · 0.85^(max(d,1)-1)``, capped at 0.99, where ``base``
  is the entity type's prior (person 0.7, agent 0.9, place/organization/other 0.6, topic 0.4,
  date 0.7) or the extractor's own first confidence if higher. Every further mention, and every
  further day it comes up on, makes a real entity more likely. Speakers are certain: 1.0.
* salience = ``0.5 · (1 - e^(-m'/8)) + 0.3 · (1 - e^(-(d-1)/4)) + 0.2 · 0.5^(age/30)``, where
  ``m'`` also counts the turns a speaker spoke, and ``age`` is the days between the entity's last
  sighting and the newest sighting of anything in its scope in the same write (recency within
  the memory's own timeline, not the wall clock, so an old memory is not uniformly stale).
  Frequency, spread over time and recency weigh 50/30/20; a speaker never drops below what the
  graph already says. A stored record is merged with this write's (``merge_stored``) so that
  writing the same evidence again, as a resumed import does, leaves every field as it was.

A relation's confidence is ``1 - (1 - base) · 0.75^(m-1) · 0.9^(d-1)`` over the mentions seen in
the write (base: typed verb pattern 0.7, MENTIONS 0.6, CO_OCCURS 0.3); its fact is the sentence
of its earliest mention and ``valid_from`` that mention's time. For relations that hold one
object at a time (LIVES_IN/MOVED_TO, WORKS_AT, STUDIES_AT, MARRIED_TO), a later different object
ends the earlier one: its ``valid_to`` is the first time the newer one is stated after the older
one was last stated. A fact the extractor read as already over ("used to live in", "was CTO at")
arrives with ``valid_to`` set to the time it was said, and keeps it. Imports the standard
library, core models and ingest helpers.
"""

from __future__ import annotations

import math
from collections import Counter, defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import replace
from datetime import datetime

from explorer.core.models import Entity, MemoryLayer, Mention, Relation
from explorer.ingest.extractor import Extraction
from explorer.ingest.ids import normalise_name

TYPE_PRIOR = {
    "person": 0.7,
    "agent": 0.9,
    "place": 0.6,
    "organization": 0.6,
    "other": 0.6,
    "topic": 0.4,
    "date": 0.7,
}
DEFAULT_PRIOR = 0.5
MAX_CONFIDENCE = 0.99
RECENCY_HALF_LIFE_DAYS = 30.0
MAX_ALIASES = 50
MAX_ALIAS_EVIDENCE = 100
MAX_TEMPORAL = 10
MAX_DOMAINS = 5
# Groups of relation types where one object at a time is current.
FUNCTIONAL_GROUPS = {
    "LIVES_IN": "residence",
    "MOVED_TO": "residence",
    "WORKS_AT": "employer",
    "STUDIES_AT": "school",
    "MARRIED_TO": "spouse",
}
TYPE_LABELS = {
    "person": "Person",
    "agent": "Assistant",
    "place": "Place",
    "organization": "Organisation",
    "other": "Name",
    "topic": "Topic",
    "date": "Date",
}


def _mention_key(mention: Mention) -> tuple[datetime, str, int, int]:
    return (mention.timestamp, mention.chunk_id, mention.start, mention.end)


def union_mentions(*groups: Iterable[Mention]) -> tuple[Mention, ...]:
    """Mentions of all groups, each (chunk, span) once, oldest first."""
    unique: dict[tuple[str, int, int], Mention] = {}
    for group in groups:
        for mention in group:
            unique.setdefault((mention.chunk_id, mention.start, mention.end), mention)
    return tuple(sorted(unique.values(), key=_mention_key))


def _ranked(values: Iterable[str], limit: int) -> tuple[str, ...]:
    counts = Counter(values)
    ranked = sorted(counts.items(), key=lambda item: (-item[1], item[0]))
    return tuple(value for value, _count in ranked[:limit])


def _aliases(name: str, *groups: Iterable[str]) -> tuple[str, ...]:
    seen = {name.casefold()}
    aliases: list[str] = []
    for group in groups:
        for alias in group:
            if alias and alias.casefold() not in seen:
                seen.add(alias.casefold())
                aliases.append(alias)
    return tuple(sorted(aliases)[:MAX_ALIASES])


def _better_type(current: str, other: str) -> str:
    """Keep the first type unless it is the catch-all and the other says more."""
    return other if current == "other" and other != "other" else current


def merge_entity(first: Entity, second: Entity) -> Entity:
    """One record from two of the same id; ``first`` (the older one) keeps its name and type."""
    mentions = union_mentions(first.mentions, second.mentions)
    seen = [moment for moment in (first.first_seen, second.first_seen) if moment is not None]
    last = [moment for moment in (first.last_seen, second.last_seen) if moment is not None]
    created = [moment for moment in (first.created_at, second.created_at) if moment is not None]
    return replace(
        first,
        type=_better_type(first.type, second.type),
        aliases=_aliases(first.name, first.aliases, (second.name,), second.aliases),
        alias_evidence=tuple(dict.fromkeys((*first.alias_evidence, *second.alias_evidence)))[
            :MAX_ALIAS_EVIDENCE
        ],
        refused_aliases=tuple(dict.fromkeys((*first.refused_aliases, *second.refused_aliases))),
        confidence=max(first.confidence, second.confidence),
        salience=max(first.salience, second.salience),
        created_at=min(created, default=None),
        first_seen=min(seen, default=None),
        last_seen=max(last, default=None),
        temporal=_ranked((*first.temporal, *second.temporal, *second.temporal), MAX_TEMPORAL),
        domains=_ranked((*first.domains, *second.domains, *second.domains), MAX_DOMAINS),
        mentions=mentions,
        layer=MemoryLayer.PROFILE
        if _better_type(first.type, second.type) == "person"
        else first.layer,
    )


def refuses(entity: Entity, name: str) -> bool:
    """Whether the user detached ``name`` from this entity (``Entity.refused_aliases``, compared
    by the normalised key ids are made of): it is then never merged into it again."""
    key = normalise_name(name)
    return any(normalise_name(refused) == key for refused in entity.refused_aliases)


def _kept_first(first: Sequence[str], second: Sequence[str], limit: int) -> tuple[str, ...]:
    return tuple(dict.fromkeys((*first, *second)))[:limit]


def merge_stored(stored: Entity, entity: Entity) -> Entity:
    """``merge_entity`` of a graph record and this write's record of it, where this write's
    ranking of temporal concepts and domains leads and the stored ones follow: merging a
    record with itself (a resumed import) changes nothing."""
    merged = merge_entity(stored, entity)
    return replace(
        merged,
        temporal=_kept_first(entity.temporal, stored.temporal, MAX_TEMPORAL),
        domains=_kept_first(entity.domains, stored.domains, MAX_DOMAINS),
    )


def merge_relation(first: Relation, second: Relation) -> Relation:
    """One record from two of the same id; the earliest evidence gives the fact."""
    mentions = union_mentions(first.mentions, second.mentions)
    earliest = first
    if second.valid_from is not None and (
        first.valid_from is None or second.valid_from < first.valid_from
    ):
        earliest = second
    return replace(
        first,
        fact=earliest.fact or first.fact or second.fact,
        confidence=max(first.confidence, second.confidence),
        valid_from=earliest.valid_from,
        mentions=mentions,
    )


def combine(extractions: Iterable[Extraction]) -> Extraction:
    """The union of several extractions: records of the same id merged.

    The first record keeps its name and type (``merge_entity``), except that a type evidence
    gave wins over one guessed for a bare name (``Extraction.guessed``): "Biscuit" read as a pet
    in one conversation stays a pet where another only names him. Where conversations back
    different types, the type backed by most of them wins (ties: the first): a company invested
    "in" once is not a place when three others say people work there.
    """
    entities: dict[str, Entity] = {}
    relations: dict[str, Relation] = {}
    backed: dict[str, Counter[str]] = {}
    for extraction in extractions:
        for entity in extraction.entities:
            if entity.id not in extraction.guessed:
                backed.setdefault(entity.id, Counter())[entity.type] += 1
            known = entities.get(entity.id)
            entities[entity.id] = entity if known is None else merge_entity(known, entity)
        for relation in extraction.relations:
            seen = relations.get(relation.id)
            relations[relation.id] = relation if seen is None else merge_relation(seen, relation)
    for entity_id, types in backed.items():
        # ``most_common`` keeps first-seen order among equal counts.
        entities[entity_id] = _retyped(entities[entity_id], types.most_common(1)[0][0])
    return Extraction(
        tuple(entities.values()), tuple(relations.values()), frozenset(set(entities) - set(backed))
    )


def _retyped(entity: Entity, entity_type: str) -> Entity:
    if entity.type == entity_type:
        return entity
    layer = MemoryLayer.PROFILE if entity_type == "person" else MemoryLayer.SEMANTIC
    return replace(entity, type=entity_type, layer=layer)


def _days(mentions: Sequence[Mention]) -> int:
    return len({mention.timestamp.date() for mention in mentions})


def entity_confidence(entity_type: str, base: float, mentions: int, days: int) -> float:
    prior = max(TYPE_PRIOR.get(entity_type, DEFAULT_PRIOR), min(base, MAX_CONFIDENCE))
    doubt = (1 - prior) * 0.7 ** max(mentions - 1, 0) * 0.85 ** max(days - 1, 0)
    return round(min(MAX_CONFIDENCE, 1 - doubt), 4)


def entity_salience(mentions: int, days: int, age_days: float) -> float:
    frequency = 1 - math.exp(-mentions / 8)
    spread = 1 - math.exp(-max(days - 1, 0) / 4)
    recency = math.pow(0.5, max(age_days, 0.0) / RECENCY_HALF_LIFE_DAYS)
    return round(0.5 * frequency + 0.3 * spread + 0.2 * recency, 4)


def relation_confidence(base: float, mentions: int, days: int) -> float:
    doubt = (1 - base) * 0.75 ** max(mentions - 1, 0) * 0.9 ** max(days - 1, 0)
    return round(min(MAX_CONFIDENCE, 1 - doubt), 4)


def describe(entity: Entity, neighbours: Sequence[str]) -> str:
    """A sentence of evidence about an entity, for people and for the lexical concept scan."""
    label = TYPE_LABELS.get(entity.type, entity.type.replace("_", " ").capitalize())
    count = len(entity.mentions)
    days = _days(entity.mentions)
    parts = [f"{label} mentioned {count} time{'s' if count != 1 else ''}"]
    if days:
        parts[0] += f" on {days} day{'s' if days != 1 else ''}"
    if entity.first_seen is not None and entity.last_seen is not None:
        first, last = entity.first_seen.date(), entity.last_seen.date()
        span = f" from {first} to {last}" if first != last else f" on {first}"
        mentioned = sorted({mention.timestamp.date() for mention in entity.mentions})
        if not mentioned:  # a speaker nobody names: the span is of the turns they spoke
            parts = [f"{label} never named, speaking in the conversations{span}"]
        elif (mentioned[0], mentioned[-1]) == (first, last):
            parts[0] += span
        else:  # a speaker's span is of the turns they spoke, not of their name's mentions
            parts.append(f"in the conversations{span}")
    if entity.aliases:
        parts.append("also written " + ", ".join(entity.aliases[:4]))
    if neighbours:
        parts.append("often with " + ", ".join(neighbours))
    if entity.domains:
        parts.append("about " + ", ".join(entity.domains[:3]))
    return "; ".join(parts) + "."


def score(
    entities: Sequence[Entity],
    relations: Sequence[Relation],
    *,
    spoken: Mapping[str, int],
    stored: Mapping[str, Entity],
    now: datetime,
    names: Mapping[str, str] | None = None,
) -> tuple[list[Entity], list[Relation]]:
    """Final entities and relations of one write (see the module docstring for the formulas).

    ``spoken`` counts the turns each speaker entity spoke in this write; ``stored`` holds the
    graph's current records of these ids, merged in first so the evidence is the union.
    """
    merged = [
        entity if entity.id not in stored else merge_stored(stored[entity.id], entity)
        for entity in entities
    ]
    newest: dict[str, datetime] = {}
    for entity in merged:
        if entity.last_seen is not None:
            current = newest.get(entity.scope)
            newest[entity.scope] = max(entity.last_seen, current or entity.last_seen)
    neighbour_names = _neighbours(relations, names or {entity.id: entity.name for entity in merged})
    # The extractor's first confidence is the prior; a stored record's is already a final score
    # and would count its evidence twice.
    priors = {entity.id: entity.confidence for entity in entities}
    final: list[Entity] = []
    for entity in merged:
        count = len(entity.mentions)
        days = _days(entity.mentions) or (1 if entity.id in spoken else 0)
        before = stored.get(entity.id)
        was_speaker = (
            before is not None and before.type in ("person", "agent") and before.confidence >= 1.0
        )
        speaker = entity.id in spoken or was_speaker
        confidence = (
            1.0 if speaker else entity_confidence(entity.type, priors[entity.id], count, days)
        )
        reference = newest.get(entity.scope)
        age = (
            (reference - entity.last_seen).total_seconds() / 86400
            if reference is not None and entity.last_seen is not None
            else 0.0
        )
        salience = entity_salience(count + spoken.get(entity.id, 0), days, age)
        if speaker and entity.id in stored:
            salience = max(salience, stored[entity.id].salience)
        scored = replace(
            entity,
            confidence=confidence,
            salience=salience,
            created_at=entity.created_at or now,
            updated_at=now,
        )
        final.append(
            replace(scored, description=describe(scored, neighbour_names.get(entity.id, ())))
        )
    return final, _score_relations(relations)


def _neighbours(
    relations: Sequence[Relation], names: Mapping[str, str], limit: int = 4
) -> dict[str, tuple[str, ...]]:
    weights: dict[str, Counter[str]] = defaultdict(Counter)
    for relation in relations:
        weight = max(len(relation.mentions), 1)
        weights[relation.source_id][relation.target_id] += weight
        weights[relation.target_id][relation.source_id] += weight
    result: dict[str, tuple[str, ...]] = {}
    for entity_id, counter in weights.items():
        ranked = sorted(counter.items(), key=lambda item: (-item[1], names.get(item[0], item[0])))
        result[entity_id] = tuple(names[other] for other, _ in ranked if other in names)[:limit]
    return result


def _score_relations(relations: Sequence[Relation]) -> list[Relation]:
    scored = [
        replace(
            relation,
            confidence=relation_confidence(
                relation.confidence, len(relation.mentions), _days(relation.mentions)
            ),
        )
        for relation in relations
    ]
    groups: dict[tuple[str, str], list[int]] = defaultdict(list)
    for index, relation in enumerate(scored):
        group = FUNCTIONAL_GROUPS.get(relation.type)
        if group is not None and relation.valid_from is not None:
            groups[(relation.source_id, group)].append(index)
    for members in groups.values():
        if len(members) < 2:
            continue
        for index in members:
            relation = scored[index]
            last = max(
                (mention.timestamp for mention in relation.mentions), default=relation.valid_from
            )
            later = [
                other.valid_from
                for position in members
                if (other := scored[position]).target_id != relation.target_id
                and other.valid_from is not None
                and last is not None
                and other.valid_from > last
            ]
            if later:
                scored[index] = replace(relation, valid_to=min(later))
    return scored
