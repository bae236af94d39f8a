"""The kinds a question asks for, and the lexical route scoring their instances."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from explorer.core.expansion import instance_terms
from explorer.core.lexical import LexicalIndex, LexicalParams, tokens
from explorer.core.models import Chunk

START = datetime(2024, 1, 1, tzinfo=UTC)


def _asked(question: str) -> list[str]:
    return instance_terms(question, tokens(question))


def test_a_kind_asked_for_brings_its_instances() -> None:
    found = _asked("What martial arts has John done?")
    assert {"taekwondo", "kickbox"} <= set(found)
    assert "paint" not in found  # "martial arts" is the narrower kind, not "art"


def test_the_narrower_kind_wins() -> None:
    found = _asked("What European countries has Maria been to?")
    assert {"spain", "england"} <= set(found)
    assert "japan" not in found


def test_plural_kinds_are_asked_as_singular() -> None:
    assert "hik" in _asked("What hobbies does Tim have?")
    assert "chicago" in _asked("Which cities has John played in?")


def test_only_what_or_which_asks_for_a_kind() -> None:
    assert _asked("Did John ever do martial arts?") == []
    assert _asked("John does martial arts, what else?") == []


def test_the_question_own_words_are_not_repeated() -> None:
    assert "spain" not in _asked("Which countries besides Spain has Maria seen?")


def _chunk(position: int, text: str) -> Chunk:
    return Chunk(
        id=f"c{position}",
        text=text,
        conversation_id="talk",
        position=position,
        speaker="Sam",
        timestamp=START + timedelta(days=position),
    )


CHUNKS = [
    _chunk(0, "I'm off to do some taekwondo!"),
    _chunk(1, "Rainy day, I stayed in and read."),
    _chunk(2, "Martial arts films are my guilty pleasure."),
    _chunk(3, "Karate and judo and taekwondo, I tried them all."),
]


def test_an_instance_ranks_the_turn_that_answers() -> None:
    index = LexicalIndex(CHUNKS)
    ranked = [chunk.id for chunk, _ in index.search("What martial arts has John done?", 4)]
    assert "c0" in ranked and "c3" in ranked
    assert "c1" not in ranked  # speaks of no martial art


def test_without_the_weight_only_the_kind_word_matches() -> None:
    index = LexicalIndex(
        CHUNKS, LexicalParams(instance_weight=0.0, neighbour_weight=0.0, session_weight=0.0)
    )
    ranked = [chunk.id for chunk, _ in index.search("What martial arts has John done?", 4)]
    assert ranked[0] == "c2"
    weighed = LexicalIndex(CHUNKS, LexicalParams(neighbour_weight=0.0, session_weight=0.0))
    scores = weighed.scores("What martial arts has John done?")
    plain = index.scores("What martial arts has John done?")
    assert scores is not None and plain is not None
    assert plain[0] == 0.0 < scores[0]


def test_many_instances_in_one_turn_count_once() -> None:
    params = LexicalParams(neighbour_weight=0.0, session_weight=0.0)
    lone = LexicalIndex([_chunk(0, "taekwondo"), _chunk(1, "quiet day")], params)
    many = LexicalIndex([_chunk(0, "taekwondo karate judo"), _chunk(1, "quiet day")], params)
    question = "What martial arts has he done?"
    assert [c.id for c, _ in lone.search(question, 2)] == [
        c.id for c, _ in many.search(question, 2)
    ]
