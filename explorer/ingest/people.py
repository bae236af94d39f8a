"""Who is who in one conversation: addressees, vocatives, handles, kinship names and person typing.

* ``addressees``: the speaker each turn speaks to — the only other speaker of a two-party
  conversation, else the nearest other speaker before (or after) the turn.
* ``is_vocative``: a name used to address someone ("Hey Kate!", "Thanks, Kate.", "Kate, did
  you ...", "Good luck, Kate"). A name one speaker uses to address another, never used by the one
  addressed and never for anyone else, is that speaker's name: it is merged into the speaker.
* ``handle_matches``: a display handle ("kate_w", "tomr", "emi92") and a full name in the text
  ("Kate Williams") that it spells (first name, first + last, initial + last, first + initial).
* kinship names: a capitalised "Dad" or "Mum" is the speaker's parent (FAMILY_OF); when the same
  speaker names that parent ("my dad, Chidi", "Mum. Ngozi Okafor, ..."), the two are one person.
* ``evidence_type``: a name's type from what the conversation says of it. Confidence, highest
  first: a speaker, or a name used to address someone, is a person (certain, 1.0); a kinship or
  role word before it ("my sister Ada", "Dr. Lee"), a person verb after it ("Lena says"), or a
  pet word ("my cat Pimienta", typed other) decides with 0.8; name suffixes and cues (Street →
  place, Labs → organisation, Marathon → event, "Project X" or "the X pilot" → project, "the X
  app" → product) 0.7; a single word or a two- or three-word run of capitalised words with no
  evidence at all is a person by default (0.5: in conversations most such names are people), a
  name opening on "The" or "A" with none is "other". Languages and job-title acronyms are not
  things anyone knows about and become topics.

Imports the standard library and the ingest word lists.
"""

from __future__ import annotations

import re
import unicodedata
from collections import Counter
from collections.abc import Sequence

from explorer.ingest.lexicon import LANGUAGES
from explorer.ingest.relation_rules import KIN_RELATIONS, PETS, ROLE_WORDS, UNIQUE_KIN

_GREETING = re.compile(
    r"(?:^|[\s,(])(?:hey|hi|hiya|hello|heya|thanks|thank\s+you|thx|ty|bye|morning|good\s+"
    r"morning|evening|night|goodnight|congrats|congratulations|cheers|sorry|dear|yo|welcome|"
    r"ok|okay|oh|aw+|haha|luck|done|birthday|love\s+you|miss\s+you|see\s+you|boa\s+sorte|hola|"
    r"ciao|ah|wow|omg|lol|yes|no|sure)[\s,!.]*$",
    re.IGNORECASE,
)
_AFTER_VOCATIVE = re.compile(r"^\s*(?:[,!.?…:)]|$)")
_OPENING_VOCATIVE = re.compile(r"^\s*,(?!\s*(?:and|or|but|the|my|a)\b)")
_CLOSING_VOCATIVE = re.compile(r"^[\s!.?…)]*$")

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
    ]
)
# Ties between votes go to the more specific kind; "person" is also the default with no votes.
TYPE_ORDER = ("place", "organization", "event", "project", "product", "other", "person")
EVENT_WORDS = frozenset(
    [
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
    ]
)
ROLE_ACRONYMS = frozenset(
    [
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
    ]
)
_ARTICLE = frozenset({"the", "a", "an"})


def fold_letters(text: str) -> str:
    """Lower-case letters only, accents removed: how handles and names are compared."""
    decomposed = unicodedata.normalize("NFKD", text.casefold())
    return "".join(char for char in decomposed if char.isalpha() and char.isascii())


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


def is_vocative(text: str, start: int, end: int, sentence: tuple[int, int]) -> bool:
    """Whether the name at ``text[start:end]`` addresses someone rather than speaking of them."""
    before = text[sentence[0] : start]
    after = text[end : sentence[1]]
    if _GREETING.search(before) and _AFTER_VOCATIVE.match(after):
        return True
    if not before.strip() and _OPENING_VOCATIVE.match(after):
        return True
    return before.rstrip().endswith(",") and bool(_CLOSING_VOCATIVE.match(after))


def handle_matches(handle: str, full_name: str) -> bool:
    """Whether a display handle spells a multi-word name ("kate_w" and "Kate Williams")."""
    letters = fold_letters(handle)
    words = [fold_letters(word) for word in full_name.split()]
    words = [word for word in words if word]
    if len(letters) < 3 or len(words) < 2:
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
    return letters in forms


def kin_word(key: str) -> str | None:
    """The kinship word a capitalised name is ("Dad", "Grandma Okafor" → "grandma")."""
    first = key.split()[0]
    return first if first in UNIQUE_KIN or (first in KIN_RELATIONS and " " not in key) else None


def evidence_type(key: str, votes: Counter[str], cues: Counter[str]) -> str:
    """A name's type from its votes (``name_reading.vote``) and this module's cues."""
    words = key.split()
    single = len(words) == 1
    if key in LANGUAGES or (single and key in ROLE_ACRONYMS):
        return "topic"
    if cues["addressed"] or cues["speaker"]:
        return "person"
    if kin_word(key) is not None:
        return "person"
    if cues["pet"]:
        return "other"
    if words[-1] in EVENT_WORDS and not single:
        return "event"
    if words[0] == "project" and not single:
        return "project"
    tally = Counter(votes)
    tally["person"] += 2 * cues["kin"] + cues["person_verb"]
    tally["project"] += 2 * cues["project"]
    tally["product"] += 2 * cues["product"]
    tally["other"] += 2 * cues["work_of_art"]
    tally["organization"] += 2 * cues["organization"]
    tally["place"] += 2 * cues["place"]
    if tally:
        best = sorted(tally.items(), key=lambda item: (-item[1], _rank(item[0])))[0]
        if best[1] > 0:
            return best[0]
    if words[0] in _ARTICLE or any(word in _ARTICLE or word == "of" for word in words):
        return "other"
    if cues["acronym"]:
        return "organization"
    return "person" if len(words) <= 3 else "other"


def _rank(kind: str) -> int:
    return TYPE_ORDER.index(kind) if kind in TYPE_ORDER else len(TYPE_ORDER)


_WORK_BEFORE_AT = re.compile(
    r"\b(?:job|jobs|work|works|working|worked|role|position|interview|internship|team|office|"
    r"employed|staff|shift|" + ROLE_WORDS + r")\s+(?:at|for|with)\s*$"
    r"|\b(?:joined|signed\s+with|hired\s+by)\s*$"
)
_PROJECT_BEFORE = re.compile(r"\b(?:lead|leading|working|work|works|worked)\s+on\s*$")
_FROM_PLACE = re.compile(
    r"\b(?:is|am|are|'s|’s|was|originally|comes?|came|grew\s+up)\s+(?:from|in)\s*$"
)


def context_cues(cues: Counter[str], before: str, after: str, previous_word: str | None) -> None:
    """Count what the words around one occurrence of a name say about what it names."""
    tail = before.casefold().rstrip()
    head = after.casefold()
    following = re.match(r"^\s+([\w'’-]+)", head)
    next_word = following.group(1) if following else ""
    paired = re.match(r"^\s+and\s+(?:i\b|[A-Z][a-z])", after) is not None  # "Maya and Ido"
    if next_word in PERSON_VERBS or paired or re.match(r"^\s+and\s+i\b", head):
        cues["person_verb"] += 1
    if next_word in PROJECT_AFTER:
        cues["project"] += 1
    if next_word in PRODUCT_AFTER:
        cues["product"] += 1
    kin = re.search(r"\b(?:my|our|your|his|her|their)\s+(?:[\w-]+\s+)?([\w-]+)\s*,?$", tail)
    appositive = re.match(
        r"^\s*(?:,|\s+is|\s+was)\s+(?:my|our|your|his|her)\s+(?:[\w-]+\s+)?([\w-]+)", head
    )
    for match in (kin, appositive):
        word = match.group(1) if match is not None else ""
        if word in PETS:
            cues["pet"] += 1
        elif word in KIN_RELATIONS:
            cues["kin"] += 1
    if _WORK_BEFORE_AT.search(tail):
        cues["organization"] += 1
    if _PROJECT_BEFORE.search(tail):
        cues["project"] += 1
    if _FROM_PLACE.search(tail):
        cues["place"] += 1
    if re.match(r"^(?:'s|’s)\s+(?:vet|vets|kibble|walk|lead|collar|paws|fur|kennel)\b", head):
        cues["pet"] += 1
    if re.match(r"^[,.!?]", after) and not before.strip():
        cues["bare"] += 1
    else:
        cues["framed"] += 1
    if re.match(r"^\s+by\s+[A-Z]", after):
        cues["work_of_art"] += 1
    if previous_word in ("read", "reading", "watched", "watching", "finished", "novel", "book"):
        cues["work_of_art"] += 1
