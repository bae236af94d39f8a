"""Names read once with nothing said of them are left out; anything said of a name keeps it."""

from __future__ import annotations

from dataclasses import replace

from explorer.core.models import Entity
from explorer.ingest.evidence import combine
from explorer.ingest.extractor import Extraction, extract_offline
from explorer.ingest.short_names import merge_short_names
from explorer.ingest.unfounded import drop_unfounded
from tests.unit.test_typed_facts import chat


def extracted(*lines: tuple[str, str]) -> Extraction:
    return merge_short_names(combine([extract_offline(chat(*lines))]))


CHAT = (
    ("tams", "she cried, then asked if Hobart has a Spotlight. typical"),
    ("hamo", "lol. Declan says hi, and Qanvast sent the quote"),
    ("tams", "Qanvast again? ok I'll call Declan"),
    ("hamo", "my cousin Brayo works at Klarwerk now"),
)


def names(extraction: Extraction) -> set[str]:
    return {entity.name for entity in extraction.entities}


def test_a_bare_word_said_once_is_dropped_with_its_weak_signals() -> None:
    before = extracted(*CHAT)
    spotlight = next(e for e in before.entities if e.name == "Spotlight")
    assert spotlight.type == "person" and spotlight.id in before.guessed  # the default guess
    after = drop_unfounded(before)
    assert "Spotlight" not in names(after)
    assert spotlight.id not in after.guessed
    assert all(spotlight.id not in (r.source_id, r.target_id) for r in after.relations)
    assert any(spotlight.id in (r.source_id, r.target_id) for r in before.relations)


def test_a_name_said_twice_a_given_name_or_one_with_a_fact_stays() -> None:
    after = drop_unfounded(extracted(*CHAT))
    # Qanvast is said twice, Declan is a given name, Brayo is someone's cousin who works
    assert {"Qanvast", "Declan", "Brayo", "Klarwerk", "Hobart", "tams", "hamo"} <= names(after)


def test_kept_ids_and_typed_names_are_never_dropped() -> None:
    before = extracted(*CHAT)
    spotlight = next(e for e in before.entities if e.name == "Spotlight")
    assert "Spotlight" in names(drop_unfounded(before, keep={spotlight.id}))
    typed = Extraction(before.entities, before.relations, before.guessed - {spotlight.id})
    assert "Spotlight" in names(drop_unfounded(typed))


def test_an_alias_a_surname_two_words_or_letters_no_list_reads_keep_a_name() -> None:
    before = extracted(*CHAT)
    spotlight = next(e for e in before.entities if e.name == "Spotlight")

    def kept_as(changed: Entity) -> bool:
        swapped = tuple(changed if e.id == spotlight.id else e for e in before.entities)
        after = drop_unfounded(Extraction(swapped, before.relations, before.guessed))
        return changed.name in names(after)

    assert not kept_as(spotlight)
    assert kept_as(replace(spotlight, aliases=("Spotters",)))  # linked to another name
    assert kept_as(replace(spotlight, name="Garcia"))  # a common surname
    assert kept_as(replace(spotlight, name="Dark Mofo"))  # two words
    for unread in ("Søren", "Олег"):  # letters the name lists cannot read
        assert kept_as(replace(spotlight, name=unread))
    assert not kept_as(replace(spotlight, name="Bolhão"))  # accents fold: judged
