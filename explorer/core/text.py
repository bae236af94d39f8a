"""The one home of text normalisation: the tokenizer, the stop-word list, the stemmer, folding.

Search (the BM25 route, the concept term scan, the graph's full-text and name matching),
highlighting, the "why not" lookup and ingestion's topic keys all read text through this module,
so a word means the same thing to each of them. ``words`` is the tokenizer (runs of letters and
digits, case-folded); ``STOP_WORDS`` is the stop-word list; ``stem`` is the light suffix stemmer
and ``singular`` its readable cousin, for the topic names ingestion writes; ``fold`` removes case
and accents for matching names the way a user types them.

The stop-word list is written once, in three bands from the most to the least common function
words. The retrieval routes were each measured with their own cut of it and their figures are
pinned, so each route keeps its cut: the BM25 route and highlighting drop every band
(``STOP_WORDS``), the term scan the first two and the pieces of split contractions
(``SCAN_STOP_WORDS``), the graph's full-text search the first (``SEARCH_STOP_WORDS``), and
those two also drop a few words named beside them. Imports
only the standard library.
"""

from __future__ import annotations

import re
import unicodedata

_WORD = re.compile(r"[^\W_]+")

#: Dropped by every route: articles, pronouns, auxiliaries and the commonest prepositions.
_EVERY_ROUTE = """
a about all an and any are as at be been but by can could did do does for from had has have he
her him his how i if in into is it its just me my no not of on or our she should so some such
than that the their then there these they this to too very was we what when where which who whom
why will with would you your
"""
#: Dropped by the term scan and BM25: the rest of the everyday function words.
_SCAN_AND_BM25 = """
after again am because before being between both during each few here hers more most off once
only other ours out over own same theirs them those through under until up were yours
"""
#: Dropped by BM25 only: rarer function words.
_BM25_ONLY = """
above against below doing down further having herself himself itself might must myself nor now o
ourselves shall themselves while y yourself yourselves
"""
#: Dropped by the term scan and BM25: what a split contraction leaves beside its stem ("we'll",
#: "don't"); as a substring, "ll" is inside thousands of words and says nothing.
_CONTRACTION_PIECES = "d don ll m re s t ve"

#: The stop-word list (what the BM25 route and highlighting drop).
STOP_WORDS = frozenset((_EVERY_ROUTE + _SCAN_AND_BM25 + _CONTRACTION_PIECES + _BM25_ONLY).split())
#: The term scan's cut: it matches substrings, so it also drops "us" (inside "music") and "also".
SCAN_STOP_WORDS = frozenset((_EVERY_ROUTE + _SCAN_AND_BM25 + _CONTRACTION_PIECES).split()) | {
    "also",
    "us",
}
#: The full-text search's cut, plus the words of a request ("tell me what you know").
SEARCH_STOP_WORDS = frozenset(_EVERY_ROUTE.split()) | {"also", "done", "know", "tell"}

_SUFFIXES = ("ing", "ed", "es", "s")
_SINGULAR_KEEP = ("ss", "us", "is", "ics")
_PREFIX_SUFFIXES = ("ing", "ed", "ies", "es", "s")
_MIN_STEM = 3


def words(text: str) -> list[str]:
    """The tokenizer: runs of letters and digits in ``text``, case-folded, in order.

    Everything else separates words, underscores and apostrophes included, so "Ana's tea_shop"
    is ``["ana", "s", "tea", "shop"]``.
    """
    return _WORD.findall(text.casefold())


def key_words(
    text: str, stop_words: frozenset[str] = STOP_WORDS, *, min_length: int = 2
) -> list[str]:
    """The words of ``text`` worth matching: no stop words, none shorter than ``min_length``,
    each once, in order of first appearance."""
    kept = (w for w in words(text) if len(w) >= min_length and w not in stop_words)
    return list(dict.fromkeys(kept))


def stem(word: str, *, for_prefix: bool = False) -> str:
    """A light suffix stripper: -ing, -ed, -es or -s off when at least 3 letters remain.

    BM25 indexes these stems, so "painting", "painted" and "paints" meet, and "hobbies" becomes
    "hobbi". With ``for_prefix`` an "-ies" ending goes whole ("hobbies" becomes "hobb"), so the
    stem is also a prefix of the singular "hobby": for matching stems by prefix, as the graph's
    name ranking does.
    """
    for suffix in _PREFIX_SUFFIXES if for_prefix else _SUFFIXES:
        if word.endswith(suffix) and len(word) - len(suffix) >= _MIN_STEM:
            return word[: -len(suffix)]
    return word


def singular(phrase: str) -> str:
    """A crude singular of a phrase's last word, so "support groups" keys like "support group".

    Unlike ``stem`` it writes a word back ("hobbies" becomes "hobby", "classes" "class"), for
    topic names that are shown; words ending like "glass", "bus", "analysis" or "physics" stay.
    """
    head, _, last = phrase.rpartition(" ")
    if len(last) <= 3 or last.endswith(_SINGULAR_KEEP):
        return phrase
    if last.endswith("ies") and len(last) > 4:
        last = last[:-3] + "y"
    elif last.endswith(("ches", "shes", "xes", "sses", "zes")):
        last = last[:-2]
    elif last.endswith("s"):
        last = last[:-1]
    return f"{head} {last}" if head else last


def fold(text: str) -> str:
    """``text`` without accents, case-folded and with runs of whitespace as one space.

    "Tomás Ruiz" and "TOMAS ruiz" fold to the same string, so a user who types without accents
    still finds what the memory spells with them.
    """
    decomposed = unicodedata.normalize("NFKD", text)
    bare = "".join(ch for ch in decomposed if not unicodedata.combining(ch))
    return " ".join(bare.casefold().split())
