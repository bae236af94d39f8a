"""The one text module: tokenizer, stop words, stemmer and folding, as every route reads them."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from explorer.core.text import (
    SCAN_STOP_WORDS,
    SEARCH_STOP_WORDS,
    STOP_WORDS,
    fold,
    key_words,
    singular,
    stem,
    words,
)


def test_words_are_case_folded_letter_and_digit_runs() -> None:
    assert words("Ana's TEA-shop, tea_room #42!") == [
        "ana",
        "s",
        "tea",
        "shop",
        "tea",
        "room",
        "42",
    ]
    assert words("Straße") == ["strasse"]
    assert words("Café Über") == ["café", "über"]
    assert words(" -- ... ") == []


@given(st.text())
def test_words_never_hold_separators(text: str) -> None:
    for word in words(text):
        assert word and all(ch.isalnum() for ch in word) and word == word.casefold()


def test_the_routes_cut_one_list() -> None:
    assert {"the", "what", "after", "further", "s", "t"} <= STOP_WORDS
    # The term scan and the full-text search keep words the BM25 route drops ...
    assert "now" not in SCAN_STOP_WORDS and "now" in STOP_WORDS
    assert "after" not in SEARCH_STOP_WORDS and "after" in SCAN_STOP_WORDS
    # ... and drop a few of their own.
    assert {"also", "us"} <= SCAN_STOP_WORDS and not {"also", "us"} & STOP_WORDS
    assert {"also", "done", "know", "tell"} <= SEARCH_STOP_WORDS
    assert SEARCH_STOP_WORDS - {"also", "done", "know", "tell"} < SCAN_STOP_WORDS - {"also", "us"}
    assert SCAN_STOP_WORDS - {"also", "us"} < STOP_WORDS
    # The pieces of split contractions go from both routes that match words.
    assert {"ll", "re", "ve", "don"} <= SCAN_STOP_WORDS
    assert (len(STOP_WORDS), len(SCAN_STOP_WORDS), len(SEARCH_STOP_WORDS)) == (139, 118, 79)


def test_key_words_drop_stop_words_short_words_and_repeats() -> None:
    assert key_words("Where does Marta live in Lisbon, Marta?") == ["marta", "live", "lisbon"]
    assert key_words("What is Ana's x-ray?") == ["ana", "ray"]
    assert key_words("tell me what you know now", SEARCH_STOP_WORDS) == ["now"]
    assert key_words("tell me what you know now", SCAN_STOP_WORDS) == ["tell", "know", "now"]
    assert key_words("I'll call, won't I?", SCAN_STOP_WORDS) == ["call", "won"]
    assert key_words("a b cd", frozenset(), min_length=1) == ["a", "b", "cd"]


def test_stem_strips_one_light_suffix_keeping_three_letters() -> None:
    assert [stem(w) for w in ("painting", "painted", "paints", "paintes")] == ["paint"] * 4
    assert stem("is") == "is" and stem("sing") == "sing" and stem("bus") == "bus"
    assert stem("buses") == "bus" and stem("caring") == "car"


def test_stem_on_ies_plurals() -> None:
    # BM25 keeps the i, and indexes every form the same way.
    assert stem("hobbies") == "hobbi" and stem("stories") == "stori"
    assert stem("story") == "story"
    # Matched by prefix, the whole "-ies" goes so the stem reaches the singular.
    assert stem("hobbies", for_prefix=True) == "hobb" and "hobby".startswith("hobb")
    assert stem("stories", for_prefix=True) == "stor"
    # Too short to lose "-ies": the shorter rules apply as usual.
    assert stem("flies", for_prefix=True) == "fli" == stem("flies")
    assert stem("ties", for_prefix=True) == "tie" == stem("ties")
    assert stem("painting", for_prefix=True) == "paint"


def test_singular_writes_the_last_word_back() -> None:
    assert singular("support groups") == "support group"
    assert singular("hobbies") == "hobby" and singular("pies") == "pie"
    assert singular("churches") == "church" and singular("boxes") == "box"
    assert singular("classes") == "class" and singular("glass") == "glass"
    assert [singular(w) for w in ("bus", "analysis", "physics", "cats")] == [
        "bus",
        "analysis",
        "physics",
        "cat",
    ]


def test_fold_ignores_case_accents_and_spacing() -> None:
    assert fold("Tomás  Ruiz") == fold("TOMAS ruiz") == "tomas ruiz"
    assert fold("Zoë\tÅngström") == "zoe angstrom"
    assert fold("Straße") == "strasse"
    assert fold("   ") == ""


@given(st.text())
def test_fold_is_idempotent(text: str) -> None:
    assert fold(fold(text)) == fold(text)
