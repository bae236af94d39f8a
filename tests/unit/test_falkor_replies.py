"""Decoding FalkorDB's compact replies without a server: every kind the reads ask for."""

from __future__ import annotations

import pytest
import redis.exceptions as redis_errors

from explorer.adapters.falkor.codec import compact_rows
from explorer.core.errors import StoreUnavailable

HEADER = [[1, "a"], [1, "b"]]
STATS = ["Cached execution: 0", "Query internal execution time: 0.1 milliseconds"]


def test_scalars_lists_and_maps_decode_to_plain_values() -> None:
    row = [
        [2, 'Ada "the" Countess'],
        [6, [[3, 7], [5, "0.25"], [1, None], [4, "true"], [4, "false"], [2, b"bytes"]]],
        [10, ["id", [2, "ada"], "tags", [6, [[2, "x"]]], b"n", [3, 2]]],
    ]
    assert compact_rows([HEADER, [row], STATS]) == [
        [
            'Ada "the" Countess',
            [7, 0.25, None, True, False, "bytes"],
            {"id": "ada", "tags": ["x"], "n": 2},
        ]
    ]


def test_a_reply_without_rows_is_empty() -> None:
    assert compact_rows([STATS]) == []
    assert compact_rows([HEADER, [], STATS]) == []


@pytest.mark.parametrize("where", ["first", "last"])
def test_an_error_in_the_reply_is_raised_as_the_store_refusing(where: str) -> None:
    error = redis_errors.ResponseError("Query timed out")
    reply = [error] if where == "first" else [HEADER, [], error]
    with pytest.raises(StoreUnavailable, match="timed out"):
        compact_rows(reply)


def test_a_kind_no_read_asks_for_is_an_error_not_a_guess() -> None:
    node = [8, [1, [0], [[0, 2, "ada"]]]]
    with pytest.raises(StoreUnavailable, match="kind 8"):
        compact_rows([HEADER, [[node]], STATS])
