"""Whether two given names can name one person: a nickname and its full form.

``nickname_reason(short, full)`` says why "Liz" can be Elizabeth or "Tom" Tomás, or gives
``None``; ``is_given_name`` says whether the list knows a name at all. Two sources: the
``nicknames`` package (a hand-curated list of English given names and their nicknames,
Apache-2.0), read once on first use, and a short form the full name begins with
("Tom" for Tomás, "Ada" for Adaeze: names the list, being English, does not hold). A listed pair
counts only when the nickname's letters appear in order in the full name ("Kate" in Katherine,
"Liz" in Elizabeth): the list also pairs names that are names in their own right ("Lena" with
Helen), and in a conversation those are two people far more often than one; rhyming nicknames
("Bob" for Robert) are lost with them. A beginning needs three letters and a full name at least
two letters longer, so "Ada" and "Adam" stay apart unless the list pairs them. Names are compared
accent-folded (Tomás → tomas).

``is_census_name`` knows the wider list a lower-case chat needs ("craig", "tess", "nadia" have no
nicknames in the first list): the given names of the 1990 US census (5,163, male and female),
shipped as ``census_given_names.txt`` and rewritten from the ``names`` package (MIT; a test
dependency) by ``python -m explorer.ingest.given_names``. ``is_world_given_name`` knows the
given names chats from elsewhere use ("Hamish", "Aoife", "Ngozi", "Kwabena"): those of the
Latin-script locales of the ``faker`` package's person providers (MIT; a test dependency),
shipped as ``world_given_names.txt`` and rewritten by the same command. Imports the standard
library, ``nicknames`` and ingest helpers (and, to rewrite the lists, ``names`` and ``faker``).
"""

from __future__ import annotations

import unicodedata
from functools import cache

from nicknames import NickNamer

from explorer.ingest.ids import fold_letters
from explorer.ingest.word_lists import read_list, write_list

MIN_BEGINNING = 3
MIN_EXTRA_LETTERS = 2
CENSUS_FILE = "census_given_names.txt"
CENSUS_HEADER = (
    "# Given names of the 1990 US census, lower case, one a line: the names package"
    " (https://github.com/treyhunner/names, MIT);"
    " rewrite with python -m explorer.ingest.given_names"
)
WORLD_FILE = "world_given_names.txt"
WORLD_HEADER = (
    "# Given names of the Latin-script locales of the faker package's person providers"
    " (https://github.com/joke2k/faker, MIT), accent-folded, one a line;"
    " rewrite with python -m explorer.ingest.given_names"
)
SURNAME_FILE = "census_surnames.txt"
#: The most frequent surnames kept: past about this many, more of the list are everyday words
#: ("Box" is 2,774th) that name businesses more often than people.
SURNAMES_KEPT = 2_000
SURNAME_HEADER = (
    f"# The {SURNAMES_KEPT:,} most frequent surnames of the 1990 US census, lower case, one a"
    " line: the names package (https://github.com/treyhunner/names, MIT);"
    " rewrite with python -m explorer.ingest.given_names"
)


@cache
def _listed() -> dict[str, frozenset[str]]:
    """Each listed name (accent-folded) and the names it is a nickname or full form of."""
    pairs: dict[str, set[str]] = {}
    for full, nicks in NickNamer.default_lookup().items():
        for nick in nicks:
            left, right = fold_letters(full), fold_letters(nick)
            if left and right and left != right:
                pairs.setdefault(left, set()).add(right)
                pairs.setdefault(right, set()).add(left)
    return {name: frozenset(others) for name, others in pairs.items()}


def is_given_name(name: str) -> bool:
    """Whether the nickname list knows ``name`` (accent-folded) as a given name or nickname."""
    return fold_letters(name) in _listed()


@cache
def _census() -> frozenset[str]:
    return frozenset(read_list(CENSUS_FILE))


def is_census_name(name: str) -> bool:
    """Whether ``name`` (accent-folded) is a given name of the census list or the nickname list."""
    letters = fold_letters(name)
    return letters in _census() or letters in _listed()


@cache
def _world() -> frozenset[str]:
    return frozenset(read_list(WORLD_FILE))


def is_world_given_name(name: str) -> bool:
    """Whether ``name`` (accent-folded) is a given name somewhere: in the census list, the
    nickname list or one of the world's (``WORLD_FILE``)."""
    return is_census_name(name) or fold_letters(name) in _world()


@cache
def _surnames() -> frozenset[str]:
    return frozenset(read_list(SURNAME_FILE))


def is_common_surname(name: str) -> bool:
    """Whether ``name`` (accent-folded) is one of the census's most frequent surnames."""
    return fold_letters(name) in _surnames()


def build_surname_list() -> list[str]:
    """The list ``census_surnames.txt`` holds, made from the ``names`` package (by frequency)."""
    from names import FILES  # a test dependency: only rewriting the list needs it

    with open(FILES["last"], encoding="ascii") as table:
        ranked = [line.split()[0].lower() for line in table if line.strip()]
    return ranked[:SURNAMES_KEPT]


def build_census_list() -> list[str]:
    """The list ``census_given_names.txt`` holds, made from the ``names`` package."""
    from names import FILES  # a test dependency: only rewriting the list needs it

    found: set[str] = set()
    for kind in ("first:male", "first:female"):
        with open(FILES[kind], encoding="ascii") as table:
            found.update(line.split()[0].lower() for line in table if line.strip())
    return sorted(found)


def build_world_list() -> list[str]:
    """The list ``world_given_names.txt`` holds, made from the ``faker`` package's person
    providers: every word of their given names written in the Latin script."""
    import importlib
    import pkgutil

    import faker.providers.person as providers  # a test dependency: only rewriting needs it

    found: set[str] = set()
    for module in pkgutil.iter_modules(providers.__path__):
        provider = importlib.import_module(f"{providers.__name__}.{module.name}").Provider
        for field in ("first_names", "first_names_male", "first_names_female"):
            listed = getattr(provider, field, None)
            if not isinstance(listed, (list, tuple, dict)):
                continue  # a property: the names come from the other fields
            found.update(
                fold_letters(word)
                for name in listed
                if all(_latin(char) for char in name if char.isalpha())
                for word in name.split()
                # a letter folding cannot write plainly (ı, ø, ł) would leave a pseudo-word
                if len(fold_letters(word)) == sum(char.isalpha() for char in word)
            )
    return sorted(word for word in found - _NOT_NAMES if len(word) >= 2)


#: What the providers list among given names that names no one.
_NOT_NAMES = frozenset({"unnamed"})


def _latin(char: str) -> bool:
    return char.isascii() or unicodedata.name(char, "").startswith("LATIN")


def _in_order(short: str, full: str) -> bool:
    letters = iter(full)
    return all(letter in letters for letter in short)


def nickname_reason(short: str, full: str) -> str | None:
    """Why the given name ``short`` can be a nickname of ``full``, or ``None`` if it cannot.

    Both are single given names as written ("Liz", "Elizabeth"); the answer is "listed" (the
    nickname list pairs them) or "beginning" (``full`` begins with ``short``).
    """
    nick, name = fold_letters(short), fold_letters(full)
    if not nick or len(nick) >= len(name):
        return None
    long_enough = len(nick) >= MIN_BEGINNING and len(name) - len(nick) >= MIN_EXTRA_LETTERS
    if long_enough and name.startswith(nick):
        return "beginning"
    if name in _listed().get(nick, frozenset()) and _in_order(nick, name):
        return "listed"
    return None


def main() -> int:
    write_list(CENSUS_FILE, CENSUS_HEADER, build_census_list(), "given names")
    write_list(WORLD_FILE, WORLD_HEADER, build_world_list(), "given names of the world")
    return write_list(SURNAME_FILE, SURNAME_HEADER, build_surname_list(), "surnames")


if __name__ == "__main__":
    raise SystemExit(main())
