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
accent-folded (Tomás → tomas). Imports the standard library, ``nicknames`` and ingest helpers.
"""

from __future__ import annotations

from functools import cache

from nicknames import NickNamer

from explorer.ingest.people import fold_letters

MIN_BEGINNING = 3
MIN_EXTRA_LETTERS = 2


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
