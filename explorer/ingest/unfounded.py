"""Names read once with nothing said of them, left out of the graph.

A capitalised word no rule could type is read as a person by default (``people.typed``). Once
the write's names are merged, one such word is dropped when everything about it is that guess:
it is one word, said once in the write (an import, or the pending turns a resumed one redoes),
with no alias and no stated fact (a weak signal does not count), it is no given name or common
surname any shipped list knows, and no speaker and no record the graph already holds has its
id. A word whose letters do not all fold to plain ones ("Søren", "Олег") is not judged: the
lists cannot say. Over the project's gold files these were products, venues, foods and stray
words far more often than people ("Spotlight", "Sourdough", "Partick" against "Sunita"):
measured in the README (*Extraction quality*). The turn stays in the chunk store, so the word
is still found by its text. Imports only core models and ingest helpers.
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import replace

from explorer.core.models import WEAK_RELATIONS, Entity
from explorer.ingest.extractor import Extraction
from explorer.ingest.given_names import is_common_surname, is_world_given_name
from explorer.ingest.ids import fold_letters


def drop_unfounded(extraction: Extraction, *, keep: Collection[str] = ()) -> Extraction:
    """``extraction`` without its unfounded names (module docstring) and their weak signals;
    ``keep`` are ids never dropped (speakers, records already stored)."""
    facts = {
        end
        for relation in extraction.relations
        if relation.type not in WEAK_RELATIONS
        for end in (relation.source_id, relation.target_id)
    }
    gone = {
        entity.id
        for entity in extraction.entities
        if entity.id in extraction.guessed
        and entity.id not in facts
        and entity.id not in keep
        and _unfounded(entity)
    }
    if not gone:
        return extraction
    return replace(
        extraction,
        entities=tuple(e for e in extraction.entities if e.id not in gone),
        relations=tuple(
            r for r in extraction.relations if r.source_id not in gone and r.target_id not in gone
        ),
        guessed=extraction.guessed - gone,
    )


def _unfounded(entity: Entity) -> bool:
    name = entity.name.strip()
    return (
        entity.type == "person"
        and " " not in name
        and len(entity.mentions) == 1
        and not entity.aliases
        and len(fold_letters(name)) == sum(char.isalpha() for char in name)
        and not is_world_given_name(name)
        and not is_common_surname(name)
    )
