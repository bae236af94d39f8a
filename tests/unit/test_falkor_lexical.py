"""The entity ranking's term match: a query stem covers a word equal to it or sharing a prefix."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from explorer.adapters.falkor import _Words

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
