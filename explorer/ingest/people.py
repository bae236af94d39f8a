"""Who is who in one conversation: addressees, vocatives, handles, kinship names and person typing.

* ``addressees``: the speaker each turn speaks to — the only other speaker of a two-party
  conversation, else the nearest other speaker before (or after) the turn.
* ``is_vocative``: a name used to address someone ("Hey Kate!", "Thanks, Kate.", "Kate, did
  you ...", "Good luck, Kate"). A name one speaker uses to address another, never used by the one
  addressed and never for anyone else, is that speaker's name: it is merged into the speaker.
  In chats also with kisses or an emoji after it ("thanks Kate x"), after "no way" or "love
  you", or before the "you" it asks; ``opens_exclaimed``: a name exclaimed at the start of a turn
  ("Kasia!! happy birthday"), a call when the name is a given name.
* ``handle_matches``: a display handle ("kate_w", "tomr", "emi92") and a full name in the text
  ("Kate Williams") that it spells (first name, first + last, initial + last, first + initial,
  or the initials in capitals: "KM 🦁" of Kwame Mensah);
  ``handle_stems`` and ``stem_names``: the name a one-word handle begins with ("emi" of emi_k),
  its short forms and ends ("Rach" of rachel_b, "Shawn" of deshawn_c), in any case;
  ``display_spelled_out``: a two-word display name and the fuller name the text writes it as
  ("E. MacLeod" and "Euan MacLeod", "Jia Hui 🧋" and "Tan Jia Hui").
* kinship names: a capitalised "Dad" or "Mum" is the speaker's parent (FAMILY_OF); when the same
  speaker names that parent ("my dad, Chidi", "Mum. Ngozi Okafor, ..."), the two are one person.
* ``evidence_type``: a name's type from what the conversation says of it. Confidence, highest
  first: a speaker, or a name used to address someone, is a person (certain, 1.0); a kinship or
  role word before it ("my sister Ada", "Dr. Lee"), a person verb after it ("Lena says"), or a
  pet word ("my cat Pimienta", "Noodle the whippet", "a kitten named Miso", "Biscuit's vet",
  typed other) decides with 0.8; name suffixes and cues 0.7: the name's own words (Street →
  place, Labs → organisation, Marathon → event, "Project X"; a lone word such as "Harbour"
  votes nothing by itself), the noun after it ("the X pilot" or "the X project" → project, "the
  X app" → product, "the X hotel" or "the X trip" → place, "the X company" → organisation), the
  words before it ("stayed at X", "dinner at X", "my flatmate from X" → place; "a job at X" →
  organisation; "someone called X" → person, "a café called X" → place), and a pet's care
  ("walking X", "fed X"), which any person evidence outweighs. A single word or a two- or
  three-word run of capitalised words with no evidence at all is a person by default (0.5: in
  conversations most such names are people) unless it is a known town (``places``), a name
  opening on "The" or "A" with none is "other", an acronym or an ampersand name ("Fig & Olive")
  an organisation; ``typed`` says whether the type is such a guess, so another conversation's
  evidence can replace it (``evidence.combine``). Languages, a language with a variety or
  level ("European Portuguese", "B2 Italian") and job-title acronyms are not things anyone
  knows about and become topics.

Imports the standard library and the ingest word lists.
"""

from __future__ import annotations

import re
import unicodedata
from collections import Counter
from collections.abc import Sequence

from explorer.ingest.given_names import is_census_name, is_common_surname, is_world_given_name
from explorer.ingest.ids import fold_letters
from explorer.ingest.lexicon import (
    COMMON_VERBS,
    ENDEARMENTS,
    EVENT_HEADS,
    FOR_HEADS,
    HELD_GAMES,
    KNOWN_PRODUCTS,
    LANGUAGES,
    NEXT_WORDS,
    OF_HEADS,
    PLACE_SUFFIXES,
    PROJECT_HEADS,
)
from explorer.ingest.places import city_named, is_known_place, is_major_place
from explorer.ingest.relation_rules import (
    AS_A_ROLE,
    BASED_FROM,
    CARRIERS,
    EARNING,
    HOME_IS,
    IS_HOME,
    KIN_RELATIONS,
    PETS,
    ROLE_WORDS,
    TAKING_SOMEONE,
    TITLED_KIN,
    UNIQUE_KIN,
    WHEN_MOVED,
    WORKING_IN_THEIRS,
)
from explorer.ingest.word_lists import EVERYDAY_WORDS, ranks

_GREETING = re.compile(
    r"(?:^|[\s,(])(?:hey|hi|hiya|hello|heya|thanks|thank\s+(?:you|u)|thx|ty|bye|morning|good\s+"
    r"morning|evening|night|nite|goodnight|gn|congrats|congratulations|cheers|sorry|dear|yo|"
    r"welcome|ok|okay|oh|aw+|haha|luck|done|birthday|love\s+(?:you|u|ya)|miss\s+(?:you|u|ya)|"
    r"see\s+(?:you|u|ya)|boa\s+sorte|hola|ciao|ah|wow|omg|lol|yes|no|sure|no\s+way|yay|"
    r"proud\s+of\s+(?:you|u)|well\s+done|ily|ugh|"
    # the wishes of a day or a journey: "happy new year Nee", "safe travels Kate" (not "this
    # weekend Kofi, Esi and I")
    r"(?:happy|merry|safe|enjoy(?:\s+(?:the|your))?|have\s+a\s+(?:good|great|nice|lovely|safe)|"
    r"blessed)\s+(?:new\s+year|christmas|xmas|anniversary|diwali|eid|easter|holidays|travels|"
    r"flight|weekend|trip)|"
    # the greetings of other languages English chats keep: "hej Aga", "howzit Thabo"
    r"hej|hei|hallo|salut|ahoj|moin|servus|namaste|kumusta|habari|sawubona|howzit|wagwan|"
    r"kia\s+ora|g['’]?day|dobranoc|gute\s+nacht|boa\s+noite|buenas)"
    # "good luck tomorrow Henni,", "thanks again Kate!", "see you Sunday Ma"
    r"(?:\s+(?:tomorrow|today|tonight|again|too|so\s+much|soon|later|then|"
    r"(?:mon|tues|wednes|thurs|fri|satur|sun)day))?[\s,!.]*$",
    re.IGNORECASE,
)
# A farewell told as what comes next bids a thing goodbye, unless it is a given name: "honours
# finishes in November and then bye bye Braamfontein" (not "ok bye bye Kofi", "then bye Kate").
_FAREWELL_TOLD = re.compile(
    r"\b(?:" + "|".join(sorted(NEXT_WORDS)) + r")\s+(?:bye(?:\s+bye)?|goodbye)[\s,!.]*$",
    re.IGNORECASE,
)
# "my insurance, Médis.", "our landlord, Osei.": the name stands beside what it names.
_OWN_THING_BEFORE = re.compile(
    r"\b(?:my|our)\s+(?:[\w'’-]+\s+){0,2}(?P<noun>[\w'’-]+)\s*,\s*$", re.IGNORECASE
)
# After a name that addresses someone: punctuation, the end, kisses ("x", "xx"), an emoji,
# or the "you" it goes on to ask ("omg Jo you'll love it").
_AFTER_VOCATIVE = re.compile(
    r"^\s*(?:[,!.?…:)]|x+\b|[^\w\s'’\-&]|$)|^\s+(?:you|u|ya)(?:['’]\w+)?\b", re.IGNORECASE
)
# A name that opens a list of people doing something: "Kofi, Esi and I", "Kofi and I".
_ONE_OF_SEVERAL = re.compile(
    r"^\s*(?:,\s*[A-Z][\w'’-]*\s*)*(?:,\s*|\s+)(?:and|&)\s+(?:i|me|[A-Z][\w'’-]*)\b"
)
_OPENING_VOCATIVE = re.compile(r"^\s*,(?!\s*(?:and|or|but|the|my|a)\b)")
_CLOSING_VOCATIVE = re.compile(r"^(?:[\s!.?…)]|x+\b|[^\w\s'’\-&])*$", re.IGNORECASE)
_SPOKEN_TO = re.compile(r"\b(?:you|u|your|ur|ya)\b|[?!]", re.IGNORECASE)
_YOU_BEFORE = re.compile(r"\b(?:you|u|ya)\s*$", re.IGNORECASE)
# "because Barry, I'm doing the cake", "but Kate, you said": a given name after the word that
# opens the sentence, then a clause of "I", "we" or "you"; a town or a word of endearment is
# spoken of or called, not someone's name ("so Lisbon, I'm thinking May", "so honey, I'm").
_CONJUNCTION_OPENING = re.compile(
    r"^\W*(?:because|cos|coz|cuz|but|and|so|well|look|listen|honestly|seriously)\s+$",
    re.IGNORECASE,
)
_CLAUSE_TO_SOMEONE = re.compile(
    r"^\s*,\s*(?:i|i['’](?:m|ve|ll|d)|we|you|u|ur|your|ya)\b", re.IGNORECASE
)
# "hamoudi are u alive", "josh did you eat": a name opening a turn, then a question to "you".
_ASKED_AFTER = re.compile(
    r"^\s+(?:are|r|did|do|don['’]?t|didn['’]?t|have|can|can['’]?t|could|will|won['’]?t|would|"
    r"were)\s+(?:you|u|ya)\b",
    re.IGNORECASE,
)
# "i hate it here Lu", "u say this every month rizz": a name closing a chat turn after a word
# that takes no object (no preposition, verb or determiner before it): an aside, or a time word
# in a turn that speaks to "u".
_ASIDE_BEFORE = re.compile(
    r"\b(?:here|there|tho|though|lol|too|btw|again|now|honestly|anyway|tbh|ngl|today|tonight)"
    r"\s*$",
    re.IGNORECASE,
)
_TIME_BEFORE = re.compile(r"\b(?:week|month|year|time|day|morning|night)\s*$", re.IGNORECASE)
# A name right after "it" (or "got this") closes a sentence said to someone ("you're gonna
# smash it Leo", "you got this Kate"), not one naming or colouring a thing ("we called it
# Biscuit", "you painted it Olive"); "that Kevin", "this Marco" are determiners.
_DONE_IT_BEFORE = re.compile(r"\b(?:it|got\s+this)\s*$", re.IGNORECASE)
_NAMING_BEFORE = re.compile(
    r"\b(?:\w*nam(?:e|es|ed|ing)|call\w*|dub\w*|christen\w*|paint\w*|dye[ds]?|dyeing)\b",
    re.IGNORECASE,
)
_YOU_SAID = re.compile(r"\b(?:you|u|your|ur|ya)\b", re.IGNORECASE)
_HANDLE_STEM = re.compile(r"[^\W\d_]+")
_EXCLAIMED = re.compile(r"^(?:\s*!+|\.(?!\w)|\s*[^\w\s'’,.!?\-&])")

# What a life's news says of someone, though a thing can be said to do it too ("Sarah got the
# job", "Idris moved to Leeds"): no vote for a person, only for a given name being one.
_LIFE_VERBS = frozenset(
    [
        *("moved", "moves", "quit", "joined", "married", "proposed", "graduated", "landed"),
        "went",
        # "Tom works at Arup", "Sarah started at Monzo": a given name opening a sentence
        *("works", "worked", "started", "retired", "died"),
    ]
)
# "got" only with news after it: "Sarah got the job", not "Florence got so crowded".
_GOT_NEWS = re.compile(
    r"^\s+(?:just\s+)?got\s+(?:(?:the|a|her|his)\s+(?:new\s+)?(?:job|offer|role|promotion|"
    r"place|internship)|engaged|married|promoted|hired|fired|pregnant|into|in\s+at)\b"
)

PERSON_VERBS = frozenset(
    [
        "said",
        "says",
        "told",
        "tells",
        "asked",
        "asks",
        "thinks",
        "thought",
        "wants",
        "wanted",
        "loves",
        "loved",
        "hates",
        "hated",
        "likes",
        "liked",
        "texted",
        "called",
        "rang",
        "messaged",
        "emailed",
        "wrote",
        "writes",
        "replied",
        "agreed",
        "laughed",
        "cried",
        "smiled",
        "suggested",
        "recommended",
        "mentioned",
        "reckons",
        "decided",
        "promised",
        "insisted",
        "explained",
        "admitted",
        "complained",
        "refused",
        "mentored",
        "knows",
        "knew",
        "feels",
        "felt",
        # "Aoife lives in Galway now", "Kemi studied in Leeds", "Julie teaches at Dawson"
        "teaches",
        "lives",
        "lived",
        "studies",
        "studied",
    ]
)
# Ties between votes go to the more specific kind; "person" is also the default with no votes.
TYPE_ORDER = ("place", "organization", "event", "project", "product", "other", "person")
# Event words that follow a person's or a band's name as often: "Ada's wedding" is hers, "Tom's
# party" his, "the Coldplay concert" the band's.
_EVENT_WORDS_OF_PEOPLE = frozenset(
    {"wedding", "party", "ceremony", "show", "open", "classic", "games", "cup", "concert"}
)
# A race's distance ending a name ("Forest Park Trail 10K"), as a name key writes it.
_RACE_DISTANCE = re.compile(r"\d{1,3}km?")
EVENT_WORDS = frozenset(
    [
        "fringe",
        "marathon",
        "festival",
        "conference",
        "summit",
        "expo",
        "fair",
        "cup",
        "championship",
        "championships",
        "race",
        "tournament",
        "concert",
        "gala",
        "parade",
        "olympics",
        "games",
        "convention",
        "meetup",
        "hackathon",
        "wedding",
        "ceremony",
        "party",
        "retreat",
        "workshop",
        "exhibition",
        "show",
        "competition",
        "derby",
        "open",
        "classic",
        # "the Spring Fayre", "the Singapore Grand Prix", "Leslieville Flea", "Kanga Fest" (not
        # a fiesta or a rodeo: Ford and Isuzu made them)
        "congress",
        "run",
        "final",
        "finals",
        "biennale",
        "triennale",
        "fayre",
        "prix",
        "flea",
        "fest",
        "carnival",
        "carnaval",
        "mela",
        "regatta",
        "jamboree",
    ]
)
PROJECT_AFTER = frozenset(
    [
        "project",
        "pilot",
        "deployment",
        "deploy",
        "launch",
        "release",
        "rollout",
        "migration",
        "sprint",
        "roadmap",
        "milestone",
        "codebase",
        "repo",
        "prototype",
        "initiative",
        "programme",
        "program",
    ]
)
PRODUCT_AFTER = frozenset(
    [
        "console",
        "app",
        "config",
        "configs",
        "configuration",
        "software",
        "api",
        "library",
        "framework",
        "sdk",
        "plugin",
        "cluster",
        "phone",
        "laptop",
        "device",
        "console",
        "model",
        "update",
        "version",
        "account",
        "subscription",
        "topic",
        "topics",
        "channel",
        "channels",
        "workspace",
        "dashboard",
        "dashboards",
        "alert",
        "alerts",
        "integration",
        "plugins",
        "extension",
        "licence",
        "license",
        "licences",
        "licenses",
        "bill",
        "pricing",
        "page",
        "pages",
    ]
)
ROLE_ACRONYMS = frozenset(
    [
        "mc",
        "dj",
        "cto",
        "ceo",
        "cfo",
        "coo",
        "cmo",
        "cio",
        "vp",
        "hr",
        "it",
        "ui",
        "ux",
        "ai",
        "ml",
        "ta",
        "pa",
        "pm",
        "phd",
        "mba",
        "msc",
        "bsc",
        "ba",
        "ma",
        "gp",
        "eta",
        "etas",
        "ok",
        "tv",
        "dj",
        "diy",
        "faq",
        "fyi",
        "asap",
        "rsvp",
        "lol",
        "omg",
        "btw",
        "tbh",
        "imo",
        "idk",
        # everyday things known by their initials, not bodies: "update your CV", "sounds like ITB"
        "cv",
        "gps",
        "isa",
        "itb",
        "acl",
        "ecg",
        "mri",
        "atm",
        "pdf",
        "usb",
        "sim",
        "bmi",
        "ivf",
        # and papers and gadgets: "send me the ID photos", "the OTP never came", "the AC died"
        "id",
        "ids",
        "pin",
        "otp",
        "sms",
        "pc",
        "ac",
        "dm",
        "cctv",
        "suv",
        "bbq",
    ]
)
#: The role initials written before a name as a title ("CEO Emeka"), of the acronyms above.
ROLE_TITLES = ROLE_ACRONYMS & {"ceo", "cto", "cfo", "coo", "cmo", "vp", "dj", "mc"}
_ARTICLE = frozenset({"the", "a", "an"})


def _words(text: str) -> frozenset[str]:
    return frozenset(text.split())


def addressees(speakers: Sequence[str]) -> list[str | None]:
    """For each turn (by its speaker's key), the key of the speaker it is addressed to."""
    distinct = list(dict.fromkeys(speakers))
    result: list[str | None] = []
    for index, speaker in enumerate(speakers):
        others = [other for other in distinct if other != speaker]
        if len(others) == 1:
            result.append(others[0])
            continue
        before = [s for s in reversed(speakers[:index]) if s != speaker]
        after = [s for s in speakers[index + 1 :] if s != speaker]
        result.append(before[0] if before else after[0] if after else None)
    return result


_TEASED = re.compile(r"\b(?:ok|okay|alright|sure|yes|yeah|calm\s+down)\W*$", re.IGNORECASE)
_ELDERS = frozenset({"grandpa", "grandma", "granny", "gramps", "grandad", "granddad", "grandpops"})


def teases(before: str, word: str) -> bool:
    """Whether ``word`` after ``before`` (its sentence so far) teases a friend as old ("ok
    grandpa 😂"): no call to a grandparent, and no grandparent."""
    return word.casefold() in _ELDERS and _TEASED.search(before) is not None


_FRIENDLY_NOUNS = frozenset({"friend", "dear", "darling", "bro", "sis", "guy", "girl", "boy"})


def _calls_someone(noun: str) -> bool:
    """Whether "my <noun>," calls the one spoken to ("my love, Bia.", "my sister, Adaeze.")."""
    return noun in ENDEARMENTS or noun in _FRIENDLY_NOUNS or kin_word(noun) is not None


_NAME_GIVEN = re.compile(r"\bname\s*[,:]\s*$", re.IGNORECASE)
_WHICH_BEFORE = re.compile(r"\bwhich\s+(?:[\w'’-]+\s+)?[\w'’-]+\s*,\s*$", re.IGNORECASE)
_ECHOED_BEFORE = re.compile(r"\W*(?:oh|ohh|ah|wait|wow)\W*$", re.IGNORECASE)


def is_vocative(text: str, start: int, end: int, sentence: tuple[int, int]) -> bool:
    """Whether the name at ``text[start:end]`` addresses someone rather than speaking of them."""
    before = text[sentence[0] : start]
    after = text[end : sentence[1]]
    if teases(before, text[start:end]) or _NAME_GIVEN.search(before):
        return False  # "ok grandpa 😂"; "booked it under Dad's name, Imran": the name, no call
    if _WHICH_BEFORE.search(before) or (_ECHOED_BEFORE.match(before) and after.startswith("?")):
        return False  # "Which cousin, Mick?", "Oh, Ellie? Good on her.": asked about, not called
    if _GREETING.search(before) and _AFTER_VOCATIVE.match(after):
        if _FAREWELL_TOLD.search(before) and not is_census_name(text[start:end].split()[0]):
            return False  # "and then bye bye Braamfontein 😭": leaving a place
        return not _ONE_OF_SEVERAL.match(after)  # "... Kofi, Esi and I are going": a list
    if not before.strip() and _OPENING_VOCATIVE.match(after):
        # "Kate, did you ..." addresses Kate; "Headingley, 5 min from the park" answers.
        return bool(_SPOKEN_TO.search(after))
    if _YOU_BEFORE.search(before) and _CLOSING_VOCATIVE.match(after):
        return True  # "love that for u Mel 💕", "proud of you Kate!"
    first = text[start:end].split()[0]
    if (
        _CONJUNCTION_OPENING.match(before)
        and _CLAUSE_TO_SOMEONE.match(after)
        and is_census_name(first)
        and not is_known_place(first)
        and first.casefold() not in ENDEARMENTS
    ):
        return True
    if not before.strip() and _ASKED_AFTER.match(after):
        return True
    if _CLOSING_VOCATIVE.match(after) and not after.strip(" !"):  # closing the turn itself
        if _ASIDE_BEFORE.search(before):
            return True
        if _TIME_BEFORE.search(before) and _YOU_SAID.search(before):
            return True
    if (
        _DONE_IT_BEFORE.search(before)
        and _YOU_SAID.search(before)
        and not _NAMING_BEFORE.search(before)
        and _CLOSING_VOCATIVE.match(after)
        and "?" not in after
        and is_world_given_name(first)
    ):
        return True  # "you're gonna smash it Leonardo.", "you got this Kate!"
    if _NEW_KIND_BEFORE.search(before) and not is_census_name(text[start:end].split()[0]):
        return False  # "recommended this hotpot place in Ximending, Mala Yuan": its name
    own = _OWN_THING_BEFORE.search(before)
    if own and not _calls_someone(own["noun"].casefold()):
        return False  # "from my insurance, Médis.": the name of what was said ("my love, Bia.")
    return before.rstrip().endswith(",") and bool(_CLOSING_VOCATIVE.match(after))


def opens_exclaimed(text: str, start: int, end: int) -> bool:
    """Whether the name opens the turn and is exclaimed there ("Kasia!! happy birthday",
    "Folake. Ronke is due", "EMI 😭"): a call to someone, when the name is a person's."""
    return not text[:start].strip() and bool(_EXCLAIMED.match(text[end:]))


MIN_HANDLE_PREFIX = 3


_SYLLABLES_JOINED = re.compile(r"[^\W\d_][^\W\d_A-Z]*-[^\W\d_A-Z]+")


def handle_matches(handle: str, full_name: str) -> bool:
    """Whether a display handle spells a multi-word name ("kate_w" and "Kate Williams")."""
    letters = fold_letters(handle)
    words = [fold_letters(word) for word in full_name.split()]
    words = [word for word in words if word]
    if len(words) < 2:
        return False
    written = "".join(char for char in handle if char.isalpha())
    if written.isupper() and 2 <= len(written) <= 3:
        # "KM 🦁" of Kwame Mensah: the name's initials, in capitals
        return letters == "".join(word[0] for word in words)
    if len(letters) < 3:
        return False
    first, last = words[0], words[-1]
    forms = {
        first,
        first + last,
        first[0] + last,
        first + last[0],
        last + first,
        first + "." + last,
    }
    if len(words) == 2 and _SYLLABLES_JOINED.fullmatch(full_name.split()[-1]):
        # "haneul_" of Kim Ha-neul: a given name of two syllables written after the surname
        # (a double-barrelled surname capitalises both halves: "Smith-Jones")
        forms.add(last)
    if letters in forms:
        return True
    if not letters.endswith(last) or len(letters) == len(last):
        return False
    before = letters[: -len(last)]
    # "decwalsh" of Declan Walsh: the first name's first letters (three or more), the surname;
    # "rj_mehta" of Rohan Mehta: initials (the first name's, and one more), the surname
    shortened = len(before) >= MIN_HANDLE_PREFIX and first.startswith(before)
    return shortened or (len(before) == 2 and before[0] == first[0])


def display_spelled_out(display: str, full_name: str) -> bool:
    """Whether a display name of two words spells a fuller name: one word given by its
    initial ("E. MacLeod" and "Thabo M" are "Euan MacLeod" and "Thabo Mokoena"), or the name
    short of one word ("Jia Hui 🧋" is "Tan Jia Hui", "Ana Paula" is "Ana Paula Reis")."""
    shown = [letters for word in display.split() if (letters := fold_letters(word))]
    words = [letters for word in full_name.split() if (letters := fold_letters(word))]
    if len(shown) != 2 or not 2 <= len(words) <= 3:
        return False
    if len(words) == 3:
        # "F. Oyelaran" of Folasade Abosede Oyelaran: the first name's initial, the surname
        initialled = len(shown[0]) == 1 and words[0].startswith(shown[0]) and shown[1] == words[2]
        return initialled or shown in (words[1:], words[:2])
    (given, family), (first, last) = shown, words
    if len(given) == 1 and len(family) > 1:
        return len(first) > 1 and first.startswith(given) and last == family
    if len(family) == 1 and len(given) > 1:
        return len(last) > 1 and first == given and last.startswith(family)
    return False


def handle_stems(speakers: dict[str, str]) -> dict[str, str]:
    """The name each display handle of ``speakers`` (people, never agents) begins with, to
    that speaker's key: "emi" of emi_k, "kasia" of kasia.w, "sidd" of sidd🏏 (a handle is one
    word, emoji aside; two letters or more, and a two-letter stem ("mo" of mo.haddad) names only
    itself; a stem two speakers share is nobody's)."""
    stems: dict[str, str] = {}
    shared: set[str] = set()
    for key, written in speakers.items():
        words = [word for word in written.split() if any(char.isalpha() for char in word)]
        if len(words) != 1:
            continue  # "Tomás Ruiz" is a name, not a handle: nicknames link to it
        stem = _HANDLE_STEM.match(unicodedata.normalize("NFKC", words[0]))
        letters = fold_letters(stem.group(0)) if stem else ""
        if len(letters) < 2:
            continue
        if letters in stems:
            shared.add(letters)
        stems[letters] = key
    return {stem: key for stem, key in stems.items() if stem not in shared}


def stem_names(name: str, stem: str) -> bool:
    """Whether a name is what a handle's stem calls someone: the stem itself, a short form of
    it ("Rach" of rachel_b, "Sid" of sidd; at most three letters shorter), its end ("Shawn" of
    deshawn_c, four letters or more), or a name it ends ("Babatunde" of tunde.a); a name of two
    or three words by its first."""
    words = name.split()
    if len(words) > 1:  # "Babatunde Adeyemi" of tunde.a: the first name must fit the stem
        return len(words) <= 3 and (
            stem_names(words[0], stem) or _shortens(fold_letters(words[0]), stem)
        )
    letters = fold_letters(name)
    if letters == stem and len(letters) >= 2:
        return True
    if len(letters) < 3:
        return False
    if stem.startswith(letters) and len(stem) - len(letters) <= 3:
        return True
    if len(letters) >= 4 and stem.endswith(letters):
        return True
    if len(stem) >= 4 and letters.endswith(stem):  # "Babatunde" of tunde.a
        return True
    # "Damilola" of dami💫 (not "Grandad" of gran_moira: two words of kin)
    return len(stem) >= 4 and letters.startswith(stem) and kin_word(letters) is None


def _shortens(given: str, stem: str) -> bool:
    """Whether a handle's stem is a pet form of a full name's given name, kept to its first
    letters and ended otherwise: "hamo" of Hamish Oakley, "meenu" of Meenakshi Sundaram,
    "thandz" of Thandeka Mkhize (four letters or more, all but the last two the given name's)."""
    shared = next(
        (at for at, (a, b) in enumerate(zip(given, stem, strict=False)) if a != b),
        min(len(given), len(stem)),
    )
    return len(stem) >= 4 and shared >= 3 and shared >= len(stem) - 2 and len(given) > shared


def kin_word(key: str) -> str | None:
    """The kinship word a capitalised name is ("Dad", "Grandma Okafor" → "grandma")."""
    first = key.split()[0]
    return first if first in UNIQUE_KIN or (first in KIN_RELATIONS and " " not in key) else None


_WHOSE = re.compile(r"\w['’]s\s")


def says_whose(name: str) -> bool:
    """Whether a name says whose it is ("Meera's wedding", "Cillian and Orla's wedding", "St.
    Aldhelm's Hospital"): nobody's name, and no longer form of the names it holds."""
    return _WHOSE.search(name) is not None


AGENT_SPEAKERS = frozenset({"assistant", "ai", "bot", "chatgpt", "gpt", "system", "model"})


def speaker_type(speaker: str) -> str:
    """ "agent" for an assistant-like speaker name, else "person"."""
    return "agent" if speaker.casefold() in AGENT_SPEAKERS else "person"


def evidence_type(key: str, votes: Counter[str], cues: Counter[str]) -> str:
    """A name's type from its votes (``name_reading.vote``) and this module's cues."""
    return typed(key, votes, cues)[0]


_OCCASION_JOINS = frozenset({"of", "de", "du", "des", "del", "della", "la"})


def _game_studio(words: Sequence[str]) -> bool:
    """ "Starwave Games", "Wise Owl Games": a name ending in "Games" is a studio that makes them
    unless its word before says the games are held."""
    return words[-1] == "games" and words[-2] not in HELD_GAMES


def typed(key: str, votes: Counter[str], cues: Counter[str]) -> tuple[str, bool]:
    """A name's type and whether evidence backs it (``False``: the fallback for a bare name)."""
    words = key.split()
    single = len(words) == 1
    if key in LANGUAGES or (single and key in ROLE_ACRONYMS) or _language_variant(words):
        return "topic", True
    if cues["addressed"] or cues["speaker"]:
        return "person", True
    kin = kin_word(key)
    # "PAL" in capitals is an airline, not a pal; "AUNTY", "MUM" and "GRANDA" are still family
    initials = cues["acronym"] and kin is not None and len(kin) <= 3 and kin not in UNIQUE_KIN
    if (kin is not None and not initials) or (not single and words[0] in TITLED_KIN):
        # "Dad", "Grandma Okafor", "Auntie Akua" (near her shop or not)
        return "person", True
    if cues["pet"]:
        return "other", True
    if not single and _game_studio(words):
        return "organization", True
    if len(words) > 2 and words[0] in EVENT_HEADS and words[1] in _OCCASION_JOINS:
        return "event", True  # "Festival du Voyageur", "Fête de la Musique", "Feria de Abril"
    if (
        words[-1] in EVENT_WORDS
        or _RACE_DISTANCE.fullmatch(words[-1])
        or (words[-1].endswith("fest") and len(words[-1]) > 6)
    ) and not single:
        return "event", True  # "Berlin Marathon", "Forest Park Trail 10K", "Denver PrideFest"
    if words[0] in PROJECT_HEADS and not single:
        return "project", True
    if words[0] in FOR_HEADS and "for" in words[1:-1]:
        return "organization", True  # "Transport for Wales", "Institute for Fiscal Studies"
    if words[0] in OF_HEADS and "of" in words[1:-1]:
        return "organization", True  # "University of Galway", "University Hospital of Wales"
    tally = Counter(votes)
    tally["person"] += 2 * cues["kin"] + cues["person_verb"] + 2 * cues["called_person"]
    tally["project"] += 2 * cues["project"]
    tally["product"] += 2 * cues["product"]
    if not (single and is_census_name(key)):
        tally["product"] += 2 * cues["tool"]
    if not is_census_name(words[0]) and not is_known_place(key):
        tally["product"] += cues["on"]  # "sending it on Monzo", "are they on Teams too?"
    if cues["brand_cased"]:
        tally["product"] += 2 * cues["platform_after_object"]
    tally["other"] += 2 * cues["work_of_art"] + cues["pet_care"]
    # a quoted title is no place for the "'s" inside it ("The Handmaid's Tale")
    tally["place"] = max(0, tally["place"] - 2 * cues["quoted"])
    if not (single and is_census_name(key)):
        # an animal's emoji in a sentence the name opens, weak: "Tom is walking the dog 🐶"
        tally["other"] += cues["pet_emoji"]
    tally["organization"] += 2 * cues["organization"]
    if (
        not is_census_name(words[0])
        and not (single and ranks(EVERYDAY_WORDS).get(key, _COMMON) < _COMMON)
        and not is_common_surname(words[-1].removesuffix("s"))  # "the Murphys are": a family
    ):
        tally["organization"] += 2 * cues["group"]  # ("Ill have both tickets": I'll)
    tally["place"] += 2 * cues["place"]
    if not (single and is_census_name(key)):
        tally["place"] += 2 * cues["travel"] + cues["trip_planned"]
    tally["event"] += 2 * cues["event"]
    if not is_census_name(words[0]):
        # tickets for a name are for an event, unless it opens on a given name: a performer's
        # ("tickets for Larry Dean", "Harry Styles"; "Green Man" is left to its other cues)
        tally["event"] += 2 * cues["tickets"]
    tally["place" if is_known_place(key) else "organization"] += cues["at"]
    # "the TTC", "the Koramangala flat": one word after "the" that is no given name names no one
    # (a name of several words may start with someone's: measured, it cost relations)
    nobody = cues["after_the"] > 0 and single and not is_census_name(key)
    if nobody:
        tally["person"] = max(0, tally["person"] - 2 * cues["after_the"])
    if single and is_known_place(key) and not is_census_name(key) and key not in KNOWN_PRODUCTS:
        # "Hyderabad update:", "Porter via Ottawa": a town's name is no product for a word
        # around it (a brand is known as one: ``KNOWN_PRODUCTS``)
        tally["product"] = 0
    if is_major_place(key) and not (single and is_census_name(key)):
        # A country's or a big city's name, not a given name too, holds against one cue for a
        # person: "worse than Lagos and I survived" (a tie goes to the place). "Tyler and I" is
        # his, and so is "Bello and I" (a town of half a million, and a name).
        tally["place"] += 1
    if tally:
        best = sorted(tally.items(), key=lambda item: (-item[1], _rank(item[0])))[0]
        if cues["employer"] and (
            best[0] == "product" or (best[0] == "place" and not is_known_place(key))
        ):
            # "a new job at Shopify", "got the job at St Columba's": the employer, not its
            # product or a spot on a map
            return "organization", True
        if (
            best[0] == "place"
            and not single
            and (words[-1] in _BODY_LAST_WORDS or (words[-1] == "bank" and words[-2] in _BANKS))
            and tally["organization"] > 0
        ):
            # "moving to Beaumont Hospital": a hospital or a university one goes to is still the
            # body (a café, a gym or a pub one goes to is a place)
            return "organization", True
        if best[1] > 0:
            return best[0], True
    if words[0] in _ARTICLE or any(word in _ARTICLE or word == "of" for word in words):
        return "other", False
    if cues["acronym"] or "&" in words or cues["brand_cased"]:
        # "NHS", "Kettle & Crumb", "NoBroker": a business, not a person
        return "organization", False
    if is_known_place(key) or _other_name_of_a_known_city(key):
        # "Mummy wants Lagos", "dinner tips for Nürnberg?": a town's name, unless something
        # says more
        return "place", False
    # "by the Hauptmarkt": somewhere, as far as anything says; "the Smiths", "the Beatles" and
    # "the Lakers" are a family, a band and a team
    plural = words[-1].endswith("s")
    if (
        cues["determined"]
        and not plural
        and not (single and (is_census_name(key) or key in _INSTITUTIONS))
    ):
        return "place", False
    if single and key in _INSTITUTIONS:
        return "organization", False  # "Ok the Council is great": the one everyone means
    if not single and is_known_place(words[0]) and not is_census_name(words[0]):
        # "Brisbane Lions", "Leeds United": named after a town ("Sofia Reyes" is a person).
        return "organization", False
    if single and any(char.isdigit() for char in key):
        return "product", False  # "M25", "PS5", "A380": a code or a model, nobody's name
    if nobody:
        return ("organization" if plural or cues["acronym"] else "place"), False
    return ("person" if len(words) <= 3 else "other"), False


def _other_name_of_a_known_city(key: str) -> bool:
    """Whether GeoNames gives ``key`` as another name of a city known by its own ("Nürnberg",
    "Marrakech"); a town too small to be known lends its name to no one ("Njeri" is a given
    name as often as another spelling of Nyeri)."""
    city = city_named(key)
    return city is not None and is_known_place(city) and not is_census_name(key.split()[0])


def _language_variant(words: list[str]) -> bool:
    """A language with a variety or a level before it ("European Portuguese", "C1 Spanish")."""
    if len(words) < 2 or words[-1] not in LANGUAGES:
        return False
    return all(word in LANGUAGES or any(char.isdigit() for char in word) for word in words[:-1])


def _rank(kind: str) -> int:
    return TYPE_ORDER.index(kind) if kind in TYPE_ORDER else len(TYPE_ORDER)


# Someone said with a person before it: "you and Tyler", "he and Brandon".
_WITH_SOMEONE_BEFORE = re.compile(r"\b(?:he|she|you|u|i|me|him|her|we|us|they|them)\s+and\s*$")
# Someone's job is there: "a new job at Shopify", "works at Netflix" (not "a team for Slack").
_EMPLOYED_AT = re.compile(
    r"\b(?:(?:job|jobs|role|position|internship|work|works|working|worked|employed|"
    # "a backend engineer at Shopify"
    + ROLE_WORDS
    + r")\s+at\s*|"
    # "je travaille chez Ubisoft", "trabalho no Itaú", "trabajo en Bimbo"
    + WORKING_IN_THEIRS
    + r"\s*)$"
)
_AT_BEFORE = re.compile(r"\bat$")
_WORK_BEFORE_AT = re.compile(
    r"\b(?:job|jobs|work|works|working|worked|role|position|interview|internship|team|office|"
    r"employed|staff|shift|" + ROLE_WORDS + r")\s+(?:at|for)\s*$"
    # "with" after a role or work word is mostly a person ("physio with Rosa", "working with
    # Owen"); only a post is held with an organisation.
    r"|\b(?:job|jobs|role|position|internship|contract)\s+with\s*$"
    r"|\b(?:joined|signed\s+with|hired\s+by)\s*$"
    r"|\b" + EARNING + r"\s+(?:\S+\s+){0,3}?(?:at|by)\s*$"
    # Starting a job, founding or owning a share of one: "start at X", "founder of X",
    # "an investor in X".
    r"|\b(?:start|starts|started|starting)\s+at\s*$"
    r"|\b(?:founder|founders|co-?founder|co-?founders|ceo|cto|cfo|coo)\s+(?:of|at)\s*$"
    r"|\b(?:investor|investors|invested|shares|stake)\s+in\s*$"
    # "handed my notice in at Skyscanner"
    r"|\bnotice\s+(?:in\s+)?at\s*$"
)
_PROJECT_BEFORE = re.compile(r"\b(?:lead|leading|working|work|works|worked)\s+on\s*$")
# "moved to Leeds", "I moved in August to Podgórze" (a month or "last year" before the "to")
_MOVE_TO = re.compile(
    r"\b(?:move|moves|moved|moving|relocate|relocated|relocating)\s+"
    r"(?:(?:up|down|over|back|out|away)\s+)?(?:" + WHEN_MOVED + r")?(?:to|into)\s*$"
)
# "flying to Oslo", "the ferry to Iloilo", "I'm taking you to the Markthal": where one travels.
_TRAVEL_TO = re.compile(
    r"\b(?:fly|flies|flying|flew|drive|driving|drove|heading|head|travell?ing|trip|"
    + CARRIERS
    + "|"
    + TAKING_SOMEONE
    + r")\s+(?:back\s+)?"
    r"(?:(?:up|down|over|out|home|off)\s+)?to(?:\s+the)?$"
)
# A trip planned: "can't wait for Siargao", "we booked Palawan", "we're doing Boracay for my
# birthday", "taking my mom to Paraty" (a given name is still a person's: "booked Ada").
_TRIP_PLANNED = re.compile(
    r"\b(?:can['’]?t\s+wait\s+for|booked|(?:we['’]?re|we\s+are|i['’]?m|i\s+am)\s+doing|"
    r"taking\s+(?:my|our)\s+[\w-]+\s+to)$"
)
_ADMITTED_TO = re.compile(
    r"\b(?:got|get|gets|getting)\s+(?:accepted\s+|admitted\s+)?into$|"
    r"\b(?:accepted|admitted)\s+(?:to|into|at)$"
)
# "we're going through Heathrow", "flying via Doha", "a layover in Dubai": a way stop.
_WAY_STOP = re.compile(
    r"\b(?:going|go|went|flying|fly|flew|travell?ing|driving|drove|passing|passed)\s+"
    r"(?:back\s+)?(?:through|via)\s*$|\b(?:layover|stopover)\s+in\s*$"
)
_BOUGHT_FROM = re.compile(r"\b(?:bought|buy|buying|ordered|order)\s+(?:[\w'’-]+\s+){0,4}?from\s*$")
_FROM_PLACE = re.compile(
    r"\b(?:is|am|are|'s|’s|was|originally|comes?|came|grew\s+up)\s+(?:from|in)\s*$"
    r"|\b" + BASED_FROM + r"\s*$"
    # "my flatmate from Leeds": where people are from is a place (an employer has a team).
    r"|\b(?:friends?|flatmates?|roommates?|housemates?|classmates?|mates?|family|folks|"
    r"cousins?|neighbou?rs?|relatives)\s+from\s*$"
)
# "lessons over Zoom", "ask via Slack": what one talks through is a product.
_MEDIUM_BEFORE = re.compile(r"\b(?:over|via)\s*$")
# "we use Airflow and Dagster", "switched to Linear": a tool one uses, moves to or installs is a
# product (a person is met, not used), also the second of two named together.
_TOOL_VERB = (
    r"\b(?i:use|uses|using|switch(?:ed|ing)?\s+(?:over\s+)?to|migrat(?:e|ed|ing)\s+to|"
    r"install(?:ed|ing)?|deploy(?:ed|ing)?|download(?:ed|ing)?|"
    r"subscrib(?:e|es|ed|ing)\s+to|cancel(?:s|led|ed|ling|ing)?|pay(?:ing)?\s+for|paid\s+for)"
)
_TOOL_BEFORE = re.compile(_TOOL_VERB + r"$")
# The second of a list ("use Airflow and Dagster at work"), when the list ends there: in "we
# switched to Linear and Priya hates it" Priya begins a clause of her own.
_TOOL_LISTED = re.compile(_TOOL_VERB + r"\s+[A-Z][\w.+-]*\s*(?:,|(?i:and|or)|&)$")
# A word that makes a name the subject of a clause of its own: a verb ("Priya hates it").
_CLAUSE_GOES_ON = re.compile(r"^(?:[a-z]+(?:s|ed)|is|was|has|had|can|will|would|just|never)$")
# "sent it on Monzo", "is it on Panopto?", "bought a parka on Shopee": what one messages, pays,
# watches or buys something on is a platform, a product ("a boat trip on Derwentwater", a room
# "on Rua de São Miguel" or "counting on Priya" say nothing of the kind).
_PLATFORM_BEFORE = re.compile(
    r"\b(?:(?:messages?|messaged|messaging|text|texted|texting|dm|dms|dmed|dm'd|call|called|"
    r"send|sending|sent|pay|paid|paying|post|posted|posting|watch|watched|watching|stream|"
    r"streamed|streaming|listen|listened|listening|bought|buy|buying|order|ordered|ordering|"
    r"sell|selling|sold|chat|chatting)(?:\s+(?:you|me|him|her|us|them|it|back))?|"
    # "is it on Panopto?", "it's on Netflix" (but "blame it on Tunde")
    r"(?:is|was|it['’]?s)(?:\s+(?:it|that|this))?|available)\s+on$"
)
# What one looks, laughs or is cross at is as often someone as somewhere (``context_cues``).
_AT_SOMEONE = re.compile(
    r"\b(?:look(?:s|ed|ing)?|star(?:e|es|ed|ing)|laugh(?:s|ed|ing)?|smil(?:e|es|ed|ing)|"
    r"wav(?:e|es|ed|ing)|glanc(?:e|es|ed|ing)|shout(?:s|ed|ing)?|yell(?:s|ed|ing)?|"
    r"mad|angry|annoyed|upset|cross|furious)\s+at$"
)
# "on" alone before a name: in chats mostly an app or a service ("the money on Monzo", "are
# they on Teams too?", "you're on Flipkart Minutes now?"); a vote weaker than the rules above,
# for a name that opens on no given name and is no town (``typed``), and none after words that
# put a person, a subject or a place after "on": "count on Ines", "keep an eye on Bongani", "a
# documentary on Mandela", "a boat trip on Derwentwater".
_BARE_ON = re.compile(r"(?:^|\s)on$")
_NOT_A_PLATFORM_BEFORE_ON = re.compile(
    r"\b(?:"
    # verbs and phrases that take a person: "blame it on", "wait on", "gave up on"
    r"blam(?:e|es|ed|ing)(?:\s+(?:it|that|this|them))?|count(?:s|ed|ing)?|rel(?:y|ies|ied|ying)|"
    r"depend(?:s|ed|ing)?|crush(?:es|ed|ing)?|check(?:s|ed|ing)?(?:\s+in)?|cheat(?:s|ed|ing)?|"
    r"spy|spies|spied|spying|pick(?:s|ed|ing)?|wait(?:s|ed|ing)?|dot(?:e|es|ed|ing)|"
    r"tell(?:s|ing)?|told|lean(?:s|ed|ing)?|bet(?:s|ting)?|congrats|congratulations|"
    r"go|goes|going|went|come|comes|coming|came|hang(?:s|ing)?|hung|keep(?:s|ing)?|kept|"
    r"carr(?:y|ies|ied|ying)|focus(?:es|ed|ing)?|up|out|in|eyes?|easy|keen|sweet|hard|soft|"
    # a subject written about: "an article on Maathai"
    r"article|documentary|doc|book|thread|piece|film|podcast|video|talk|lecture|report|essay|"
    r"paper|chapter|series|"
    # where one goes, lives or stays: "a boat trip on Derwentwater", "living on Arran"
    r"trip|cruise|walk|hike|swim|sail|holiday|room|flat|house|apartment|place|cafe|café|bar|"
    r"pub|restaurant|office|shop|liv(?:e|es|ed|ing)|stay(?:s|ed|ing)?|stood|standing|all"
    r")\s+on$"
)
# "found the flat together on NoBroker", "will book on MakeMyTrip": where something was bought,
# booked or found makes a platform of a name cased as a brand only ("the boat trip Chloe booked
# on Derwentwater", "found her balcony on Rua de São Miguel" are places).
_PLATFORM_AFTER_OBJECT = re.compile(
    r"\b(?:bought|buy|buying|order|ordered|ordering|book|booked|booking|found|find|finding|"
    r"sold|sell|selling|listed|posted)(?:\s+[\w'’-]+){0,5}\s+on$"
)
# "the Markthal", "by the Hauptmarkt, best ...": a name one puts "the" before is no one's first
# name, and somewhere when nothing else says (``typed``); "the Kestrel streaming work" says
# nothing of Kestrel, as a word after it is the noun, and "THE TALK GOT ACCEPTED" is shouting.
_DETERMINED = re.compile(r"(?:^|\s)the$")
_SITE_AFTER = re.compile(
    r"^\s+(?:office|campus|flat|apartment|area|branch|site|neighbou?rhood|market|"
    rf"{'|'.join(sorted(PLACE_SUFFIXES))})(?![\w-])"
)
_ENDS_A_PHRASE = re.compile(
    r"^(?:\s*[,.!?;:)]|\s*$|\s+(?:is|was|has|had|and|or|in|on|at|to|for)(?![\w-]))"
)
# "we stayed at Casa Azul", "book club at Kettle & Crumb": a place one stays or eats, drinks or
# meets for leisure at is a venue.
_VENUE_BEFORE = re.compile(
    r"\b(?:stay|stays|stayed|staying|check(?:ed)?\s+in|checked\s+into|"
    r"booked\s+(?:(?:us|me|them|him|her)\s+)?into|lunch|"
    r"dinner|breakfast|brunch|coffee|drinks|pints?|club|gig|picnic|climbing|swimming)\s+"
    r"(?:at|in|into)\s*$"
)
# The noun after a name says what it names ("the Casa Azul hotel", "the Harbour project").
PLACE_AFTER = _words(
    "hotel hostel inn motel resort b&b guesthouse café cafe restaurant pub bar bistro campsite "
    "cottage villa depot station airport terminal warehouse area flat apartment"
)
ORGANISATION_AFTER = _words(
    "company firm startup agency charity band colleagues coworkers co-workers customers clients "
    "founders investors payroll alum alumni alumnus alumna grad graduate"
)
# "the Lisbon trip", "a Keswick hen weekend": a name that modifies a trip is where it goes.
_TRIP_AFTER = re.compile(
    r"^\s+(?:(?:hen|stag|ski|road|day|city|beach|camping|family|work|summer|winter)\s+)?"
    r"(?:trip|trips|holiday|holidays|weekend|getaway|vacation)\b"
)
# "someone called Rosa", "a whippet named Biscuit", "a café called Kettle": the noun says.
# "a firm in leeds called Brightspark": a place between the noun and "called" is passed over.
_CALLED = re.compile(
    r"\b([\w-]+)(?:\s+(?:in|from|near|on|at)\s+[\w'’-]+)?\s+(?:called|named)\s*[\"“]?$"
)
_CALLED_PERSON = re.compile(
    r"(?:someone|somebody|guy|girl|boy|man|woman|lady|bloke|chap|kid|friend|person|doctor|"
    + ROLE_WORDS
    + r")$"
)
CALLED_KINDS = {
    **dict.fromkeys(
        _words(
            "place town village city cafe café bar pub restaurant hotel spot island street road "
            "beach park area neighbourhood neighborhood hostel inn venue"
        ),
        "place",
    ),
    **dict.fromkeys(
        _words("company firm startup agency shop store charity band clinic practice school"),
        "organization",
    ),
    **dict.fromkeys(_words("app tool game website site"), "product"),
    **dict.fromkeys(_words("book novel film movie show series podcast album song"), "work_of_art"),
    "project": "project",
}
# What follows a group's name: a plural verb ("Lankum are playing"), or its gig.
_RACE_AFTER = re.compile(r"\s+(?:half|ultra|full)[\s-]+marathon\b|\s+\d{1,3}k\b")
_TICKETS_FOR = re.compile(
    r"(?<!plane\s)(?<!train\s)(?<!bus\s)(?<!coach\s)(?<!ferry\s)(?<!flight\s)(?<!return\s)"
    r"\btickets?\s+for(?:\s+the)?$"
)
_WATCH_ASKED = re.compile(r"\s*(?:\?|yet\b|again\b)")
_GROUP_VERBS = frozenset({"are", "were", "have", "'ve", "’ve"})
_COMMON = 10_000  # a word this common before "are" is a word ("Ill have", "Shell were")
_JOINED_BEFORE = re.compile(r"(?:\band|&|,)\s*$")  # "Ada and Kwame have": two people
_GIG_WORDS = frozenset({"gig", "gigs", "concert", "tour"})
# "a tracking product called Kestrel Live" (a "product designer" apposed is someone's job).
_CALLED_NOUNS = {**CALLED_KINDS, "product": "product"}
# A kind of place or thing brought up and placed just before a comma is what the name after it
# names, not someone called: "this hotpot place in Ximending, Mala Yuan" ("see you at the
# cafe, Kate", "what a game, Sarah!" and "a bar near me, Sarah" call: ``is_vocative``).
_NEW_KIND_BEFORE = re.compile(
    r"\b(?:a|an|this)\s+(?:[\w'’-]+\s+){0,2}(?:"
    + "|".join(sorted(CALLED_KINDS, key=len, reverse=True))
    + r")\s+(?:in|on|at|near|by|off|called|named)\s+[^,.!?]{1,40},\s*$",
    re.IGNORECASE,
)
# A noun phrase set beside a name says what it names: "X, the small hotel", "X, a startup".
_APPOSITIVE_NOUNS = re.compile(
    r"^\s*,\s+(?:the|a|an|our|my|their|his|her)\s+((?:[\w-]+\s+){0,2}[\w-]+)"
)
_PET_AFTER = re.compile(
    r"^(?:'s|’s)\s+(?:vet|vets|kibble|walk|walks|lead|leash|collar|paws?|fur|tail|kennel|bowl|"
    r"litter|crate|cage|flea|worming|groomer|jabs?)\b"
)
# "Rosie ate a corn cob and we had to take her to the vet" (taken by "I" or "we": "ask Tom if
# he can take him to the vet" is about someone else), "a wee dog 🐕 called Bramble"
_TO_THE_VET = re.compile(
    r"^[^.!?]{0,100}\b(?:i|we|i'll|we'll|i’ll|we’ll|i'd|we'd)\s+(?:[\w'’]+\s+){0,2}?"
    r"(?:take|took|taking|bring|brought|bringing)\s+(?:him|her)\s+to\s+the\s+vets?\b"
)
_PET_EMOJI = re.compile(r"[🐶🐕🐱🐈🐩🐰🐇🐹🦮]")
_PET_EMOJI_CALLED = re.compile(_PET_EMOJI.pattern + r"\ufe0f?\s+(?:called|named)\s*$")
_PET_APPOSITIVE = re.compile(
    # "Biscuit the whippet", "Noodle the little whippet": either of the next two words
    r"^\s*,?\s+(?:the|is\s+an?|is\s+the)\s+([\w-]+)(?:\s+([\w-]+))?\b"
)
# "walking Biscuit", "fed Pimienta": care a pet gets, weak evidence that a person can outweigh
# (people are walked somewhere: "walking Ada down the aisle", "walked Kwame home").
_CARE_BEFORE = re.compile(r"\b(?:walk|walks|walked|walking|feed|feeds|fed|feeding)$")
_WALKED_SOMEWHERE = re.compile(r"^\s+(?:down|home|to|through|into|across|back|over|up)\b")
# "Pretzel barked", "Miso purrs": what only an animal does; "sat on my feet", "slept by the
# door" is what a pet does, weak evidence as care is.
_PET_DOES = re.compile(
    r"^\s+(?:barked|barks|barking|meowed|meows|meowing|miaowed|purred|purrs|purring|wagged|"
    r"wags|wagging|growled|growls|woofed)\b"
)
_PET_RESTS = re.compile(
    r"^\s+(?:sat|sits|sitting|slept|sleeps|sleeping|curled\s+up)\s+(?:on|by|at)\s+"
    r"(?:my|your|ur|his|her|our|the)\s+(?:feet|lap|door|bed|pillow)\b"
)


def _apposed_kind(words: list[str]) -> str | None:
    """The kind the first kind noun of an apposed phrase names, read up to its first
    preposition; a person word first means a person ("a friend from school")."""
    for word in words:
        if word in _APPOSITION_STOPS or word in KIN_RELATIONS or _CALLED_PERSON.fullmatch(word):
            return None
        if word in CALLED_KINDS:
            return CALLED_KINDS[word]
    return None


_APPOSITION_STOPS = _words("of from by in at on with near for who which that and or")


# One word naming an institution, capitalised: "the Council", "the Uni", "the Library".
_INSTITUTIONS = _words(
    "council university uni college hospital infirmary hospice clinic institute church library "
    "museum bank school ministry parliament government police"
)
# Of them, the last words that make a longer name a body however one gets there ("moving to
# Beaumont Hospital"): a library, museum or church one goes to is as often the building, and
# "bank" ends towns too (Moss Bank), so a bank is one only after a word banks are named by
# ("Access Bank", "National Bank", "Reserve Bank").
_BODY_LAST_WORDS = _INSTITUTIONS - _words(
    "uni church library museum bank parliament government police"
)
_BANKS = _words(
    "national commercial savings reserve central development access union first standard "
    "merchant investment cooperative co-operative community people's citizens trust state "
    "federal world islamic equity"
)
# What only a business does: "tallgrass is doing layoffs", "Haulr is hiring".
_BUSINESS_AFTER = re.compile(
    r"^\s+(?:(?:is|are|was|were|has|have|had|just)\s+)*(?:doing\s+|making\s+|announced\s+)?"
    r"(?:layoffs|redundancies|hiring|been\s+acquired|acquired|went\s+bust|gone\s+bust|"
    r"bankrupt|raised\s+(?:a|its|their)|closed\s+(?:a|its|their)\s+(?:seed|series|funding))\b"
)


# Words of respect said after a name in many languages' English: "Kamala aunty", "Karthik
# anna", "Meera akka", "Priya didi", "Ravi uncle", "Sharma ji". Lower case only: "Karthik Anna"
# could be two people.
_HONORIFIC_AFTER = re.compile(
    r"^\s+(aunty|auntie|uncle|akka|anna|didi|bhaiya|bhai|ji|amma|chechi|chettan)\b(?!['’])"
)


def honorific_after(after: str) -> str | None:
    """The honorific right after a name (the text after it), if one is there."""
    found = _HONORIFIC_AFTER.match(after)
    return found.group(1) if found is not None else None


# "Inês is a designer at Farfetch", "Kofi's a nurse at Korle Bu": someone with a job
_ROLE_AFTER = re.compile(
    r"^(?:['’]s|\s+(?:is|was))\s+(?:a|an)\s+(?:[\w-]+\s+){0,2}?(?:" + ROLE_WORDS + r")\b"
)
_PLACE_WORD_BEFORE = re.compile(r"\b(?:than|in|from|near|around|outside|into|across|through)$")
# "the Vikings game", "the Swans match on sat": a team plays it ("their next Switch game" is
# played on a console)
_GAME_AFTER = re.compile(r"^\s+(?:game|games|match|matches)\b")
# "Bree is from Townsville": where someone is from, said of a given name opening a sentence
_FROM_AFTER = re.compile(r"^(?:['’]s|\s+(?:is|was))\s+(?:originally\s+|also\s+)?from\b")
# What is said of someone joining or expecting: "Mariana's coming too", "Kofi is joining us",
# "Sarah's pregnant" ("Winter is coming" and "payday's coming" say nothing of joining)
_JOINING_AFTER = re.compile(
    r"^(?:['’]s|\s+is)\s+(?:also\s+|still\s+|definitely\s+)?(?:(?:coming|joining)\s+(?:too\b|as\s+well\b|"
    r"with\s+(?:us|me)\b|us\b)|pregnant\b|engaged\b)"
)


def context_cues(cues: Counter[str], before: str, after: str, previous_word: str | None) -> None:
    """Count what the words around one occurrence of a name say about what it names."""
    tail = before.casefold().rstrip()
    head = after.casefold()
    following = re.match(r"^\s+([\w'’&-]+)", head)
    next_word = following.group(1) if following else ""
    # "Maya and Ido", "Tyler and I"; not a town after a word of place ("worse than Dundee and I
    # survived", "in Tokyo and Lisa loved it")
    paired = re.match(r"^\s+and\s+(?:[iI]\b|[A-Z][a-z])", after) is not None
    paired = paired and _PLACE_WORD_BEFORE.search(tail) is None
    if next_word in PERSON_VERBS or paired or _ROLE_AFTER.match(head):
        cues["person_verb"] += 1
    elif _WITH_SOMEONE_BEFORE.search(tail):
        cues["person_verb"] += 1  # "you and Tyler are coming", "he and Tyler can go"
    if _JOINING_AFTER.match(head):
        cues["joining"] += 1  # "Mariana's coming too" opening a sentence
    if next_word in _LIFE_VERBS or _GOT_NEWS.match(head) or _FROM_AFTER.match(head):
        cues["life_verb"] += 1
    if honorific_after(after) is not None:
        # "Kamala aunty", "Karthik anna": a respected elder or sibling, a person
        cues["kin"] += 1
        cues["honorific"] += 1
    if next_word in PROJECT_AFTER:
        cues["project"] += 1
    if next_word in PRODUCT_AFTER:
        cues["product"] += 1
    if next_word in PLACE_AFTER or _TRIP_AFTER.match(after) or IS_HOME.match(after):
        cues["place"] += 1
    if next_word in ORGANISATION_AFTER or _BUSINESS_AFTER.match(head):
        cues["organization"] += 1
    elif (next_word in _GROUP_VERBS and not paired and not _JOINED_BEFORE.search(tail)) or (
        next_word in _GIG_WORDS
    ):
        # "Lankum are playing Galway", "Parks Vic have made me a team leader", "the Beths
        # gig": a band, a team or a body, as British English speaks of one
        cues["group"] += 1
    if (next_word in EVENT_WORDS and next_word not in _EVENT_WORDS_OF_PEOPLE) or _RACE_AFTER.match(
        head
    ):
        cues["event"] += 1  # "the ISTE Live conference", "the Two Oceans half marathon"
    kin = re.search(r"\b(?:my|our|your|his|her|their)\s+(?:[\w-]+\s+)?([\w-]+)\s*,?$", tail)
    appositive = re.match(
        r"^\s*(?:,|\s+is|\s+was)\s+(?:my|our|your|his|her)\s+(?:([\w-]+)\s+)?([\w-]+)", head
    )
    for match in (kin, appositive):
        # "my old dog", and "Ndizi, your dog ate half": the noun is the second word, or the
        # first when a verb follows it ("my dog walker" is a person)
        words = [word for word in (match.groups() if match is not None else ()) if word]
        if words and (
            words[-1] in PETS or (len(words) == 2 and words[0] in PETS and words[1] in COMMON_VERBS)
        ):
            cues["pet"] += 1
        elif words and words[-1] in KIN_RELATIONS:
            cues["kin"] += 1
    apposed = _APPOSITIVE_NOUNS.match(head)  # "Harbourview, the small hotel by the pier"
    if apposed is not None:
        kind = _apposed_kind(apposed.group(1).split())
        if kind is not None:
            cues[kind] += 1
    described = _PET_APPOSITIVE.match(head)
    if described is not None and (described.group(1) in PETS or described.group(2) in PETS):
        cues["pet"] += 1
    called = _CALLED.search(tail)
    if called is not None:
        noun = called.group(1)
        if noun in PETS:
            cues["pet"] += 1
        elif noun in _CALLED_NOUNS:
            cues[_CALLED_NOUNS[noun]] += 1
        elif noun in KIN_RELATIONS or _CALLED_PERSON.fullmatch(noun):
            cues["called_person"] += 1
    # "via Zoom" is a medium; "flying via Doha" a way stop.
    if _MEDIUM_BEFORE.search(tail) and not _WAY_STOP.search(tail):
        cues["product"] += 1
    # A product unless it is a given name (``typed``: "pay for Jake") or owns something
    # ("use Tom's car").
    tool = (
        _TOOL_BEFORE.search(before.rstrip())
        or (_TOOL_LISTED.search(before.rstrip()) and not _CLAUSE_GOES_ON.match(next_word))
        or _PLATFORM_BEFORE.search(tail)
    )
    owns = re.match(r"^['’]s\b", after) is not None
    if tool and not owns:
        cues["tool"] += 1
    if _PLATFORM_AFTER_OBJECT.search(tail):
        cues["platform_after_object"] += 1
    elif (
        not tool
        and not owns
        and _BARE_ON.search(tail)
        and not _NOT_A_PLATFORM_BEFORE_ON.search(tail)
    ):
        cues["on"] += 1
    if _DETERMINED.search(before.rstrip()):
        # "the TTC", "the Fridley campus": a noun of its own or a site's name, no one's ("the
        # Quillhaven report" may be a project's)
        ends = _ENDS_A_PHRASE.match(head) is not None
        cues["determined"] += ends
        cues["after_the"] += ends or _SITE_AFTER.match(head) is not None
    if _WORK_BEFORE_AT.search(tail) or (_DETERMINED.search(tail) and _GAME_AFTER.match(head)):
        cues["organization"] += 1
    if _EMPLOYED_AT.search(tail) or (_AT_BEFORE.search(tail) and AS_A_ROLE.match(head)):
        cues["employer"] += 1
    if _PROJECT_BEFORE.search(tail):
        cues["project"] += 1
    if _TRAVEL_TO.search(tail):
        cues["travel"] += 1  # a place, unless a given name: "heading to Priya now"
    if _ADMITTED_TO.search(tail):
        cues["organization"] += 1  # "got into McGill", "accepted to Dalhousie": a school
    if _TRIP_PLANNED.search(tail):
        cues["trip_planned"] += 1  # weaker: "I booked Ryanair" is the airline
    if any(cue.search(tail) for cue in (_FROM_PLACE, _VENUE_BEFORE, _MOVE_TO, _WAY_STOP, HOME_IS)):
        cues["place"] += 1
    elif _BOUGHT_FROM.search(tail):
        cues["organization"] += 1  # "bought baby clothes from Mothercare": a shop
    elif (
        re.search(r"\bat\s*$", tail)
        and not re.match(r"^['’]", after)
        and not _AT_SOMEONE.search(tail)
    ):
        # "at Arup", "at Rush": somewhere, or a business; "at Kate's" is neither, nor what one
        # looks, laughs or is cross at ("look at Thabo Mokoena going on proper dates")
        cues["at"] += 1
    if _PET_AFTER.match(head) or _PET_DOES.match(head) or _TO_THE_VET.match(head):
        cues["pet"] += 1
    if _PET_EMOJI_CALLED.search(before):
        cues["pet"] += 1
    if not before.strip() and _PET_EMOJI.search(after):
        cues["pet_emoji"] += 1  # "Simba is fat and spoilt as always 🐶"
    if _PET_RESTS.match(head):
        cues["pet_care"] += 1
    if _CARE_BEFORE.search(tail) and not _WALKED_SOMEWHERE.match(head):
        cues["pet_care"] += 1
    if re.match(r"^[,.!?]", after) and not before.strip():
        cues["bare"] += 1
    else:
        cues["framed"] += 1
    if re.match(r"^\s+by\s+[A-Z]", after):
        cues["work_of_art"] += 1
    if _TICKETS_FOR.search(tail):
        cues["tickets"] += 1  # "got tickets for Green Man" (a band has its own cues: "are playing")
    if previous_word == "watch" and _WATCH_ASKED.match(head):
        cues["work_of_art"] += 1  # "did you ever watch Saltburn?" (not "watch Jets highlights")
    if previous_word in ("read", "reading", "watched", "watching", "finished", "novel", "book"):
        cues["work_of_art"] += 1
