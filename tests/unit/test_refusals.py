"""Names the user detached, against what a later extraction finds (``ingest.refusals``)."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime, timedelta

from explorer.core.models import Chunk, Entity
from explorer.ingest.aliases import merge_near_duplicates
from explorer.ingest.chunking import chunk_turns
from explorer.ingest.extractor import Extraction, extract_offline
from explorer.ingest.ids import entity_id
from explorer.ingest.importers import Turn
from explorer.ingest.refusals import honour_refusals
from explorer.ingest.short_names import merge_short_names

START = datetime(2026, 3, 2, 10, tzinfo=UTC)
SCOPE = "friends/chat"


def chat(*lines: tuple[str, str]) -> list[Chunk]:
    return chunk_turns(
        [
            Turn(SCOPE, "c1", str(index), speaker, text, START + timedelta(minutes=index))
            for index, (speaker, text) in enumerate(lines)
        ]
    )


def named(extraction: Extraction, name: str) -> Entity:
    (found,) = [e for e in extraction.entities if e.name == name]
    return found


CHAT = chat(
    ("emi", "morning! did you get the tickets?"),
    ("tobes", "Hey Kate! Yes, two for Friday."),
    ("emi", "amazing, thank you"),
    ("tobes", "Thanks for sorting the train, Kate."),
)
TEXTS = {chunk.id: chunk.text for chunk in CHAT}


def test_a_refused_alias_is_split_off_with_its_mentions_and_the_relations_through_it() -> None:
    extraction = extract_offline(CHAT)
    emi = named(extraction, "emi")
    assert "Kate" in emi.aliases  # what the extractor does on its own
    stored = {emi.id: replace(emi, aliases=(), alias_evidence=(), refused_aliases=("Kate",))}
    honoured = honour_refusals(extraction, stored, TEXTS)
    emi, kate, tobes = (named(honoured, name) for name in ("emi", "Kate", "tobes"))
    assert "Kate" not in emi.aliases and emi.refused_aliases == ("Kate",)
    assert not [e for e in emi.alias_evidence if e.alias == "Kate"]
    assert kate.id == entity_id(SCOPE, "person", "Kate") and kate.type == emi.type
    assert all(TEXTS[m.chunk_id][m.start : m.end] == "Kate" for m in kate.mentions)
    assert len(kate.mentions) == 2 and not emi.mentions
    ends = {(r.source_id, r.type, r.target_id) for r in honoured.relations}
    assert (tobes.id, "MENTIONS", kate.id) in ends
    assert (tobes.id, "MENTIONS", emi.id) not in ends
    ids = {e.id for e in honoured.entities}
    assert all(r.source_id in ids and r.target_id in ids for r in honoured.relations)
    # Nothing stored refuses anything: the extraction is left exactly as it was.
    assert honour_refusals(extraction, {}, TEXTS) is extraction


def test_a_short_name_is_not_merged_into_a_full_name_that_refuses_it() -> None:
    lines = chat(
        ("maya", "Hannah Lee checked the paw."),
        ("assistant", "Did Lee call about the recheck?"),
    )
    extraction = extract_offline(lines)
    assert "Lee" in named(merge_short_names(extraction), "Hannah Lee").aliases
    hannah = named(extraction, "Hannah Lee")
    refusing = Extraction(
        tuple(
            replace(e, refused_aliases=("Lee",)) if e.id == hannah.id else e
            for e in extraction.entities
        ),
        extraction.relations,
    )
    merged = merge_short_names(refusing)
    assert "Lee" not in named(merged, "Hannah Lee").aliases
    assert named(merged, "Lee").id == entity_id(SCOPE, "person", "Lee")


def test_near_duplicates_are_not_merged_through_a_refused_name() -> None:
    first = Entity(id="a", name="pottery class", type="topic", scope=SCOPE)
    second = Entity(id="b", name="pottery classes", type="topic", scope=SCOPE)
    vectors = {"pottery class": [1.0, 0.0], "pottery classes": [1.0, 0.01]}
    assert len(merge_near_duplicates(Extraction((first, second)), vectors).entities) == 1
    refusing = replace(first, refused_aliases=("Pottery Classes",))
    kept = merge_near_duplicates(Extraction((refusing, second)), vectors)
    assert {e.id for e in kept.entities} == {"a", "b"}


def test_a_name_near_both_sides_of_a_refusal_does_not_join_them() -> None:
    refusing = Entity(
        id="a", name="pottery class", type="topic", scope=SCOPE, refused_aliases=("pottery club",)
    )
    refused = Entity(id="b", name="pottery club", type="topic", scope=SCOPE)
    between = Entity(id="c", name="pottery clubs", type="topic", scope=SCOPE)
    # "pottery clubs" is near both; the refusing entity and the name it refused are not near
    # each other directly, so only a transitive join could merge them.
    vectors = {"pottery class": [1.0, 0.0], "pottery club": [0.0, 1.0], "pottery clubs": [0.7, 0.7]}
    kept = merge_near_duplicates(Extraction((refusing, refused, between)), vectors, threshold=0.6)
    assert {"a", "b"} <= {e.id for e in kept.entities}  # still two entities


def test_honouring_a_refusal_keeps_which_types_were_only_guessed() -> None:
    pets = chat(
        ("emi", "did you hear from Jules? our dog Milo loved the park"),
        ("tobes", "Hey Kate! Not from Jules, no."),
        ("emi", "ok"),
        ("tobes", "Thanks, Kate."),
    )
    texts = {chunk.id: chunk.text for chunk in pets}
    extraction = extract_offline(pets)
    emi, jules, milo = (named(extraction, name) for name in ("emi", "Jules", "Milo"))
    assert "Kate" in emi.aliases
    assert jules.id in extraction.guessed and milo.id not in extraction.guessed
    stored = {emi.id: replace(emi, aliases=(), alias_evidence=(), refused_aliases=("Kate",))}
    honoured = honour_refusals(extraction, stored, texts)
    assert named(honoured, "Kate").id != emi.id  # the refusal was applied
    assert jules.id in honoured.guessed and milo.id not in honoured.guessed
