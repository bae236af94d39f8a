"""Entity ranking: the best ``k`` by signals, one per entity, in scope; the term match by prefix."""

from __future__ import annotations

from hypothesis import example, given
from hypothesis import strategies as st

from explorer.adapters.sanitize import light_stem
from explorer.core.entity_ranking import (
    DESCRIPTION_TERM_WEIGHT,
    EntityCandidate,
    _lexical,
    _TermMatcher,
    rank_entities,
)
from explorer.core.text import words as split_words

WORD = st.text(alphabet="abcde", min_size=1, max_size=5)


def _covers(words: set[str], stem: str) -> bool:
    """The rule: a stem is covered by an equal word, or by a word of three letters or more
    that starts with it or that it starts with."""
    return stem in words or any(
        len(word) >= 3 and (word.startswith(stem) or stem.startswith(word)) for word in words
    )


def _same(word: str) -> str:
    return word


@given(st.sets(WORD, max_size=6), st.lists(WORD, min_size=1, max_size=4))
def test_a_text_covers_the_stems_its_words_cover_by_equality_or_prefix(
    words: set[str], stems: list[str]
) -> None:
    covered = _TermMatcher(stems, _same).covered(" ".join(sorted(words)))
    assert [bool(covered >> bit & 1) for bit in range(len(stems))] == [
        _covers(words, stem) for stem in stems
    ]


def test_short_words_count_only_when_equal() -> None:
    def covers(text: str, stem: str) -> bool:
        return _TermMatcher([stem], _same).covered(text) == 1

    assert covers("ad", "ad") and not covers("ad", "ada")
    assert covers("ada", "adam") and covers("adam", "ada")


def test_the_best_k_by_similarity_and_terms_then_full_text_then_id() -> None:
    candidates = [
        EntityCandidate("b", "ada lovelace", "", "", 0.5, fulltext=1.0),
        EntityCandidate("a", "ada lovelace", "", "", 0.5, fulltext=1.0),
        EntityCandidate("c", "babbage", "worked with ada", "", 0.5, fulltext=2.0),
        EntityCandidate("d", "engine", "", "", None),
    ]
    ranked = rank_entities(candidates, ["ada"], 3, scope=None, stem=_same)
    assert [entity.id for entity in ranked] == ["a", "b", "c"]
    assert ranked[0].similarity == 0.5 and ranked[0].lexical == 1.0
    assert ranked[2].lexical == DESCRIPTION_TERM_WEIGHT


def test_an_entity_is_ranked_by_its_first_candidate_and_only_if_visible_from_the_scope() -> None:
    candidates = [
        EntityCandidate("x", "x", "", "team/ana", 0.9, fulltext=3.0),
        EntityCandidate("x", "x", "", "team/ana", 0.0),
        EntityCandidate("y", "y", "", "other", 0.0),
        EntityCandidate("z", "z", "", "team", 3.5),
    ]
    ranked = rank_entities(candidates, [], 10, scope="team/ana", stem=_same)
    assert [(entity.id, entity.fulltext) for entity in ranked] == [("x", 3.0), ("z", 0.0)]
    assert ranked[0].similarity == 1.0 - 0.9 and ranked[1].similarity == -1.0


TEXT = st.lists(st.text(alphabet="abcdeABÉß1_'-", min_size=1, max_size=6), max_size=4).map(" ".join)


@given(st.lists(WORD, min_size=1, max_size=4), TEXT, TEXT)
@example(["abcde"], "Abc dé", "")  # a shorter word of the text covers the stem
@example(["bad"], "xbad", "é_Bade")  # no word starts inside one; one starts after "_"
def test_stemming_only_the_words_a_stem_could_match_scores_as_stemming_every_word(
    terms: list[str], names: str, description: str
) -> None:
    # The real stemmer: the score is the one stemming every word of both texts gives.
    stems = [light_stem(term) for term in terms]
    every = [{light_stem(word) for word in split_words(text)} for text in (names, description)]
    expected = sum(
        1.0 if _covers(every[0], s) else DESCRIPTION_TERM_WEIGHT if _covers(every[1], s) else 0.0
        for s in stems
    ) / len(stems)
    assert _lexical(_TermMatcher(stems, light_stem), names, description) == expected
