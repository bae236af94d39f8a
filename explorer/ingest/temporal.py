"""Dates and periods in conversation text, resolved against the time the words were said.

"yesterday", "last Saturday", "two weeks ago", "in May", "8 May, 2023", "2023" and the like are
found with regular expressions and resolved relative to the turn's timestamp to ``YYYY-MM-DD``
(days), ``YYYY-Www`` (ISO weeks), ``YYYY-MM`` (months) or ``YYYY`` (years). Phrases too vague to
resolve ("a while ago", "someday") are left out. Imports only the standard library.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date, datetime, timedelta

from explorer.ingest.lexicon import MONTHS, WEEKDAYS


@dataclass(frozen=True, slots=True)
class TimeMention:
    """A time phrase at ``[start, end)`` of a text and what it resolves to."""

    start: int
    end: int
    value: str
    grain: str  # "day", "week", "month" or "year"


_MONTH_NAMES = (
    r"jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?"
    r"|sept?(?:ember)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?"
)
_WEEKDAY_NAMES = "|".join(WEEKDAYS)
_YEAR = r"(?:19|20)\d{2}"
_ORDINAL = r"(?:st|nd|rd|th)?"
_COUNT_WORDS = (
    r"\d{1,3}|a couple of|an|a|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve"
)
_NUMBERS = {
    "a": 1,
    "an": 1,
    "one": 1,
    "two": 2,
    "three": 3,
    "four": 4,
    "five": 5,
    "six": 6,
    "seven": 7,
    "eight": 8,
    "nine": 9,
    "ten": 10,
    "eleven": 11,
    "twelve": 12,
    "a couple of": 2,
}
_SAID_WORDS = {
    "yesterday": -1,
    "last night": -1,
    "the day before yesterday": -2,
    "today": 0,
    "tonight": 0,
    "this morning": 0,
    "this afternoon": 0,
    "this evening": 0,
    "tomorrow": 1,
}

# Alternatives are tried left to right at each position, so longer phrases come first.
_ALTERNATIVES = (
    (
        "dmy",
        rf"(?P<d1>\d{{1,2}}){_ORDINAL}\s+(?:of\s+)?(?P<m1>{_MONTH_NAMES})\b\.?(?:,?\s+(?P<y1>{_YEAR}))?",
    ),
    ("mdy", rf"(?P<m2>{_MONTH_NAMES})\.?\s+(?P<d2>\d{{1,2}}){_ORDINAL}\b(?:,?\s+(?P<y2>{_YEAR}))?"),
    ("monthyear", rf"(?P<m4>{_MONTH_NAMES})\s+(?P<y4>{_YEAR})"),
    (
        "inmonth",
        rf"(?P<lead>in|during|since|until|by|early|late|mid|this|last|next)\s+"
        rf"(?P<m3>{_MONTH_NAMES})(?:\s+(?P<y3>{_YEAR}))?",
    ),
    ("ago", rf"(?P<count>{_COUNT_WORDS})\s+(?P<unit>day|week|month|year)s?\s+ago"),
    (
        "relative",
        rf"(?P<which>last|this|next|past|coming)\s+"
        rf"(?P<period>weekend|week|month|year|{_WEEKDAY_NAMES})",
    ),
    # "Monday 8 June", "Monday, January 8" and "Monday the 11th" are the day that follows, not
    # Mondays of their own ("Monday 9am" still is one).
    (
        "weekday",
        rf"(?:on\s+)?(?P<wd>{_WEEKDAY_NAMES})(?!,?\s+(?:the\s+)?\d{{1,2}}(?:st|nd|rd|th)\b|"
        rf",?\s+(?:the\s+)?\d{{1,2}}\s+(?:of\s+)?(?:{_MONTH_NAMES})\b|"
        rf",?\s+(?:{_MONTH_NAMES})\.?\s+\d)",
    ),
    ("word", "|".join(sorted(_SAID_WORDS, key=len, reverse=True))),
    ("year", rf"(?:in|since|during|of|by|until|from|back in)\s+(?P<y5>{_YEAR})"),
)
_PATTERN = re.compile(
    "|".join(rf"\b(?P<{name}>{body})\b" for name, body in _ALTERNATIVES), re.IGNORECASE
)


def _month_number(name: str) -> int:
    folded = name.casefold()[:3]
    return next(index for index, month in enumerate(MONTHS, start=1) if month.startswith(folded))


def _month_shift(day: date, months: int) -> str:
    index = day.year * 12 + day.month - 1 + months
    return f"{index // 12:04d}-{index % 12 + 1:02d}"


def _week(day: date) -> str:
    year, week, _ = day.isocalendar()
    return f"{year:04d}-W{week:02d}"


def _count(text: str) -> int | None:
    folded = " ".join(text.casefold().split())
    if folded.isdigit():
        return int(folded)
    return _NUMBERS.get(folded)


def _weekday(said: date, name: str, which: str) -> date:
    target = WEEKDAYS.index(name.casefold())
    delta = target - said.weekday()
    if which in ("next", "coming"):
        return said + timedelta(days=delta if delta > 0 else delta + 7)
    if which == "this":
        return said + timedelta(days=delta)
    # "last Saturday" and a bare "on Saturday" mostly recount something already past.
    return said + timedelta(days=delta if delta < 0 else delta - 7)


def _dated(year: int, month: str, day: str) -> tuple[str, str] | None:
    try:
        return date(year, _month_number(month), int(day)).isoformat(), "day"
    except ValueError:
        return None  # 31 February and the like


def _ago(count_text: str, unit: str, said: date) -> tuple[str, str] | None:
    count = _count(count_text)
    if count is None:
        return None
    if unit == "day":
        return (said - timedelta(days=count)).isoformat(), "day"
    if unit == "week":
        return _week(said - timedelta(weeks=count)), "week"
    if unit == "month":
        return _month_shift(said, -count), "month"
    return f"{said.year - count:04d}", "year"


def _relative(which: str, period: str, said: date) -> tuple[str, str]:
    step = {"last": -1, "past": -1, "this": 0, "next": 1, "coming": 1}[which]
    if period == "week":
        return _week(said + timedelta(weeks=step)), "week"
    if period == "weekend":
        saturday = said + timedelta(days=5 - said.weekday())
        return (saturday + timedelta(weeks=step)).isoformat(), "day"
    if period == "month":
        return _month_shift(said, step), "month"
    if period == "year":
        return f"{said.year + step:04d}", "year"
    return _weekday(said, period, which).isoformat(), "day"


# Words that put a bare weekday ahead: "starting on the ward monday", "see you Friday".
_UPCOMING = re.compile(
    r"(?i:\b(?:going to|gonna|shall|start|starts|starting|see you|see u|can't wait|"
    r"can’t wait|cant wait|plan|planning|hoping|available|free|until|till|still on|let's|"
    # a trip in the present tense is still to come: "we land Friday", "she flies Monday"
    r"let’s|land|lands|arrive|arrives|fly|flies|leave|leaves|due)\b)"
    # "will" in lower case, or opening the clause: "I saw Will on Monday" is a name
    r"|\bwill\b|^\s*Will\b|['’]ll\b"
)
# Past tense in the clause wins over any of those: "I was free on Monday", "it was due Friday".
_PAST = re.compile(
    r"\b(?:was|were|wasn't|weren't|had|did|didn't|went|got|came|saw|met|left|flew|ate|took|"
    r"arrived|landed|happened)\b",
    re.IGNORECASE,
)
_CLAUSE_BREAK = re.compile(r"[.!?;,\n]|\b(?:and|but|so|then)\b", re.IGNORECASE)
# A weekday put forward is a question of its own: "thursday?", "ok. how about friday?" (not
# "who won sunday?", "still hungover from Saturday?", "remember Saturday?").
_PROPOSED = re.compile(r"\s*\?")
_PROPOSAL_OPENING = re.compile(
    r"(?:^|[.!?\n])\s*(?:(?:so|and|or|then|maybe|how\s+about|what\s+about)\s+)?(?:on\s+)?$",
    re.IGNORECASE,
)


def _bare_weekday_side(match: re.Match[str]) -> str:
    """Which of its two nearest days a bare weekday names: the coming one when the words of its
    clause before it look ahead ("starting on the ward monday", "they'll finish on Friday") or
    it is put forward as a question of its own ("thursday?", "how about friday?"), and nothing
    in the clause is in the past ("how was Friday?"), else the last one (chat mostly recounts a day
    gone by: "it arrived on Friday", "Friday was fun")."""
    text, start, end = match.string, match.start(), match.end()
    breaks = [found.end() for found in _CLAUSE_BREAK.finditer(text, 0, start)]
    clause = text[breaks[-1] if breaks else 0 : start]
    after = _CLAUSE_BREAK.search(text, end)
    rest = text[end : after.start() if after else len(text)]  # "Friday was fun"
    if _PAST.search(clause) or _PAST.search(rest):
        return "last"
    if _PROPOSED.match(text, end) and _PROPOSAL_OPENING.search(text, 0, start):
        return "next"  # "thursday?", "how about friday?": a day put forward is still to come
    return "next" if _UPCOMING.search(clause) else "last"


def _resolve(match: re.Match[str], said: date) -> tuple[str, str] | None:
    kind = match.lastgroup
    get = match.group
    if kind == "dmy":
        return _dated(int(get("y1")) if get("y1") else said.year, get("m1"), get("d1"))
    if kind == "mdy":
        return _dated(int(get("y2")) if get("y2") else said.year, get("m2"), get("d2"))
    if kind == "monthyear":
        return f"{int(get('y4')):04d}-{_month_number(get('m4')):02d}", "month"
    if kind == "inmonth":
        lead = get("lead").casefold()
        year = int(get("y3")) if get("y3") else said.year + {"last": -1, "next": 1}.get(lead, 0)
        return f"{year:04d}-{_month_number(get('m3')):02d}", "month"
    if kind == "year":
        return get("y5"), "year"
    if kind == "ago":
        return _ago(get("count"), get("unit").casefold(), said)
    if kind == "relative":
        return _relative(get("which").casefold(), get("period").casefold(), said)
    if kind == "weekday":
        return _weekday(said, get("wd"), _bare_weekday_side(match)).isoformat(), "day"
    if kind == "word":
        offset = _SAID_WORDS[" ".join(get("word").casefold().split())]
        return (said + timedelta(days=offset)).isoformat(), "day"
    return None


def find_times(text: str, said: datetime) -> list[TimeMention]:
    """Every resolvable time phrase of ``text``, in order, resolved against ``said``."""
    day = said.date()
    found: list[TimeMention] = []
    for match in _PATTERN.finditer(text):
        resolved = _resolve(match, day)
        if resolved is not None:
            found.append(TimeMention(match.start(), match.end(), *resolved))
    return found
