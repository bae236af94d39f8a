"""Entity ranking: the best ``k`` by signals, one per entity, in scope; the term match by prefix."""

from __future__ import annotations

from hypothesis import example, given
from hypothesis import strategies as st

from explorer.adapters.sanitize import light_stem, word_stems
from explorer.core.entity_ranking import (
    DESCRIPTION_TERM_WEIGHT,
    EntityCandidate,
    _lexical,
    _word_heads,
    _Words,
    rank_entities,
)

WORD = st.text(alphabet="abcde", min_size=1, max_size=5)


@given(st.sets(WORD, max_size=6), WORD)
def test_cover_is_equality_or_a_prefix_either_way_among_words_of_three_letters(
    words: set[str], stem: str
) -> None:
    expected = stem in words or any(
        len(word) >= 3 and (word.startswith(stem) or stem.startswith(word)) for word in words
    )
    assert _Words(words).cover(stem) == expected


def test_short_words_count_only_when_equal() -> None:
    assert _Words({"ad"}).cover("ad")
    assert not _Words({"ad"}).cover("ada")
    assert _Words({"ada"}).cover("adam") and _Words({"adam"}).cover("ada")


def _stem(word: str) -> str:
    return word


def _stems(text: str) -> set[str]:
    return set(text.lower().split())


def test_the_best_k_by_similarity_and_terms_then_full_text_then_id() -> None:
    candidates = [
        EntityCandidate("b", "ada lovelace", "", "", 0.5, fulltext=1.0),
        EntityCandidate("a", "ada lovelace", "", "", 0.5, fulltext=1.0),
        EntityCandidate("c", "babbage", "worked with ada", "", 0.5, fulltext=2.0),
        EntityCandidate("d", "engine", "", "", None),
    ]
    ranked = rank_entities(candidates, ["ada"], 3, scope=None, stem=_stem, word_stems=_stems)
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
    ranked = rank_entities(candidates, [], 10, scope="team/ana", stem=_stem, word_stems=_stems)
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
    every = [_Words(frozenset(word_stems(text))) for text in (names, description)]
    expected = sum(
        1.0 if every[0].cover(s) else DESCRIPTION_TERM_WEIGHT if every[1].cover(s) else 0.0
        for s in stems
    ) / len(stems)
    assert _lexical(stems, _word_heads(stems), names, description, word_stems) == expected
