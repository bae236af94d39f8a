"""Parsing the temporal filter and validating scour's arguments."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from hypothesis import given
from hypothesis import strategies as st

from explorer.core.errors import InvalidArgument
from explorer.core.temporal import parse_period
from explorer.core.validate import (
    validate_count,
    validate_domain,
    validate_query,
    validate_scour_arguments,
    validate_temporal,
)


def utc(year: int, month: int, day: int, hour: int = 0, minute: int = 0) -> datetime:
    return datetime(year, month, day, hour, minute, tzinfo=UTC)


@pytest.mark.parametrize(
    ("text", "start", "end"),
    [
        ("2023", utc(2023, 1, 1), utc(2024, 1, 1)),
        ("2023-06", utc(2023, 6, 1), utc(2023, 7, 1)),
        ("2023-12", utc(2023, 12, 1), utc(2024, 1, 1)),
        ("2024-02-29", utc(2024, 2, 29), utc(2024, 3, 1)),
        ("2023-Q1", utc(2023, 1, 1), utc(2023, 4, 1)),
        ("2023-q4", utc(2023, 10, 1), utc(2024, 1, 1)),
        ("2023..2024", utc(2023, 1, 1), utc(2025, 1, 1)),
        ("2023-03..2023-05-10", utc(2023, 3, 1), utc(2023, 5, 11)),
        ("2023-Q2..2023-Q3", utc(2023, 4, 1), utc(2023, 10, 1)),
        ("2023..", utc(2023, 1, 1), None),
        ("..2023-06", None, utc(2023, 7, 1)),
        (" 2023 .. 2023 ", utc(2023, 1, 1), utc(2024, 1, 1)),
        ("9999", utc(9999, 1, 1), None),
    ],
)
def test_accepted_forms(text: str, start: datetime | None, end: datetime | None) -> None:
    period = parse_period(text)
    assert (period.start, period.end) == (start, end)


@pytest.mark.parametrize(
    "text",
    [
        "",
        " ",
        "..",
        "...",
        "2023...2024",
        "2023..2024..2025",
        "23",
        "20231",
        "2023-1",
        "2023-13",
        "2023-00",
        "2023-02-30",
        "2023-Q0",
        "2023-Q5",
        "Q1-2023",
        "0000",
        "2023/06",
        "June 2023",
        "last week",
        "2024..2023",
        "2023-06-01T00:00",
        "2023-06-",
        "２０２３",
        "2023\x00",
        "x" * 100,
        "-2023",
        "+2023",
        "2023-W12",
    ],
)
def test_rejected_forms_name_the_accepted_ones(text: str) -> None:
    with pytest.raises(InvalidArgument, match="expected YYYY, YYYY-MM"):
        parse_period(text)


@given(st.text(max_size=30))
def test_any_text_parses_or_is_an_invalid_argument(text: str) -> None:
    try:
        period = parse_period(text)
    except InvalidArgument:
        return
    if period.start is not None and period.end is not None:
        assert period.start < period.end


@given(st.dates(min_value=datetime(1000, 1, 1).date(), max_value=datetime(9998, 12, 30).date()))
def test_a_day_contains_itself_and_not_the_next(day: object) -> None:
    period = parse_period(str(day))
    assert period.start is not None and period.end is not None
    assert period.contains(period.start)
    assert not period.contains(period.end)
    assert (period.end - period.start).days == 1


def test_query_validation() -> None:
    assert validate_query("hello") == "hello"
    for bad, message in [
        ("", "empty"),
        ("   ", "empty"),
        ("a\x00b", "NUL"),
        ("x" * 4001, "4001 characters"),
        (b"bytes", "string"),
        (None, "string"),
        (42, "string"),
    ]:
        with pytest.raises(InvalidArgument, match=message):
            validate_query(bad)
    assert validate_query("x" * 4000)

    class Sneaky(str):
        def __str__(self) -> str:
            return "' OR 1=1"

    with pytest.raises(InvalidArgument, match="string"):
        validate_query(Sneaky("hi"))


def test_count_validation() -> None:
    assert validate_count("n_chunks", 0) == 0
    assert validate_count("n_chunks", 100) == 100
    for bad in [True, False, -1, 101, 10**9, 3.0, "3", None]:
        with pytest.raises(InvalidArgument, match="n_chunks"):
            validate_count("n_chunks", bad)

    class Sneaky(int):
        def __str__(self) -> str:
            return "1 MATCH (n) DETACH DELETE n"

    with pytest.raises(InvalidArgument, match="integer"):
        validate_count("kg_top_k", Sneaky(3))


def test_domain_and_temporal_validation() -> None:
    assert validate_domain(None) is None
    assert validate_domain("travel-2024_x") == "travel-2024_x"
    for bad in ["", "a b", "a;drop", "x" * 65, 3, "tag\x00"]:
        with pytest.raises(InvalidArgument, match="domain"):
            validate_domain(bad)
    assert validate_temporal(None) is None
    with pytest.raises(InvalidArgument, match="temporal"):
        validate_temporal(2023)
    with pytest.raises(InvalidArgument, match="expected YYYY"):
        validate_temporal("yesterday")


def test_all_arguments_together() -> None:
    query, n, k, domain, period = validate_scour_arguments("trip", 3, 5, "travel", "2024")
    assert (query, n, k, domain) == ("trip", 3, 5, "travel")
    assert period is not None and period.start == utc(2024, 1, 1)


@pytest.mark.parametrize(
    ("scope", "message"),
    [
        (3, "scope must be a string"),
        ("a\nb", "control characters"),
        ("a/\x1b[31m", "control characters"),
        ("x" * 600, "too long"),
        ("a/" + "y" * 200, "too long"),
        ("a\udcff", "not valid Unicode"),
        ("../../etc", "'.' or '..' level"),
    ],
)
def test_a_request_scope_is_checked(scope: object, message: str) -> None:
    from explorer.core.scour import ScourRequest

    with pytest.raises(InvalidArgument, match=message):
        ScourRequest(query="Lisbon", scope=scope)  # type: ignore[arg-type]


def test_a_plain_scope_of_any_letters_is_a_scope() -> None:
    from explorer.core.scour import ScourRequest

    for scope in ("", "demo/assistant/maya", "a') OR 1=1 --", "家族/チャット"):
        assert ScourRequest(query="Lisbon", scope=scope).scope == scope
