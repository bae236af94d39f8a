"""Names in chats typed all in lower case: which lower-case words a conversation shows are names.

The extractor finds names by their capitals, so a chat typed in lower case ("gaz made us stay
late", "soph's mum") gave it almost nothing. ``restore_names`` writes a capital on the words a
context shows to be names, in the turns that hold no capital letter at all (and in every turn of
a conversation with a quarter of its turns so typed: "Kasia!! how's edinburgh" is casual too),
before the extractor reads them. Only first letters change, so every span still points into the
verbatim turn (the chunks written to the store keep their own text). In such a turn a word is a
name when it is

- a speaker's handle stem ("mo" of mo.haddad, "layla" of "Layla 🌙");
- written capitalised elsewhere in the context, not at a sentence's start, and not among the
  5,000 most frequent words ("Will" there leaves "i will" alone);
- a known town (the places list, the lexicon's known places), a known app or company outside
  the 5,000 ("kmart", "lululemon"), a given name the nickname list knows that is no everyday
  word, or a census given name outside the 5,000 that no determiner comes before and that is
  no everyday noun ("craig"; not "olive" or "ginger");
- a census given name outside the 2,000 most frequent words, or a word outside the 30,000, where
  a subject stands: before "is", "got", "made", "did", "can't" or after "did", "about",
  "how's" ("josh got us tickets", "what did craig say", "how's tommo"), and such a given name
  said as a sentence of its own ("hinge. oscar. he has a dog");
- a kinship word a person has one of, where no "my" or "the" comes before it ("mum says", "at
  teta's"): it names the speaker's own, as a capitalised "Mum" does;
- outside the 5,000 most frequent words, and once where names stand: before "'s", after "with",
  "w", "me and", a kinship or role word ("my sis gabi", "her bf josh"), a verb of meeting or
  telling, "in", "at", "from" or "moved to", or before "said", "says", a verb in -s or -ed, "and i";
- outside the 30,000 most frequent words and used in two turns or more;

and never right after a determiner ("the recruiter said", "which homestay?"). A name of several
words that a turn writes with capitals, not at a sentence's start, gets them back wherever a
casual turn writes it in lower case ("west end" after "Looking at West End"), however common
its words. Once shown, a word is a name in every lower-case turn of the context, and the word a
place's, a business's or an event's name ends on keeps its capital after it ("pennine motors",
"fulton market"), as does a title before a name ("uncle samir"). In a turn typed all in lower
case, words in capitals that are everyday words ("PREGNANT", "LMAOOO") are shouting and go to
lower case, so they are read as no acronym, unless short, rare and no chat shorthand: "still at
DBS" keeps its initials.

Everyday words are ``everyday_words.txt`` beside this module: the 30,000 most frequent English
words of the ``wordfreq`` package, most frequent first (data CC BY-SA 4.0; a test dependency, so
the app ships the list), written by ``python -m explorer.ingest.casing``; a test checks the
shipped file is what that makes. Chat shorthand the list misses ("tmrw", "ngl"), plural weekdays
and drawn-out words ("sooo") are no names either. Imports the standard library and ingest
helpers (and, to rewrite the list, ``wordfreq``).
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Sequence
from dataclasses import replace

from explorer.core.models import Chunk
from explorer.core.text import singular
from explorer.ingest.chunking import sentence_spans
from explorer.ingest.given_names import is_census_name, is_given_name
from explorer.ingest.ids import normalise_name
from explorer.ingest.lexicon import (
    COMMON_VERBS,
    ENDEARMENTS,
    FUNCTION_WORDS,
    INTERJECTIONS,
    KNOWN_BRANDS,
    KNOWN_PLACES,
    ORGANISATION_SUFFIXES,
    PLACE_SUFFIXES,
    UNMARKED_CONTRACTIONS,
)
from explorer.ingest.name_reading import DRAWN_OUT
from explorer.ingest.people import EVENT_WORDS, handle_stems, speaker_type
from explorer.ingest.places import is_known_place
from explorer.ingest.relation_rules import UNIQUE_KIN
from explorer.ingest.word_lists import EVERYDAY_WORDS, ranks, write_list

LIST_FILE = EVERYDAY_WORDS
LIST_SIZE = 30_000
HEADER = (
    "# Everyday English words, one a line: the most frequent of wordfreq"
    " (https://github.com/rspeer/wordfreq, data CC BY-SA 4.0);"
    " rewrite with python -m explorer.ingest.casing"
)
#: A word in a name's place is a name unless it is among this many of the most frequent.
COMMON_RANK = 5_000
#: Initials read from capitals in a lower-case turn have at most this many letters.
MAX_INITIALS = 4
#: Words a business's name follows, where a word in capitals is its initials ("at DBS",
#: "joined HSBC").
BUSINESS_NAMED_AFTER = frozenset({"at", "with", "from", "for", "joined", "join", "joining", "left"})
MIN_LETTERS = 3
MIN_TURNS = 2

_WORD = re.compile(r"[^\W\d_]+(?:['’][sS]\b)?")  # "SHE'S" shouts as "she's" is typed

#: Chat shorthand the frequency list misses or counts as words of their own (the lexicon's
#: interjections, "lol" or "tbh", are counted as everyday words beside it), and contractions
#: typed without their apostrophe (``lexicon.UNMARKED_CONTRACTIONS``).
_SHORTHAND = (
    frozenset(
        """
    tmrw tmr tmw tomoz rn bc cuz coz cos tho thru idc imho fr af jk nvm wtf gonna wanna gotta
    kinda sorta dunno srsly bday hbd ily ilysm bff gn wbu aka rly sry soz okk kk yh ye hun hunny
    babe bby luv lil tysm lmfao omfg hehe ew xx wks hrs mins pic pics uni mondays tuesdays
    wednesdays thursdays fridays saturdays sundays weekends
    """.split()  # noqa: SIM905 (a word list reads best as words)
    )
    | UNMARKED_CONTRACTIONS
)
#: Kin and partner words a person's name follows: "his gf grace", "my brother mark".
_KIN_BEFORE = frozenset(
    """
    sis sister bro brother mum mom mam mama dad papa uncle aunt auntie cousin bf gf boyfriend
    girlfriend husband wife partner fiance fiancee bestie flatmate housemate roommate nan nana
    grandma grandpa son daughter niece nephew
    """.split()  # noqa: SIM905
)
#: Words a person's name follows: a person's place only.
_PERSON_BEFORE = _KIN_BEFORE | frozenset(
    """
    with w told tell tells telling ask asked asks texted text texting called call calling met
    meet meeting saw seeing invited invite inviting bring brought miss love hug thank thanked
    named mate friend coach boss manager
    """.split()  # noqa: SIM905
)
#: Words a place's name follows.
_PLACE_BEFORE = frozenset({"in", "at", "from", "near", "visiting", "visit"})
#: Words a place's name follows after "to" ("moved to leith", "flying to gokarna").
_MOTION_BEFORE_TO = frozenset(
    "move moved moving fly flying flew drive drove driving trip headed heading".split()  # noqa: SIM905
)
#: Words a name of a place, a business or an event ends on ("pennine motors", "the tan crew").
_NAME_TAILS = ORGANISATION_SUFFIXES | PLACE_SUFFIXES | EVENT_WORDS | {"line", "sea", "crew"}
#: Words a person's name takes as part of it ("uncle samir" is Uncle Samir).
_TITLES = frozenset(
    {"uncle", "aunt", "auntie", "aunty", "cousin", "grandma", "grandpa", "nana", "nonna"}
)
#: Words a common noun follows, and a name hardly ever.
_DETERMINERS = frozenset(
    """
    the a an my your ur his her our their this that these those some any every each no which
    what
    """.split()  # noqa: SIM905
)
#: Words a person's name comes before.
_PERSON_AFTER = frozenset(
    """
    said says thinks reckons texted asked told wants loves hates replied messaged called
    """.split()  # noqa: SIM905
)


#: Words a subject comes before, or a word about someone after: a name stands there only
#: sometimes ("rent is going up"), so only a given name or a word no list knows counts.
_SUBJECT_AFTER = frozenset(
    """
    is was got gets made did does didn't doesn't can't cant won't wont just never finally
    still has had
    """.split()  # noqa: SIM905
)
_SUBJECT_BEFORE = frozenset(
    """
    about did does how's hows who's whos hate hates
    """.split()  # noqa: SIM905
)
#: Census given names that are everyday words too ("olive oil", "ginger tea"): a name only
#: where a name's place shows it.
_WORD_NAMES = frozenset(
    """
    aide alba alta aura berry blossom bong brandy brook buck buffy bunny burma carmel chastity
    cherish cherry conception coral delta dusty easter ebony echo emerald fairy fanny fawn fern
    garland garnet genesis genie ginger goldie hazel heath herb holly ivory jade jasmine jewel
    karma lacy lala latina laurel lean lore magnolia mana maple marvel meta mica misty nada
    nana olive opal pandora patience pearl penny porsche prudence raven rosy rusty sage
    scarlet sparkle starr stormy sunny sunshine tequila terra tiara velvet viva willow windy
    destiny harmony cliff rocky sandy ruby daisy iris violet lily rosemary mercedes eden
    chance faith hope joy grace indie
    """.split()  # noqa: SIM905
)
#: A given name in a name's place is a name unless among this many of the most frequent
#: words ("with josh", "craig made me"; "with grace" and "will said" stay words).
GIVEN_RANK = 2_000
#: A conversation with at least this share of its turns typed all in lower case is typed
#: casually: its mixed turns ("Kasia!! how's edinburgh") have lower-case names too.
CASUAL_SHARE = 0.25


def is_everyday_word(word: str, within: int = LIST_SIZE) -> bool:
    """Whether ``word`` (lower case) is among English's ``within`` most frequent words, or
    chat shorthand, a function word, a common verb or an interjection."""
    rank = ranks(LIST_FILE).get(word)
    return (
        (rank is not None and rank < within)
        or word in _SHORTHAND
        or word in FUNCTION_WORDS
        or word in COMMON_VERBS
        or word in INTERJECTIONS
    )


# Laughter and hums typed out: "haha", "ahhahha", "hehe", "mm", "hmm".
_LAUGH_OR_HUM = re.compile(r"(?=(?:.*h){2})[aehio]{4,}|h?m{2,}")


def reads_as_a_word(key: str) -> bool:
    """Whether a word in a name's place, as ``ids.normalise_name`` writes it, reads as a word
    and not as what someone is called: "Wait, ...", "Thankfully, ...", "Right, ...", "Mmm, ..."
    and "Heaps, ..." open a turn like a call but are an interjection, an adverb, an everyday
    word or a plural one. A given name is a name ("Mel", "Jo", "Kit"), however common a word,
    and so is a census given name past English's most frequent words ("because Barry, I'm
    doing the cake"), unless it names a town or calls anyone dear ("Son, I'm sending money",
    "Ma, are you home?", "but Paris, I loved it")."""
    if " " in key or is_given_name(key):
        return False
    if (
        is_census_name(key)
        and not is_everyday_word(key, GIVEN_RANK)
        and not is_known_place(key)
        and key not in ENDEARMENTS
    ):
        return False
    if DRAWN_OUT.search(key) or _LAUGH_OR_HUM.fullmatch(key):
        return True
    if is_everyday_word(key, COMMON_RANK) or is_known_place(key):
        return True
    if not is_everyday_word(key):
        return False
    # A rarer everyday word: an adverb ("lately") or a plural of an everyday word ("heaps").
    one = singular(key)
    return key.endswith("ly") or (one != key and is_everyday_word(one))


def build_list() -> list[str]:
    """The list ``everyday_words.txt`` holds, most frequent first, made from ``wordfreq``."""
    from wordfreq import top_n_list  # a test dependency: only rewriting the list needs it

    return [word for word in top_n_list("en", LIST_SIZE) if re.fullmatch(r"[a-z]+", word)]


def in_lower_case(text: str) -> bool:
    """Whether ``text`` spells no name with a capital: words in capitals ("EVERYONE", "OMG")
    and a capital "I" shout or follow a keyboard's habit, not a name's."""
    found = False
    for match in _WORD.finditer(text):
        word = _bare(match.group(0))
        if not word.islower() and not (word.isupper() and (len(word) > 1 or word == "I")):
            return False
        found = True
    return found


def _bare(word: str) -> str:
    return word[:-2] if word.endswith(("'s", "’s", "'S", "’S")) else word


def _everyday(word: str, within: int = LIST_SIZE) -> bool:
    """``is_everyday_word``, a plural counting as its singular ("halls", "viewings")."""
    if is_everyday_word(word, within):
        return True
    one = singular(word)
    return one != word and is_everyday_word(one, within) and not is_census_name(word)


def _shown(words: list[str], position: int) -> tuple[bool, bool, bool]:
    """Whether the word at ``position`` stands where a person's name stands, where a place's
    name does, and where a subject does (weaker: "tess is moving out", "did craig say")."""
    word = words[position]
    before = words[position - 1] if position > 0 else ""
    after = words[position + 1] if position + 1 < len(words) else ""
    after_two = " ".join(words[position + 1 : position + 3])
    if before in _DETERMINERS:
        return False, False, False  # "the recruiter said", "on the tram": a common noun
    person = (
        word.endswith(("'s", "’s"))
        or before in _PERSON_BEFORE
        or after in _PERSON_AFTER
        or (after in COMMON_VERBS and after.endswith("s"))
        or (after.endswith("ed") and len(after) > 4)
        or after_two in ("and i", "and me")
        or " ".join(words[max(0, position - 2) : position]) == "me and"
    )
    subject = after in _SUBJECT_AFTER or before in _SUBJECT_BEFORE
    place = before in _PLACE_BEFORE or (
        before == "to" and position > 1 and words[position - 2] in _MOTION_BEFORE_TO
    )
    return person, place, subject


def _handle_names(chunks: Sequence[Chunk]) -> set[str]:
    """The names the speakers' one-word handles begin with ("mo" of mo.haddad)."""
    speakers = {normalise_name(c.speaker): c.speaker for c in chunks if c.speaker}
    return set(handle_stems({k: v for k, v in speakers.items() if speaker_type(v) == "person"}))


def _capitalised_elsewhere(chunks: Sequence[Chunk]) -> set[str]:
    """Words some turn writes with a capital not at a sentence's start, but for the most
    frequent ("Will", "May": a name or a month there, a word in "i will" or "it may")."""
    found: set[str] = set()
    for chunk in chunks:
        text = chunk.text
        openings = {start for start, _ in sentence_spans(text)}
        for match in _WORD.finditer(text):
            word = match.group(0)
            if not word[0].isupper() or word.isupper() or match.start() in openings:
                continue
            key = _bare(word).casefold()
            if not is_everyday_word(key, COMMON_RANK):
                found.add(key)
    return found


def casual_chunks(chunks: Sequence[Chunk]) -> list[Chunk]:
    """The turns whose lower-case words may be names: the ones typed all in lower case, and
    every turn of a conversation typed casually (see ``CASUAL_SHARE``)."""
    lower = [chunk for chunk in chunks if in_lower_case(chunk.text)]
    if lower and len(lower) >= CASUAL_SHARE * len(chunks):
        return list(chunks)
    return lower


def names_in_lower_case(chunks: Sequence[Chunk]) -> set[str]:
    """The lower-case words the context ``chunks`` shows to be names (see the module docstring)."""
    lower = casual_chunks(chunks)
    if not lower:
        return set()
    names = _handle_names(chunks) | _capitalised_elsewhere(chunks)
    determined = _determined(lower)
    turns: dict[str, set[int]] = {}
    for chunk in lower:
        matches = list(_WORD.finditer(chunk.text))
        words = [match.group(0) for match in matches]
        for position, written in enumerate(words):
            word = _bare(written)
            if not word.islower() or len(word) < MIN_LETTERS or word in names:
                continue
            if DRAWN_OUT.search(word):
                continue
            if word in FUNCTION_WORDS or word in _SHORTHAND:
                continue
            everyday = _everyday(word)
            given = is_census_name(word) and word not in _WORD_NAMES
            if (
                is_known_place(word)
                or word in KNOWN_PLACES
                or (word in KNOWN_BRANDS and not is_everyday_word(word, COMMON_RANK))
                or (is_given_name(word) and not everyday)
                or (given and word not in determined and not is_everyday_word(word, COMMON_RANK))
            ):
                names.add(word)
                continue
            if (
                is_census_name(word)
                and position > 0
                and _bare(words[position - 1]) in _KIN_BEFORE
                and word not in COMMON_VERBS
                and not (everyday and _reads_on_as_a_word(words, position))
            ):
                names.add(word)  # "his gf grace", "my sister rose": however common the word
                continue
            tail = position + 1 < len(words) and words[position + 1] in _NAME_TAILS
            if tail and not everyday:
                names.add(word)  # "pennine motors": a word no list knows, named by its tail
                continue
            person, place, subject = _shown(words, position)
            # A given name said alone is one ("oscar."); another rare word so is an
            # exclamation ("ghosted.").
            subject = subject or (given and _alone(chunk.text, matches[position]))
            rare = not _everyday(word, GIVEN_RANK if given else COMMON_RANK) and not (
                word.endswith(_DERIVED_ENDINGS) and _everyday(word)
            )
            if ((person or place) and rare) or (subject and (rare if given else not everyday)):
                names.add(word)
            elif not everyday:
                turns.setdefault(word, set()).add(id(chunk))
    # A word no dictionary knows that several turns use is someone's or something's name,
    # unless a determiner ever comes before it ("the homestay", "which homestay?").
    names.update(
        word for word, seen in turns.items() if len(seen) >= MIN_TURNS and word not in determined
    )
    return names


# Endings of English words derived from others ("heating fixed", "4 viewings cancelled"): a
# listed word so ending is no name, however rare ("ravi texted me" is Ravi, rare and no such word).
_DERIVED_ENDINGS = ("ing", "ings", "ed", "ness", "ment", "ments", "tion", "tions", "able")


def _alone(text: str, match: re.Match[str]) -> bool:
    """Whether the word is a sentence of its own ("the architect from hinge. oscar. he has a
    dog"): a name said alone, as a subject stands."""
    before, after = text[: match.start()].rstrip(), text[match.end() :].lstrip()
    return (not before or before[-1] in ".!?") and (not after or after[0] in ".!?")


def _determined(chunks: Sequence[Chunk]) -> set[str]:
    """Words some turn writes after a determiner."""
    found: set[str] = set()
    for chunk in chunks:
        words = [_bare(match.group(0)) for match in _WORD.finditer(chunk.text)]
        found.update(w for before, w in itertools.pairwise(words) if before in _DETERMINERS)
    return found


# After a word that is a name too, what shows it is the word: "my mum rose early", "my dad
# miles away", "my partner frank about it".
_WORD_GOES_ON = frozenset(
    [
        "early",
        "late",
        "away",
        "about",
        "up",
        "down",
        "off",
        "out",
        "back",
        "over",
        "home",
        "around",
        "with",
        "at",
        "in",
        "on",
        "to",
        "from",
    ]
)


def _reads_on_as_a_word(words: Sequence[str], position: int) -> bool:
    after = words[position + 1] if position + 1 < len(words) else ""
    return after in _WORD_GOES_ON or (after.endswith("ly") and len(after) > 3)


def is_rare_given_name(word: str) -> bool:
    """A given name (lower case) that no everyday word shares: "rosalind", not "will"."""
    return (
        len(word) >= MIN_LETTERS
        and " " not in word
        and is_census_name(word)
        and not is_everyday_word(word)
    )


def _name_cased(word: str) -> str:
    """A name shouted in capitals written as a name ("ROSALIND" → "Rosalind"): no acronym."""
    return word[:1] + word[1:].casefold()


def _shouted(word: str, names: set[str], before: str) -> str:
    """A word in capitals in a lower-case turn, after the word ``before``: an everyday word
    shouted ("PREGNANT", "LMAOOO") in lower case, for it is no acronym, unless short and rare
    where a business's name stands ("at DBS"); a name shouted ("HANNA") and the rest ("NHS",
    "H4") as written."""
    lower = word.casefold()
    bare = _bare(lower)
    if is_rare_given_name(bare):
        return _name_cased(word)
    if bare in names or is_given_name(bare) or is_known_place(bare):
        return word
    if DRAWN_OUT.search(bare):
        return lower
    if len(bare) >= MIN_LETTERS and is_everyday_word(bare):
        # A short word in capitals that English uses rarely is initials where a business's
        # name stands ("still at DBS", "I work at HSBC now"); elsewhere slang ("that was LIT").
        initials = (
            before in BUSINESS_NAMED_AFTER
            and len(bare) <= MAX_INITIALS
            and not is_everyday_word(bare, COMMON_RANK)
        )
        return word if initials else lower
    return word


def restore_names(chunks: Sequence[Chunk]) -> list[Chunk]:
    """``chunks`` with the names of their lower-case turns capitalised; the others as given."""
    names = names_in_lower_case(chunks)
    phrases = _phrase_names(chunks)
    casual = {id(chunk) for chunk in casual_chunks(chunks)}
    return [
        replace(
            chunk,
            text=_phrases_cased(_restored(chunk.text, names, in_lower_case(chunk.text)), phrases),
        )
        if id(chunk) in casual
        else chunk
        for chunk in chunks
    ]


#: The small words a name of several words may hold in lower case ("Ox and Finch").
_CONNECTORS = ("and", "of", "the", "on", "de", "da", "del")
# A name of several words as a turn writes it with capitals: "West End", "Ox and Finch",
# "Trade Me" (joined by one lower-case connector at most).
_PHRASE = re.compile(
    r"\b[A-Z][^\W\d_]+(?:\s+(?:(?:" + "|".join(_CONNECTORS) + r")\s+)?[A-Z][^\W\d_]+)+(?!['’])\b"
)


def _phrase_names(chunks: Sequence[Chunk]) -> re.Pattern[str] | None:
    """One pattern for the names of several words some turn writes capitalised, not at a
    sentence's start (where "Happy New Year" is a greeting), matched case-folded, the longest
    first; ``None`` when there is none."""
    found: set[str] = set()
    for chunk in chunks:
        if in_lower_case(chunk.text):
            continue
        openings = {start for start, _ in sentence_spans(chunk.text)}
        for match in _PHRASE.finditer(chunk.text):
            if match.start() not in openings and not match.group(0).isupper():
                found.add(" ".join(match.group(0).casefold().split()))
    if not found:
        return None
    longest_first = sorted(found, key=lambda phrase: (-len(phrase), phrase))
    return re.compile(r"(?<![\w'’])(?:" + "|".join(map(re.escape, longest_first)) + r")(?![\w])")


def _phrases_cased(text: str, phrases: re.Pattern[str] | None) -> str:
    """``text`` with each name ``phrases`` matches written in lower case given its capitals back
    ("ox and finch" as "Ox and Finch"); only first letters change."""
    if phrases is None:
        return text
    folded = text.casefold()
    if len(folded) != len(text):
        return text  # a letter whose case-folding changes its length: spans would not hold
    letters = list(text)
    for match in phrases.finditer(folded):
        if not text[match.start() : match.end()].islower():
            continue  # written with capitals of its own
        for word in re.finditer(r"[^\W\d_]+", match.group(0)):
            if word.group(0) not in _CONNECTORS or word.start() == 0:
                at = match.start() + word.start()
                letters[at] = letters[at].upper()
    return "".join(letters)


def _restored(text: str, names: set[str], all_lower: bool = True) -> str:
    """One casual turn with its names capitalised (see the module docstring); words in
    capitals are read as shouting only in a turn typed all in lower case."""
    matches = list(_WORD.finditer(text))
    pieces: list[str] = []
    end = 0
    for position, match in enumerate(matches):
        pieces.append(text[end : match.start()])
        written = matches[position].group(0)
        if all_lower or written.islower():
            pieces.append(_cased(text, matches, position, names))
        elif written.isupper() and is_rare_given_name(_bare(written.casefold())):
            pieces.append(_name_cased(written))  # "ROSALIND. WHAT. omg congrats"
        else:
            pieces.append(written)
        end = match.end()
    pieces.append(text[end:])
    return "".join(pieces)


def _cased(text: str, matches: Sequence[re.Match[str]], position: int, names: set[str]) -> str:
    word = matches[position].group(0)
    bare = _bare(word)
    if word.isupper() and len(bare) > 1:
        previous = _bare(matches[position - 1].group(0)).casefold() if position > 0 else ""
        return _shouted(word, names, previous)
    # The words either side, and whether a single space joins them to this one.
    before = matches[position - 1] if position > 0 else None
    after = matches[position + 1] if position + 1 < len(matches) else None
    joined_before = before is not None and text[before.end() : matches[position].start()] == " "
    joined_after = after is not None and text[matches[position].end() : after.start()] == " "
    if bare in _TITLES and after is not None and _bare(after.group(0)) in names:
        named = joined_after  # "uncle samir's"
    elif bare in UNIQUE_KIN:
        named = before is None or before.group(0).casefold() not in _DETERMINERS
    elif bare in _NAME_TAILS:
        # "pennine motors", "fulton market": the word a name ends on, right after it.
        named = before is not None and joined_before and _bare(before.group(0)) in names
    else:
        named = bare in names
    return word[0].upper() + word[1:] if named else word


def main() -> int:
    return write_list(LIST_FILE, HEADER, build_list(), "everyday words")


if __name__ == "__main__":
    raise SystemExit(main())
