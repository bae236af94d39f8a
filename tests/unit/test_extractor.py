"""The offline extractor, date resolution, alias merging, evidence scores and concept records."""

from __future__ import annotations

import asyncio
from dataclasses import replace
from datetime import UTC, datetime, timedelta

import pytest

from explorer.core.models import Chunk, Entity, MemoryLayer, Mention, Relation
from explorer.core.text import singular
from explorer.ingest.aliases import merge_keys, merge_near_duplicates
from explorer.ingest.chunking import chunk_turns
from explorer.ingest.concepts import concept_records
from explorer.ingest.evidence import (
    combine,
    describe,
    entity_confidence,
    entity_salience,
    merge_entity,
    score,
)
from explorer.ingest.extractor import Extraction, OfflineExtractor, extract_offline
from explorer.ingest.ids import entity_id, relation_id
from explorer.ingest.importers import Turn
from explorer.ingest.short_names import merge_short_names, resolve_short_names
from explorer.ingest.temporal import find_times

MONDAY = datetime(2024, 3, 4, 9, 0, tzinfo=UTC)  # a Monday


def conversation(
    *lines: tuple[str, str], start: datetime = MONDAY, gap_days: int = 0
) -> list[Chunk]:
    turns = [
        Turn(
            scope="home/ana",
            conversation_id="c1",
            turn_id=str(index),
            speaker=speaker,
            text=text,
            timestamp=start + timedelta(days=gap_days * index, minutes=index),
        )
        for index, (speaker, text) in enumerate(lines)
    ]
    return chunk_turns(turns)


CHAT = conversation(
    ("Iris", "Morning Tomas! I finally signed up for the pottery class at Kiln Street Studio."),
    ("Tomas", "Nice one, Iris. Is that near Harbour Park? Noor's friend goes there."),
    ("Iris", "Yes. My sister Noor took the pottery class there last spring."),
    ("Tomas", "I went hiking yesterday with Noor and she never mentioned it!"),
    ("Iris", "Ha. I work at Lantern Books on weekdays, so Saturday classes suit me."),
    ("Tomas", "Lantern Books is lucky. Wow, pottery classes on Saturday sound fun."),
    ("Assistant", "Shall I put the pottery class on your calendar, Iris?"),
    gap_days=1,
)


def by_name(extraction: Extraction) -> dict[str, Entity]:
    return {entity.name: entity for entity in extraction.entities}


def relations_named(extraction: Extraction) -> set[tuple[str, str, str]]:
    names = {entity.id: entity.name for entity in extraction.entities}
    return {
        (names[relation.source_id], relation.type, names[relation.target_id])
        for relation in extraction.relations
    }


def test_speakers_are_people_and_an_assistant_is_an_agent() -> None:
    entities = by_name(extract_offline(CHAT))
    assert entities["Iris"].type == "person"
    assert entities["Tomas"].type == "person"
    assert entities["Assistant"].type == "agent"
    assert entities["Iris"].layer is MemoryLayer.PROFILE
    assert entities["Iris"].confidence == 1.0
    # Speakers are named in the text too; those are their mentions.
    assert len(entities["Iris"].mentions) == 2


def test_names_are_found_mid_sentence_and_ordinary_words_are_not() -> None:
    entities = by_name(extract_offline(CHAT))
    assert {"Noor", "Kiln Street Studio", "Harbour Park", "Lantern Books"} <= set(entities)
    assert entities["Kiln Street Studio"].type == "organization"
    assert entities["Harbour Park"].type == "place"
    assert entities["Noor"].type == "person"  # "My sister Noor"
    for word in ("Morning", "Nice", "Yes", "Wow", "Ha", "Shall", "Saturday"):
        assert word not in entities


def test_a_given_name_opening_a_sentence_once_is_a_name_when_life_news_follows() -> None:
    chat = conversation(
        ("Anna", "Sarah got the job at Adyen!"),
        ("Ben", "No way. Summer got hot early. June moved on."),
        ("Anna", "Mark my words, she'll run the place."),
    )
    entities = by_name(extract_offline(chat))
    assert entities["Sarah"].type == "person"
    assert ("Adyen", "HIRED", "Sarah") in relations_named(extract_offline(chat))
    # A season or a month is no one, and "Mark my words" says nothing of a Mark.
    for word in ("Summer", "June", "Mark"):
        assert word not in entities


def test_possessives_merge_into_the_name_and_spans_exclude_them() -> None:
    entities = by_name(extract_offline(CHAT))
    noor = entities["Noor"]
    texts = {chunk.id: chunk.text for chunk in CHAT}
    spans = [texts[m.chunk_id][m.start : m.end] for m in noor.mentions]
    assert spans == ["Noor", "Noor", "Noor"]


def test_recurring_phrases_become_topics_with_plurals_folded() -> None:
    entities = by_name(extract_offline(CHAT))
    topic = entities["pottery class"]
    assert topic.type == "topic"
    assert "pottery classes" in topic.aliases
    assert len(topic.mentions) == 4
    assert singular("support groups") == "support group"
    assert singular("classes") == "class"
    assert singular("bus") == "bus"


def test_dates_resolve_against_the_turn_and_keep_the_phrase_as_alias() -> None:
    extraction = extract_offline(CHAT)
    entities = by_name(extraction)
    said = CHAT[3].timestamp  # Thursday 7 March 2024
    yesterday = (said - timedelta(days=1)).date().isoformat()
    assert entities[yesterday].type == "date"
    assert "yesterday" in entities[yesterday].aliases
    assert yesterday in entities["Noor"].temporal


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("we met yesterday", "2024-03-03"),
        ("last Saturday was fun", "2024-03-02"),
        ("see you next Friday", "2024-03-08"),
        ("two weeks ago", "2024-W08"),
        ("in May 2022", "2022-05"),
        ("on 21st of June", "2024-06-21"),
        ("since 2019", "2019"),
        ("last weekend", "2024-03-02"),
        ("next month", "2024-04"),
        ("three days ago", "2024-03-01"),
        # a bare weekday is the last one, unless its sentence looks ahead
        ("went to the gym on Thursday", "2024-02-29"),
        ("starting on the cardiac ward thursday", "2024-03-07"),
        ("see you Friday! we met on a Tuesday.", "2024-03-08"),
        ("obviously. thursday?", "2024-03-07"),  # a day put forward
        ("ok. how about thursday?", "2024-03-07"),
        ("how was Thursday?", "2024-02-29"),  # asked after
        ("who won thursday?", "2024-02-29"),
        ("still hungover from Thursday?", "2024-02-29"),
        ("remember Thursday?", "2024-02-29"),
        ("starting Monday 11 March", "2024-03-11"),  # the weekday of a date is that date
    ],
)
def test_time_phrases(text: str, value: str) -> None:
    found = find_times(text, MONDAY)[0]
    assert found.value == value


def test_a_bare_weekday_looks_ahead_only_in_a_clause_that_does() -> None:
    said = "the worktop arrived on Friday and Declan says they'll finish on Friday"
    assert [found.value for found in find_times(said, MONDAY)] == ["2024-03-01", "2024-03-08"]
    assert len(find_times("starting Monday 11 March", MONDAY)) == 1


@pytest.mark.parametrize(
    ("text", "values"),
    [
        ("see you Monday 9am", ["2024-03-11"]),  # a time, not a date, follows the weekday
        ("Monday, January 8", ["2024-01-08"]),
        ("I saw Will on Monday", ["2024-02-26"]),  # Will is a name here
        ("I was off until Monday", ["2024-02-26"]),  # the past tense wins
        ("Will you come on Friday?", ["2024-03-08"]),
        ("We land Friday at 10am", ["2024-03-08"]),
        ("we landed Friday at 10am", ["2024-03-01"]),
        ("are you free Friday?", ["2024-03-08"]),
        ("I'm off until Friday", ["2024-03-08"]),
        ("the essay was due Friday", ["2024-03-01"]),
        ("fly fishing Friday was fun", ["2024-03-01"]),
        ("Monday the 11th", []),
    ],
)
def test_weekdays_beside_times_names_and_dates(text: str, values: list[str]) -> None:
    assert [found.value for found in find_times(text, MONDAY)] == values


def test_vague_or_impossible_dates_are_left_out() -> None:
    assert find_times("a while ago, may I ask, on 31 February", MONDAY) == []


def test_verb_patterns_kinship_mentions_and_co_occurrence() -> None:
    extraction = extract_offline(CHAT)
    found = relations_named(extraction)
    assert ("Iris", "WORKS_AT", "Lantern Books") in found
    assert ("Iris", "FAMILY_OF", "Noor") in found
    assert ("Iris", "MENTIONS", "Kiln Street Studio") in found
    pair = {("Harbour Park", "CO_OCCURS", "Noor"), ("Noor", "CO_OCCURS", "Harbour Park")}
    assert pair & found
    works = next(r for r in extraction.relations if r.type == "WORKS_AT")
    assert works.fact == "I work at Lantern Books on weekdays, so Saturday classes suit me."
    assert works.valid_from == CHAT[4].timestamp
    assert works.mentions[0].chunk_id == CHAT[4].id


def co_occurring(extraction: Extraction) -> set[frozenset[str]]:
    names = {entity.id: entity.name for entity in extraction.entities}
    return {
        frozenset((names[relation.source_id], names[relation.target_id]))
        for relation in extraction.relations
        if relation.type == "CO_OCCURS"
    }


def test_names_co_occur_within_a_sentence_or_the_next_not_across_a_turn() -> None:
    chat = conversation(
        ("Rhea", "Quick update from the weekend, Bram."),
        (
            "Bram",
            "On Sunday I bumped into Oskar at the market. Has anyone heard from Wren? "
            "The weather was grim all day. Later we drove out to Kestrel Bay.",
        ),
    )
    pairs = co_occurring(extract_offline(chat))
    assert frozenset(("Oskar", "Wren")) in pairs  # the next sentence
    assert frozenset(("Wren", "Kestrel Bay")) not in pairs  # two sentences apart
    assert frozenset(("Oskar", "Kestrel Bay")) not in pairs


def test_dates_never_co_occur_but_stay_in_the_entities_temporal_concepts() -> None:
    extraction = extract_offline(CHAT)
    entities = by_name(extraction)
    yesterday = (CHAT[3].timestamp - timedelta(days=1)).date().isoformat()
    dates = {entity.id for entity in extraction.entities if entity.type == "date"}
    assert dates
    assert not [
        relation
        for relation in extraction.relations
        if relation.type == "CO_OCCURS" and {relation.source_id, relation.target_id} & dates
    ]
    assert yesterday in entities["Noor"].temporal


def test_a_pair_a_fact_links_does_not_also_co_occur() -> None:
    chat = conversation(
        ("Tomas", "Good news from the shop: my friend Iris works at Lantern Books now."),
        ("Assistant", "That is good news, Tomas."),
    )
    extraction = extract_offline(chat)
    assert ("Iris", "WORKS_AT", "Lantern Books") in relations_named(extraction)
    assert frozenset(("Iris", "Lantern Books")) not in co_occurring(extraction)


def test_every_mention_span_matches_the_name_or_an_alias() -> None:
    extraction = extract_offline(CHAT)
    texts = {chunk.id: chunk.text for chunk in CHAT}
    assert extraction.entities
    for entity in extraction.entities:
        names = {entity.name.casefold(), *(alias.casefold() for alias in entity.aliases)}
        for mention in entity.mentions:
            assert texts[mention.chunk_id][mention.start : mention.end].casefold() in names


def test_ids_are_stable_and_extraction_is_deterministic() -> None:
    first = extract_offline(CHAT)
    second = asyncio.run(OfflineExtractor().extract(list(CHAT)))
    assert first == second
    iris = by_name(first)["Iris"]
    assert iris.id == entity_id("home/ana", "person", "iris")


def test_speaker_first_name_folds_into_the_speaker() -> None:
    chat = conversation(
        ("Maya Okafor", "I booked the physio."),
        ("Helper", "Good call, Maya. Shall I remind you, Maya?"),
    )
    entities = by_name(extract_offline(chat))
    assert "Maya" not in entities
    assert entities["Maya Okafor"].aliases == ("Maya",)
    assert len(entities["Maya Okafor"].mentions) == 2


# -- near-duplicate names ---------------------------------------------------------------------


def _entity(name: str, kind: str, mentions: int, scope: str = "s") -> Entity:
    return Entity(
        id=entity_id(scope, kind, name),
        name=name,
        type=kind,
        scope=scope,
        confidence=0.0,
        mentions=tuple(
            Mention(f"chunk-{name}-{n}", 0, len(name), MONDAY + timedelta(days=n))
            for n in range(mentions)
        ),
    )


def test_near_duplicates_merge_into_the_best_attested_name() -> None:
    trip = _entity("porto trip", "topic", 3)
    variant = _entity("oporto trip", "topic", 1)
    other = _entity("tax return", "topic", 2)
    speaker = _entity("Porto Trip", "person", 1)  # protected: never merged
    relation = Relation(
        id="r1", source_id=variant.id, target_id=other.id, type="CO_OCCURS", fact="f"
    )
    extraction = Extraction((trip, variant, other, speaker), (relation,))
    assert set(merge_keys(extraction)) == {"porto trip", "oporto trip", "tax return"}
    vectors = {
        "porto trip": [1.0, 0.0, 0.0],
        "oporto trip": [0.97, 0.2, 0.0],
        "tax return": [0.0, 0.0, 1.0],
    }
    merged = merge_near_duplicates(extraction, vectors, protected={speaker.id})
    names = {entity.name: entity for entity in merged.entities}
    assert set(names) == {"porto trip", "tax return", "Porto Trip"}
    assert names["porto trip"].aliases == ("oporto trip",)
    assert len(names["porto trip"].mentions) == 4
    (moved,) = merged.relations
    assert {moved.source_id, moved.target_id} == {trip.id, other.id}


def test_dissimilar_or_differently_typed_names_stay_apart() -> None:
    place = _entity("Lisbon", "place", 2)
    person = _entity("Lisbon", "person", 1, scope="t")
    extraction = Extraction((place, _entity("Leeds", "place", 1), person))
    vectors = {"lisbon": [1.0, 0.0], "leeds": [0.5, 0.86]}
    assert merge_near_duplicates(extraction, vectors) == extraction


# -- evidence ---------------------------------------------------------------------------------


def test_confidence_grows_with_mentions_and_days() -> None:
    once = entity_confidence("other", 0.0, 1, 1)
    often = entity_confidence("other", 0.0, 5, 1)
    spread = entity_confidence("other", 0.0, 5, 4)
    assert 0.5 < once < often < spread <= 0.99


def test_salience_rewards_frequency_spread_and_recency() -> None:
    assert entity_salience(10, 5, 0) > entity_salience(10, 1, 0) > entity_salience(1, 1, 0)
    assert entity_salience(3, 2, 0) > entity_salience(3, 2, 90)
    assert 0 <= entity_salience(0, 0, 10_000) <= entity_salience(10_000, 10_000, 0) <= 1


def test_score_merges_stored_evidence_and_describes_the_entity() -> None:
    fresh = _entity("Lantern Books", "organization", 2)
    stored = replace_mentions(fresh, 3, offset=10)
    (final,), _ = score([fresh], [], spoken={}, stored={fresh.id: stored}, now=MONDAY)
    assert len(final.mentions) == 5
    assert final.confidence == entity_confidence("organization", 0.0, 5, 5)
    assert final.description.startswith("Organisation mentioned 5 times on 5 days")
    assert final.updated_at == MONDAY


def replace_mentions(entity: Entity, count: int, offset: int) -> Entity:
    mentions = tuple(
        Mention(f"old-{n}", 0, 4, MONDAY + timedelta(days=offset + n)) for n in range(count)
    )
    return replace(entity, mentions=mentions)


def test_a_later_address_ends_the_earlier_one() -> None:
    def lives(target: str, day: int) -> Relation:
        when = MONDAY + timedelta(days=day)
        return Relation(
            id=f"r-{target}",
            source_id="me",
            target_id=target,
            type="LIVES_IN" if target == "leeds" else "MOVED_TO",
            valid_from=when,
            mentions=(Mention(f"c{day}", 0, 5, when),),
        )

    _, relations = score(
        [], [lives("leeds", 0), lives("porto", 30)], spoken={}, stored={}, now=MONDAY
    )
    ended = {relation.target_id: relation.valid_to for relation in relations}
    assert ended == {"leeds": MONDAY + timedelta(days=30), "porto": None}


def test_combine_unions_records_of_the_same_id() -> None:
    left = _entity("Noor", "person", 2)
    right = replace_mentions(left, 1, offset=5)
    (merged,) = combine([Extraction((left,)), Extraction((right,))]).entities
    assert len(merged.mentions) == 3
    assert merge_entity(left, left) == merge_entity(left, left)


# -- concept records --------------------------------------------------------------------------


def test_concept_records_carry_what_the_term_scan_reads() -> None:
    extraction = extract_offline(CHAT)
    spoken = {entity.id: 1 for entity in extraction.entities if entity.type == "person"}
    entities, _ = score(
        extraction.entities, extraction.relations, spoken=spoken, stored={}, now=MONDAY
    )
    records = concept_records(entities, {chunk.id: chunk for chunk in CHAT}, now=MONDAY)
    (scope,) = records
    assert scope == "home/ana"
    studio = next(r for r in records[scope] if r["name"] == "Kiln Street Studio")
    assert studio["type"] == "organization"
    record = next(r for r in records[scope] if r["name"] == "Lantern Books")
    assert record["occurrences"] == 2
    assert record["sources"] == ["c1"]
    assert record["provenance"] == [CHAT[4].id, CHAT[5].id]
    assert "I work at Lantern Books" in str(record["body"])
    assert str(record["body"]).startswith("Iris (")
    assert record["updated_at"] == MONDAY.isoformat()
    assert {"name", "description", "confidence"} <= set(record)
    assert len({r["name"] for r in records[scope]}) == len(records[scope])


# -- short names ------------------------------------------------------------------------------


def _spans_match(extraction: Extraction, chunks: list[Chunk]) -> None:
    texts = {chunk.id: chunk.text for chunk in chunks}
    for entity in extraction.entities:
        names = {entity.name.casefold(), *(alias.casefold() for alias in entity.aliases)}
        for mention in entity.mentions:
            assert texts[mention.chunk_id][mention.start : mention.end].casefold() in names


def test_a_given_name_in_another_conversation_merges_into_the_one_person() -> None:
    first = conversation(
        ("Maya Okafor", "I booked the physio."),
        ("Helper", "Good call. Shall I remind you?"),
    )
    second = [
        replace(chunk, conversation_id="c2", id=f"second-{chunk.id}")
        for chunk in conversation(
            ("Helper", "Did Maya mention the physio to you, Ruth? Maya seemed tired."),
            ("Ruth", "Yes, and I told Maya to rest."),
            start=MONDAY + timedelta(days=3),
        )
    ]
    combined = combine([extract_offline(first), extract_offline(second)])
    assert "Maya" in by_name(combined)
    speakers = {entity_id("home/ana", "person", name) for name in ("Maya Okafor", "Ruth")}
    merged = merge_short_names(combined, protected=speakers)
    entities = by_name(merged)
    assert "Maya" not in entities
    maya = entities["Maya Okafor"]
    assert maya.id == entity_id("home/ana", "person", "Maya Okafor")
    assert maya.aliases == ("Maya",)
    assert len(maya.mentions) == 3
    _spans_match(merged, [*first, *second])
    ids = {entity.id for entity in merged.entities}
    assert all({r.source_id, r.target_id} <= ids for r in merged.relations)
    assert ("Ruth", "MENTIONS", "Maya Okafor") in relations_named(merged)
    assert merge_short_names(combined, protected=speakers) == merged  # deterministic


def _person(name: str, kind: str = "person", mentions: int = 1) -> Entity:
    return _entity(name, kind, mentions, scope="home/ana")


def test_a_given_name_two_people_share_stays_apart() -> None:
    extraction = Extraction((_person("Sam Cole"), _person("Sam Reyes"), _person("Sam", mentions=3)))
    assert merge_short_names(extraction) == extraction
    # One of them a person and the short name untyped: only the person is a candidate.
    typed = Extraction(
        (_person("Sam Cole"), _person("Sam Reyes", "place"), _person("Sam", "other"))
    )
    assert resolve_short_names(typed.entities) == {
        _person("Sam").id: _person("Sam Cole").id,
    }


def test_a_titled_surname_merges_by_the_last_word() -> None:
    chat = conversation(
        ("Ruth", "Biscuit saw Hannah Lee at the vets today."),
        ("Helper", "Did Dr. Lee say when to come back? Dr Lee usually books a recheck."),
    )
    extraction = extract_offline(chat)
    assert by_name(extraction)["Lee"].type == "person"  # the title is a cue, not part of it
    merged = merge_short_names(extraction, protected={entity_id("home/ana", "person", "Ruth")})
    entities = by_name(merged)
    assert "Lee" not in entities
    assert "Lee" in entities["Hannah Lee"].aliases
    assert len(entities["Hannah Lee"].mentions) == 3
    _spans_match(merged, chat)


def test_a_short_name_merges_into_a_full_name_the_graph_already_holds() -> None:
    stored = _person("Priya Raman", "other", mentions=4)
    short = _person("Priya", mentions=2)
    other = _person("Lantern Books", "organization")
    relation = Relation(id="r1", source_id=short.id, target_id=other.id, type="WORKS_AT", fact="f")
    merged = merge_short_names(Extraction((short, other), (relation,)), known=[stored])
    entities = by_name(merged)
    assert set(entities) == {"Priya Raman", "Lantern Books"}
    priya = entities["Priya Raman"]
    assert (priya.id, priya.type, priya.aliases) == (stored.id, "person", ("Priya",))
    assert priya.layer is MemoryLayer.PROFILE
    assert priya.mentions == short.mentions  # the stored evidence is merged at write time
    (moved,) = merged.relations
    assert (moved.source_id, moved.target_id) == (stored.id, other.id)
    assert moved.id == relation_id("home/ana", stored.id, "WORKS_AT", other.id)


def test_a_merge_that_makes_a_person_settles_the_surname_too() -> None:
    # "Adeyemi" is looked at before "Priya"; it only merges once Priya has made the name a person.
    extraction = Extraction(
        (_person("Priya Adeyemi", "other"), _person("Adeyemi", "other"), _person("Priya"))
    )
    merged = by_name(merge_short_names(extraction))
    assert set(merged) == {"Priya Adeyemi"}
    assert merged["Priya Adeyemi"].aliases == ("Adeyemi", "Priya")


def test_speakers_places_and_untyped_pairs_are_never_short_forms() -> None:
    speaker = _person("Caroline")
    place = _person("Berlin", "place")
    untyped = _person("Tern", "other")
    extraction = Extraction(
        (
            speaker,
            _person("Caroline Wu"),
            place,
            _person("Berlin Marathon"),
            untyped,
            _person("Project Tern", "other"),
        )
    )
    assert merge_short_names(extraction, protected={speaker.id}) == extraction


def test_a_sentence_opening_verb_is_no_part_of_the_name_after_it() -> None:
    # A chat drops its "I" ("Saw Rosa", "Meeting Owen"), and an opening word written in lower
    # case elsewhere ("walking") is a word, not a first name; one also written capitalised
    # mid-sentence ("Project", "Reading") stays part of the name.
    extraction = extract_offline(
        conversation(
            ("Maya", "Saw Rosa Lindqvist this morning. It's official: no Berlin."),
            ("Ada", "Walking Kwame Mensah home took an hour, we kept walking past the bus."),
            ("Maya", "Project Kestrel starts Monday. I lead Project Kestrel now."),
            ("Ada", "Meeting Owen Price went well."),
            ("Maya", "Reading Festival is in August. Lena lives in Reading."),
        )
    )
    names = set(by_name(extraction))
    assert {"Rosa Lindqvist", "Kwame Mensah", "Project Kestrel", "Owen Price"} <= names
    assert "Reading Festival" in names  # "Reading" is a name here: capitalised mid-sentence
    assert not {"Saw Rosa Lindqvist", "Walking Kwame Mensah", "Kestrel", "Meeting Owen Price"} & (
        names
    )
    # a request to pass on greetings names only the one greeted
    asked = by_name(
        extract_offline(
            conversation(
                ("Folake", "Greet Professor Adebanjo for me when you get to OAU"),
                ("Tunde", "ok. Congratulate Declan for me! Invite Sade too"),
            )
        )
    )
    assert {"Professor Adebanjo", "Declan", "Sade"} <= set(asked)
    assert not {"Greet Professor Adebanjo", "Congratulate Declan", "Invite Sade"} & set(asked)


def test_a_body_or_a_relative_opening_a_sentence_keeps_its_head_word() -> None:
    # "university" and "uncle" are written in lower case elsewhere, and still head the names
    extraction = extract_offline(
        conversation(
            ("Tams", "my uni called! the one in Hobart. your uncle will be thrilled"),
            ("Hamo", "which university?"),
            ("Tams", "the very same. University of Tasmania, starts in May."),
            ("Hamo", "Uncle Mandla did the gwara gwara ON a table at the braai"),
            ("Tams", "lol. Transport for Wales cancelled my train again"),
        )
    )
    names = by_name(extraction)
    assert names["University of Tasmania"].type == "organization"
    assert names["Transport for Wales"].type == "organization"
    assert "Mandla" in names["Uncle Mandla"].aliases
    assert not {"Tasmania", "Wales", "Mandla"} & set(names)
    # the titles other languages give grandparents, aunts and uncles head names too
    family = by_name(
        extract_offline(
            conversation(
                ("Pablo", "Abuelo Ernesto says he wants mariachi 😂"),
                ("Bia", "ha. my vó Lurdes is visiting, Vó Lurdes makes the best pão de queijo"),
            )
        )
    )
    assert "Ernesto" in family["Abuelo Ernesto"].aliases
    assert "Lurdes" in family["Vó Lurdes"].aliases
    # a given name that is a title elsewhere ("Tia") stays a given name
    named = by_name(extract_offline(conversation(("Ana", "Tia Jones from work is coming tonight"))))
    assert "Jones" not in named["Tia Jones"].aliases


def test_i_will_looks_ahead_too() -> None:
    (found,) = find_times("I'll see the finished kitchen on Sunday night", MONDAY)
    assert found.value == "2024-03-10"


def test_a_speakers_description_keeps_their_turns_span_apart_from_their_mentions() -> None:
    may, july = datetime(2024, 5, 1, tzinfo=UTC), datetime(2024, 7, 14, tzinfo=UTC)
    mentions = (Mention("c1", 0, 4, may), Mention("c2", 0, 4, may))
    spoke = Entity("u", "Nell", "person", mentions=mentions, first_seen=may, last_seen=july)
    said = describe(spoke, [])
    assert said.startswith("Person mentioned 2 times on 1 day; in the conversations from ")
    assert "2024-05-01 to 2024-07-14" in said
    named = Entity("n", "Ada", "person", mentions=mentions, first_seen=may, last_seen=may)
    assert describe(named, []).startswith("Person mentioned 2 times on 1 day on 2024-05-01")
    silent = Entity("s", "Mummy", "person", first_seen=may, last_seen=july)
    assert describe(silent, []).startswith(
        "Person never named, speaking in the conversations from 2024-05-01 to 2024-07-14"
    )


def test_a_fact_quotes_the_turn_as_written_and_an_ended_one_has_no_start() -> None:
    chat = conversation(
        ("Dev", "Where are you working now, still Ocado?"),
        ("rowan_k88", "yeah still at ocado in hatfield, routing team. NO WAY lol"),
        ("Dev", "My brother Arjun lived in Partick for years, he loved it"),
        ("rowan_k88", "we use obsidian for notes and honestly obsidian is genuinely good"),
    )
    extraction = extract_offline(chat)
    names = {entity.id: entity.name for entity in extraction.entities}
    facts = {(names[r.source_id], r.type, names[r.target_id]): r for r in extraction.relations}
    works = facts[("rowan_k88", "WORKS_AT", "Ocado")]
    assert works.fact == "yeah still at ocado in hatfield, routing team."  # not re-cased
    lived = facts[("Arjun", "LIVES_IN", "Partick")]
    assert lived.valid_from is None and lived.valid_to is not None
    assert ("rowan_k88", "LIKES", "Obsidian") in facts
    assert "WAY" not in names.values()  # shouted, no organisation's initials
