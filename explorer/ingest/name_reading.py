"""The offline extractor's word-level reading: tokens, name runs, type votes and topic words.

``tokenise`` splits a chunk's text into word tokens with their offsets, sentence, whether they
open a clause and whether they sit inside a date phrase. Runs of capitalised tokens become name
candidates (``is_name_token``, ``continues_name``); ``vote`` counts what a name's own words and
the words around one occurrence say about its type, and ``name_type`` picks the winner.
``is_topic_token`` says which lower-case words can be part of a topic phrase. The extractor
(``ingest.extractor``) decides what the candidates become. Imports the standard library and the
ingest lexicon.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field

from explorer.ingest.given_names import is_census_name, is_given_name
from explorer.ingest.lexicon import (
    BASE_WORDS,
    BODY_HEADS,
    EATERY_HEADS,
    FOR_HEADS,
    FUNCTION_WORDS,
    KNOWN_ACRONYM_BODIES,
    KNOWN_EVENTS,
    KNOWN_ORGANISATIONS,
    KNOWN_PLACES,
    KNOWN_PRODUCTS,
    LANGUAGES,
    MOTION_WORDS,
    NEARNESS_WORDS,
    NEXT_WORDS,
    ORGANISATION_SUFFIXES,
    PERSON_AFTER,
    PERSON_CUES,
    PLACE_CUES,
    PLACE_PREFIXES,
    PLACE_SUFFIXES,
    SURNAME_PLACE_SUFFIXES,
    TITLES,
    TOPIC_STOPWORDS,
)
from explorer.ingest.places import is_known_place
from explorer.ingest.word_lists import EVERYDAY_WORDS, ranks

# Words keep their inner apostrophes, hyphens and ampersands ("O'Brien", "Jean-Luc", "B&Q"):
# a token's span is the surface a mention points at.
_TOKEN = re.compile(r"[^\W_]+(?:['’\-&][^\W_]+)*['’]?")
_NAME_ABBREVIATIONS = frozenset({"st", "mt", "ft"})
#: How far down the everyday-word list a word after a possessive may be to go on into a name.
COMMON_WORDS = 20_000
_NAME_CONNECTORS = frozenset({"of", "de", "la", "van", "von", "the", "du", "del"})


@dataclass(slots=True)
class Token:
    index: int
    start: int
    end: int
    word: str
    folded: str
    sentence: int
    clause_start: bool  # first word of its sentence, or right after a colon or opening quote
    in_time: bool
    after_emoji: bool = False  # an emoji and a space just before it (``after_emoji``)


@dataclass(frozen=True, slots=True)
class Occurrence:
    chunk: int
    start: int
    end: int
    sentence: int


@dataclass(slots=True)
class Candidate:
    """Everything seen of one normalised name, phrase or date across the context."""

    surfaces: Counter[str] = field(default_factory=Counter)
    occurrences: list[Occurrence] = field(default_factory=list)
    mid_sentence: int = 0
    acronym: bool = False
    votes: Counter[str] = field(default_factory=Counter)
    grain: str = ""
    cues: Counter[str] = field(default_factory=Counter)  # what ``people.context_cues`` read
    # "Maria's" written where a place is named ("drinks at Maria's"): the name with its "'s".
    venues: Counter[str] = field(default_factory=Counter)


def strip_possessive(word: str) -> str:
    for ending in ("'s", "’s", "'", "’"):
        if word.endswith(ending) and len(word) > len(ending) + 1:
            return word[: -len(ending)]
    return word


#: A letter three times over: a word drawn out in shouting or delight ("AAAAAH", "Yesss").
DRAWN_OUT = re.compile(r"(.)\1\1")


#: Initials run to six letters ("UNICEF"); a longer word in capitals is a word or a name
#: shouted ("BARNABY!!!!", "BEATRIZ"), unless known as initials.
MAX_INITIALS = 6


def is_acronym(word: str) -> bool:
    """Capitals only, no longer than initials run, and not shouting drawn out ("AAAAAH")."""
    letters = [char for char in word if char.isalpha()]
    if len(letters) < 2 or not all(char.isupper() for char in letters):
        return False
    if len(letters) > MAX_INITIALS and word.casefold() not in KNOWN_ACRONYM_BODIES:
        return False
    return not DRAWN_OUT.search(word)


# A capital inside a word: "TradFest", "NoBroker", "iPhone" (a brand), unless the word opens on
# a family-name prefix ("McKenzie", "MacLeod", "DeShawn", "LaToya", "DiCaprio", "VanDyke") or
# joins given names ("JoAnn", "JaMarcus", "MaryAnn").
_INNER_CAPITAL = re.compile(r"[a-z][A-Z]")
_NAME_PREFIX = re.compile(r"(?:Mc|Mac|Fitz|De|Di|Da|Du|Le|La|Van|Von)[A-Z]")


def is_brand_cased(word: str) -> bool:
    """A word with a capital inside it that no family-name prefix or given name explains."""
    inner = _INNER_CAPITAL.search(word)
    if inner is None or _NAME_PREFIX.match(word):
        return False
    head, tail = word[: inner.start() + 1], word[inner.start() + 1 :]
    # Two given names ("JoAnn", "MaryAnn"), or one after a short prefix ("JaMarcus", "KeShawn");
    # one given name beside a word is still a brand ("RayBan", "RoseBud").
    joined = is_given_name(tail) and (len(head) <= 3 or is_given_name(head))
    return not joined


def sentence_of(sentences: Sequence[tuple[int, int]], offset: int) -> int:
    for index, (_start, end) in enumerate(sentences):
        if offset < end:
            return index
    return max(0, len(sentences) - 1)


def after_emoji(text: str, start: int) -> bool:
    """Whether an emoji and a space come just before ``start``: chats end a sentence with an
    emoji instead of a full stop ("moved in 😎 Room is tiny")."""
    at = start
    while at > 0 and text[at - 1] in " \t":
        at -= 1
    if at == start or at == 0:
        return False
    mark = ord(text[at - 1])
    # Pictographs, dingbats and the joiner and variation selector inside emoji sequences.
    return mark >= 0x1F000 or 0x2600 <= mark <= 0x27BF or mark in (0xFE0F, 0x200D)


def tokenise(
    text: str, sentences: Sequence[tuple[int, int]], time_spans: Sequence[tuple[int, int]]
) -> list[Token]:
    tokens: list[Token] = []
    for match in _TOKEN.finditer(text):
        start, end = match.span()
        sentence = sentence_of(sentences, start)
        first = not tokens or tokens[-1].sentence != sentence
        opener = text[max(0, start - 2) : start].strip()[-1:]
        word = match.group()
        tokens.append(
            Token(
                index=len(tokens),
                start=start,
                end=end,
                word=word,
                folded=word.casefold(),
                sentence=sentence,
                clause_start=first or opener in (":", '"', "“", "(", "‘"),
                in_time=any(a <= start < b for a, b in time_spans),
                after_emoji=after_emoji(text, start),
            )
        )
    return tokens


#: An abbreviation's plural ("ECGs", "GPs", "MRIs"): things, never a name.
_PLURAL_ABBREVIATION = re.compile(r"[A-Z]{2,}s")


def is_name_token(token: Token) -> bool:
    return (
        not token.in_time
        and token.word[0].isupper()
        and any(c.isalpha() for c in token.word)
        and not _PLURAL_ABBREVIATION.fullmatch(token.word)
    )


#: Degrees written after a name, in their mixed case only ("BA", "MA" and "MD" are too often
#: something else).
POST_NOMINALS = frozenset(
    {"BSc", "MSc", "PhD", "MPhil", "DPhil", "BEng", "MEng", "MBBS", "LLB", "LLM", "Bsc", "Msc"}
)


def continues_name(last: Token, token: Token, text: str) -> bool:
    gap = text[last.end : token.start]
    # "St. Werburghs" and "Mt. Hood" keep their abbreviation's full stop inside the name.
    if gap == ". " and last.folded in _NAME_ABBREVIATIONS:
        return is_name_token(token)
    # "Kettle & Crumb": an ampersand between two capitalised words joins them.
    if gap == " & " and token.sentence == last.sentence:
        return is_name_token(token)
    if token.sentence != last.sentence or gap != " ":
        return False
    if last.word.endswith(("'s", "’s")):
        # "St. Aldhelm's Hospital", "King's College": a possessive that an institution's own
        # word follows is part of its name; "Ada's Kwame" is two names.
        return is_name_token(token) and (
            token.folded in ORGANISATION_SUFFIXES
            or token.folded in PLACE_SUFFIXES
            or (_names_a_place(token) and not is_known_place(strip_possessive(last.folded)))
        )
    if token.word == "and":
        return _common_half(last)  # "Ox and Finch", "Rhythm and Vines": one name
    if last.word == "and":
        return is_name_token(token) and _common_half(token)
    if token.folded == "for":
        return last.folded in FOR_HEADS and last.word[0].isupper()
    if token.word in POST_NOMINALS:
        return False  # "Kirsty Buchanan BSc": the degree is hers, not her name
    if _RACE_DISTANCE.fullmatch(token.word):
        return True  # "the Forest Park Trail 10K": a race's distance ends its name
    return token.folded in _NAME_CONNECTORS or is_name_token(token)


#: A race's distance written as chat and race names write it: "10K", "5k", "50km".
_RACE_DISTANCE = re.compile(r"\d{1,3}(?:k|K|km|KM)")


def _names_a_place(token: Token) -> bool:
    """After a possessive, a capitalised common word that is no one's name, kin or language goes
    on into a place's name ("Peggy's Cove", "Lion's Head", "Yinka's Afro Foods"); "Ada's Mum",
    "Ada's Kwame" and "Okafor's Portuguese" do not, nor does a town's ("Manchester's Northern
    Quarter" is a place in a town: the caller asks)."""
    word = token.folded
    return (
        token.word[1:].islower()
        and word.isalpha()
        and ranks(EVERYDAY_WORDS).get(word, COMMON_WORDS) < COMMON_WORDS
        and word not in PERSON_CUES
        and word not in LANGUAGES
        and not is_given_name(word)
    )


def _common_half(token: Token) -> bool:
    """A half of a name of two common words joined by "and" ("Ox and Finch"): no town, day or
    small word either, so "Bath and Bristol", "Tuesday and Thursday" and "Her and Dad" stay
    apart, as "Sanne and Giulia" do."""
    return (
        _names_a_place(token)
        and not token.in_time
        and token.folded not in FUNCTION_WORDS
        and not is_known_place(token.folded)
        and not is_census_name(token.folded)  # "Mei and Banjo" are two
    )


def is_topic_token(token: Token) -> bool:
    word = token.folded
    return (
        not token.in_time
        and token.word[0].islower()
        and len(word) >= 3
        and word.replace("-", "").isalpha()
        and word not in TOPIC_STOPWORDS
        and not word.endswith("ly")
    )


def vote(
    candidate: Candidate,
    key: str,
    previous: Token | None,
    before: Token | None,
    following: Token | None,
    earlier: Token | None = None,
    possessive: bool = False,
) -> None:
    """Evidence for a name's type: its own words, and the words around this occurrence
    (``previous`` the word before it, ``before`` and ``earlier`` the two before that;
    ``possessive``: written with its "'s")."""
    # A name's own last word says what it names ("Kiln Street", "Hartwell Labs"), and so does a
    # first word like "Lake" or "St." ("St. Aldhelm"); a lone "Harbour" or "Park" is a name that
    # happens to be such a word ("the Harbour project"), and votes nothing by itself.
    words = key.split()
    several = len(words) > 1
    if several and (
        words[-1] in ORGANISATION_SUFFIXES or words[0] in EATERY_HEADS or words[0] in BODY_HEADS
    ):
        candidate.votes["organization"] += 2
    elif (
        several
        and words[0].rstrip(".") in ("st", "saint")
        and possessive
        and not (following is not None and following.word[:1].isupper())
    ):
        # "St Aidan's", "St. Luke's": a church or a school ("St Patrick's Day", "St John's
        # Wood" go on into a name of their own)
        candidate.votes["organization"] += 2
    elif several and (words[-1] in PLACE_SUFFIXES or words[0].rstrip(".") in PLACE_PREFIXES):
        candidate.votes["place"] += 2
    elif several and words[-1] in SURNAME_PLACE_SUFFIXES and not is_census_name(words[0]):
        candidate.votes["place"] += 2  # "the Boundary Waters" ("Roger Waters" is someone)
    elif several and (
        any(word.endswith(("'s", "’s")) for word in words[:-1]) or "and" in words[1:-1]
    ):
        # "Peggy's Cove", "Ox and Finch": a possessive inside a name, or two common words
        # joined (``continues_name``), name a place
        candidate.votes["place"] += 2
    if key in KNOWN_PLACES:
        candidate.votes["place"] += 2
    elif key in KNOWN_PRODUCTS:
        candidate.votes["product"] += 2
    elif key in KNOWN_ORGANISATIONS or f"{key}'s" in KNOWN_ORGANISATIONS:
        candidate.votes["organization"] += 2  # "Nando's" is keyed "nando"
    elif key in KNOWN_EVENTS:
        candidate.votes["event"] += 2
    if previous is not None:
        cue = strip_possessive(previous.folded)
        if cue in TITLES and (cue != "miss" or previous.word[0].isupper()):
            candidate.votes["person"] += 2  # "Dr Bello": a title is someone's, whatever the town
        elif cue == "miss" and is_known_place(key) and not is_census_name(words[0]):
            pass  # "I miss Gdańsk already": a town left behind, as "I miss Tom" is a friend
        elif cue in PERSON_CUES or cue in TITLES:  # "I miss Gdańsk" misses a place as often
            candidate.votes["person"] += 1
        elif _based_out_of(cue, before, earlier) and not possessive:
            candidate.votes["place"] += 1
        elif cue in _TASTED and not is_census_name(words[0]):
            candidate.votes["organization"] += 1  # "have you tried Nyama Mama?": a place to eat
        elif cue in _GONE_WITHOUT_TO and not is_census_name(words[0]):
            candidate.votes["place"] += 1  # "I'm going Langkawi", "yuh reach Kingston yet?"
        elif _bid_farewell(cue, before, earlier) and not is_census_name(words[0]):
            candidate.votes["place"] += 1  # "and then bye bye Braamfontein 😭"
        elif cue in PLACE_CUES and key not in LANGUAGES:
            directional = cue in ("to", "from")
            # "moved to Porto", "moved up from Adelaide" (not "give it back to Tom")
            moved = before is not None and (
                before.folded in MOTION_WORDS
                or (
                    before.folded in _MOTION_PARTICLES
                    and earlier is not None
                    and earlier.folded in MOTION_WORDS
                )
            )
            # "isn't far from Cotham" (not "Chidi's house", nor "stay far from Tom")
            far = (
                before is not None
                and before.folded == "far"
                and earlier is not None
                and earlier.folded in NEARNESS_WORDS
                and not possessive
            )
            # "go to Declan Furlong" sends someone to a person: a given name and a surname.
            given = is_census_name(words[0])
            # "round Siobhan's later" is her house, not a place called Siobhan
            round_someones = cue in ("round", "around") and possessive
            if not round_someones and (
                not directional or (moved and not (several and given)) or (far and not given)
            ):
                candidate.votes["place"] += 1
    if following is not None and following.folded in PERSON_AFTER and following.folded != "and":
        candidate.votes["person"] += 1


#: The particle between a verb of motion and its "to" or "from": "moved up from Adelaide".
_MOTION_PARTICLES = frozenset({"up", "down", "over", "across", "back", "out"})
#: Going somewhere without a "to", as Singapore, Malaysia, Australia and the Caribbean say it.
_GONE_WITHOUT_TO = frozenset({"going", "goin", "reach", "reached"})
_TASTED = frozenset({"try", "tried", "trying"})


def _based_out_of(cue: str, before: Token | None, earlier: Token | None) -> bool:
    """ "the charter outta Newman", "two and one out of Karratha": a base one works or flies
    from ("kicked out of Harvard", "way out of Tyler's league" are none)."""
    if cue == "outta":
        return before is not None and before.folded in BASE_WORDS
    return (
        cue == "of"
        and before is not None
        and before.folded == "out"
        and earlier is not None
        and earlier.folded in BASE_WORDS
    )


def _bid_farewell(cue: str, before: Token | None, earlier: Token | None) -> bool:
    """ "and then bye bye Braamfontein", "so goodbye Joburg": a farewell to somewhere left,
    told as what comes next ("ok bye bye Kofi" sees someone off)."""
    if cue == "bye" and before is not None and before.folded == "bye":
        before, earlier = earlier, None
    elif cue != "goodbye":
        return False
    return before is not None and before.folded in NEXT_WORDS


def name_type(candidate: Candidate) -> str:
    """The type with the most votes (ties by name); "other" without any."""
    if not candidate.votes:
        return "other"
    return sorted(candidate.votes.items(), key=lambda item: (-item[1], item[0]))[0][0]
