"""Near-duplicate names merged by embedding: "pottery class" and "pottery classes", one entity.

Case and possessives are already folded into the normalised name the ids hash; this catches the
variants words alone miss. Within one extraction (one conversation) names of the same kind whose
vectors have cosine similarity above the threshold (0.92 by default) are linked, and each linked
group becomes its member with the most mentions (then the shortest name); the others' names join
its aliases and their relations are re-pointed. Speakers and dates are never merged, nor two
names one of which the user detached from the other (``evidence.refuses``). Kept within
one conversation on purpose: the result then depends only on that conversation's chunks, which is
what makes an interrupted import resumable to exactly the same graph. Imports the standard
library, numpy, core models and ingest helpers.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from dataclasses import replace

import numpy as np

from explorer.core.models import Entity, Relation
from explorer.ingest.evidence import merge_entity, merge_relation, refuses
from explorer.ingest.extractor import Extraction
from explorer.ingest.ids import entity_kind, normalise_name, relation_id

DEFAULT_THRESHOLD = 0.92
_NEVER_MERGED = frozenset({"date"})


def merge_keys(extraction: Extraction) -> list[str]:
    """The texts whose vectors ``merge_near_duplicates`` needs (normalised names)."""
    return sorted(
        {
            normalise_name(entity.name)
            for entity in extraction.entities
            if entity.type not in _NEVER_MERGED
        }
    )


def _compatible(left: Entity, right: Entity) -> bool:
    if entity_kind(left.type) != entity_kind(right.type):
        return False
    return left.type == right.type or "other" in (left.type, right.type)


def _refused(left: Entity, right: Entity) -> bool:
    """Whether either of the two names was detached from the other by the user."""
    return refuses(left, right.name) or refuses(right, left.name)


def merge_near_duplicates(
    extraction: Extraction,
    vectors: Mapping[str, Sequence[float]],
    *,
    protected: Collection[str] = (),
    threshold: float = DEFAULT_THRESHOLD,
) -> Extraction:
    """The extraction with near-duplicate entities merged (see the module docstring).

    ``vectors`` maps each of ``merge_keys(extraction)`` to its unit vector; ``protected`` ids
    (speakers) are never merged into anything.
    """
    entities = [
        entity
        for entity in extraction.entities
        if entity.type not in _NEVER_MERGED
        and entity.id not in protected
        and normalise_name(entity.name) in vectors
    ]
    if len(entities) < 2:
        return extraction
    raw = np.asarray([vectors[normalise_name(entity.name)] for entity in entities], dtype=float)
    norms = np.linalg.norm(raw, axis=1, keepdims=True)
    unit = raw / np.where(norms == 0, 1.0, norms)
    similar = (unit @ unit.T) > threshold
    parent = list(range(len(entities)))

    def root(index: int) -> int:
        while parent[index] != index:
            parent[index] = parent[parent[index]]
            index = parent[index]
        return index

    # Each group's members, so a join is refused when any two across it refuse each other:
    # "Kate" near both a refusing entity and the name it refused must not bring them together.
    members_of: dict[int, list[int]] = {index: [index] for index in range(len(entities))}
    rows, columns = np.nonzero(np.triu(similar, k=1))
    for left, right in zip(rows.tolist(), columns.tolist(), strict=True):
        into, joined = root(right), root(left)
        if into == joined or not _compatible(entities[left], entities[right]):
            continue
        if any(
            _refused(entities[a], entities[b]) for a in members_of[joined] for b in members_of[into]
        ):
            continue
        parent[joined] = into
        members_of[into] += members_of.pop(joined)
    groups: dict[int, list[Entity]] = {}
    for index, entity in enumerate(entities):
        groups.setdefault(root(index), []).append(entity)
    renamed: dict[str, str] = {}
    merged: dict[str, Entity] = {}
    for members in groups.values():
        if len(members) < 2:
            continue
        members.sort(key=lambda entity: (-len(entity.mentions), len(entity.name), entity.name))
        canonical = members[0]
        for other in members[1:]:
            canonical = merge_entity(canonical, replace(other, id=canonical.id))
            renamed[other.id] = canonical.id
        merged[canonical.id] = canonical
    if not renamed:
        return extraction
    kept = [
        merged.get(entity.id, entity) for entity in extraction.entities if entity.id not in renamed
    ]
    scopes = {entity.id: entity.scope for entity in extraction.entities}
    # A merged name keeps the canonical record's type, guessed or not.
    guessed = frozenset(key for key in extraction.guessed if key not in renamed)
    relations = tuple(repoint(extraction.relations, renamed, scopes))
    return Extraction(tuple(kept), relations, guessed)


def repoint(
    relations: Sequence[Relation],
    renamed: Mapping[str, str],
    scopes: Mapping[str, str],
    events: Collection[str] = (),
) -> list[Relation]:
    """Relations with renamed ends moved to the new ids; a loop is dropped, twins are merged.
    Any visit whose end is one of ``events``, moved or not, is attending it ("PrideFest was even
    better than I imagined", once PrideFest is folded into Denver PrideFest)."""
    result: dict[str, Relation] = {}
    for relation in relations:
        source = renamed.get(relation.source_id, relation.source_id)
        target = renamed.get(relation.target_id, relation.target_id)
        if source == target:
            continue
        if relation.type == "CO_OCCURS" and target < source:
            source, target = target, source
        kind = "ATTENDED" if relation.type == "VISITED" and target in events else relation.type
        new_id = relation_id(scopes.get(source, ""), source, kind, target)
        moved = replace(relation, id=new_id, type=kind, source_id=source, target_id=target)
        result[new_id] = moved if new_id not in result else merge_relation(result[new_id], moved)
    return list(result.values())
