"""The kinds of thing a question asks for, and the lexical route scoring their instances."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from explorer.core.asked import (
    GROUPS,
    KINDS,
    GraphAnswer,
    calls_kin,
    graph_answers,
    instance_terms,
    kin_asked,
)
from explorer.core.lexical import LexicalIndex, LexicalParams, tokens
from explorer.core.models import Chunk, Entity, Relation, Subgraph
from explorer.core.text import words

START = datetime(2024, 1, 1, tzinfo=UTC)
PLAIN = LexicalParams(neighbour_weight=0.0, session_weight=0.0)


def _asked(question: str) -> list[str]:
    return instance_terms(question, tokens(question))


def test_a_kind_asked_for_brings_its_instances() -> None:
    found = _asked("What martial arts has John done?")
    assert {"taekwondo", "kickbox"} <= set(found)
    assert "paint" not in found  # "martial arts" is the narrower kind, not "art"


@pytest.mark.parametrize(
    ("question", "wanted", "unwanted"),
    [
        ("What European countries has Maria been to?", "spain", "japan"),
        ("What outdoor activities does John enjoy?", "kayak", "paint"),
        ("What South American countries has he seen?", "peru", "spain"),
    ],
)
def test_the_narrowest_kind_wins(question: str, wanted: str, unwanted: str) -> None:
    found = _asked(question)
    assert wanted in found and unwanted not in found


def test_plural_kinds_are_asked_as_singular() -> None:
    assert "hik" in _asked("What hobbies does Tim have?")
    assert "chicago" in _asked("Which cities has John played in?")
    assert "guitar" in _asked("What kind of instruments can she play?")


def test_a_listed_word_is_found_however_it_is_inflected() -> None:
    found = set(_asked("What sports has Ana tried?"))
    assert {"swimm", "swim", "runn", "run"} <= found  # "swimming", "swim"; "running", "run"
    assert {"hik", "hike"} <= set(_asked("What hobbies does Tim have?"))


@pytest.mark.parametrize(
    "question",
    [
        "Did John ever do martial arts?",  # no "what" or "which"
        "John does martial arts, what else?",
        "What is the state of the project?",  # the phrase ends before "state"
        "What happened in the city?",
        "What took place at the meeting?",
    ],
)
def test_only_a_phrase_headed_by_a_kind_asks_for_one(question: str) -> None:
    assert _asked(question) == []


def test_the_question_own_words_are_not_repeated() -> None:
    assert "spain" not in _asked("Which countries besides Spain has Maria seen?")


@pytest.mark.parametrize(
    ("question", "member"),
    [
        ("How many children does Melanie have?", "son"),
        ("What do Melanie's kids like?", "daughter"),
        ("What are the names of John's children?", "baby"),
        ("Did her parents visit?", "mum"),  # a group is read anywhere, not only after "what"
        ("Who are Sam's siblings?", "sister"),
    ],
)
def test_a_group_of_people_brings_the_words_its_members_are_called_by(
    question: str, member: str
) -> None:
    assert member in _asked(question)


def test_a_question_naming_no_group_brings_no_member() -> None:
    assert _asked("Who is Melanie's husband?") == []
    assert _asked("Where did the family go?") == []  # "family" is too wide a group
    # Read as written: his childhood, not his children; one parent is no group
    assert _asked("What toys did John have as a child?") == []
    assert _asked("What did John do as a kid?") == []
    assert _asked("What does Melanie's parent do?") == []


def test_every_instance_is_a_searchable_word() -> None:
    for kind, instances in (*KINDS.items(), *GROUPS.items()):
        for word in words(instances):
            assert tokens(word), (kind, word)  # no stop word, nothing the index leaves out


def _chunk(position: int, text: str, minutes: int | None = None) -> Chunk:
    return Chunk(
        id=f"c{position}",
        text=text,
        conversation_id="talk",
        position=position,
        speaker="Sam",
        timestamp=START + timedelta(minutes=position * 600 if minutes is None else minutes),
    )


CHUNKS = [
    _chunk(0, "I'm off to do some taekwondo!"),
    _chunk(1, "Rainy day, I stayed in and read."),
    _chunk(2, "Martial arts films are my guilty pleasure."),
    _chunk(3, "Karate and judo and taekwondo, I tried them all."),
]
QUESTION = "What martial arts has John done?"


def test_an_instance_ranks_the_turn_that_answers() -> None:
    ranked = [chunk.id for chunk, _ in LexicalIndex(CHUNKS).search(QUESTION, 4)]
    assert "c0" in ranked and "c3" in ranked
    assert "c1" not in ranked  # speaks of no martial art


def test_without_the_weight_only_the_kind_word_matches() -> None:
    unweighed = LexicalIndex(
        CHUNKS, LexicalParams(instance_weight=0.0, neighbour_weight=0.0, session_weight=0.0)
    )
    assert [chunk.id for chunk, _ in unweighed.search(QUESTION, 4)] == ["c2"]
    plain, weighed = unweighed.scores(QUESTION), LexicalIndex(CHUNKS, PLAIN).scores(QUESTION)
    assert plain is not None and weighed is not None
    assert plain[0] == 0.0 < weighed[0]


def test_a_turn_counts_its_best_instance_only() -> None:
    index = LexicalIndex(
        [_chunk(0, "judo"), _chunk(1, "karate"), _chunk(2, "judo karate"), _chunk(3, "tea")],
        PLAIN,
    )
    scores = index.scores("What martial arts has he done?")
    assert scores is not None
    assert 0.0 < scores[2] <= max(scores[0], scores[1])  # summed, it would outrank both


def test_a_session_is_scored_with_the_instances_too() -> None:
    chunks = [
        _chunk(0, "taekwondo tonight", minutes=0),
        _chunk(1, "see you soon", minutes=5),  # the same session, no instance of its own
        _chunk(2, "quiet evening", minutes=900),
    ]
    index = LexicalIndex(chunks, LexicalParams(neighbour_weight=0.0, session_weight=0.3))
    scores = index.scores("What martial arts has he done?")
    assert scores is not None
    assert scores[1] > 0.0 == scores[2]


def _entity(key: str, name: str, kind: str = "person") -> Entity:
    return Entity(id=key, name=name, type=kind)


GRAPH = Subgraph(
    entities={
        "maya": _entity("maya", "Maya Okafor"),
        "owen": _entity("owen", "Owen"),
        "halv": _entity("halv", "Halvorsen Logistics", "organization"),
        "loom": _entity("loom", "Loomwork", "organization"),
        "pip": _entity("pip", "Pip", "other"),
    },
    relations=(
        Relation(id="r1", source_id="maya", target_id="halv", type="WORKS_AT"),
        Relation(id="r2", source_id="maya", target_id="loom", type="WORKS_AT"),
        Relation(id="r3", source_id="owen", target_id="halv", type="WORKS_AT"),
        Relation(id="r4", source_id="maya", target_id="pip", type="OWNS"),
        Relation(id="r5", source_id="maya", target_id="halv", type="CO_OCCURS"),
        Relation(id="r6", source_id="maya", target_id="halv", type="WORKS_AT"),  # again
    ),
)


def test_the_graph_answers_what_is_asked_of_whom_the_question_names() -> None:
    found = graph_answers("Where does Maya work?", {"maya"}, GRAPH)
    assert found == [
        GraphAnswer("Maya Okafor", "WORKS_AT", "Halvorsen Logistics", "r1"),
        GraphAnswer("Maya Okafor", "WORKS_AT", "Loomwork", "r2"),
    ]  # not her dog (another kind), not Owen's job (not named), each pair of ends once


def test_a_fact_answers_from_either_end() -> None:
    found = graph_answers("Who works at Halvorsen?", {"halv"}, GRAPH)
    assert [(a.named, a.answer) for a in found] == [
        ("Halvorsen Logistics", "Maya Okafor"),
        ("Halvorsen Logistics", "Owen"),
    ]


@pytest.mark.parametrize(
    ("question", "named"),
    [
        ("Tell me about Maya", {"maya"}),  # asks for no kind of fact
        ("Where does she work?", set()),  # names no one
    ],
)
def test_no_answer_without_a_kind_asked_and_a_far_end_unnamed(
    question: str, named: set[str]
) -> None:
    assert graph_answers(question, named, GRAPH) == []


def test_a_fact_between_two_named_ends_answers_nothing() -> None:
    found = graph_answers("Does Maya still work at Halvorsen?", {"maya", "halv"}, GRAPH)
    assert [(a.named, a.answer) for a in found] == [
        ("Maya Okafor", "Loomwork"),
        ("Halvorsen Logistics", "Owen"),
    ]


def test_a_turn_naming_the_whole_answer_outranks_one_sharing_a_word() -> None:
    index = LexicalIndex(
        [
            _chunk(0, "we kicked off the pilot at Halvorsen Logistics today"),
            _chunk(1, "a supermarket's logistics arm wants a pilot"),
            _chunk(2, "Halvorsen has no staff engineer track"),
            _chunk(3, "the garden needs watering"),
        ],
        PLAIN,
    )
    before = index.scores("Where does Maya work?")
    after = index.scores("Where does Maya work?", ["Halvorsen Logistics"])
    assert after is not None
    assert before is None or max(before[:3]) == 0.0  # no word of the question in any of them
    assert after[0] > after[2] > 0.0 and after[0] > after[1] > 0.0
    assert after[3] == 0.0


def test_a_relative_is_asked_about_by_whose_they_are() -> None:
    assert kin_asked("Where did Anu's mum see Dr. Mehra?") == {"mother"}
    assert kin_asked("what does her younger brother do") == {"brother"}
    assert kin_asked("Who is Kwame's girlfriend and where does she work?") == {"partner"}
    assert kin_asked("is the mum of the bride coming?") == frozenset()  # whose is not said
    assert kin_asked("Kate's a mum now, where does she live?") == frozenset()  # what she is
    assert calls_kin("Mummy", "Sunita Iyer", {"mother"}) and calls_kin("Ma", "", {"mother"})
    assert calls_kin("Tomek", "my bro", {"brother"}) and calls_kin("Salma", "Mum", {"mother"})
    assert not calls_kin("Mumbai", "", {"mother"}) and not calls_kin("Yo-Yo Ma", "", {"mother"})
    assert not calls_kin("Kwesi", "bro", {"brother"})  # a friend's nickname, nobody's brother
