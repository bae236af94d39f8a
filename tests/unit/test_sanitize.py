"""Parameter sanitation: plain built-ins out, hostile subclasses and unstorable values refused."""

from __future__ import annotations

import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from explorer.adapters import sanitize
from explorer.core.errors import InvalidArgument


class LyingStr(str):
    def __str__(self) -> str:
        return 'x"}) MATCH (n) DETACH DELETE n //'

    def replace(self, *args: object, **kwargs: object) -> str:
        return str(self)


class LyingInt(int):
    def __str__(self) -> str:
        return "1 MATCH (n) DETACH DELETE n //"

    def __index__(self) -> int:
        return 7


class LyingFloat(float):
    def __repr__(self) -> str:
        return "1.0 MATCH (n) DETACH DELETE n //"

    __str__ = __repr__


def test_hostile_subclasses_become_exact_builtins_with_their_true_value() -> None:
    text = sanitize.plain(LyingStr("ada"))
    assert type(text) is str and text == "ada"
    number = sanitize.plain(LyingInt(3))
    assert type(number) is int and number == 3 and str(number) == "3"
    real = sanitize.plain(LyingFloat(0.5))
    assert type(real) is float and repr(real) == "0.5"
    nested = sanitize.plain({"ids": [LyingStr("a"), (LyingInt(1),)], "flag": True})
    assert nested == {"ids": ["a", [1]], "flag": True}
    assert type(nested["ids"][0]) is str  # type: ignore[index]
    assert sanitize.plain_int(LyingInt(2), "k", low=0, high=5) == 2
    assert type(sanitize.plain_text(LyingStr("q"), "q")) is str


@pytest.mark.parametrize(
    "value",
    [
        "nul\x00byte",
        "\ud800 lone surrogate",
        math.nan,
        math.inf,
        b"bytes",
        object(),
        {1: "non-string key"},
        {"bad key!": 1},
        {"`x`": 1},
        {1.5},
    ],
)
def test_unstorable_values_are_invalid(value: object) -> None:
    with pytest.raises(InvalidArgument):
        sanitize.plain(value)


def test_limits_are_enforced() -> None:
    with pytest.raises(InvalidArgument):
        sanitize.plain("x" * 11, max_chars=10)
    deep: object = "leaf"
    for _ in range(sanitize.MAX_DEPTH + 2):
        deep = [deep]
    with pytest.raises(InvalidArgument):
        sanitize.plain(deep)
    for bad in (True, 1.0, "1", None, -1, 11):
        with pytest.raises(InvalidArgument):
            sanitize.plain_int(bad, "k", low=0, high=10)
    with pytest.raises(InvalidArgument):
        sanitize.plain_float(True, "x")
    with pytest.raises(InvalidArgument):
        sanitize.plain_strings("abc", "ids", max_items=10)
    with pytest.raises(InvalidArgument):
        sanitize.plain_strings(["a"] * 3, "ids", max_items=2)
    with pytest.raises(InvalidArgument):
        sanitize.plain_text("   ", "query", allow_empty=False)
    with pytest.raises(InvalidArgument):
        sanitize.plain_params({"bad-name": 1})
    assert sanitize.plain_params({"rows": [{"id": "a"}]}) == {"rows": [{"id": "a"}]}


def test_identifiers_are_strict() -> None:
    assert sanitize.identifier("memory_1") == "memory_1"
    for bad in ("", "1abc", "a-b", "a b", "é", "x" * 64, "a;DROP", 5):
        with pytest.raises(InvalidArgument):
            sanitize.identifier(bad)


def test_search_terms_keep_only_words() -> None:
    terms = sanitize.search_terms('Who is @name:(Ada) | -Babbage ~x* %lov% "the" Ada?')
    assert terms == ["name", "ada", "babbage", "lov"]
    assert sanitize.search_terms("the and of is") == []
    assert len(sanitize.search_terms(" ".join(f"w{i}" for i in range(100)), max_terms=5)) == 5


@given(st.text())
def test_search_terms_never_contain_query_syntax(text: str) -> None:
    for term in sanitize.search_terms(text):
        assert term.isalnum() or "_" in term
        assert not set(term) & set("|-@~*%\"(){}[]:;!<>\\'`$,.")


@given(
    st.recursive(
        st.none()
        | st.booleans()
        | st.integers()
        | st.floats(allow_nan=False, allow_infinity=False)
        | st.text().filter(lambda t: "\x00" not in t),
        lambda inner: (
            st.lists(inner, max_size=4)
            | st.dictionaries(
                st.from_regex(r"[a-z_][a-z0-9_]{0,10}", fullmatch=True), inner, max_size=4
            )
        ),
        max_leaves=20,
    )
)
def test_plain_values_pass_through_unchanged(value: object) -> None:
    assert sanitize.plain(value) == value


@given(st.lists(st.floats(allow_nan=False, allow_infinity=False, width=32), max_size=40))
def test_a_vector_parameter_is_written_as_the_falkordb_client_writes_it(
    numbers: list[float],
) -> None:
    from falkordb.helpers import stringify_param_value

    from explorer.adapters.falkor.codec import params_header

    plain = sanitize.plain_params({"vector": numbers, "ids": ["a", 1, 2.5], "k": 3})
    assert plain["vector"] == numbers and plain["vector"] is not numbers
    expected = "".join(f"`{key}`={stringify_param_value(value)} " for key, value in plain.items())
    assert params_header(plain) == "CYPHER " + expected


def test_a_vector_with_a_non_finite_number_is_refused_naming_where() -> None:
    with pytest.raises(InvalidArgument, match=r"vector\[2\] must be a finite number"):
        sanitize.plain([0.1, 0.2, math.nan, 0.4], "vector")


def test_a_vector_written_before_does_not_stand_for_an_equal_one() -> None:
    from explorer.adapters.falkor.codec import params_header

    # 0.0 == -0.0, yet each vector goes out as itself, the second time as the first.
    for _ in range(2):
        assert params_header({"v": [0.0, 1.5]}) == "CYPHER `v`=[0.0,1.5] "
        assert params_header({"v": [-0.0, 1.5]}) == "CYPHER `v`=[-0.0,1.5] "
