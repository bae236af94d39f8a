"""A name the user detached from an entity stays detached when later imports find it again.

``GraphStore.detach_alias`` records the refusal on the entity (``Entity.refused_aliases``). An
extractor knows nothing of it and may fold the same name into the same entity again ("Kate" is
how tobes addresses Emi, said in another conversation), so each extraction is corrected here,
before anything is merged: the entity loses the refused alias and its evidence, and the
mentions whose span reads as that name move to an entity of their own, under the id the name
has by itself (the same entity when the name already is one, e.g. a speaker called Kate).
A relation follows them when every one of its mentions holds the moved name and no other
mention of the entity (tobes MENTIONS Kate, not Emi); a relation the entity takes part in some
other way (as the speaker, or by its own name) stays. The rules that merge across
conversations (near duplicates, short names) ask ``evidence.refuses`` and never merge through a
refused name. Everything depends only on the chunks and the stored refusals, so a resumed
import corrects the same way a clean one does. Imports the standard library, core models and
ingest helpers.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import replace

from explorer.core.models import Entity, Mention, Relation
from explorer.ingest.aliases import repoint
from explorer.ingest.evidence import merge_entity, merge_relation
from explorer.ingest.extractor import BASE_CONFIDENCE, Extraction
from explorer.ingest.ids import entity_id, normalise_name

# A name that stood on its own would have had the extractor's confidence for a plain name.
SPLIT_CONFIDENCE = BASE_CONFIDENCE["name"]


def honour_refusals(
    extraction: Extraction, stored: Mapping[str, Entity], texts: Mapping[str, str]
) -> Extraction:
    """The extraction with every stored refusal applied (see the module docstring).

    ``stored`` holds the graph's records of the extraction's entities (their refusals are copied
    onto this write's records, for the later merge rules to see); ``texts`` the chunks' texts by
    id, to read what each mention's span says.
    """
    if not any(stored.get(entity.id, _NONE).refused_aliases for entity in extraction.entities):
        return extraction
    entities: dict[str, Entity] = {}
    # Per split entity id: each moved mention with the id of the entity it moved to, and the
    # mentions it kept.
    moved: dict[str, list[tuple[Mention, str]]] = defaultdict(list)
    kept: dict[str, tuple[Mention, ...]] = {}
    # A type guessed for a bare name stays a guess on the names split off it.
    guessed = set(extraction.guessed)

    def add(entity: Entity) -> None:
        known = entities.get(entity.id)
        entities[entity.id] = entity if known is None else merge_entity(known, entity)

    for entity in extraction.entities:
        refusals = stored.get(entity.id, _NONE).refused_aliases
        if not refusals:
            add(entity)
            continue
        refused = {normalise_name(name) for name in refusals} - {normalise_name(entity.name)}
        parted: dict[str, list[Mention]] = defaultdict(list)
        own: list[Mention] = []
        for mention in entity.mentions:
            said = normalise_name(texts.get(mention.chunk_id, "")[mention.start : mention.end])
            (parted[said] if said in refused else own).append(mention)
        add(
            replace(
                entity,
                aliases=tuple(a for a in entity.aliases if normalise_name(a) not in refused),
                alias_evidence=tuple(
                    e for e in entity.alias_evidence if normalise_name(e.alias) not in refused
                ),
                mentions=tuple(own),
                refused_aliases=refusals,
            )
        )
        kept[entity.id] = tuple(own)
        for key, mentions in sorted(parted.items()):
            apart = _apart(entity, key, mentions, texts)
            if entity.id in extraction.guessed:
                guessed.add(apart.id)
            add(apart)
            moved[entity.id].extend((mention, apart.id) for mention in mentions)
    scopes = {entity.id: entity.scope for entity in entities.values()}
    relations: dict[str, Relation] = {}
    following: list[Relation] = []
    for relation in extraction.relations:
        source = _new_end(relation, relation.source_id, moved, kept)
        target = _new_end(relation, relation.target_id, moved, kept)
        if (source, target) == (relation.source_id, relation.target_id):
            relations[relation.id] = relation
        else:
            following.append(replace(relation, source_id=source, target_id=target))
    for relation in repoint(following, {}, scopes):
        known = relations.get(relation.id)
        relations[relation.id] = relation if known is None else merge_relation(known, relation)
    guessed -= {e.id for e in extraction.entities if e.id not in extraction.guessed}
    return Extraction(
        tuple(entities.values()), tuple(relations.values()), frozenset(guessed & set(entities))
    )


_NONE = Entity(id="", name="", type="")


def _apart(
    entity: Entity, key: str, mentions: Sequence[Mention], texts: Mapping[str, str]
) -> Entity:
    """The refused name as an entity of its own, holding the mentions that read as it."""
    spelled = [alias for alias in entity.aliases if normalise_name(alias) == key]
    first = mentions[0]
    name = spelled[0] if spelled else texts.get(first.chunk_id, "")[first.start : first.end]
    seen = [mention.timestamp for mention in mentions]
    return Entity(
        id=entity_id(entity.scope, entity.type, key),
        name=name,
        type=entity.type,
        confidence=min(entity.confidence, SPLIT_CONFIDENCE),
        first_seen=min(seen),
        last_seen=max(seen),
        domains=entity.domains,
        scope=entity.scope,
        layer=entity.layer,
        mentions=tuple(mentions),
    )


def _new_end(
    relation: Relation,
    end: str,
    moved: Mapping[str, Sequence[tuple[Mention, str]]],
    kept: Mapping[str, Sequence[Mention]],
) -> str:
    """The entity a relation's end is once refused names moved out of ``end``: the one name's
    entity when every mention of the relation holds that name and no other mention of ``end``."""
    if end not in moved or not relation.mentions:
        return end
    targets: set[str] = set()
    for span in relation.mentions:
        inside = [to for mention, to in moved[end] if _within(mention, span)]
        if not inside or any(_within(mention, span) for mention in kept.get(end, ())):
            return end
        targets.update(inside)
    return targets.pop() if len(targets) == 1 else end


def _within(mention: Mention, span: Mention) -> bool:
    return (
        mention.chunk_id == span.chunk_id
        and span.start <= mention.start
        and mention.end <= span.end
    )
