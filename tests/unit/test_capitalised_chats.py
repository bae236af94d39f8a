"""Chats typed with capitals: emoji that end sentences, sentence-opening words, holidays and
shouting (the names here are the tests' own)."""

from __future__ import annotations

from tests.unit.test_lower_case_chats import kinds_of


def test_an_emoji_ends_a_sentence_so_the_word_after_it_opens_one() -> None:
    kinds = kinds_of(
        ("Bea 🌿", "Finally moved into the new flat 😎 Kitchen is tiny but I love it"),
        ("ollie_t", "So proud 👑 Meanwhile I still live with my parents"),
        ("Bea 🌿", "Haha 🥺 Winnipeg was worth it though"),
    )
    assert "Kitchen" not in kinds and "Meanwhile" not in kinds
    assert kinds.get("Winnipeg") == "place"  # a known town opens a sentence as itself


def test_an_everyday_word_only_ever_opening_a_sentence_is_that_word() -> None:
    kinds = kinds_of(
        ("Bea 🌿", "Fair enough. I'll ask again on Monday"),
        ("ollie_t", "Fair play to her. My cat is asleep on the sofa"),
        ("Bea 🌿", "Fair 😂 Biscotti sat by my door all weekend, the cat I mean"),
        ("ollie_t", "Biscotti is a legend"),
    )
    assert "Fair" not in kinds
    assert "Biscotti" in kinds  # what is said of it is a name's: a pet resting by a door


def test_holidays_are_events_and_a_wish_before_one_is_no_part_of_it() -> None:
    kinds = kinds_of(
        ("Bea 🌿", "Are you coming home for Thanksgiving?"),
        ("ollie_t", "Yes! Then Hanukkah at my aunt's"),
        ("Bea 🌿", "Happy Hanukkah in advance 🕎"),
    )
    assert kinds.get("Thanksgiving") == "event" and kinds.get("Hanukkah") == "event"
    assert "Happy Hanukkah" not in kinds


def test_shouting_is_no_organisation() -> None:
    kinds = kinds_of(
        ("gus.p", "Did he propose?"),
        ("bk_22", "AAAAAH she said yes"),
        ("gus.p", "BARNABY!!!! Oh my god. I am so happy for you"),
    )
    assert "AAAAAH" not in kinds
    assert kinds.get("BARNABY") != "organization"
