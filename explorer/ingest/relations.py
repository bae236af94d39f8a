"""Typed facts read from one turn, and from a question and the answer that follows it.

The offline extractor hands over, per turn, its name mentions (``Slot``) and who speaks and is
spoken to; this module adds the words that stand for people without naming them and reads the
facts (see ``relation_rules`` for the vocabulary and the patterns):

* subjects are names, the speaker's "I"/"my"/"we" (and a sentence that opens on a verb, as chat
  does: "Had coffee with Helen"), the addressee's "you"/"your", and "he"/"she" resolved to the
  last person named before it (not the speaker or the addressee);
* a verb rule matched on the words between a subject and an object states a fact; "X and I
  are ..." gives X the facts of "I", and a later "we" of that sentence too; negation flips
  LIKES/DISLIKES and drops the rest, and past tense ("used to live in") marks a fact as ended;
* "there" stands for the place, business or occasion just named (in the turn, else the turn
  before: ``where_named``), and so does the place left out of "Marlon went last summer";
* kinship and role words: "my sister Ada", "Priya, my manager", "Ada's husband Kwame", "X is Ada's
  flatmate"; couples ("Ada and Kwame have set a date"), pairs who met, pets ("my cat Pimienta");
* a project a person names in a first-person sentence is one they work on;
* nothing asked is a fact: a question's facts wait for a "yes" from the one asked (or an answer
  opening on the name as the question put it: "still at DBS ah?" / "still at DBS lah"), and a
  question frame ("Where do you work now?") takes the first fitting name of the answer;
* across turns: someone "coming too", signing up ("im in", "count me in"), brought along ("I'll
  bring Cathal") or picking a venue offered ("Crane Lane or Sin É?" / "Sin É obviously") joins
  the plan on the table (``joining_facts``), "I
  love it here" is about the speaker's home as the conversation last stated it
  (``here_facts``), and a pet no fact gives an owner is whoever first speaks of it as theirs
  (``pet_owner``).

Agents (assistant speakers) are never the subject of a fact. Imports the standard library, the
core tokenizer and the ingest rules and word reading.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, replace
from itertools import pairwise
from typing import Protocol

from explorer.core.text import words
from explorer.ingest.given_names import is_census_name, is_world_given_name
from explorer.ingest.lexicon import INTERJECTIONS, MONTH_ABBREVIATIONS, MONTHS
from explorer.ingest.name_reading import Token
from explorer.ingest.relation_rules import (
    AFFIRMATIVE,
    ANSWER_WORDS,
    CARE_WORDS,
    COUPLE_AFTER,
    EVENTFUL,
    HOME_IS,
    IS_HOME,
    KIN_PHRASE_WORDS,
    KIN_RELATIONS,
    LEFT_WORDS,
    NOT_A_STAY,
    ON_A_TRIP,
    PAIR_MET,
    PETS,
    PROPOSAL_WORDS,
    ROLE_WORDS,
    TITLES,
    VERB_RULES,
    WHERE,
    WORK,
    WORK_CUE,
    YEARS_OF,
    apply_polarity,
    asked_frame,
    closed,
    future,
    negated,
)

MAX_GAP = 90  # characters between a subject and an object
SUBJECT_TYPES = frozenset({"person", "organization", "other"})
# What only a person does: an organisation before "'s in Glasgow" or "works at" is no subject
# of these ("St Columba's in Glasgow" is where the hospital is, not where it lives).
PERSON_ONLY = frozenset(
    {"LIVES_IN", "MOVED_TO", "FROM", "STUDIES_AT", "WORKS_AT", "MARRIED_TO", "PARTNER_OF"}
    | {"FAMILY_OF", "FRIEND_OF", "SEES"}
)
NAMED_TYPES = frozenset({"person", "place", "organization", "event", "project", "product", "other"})


class Named(Protocol):
    """What the rules need of an entity being built: its id and type."""

    @property
    def id(self) -> str: ...

    @property
    def type(self) -> str: ...

    @property
    def name(self) -> str: ...

    @property
    def guessed(self) -> bool:
        """Whether the type is only the default guess for a bare name."""
        ...


@dataclass(frozen=True, slots=True)
class Slot:
    """A place in a turn's text that stands for an entity (a name, or a pronoun read as one)."""

    start: int
    end: int
    sentence: int
    entity: Named
    pronoun: bool = False
    object_only: bool = False


@dataclass(frozen=True, slots=True)
class Fact:
    source: Named
    target: Named
    relation: str
    start: int  # the sentence stating it
    end: int
    ended: bool = False
    earlier: bool = False  # the sentence is in the turn before (a question this turn confirmed)
    presupposed: bool = False  # holds in a question too ("is my sister Ada coming?")
    # The kinship phrase an answer calls the target by ("how's Njeri?" / "my sister is in
    # Mombasa now"): the target's alias too, as the answerer says it.
    called: str = ""


@dataclass(frozen=True, slots=True)
class Turn:
    """One turn as the rules read it."""

    text: str
    sentences: Sequence[tuple[int, int]]
    tokens: Sequence[Token]
    names: Sequence[Slot]
    speaker: Named | None  # a person speaker; ``None`` for an agent or an unknown speaker
    addressee: Named | None
    recent: Sequence[Named]  # people named in earlier turns, most recent last
    # The last place, business or occasion the turn before named: what a "there" may point at
    earlier_where: Named | None = None


_FIRST = frozenset({"i", "i'm", "i’m", "i've", "i’ve", "i'd", "i’d", "i'll", "i’ll", "my", "we"})
_FIRST |= frozenset({"we're", "we’re", "we've", "we’ve", "our", "we'll", "we’ll"})
# Chat writes them without the apostrophe: "im moving", "shes from kochi", "u still at Monzo?"
_FIRST |= frozenset({"im", "ive"})
_FIRST_OBJECT = frozenset({"me", "us"})
_GUESS_WHO = re.compile(r"\bguess\s+$")
_WHO = frozenset({"who", "who's", "who’s", "whos"})
_SECOND = frozenset({"you", "you're", "you’re", "you've", "you’ve", "you'll", "you’ll", "your"})
_SECOND |= frozenset({"you'd", "you’d", "u", "ur", "youre", "youve"})
_THIRD = frozenset({"he", "she", "he's", "she's", "he’s", "she’s", "his", "he'd", "she'd"})
_THIRD |= frozenset({"shes", "hes"})
# "frijol hates him", "mama LOVED her": the last person named, as an object. "her" before a noun
# is whose it is ("her brother"), so it is an object only before these or the clause's end.
_THIRD_OBJECT = frozenset({"him", "her"})
_AFTER_OBJECT_HER = frozenset(
    {"and", "so", "but", "too", "already", "more", "lots", "loads", "tbh", "honestly", "back"}
    | {"now", "today", "again", "though", "anyway", "every", "all", "yesterday", "tomorrow"}
    # a preposition: "booked her for Wednesday", "met her in Lisbon"
    | {"for", "to", "at", "on", "in", "with", "about", "from", "over", "after", "before"}
)
# A chat sentence that opens on one of these has dropped its "I".
_DROPPED_SUBJECT = frozenset(
    [
        "had",
        "got",
        "went",
        "picked",
        "booked",
        "did",
        "finished",
        "started",
        "signed",
        "told",
        "asked",
        "spent",
        "met",
        "saw",
        "caught",  # "Caught them at the Barrowland on Thursday"
        "took",
        "bought",
        "made",
        "tried",
        "found",
        "back",
        "just",
        "finally",
        # chat's "moved to leeds in march", "starting at Monzo in april", "used to live in Bath"
        "moved",
        "moving",
        "starting",
        "quit",
        "left",
        "leaving",  # "Leaving Nottingham after 6 years?"
        "joined",
        "joining",
        "took",  # "took 2 days off from JLR"
        "finally",  # "Finally leaving Koramangala", "finally moved into our BTO in Punggol"
        "working",
        "living",
        "studying",
        "flying",
        "heading",
        "visiting",
        "staying",
        "used",
        "still",
        # "been in leslieville since, tiny apartment", "been to Porto twice"
        "been",
        "handed",
        "finalised",  # "finalised a 2bhk in Gachibowli"
        "finalized",
        "secured",
        "going",
        "planning",
        "seeing",
        # "Landed in Chennai!", "Arrived at the hotel", "Landing in Lagos on the 16th"
        # "gonna miss West End" ("will" opens "Will is coming" as often)
        "gonna",
        "landed",
        "arrived",
        "landing",
        "arriving",
        # the first person's verbs of the languages chats switch to: "moro em Pinheiros",
        # "mudei pra Vila Madalena", "je vis à Verdun", "vou pra Lisboa em abril"
        *("moro", "mudei", "trabalho", "estudo", "vou", "vivo", "trabajo", "voy", "estudio"),
        *("je", "j'habite", "j’habite", "nakatira", "lumipat", "pupunta"),
        # "let's meet at Greenbelt tomorrow", "can't wait for Siargao!!", "highly recommend X"
        "highly",
        "let's",
        "let’s",
        "lets",
        "can't",
        "can’t",
        "cant",
    ]
)
# "our Karen", "our Claire": in the English of the north, Ireland and Wales, one of the family.
_OUR_ONE = re.compile(r"(?<![\w'’])(?:our|oor)\s+$", re.IGNORECASE)
_OUR_ONE_DOES = re.compile(
    r"(?:\s*[,.!?;:)]|\s*$|['’]s\s|\s+(?:and|is|was|are|were|has|had|have|will|would|can|could|"
    r"did|does|just|still|never|always|said|says|brought|came|comes|got|went|loves|likes|wants|"
    r"called|rang|texted|phoned|sent|made|bought|moved|lives|works)\b)",
    re.IGNORECASE,
)
_PET_TALK = re.compile(
    r"\b(?:dog|dogs|cat|cats|puppy|kitten|vet|barking|barked|walkies|good\s+(?:boy|girl)|woof)\b",
    re.IGNORECASE,
)
# "my" and "your" in the languages English chats switch to: "minha irmã Carla", "ma sœur Julie",
# "mi hermano Diego", "ta copine"
_THEIR_MY = r"minha|meu|mi|ma|mon|mera|meri|mere"
_THEIR_YOUR = r"tua|teu|ta|ton"
_KIN_BEFORE = re.compile(
    # "me mam", "me missus Jade": the "my" of the north, Ireland and Australia
    r"\b(?P<owner>my|me|our|your|ur|his|her|" + _THEIR_MY + r"|" + _THEIR_YOUR + r")\s+"
    # ("told me her brother Tom": the kin is hers, "me" is who was told)
    r"(?:(?P<pre>(?!(?:her|his|my|your|our|their)\b)[\w-]+)\s+)?(?P<kin>[\w-]+)"
    r"(?:\s+(?:at|from|in)\s+(?P<where>[^,.;!?]{1,40}))?(?:\s+(?:is|was))?\s*,?\s*"
    # the article other languages set before a name: "meu namorado, o Thiago"
    r"(?:(?:o|el|si)\s+)?$",
    re.IGNORECASE,
)
_KIN_AFTER = re.compile(
    r"^\s*(?:,\s*|\s+(?:is|was|'s|’s)\s+)(?P<owner>my|our|your|ur|his|her)\s+(?:(?P<pre>[\w-]+)\s+)?"
    r"(?P<kin>[\w-]+)\b",
    re.IGNORECASE,
)
# A kin phrase that goes on as a clause's subject ("my family's been great", "my mum's
# coming") stands for no name before it.
_CLAUSE_AFTER_KIN = re.compile(r"['’]s\s+(?!(?:[\w-]+\s+)?(?:is|was)\b)[\w-]")
_POSSESSIVE_KIN = re.compile(r"^(?:'s|’s)\s+(?:[\w-]+\s+){0,2}?(?P<kin>[\w-]+)\s*,?\s*$")
_IS_POSSESSED = re.compile(r"^(?:'s|’s)\s+(?P<words>(?:[\w-]+\s*){1,3})")
_PET_AFTER = re.compile(r"^\s+(?:is|was)\s+(?:my|our)\s+(?:[\w-]+\s+)?(?P<pet>[\w-]+)\b", re.I)
# "she has a cat called Pickle", "we've got a rescue dog named Ruth": owned by the subject.
_PET_CALLED = re.compile(
    r"\b(?:has|have|had|got|adopted)\s+(?:a|an|another)\s+(?:[\w-]+\s+){0,2}?(?P<pet>[\w-]+)\s+"
    # "we got a wee dog last month actually 🐕 called Bramble": a time, an emoji in between
    r"(?:(?:last|this)\s+\w+\s+)?(?:actually\s+)?(?:[🐶🐕🐱🐈🐩🐰🐇🐹🦮]\ufe0f?\s+)?"
    r"(?:called|named)\s+$",
    re.IGNORECASE,
)
_ACTIVITY = re.compile(
    r"^\s+(?:'m|’m|am|are|is|'re|’re|will\s+be|'ll\s+be|’ll\s+be)\s+\w+ing\s+(?:at|in|to)\s+"
    r"(?:the\s+)?$"
)
# "I'm moving to", "she's relocating to", a chat's "...Museum. moving to brisbane": a move still
# to come ("he was relocating to Calgary" is one made or not, and "moving to Galway was the best
# thing" speaks of the move: ``_MOVE_AS_SUBJECT``).
# After an answer word too: "staying in Glasgow?" / "naw moving to Aberdeen in September".
_AFTER_ANSWER_WORD = "|".join(rf"(?<=\b{word} )|(?<=\b{word}, )" for word in sorted(ANSWER_WORDS))
_MOVING = re.compile(
    r"(?:(?:\b(?:am|is|are|im|shes|hes|youre|theyre)|['’](?:m|s|re))\s+"
    r"(?:[a-z]+ly\s+|just\s+|now\s+|finally\s+|also\s+)?|(?<![\w'’,] )(?<![\w'’])|"
    + _AFTER_ANSWER_WORD
    + r")(?:moving|relocating)\b"
)
_MOVED = re.compile(r"(?<!\bhave\s)\bmoved\b")  # not "will have moved by June"
_MOVE_AS_SUBJECT = re.compile(r"\s+(?:was|is|has|had|will|would)\b")
_PAST_VISIT = re.compile(
    r"\b(?:visited|toured|explored|stayed|went|flew|drove|did|been|came|finished|placed|won|spent|"
    r"made\s+it|attended|completed|ran|saw|caught|survived|got\s+back|got\s+home)\b"
)
_ASKED_OF_THE_PAST = re.compile(
    r"\W*(?:did|didn['’]?t|have|haven['’]?t|has)\s+(?:you|u|ya|he|she|they)\b"
)
_ON_THE_WAY = re.compile(
    r"^\s+(?:'m|’m|am|was)\s+on\s+(?:the|a|my)\s+(?:train|flight|bus|way)\s+to\s+$"
)


# A tag after one's own statement asks for no answer: "we used to live in Cedar Rapids before
# that, remember?". "you're moving to Leeds, right?" still asks, and so does a tag after a
# sentence without its subject ("Still at Google, right?").
_TAG_QUESTION = re.compile(
    r",\s*(?:remember|right|yeah|you\s+know|ya\s+know|innit|isn['’]?t\s+it|eh)\s*\?+\s*$",
    re.IGNORECASE,
)
_OWN_STATEMENT = re.compile(r"^\W*(?:i|we|i['’]m|im|we['’]re|i['’]ve|we['’]ve|my|our)\b", re.I)


# A question that shares news rather than asks it: "did you see Thiago married Carol??", "btw
# did you know Sebastián also went to Tec like me?" (not "did you hear if Tom is coming?").
_NEWS_ASKED = re.compile(
    r"\b(?:did|have|had)\s+(?:you|u|ya)\s+(?:(?P<seen>see|seen)|hear|heard|know)\s+(?:that\s+)?"
    r"(?!(?:if|whether|about|abt|when|where|what|who|how|why|anything|any|the\s+news)\b)",
    re.IGNORECASE,
)
# What "did you see ...?" shares must be news, with its verb ("did you see Thiago married
# Carol??"; "did you see Ngozi at Shoprite?" asks), and no news is doubted ("or is that a rumour?")
_NEWS_VERB = re.compile(
    r"\b(?:married|marrying|got|gets|is|has|had|moved|left|quit|joined|went|started|bought|won|"
    r"passed|died|broke|split|engaged|pregnant|having)\b|['’]s\s",
    re.IGNORECASE,
)
_DOUBTED = re.compile(
    r"\b(?:rumou?r|or\s+was\s+it|or\s+is\s+it|not\s+sure|not\s+100|idk|might\s+be\s+wrong|"
    r"i\s+think|could\s+be\s+wrong)\b",
    re.IGNORECASE,
)


def _news_asked(said: str, after: str = "") -> bool:
    """Whether a question shares news rather than asks it (``_NEWS_ASKED``); ``after`` is the
    rest of the turn, where a doubt may follow ("... Conor works at Google? not sure tho")."""
    news = _NEWS_ASKED.search(said)
    if news is None or _DOUBTED.search(said) or _DOUBTED.search(after):
        return False
    return not news.group("seen") or _NEWS_VERB.search(said, news.end()) is not None


# A question chat leaves without its mark: "are you going to Fiji for her wedding btw"
_ASKED_UNMARKED = re.compile(
    r"\W*(?:(?:so|and|but|also|oh|wait|btw|ok)\W+)?(?:are|r|will|did|do|have|were)\s+(?:you|u|ya)\s+"
    r"(?:still\s+)?(?:going|coming|gonna|moving|staying|living|working|flying|heading|off)\b",
    re.IGNORECASE,
)


def _is_question(text: str, span: tuple[int, int]) -> bool:
    said = text[span[0] : span[1]].rstrip()
    if not said.endswith("?") and _ASKED_UNMARKED.match(said) and not said.endswith((".", "!")):
        return True
    if not said.endswith("?") or _news_asked(said, text[span[1] :]):
        return False
    tag = _TAG_QUESTION.search(said)
    if tag is None:
        return True
    # The statement's own sentence start: after the last full stop or "!" before the tag.
    statement = re.split(r"[.!]\s+", said[: tag.start()])[-1]
    return not _OWN_STATEMENT.match(statement)


def _pronoun_slots(turn: Turn) -> list[Slot]:
    """Slots for the words that stand for the speaker, the addressee or the last person named."""
    slots: list[Slot] = []
    named = sorted(turn.names, key=lambda slot: slot.start)
    excluded = {entity.id for entity in (turn.speaker, turn.addressee) if entity is not None}
    lowered = turn.text.casefold()
    for position, token in enumerate(turn.tokens):
        word = token.folded
        entity: Named | None = None
        object_only = False
        if any(slot.start <= token.start < slot.end for slot in named):
            continue  # part of a name: "Mr Im" is no "I'm"
        if word in _FIRST or (word in _WHO and _GUESS_WHO.search(lowered, 0, token.start)):
            entity = turn.speaker  # "guess who got the job at Medtronic": the one telling
        elif word in _FIRST_OBJECT:
            entity, object_only = turn.speaker, True
        elif word in _SECOND:
            entity = turn.addressee
            # "see you at Timbre+": seen there, not the subject of what follows
            object_only = position > 0 and turn.tokens[position - 1].folded == "see"
        elif word in _THIRD or (word in _THIRD_OBJECT and _object_pronoun(turn, position)):
            object_only = word in _THIRD_OBJECT
            before = [
                slot
                for slot in named
                if slot.start < token.start
                and slot.entity.type == "person"
                and slot.entity.id not in excluded
            ]
            if (
                object_only
                and before
                and _SUBJECT_GAP.fullmatch(turn.text[before[-1].end : token.start])
            ):
                before.pop()  # "Marco loves her": her is not Marco
            people = [slot.entity for slot in before] or [
                p for p in turn.recent if p.id not in excluded
            ]
            entity = people[-1] if people else None
        elif (
            word in _DROPPED_SUBJECT
            or _ROLE_OPENING.match(lowered, token.start)
            or _SEE_YOU_OPENING.match(lowered, token.start)
        ) and _opens_clause(turn, position):
            # Also after a colon: "ok news from me: handed in my notice at Nuvola". Asked, the
            # dropped subject is the one asked: "still at Brightwater?" is "are you".
            span = turn.sentences[token.sentence]
            # Asked, unless a question of another kind follows the news: "started at Google
            # today, can you believe it?" ("still at Brightwater, gus?" is asked).
            asked = _is_question(turn.text, span) and not _NEWS_THEN_QUESTION.search(
                turn.text, token.start, span[1]
            )
            dropped = turn.addressee if asked else _said_of(turn, token, named) or turn.speaker
            if dropped is not None:
                slots.append(Slot(token.start, token.start, token.sentence, dropped, True))
        elif word == "still" and _AFTER_COMMA.search(lowered, 0, token.start):
            dropped = _still_after_comma(turn, token, named)
            if dropped is not None:
                slots.append(Slot(token.start, token.start, token.sentence, dropped, True))
        elif word == "it":
            entity, object_only = _what_it_is(named, lowered, token), True
        elif word == "there":
            entity, object_only = _where_there_is(turn, token), True
        if entity is not None:
            slots.append(Slot(token.start, token.end, token.sentence, entity, True, object_only))
    return slots


def where_named(turn: Turn, until: int | None = None) -> Named | None:
    """The last place, business or occasion the turn names (before ``until``), if any; of "X in
    Y" that is X ("Misty Ridge in Madikeri. my manager stayed there": the hotel)."""
    named = [
        slot
        for slot in turn.names
        if slot.entity.type in _THERE and (until is None or slot.end <= until)
    ]
    lowered = turn.text.casefold()
    while len(named) > 1 and (
        (
            named[-1].entity.type == "place"
            and _WHERE_IT_IS.fullmatch(lowered, named[-2].end, named[-1].start)
        )
        or (
            # "Dubai for Eid?": the place one goes to for the occasion
            named[-1].entity.type == "event"
            and _FOR_THE.fullmatch(lowered, named[-2].end, named[-1].start)
        )
    ):
        named.pop()
    if not named:
        return None
    last = named[-1]
    for slot in turn.names:
        if (until is None or slot.end <= until) and (
            _ONE_OR_THE_OTHER.fullmatch(lowered, last.end, slot.start)
            or _ONE_OR_THE_OTHER.fullmatch(lowered, slot.end, last.start)
        ):
            return None  # "Tamale or Bolgatanga?": which one a "there" means is not said
    return last.entity


_FOR_THE = re.compile(r"\s+for\s+(?:the\s+)?")
_ONE_OR_THE_OTHER = re.compile(r"\s*,?\s*or\s+")


def _where_there_is(turn: Turn, token: Token) -> Named | None:
    """The place, business or occasion a "there" points at: the last one named before it in
    the turn, else the last the turn before named ("Fishy Fishy, any good?" / "had the best
    chowder of my life there")."""
    return where_named(turn, token.start) or turn.earlier_where


_THERE = frozenset({"place", "organization", "event"})
# What a "there" may say of whoever went, lived or worked at what it points at; its other uses
# ("I'm there in 5", "she's there now") say nothing lasting.
_THERE_FACTS = frozenset({"VISITED", "ATTENDED", "PLANS", "MOVED_TO"})
_THERE_HOME = re.compile(r"\bliv(?:e|es|ed|ing)\b")
_THERE_WORK = re.compile(r"\bwork(?:s|ed|ing)?\b|\b(?:" + ROLE_WORDS + r")\s*$")


def _there_fact(
    between: str, target: Named, sentence_text: str, lowered: str, other: Slot
) -> tuple[str, bool, bool] | None:
    """The fact a verb before "there" states, read as if the place were named after the
    preposition the verb takes ("lived there" as "lived in", "went there" as "went to")."""
    if between.rstrip().endswith("been") and _IDIOM_AFTER.match(lowered, other.end):
        return None  # "I've been there, mate", "been there, done that": been through it
    for preposition in ("in ", "to ", "at "):
        read = _verb_fact(between + preposition, target, sentence_text, lowered, other)
        if read is None:
            continue
        relation = read[0]
        if (
            relation in _THERE_FACTS
            # "lived there 3 years", "she's been there since 2021"
            or (relation == "LIVES_IN" and (_THERE_HOME.search(between) or "been" in between))
            # "my brother works there too" of a business ("works there" of a town says where)
            or (
                relation == "WORKS_AT"
                and target.type == "organization"
                and _THERE_WORK.search(between)
            )
        ):
            return read
    return None


_IDIOM_AFTER = re.compile(r"\s*(?:[,.!…]|$)")


# How far back a verb before "it" is looked for ("Kevin Mwangi is leading it").
_IT_VERB_REACH = 40


def _what_it_is(named: Sequence[Slot], lowered: str, token: Token) -> Named | None:
    """The named thing an "it" stands for after a verb of leading or recommending, if any."""
    verb = lowered[max(0, token.start - _IT_VERB_REACH) : token.end]
    before = [slot for slot in named if slot.start < token.start]
    if _LEADING_IT.search(verb) and not _NOT_LED_AFTER.match(lowered, token.end):
        # "we're on Project Tausi ... Kevin Mwangi is leading it": the work just named; a
        # product set beside a project after a comma is part of it ("Project Impala, the new
        # rewards in the Vitality app. Sipho Khumalo is leading it")
        work = [slot for slot in before if slot.entity.type in WORK]
        if len(work) > 1 and _ASIDE_OF.fullmatch(lowered, work[-2].end, work[-1].start):
            work.pop()
        if work and not _NEW_TOPIC.search(lowered, work[-1].end, token.start):
            return work[-1].entity
    elif _RECOMMENDING_IT.search(verb):
        # "what about El Parnita? my sister Ximena recommended it": the place just named, not
        # a destination ("on the train to Abuja")
        things = [
            slot
            for slot in before
            if slot.entity.type in _PRAISED
            and not _HEADED_FOR.search(lowered[max(0, slot.start - 10) : slot.start])
        ]
        while len(things) > 1 and (
            _BOOKED_ON.fullmatch(lowered, things[-2].end, things[-1].start)
            or (
                things[-1].entity.type == "place"
                and _WHERE_IT_IS.fullmatch(lowered, things[-2].end, things[-1].start)
            )
        ):
            # "Kalinaw Resort in General Luna", "Harbour Cottage … on Airbnb": the resort and
            # the cottage, not the town or the platform ("in Shoreditch at Dishoom": Dishoom)
            things.pop()
        if things and not _THING_UNNAMED.search(lowered, things[-1].end, token.start):
            return things[-1].entity
    return None


_NEWS_THEN_QUESTION = re.compile(
    r"[,;:]\s*(?:can you believe|could you believe|any (?:tips|ideas|advice|recommendations)|"
    r"did i tell you|guess what|what do you think|thoughts|wdyt)\b",
    re.IGNORECASE,
)

# Words a chat sentence may open on before its dropped-subject verb: "yep still at Monzo".
_OPENERS = ANSWER_WORDS | {"ok", "okay", "lol", "haha", "btw", "also", "anyway", "oh", "so"}
_OPENERS |= {"omg", "tbh", "ngl", "honestly", "eh", "wah", "ah", "hey"}
_OPENERS |= {"não", "nao", "sim", "oui", "non", "sí", "oo", "hindi"}  # "não, mudei pra Moema"


# A clause that opens with a role at a place of work says whose it is by saying nothing: "yes!!
# data engineer at skyscanner" (the speaker's job; asked, the one asked).
_ROLE_OPENING = re.compile(
    # the words before the role are its own ("senior backend engineer at"), no subject's verb:
    # "Inês is a designer at Farfetch" is hers
    r"(?:(?:a|an|the)\s+)?(?:(?!(?:is|was|are|were)\s)[\w-]+\s+){0,3}?(?:"
    + ROLE_WORDS
    + r")\s+(?:at|for)\s"
    # years of study or work said without an "I": "6 yrs at University of Auckland", "final yr
    # at Strathmore", "honours at Wits finishes in November"
    r"|(?:" + YEARS_OF + r"|(?:first|second|third|fourth|final|last)\s+(?:year|yr)|honours|"
    r"grad\s+school|(?:first|second|third|last|final)\s+day|day\s+\d+)\s+at\s"
)
# "is leading it", "runs it": the "it" one leads is the project (else the product) just named; not
# what may be ("Owen could run it"), nor "run it by Priya", "run it past my manager".
_LEADING_IT = re.compile(
    r"(?<!\bcan )(?<!\bcould )(?<!\bshould )(?<!\bwould )(?<!\bmight )(?<!\bmay )(?<!\bwill )"
    r"(?<!['’]ll )(?<!\bto )"
    r"\b(?:leads|leading|lead|runs|running|run|heads|heading|manages|managing)\s+it$"
)
_ASIDE_OF = re.compile(r"[^.!?]*,[^.!?]*")
_NOT_LED_AFTER = re.compile(r"\s+(?:past|by|through|into|on|over|up|off|down|across|out)\b")
# A thing of its own brought up between the work and the "it": "Project Ibis ... the budget
# is tiny and Kevin is managing it".
_NEW_TOPIC = re.compile(
    r"\b(?:the|a|an|this|that|my|our|his|her|their)\s+\w+\s+(?:is|was|are|were|has|had)\b"
)
# "Paolo recommended it", "Kofi put me onto it", "she swears by it": the "it" is the place,
# the business or the thing just named (the verbs of the RECOMMENDED rule that take an "it";
# "put me on it" is as often an assignment).
_RECOMMENDING_IT = re.compile(
    r"\b(?:recommended|recommends|suggested|swears\s+by|swore\s+by|put\s+(?:me|us)\s+on\s*to)"
    r"\s+it$"
)
_HEADED_FOR = re.compile(r"\b(?:to|from)\s+(?:the\s+)?$")
_PRAISED = frozenset({"place", "organization", "product", "event", "other"})
# A thing brought up by no name between the named one and the "it" may be what "it" is: "we
# went to Nando's and the burger place. honestly Tom recommended it".
_THING_UNNAMED = re.compile(r"\b(?:the|a|an|this|that|another)\s+\w+")
_BOOKED_ON = re.compile(r"\s*,?\s*on\s+")
_WHERE_IT_IS = re.compile(r"\s*,?\s*(?:(?:out|up|down|just|right|over|back)\s+)?(?:in|near)\s+")
# "see you in Kinsale": the speaker will be there (a dropped "I'll").
_SEE_YOU_OPENING = re.compile(r"see\s+(?:you|u|ya)\s+(?:in|at)\s")


def _opens_clause(turn: Turn, position: int) -> bool:
    """Whether the token at ``position`` opens its clause, or follows only a "yep" or two."""
    token = turn.tokens[position]
    while not token.clause_start:
        position -= 1
        before = turn.tokens[position] if position >= 0 else None
        if before is None or before.sentence != token.sentence or before.folded not in _OPENERS:
            return False
        token = before
    return True


# A sentence about someone, then one without a subject goes on about them: "Cerys is good.
# Still working at Airbus in Filton", "Dylan's grand. Moved to Bristol in May".
_STATUS_VERB = re.compile(
    r"\s*(?:(?:is|was|['’]s)\s+(?:good|fine|grand|great|ok|okay|well|doing|busy|back|"
    r"now|settled|happy|loving|working|living|moving|moved)|has\s+(?:left|moved|quit))\b",
    re.IGNORECASE,
)
# The subjectless sentence speaks of someone else again: "Went to Galway with her", "Got me a
# job", "Went to Howth with the kids instead".
_OTHERS_AGAIN = re.compile(r"\b(?:my|me|him|her|them|instead|she['’]s|he['’]s)\b", re.I)


def _said_of(turn: Turn, token: Token, named: Sequence[Slot]) -> Named | None:
    """The person the sentence before ``token``'s opens on, as its subject, if any."""
    if token.sentence == 0 or not token.clause_start:
        return None
    opening = turn.sentences[token.sentence - 1][0]
    if _OTHERS_AGAIN.search(turn.text, token.start, turn.sentences[token.sentence][1]):
        return None
    for slot in named:
        if slot.sentence == token.sentence - 1 and slot.entity.type == "person":
            if turn.text[opening : slot.start].strip() == "" and _STATUS_VERB.match(
                turn.text, slot.end
            ):
                return slot.entity
            return None
    return None


_AFTER_COMMA = re.compile(r",\s*$")


def _still_after_comma(turn: Turn, token: Token, named: Sequence[Slot]) -> Named | None:
    """Whose "still ..." a clause after a comma is: the person the sentence opens on with how
    they are ("Yaw is fine, still working at Ecobank"), else the speaker's ("nothing changes,
    still in Pinheiros, still at Nubank"), unless the sentence names someone else before it or
    asks."""
    span = turn.sentences[token.sentence]
    people = [
        slot
        for slot in named
        if slot.sentence == token.sentence
        and slot.start < token.start
        and slot.entity.type == "person"
        and slot.entity is not turn.speaker
    ]
    if people:
        opener = people[0]
        opening = words(turn.text[span[0] : opener.start])
        if set(opening) <= _OPENERS | {"and", "but"} and _STATUS_VERB.match(turn.text, opener.end):
            return opener.entity
        return None
    if (
        _is_question(turn.text, span)
        or _SOMEONE_ELSE_IS.search(turn.text, span[0], token.start)
        or _ONLY_FOR_NOW.search(turn.text, span[0], span[1])
    ):
        return None  # "Mum is ok, still in Eldoret"; "flight delayed, still in Dubai"
    return turn.speaker


# Someone unnamed the sentence says is fine before its "still": "Mum is ok", "Emeka's cousin is
# fine" (not "here nothing changes").
_SOMEONE_ELSE_IS = re.compile(
    r"\b(?:is|['’]s|are)\s+(?:fine|ok|okay|good|well|alright|grand|great|doing)\b", re.I
)
# A stay for now, not a home: "flight delayed, still in Dubai", "still in Boston till Friday"
_ONLY_FOR_NOW = re.compile(
    r"\b(?:delayed|cancell?ed|traffic|flight|train|stuck|queue|layover|transit|airport|till|"
    r"until|for\s+the\s+(?:weekend|week|races|wedding|day|night))\b",
    re.I,
)


# A subject and its verb before an object pronoun: "Marco loves her", "Kemi really rates him".
_SUBJECT_GAP = re.compile(r"(?:['’]s)?\s+(?:[\w'’]+\s+){1,2}")


def _object_pronoun(turn: Turn, position: int) -> bool:
    """Whether the "him" or "her" at ``position`` stands for a person, not whose a thing is."""
    token = turn.tokens[position]
    if token.folded == "him":
        return True
    following = turn.tokens[position + 1] if position + 1 < len(turn.tokens) else None
    return (
        following is None
        or following.sentence != token.sentence
        or turn.text[token.end : following.start].strip() != ""
        or following.folded in _AFTER_OBJECT_HER
    )


# A question of how, when or where in the present takes its fact as given: "how's your first
# week at Sage?", "when are you moving to Leeds?", "how long have you lived in Leith?" (not "how
# about", "how come", "how do I get to", nor the past: "how long did you live in Dundee?").
_PRESUPPOSING = re.compile(
    r"\W*(?:(?:so|and|but|btw|ok|okay|oh|anyway)\W+)*(?:how|when|where)(?:['’]s|\s+(?:is|are|"
    r"long\s+ha(?:ve|s)))\b(?![^?]*\b(?:get|go)\s+to\b)",
    re.IGNORECASE,
)
_PRESUPPOSED = frozenset({"WORKS_AT", "STUDIES_AT", "LIVES_IN", "MOVED_TO"})


# A meeting put forward in a name and a time, nothing more: "Crwst tonight?", "ok Saturday
# then, Nyama Mama at Yaya, 1pm?" ("ok Vintage Kitchen then" names a place, no meeting)
_DAYS_AND_HOURS = (
    r"tonight|tomorrow|tmrw?|weekend|(?:mon|tues?|wednes|thurs?|fri|satur|sun)(?:day)?|"
    r"\d{1,2}(?::\d\d)?\s*(?:am|pm)"
)
_PROPOSAL_TIME = re.compile(r"\b(?:" + _DAYS_AND_HOURS + r")\b", re.IGNORECASE)
# An answer that says when: "prob sat 7th feb?", "july holidays probably", "next sat actually!",
# "we've moved it to December" (to "are you through in Glasgow any time soon?", "will you still
# go out in October?"): a plan asked of the one answering, kept
_WHEN_GIVEN = re.compile(
    r"\b(?:"
    + _DAYS_AND_HOURS
    + r"|(?:next|this|on)\s+sat|sat\s+\d|"
    + "|".join(sorted((set(MONTHS) - {"may"}) | MONTH_ABBREVIATIONS))
    + r"|\d{1,2}(?:st|nd|rd|th)|(?:next|this)\s+(?:week|month|year|summer|spring|autumn|fall|"
    r"winter)|holidays|christmas|easter|half[-\s]term|"
    # how long: "12 days", "a fortnight", "two weeks" (not "3 weeks ago")
    r"(?:\d+|a|two|three|four|five|six|ten)\s+(?:days|nights|weeks|fortnight)(?!\s+ago))\b",
    re.IGNORECASE,
)
# A time given as when one cannot: "Saturday I'm working sadly", "away till June"
_BUSY_THEN = re.compile(
    r"\b(?:sadly|unfortunately|working|busy|away|till|until|except|only\s+after)\b", re.IGNORECASE
)
_PROPOSAL_WORD = re.compile(r"[^\W\d_]+(?:['’][^\W\d_]+)?|\d+(?::\d+)?(?:am|pm)?", re.IGNORECASE)


def _proposal(turn: Turn, span: tuple[int, int], slots: Sequence[Slot]) -> Named | None:
    """The place a sentence puts forward to meet at when it says no more than that place and a
    time (the first place, business or occasion named; another may say where it is)."""
    named = [slot for slot in slots if not slot.pronoun]
    venues = [slot for slot in named if slot.entity.type in WHERE | {"event"}]
    if not venues or len(venues) > 2 or any(s.entity.type == "person" for s in named):
        return None
    said = list(turn.text[span[0] : span[1]])
    for slot in named:
        said[slot.start - span[0] : slot.end - span[0]] = " " * (slot.end - slot.start)
    rest = "".join(said)
    if not _PROPOSAL_TIME.search(rest):
        return None
    if any(
        word.casefold() not in PROPOSAL_WORDS and not word[0].isdigit()
        for word in _PROPOSAL_WORD.findall(rest)
    ):
        return None
    return venues[0].entity


def turn_facts(turn: Turn) -> tuple[list[Fact], list[Fact]]:
    """The facts a turn states, and those its questions would state if the answer is yes."""
    slots = sorted((*turn.names, *_pronoun_slots(turn)), key=lambda slot: (slot.start, slot.end))
    stated: list[Fact] = []
    asked: list[Fact] = []
    by_sentence: dict[int, list[Slot]] = {}
    for slot in slots:
        by_sentence.setdefault(slot.sentence, []).append(slot)
    companion = _companion(turn)
    for sentence, members in sorted(by_sentence.items()):
        span = turn.sentences[sentence]
        found = _sentence_facts(turn, span, members, companion)
        found += _going_with(turn, span, members, found)
        proposed = _proposal(turn, span, members)
        if proposed is not None:
            # "Crwst tonight?", "ok Saturday then, Nyama Mama at Yaya, 1pm?": a plan of both
            # once the answer takes it up ("ugh I can't stand Chin Chin", "I'm away friday
            # sadly" make none)
            asked.extend(
                Fact(person, proposed, "PLANS", *span)
                for person in (turn.speaker, turn.addressee)
                if person is not None
            )
            continue
        if _is_question(turn.text, span):
            if _PRESUPPOSING.match(turn.text, span[0], span[1]):
                found = [
                    replace(f, presupposed=True) if f.relation in _PRESUPPOSED else f for f in found
                ]
            stated.extend(fact for fact in found if fact.presupposed)
            asked.extend(fact for fact in found if not fact.presupposed)
            stated.extend(_invited_to(turn, span, found))
        else:
            asked_of = turn.addressee
            if asked_of is not None and _news_asked(
                turn.text[span[0] : span[1]], turn.text[span[1] :]
            ):
                # "did you know Joaquim went to Tec?" tells of Joaquim: the one asked neither
                # knows nor sees anyone by it ("did you hear Tom is seeing Ana?" still tells)
                found = [
                    f
                    for f in found
                    if not (f.relation in ("KNOWS", "SEES") and f.source.id == asked_of.id)
                ]
            stated.extend(found)
            stated.extend(_verdicts(turn, span, members))
            stated.extend(_leanings(turn, span, members, stated))
            stated.extend(_reported_praise(turn, span, members, stated))
            stated.extend(_called_home(turn, span, members))
            stated.extend(_homes_by_the_way(turn, span, members))
            # (the three below read statements only: a question states none of them)
            stated.extend(_sent_for_work(turn, span, members))
            stated.extend(_stay_offered(turn, span, members))
            stated.extend(_works_liked(turn, span, members))
    for span in turn.sentences:  # a kinship word needs no name: "best sister 💛"
        stated.extend(_kin_address(turn, span))
    for sentence, members in sorted(by_sentence.items()):
        stated.extend(_work_by_the_way(turn, turn.sentences[sentence], members))
    stated.extend(_homes_moved_to(turn, stated))
    return stated, asked


# "Nubank is sending me to Lisbon in April for UXLx", "W&M are sending me to the Venice
# Architecture Biennale": a trip for work
# (and sent before: "Corrib Veterinary Hospital sent Aoife and me to WSAVA Congress"); "Parks
# Vic have made me a team leader": the body doing it employs the one it sends or makes so, when
# the trip is to an event or said with work ("British Airways flew us to Lisbon", "the NHS is
# sending me to Leeds for the scan" employ no one)
_SENT_TO = re.compile(
    r"\b(?:(?:is|are|['’]s|['’]re)\s+sending|(?P<past>sent))\s+"
    r"(?:me|us|[^\W\d_][\w'’-]*\s+and\s+me)\s+(?:out\s+|over\s+)?to\b",
    re.IGNORECASE,
)
_MADE_ME = re.compile(
    r"\b(?:made|promoted|appointed)\s+me\s+(?:to\s+)?(?:a|an|the|their|our)?\s*(?:[\w-]+\s+){0,3}?"
    r"(?:" + ROLE_WORDS + r"|leader|partner|head|associate)\b",
    re.IGNORECASE,
)
_SENT_FOR_WORK = re.compile(
    r"\b(?:work|conference|summit|congress|expo|training|client|trade\s+fair|team|office)\b",
    re.IGNORECASE,
)
_SENDER_JOINS = re.compile(r"\s*,?\s*(?:(?:have|has|had|['’]ve)\s*)?")
_NOT_EMPLOYERS = re.compile(r"\b(?:school|academy|college|university|nhs|council)\b", re.IGNORECASE)


def _sent_for_work(turn: Turn, span: tuple[int, int], slots: list[Slot]) -> list[Fact]:
    """Where the speaker's employer sends them: the speaker's plan, or a visit once made, to each
    place or event the clause names after "to", shared with one sent along ("Aoife and me"); the
    one sending, a business named right before, employs them when the trip is for work; so does
    one that made the speaker a team leader or a partner."""
    speaker = turn.speaker
    if speaker is None:
        return []
    sent = _SENT_TO.search(turn.text, span[0], span[1])
    act = sent or _MADE_ME.search(turn.text, span[0], span[1])
    if act is None:
        return []
    senders = [
        slot.entity
        for slot in slots
        if not slot.pronoun
        and slot.entity.type == "organization"
        and not _NOT_EMPLOYERS.search(slot.entity.name)
        and slot.end <= act.start()
        and _SENDER_JOINS.fullmatch(turn.text, slot.end, act.start())
    ]
    if sent is None:
        return [Fact(speaker, senders[-1], "WORKS_AT", *span)] if senders else []
    along = [
        slot.entity
        for slot in slots
        if not slot.pronoun
        and slot.entity.type == "person"
        and sent.start() < slot.start < sent.end()
    ]
    clause = _CLAUSE_BREAK.search(turn.text.casefold(), sent.end(), span[1])
    ends = clause.start() if clause is not None else span[1]
    targets = [
        slot.entity
        for slot in slots
        if not slot.pronoun
        and sent.end() <= slot.start < ends
        and slot.entity.type in WHERE | {"event"}
    ]
    for_work = any(t.type == "event" for t in targets) or _SENT_FOR_WORK.search(
        turn.text, span[0], span[1]
    )
    found: list[Fact] = []
    for person in (speaker, *along):
        for target in targets:
            if sent["past"] is None:
                relation = "PLANS"
            else:
                relation = "ATTENDED" if target.type == "event" else "VISITED"
            found.append(Fact(person, target, relation, *span))
        if targets and senders and for_work:
            found.append(Fact(person, senders[-1], "WORKS_AT", *span))
    return found


# "you can stay with us in Wellington", "stay at mine in Mangwon": a bed offered at home
_STAY_WITH_ME = re.compile(
    r"\b(?:stay|staying|crash|crashing|kip)\s+(?:with\s+(?:me|us)|at\s+(?:mine|ours|my\s+place|"
    r"our\s+place))\s+in\s+(?:the\s+)?$",
    re.IGNORECASE,
)


# "Sacramento has been treating us well", "Porto is treating me well": a town one lives in
_TREATING_ME = re.compile(
    r"\s*(?:['’]s|\s+is|\s+has|\s+have)\s+(?:been\s+)?treating\s+(?:me|us)\b", re.IGNORECASE
)


def _stay_offered(turn: Turn, span: tuple[int, int], slots: list[Slot]) -> list[Fact]:
    """Where the speaker offers a bed at their home, or says how the town treats them: where
    they live (not on a holiday: "we've rented a cottage", "two more days of holiday")."""
    speaker = turn.speaker
    if speaker is None or ON_A_TRIP.search(turn.text):
        return []
    return [
        Fact(speaker, slot.entity, "LIVES_IN", *span)
        for slot in slots
        if not slot.pronoun
        and slot.entity.type == "place"
        and (
            _STAY_WITH_ME.search(turn.text, max(span[0], slot.start - 40), slot.start)
            or _TREATING_ME.match(turn.text, slot.end, span[1])
        )
    ]


# A book, a film, a show or an album taken in ("just finished", "halfway through", "two chapters
# into", "watched"), then praised in the same sentence ("and I loved it", "haven't stopped
# thinking about it", "can't put it down", "it broke my heart in the best way")
_TAKEN_IN = re.compile(
    r"(?:finished|read|watched|binged|halfway\s+through|(?:chapters?|episodes?|pages?)\s+into|"
    r"listening\s+to|started)\s+[\"“]?$",
    re.IGNORECASE,
)
_PRAISED_AFTER = re.compile(
    r"\b(?:i\s+(?:really\s+|absolutely\s+|just\s+)?lov(?:ed|e)\s+it|i['’]m\s+(?:\w+\s+)?"
    r"(?:hooked|obsessed)|(?:i\s+)?(?:can['’]?t|couldn['’]?t)\s+put\s+it\s+down|"
    r"(?:i\s+)?haven['’]?t\s+stopped\s+thinking|it\s+(?:is|was|['’]s)\s+(?:so\s+)?(?:stunning|"
    r"gorgeous|brilliant|incredible|amazing|beautiful)|in\s+the\s+best\s+way|i['’]m\s+in\s+"
    r"mourning)\b",
    re.IGNORECASE,
)
# What says the praise is someone else's, or the speaker's is mixed ("my sister loved it but I
# thought it was awful", "everyone is obsessed, and honestly hated it")
_PRAISE_UNDONE = re.compile(
    r"\b(?:but|hated|hate|awful|boring|bored|never|didn['’]?t|not|people|everyone|everybody)\b",
    re.IGNORECASE,
)
# "'Blue Rev' is one of my favourite albums", "I've had Blue Rev on repeat"
_FAVOURITE_AFTER = re.compile(
    r"[\"”]?\s*(?:is|was|['’]s|are)\s+(?:(?:one\s+of|among)\s+)?(?:my|our)\s+(?:all[-\s]time\s+)?"
    r"fav(?:ou?rites?|es?)\b|[\"”]?\s+on\s+repeat\b",
    re.IGNORECASE,
)
_WORKS = frozenset({"other", "product", "organization", "project"})


def _works_liked(turn: Turn, span: tuple[int, int], slots: list[Slot]) -> list[Fact]:
    """A work the speaker took in and praises in one sentence, or calls a favourite: liked."""
    speaker = turn.speaker
    if speaker is None:
        return []
    found: list[Fact] = []
    for slot in slots:
        if slot.pronoun or slot.entity.type not in _WORKS or slot.entity.id == speaker.id:
            continue
        taken = _TAKEN_IN.search(turn.text, span[0], slot.start)
        praised = (
            taken is not None
            and _PRAISED_AFTER.search(turn.text, slot.end, span[1])
            and not _PRAISE_UNDONE.search(turn.text, span[0], span[1])
        )
        if praised or _FAVOURITE_AFTER.match(turn.text, slot.end, span[1]):
            found.append(Fact(speaker, slot.entity, "LIKES", *span))
    return found


# What says a move was not the last: "moved to Leeds in 2019, then Bristol", "and back to
# Auckland", "left in 2021", "now in Melbourne"
_LATER_MOVE = re.compile(r"\b(?:then|left|now\s+in|and\s+back\s+to|and\s+to|before)\b")
_MOVE_MADE = re.compile(r"\b(?:moved|shifted|relocated|bought)\b")


def _homes_moved_to(turn: Turn, stated: Sequence[Fact]) -> list[Fact]:
    """A move made is a home since ("we finally moved into our BTO in Punggol"): the one move
    a sentence tells of, in the past, to a town, with no later move after it."""
    moves = [fact for fact in stated if fact.relation == "MOVED_TO" and not fact.ended]
    homes: list[Fact] = []
    for fact in moves:
        sentence = turn.text[fact.start : fact.end].casefold()
        # one place moved to ("Mei and I moved to Leeds" is one move, of two people)
        alone = len({other.target.id for other in moves if other.start == fact.start}) == 1
        if (
            alone
            and fact.source.type == "person"
            and fact.target.type == "place"  # "moved into Owen's place" says no town
            and _MOVE_MADE.search(sentence)
            and not _LATER_MOVE.search(sentence)
        ):
            homes.append(replace(fact, relation="LIVES_IN"))
    return homes


_VERDICT_ADVERBS = (
    r"(?:(?:so+|really|genuinely|actually|honestly|absolutely|pretty|very|such|literally|"
    r"truly|just|still)\s+)*"
)
_VERDICT = re.compile(
    r"^\s*(?:['’]s|\s+(?:is|are|(?P<past>was|were))(?:n['’]t|\s+not|\s+never)?)\s+"
    + _VERDICT_ADVERBS
    + r"(?:"
    r"(?P<good>good|great|amazing|lovely|brilliant|excellent|gorgeous|beautiful|incredible|"
    r"fantastic|awesome|perfect|wonderful|stunning|unreal|a\s+gem|the\s+best|my\s+fav(?:ourite|"
    r"orite)?|elite|class|sound|deadly|epic|magic|legendary|immaculate|iconic|fire|banging|"
    r"a\s+(?:whole\s+)?vibe|lekker|lush|mint|ace|gas|savage|goated|a\s+banger|"
    r"beautifully\s+(?:done|made|written|shot)|a\s+masterpiece|phenomenal|superb|"
    r"(?:even\s+)?better\s+than\s+(?:i|we)\s+(?:imagined|expected|hoped|thought)|"
    # "west end is sick" (a pet or a thing that is sick is ill: left to ``_verdicts``)
    r"(?P<sick>sick))|(?P<bad>awful|terrible|horrible|hell|the\s+worst|rubbish|"
    r"a\s+nightmare|useless|shit|crap|a\s+joke|trash|garbage|mid|overrated|grim|rank|minging|"
    r"boring|shocking|a\s+disaster)"
    # a night out told of, neither praised nor run down: "Hootananny was carnage"
    r"|(?P<wild>carnage|mental|mad|wild|chaos|packed|rammed|heaving))\b"
)
# Praise that tells of a visit: "Iloilo never disappoints", "Milwaukee was worth it tho"
_BORNE_OUT = re.compile(
    r"\s+(?:never\s+(?:disappoints|misses|fails)|lived\s+up\s+to\s+(?:the|all\s+the)\s+hype|"
    r"was\s+(?:so\s+|totally\s+|well\s+|def(?:initely)?\s+)?worth\s+it)\b"
)
# Praise of a person that says no more than praise: "Sravya is a gem", "Douglas Stuart's a
# genius", "Larry Dean was unreal at the Stand" ("Mum's good" and "Dad is great" answer how
# they are). The praise ends the clause, or a small word follows: "Kofi's class starts at 6",
# "the best man" and "an angel investor" praise no one. A denial ("isn't a legend") never
# matches.
_PERSON_PRAISE = re.compile(
    r"^\s*(?:['’]s|\s+(?:is|are|was|were))\s+"
    + _VERDICT_ADVERBS
    + r"(?:an?\s+(?:absolute\s+|total\s+|actual\s+)?(?:genius|gem|legend|star|saint|angel|icon)"
    r"|unreal|iconic|the\s+best|elite|class|goated|incredible|amazing|brilliant)\b"
    r"(?!['’-]|\s+(?!(?:at|in|on|with|for|to|and|but|so|too|tho|though|honestly|lol|lmao|tbh|"
    r"ngl|fr|omg|haha\w*)\b)[^\W\d_])"
)
# What may come before a verdict's name in its sentence: "ngl Linear is genuinely good".
_VERDICT_OPENING = re.compile(
    r"^\W*(?:(?:ngl|tbh|honestly|omg|ok|okay|and|but|also|yes|yeah|ya|ugh|wow|god)\W+)*"
    r"(?:the\s+)?$"
)


_CLAUSE_BREAK = re.compile(r"[,;:]|\b(?:and|but|so|though)\b")


def _verdicts(turn: Turn, span: tuple[int, int], slots: list[Slot]) -> list[Fact]:
    """A thing the speaker calls good or bad, opening the sentence or a clause of it ("Linear
    is genuinely good", "spareroom is actually hell", "we use obsidian and honestly obsidian is
    good"): the speaker likes or dislikes it, and a place or a business it calls so in the past
    is one they went to. Of a person only plain praise counts, as a liking ("Sravya is a
    gem"): "Mum's good" says how she is, and a person run down is left alone; a question or a
    denial states nothing."""
    speaker = turn.speaker
    if speaker is None or speaker.type != "person":
        return []
    text = turn.text
    found: list[Fact] = []
    for slot in slots:
        thing = slot.entity
        if slot.pronoun or thing.type == "agent" or thing.id == speaker.id:
            continue
        opening = text[span[0] : slot.start].casefold()
        clauses = list(_CLAUSE_BREAK.finditer(opening))
        if clauses:
            opening = opening[clauses[-1].end() :]
        if not _VERDICT_OPENING.match(opening):
            continue
        after = text[slot.end : span[1]].casefold()
        if thing.type == "person":
            # a word only guessed a person ("ngl Spotlight is the best") is praised as no one
            guessed = thing.guessed and not is_world_given_name(thing.name.split()[0])
            if not guessed and _PERSON_PRAISE.match(after):
                found.append(Fact(speaker, thing, "LIKES", span[0], span[1]))
            continue
        if _BORNE_OUT.match(after) and thing.type in WHERE | {"event"}:
            # "Iloilo never disappoints", "Milwaukee was worth it": been, and liked
            found.append(Fact(speaker, thing, "LIKES", span[0], span[1]))
            if thing.type in WHERE:
                found.append(Fact(speaker, thing, "VISITED", span[0], span[1]))
            continue
        said = _VERDICT.match(after)
        if said is None or negated(said.group(0)):
            continue
        if said.group("sick") and thing.type not in WHERE | {"event"}:
            continue  # "Bingo is sick", "the laptop is sick again": ill or broken
        if not said.group("wild"):
            relation = "LIKES" if said.group("good") else "DISLIKES"
            found.append(Fact(speaker, thing, relation, span[0], span[1]))
        band = thing.type == "organization" and after.lstrip().startswith("were")
        if said.group("past") and thing.type == "event":
            found.append(Fact(speaker, thing, "ATTENDED", span[0], span[1]))  # "Glasto was epic"
        elif said.group("past") and thing.type in WHERE and not band:
            # "Lisbon was amazing", "the Markthal was incredible": the speaker was there (a
            # body that "were unreal" played: "Fontaines were unreal")
            found.append(Fact(speaker, thing, "VISITED", span[0], span[1]))
    return found


# The asker's own turn says they will not be there: "I'm not going lol" (``_REFUSED``), "I
# couldn't get tickets", "wish I could go"
_ASKER_STAYS = re.compile(r"\bwish\s+i\s+could\b|\bcouldn['’]?t\s+get\b", re.IGNORECASE)
# "are you coming to Koroga?", "you coming for the braai?": asked to come where the asker goes
_COMING_ASKED = re.compile(r"\b(?:you|u|ya|ye|yous)\s+(?:still\s+)?coming\b", re.IGNORECASE)


def _invited_to(turn: Turn, span: tuple[int, int], asked: Sequence[Fact]) -> list[Fact]:
    """The asker's own plan in asking someone to come to an event ("also are you coming for
    Koroga Festival next month? Akinyi got us tickets"): "come" is to where the asker will be."""
    speaker, addressee = turn.speaker, turn.addressee
    if speaker is None or addressee is None:
        return []
    if not _COMING_ASKED.search(turn.text, span[0], span[1]) or any(
        stays.search(turn.text) for stays in (_REFUSED, _ASKER_STAYS)
    ):
        return []
    return [
        replace(fact, source=speaker)
        for fact in asked
        if fact.relation == "PLANS"
        and fact.source.id == addressee.id
        and fact.target.type == "event"
        and not fact.presupposed
    ]


def _called_home(turn: Turn, span: tuple[int, int], slots: list[Slot]) -> list[Fact]:
    """A town the speaker calls home ("Stoneybatter is home now"), unless the sentence denies
    it or speaks of someone else's ("Lagos is home to 15 million", "Leeds is her home")."""
    speaker = turn.speaker
    if speaker is None or negated(turn.text[span[0] : span[1]].casefold()):
        return []
    return [
        Fact(speaker, slot.entity, "LIVES_IN", *span)
        for slot in slots
        if slot.entity.type == "place"
        and not slot.pronoun
        and (
            IS_HOME.match(turn.text, slot.end, span[1])
            or HOME_IS.search(turn.text, span[0], slot.start)
        )
    ]


# Whose home a place is, said by where one stays or eats: "come to ours in Leith for brunch",
# "Bec's letting us crash at hers in Battery Point", "kip at yours in Freo"; and "the naming
# ceremony here in Manchester" (not "here in Paris for the conference")
_AT_HOME_OF = re.compile(
    r"\b(?:at|to|round\s+to|over\s+at)\s+(?P<whose>ours|mine|yours|urs|hers|his|theirs)\s+"
    r"(?:in|on)\s+(?:the\s+)?$",
    re.IGNORECASE,
)
_HERE_IN = re.compile(r"\bhere\s+in\s+(?:the\s+)?$", re.IGNORECASE)


def _homes_by_the_way(turn: Turn, span: tuple[int, int], slots: list[Slot]) -> list[Fact]:
    """Homes said in passing (``_AT_HOME_OF``, ``_HERE_IN``)."""
    found: list[Fact] = []
    for slot in slots:
        if slot.pronoun or slot.entity.type != "place":
            continue
        lead = turn.text[max(span[0], slot.start - 40) : slot.start]
        at_home = _AT_HOME_OF.search(lead)
        owner: Named | None = None
        if at_home is not None:
            whose = at_home.group("whose").casefold()
            if whose in ("ours", "mine"):
                owner = turn.speaker
            elif whose in ("yours", "urs"):
                owner = turn.addressee
            else:
                people = [
                    s.entity
                    for s in slots
                    if s.entity.type == "person" and not s.pronoun and s.start < slot.start
                ]
                owner = people[-1] if people else None
        elif _HERE_IN.search(lead) and NOT_A_STAY.match(turn.text.lower(), slot.end):
            owner = turn.speaker
        if owner is not None and owner.id != slot.entity.id:
            found.append(Fact(owner, slot.entity, "LIVES_IN", *span))
    return found


# Work said in passing: a firm "without you" is the one both work at ("Lionfish Pay without
# u?? who will defend me in design crit"), and a first day or week at a firm is a job there,
# the speaker's unless whose is said or asked after ("first day at NatureScot!! how was it")
_WITHOUT_YOU = re.compile(r"\s+without\s+(?:you|u|ya|ye)\b", re.IGNORECASE)
_FIRST_DAYS = re.compile(
    r"\b(?:(?P<whose>my|your|ur|his|her)\s+)?(?:first\s+(?:day|week|shift)|(?:day|week)\s+(?:1|one))"
    r"\s+(?:at|in)\s+(?:the\s+)?$",
    re.IGNORECASE,
)
# One's post at a place: "my shift at", "my team at", "my old boss at", "your rota at"
_POST_AT = re.compile(
    r"\b(?P<whose>my|your|ur|our)\s+(?:(?P<was>old|former|ex)\s+|(?:night|day|late|early|long|"
    r"double|next|last|new)\s+)?"
    r"(?:shift|shifts|rota|team|boss|manager|colleagues|coworkers|co-workers)\s+(?:at|in)\s+"
    r"(?:the\s+)?$",
    re.IGNORECASE,
)
_STAFF = re.compile(r"\b(?:teach\w*|staff|colleagues?|boss|shift|lecturing|payroll)\b", re.I)
_OURS_BEFORE = re.compile(r"\b(?:our|their)\s+$", re.IGNORECASE)
_THE_BEFORE = re.compile(r"\bthe\s+$", re.IGNORECASE)
_HOW_WAS_IT = re.compile(r"\bhow(?:['’]s|['’]d|\s+(?:was|did|is))\b", re.IGNORECASE)


def _work_by_the_way(turn: Turn, span: tuple[int, int], slots: list[Slot]) -> list[Fact]:
    """Work said in passing (``_WITHOUT_YOU``, ``_POST_AT``, ``_FIRST_DAYS``)."""
    found: list[Fact] = []
    for slot in slots:
        if slot.pronoun or slot.entity.type != "organization":
            continue
        if _WITHOUT_YOU.match(turn.text, slot.end):
            # the one spoken to is leaving it, or has left
            found.extend(
                Fact(person, slot.entity, "WORKS_AT", *span, ended=person is turn.addressee)
                for person in (turn.speaker, turn.addressee)
                if person is not None
            )
            continue
        lead = turn.text[max(span[0], slot.start - 40) : slot.start]
        post = _POST_AT.search(lead)
        if post is not None:
            # one's post said as mine or yours: "after my shift at St. Luke's", "Jonas from my
            # team at Bosch", "your night shift at the Mater"
            mine = post.group("whose").casefold() in ("my", "our")
            owner = turn.speaker if mine else turn.addressee
            if owner is not None:
                was = post.group("was") is not None  # "my old boss at Deloitte": a job left
                found.append(Fact(owner, slot.entity, "WORKS_AT", *span, ended=was))
            continue
        first = _FIRST_DAYS.search(lead)
        if first is None or _OURS_BEFORE.search(lead, 0, first.start()):
            continue  # "our first day at Legoland was fun": a day out
        # "how's the first week at Sage?", "first day at NatureScot!! how was it": asked of the
        # one spoken to, in its sentence or the next
        following = [end for start, end in turn.sentences if start >= span[1]]
        asked = _HOW_WAS_IT.search(turn.text, span[0], min(following, default=span[1])) is not None
        if _THE_BEFORE.search(lead, 0, first.start()) and not asked:
            continue
        whose = (first.group("whose") or "").casefold()
        if whose == "my":
            owner = turn.speaker
        elif whose in ("your", "ur") or (not whose and asked):
            owner = turn.addressee
        elif whose:
            continue  # his or hers: whose, the rules for "he" and "she" say
        else:
            owner = turn.speaker
        if owner is not None:
            # "first week at Edinburgh Uni done!! halls are grim": a student's, not a job
            school = _SCHOOL.search(turn.text.lower(), slot.start, slot.end) and not _STAFF.search(
                turn.text
            )
            found.append(Fact(owner, slot.entity, "STUDIES_AT" if school else "WORKS_AT", *span))
    return found


# Someone's word passed on: "Hemi says it's the best dumplings in Melbourne", "Inês says we have
# to take you to Café Santiago", "Kiran says Heaton is cheaper", "mentioned Thornbury Hall ...
# said it was gorgeous".
_PASSED_ON = re.compile(
    # "Shireen aunty mentioned", "Marlon went last summer and says"
    r"(?:\s+(?:aunty|auntie|uncle|anna|akka|didi|bhai|tita|tito|lola))?"
    # "Bec from uni says", "Kiran from work reckons"
    r"(?:\s+from\s+(?:uni|work|college|school|church|the\s+gym|next\s+door|upstairs|"
    r"[A-Z][\w'’]+))?"
    r"(?:\s+[a-z'’]+(?:\s+[a-z'’]+){0,4}\s+and)?"
    r"\s+(?:says|said|reckons|swears|mentioned|recommends|suggested)\b(?:\s+that)?"
)
_PRAISE = re.compile(
    r"\b(?:best|good|great|lovely|amazing|gorgeous|worth|cheaper|closer|nicer|brilliant|unreal|"
    r"incredible|obsessed|fab|fantastic|perfect)\b"
    # advice to go: "we have to take you to Café Santiago", "you must try Zombie Burger" (not
    # "she has to go to Lagos", "I have to call Vodafone")
    r"|\b(?:you|u|we|ya)\s+(?:(?:really|definitely|def)\s+)?(?:have\s+to|must|should|"
    r"need\s+to|gotta|got\s+to)\s+(?:go|try|visit|take|check|book|see|eat|get|stay|do)\b",
    re.IGNORECASE,
)
# Advice away from a thing: "we should avoid Ryanair", "I should stop going to McDonald's"
_ADVISED_AGAINST = re.compile(r"\b(?:avoid|stop|sue|quit|skip|leave|leaving)\b", re.IGNORECASE)
_IT_FIRST = re.compile(r"\s+(?:it['’]?s|it\s+is|it\s+was|its)\b", re.IGNORECASE)
_PRAISED_THINGS = frozenset({"place", "organization", "product", "event", "other"})
_PASSED_REACH = 30  # characters from "says" to what it praises
_IN_BEFORE = re.compile(r"\bin\s+(?:the\s+)?$", re.IGNORECASE)


def _reported_praise(
    turn: Turn, span: tuple[int, int], slots: list[Slot], stated: Sequence[Fact]
) -> list[Fact]:
    """A person whose praise or advice the speaker passes on recommends the thing it is of:
    the first thing named after their "says" ("Kiran says Heaton is cheaper"), or, when they say
    "it's ...", the thing named last before them ("Shanghai Street, Hemi says it's the best
    dumplings"). Not when the sentence denies it, nor a thing already recommended."""
    text = turn.text
    sentence = text[span[0] : span[1]]
    if negated(sentence.casefold()) or _PRAISE.search(sentence) is None:
        return []
    if _ADVISED_AGAINST.search(sentence) or _SARCASM.search(text, span[0]):
        return []  # ("Sophie said Aldi was great... if you like queues": the rest of the turn)
    done = {(f.source.id, f.target.id) for f in stated if f.relation == "RECOMMENDED"}
    found: list[Fact] = []
    for index, slot in enumerate(slots):
        person = slot.entity
        if person.type != "person" or slot.pronoun:
            continue
        passed = _PASSED_ON.match(text, slot.end, span[1])
        if passed is None or _PRAISE.search(text, passed.end(), span[1]) is None:
            continue
        if _IT_FIRST.match(text, passed.end(), span[1]):
            before = [s for s in slots[:index] if s.entity.type in _PRAISED_THINGS]
            things = before[-1:]
        else:
            # close after the "says": "Owen said the best slide is the map of late pings near
            # the Severn Tunnel" praises a slide
            things = [
                s
                for s in slots[index + 1 :]
                if s.entity.type in _PRAISED_THINGS and s.start - passed.end() <= _PASSED_REACH
            ][:1]
        for thing in things:
            if thing.entity.type == "place" and _IN_BEFORE.search(text, span[0], thing.start):
                continue  # "the best sushi in Lagos": the town the praised thing is in
            if (person.id, thing.entity.id) not in done and not thing.pronoun:
                found.append(Fact(person, thing.entity, "RECOMMENDED", *span))
    return found


# A dislike said anywhere in the clause ("it's Confluence I can't stand", "they're on Resy now
# which I find deeply annoying").
_HATING = r"hate|can['’]?t\s+stand|cannae\s+stand|cannot\s+stand"
_DISLIKE_CUE = re.compile(
    r"\b(?:" + _HATING + r"|hates|annoying|the\s+worst|awful|terrible|useless|odio)\b",
    re.IGNORECASE,
)
# A feeling only imagined: "I'd hate to work at Amazon", "if it were Tesco"
_IMAGINING = r"i['’]d|would|if"
_IMAGINED = re.compile(r"\b(?:" + _IMAGINING + r")\b", re.IGNORECASE)
# A liking said in the clause ("the lamb was unreal, if that was Mehfil", "Slack, which i
# actually like"), not one reported of someone else ("Hemi says it's the best").
_LIKE_CUE = re.compile(
    r"\b(?:love|loved|obsessed|the\s+best|amazing|unreal|fave|favourite|favorite|worth\s+it|"
    r"i\s+(?:actually\s+|really\s+)?like|amei|adore)\b",
    re.IGNORECASE,
)
_CLAUSE_BOUNDS = re.compile(r"[,;:]|\s(?:but|though|tho|whereas)\s", re.IGNORECASE)
# A liking counts close to the thing only, whatever stands between ("Slack, which i actually
# like", "CicloCathays 😂 amei"): further off it is as often of someone or something else
# ("Love that for you ❤️ I'm still trying to convince RBC").
_LIKE_REACH = 30


def _clause_of(text: str, span: tuple[int, int], slot: Slot) -> str:
    """The clause of the sentence the slot stands in (commas, "but" and the like bound it)."""
    start, end = span
    for bound in _CLAUSE_BOUNDS.finditer(text, span[0], span[1]):
        if bound.end() <= slot.start:
            start = bound.end()
        elif bound.start() >= slot.end:
            end = bound.start()
            break
    return text[start:end]


def _leanings(
    turn: Turn, span: tuple[int, int], slots: list[Slot], stated: Sequence[Fact]
) -> list[Fact]:
    """What the speaker's words lean to when no rule read a fact of a thing in the turn: an
    event named in a sentence about what is to come is one they plan to go to ("Chale Wote
    saturday then Buka"), a business, product or place named in a clause that calls it hateful
    one they dislike ("it's Confluence I can't stand"), and a business or product said close to
    a liking one they like. Looser than the rules (the gold files' turns bear about a third of
    them out), so only what nothing else read, only of the speaker's own words (not "my sister
    hates Ryanair", "Tomás will be at Glastonbury"), and never of a thing only named beside what
    is judged ("the traffic in Lagos is terrible", "LOVE when Eskom cuts power")."""
    speaker = turn.speaker
    if speaker is None:
        return []
    text = turn.text
    sentence = text[span[0] : span[1]].casefold()
    spoken_of = {fact.target.id for fact in stated} | {fact.source.id for fact in stated}
    found: list[Fact] = []
    for slot in slots:
        thing = slot.entity
        if slot.pronoun or thing.id in spoken_of or thing.id == speaker.id:
            continue
        before = text[span[0] : slot.start]
        # Someone else's words, or the thing only named beside what is judged
        aside = (
            _OTHERS_SPOKEN_OF.search(before) is not None
            or _NAMED_FIRST.match(before) is not None
            or any(
                other.entity.type == "person" and other.entity.id != speaker.id
                for other in slots
                if other.start < slot.start
            )
        )
        if thing.type == "event":
            if (
                not aside
                and future(sentence)
                and not (negated(sentence) or _NOT_GOING.search(sentence))
            ):
                found.append(Fact(speaker, thing, "PLANS", *span))
            continue
        if thing.type not in ("organization", "product", "place"):
            continue
        aside = aside or _BESIDE_THE_THING.search(before) is not None
        clause = _clause_of(text, span, slot)
        cue = _DISLIKE_CUE.search(clause)
        # "they moved us to Asana which I find deeply annoying": the speaker's own "I" says so
        own = cue is not None and _OWN_FEELING.search(clause, 0, cue.start()) is not None
        if cue is None and not aside and _disliked_after(text, span, slot, slots, speaker):
            found.append(Fact(speaker, thing, "DISLIKES", *span))
            continue
        if (
            cue is not None
            and (own or not aside)
            and not negated(clause.replace(cue.group(0), " "))
            and not _IMAGINED.search(clause)
        ):
            found.append(Fact(speaker, thing, "DISLIKES", *span))
            continue
        said = text[max(span[0], slot.start - _LIKE_REACH) : min(span[1], slot.end + _LIKE_REACH)]
        if (
            not aside
            and not _OVER_BEFORE.search(before)
            and thing.type != "place"  # a town is loved as often for who is there
            and _LIKE_CUE.search(said)
            and not negated(said)
            and not _REPORTED.search(said.casefold())  # "Hemi says it's the best"
            and not _SARCASM.search(said)
            and not _SARCASM.search(text, span[0])
        ):
            found.append(Fact(speaker, thing, "LIKES", *span))
    return found


# The speaker's own feeling, said just before the word of it: "which I find", "I can't"
_OWN_FEELING = re.compile(r"\b(?:i|we)\b[^,;.!?]{0,20}$", re.IGNORECASE)
# A dislike of "them" or "it" later in the sentence ("Indigo as usual, I hate them"), not of
# what follows ("I hate it when he's late")
_HATE_IT = re.compile(
    r"\b(?:" + _HATING + r")\s+(?:them|it)\b"
    r"(?!\s+(?:when|if|that|here|there|how)\b)",
    re.IGNORECASE,
)
# The one who dislikes is the speaker: "I" or "we" just before, or nobody, as a clause opens
# ("ScotRail's on strike again 🙄 cannae stand them"; not "tyler can't stand them")
_SPEAKER_FEELS = re.compile(
    r"(?:" + _OWN_FEELING.pattern.removesuffix("$") + r"|(?:^|[^\w\s'’])\s*)$", re.IGNORECASE
)


# What may stand beside a thing in its clause when "it" is the thing: "ugh Slack is down
# again", "took SkyJet as usual" (not "binged the new season on Netflix", "the Access Bank crew")
_ASIDE_WORDS = re.compile(
    r"(?:[^\w]|\b(?:ugh+|omg|lol|honestly|tbh|so|and|but|again|as\s+usual|as\s+always|"
    r"today|seriously|man|smh)\b)*",
    re.IGNORECASE,
)
# The subject and verb of a clause about the thing: "Slack is down", "MTN's down", "Eskom cut"
_ABOUT_IT = re.compile(r"\s*(?:is|was|are|['’]s|has|have|keeps?|just)\b", re.IGNORECASE)
_PREPOSITION_BEFORE = re.compile(r"\b(?:on|in|at|with|from|to|for|by|of|about|via)\s*$", re.I)
_NOT_FELT = re.compile(r"\b(?:" + _IMAGINING + r"|used\s+to|thought|think|might)\b", re.IGNORECASE)


def _disliked_after(
    text: str, span: tuple[int, int], slot: Slot, slots: list[Slot], speaker: Named
) -> bool:
    """Whether the speaker says later in the sentence they hate "them" or "it", meaning the
    thing at ``slot``: the last one named before it, nobody else named in between, and what
    its clause is about (the clause's subject, "ugh Slack is down again, I hate it", or what
    it ends on as what was done, "took SkyJet as usual, I hate them"); not "I don't hate
    them", "I'd hate it", "I used to hate it"."""
    said = _HATE_IT.search(text, slot.end, span[1])
    if said is None or not _SPEAKER_FEELS.search(text, span[0], said.start()):
        return False
    feeling = text[max(span[0], said.start() - 30) : said.end()]
    if negated(feeling) or _NOT_FELT.search(feeling):
        return False
    if any(
        slot.end <= other.start < said.start() and other.entity.id != speaker.id for other in slots
    ):
        return False
    starts = [bound.end() for bound in _CLAUSE_BOUNDS.finditer(text, span[0], slot.start)]
    before = text[starts[-1] if starts else span[0] : slot.start]
    bound = _CLAUSE_BOUNDS.search(text, slot.end, said.start())
    after = text[slot.end : bound.start() if bound else said.start()]
    subject = _ASIDE_WORDS.fullmatch(before) is not None and _ABOUT_IT.match(after) is not None
    ends_on = _ASIDE_WORDS.fullmatch(after) is not None and not _PREPOSITION_BEFORE.search(before)
    return subject or ends_on


# Someone else the sentence speaks of before the thing: "my sister is doing the Comrades",
# "Dave's mum can't stand Tesco", "she hates Uber"
_OTHERS_SPOKEN_OF = re.compile(
    r"\b(?:he|she|they|he['’]s|she['’]s|they['’]re|hes|shes|his|her|their|"
    r"(?:my|our|your|ur)\s+(?:[\w-]+\s+)?(?:" + "|".join(sorted(KIN_RELATIONS)) + r"|friend|"
    r"mate|boss|manager|flatmate|roommate|colleague|neighbou?r)|\w+['’]s\s+(?:mum|mom|dad|"
    r"sister|brother|wife|husband|boyfriend|girlfriend))\b",
    re.IGNORECASE,
)
# A name opening the sentence as its subject, read or not ("Tomás will be at Glastonbury")
_NAMED_FIRST = re.compile(r"\W*(?!I\b)[A-Z][\w'’-]*\s+(?:will|is|was|has|had|and|says|said)\b")
# An event watched or missed is not gone to: "watching Glastonbury on TV", "tickets will sell out"
_NOT_GOING = re.compile(
    r"\b(?:watch|watching|tv|telly|stream|streaming|sell\s+out|sold\s+out|stay(?:ing)?\s+home|"
    r"miss|missing|skip|skipping)\b"
)
# A thing named only beside what is judged: "traffic in Lagos", "my flight to Nairobi", "a
# terrible day at Shoprite", "the worst part of Nando's" ("on Resy", "with Ryanair" still are)
_BESIDE_THE_THING = re.compile(r"\b(?:in|at|from|to|of|near|around|about)\s+(?:the\s+)?$", re.I)
# "LOVE when Eskom cuts power", "amazing how Deliveroo always forgets", "best thing about
# leaving Grab": a complaint
_SARCASM = re.compile(
    r"\b(?:love|loving|amazing|unreal|great)\s+(?:how|when|that)\b|\bbest\s+thing\s+about\b|"
    r"\bsaid\s+no\s+one\b|\bif\s+you\s+like\b|\byeah\s+right\b",
    re.IGNORECASE,
)
# A liking of one thing over another, or a dislike only imagined: "I like Zomato more than
# Swiggy", "I'd hate to work at Amazon"
_OVER_BEFORE = re.compile(r"\b(?:than|over|instead\s+of)\s+(?:the\s+)?$", re.IGNORECASE)


def _sentence_facts(
    turn: Turn, span: tuple[int, int], slots: list[Slot], companion: Slot | None
) -> list[Fact]:
    text = turn.text
    lowered = text.casefold()
    sentence_text = lowered[span[0] : span[1]]
    found: list[Fact] = []

    def add(source: Named, target: Named, relation: str, ended: bool = False) -> None:
        if relation in PERSON_ONLY and source.type == "organization":
            return
        if source.id != target.id and source.type != "agent" and target.type != "agent":
            found.append(Fact(source, target, relation, span[0], span[1], ended))

    facts_of: dict[int, list[tuple[Named, str, bool, bool]]] = {}
    for index, subject in enumerate(slots):
        if subject.object_only or subject.entity.type not in SUBJECT_TYPES:
            continue
        if _SUPPOSED.search(lowered, span[0], subject.start):
            continue  # "if Dr Okonjo likes me", "I wonder if Sam works at Google": not said
        mine = facts_of.setdefault(index, [])
        for other in slots[index + 1 :]:
            if other.start - subject.end > MAX_GAP:
                break
            if other.pronoun and not other.object_only and other.entity.type != "person":
                continue
            target = other.entity
            if target.type not in NAMED_TYPES or target.id == subject.entity.id:
                continue
            if other.pronoun and lowered[other.start : other.end] in _OWNERS_ONLY:
                continue  # "I love your turtles": the turtles are loved, not their owner
            if lowered[subject.start : subject.end] in _POSSESSIVES and any(
                not slot.pronoun and slot.entity.type == "person"
                for slot in slots
                if subject.end <= slot.start < other.start
            ):
                continue  # "my sister Priya got the job at Adyen": Priya's job, not mine
            # a title's opening quote is no word: 'I loved "Becoming Nicole"'
            between = lowered[subject.end : other.start].removesuffix('"').removesuffix("“")
            titled = _TRAILING_MISS.search(text, subject.end, other.start)
            if titled is not None:
                between = lowered[subject.end : titled.start()]
            if subject.start == subject.end:
                between = " " + between  # a dropped "I" stands before the sentence's verb
            there = lowered[other.start : other.end] == "there"
            if there:
                read = _there_fact(between, target, sentence_text, lowered, other)
            else:
                read = _verb_fact(between, target, sentence_text, lowered, other)
            contraction = _CONTRACTED.search(lowered[subject.start : subject.end])
            if read is None and contraction is not None and not there:
                # "she's in Dundee", "youre in Penarth": the pronoun's own "'s" is the verb.
                verb = "'" + contraction.group(0).lstrip("'’")
                read = _verb_fact(verb + between, target, sentence_text, lowered, other)
            named_is = _NAME_IS.match(between)
            if read is None and named_is is not None and not subject.pronoun:
                # "Paolo's moving to Leeds", "Ama's been at MTN for years": "is", "has"
                verb = " has " if named_is["word"] in ("been", "got") else " is "
                read = _verb_fact(
                    verb + between[named_is.end("s") :], target, sentence_text, lowered, other
                )
            if read is None:
                continue
            relation, reverse, ended = read
            said_maybe = lowered[subject.start : subject.end] + between  # "I'd" + " live in "
            if relation in _STATES and _MAYBE.search(said_maybe):
                continue  # "we could buy a house in Osborne Village", "I'd never live in Leeds"
            if relation in ("LIKES", "RECOMMENDED") and _NOT_OF_IT.search(between):
                continue  # "just like you", "I recommended it to you": a likeness, a recipient
            if (
                ended
                and _PERFECT_SUBJECT.search(lowered, max(0, subject.start - 8), subject.end)
                and not LEFT_WORDS.search(between)  # "I've left Google" is over
            ):
                ended = False  # "I've lived in Leeds for five years", "how long have you lived"
            if relation == "LIVES_IN" and ended and _CHILDHOOD.match(lowered, other.end, span[1]):
                relation, ended = "FROM", False  # "we lived in Casablanca until I was twelve"
            if (
                relation == "LIVES_IN"
                and not ended
                and (
                    _WHEN.search(lowered, span[0], subject.start)
                    or _NOT_LIVED_IN.search(sentence_text)
                )
            ):
                # "text me when youre in brissie": a stay to come; "our place in Spain is rented
                # out": a home let, sold or for holidays; neither is where one lives
                break
            if relation == "KNOWS" and (
                _NAMED_AS.search(lowered, subject.start, other.start)
                or (other.pronoun and _CONTACTED.search(between))
            ):
                # "she's called Bernie" names her; "I'll call him", "Idris messaged me": a call
                # to a name is a fact of knowing, one to a pronoun too often someone else's;
                # knowing a pronoun is knowing what it goes on to say ("I know you can do it",
                # "let you know I ran it")
                break
            mine.append((target, relation, reverse, ended))
            break
    for index, subject in enumerate(slots):
        for target, relation, reverse, ended in facts_of.get(index, ()):
            if reverse:
                add(target, subject.entity, relation, ended)
            else:
                add(subject.entity, target, relation, ended)
                if (
                    companion is not None
                    and relation in _SHARED_BY_US
                    and span[0] <= companion.start < subject.start
                    and lowered[subject.start : subject.end] in _WE
                    and not _WE_OF_OTHERS.search(lowered, span[0], span[1])
                    and not any(
                        companion.end <= slot.start < subject.start
                        and not slot.pronoun
                        and slot.entity.type == "person"
                        for slot in slots
                    )
                ):
                    # "Geoff and I went to Garda in 1998, we stayed in Sirmione": we two
                    add(companion.entity, target, relation, ended)
        # "Lena and I are climbing ...": the first of a pair shares the second's facts. (A
        # name that starts with the pair, "Ada and Callum's wedding", is not the second.)
        later = [at for at in range(index + 1, len(slots)) if slots[at].start >= subject.end]
        if later:
            partner = slots[later[0]]
            joined = lowered[subject.end : partner.start]
            if re.fullmatch(r"\s+and\s+", joined) and subject.entity.type == "person":
                for target, relation, reverse, ended in facts_of.get(later[0], ()):
                    if reverse:
                        add(target, subject.entity, relation, ended)
                    else:
                        add(subject.entity, target, relation, ended)
                after = lowered[partner.end : partner.end + 60]
                if partner.entity.type == "person":
                    couple = COUPLE_AFTER.match(after)
                    if couple:
                        # "Tom and I got married", "you and Ama have been married": spouses
                        wed = _WED.search(couple.group(0))
                        add(subject.entity, partner.entity, "MARRIED_TO" if wed else "PARTNER_OF")
                    elif PAIR_MET.match(after):
                        add(subject.entity, partner.entity, "KNOWS")
    found.extend(_kin_facts(turn, span, slots))
    found.extend(_went_facts(turn, span, slots, lowered))
    found.extend(_project_facts(turn, slots))
    found.extend(_advice_facts(turn, span, slots, lowered))
    found.extend(_home_facts(turn, span, slots, lowered))
    found.extend(_proposal_accepted(turn, span, slots, lowered))
    return found


# "Marlon went last summer", "my friend Paola went last year": went, the place left unsaid
_WENT_WHEN = re.compile(
    r"\s+(?:also\s+|already\s+)?went\s+(?:last\s+(?:week|weekend|month|year|summer|winter|"
    r"spring|autumn|fall|time)|this\s+(?:year|summer|spring|month)|in\s+(?:19|20)\d\d|"
    r"(?:\w+\s+){1,2}ago|yesterday|twice|once|before)\b(?!\s+(?:to|instead|for)\b)"
)


def _went_facts(turn: Turn, span: tuple[int, int], slots: list[Slot], lowered: str) -> list[Fact]:
    """Someone who "went last summer" visited the place, or went to the occasion, that was
    just named: "ok but Budapest ..." / "Marlon went last summer and says the baths are the
    best bit" (not "went home", "went with Saga": those say where or how)."""
    facts = []
    for slot in slots:
        if slot.entity.type != "person" or slot.object_only or slot.start == slot.end:
            continue
        if not _WENT_WHEN.match(lowered, slot.end) or negated(lowered[span[0] : slot.end + 12]):
            continue
        if _SUPPOSED.search(lowered, span[0], slot.start):
            continue  # "if Fiachra went last year he'd know"
        where = where_named(turn, slot.start) or turn.earlier_where
        if where is not None:
            relation = "ATTENDED" if where.type == "event" else "VISITED"
            facts.append(Fact(slot.entity, where, relation, span[0], span[1]))
    return facts


# A state said only as possible, wished or refused: "we could buy a whole house in Osborne
# Village", "I would live in Lisbon if I could", "I'd never work at Meta"
_MAYBE = re.compile(
    r"\b(?:would|could|might|wouldn['’]?t|couldn['’]?t)\b|['’]d\s+(?:never|love\s+to|like\s+to|"
    r"rather|live|work|move|study|stay|marry)\b"
)
_STATES = frozenset({"LIVES_IN", "WORKS_AT", "STUDIES_AT", "MOVED_TO", "MARRIED_TO", "OWNS"})
_WE = frozenset({"we", "we're", "we’re", "we've", "we’ve", "we'll", "we’ll", "we'd", "we’d"})
# What the "we" of a pair did or means to do together (not whom each knows or is kin to).
_SHARED_BY_US = frozenset({"LIVES_IN", "MOVED_TO", "VISITED", "ATTENDED", "PLANS"})
# A "we" the sentence gives others: "me and my wife", "my family and I, we", "our team we",
# "Tom and I are divorced now, we live in Leeds and he lives in York"
_WE_OF_OTHERS = re.compile(
    r"\b(?:(?:my|our|the)\s+(?:family|wife|husband|parents|kids|team|others|lot)|divorced|"
    r"split\s+up|broke\s+up)\b"
)
_PAIR_WITH_ME = re.compile(r"\s+(?:and|&)\s+(?:i|me|myself)\b")
# "me and Jun", "me and our Karen", "myself and my sister Zodwa"
_ME_AND = re.compile(r"\b(?:me|i|myself)\s+(?:and|&)\s+(?:(?:our|my)\s+(?:[\w-]+\s+)?)?$")


def _companion(turn: Turn) -> Slot | None:
    """The one person the speaker pairs with in the turn ("Geoff and I", "me and our Karen"),
    whom a later "we" takes in too; none if the turn pairs with two."""
    lowered = turn.text.casefold()
    paired = [
        slot
        for slot in turn.names
        if slot.entity.type == "person"
        and slot.entity is not turn.speaker
        and (
            _PAIR_WITH_ME.match(lowered, slot.end)
            or _ME_AND.search(lowered, max(0, slot.start - 30), slot.start)
        )
    ]
    return paired[0] if len({slot.entity.id for slot in paired}) == 1 else None


# Someone a plan is made with: "going to TIFF with my friend Leah", "are you still going to
# Sinulog with Enzo?" (not "staying with Enzo's cousin": the owner names someone else, nor
# "moving to Melbourne to be with Jun Hao": he is there already)
_GOING_WITH = re.compile(
    r"(?<!\bbe\s)\bw(?:ith|/)\s+(?:(?:my|our|your|ur|his|her)\s+(?:[\w-]+\s+){0,2})?$",
    re.IGNORECASE,
)
_WITH_REACH = 40  # characters from the plan's target to "with": "Sinulog in January with Enzo"


def _going_with(
    turn: Turn, span: tuple[int, int], members: list[Slot], found: list[Fact]
) -> list[Fact]:
    """The person a plan of this sentence is made with, named right after its target: their
    plan too."""
    plans = [f for f in found if f.relation == "PLANS" and not f.ended]
    if len({f.target.id for f in plans}) != 1:
        return []
    target = plans[0].target
    where = [s for s in members if s.entity.id == target.id and not s.pronoun]
    people = [
        slot
        for slot in members
        if not slot.pronoun
        and slot.entity.type == "person"
        and where
        and where[0].end < slot.start <= where[0].end + _WITH_REACH
        and _GOING_WITH.search(turn.text, where[0].end, slot.start)
        and not _OWNER_OF_NEXT.match(turn.text, slot.end)
        and slot.entity.id not in {f.source.id for f in plans}
    ]
    if not people:
        return []
    return [Fact(people[0].entity, target, "PLANS", *span)]


# Calling as naming, and the words of getting in touch (``_sentence_facts`` on KNOWS).
_NAMED_AS = re.compile(r"(?:['’]s|\bis|\bwas|\bare|\bwere|\bbe|\bbeen|\bgets?)\s+called\s*$")
_CONTACTED = re.compile(
    r"\b(?:message|messaged|messaging|text|texted|texting|email|emailed|emailing|phoned|rang|"
    r"call|called|calling|ring|facetime|facetimed|dm|dmed|dm'd|know|knows|knew)\s*$"
)

# A condition or a wondering right before a subject: what follows is supposed, not stated.
_WHEN = re.compile(r"\b(?:when|whenever|once|til|till|until|while)\s+$")
_SUPPOSED = re.compile(
    r"\b(?:if|unless|whether|in case)\s+(?:(?:my|your|his|her|our|their|the)\s+(?:[\w-]+\s+){0,2})?"
    r"(?:(?:dr|mr|mrs|ms)\.?\s+)?$"
)


# What one must or should do, with a word to stress it: "(you) really have to", "should".
_MUST = (
    r"(?:(?:really|honestly|seriously|absolutely|definitely|defo)\s+)?"
    r"(?:have\s+to|must|should|gotta|need\s+to|['’]ve\s+got\s+to|ought\s+to)\s+"
)
# "(you) have to go to", "should go to": said of someone who has not been (yet)
_MUST_GO = re.compile(r"^\s+" + _MUST + r"(?:go|visit)\b")
# Advice opening a clause, up to the name it points at: "Try Stoneybatter or Phibsboro", "but go
# to Declan Furlong at the clinic", "go and see Linh", "use Mama Tee" (not "don't go to …").
# "take Pendolino, it's faster", "maybe try Headspace"
_ADVISED_DOING = (
    r"(?:try|use|take|go\s+to|go\s+and\s+see|go\s+see|check\s+out|ask\s+for|watch|read|"
    r"listen\s+to|visit)"
)
_ADVICE = re.compile(
    r"(?:(?:(?:^|[,;:.!?]|\b(?:but|so|just|then|and|or|yes|yeah|ok|okay|honestly|defo|"
    r"definitely|maybe|also))\W*"
    # "you HAVE to go to Gwangjang Market", "u should try Nando's": told, not done
    r"|\b(?:you|u)\s+"
    + _MUST
    + r")"
    + _ADVISED_DOING
    # "you HAVE to do Shaw's Lobster Pound when you come" (not "so do Tom and I")
    + r"|\b(?:you|u)\s+"
    + _MUST
    + r"do)"
    r"\s+(?:the\s+)?(?:[\w'’-]+(?:\s+[\w'’-]+){0,2}\s+(?:or|and)\s+)?"
    r"(?:(?:" + "|".join(sorted(TITLES)) + r")\.?\s+)?$"  # "go to Dr. Mensah at Nyaho"
    # "you'd love Grano", "you'll love the Stag's Head": what one is sure the other will like
    r"|\b(?:you|u)(?:['’]d|['’]ll|\s+would|\s+will)\s+(?:(?:really|absolutely|totally)\s+)?"
    r"love\s+(?:the\s+)?$"
)


def _advice_facts(turn: Turn, span: tuple[int, int], slots: list[Slot], lowered: str) -> list[Fact]:
    """What a person tells the other to try, go to or use is what they recommend (``lowered``
    is the turn's text, case-folded)."""
    speaker = turn.speaker
    if speaker is None:
        return []
    found = []
    for slot in slots:
        target = slot.entity
        if slot.pronoun or target.id == speaker.id or target.type not in NAMED_TYPES:
            continue
        before = lowered[span[0] : slot.start]
        advice = _ADVICE.search(before)
        if advice is None or _NEGATED_ADVICE.search(before, 0, advice.start()):
            continue
        if target.type == "place" and advice.group(0).rstrip().endswith(("love", "love the")):
            continue  # "you'll love Cape Town": a town the other is moving to, no tip
        if target.type == "person" and _DO_SOMEONE.search(advice.group(0)):
            continue  # "you have to do Shaw's Lobster Pound": a place, whatever "Shaw" is
        # "Gary says you have to try Zombie Burger": the advice is Gary's, passed on
        reported = list(_REPORTED.finditer(before, 0, advice.start()))
        adviser: Named | None = speaker
        if reported:
            said_at = span[0] + reported[-1].start()
            people = [s.entity for s in slots if s.end <= said_at and s.entity.type == "person"]
            adviser = people[-1] if people else None
        if adviser is not None and adviser.id != target.id:
            found.append(Fact(adviser, target, "RECOMMENDED", span[0], span[1]))
    return found


_DO_SOMEONE = re.compile(r"\bdo\s+(?:the\s+)?$")
_NEGATED_ADVICE = re.compile(r"\b(?:don't|don’t|do\s+not|never)\s*$")
_REPORTED = re.compile(r"\b(?:says|said|reckons|thinks|swears)\b")

# "halfway from mine in Porirua", "a bit far from me in Partick", "she moved in with me in
# Salthill": where the speaker is at home.
_FROM_HOME = re.compile(
    r"\b(?:(?:from|near|to|round|by|past)\s+(?:mine|me|ours|us)|moved\s+in\s+with\s+(?:me|us))"
    r"\s+(?:(?:over|up|down|out)\s+)?in\s+(?:the\s+)?$"
)


def _proposal_accepted(
    turn: Turn, span: tuple[int, int], slots: list[Slot], lowered: str
) -> list[Fact]:
    """ "Declan proposed on the prom last Sunday, and I said yes!": the two are engaged."""
    speaker = turn.speaker
    if speaker is None or not _SAID_YES.search(lowered):
        return []
    return [
        Fact(speaker, slot.entity, "PARTNER_OF", span[0], span[1])
        for slot in slots
        if not slot.pronoun
        and slot.entity.type == "person"
        and slot.entity.id != speaker.id
        and _PROPOSED.match(lowered, slot.end, span[1])
    ]


_PROPOSED = re.compile(r"\s+(?:finally\s+|just\s+)?(?:proposed|popped\s+the\s+question)\b")
_SAID_YES = re.compile(r"\b(?:i|we)\s+said\s+yes\b")


def _home_facts(turn: Turn, span: tuple[int, int], slots: list[Slot], lowered: str) -> list[Fact]:
    """A place named as where the speaker's home is, measured from ("from mine in X"), is
    where they live (``lowered`` is the turn's text, case-folded); one followed by where they
    grew up ("back in Kumasi, where I grew up") is where they are from."""
    speaker = turn.speaker
    if speaker is None or speaker.type != "person":
        return []
    places = [slot for slot in slots if not slot.pronoun and slot.entity.type == "place"]
    found = [
        Fact(speaker, slot.entity, "FROM", span[0], span[1])
        for slot in places
        if _WHERE_I_GREW_UP.match(lowered, slot.end, span[1])
    ]
    if _NOT_LIVED_IN.search(lowered, *span):
        return found
    return found + [
        Fact(speaker, slot.entity, "LIVES_IN", span[0], span[1])
        for slot in places
        if _FROM_HOME.search(lowered, span[0], slot.start)
    ]


# "Just like you", "feels like Leeds", "I recommended it to you": the object is compared with
# or given something, not liked or recommended.
_NOT_OF_IT = re.compile(
    r"\b(?:just|exactly|much|more|feel|feels|felt|look|looks|looked|sound|sounds|sounded|seem|"
    r"seems|seemed)\s+like\s+$|\b(?:it|them|this|that|these|those|one)\s+to\s+"
    r"(?:$|(?:you|u|me|him|her|them|us)\b)"
)
# A home left in childhood is where one is from.
_CHILDHOOD = re.compile(
    r"\W*(?:until|till|when|as)\s+(?:i|we)\s+(?:was|were)\s+(?:\d+|[a-z]+teen|twelve|eleven|ten|"
    r"nine|eight|seven|six|five|four|three|two|little|small|young|kids?|a\s+kid|a\s+child|"
    r"children|babies|a\s+baby)\b|\W*as\s+(?:a\s+)?(?:kids?|children|a\s+child)\b"
)
# A subject in the present perfect: "I've", "we’ve", "have you", "has she".
_PERFECT_SUBJECT = re.compile(r"\b(?:\w+['’]ve|(?:have|has)\s+\w+)$")
# A question of how long something has held takes it as so.
_HOW_LONG = re.compile(r"\bhow\s+long\s+(?:have|has|had|'ve|’ve)\b", re.IGNORECASE)
# A couple said to be married already (not "getting married", a wedding or engaged).
_WED = re.compile(r"\b(?<!getting\s)married\b")
_WHERE_I_GREW_UP = re.compile(
    r",?\s+where\s+(?:i|we)\s+(?:both\s+)?(?:grew\s+up|was\s+born|were\s+born|was\s+raised|"
    r"were\s+raised)\b"
)


# A home that is let, sold or for holidays is not where one lives: "our place in Spain is rented
# out all summer", "my flat in Leeds is up for sale".
_NOT_LIVED_IN = re.compile(
    r"\b(?:rent(?:ed|ing)?\s+(?:it\s+)?out|let\s+out|tenants?|for\s+sale|selling|sold|holiday|"
    r"can['’]?t\s+use\s+it)\b"
)


# A sentence that calls the one spoken to by a kinship word: "best sister 💛", "night mum x".
_KIN_ADDRESS = re.compile(
    r"^\W*(?:(?:thanks|thank\s+(?:you|u)|ty|love\s+(?:you|u|ya)|miss\s+(?:you|u|ya)|night|"
    r"morning|hey|hi|hiya|bye|ok|okay|sorry)\s*,?\s+)?(?:(?:my|best|fave|favourite|"
    r"favorite|lil|little|big|baby|dear)\s+)?(?P<kin>sister|brother|mum|mom|mummy|mommy|dad|"
    r"daddy|son|daughter|cousin|wife|husband|hubby)\W*(?:x+\W*)?$",
    re.IGNORECASE,
)
_SPOUSES = frozenset({"wife", "husband", "hubby"})
# Parents' words: calling the other speaker so is their child speaking ("sis", "son", "cuz"
# and "bro" call friends as often, so they alone say nothing).
_PARENT_CALLS = r"(?:mum|mom|ma|mam|mama|mummy|mommy|dad|daddy|papa)"
# A greeting, a thanks or an answer before a call ("thank you ma", "yes Ma I'll be there").
_CALL_OPENERS = (
    r"(?:thanks|thank\s+(?:you|u)|ty|love\s+(?:you|u|ya)|miss\s+(?:you|u|ya)|night|nite|"
    r"morning|hey|hi|hiya|bye|ok|okay|yes|yeah|ya|no|nah|sorry|please|pls|amen)"
)
# A kinship word that calls the one spoken to without being the whole sentence: a parent's word
# after a greeting or a comma, closing the sentence or before "I" ("ok, see you sunday, mum x",
# "yes Ma I'll be there"), or opening it before a comma ("Ma, are you home?"); a younger or
# elder sibling's closing a clause after a comma or a particle ("get over it little bro";
# not "I have a little brother", "she's like a big sister", "Tom's little sis").
_KIN_CALLED = re.compile(
    r"(?:(?<![\w'’])"
    + _CALL_OPENERS
    + r",?\s+|,\s*)"
    + _PARENT_CALLS
    + r"\b(?=\W*(?:x+\W*)?$|\s+(?:i|i['’]m|i['’]ll|we|we['’]ll)\b)"
    r"|^\W*" + _PARENT_CALLS + r"\s*,\s+(?!(?:and|&)\b|(?-i:[A-Z]))"
    r"|(?:,\s*|\b(?:it|up|on|out|off|now|then|too|lol|haha)\s+)(?:lil|little|big|baby)\s+"
    r"(?:bro|brother|sis|sister)\W*$",
    re.IGNORECASE,
)


def _kin_address(turn: Turn, span: tuple[int, int]) -> list[Fact]:
    """The family tie of a sentence that addresses the other speaker by a kinship word ("night
    sister x"); "yes my brother" answers who someone is, and calls no one."""
    speaker, addressee = turn.speaker, turn.addressee
    said = turn.text[span[0] : span[1]]
    whole = _KIN_ADDRESS.match(said)
    if speaker is None or addressee is None or addressee.type != "person":
        return []
    if whole is None and _KIN_CALLED.search(said) is None:
        return []
    if whole is not None and said.rstrip().endswith("?"):
        return []  # "my cousin??" answers "who's Wendell?"; it calls nobody
    if speaker.id == addressee.id:
        return []
    spouse = whole is not None and whole.group("kin").casefold() in _SPOUSES
    relation = "MARRIED_TO" if spouse else "FAMILY_OF"
    return [Fact(speaker, addressee, relation, span[0], span[1])]


_WENT = re.compile(r"\bwent\b")
# A school's name that is no school ("the MIT Museum", "the University Arms"), and what after a
# school's name says the visit was for something else or the stay a job ("for the concert",
# "as a lecturer")
_NOT_A_SCHOOL = re.compile(r"\b(?:museum|arms|gallery|library|hall|church|chapel|hotel)\b")
_FOR_OR_AS = re.compile(
    r"\s+(?:(?:for|as)\b(?!\s+(?:my|a|an|her|his|their)\s+(?:masters|degree|phd|undergrad|mba|"
    r"bachelors?|diploma|studies)\b)|to\s+(?:see|pick|watch|drop|meet|collect|visit)\b|"
    r"(?:dinner|party|gala|event|awards|concert|match|game|ball)\b)"
)
# Years at a school spent teaching there: "I lectured for five years at University of Ibadan"
_TAUGHT = re.compile(r"\b(?:lectur|taught|teach|work|research)\w*")
_YEAR_OF_STUDY = re.compile(
    r"(?P<in>\bin\s+(?:my|her|his|their|our)\s+)?\b(?:first|second|third|fourth|last)\s+"
    r"(?:year|yr)\b"
)
_YEARS_OF = re.compile(YEARS_OF)
# When a school year starts: going to a school then is studying there.
_TERM_STARTS = re.compile(
    r"\b(?:in|this|next)\s+(?:the\s+)?(?:fall|autumn|september|january)\b|\bstarting\s+in\b"
)
_OFF_TO = re.compile(r"\b(?:going|off|heading|starting|start|starts)\s+(?:to|at)\b")
# A school's name: where one went is where one studied ("went to Tec", "went to UW").
_SCHOOL = re.compile(
    r"\b(?:university|uni|college|school|academy|polytechnic|tec|institute|uw|uc|mit|ucla)\b"
)


def _verb_fact(
    between: str, target: Named, sentence_text: str, lowered: str, other: Slot
) -> tuple[str, bool, bool] | None:
    """The relation the words between a subject and an object state: (type, reverse, ended)."""
    between = _TRAILING_TITLE.sub("", between)
    if len(between) > MAX_GAP or any(mark in between for mark in (".", "?", "!", ";", ":")):
        return None
    for rule in VERB_RULES:
        if target.type not in rule.objects or not rule.pattern.fullmatch(between):
            continue
        if rule.cue is not None and not rule.cue.search(sentence_text):
            continue
        if rule.after is not None and not rule.after.match(lowered, other.end):
            continue
        relation = apply_polarity(rule.relation, between)
        if relation is None:
            return None
        if relation == "SEES" and not _cared_for(sentence_text, lowered, other):
            continue
        if relation == "VISITED" and _MUST_GO.match(between):
            # "you have to go to X" is advice (``_advice_facts``), "I must go to X" a plan
            if not future(sentence_text):
                return None
            relation = "PLANS"
        school = _SCHOOL.search(lowered, other.start, other.end) is not None and not (
            _NOT_A_SCHOOL.search(lowered, other.start, other.end)
            or _FOR_OR_AS.match(lowered, other.end)  # "went to Trinity for the Book of Kells"
        )
        if (
            relation == "WORKS_AT"
            and school
            and _YEARS_OF.search(between)
            and not _TAUGHT.search(between)
        ):
            relation = "STUDIES_AT"  # "6 yrs at University of Auckland", "4 years at Otago Uni"
        year = _YEAR_OF_STUDY.search(between)
        if relation == "STUDIES_AT" and year and not (school or year.group("in")):
            # "my last year at PwC", "first year at Google we shipped" (not "she's in her
            # second year at UT Austin")
            return None
        if (
            relation == "PLANS"
            and school
            and target.type == "organization"
            and _TERM_STARTS.search(sentence_text)
            and _OFF_TO.search(between)
        ):
            relation = "STUDIES_AT"  # "she's going to the University of Illinois in the fall"
        if relation == "VISITED" and (target.type == "event" or (_WENT.search(between) and school)):
            relation = "ATTENDED"  # "Sebastián also went to Tec de Monterrey like me"
        if relation == "PLANS" and not future(sentence_text) and "visiting" in between:
            relation = "VISITED"
        elif (
            relation in ("VISITED", "ATTENDED")
            and future(sentence_text)
            and not _PAST_VISIT.search(between)
            and not _ASKED_OF_THE_PAST.match(sentence_text)  # "did you go to X this year?"
        ):
            # "I'll go to Leeds"; not "she stayed at Casa Antigua, I'll send you the link"
            relation = "PLANS"
        elif (
            relation == "MOVED_TO"
            and not _MOVED.search(between)  # "she moved there in 2021, she'll show you around"
            and (
                # the subject's own "'m" or "'s" counts ("i'm moving to", "she's moving to")
                future(sentence_text)
                or _MOVING.search(lowered, max(0, other.start - len(between) - 4), other.start)
            )
            and not _MOVE_AS_SUBJECT.match(lowered, other.end)
        ):
            # "I'll have to move up to Evanston", "so I'm moving to Melbourne": a move still to
            # come ("he was moving to Calgary" was one)
            relation = "PLANS"
        return relation, rule.reverse, closed(between) and relation in _CLOSABLE
    if target.type in EVENTFUL and _ACTIVITY.fullmatch(between) and future(sentence_text):
        return "PLANS", False, False
    if target.type in WHERE and _ON_THE_WAY.fullmatch(between):
        return "VISITED", False, False
    return None


# A name's "'s" that is a verb: "Paolo's moving", "Ama's been", "Kofi's still at" (not "Paolo's
# mum works", a possessive).
_NAME_IS = re.compile(
    r"(?P<s>['’]s)\s+(?:(?:just|still|now|also|finally|really)\s+)*(?!(?:wedding|meeting|"
    r"building|morning|evening|birthday|ceiling|feeling|painting|clothing|housing|parking|"
    r"shopping|booking|sibling|darling|pudding|spring|string|thing|king|ring|wing|housewarming|"
    r"christening|naming|leaving|engagement)\b)"
    r"(?P<word>\w{2,}ing|been|got|at|in|off|back|from)\b"
)
# "she's", and chat's "shes", "youre", "im": the verb a pronoun carries
_CONTRACTED = re.compile(
    r"['’](?:s|m|re)$|(?<=^you)re$|(?<=^they)re$|(?<=^i)m$|(?<=^he)s$|(?<=^she)s$"
)
_TRAILING_TITLE = re.compile(r"\b(?:dr|mr|mrs|ms|prof|mx)\.?\s*$")
# "taught by Miss Ellis" (a title); "i miss Ruth" is the verb, so only a capital "Miss" is one.
_TRAILING_MISS = re.compile(r"\bMiss\.?\s*$")
_CLOSABLE = frozenset({"LIVES_IN", "WORKS_AT", "STUDIES_AT", "MARRIED_TO", "PARTNER_OF"})


def _cared_for(sentence_text: str, lowered: str, slot: Slot) -> bool:
    before = lowered[max(0, slot.start - 6) : slot.start].strip(" .").split()
    if before and before[-1] in TITLES:
        return True
    if "someone called" in sentence_text or "someone named" in sentence_text:
        return True
    return any(word in CARE_WORDS for word in re.findall(r"[a-z]+", sentence_text))


def _owner(word: str, turn: Turn, at: int, slots: list[Slot], kin: Named) -> Named | None:
    """Whose kin a possessive at ``at`` names: the speaker's ("my"), the addressee's ("your"),
    or for "his" and "her" the person the last "he" or "she" before it in the turn stands for
    ("Maya called. She introduced Tom to her brother Sam"), else the person last named before
    it ("Ada told me her brother Tom", "Jonah laughed, since Hannah is his cousin"); never the
    ``kin`` named, and never an "I" or "me": "I'll ask her boyfriend Daan" is no fact of the
    speaker's."""
    word = word.casefold()
    if word in ("my", "me", "our") or re.fullmatch(_THEIR_MY, word):
        return turn.speaker
    if word in ("your", "ur") or re.fullmatch(_THEIR_YOUR, word):  # "ur" as chats write it
        return turn.addressee
    before = [
        slot
        for slot in reversed(slots)
        if slot.start < at and slot.entity.type == "person" and slot.entity.id != kin.id
    ]
    gendered = _SHE if word == "her" else _HE
    for slot in before:
        if slot.pronoun and turn.text[slot.start : slot.end].casefold() in gendered:
            return slot.entity
    return next((slot.entity for slot in before if not slot.pronoun), None)


# Words that own rather than do: the person named after one is the subject.
_POSSESSIVES = frozenset({"my", "our", "your", "ur", "his", "her", "their"})
# The possessives that are never an object ("her" is one too: "I love her").
_OWNERS_ONLY = _POSSESSIVES - {"her"}
_SHE = frozenset({"she", "her", "hers", "herself", "she's", "she’s", "she'd", "she’d"})
_HE = frozenset({"he", "him", "his", "himself", "he's", "he’s", "he'd", "he’d"})


def _subject_before(text: str, slots: list[Slot], start: int, verb: int) -> Named | None:
    """The person (named or a pronoun) whose verb starts at ``verb``: right before it ("she's
    got", "Tom finally has"), or the first person of a clause joined by "and" that opens no
    other subject ("she's from Cork and has"; "Ana hates Tom and has" is Ana's; "her
    neighbour has" is not hers)."""
    comma = max(text.rfind(mark, start, verb) for mark in ",;:")
    clause = max(start, comma + 1)
    people = [
        slot
        for slot in slots
        if clause <= slot.start < verb and not slot.object_only and slot.entity.type == "person"
    ]
    if not people:
        return None
    if _VERB_NEXT.fullmatch(text[people[-1].end : verb]):
        return people[-1].entity
    gap = text[people[0].end : verb]
    if _AND_NEXT.search(gap) and not _OTHER_SUBJECT.search(gap):
        return people[0].entity
    return None


_ADVERBS = r"(?:(?:also|still|just|now|already|even|finally|recently|actually|officially)\s+)*"
_VERB_NEXT = re.compile(r"(?:['’](?:s|ve|d))?\s+" + _ADVERBS + r"(?:(?:has|have|had)\s+)?")
_AND_NEXT = re.compile(r"\band\s+" + _ADVERBS + r"$")
_OTHER_SUBJECT = re.compile(
    r"\b(?:the|a|an|his|her|their|my|our|your|who|which|that|if|when|because|said|says)\b",
    re.IGNORECASE,
)


def _kin_facts(turn: Turn, span: tuple[int, int], slots: list[Slot]) -> list[Fact]:
    text = turn.text
    facts: list[Fact] = []
    names = [slot for slot in slots if not slot.pronoun]

    def add(source: Named | None, target: Named, relation: str) -> None:
        if source is None or source.id == target.id or "agent" in (source.type, target.type):
            return
        facts.append(Fact(source, target, relation, span[0], span[1]))

    for position, slot in enumerate(names):
        entity = slot.entity
        opens = max(span[0], slot.start - 60)
        window = text[opens : slot.start]
        before = _KIN_BEFORE.search(window)
        after = _KIN_AFTER.match(text[slot.end : span[1]])
        if after is not None and _CLAUSE_AFTER_KIN.match(text, slot.end + after.end()):
            after = None  # "Yeah, Caroline, my family's been great": a call, then a clause
        for match, offset in ((before, opens), (after, slot.end)):
            if match is not None:
                at = offset + match.start("owner")
                owner = _owner(match.group("owner"), turn, at, slots, slot.entity)
                read = _kin_word_facts(match, owner, slot, names, text, span)
                # "my sister Rosie", "ur sister gabi??" name her as such whatever the sentence
                # asks; "is that your sister Rosie?" asks exactly that.
                given = match is before and not _IDENTITY_ASKED.search(window[: match.start()])
                facts.extend(replace(f, presupposed=given) for f in read)
        # "our Siargao trip" and "Our Murphy" (the dog) are none: a given name only, followed
        # by what it does ("our Claire brought Isla"), never by a noun ("Our Ruby wedding
        # anniversary") or where one works ("our Kate from HR"), in a turn about no pet
        if (
            entity.type == "person"
            and _OUR_ONE.search(text, opens, slot.start)
            and is_census_name(text[slot.start : slot.end])
            and _OUR_ONE_DOES.match(text, slot.end)
            and not _PET_TALK.search(text)
            and turn.speaker is not None
            and turn.speaker.type == "person"
        ):
            add(turn.speaker, entity, "FAMILY_OF")  # "me and our Karen", "our Claire brought Isla"
        pet_after = _PET_AFTER.match(text[slot.end : span[1]])
        if pet_after and pet_after.group("pet").casefold() in PETS:
            add(turn.speaker, entity, "OWNS")
        called = _PET_CALLED.search(text[span[0] : slot.start])
        if called and called.group("pet").casefold() in PETS and entity.type != "person":
            add(_subject_before(text, slots, span[0], span[0] + called.start()), entity, "OWNS")
        # "Ada's husband Kwame" and "Priya, my manager, is Ada's old flatmate".
        later = names[position + 1] if position + 1 < len(names) else None
        if later is None or entity.type != "person" or later.entity.type != "person":
            continue
        gap = text[slot.end : later.start]
        possessed = _POSSESSIVE_KIN.match(gap)
        kin = possessed.group("kin").casefold() if possessed else ""
        if _IS_GAP.fullmatch(gap):
            tail = _IS_POSSESSED.match(text[later.end : span[1]])
            words = tail.group("words").casefold().split() if tail else []
            kin = next((word for word in words if word in KIN_RELATIONS), "")
        if kin in KIN_RELATIONS:
            add(entity, later.entity, KIN_RELATIONS[kin])
    return facts


# "is that", "was he", "isn't it" right before a kin word: who someone is, asked ("is my
# sister Ada coming?" asks something else).
_IDENTITY_ASKED = re.compile(
    r"\b(?:is|was|are|isn't|isn’t|wasn't|wasn’t)\s+(?:that|this|he|she|it|they)\s+$",
    re.IGNORECASE,
)
_IS_GAP = re.compile(r"(?:\s*,[^,.;]{1,30},)?\s+(?:is|was|'s|’s)\s+", re.IGNORECASE)


_GOING_WORDS = frozenset({"to", "into", "in", "at", "from", "for", "near", "on"})
_NAMING = frozenset({"called", "named", "is", "was"})
_HOME_TIES = frozenset({"FAMILY_OF", "MARRIED_TO", "PARTNER_OF"})
_QUEBEC_PARTNERS = frozenset({"blonde", "chum"})


def _kin_word_facts(
    match: re.Match[str],
    owner: Named | None,
    slot: Slot,
    names: Sequence[Slot],
    text: str,
    span: tuple[int, int],
) -> list[Fact]:
    """What "my sister Ada", "my cat Pimienta" or "my boss at Acme, Filipa" state."""
    entity = slot.entity
    # "is my manager and the sponsor": the optional word before the kin word is the kin word.
    pre, kin = (match.group("pre") or "").casefold(), match.group("kin").casefold()
    if kin in _GOING_WORDS:
        return []  # "taking my mom to Paraty": where she is taken, not who she is
    # Right before the name only a naming word or a place and a comma may follow it: "my cat
    # called Biscuit", "my sister lives in Brisbane anyway, Chloe's in West End" (in "my dad
    # loves Jenga" and "my dad met Kwame" the word after the kin word is a verb).
    naming = match.re is not _KIN_BEFORE or kin in _NAMING or match.group("where") is not None
    if (pre in KIN_RELATIONS or pre in PETS) and naming:
        kin = pre
    if kin in _QUEBEC_PARTNERS and match.group("owner").casefold() in ("ma", "mon"):
        kin = "partner"  # "ma blonde Sophie", "mon chum Alex" (an English "chum" is a friend)
    if owner is None or owner.id == entity.id or "agent" in (owner.type, entity.type):
        return []
    if kin in PETS and entity.type != "person":
        return [Fact(owner, entity, "OWNS", *span)]
    if kin not in KIN_RELATIONS or entity.type != "person":
        return []
    if match.group("owner").casefold() == "me" and KIN_RELATIONS[kin] not in _HOME_TIES:
        return []  # "me mam", "me missus Jade"; "made me team leader at X" names no one's
    facts = [Fact(owner, entity, KIN_RELATIONS[kin], *span)]
    where = match.groupdict().get("where")
    if where and KIN_RELATIONS[kin] == "WORKS_WITH":
        for other in names:
            named = text[other.start : other.end]
            if other.entity.type == "organization" and other.start < slot.start and named in where:
                facts.append(Fact(entity, other.entity, "WORKS_AT", *span))
                facts.append(Fact(owner, other.entity, "WORKS_AT", *span))
    return facts


def _project_facts(turn: Turn, slots: list[Slot]) -> list[Fact]:
    """A person who names a project in a sentence about themselves works on it."""
    speaker = turn.speaker
    if speaker is None:
        return []
    firsts = {slot.sentence for slot in slots if slot.pronoun and slot.entity.id == speaker.id}
    return [
        Fact(speaker, slot.entity, "WORKS_ON", *turn.sentences[slot.sentence])
        for slot in slots
        if slot.entity.type == "project" and slot.sentence in firsts
    ]


# "who's aoife again", "how is Karthik anna surviving Pune" (no question mark needed): a question
# about a named person, and the answer that says who they are ("my flatmate??", "my cousin").
_ASKED_OF = re.compile(
    r"\b(?:how|hows|how's|how’s|where|wheres|where's|what|whats|what's|who|whos|who's)\s+"
    r"(?:[\w'’]+\s+){0,2}$",
    re.IGNORECASE,
)

_MY_KIN = re.compile(
    r"^\W*(?:(?:" + "|".join(sorted(ANSWER_WORDS | {"haha", "lol"})) + r")\W+)?"
    r"(?:(?:she|he)(?:'s|’s|\s+is|\s+was)\s+)?"
    r"(?P<owner>my|our|your|ur)\s+([\w-]+)",
    re.IGNORECASE,
)


# After "my sister" in an answer: her own thing ("my sister's wedding") or a sentence with
# another one as its object ("my dad took him to the airport", "my wife is bringing her");
# "my sister's a nurse" is "is", and "with her husband" is hers.
_SOMEONE_ELSE = re.compile(
    r"(?:['’]s\s+(?!(?:a|an|the|in|at|on|with|been|not|getting|going|coming|moving|working|"
    r"living|staying|studying|back|home|off|away)\b|(?:still|now|fine|good|great|ok|okay|alright|"
    r"grand|well|doing|based|married|engaged|pregnant|busy|sick|here|there)\b(?=\s*(?:$|[^\w\s]|"
    r"(?:in|at|on|with|to|from|for|now|again|too|and|but|so|lol|haha|tho|though)\b)))\w"
    r"|[^.!?]*\b(?:him|them|her(?=\s*(?:$|[,.!?]|(?:at|to|in|on|with|from|for|home|back|up|"
    r"down|out|over|tomorrow|today|tonight|later|now|yesterday|last|next)\b)))\b"
    r"|[^.!?]*\b(?:she|he)['’]?s\s+(?:his|her|their)\b)",
    re.IGNORECASE,
)


# An answer that says one is coming confirms the plan asked of one ("are you coming to Chale Wote
# on saturday?" / "I have group work till 2 but I'll come after").
# ("see you there" too; not "I'll come back to you on that", "I'll come next year", "I'm
# coming down with flu", "I'll be there in spirit", nor a sentence with a no in it).
_COMING = re.compile(
    r"\b(?:i['’]?ll\s+(?:come|be\s+there)\b(?!\s+(?:back|next|in\s+spirit|to\s+\w+\s+instead))|"
    r"i['’]?m\s+coming\b(?!\s+(?:down\s+with|round|around|back))|count\s+me\s+in\b|"
    r"see\s+(?:you|u)\s+there\b|sign\s+me\s+up\b|"
    # "im in", "I'm so in", "I'm down", "I'm there o!" (not "I'm in Leeds", "I'm down with a
    # cold", "I'm there in 5")
    r"i['’]?m\s+(?:so\s+|totally\s+|def(?:initely)?\s+)?(?:in|down|there)"
    r"(?=\s*(?:$|[^\w\s'’]|(?:too|tbh|lol|haha|o)\b))|"
    # "wouldn't miss it", "not missing it for the world"
    r"(?:wouldn['’]?t|would\s+not|not)\s+miss(?:ing)?\s+it\b)",
    re.IGNORECASE,
)
# A plan put forward, taken up: "done ✅", "deal", "perfect", "sounds good"
_TAKEN_UP = re.compile(
    r"\W*(?:done|deal|perfect|sounds\s+(?:good|great|perfect)|say\s+less)\b", re.IGNORECASE
)
_REFUSED = re.compile(
    r"\b(?:not|can['’]?t|cannot|won['’]?t|couldn['’]?t)\s+(?:be\s+)?(?:coming|come|going|go|"
    r"make\s+it|make|be\s+there|attend|join)\b|\b(?:can['’]?t|cannot)\s*(?:though|tho)?\W*$|"
    r"\bnot\s+me\b",
    re.IGNORECASE,
)
_ANOTHER_TIME = re.compile(r"\b(?:next\s+time|instead|only\s+\w+|skip(?:ping)?)\b|\bno+\W*$", re.I)
# "two weeks in august was the plan but we cancelled"
_CALLED_OFF = re.compile(
    r"\b(?:cancell?ed|cancelling|called\s+(?:it\s+)?off|fell\s+through)\b", re.IGNORECASE
)
_NOT_COMING = re.compile(
    r"\b(?:no|not(?!\s+missing)|nah|can['’]?t|cannot|won['’]?t|wish|next\s+(?:time|year|week|month)|instead|"
    r"probably\s+not)\b",
    re.IGNORECASE,
)


# A question that takes a home for granted ("you still in that flat in Kazimierz?", "are you
# still in the apartment in Uptown?"; "still in Durban?" asks as often of a trip, unless the
# answer tells of a move) and an answer that opens with a no.
_STILL = re.compile(r"\b(?:still|staying)\b", re.IGNORECASE)
# What marks a stay as a trip: "still in Manchester for the conference?", "staying in Mombasa
# for Christmas?", "no, flew home
# yesterday", "no, just got back to Joburg", "no left at 6am, on the train now"
_TRIP_SAID = re.compile(
    r"\bfor\s+(?:the|a|my|his|her|work|christmas|xmas|easter|eid|diwali|new\s+year)\b|\b(?:flew|flight|flying|landed|got\s+back|back\s+(?:in|to|"
    r"home)|left\s+at|train|bus|heading|on\s+my\s+way|this\s+week|conference|wedding|funeral|"
    r"holiday|trip|visit|visiting|home\s+(?:in|to)|go(?:ne|ing)?\s+home|went\s+home)\b",
    re.IGNORECASE,
)
_HOME_PRESUMED = re.compile(
    r"\bstill\b.*\b(?:flat|apartment|house|place|room|condo|bto|living|live)\b",
    re.IGNORECASE,
)
_DENIAL = re.compile(r"\W*(?:no+|nope|nah+|naw|not\s+anymore|not\s+any\s+more)\b", re.IGNORECASE)


_NAMED_NEXT = re.compile(r"\s*,?\s*")


def _kin_named_in_answer(
    question: Turn, answer: Turn, answerer: Named, first: tuple[int, int]
) -> list[Fact]:
    """ "How's your sister getting on?" / "Rose moved to Bristol": a person the answer opens on
    is the kin asked after, the answerer's (one name, none in the question)."""
    asked = _KIN_ASKED.search(question.text)
    speakers = {answerer.id, question.speaker.id if question.speaker is not None else ""}
    if asked is None or any(
        s.entity.type == "person"
        and not s.pronoun
        and s.entity.id not in speakers
        and s.end > asked.start()
        for s in question.names
    ):
        return []  # "and your husband? Kunle, abi?": the question names him already
    relation = KIN_RELATIONS.get(asked["kin"].casefold())
    people = [
        slot
        for slot in answer.names
        if slot.sentence <= 1 and not slot.pronoun and slot.entity.type == "person"
    ]
    if (
        relation is None
        or len({slot.entity.id for slot in people}) != 1
        or people[0].entity.id == answerer.id
    ):
        return []
    # the name opens its sentence: "Cian's great", "She did in the end! Rose moved to Bristol"
    span = answer.sentences[people[0].sentence]
    if not _ANSWER_OPENING.fullmatch(answer.text, span[0], people[0].start):
        return []
    return [Fact(answerer, people[0].entity, relation, *span)]


# "how's your sister?", "and your husband?", "how is ur bf doing"
_KIN_ASKED = re.compile(
    r"\b(?:how['’]?s|how\s+is|how\s+are|and)\s+(?:your|ur)\s+(?:[\w-]+\s+)??(?P<kin>[\w-]+)"
    r"(?=[\s?!,.]|$)(?![^?]*\b(?:and|or)\s+(?:your|ur)\b)",
    re.IGNORECASE,
)
# What may stand before the name an answer opens on: "yes", "oh", "haha", an emoji.
_ANSWER_OPENING = re.compile(
    r"\W*(?:(?:" + "|".join(sorted(INTERJECTIONS)) + r")\W+)*", re.IGNORECASE
)


def _who_is(question: Turn, answer: Turn, answerer: Named, first: tuple[int, int]) -> list[Fact]:
    """ "who's X" answered "my flatmate" by someone else: X is the answerer's flatmate; so is
    the one person a question asks about ("how's Njeri btw?" / "my sister is in Mombasa now",
    "whos liam again?" / "yes my brother")."""
    said = answer.text[first[0] : first[1]]
    found = _MY_KIN.match(said)
    if found is None or found.group(2).casefold() not in KIN_RELATIONS:
        return []
    kin = found.group(2).casefold()
    if _SOMEONE_ELSE.match(said, found.end()) or re.search(
        rf"\b(?:your|ur)\s+{re.escape(kin)}\b", question.text, re.IGNORECASE
    ):
        # "my mum is sick so I haven't seen him", "my sister's wedding was…", and "how's your
        # mum? and Mei?" / "my mum is ok": the kin is someone else than the one asked about
        return []
    kin_end = first[0] + found.end()
    if any(
        slot.entity.type == "person" and _NAMED_NEXT.fullmatch(answer.text, kin_end, slot.start)
        for slot in answer.names
        if slot.start >= kin_end
    ):
        return []  # "nah my wife Adwoa dey go church": the kin is the one named after it
    # "your brother is fine" answering "how is Karthik?": the asker's brother
    owner = question.speaker if found.group("owner").casefold() in ("your", "ur") else answerer
    if owner is None:
        return []
    # The people the question names, those a "who's", "how's" or "where's" points at first.
    speakers = {answerer.id, question.speaker.id if question.speaker else ""}
    named: dict[str, Slot] = {}
    pointed: dict[str, Slot] = {}
    for slot in question.names:
        if slot.pronoun or slot.entity.type != "person" or slot.entity.id in speakers:
            continue
        sentence = question.sentences[slot.sentence]
        if _ASKED_OF.search(question.text, sentence[0], slot.start):
            pointed[slot.entity.id] = slot
        if slot.entity.id in pointed or _is_question(question.text, sentence):
            named[slot.entity.id] = slot
    asked = list((pointed or named).values())
    if len(asked) != 1 or asked[0].entity.id in (answerer.id, owner.id):
        return []
    called = f"{found.group('owner')} {kin}".casefold() if kin in KIN_PHRASE_WORDS else ""
    return [Fact(owner, asked[0].entity, KIN_RELATIONS[kin], *first, called=called)]


# The clause a name is said in runs to a stop, a comma or an emoji ("still at DBS lah 😩 bonus
# not out yet": the "not" is another clause's).
_CLAUSE_END = re.compile(r"[.,;!?\U0001F000-\U0010FFFF]")


def _echoed(fact: Fact, question: Turn, answer: Turn, first: tuple[int, int]) -> bool:
    """Whether the answer confirms an asked fact by opening on the name as the question put it,
    undenied: "still at DBS ah?" / "still at DBS lah 😩", "u still teaching at Ateneo?" /
    "still at Ateneo, math dept". A name said otherwise confirms nothing ("Deloitte? I wish",
    "used to be at Deloitte", "dunno if she's still at Deloitte")."""
    asked = [s for s in question.names if s.entity.id == fact.target.id and fact.start <= s.start]
    said = [s for s in answer.names if s.sentence == 0 and s.entity.id == fact.target.id]
    if not asked or not said:
        return False
    lead = words(question.text[fact.start : asked[0].start])[-1:]
    opening = words(answer.text[first[0] : said[0].start])
    while opening and opening[0] in _OPENERS:
        opening.pop(0)
    # One or two words, the last the question's word before the name: "still at", "at".
    if not lead or not 1 <= len(opening) <= 2 or opening[-1:] != lead:
        return False
    stop = _CLAUSE_END.search(answer.text, said[0].end, first[1])
    clause = answer.text[first[0] : stop.start() if stop else first[1]].casefold()
    return not (negated(clause) or closed(clause))


# "Kofi's coming too", "Niamh from work is coming too", "Rhys and Ffion want to come too",
# "I'm coming too": someone joins a plan already on the table ("going too" is as often leaving:
# "yeah I'm going too, it's late"). The "too" (or "as well") says it is that plan; it ends the
# clause or stands before a particle or a time ("Rohan's coming too next week yaar"): "coming
# too late" and "doing it as well as she can" say something else.
_JOINS = re.compile(
    r"(?:['’](?:s|m|re|ll)|\s+(?:is|am|are|will|wants?\s+to|want\s+to))\s+(?:also\s+)?"
    r"(?P<verb>coming|joining|come|join|doing\s+it)(?:\s+along)?\s+(?:too|as\s+well)"
    r"(?=\s*(?:$|[^\w\s'’]|(?:o|sha|lah|leh|la|po|daw|raw|din|rin|yaar|na|now|then|so|and|btw|"
    r"lol|haha|next|this|tomorrow|tonight|tmr|on|in|if|unless|maybe|but|or)\b))",
    re.IGNORECASE,
)
# Said with a doubt or a condition after it, the joining is not settled: "Yaw's coming too if
# he can get off work", "Macca's coming too maybe", "Paolo wants to come too but his mum...";
# "if that's ok" only asks leave.
_JOIN_DOUBTED = re.compile(
    r"\b(?:if(?!\s+(?:that['’]?s|it['’]?s)\s+(?:ok|okay|alright|all\s+right|fine|cool))|unless|"
    r"maybe|perhaps|probably|hopefully|think|guess|or\s+not|not|won['’]?t|can['’]?t|but)\b",
    re.IGNORECASE,
)
# "Kofi's coming too... not."
_DENIED_AFTER = re.compile(r"\W*not\b", re.IGNORECASE)
# Between a joiner's name and the verb: nothing, or where they are from ("Niamh from work").
_JOINER_TAIL = re.compile(r"(?:\s+from\s+[\w'’-]+(?:\s+[\w'’-]+)?)?", re.IGNORECASE)
_JOINER_LINK = re.compile(r"\s*(?:,|&|and)\s*", re.IGNORECASE)
_FIRST_JOINER = re.compile(r"(?<![\w'’])i\s*$", re.IGNORECASE)
_AND_BEFORE_I = re.compile(r"\s*(?:and|&)\s*$", re.IGNORECASE)
# What may open the sentence before the joiners: "oh and Kofi's coming too", "lovely, Kofi's ..."
# (not a "no": "Rob's flatmate... no, Dan's coming too" corrects who).
_JOINING_OPENERS = (_OPENERS - {"no", "nope", "nah"}) | {"and", "plus", "nice", "lovely", "sure"}
_JOINING_OPENERS |= {"grand", "cool", "great", "wow"}
_OPENS_JOINING = re.compile(
    r"\W*(?:(?:" + "|".join(sorted(_JOINING_OPENERS)) + r")\b\W*)*", re.IGNORECASE
)
_EITHER = re.compile(r"\bor\b", re.IGNORECASE)
# Where the joiner goes instead, said right after: "coming too, but to Abuja", "too, to Leeds".
_ELSEWHERE = re.compile(
    r"\W*(?:but\s+)?(?:(?:just|only)\s+)?(?:to|for|in|at)\s+(?:the\s+)?", re.IGNORECASE
)
# A sentence that changes the subject: plans before it are off the table.
_MOVES_ON = re.compile(
    r"\W*(?:anyway|anyways|btw|by\s+the\s+way|also|oh\s+and|on\s+another\s+note|unrelated)\b",
    re.IGNORECASE,
)


# What may open a sentence that signs up: "omg YES im in", "obviously. count me in"
_SIGN_UP_OPENERS = re.compile(
    r"\W*(?:(?:omg|ok|okay|oh|yes+|yeah+|yep|obviously|same|and|honestly)\b\W*)*", re.IGNORECASE
)


def _signed_up(turn: Turn, before: Turn | None, plans: Sequence[Fact]) -> list[Fact]:
    """The speaker's share of the plan the turn before put on the table, when this turn signs
    up for it ("are we finally doing the Ruapehu trip?" / "im in", "chilli crab on the company
    card?? count me in")."""
    if turn.speaker is None or before is None:
        return []
    for span in turn.sentences:
        opens = _SIGN_UP_OPENERS.match(turn.text, span[0], span[1])
        start = opens.end() if opens else span[0]
        if _COMING.match(turn.text, start, span[1]) and not _NOT_COMING.search(turn.text, *span):
            targets = _plan_on_the_table(before, [f for f in plans if f.earlier], None)
            return [Fact(turn.speaker, target, "PLANS", *span) for target in targets]
    return []


_SET_OUT_FROM = re.compile(r"\b(?:from|via|through|out\s+of)\s+(?:the\s+)?$", re.IGNORECASE)
_OR_BETWEEN = re.compile(r"\s*,?\s*or\s+(?:the\s+)?", re.IGNORECASE)


def _chosen(turn: Turn, before: Turn | None) -> list[Fact]:
    """The venue picked from those the turn before offered ("pints friday? Crane Lane or Sin
    É" / "Sin É, the trad session's on fridays"): the plan of the one picking and the one
    offering."""
    if turn.speaker is None or before is None or before.speaker is None or not turn.sentences:
        return []
    if "?" not in before.text:
        return []
    # Two names offered as one or the other, one of them known as a venue: "Crane Lane or Sin
    # É" offers Sin É too, whatever little else is known of it
    names = [s for s in before.names if not s.pronoun]
    venue = WHERE | {"event"}
    offered = {
        slot.entity.id
        for first, second in pairwise(names)
        if _OR_BETWEEN.fullmatch(before.text, first.end, second.start)
        and venue & {first.entity.type, second.entity.type}
        # "flying from Manchester or Leeds?" offers where to leave from, not where to go
        and not _SET_OUT_FROM.search(before.text, 0, first.start)
        for slot in (first, second)
    }
    span = turn.sentences[0]
    opening = [s for s in turn.names if s.sentence == 0 and not s.pronoun]
    if not offered or not opening:
        return []
    pick = min(opening, key=lambda slot: slot.start)
    if pick.entity.id not in offered:
        return []
    if not _OPENS_JOINING.fullmatch(turn.text, span[0], pick.start):
        return []
    if negated(turn.text[pick.end : span[1]].casefold()):
        return []  # "Sin É? not a chance"
    return [Fact(person, pick.entity, "PLANS", *span) for person in (turn.speaker, before.speaker)]


# Someone brought along to the plan on the table: "I'll bring Cathal if that's ok", "I'm
# bringing Sbu's sister Nomvula", "can I bring Jun Hao?", "I'll be there with Lwazi"
_BRINGS = re.compile(
    r"\b(?:i['’]?ll|i\s+will|i['’]?m|im|can\s+i|could\s+i|gonna)\s+(?:also\s+)?"
    r"(?:(?:bring|bringing)\s+(?:along\s+)?|(?:be\s+there|come|coming)\s+with\s+)",
    re.IGNORECASE,
)
_OWNER_OF_NEXT = re.compile(r"['’]s\s")
_BROUGHT_REACH = 30  # characters from the verb to the name: "bringing Sbu's sister Nomvula"


def _brought_along(turn: Turn, before: Turn | None, plans: Sequence[Fact]) -> list[Fact]:
    """The plan on the table (this turn's so far, else the turn before's) is the speaker's and
    the one they bring along."""
    found: list[Fact] = []
    if turn.speaker is None:
        return found
    for said in _BRINGS.finditer(turn.text):
        number = next((n for n, (a, b) in enumerate(turn.sentences) if a <= said.start() < b), None)
        if number is None:
            continue
        span = turn.sentences[number]
        if _JOIN_DOUBTED.search(turn.text, span[0], said.start()):
            continue  # "not sure I can bring Tom"
        people = [
            slot
            for slot in turn.names
            if slot.sentence == number
            and not slot.pronoun
            and slot.entity.type == "person"
            and said.end() <= slot.start <= said.end() + _BROUGHT_REACH
            and not _OWNER_OF_NEXT.match(turn.text, slot.end)  # "Sbu's sister Nomvula"
        ]
        if not people:
            continue
        own = [f for f in plans if not f.earlier and f.start < span[0]]
        targets = _plan_on_the_table(turn, own, span[0]) or (
            _plan_on_the_table(before, [f for f in plans if f.earlier], None)
            if before is not None
            else []
        )
        for person in (turn.speaker, people[0].entity):
            found.extend(Fact(person, target, "PLANS", *span) for target in targets)
    return found


def joining_facts(turn: Turn, before: Turn | None, plans: Sequence[Fact]) -> list[Fact]:
    """The plan someone joins: "Kofi's coming too" after "we're flying to Seoul on the 3rd"
    makes Kofi's plan Seoul too. The plan is the latest sentence's of this turn before the
    joining one, else of the turn before (``before``; asked plans count: "are you coming to
    Koroga?" / "yes! Akinyi's coming too"), and only while one person's: a sentence that moves
    on ("anyway, ...") takes it off the table. Only named people and the speaker's "I" join
    ("we're coming too" says nothing of who); a question, a doubt ("if he can"), or another
    place named after the verb ("coming too, but to Abuja") joins nothing."""
    chosen = _chosen(turn, before)
    found = [*chosen, *_signed_up(turn, before, plans)]
    found += _brought_along(turn, before, [*plans, *chosen])
    for number, span in enumerate(turn.sentences):
        said = _JOINS.search(turn.text, span[0], span[1])
        if said is None or _is_question(turn.text, span):
            continue
        if _JOIN_DOUBTED.search(turn.text, said.end(), span[1]) or _DENIED_AFTER.match(
            turn.text, said.end()
        ):
            continue
        own = [f for f in plans if not f.earlier and f.start < span[0]]
        earlier = [f for f in plans if f.earlier]
        targets = _plan_on_the_table(turn, own, span[0]) or (
            _plan_on_the_table(before, earlier, None) if before is not None else []
        )
        if said.group("verb").casefold().startswith("doing"):
            targets = [t for t in targets if t.type == "event"]  # "doing it": an occasion
        elsewhere = {
            slot.entity.id
            for slot in turn.names
            if slot.sentence == number
            and slot.start >= said.end()
            and slot.entity.type != "person"
            and _ELSEWHERE.fullmatch(turn.text, said.end(), slot.start)
        }
        if elsewhere - {target.id for target in targets}:
            continue  # "Kofi's coming too, but to Abuja"
        joiners = _joiners(turn, number, span[0], said.start())
        if said.group("verb").casefold().startswith("join") and turn.speaker in joiners:
            continue  # "I'm joining too! Infosys hired me": a firm, as often as a plan
        for joiner in joiners:
            found.extend(
                Fact(joiner, target, "PLANS", span[0], span[1])
                for target in targets
                if target.id != joiner.id
            )
    return found


def _plan_on_the_table(turn: Turn, plans: Sequence[Fact], until: int | None) -> list[Named]:
    """The targets of ``plans`` stated in their latest sentence, if one person's (or one
    target's: "I'm coming, Yaw's coming too") and no sentence after it (before ``until``)
    moves on."""
    plans = [fact for fact in plans if fact.relation == "PLANS"]
    if not plans:
        return []
    latest = max(fact.start for fact in plans)
    chosen = [fact for fact in plans if fact.start == latest]
    if len({fact.source.id for fact in chosen}) != 1 and len({f.target.id for f in chosen}) != 1:
        return []  # "I'm going to Lagos and Ngozi to Abuja": whose plan, the joiner does not say
    said = next((span for span in turn.sentences if span[0] <= latest <= span[1]), None)
    if said is None:
        return []
    if len({fact.target.id for fact in chosen}) > 1 and _EITHER.search(turn.text, *said):
        return []  # "Lagos or Abuja for Christmas?": which one, the joiner does not say
    end = len(turn.text) if until is None else until
    if any(
        latest < opens < end and _MOVES_ON.match(turn.text, opens) for opens, _ in turn.sentences
    ):
        return []
    return list({fact.target.id: fact.target for fact in chosen}.values())


def _joiners(turn: Turn, sentence: int, opens: int, verb: int) -> list[Named]:
    """The subject of a joining verb at ``verb``: named people linked by "and" or a comma, or
    the speaker's "I"."""
    text = turn.text
    joiners: list[Named] = []
    end = verb
    first = _FIRST_JOINER.search(text, opens, verb)
    if first is not None:
        if turn.speaker is None:
            return []
        if _OPENS_JOINING.fullmatch(text, opens, first.start()):
            return [turn.speaker]
        pair = _AND_BEFORE_I.search(text, opens, first.start())
        if pair is None:
            return []
        # "Kofi and I are coming too": the named and the speaker
        joiners, end = [turn.speaker], pair.start()
    names = [s for s in turn.names if s.sentence == sentence and not s.pronoun and s.end <= end]
    named = 0
    for slot in reversed(names):
        gap = text[slot.end : end]
        fits = _JOINER_TAIL.fullmatch(gap) if not named else _JOINER_LINK.fullmatch(gap)
        if fits is None or slot.entity.type != "person":
            break
        joiners.append(slot.entity)
        named += 1
        end = slot.start
    if not named or not _OPENS_JOINING.fullmatch(text, opens, end):
        return []
    return joiners


# "I love it here", "honestly i like it here": the speaker's verdict on where they are;
# "here in Perth" says where. Hedged ("not sure I like it here", "I hope I like it here") it
# says nothing.
_HERE = re.compile(
    r"(?<![\w'’])(?:i|i['’]m|im)\s+(?:(?:really|honestly|actually|so|just|already|kinda|"
    r"genuinely|totally|absolutely)\s+)*(?:(?P<good>love|loving|like|liking|enjoy|enjoying)|"
    r"(?P<bad>hate|hating))\s+it\s+here\b(?P<where>\s+in\s+)?",
    re.IGNORECASE,
)
_HERE_HEDGED = re.compile(
    r"\b(?:think|sure|hope|if|idk|dunno|whether|wonder|unless|until|when|not|don['’]?t)\b",
    re.IGNORECASE,
)


def here_facts(turn: Turn, home: Named | None) -> list[Fact]:
    """The speaker likes or dislikes where "here" is: the place "here in ..." names, else (a
    liking only: "Monday again, I hate it here" is a sigh, not a verdict on the town) the
    speaker's home as the conversation last stated it ("I moved to Rotterdam" ... "I love it
    here")."""
    speaker = turn.speaker
    if speaker is None:
        return []
    found: list[Fact] = []
    for span in turn.sentences:
        said = _HERE.search(turn.text, span[0], span[1])
        if said is None or _is_question(turn.text, span):
            continue
        if _HERE_HEDGED.search(turn.text, span[0], said.start()):
            continue
        if said.group("where"):
            named = (
                s.entity for s in turn.names if s.start == said.end() and s.entity.type in WHERE
            )
            where = next(named, None)
        else:
            where = home if said.group("good") else None
        if where is not None and where.id != speaker.id:
            relation = "LIKES" if said.group("good") else "DISLIKES"
            found.append(Fact(speaker, where, relation, span[0], span[1]))
    return found


# "You're still with Accenture right" / "Yes still Accenture, BGC office", "u still at
# Deloitte?" / "yep still Deloitte lol": an answer opening on "still" and a business after a
# turn that asked the one answering whether they still are.
_STILL_OPENING = re.compile(
    r"\W*(?:(?:" + "|".join(sorted(_OPENERS)) + r")\W+)?still\s+(?:at\s+|with\s+)?",
    re.IGNORECASE,
)
# Asked of the one spoken to: "you're still with", "are u still at", or a bare "still at X?"
_STILL_ASKED = re.compile(
    r"(?:\b(?:you|u|ya|ye)(?:['’]re|\s+are|\s+r)?\s+|\b(?:are|r)\s+(?:you|u|ya|ye)\s+|"
    r"(?:^|[.!?,]\s*)\W*)still\s+(?P<how>with|at|working|employed|doing)\b",
    re.IGNORECASE,
)
# "still with Vodafone?" / "yes still Vodafone, their data is trash": a customer, not staff.
_AS_A_CUSTOMER = re.compile(
    r"\b(?:data|prepaid|postpaid|switch|switched|fibre|fiber|broadband|network|signal|"
    r"insurance|medical\s+aid|account|plan|bundle|gym|membership|fan|fans)\b",
    re.IGNORECASE,
)


def _still_there(
    question: Turn, answer: Turn, answerer: Named, first: tuple[int, int]
) -> list[Fact]:
    """The answerer still works at the business their answer opens on after "still", when the
    turn before asked them whether they are still at it, working there, or (with a word of work
    in either turn) still with it ("still going to Tesco?" asks no such thing, "is Tom still with
    Accenture?" asks of Tom, and "still with Vodafone? their data" of a customer)."""
    asked = _STILL_ASKED.search(question.text)
    if asked is None:
        return []
    both = question.text + " " + answer.text
    if _AS_A_CUSTOMER.search(both):
        return []
    if asked.group("how").casefold() in ("with", "doing") and not WORK_CUE.search(both.casefold()):
        return []  # "still with Barclays?" is as often a customer's: a word of work must say
    for slot in answer.names:
        if slot.sentence != 0 or slot.pronoun:
            continue
        if slot.entity.type == "organization" and _STILL_OPENING.fullmatch(
            answer.text, first[0], slot.start
        ):
            return [Fact(answerer, slot.entity, "WORKS_AT", *first)]
        break
    return []


# A first sentence that only greets or calls: "hi aunt linda!!", "Morning Kofi." (not "hey,
# I'm not sure", "hi sorry", "hey no").
_GREETING_ONLY = re.compile(
    r"\W*(?:hi+|hey+|hiya|hello|heya|morning|good\s+morning|evening|yo|oi)"
    r"(?:\s+(?!(?:i|im|i['’]m|you|u|we|it|no|not|nah|sorry|but|so|well)\b)[\w'’.-]+){0,2}\W*",
    re.IGNORECASE,
)


def _reply_after_greeting(answer: Turn) -> tuple[int, int]:
    """The answer's sentence that replies: its first, or its second after a first that only
    greets ("hi aunt linda!! yes def still coming")."""
    first = answer.sentences[0]
    if len(answer.sentences) > 1 and _GREETING_ONLY.fullmatch(answer.text, *first):
        return answer.sentences[1]
    return first


_PET_WORDS = "|".join(sorted(PETS))
_YOUR_PET = re.compile(r"\b(?:your|ur|yer)\s+(?:[\w-]+\s+)?(?:" + _PET_WORDS + r")\b", re.I)
# Someone else's pet: "her cat Miso", "the neighbour's dog", "the shelter has a dog called Rex"
# (the speaker's own "we've got a dog named Sokkie" is a fact the rules state already).
_THEIR_PET = re.compile(
    r"(?:\b(?:his|her|their)|['’]s|s['’]|\b(?:has|had|have|got|owns))\s+(?:(?:a|an)\s+)?"
    r"(?:[\w-]+\s+)?(?:" + _PET_WORDS + r")\b",
    re.I,
)
# A pet minded, met or visited: "dog sitting this week", "walking Bella for my neighbour", "his
# owner was mortified", "at Meena's place"
_MINDED = re.compile(
    r"\b(?:owners?|sitting|sitter|fostering|minding|looking\s+after|for\s+(?:my|our|a)\s+"
    r"(?:neighbou?r|friend|mate|colleague|sister|brother|mum|mom|aunt|auntie)|not\s+my\s+(?:"
    + _PET_WORDS
    + r"))\b|['’]s\s+(?:place|house|flat|home)\b",
    re.I,
)
# "Bingo barked at me when I came in", "Rex jumped on me": the speaker met someone else's
_AT_ME = re.compile(r"\b(?:at|on)\s+me\b|\b(?:bit|licked|chased)\s+me\b", re.I)
_FIRST_PERSON = re.compile(r"\b(?:i|i['’]m|im|my|me|we|our|us)\b", re.IGNORECASE)


def pet_owner(turn: Turn, sentence: int) -> Named | None:
    """Whose a pet is, from the turn that first speaks of it: the speaker's ("Mango ate two of
    the invites", "can I bring Frida friday?"), the one spoken to when called theirs or asked
    after ("DON'T bring Jabu, your dog ate half", "and Pierogi? he likes new place?"), nobody's
    here when someone else's ("her cat Miso")."""
    span = turn.sentences[sentence]
    said = turn.text[span[0] : span[1]]
    if _YOUR_PET.search(said) or _AT_ME.search(said):
        return turn.addressee
    if _THEIR_PET.search(said) or _MINDED.search(said):
        return None
    if _is_question(turn.text, span) and not _FIRST_PERSON.search(said):
        return turn.addressee
    return turn.speaker


_WE_ASKED = re.compile(r"\b(?:we|us|y['’]?all)\b", re.IGNORECASE)


def _our_plan_asked(fact: Fact, question: Turn, answerer: Named) -> bool:
    """Whether an asked plan is the asker's with the one answering ("are we doing it?")."""
    asker = question.speaker
    return (
        fact.relation == "PLANS"
        and asker is not None
        and fact.source.id == asker.id != answerer.id
        and _WE_ASKED.search(question.text, fact.start, fact.end) is not None
    )


def answer_facts(question: Turn, answer: Turn, asked: Sequence[Fact]) -> list[Fact]:
    """Facts of a question and its answer.

    A yes-or-no question's own facts hold when the answer opens with a yes (whoever they are
    about: "wait Jalen married Simone??" / "yep"); a frame such as
    "Where do you work?" takes the first name of the answer's first sentence that fits it;
    "who's Aoife?" / "my flatmate" makes Aoife the answerer's flatmate; and "u still at
    Deloitte?" / "yep still Deloitte" is the answerer's work.
    """
    answerer = answer.speaker
    if answerer is None or not answer.sentences:
        return []
    first = answer.sentences[0]
    facts: list[Fact] = []
    reply = _reply_after_greeting(answer)
    affirmed = AFFIRMATIVE.match(answer.text[reply[0] :]) is not None
    denied = _DENIAL.match(answer.text[reply[0] :]) is not None
    coming = (
        _COMING.search(answer.text, reply[0], reply[1]) is not None
        or _TAKEN_UP.match(answer.text, reply[0]) is not None
    ) and _NOT_COMING.search(answer.text, reply[0], reply[1]) is None
    # "yes I know, but I'm not coming", "yes, sadly I can't though": no plan for all the yes
    refused = _REFUSED.search(answer.text, reply[0], reply[1]) is not None
    asker = question.speaker.id if question.speaker is not None else None
    # "yes! but he's not coming anymore": whoever was to come along is not
    dropped_out = _REFUSED.search(answer.text, reply[1]) is not None
    for fact in asked:
        # taken up, a plan is the one answering's and, put forward, the one asking's too
        joins = coming and fact.relation == "PLANS" and fact.source.id in (answerer.id, asker)
        if fact.relation == "PLANS" and refused:
            continue
        if fact.relation == "PLANS" and dropped_out and fact.source.id not in (answerer.id, asker):
            continue
        if fact.relation == "LIVES_IN" and fact.ended and _TRIP_SAID.search(answer.text):
            continue  # "you left Ibadan for real?" / "yes, the party ended so we drove back"
        timed = (
            fact.relation == "PLANS"
            and fact.source.id == answerer.id
            and _WHEN_GIVEN.search(answer.text, *reply) is not None
            and not denied
            and not _is_question(answer.text, reply)  # "a week in fiji? on my salary? no"
            and _NOT_COMING.search(answer.text, *reply) is None
            # "5 days. but only Taipei, Tainan next time": the rest of the answer may say no
            and _ANOTHER_TIME.search(answer.text, reply[1]) is None
            and _CALLED_OFF.search(answer.text, reply[0]) is None
            and _PAST_VISIT.search(answer.text.casefold(), *reply) is None  # "went in June"
            and _BUSY_THEN.search(answer.text, *reply) is None
        )
        # "How long have you and Ama been married?" takes the marriage as known
        presumed = not denied and _HOW_LONG.search(question.text, fact.start, fact.end) is not None
        if affirmed or joins or timed or presumed or _echoed(fact, question, answer, first):
            # Cited twice: the question's words state the fact, the answer's yes confirms it.
            facts.append(replace(fact, earlier=True))
            facts.append(Fact(fact.source, fact.target, fact.relation, *reply, ended=fact.ended))
            if (affirmed or joins) and _our_plan_asked(fact, question, answerer):
                # "are we finally doing the Ruapehu trip?" / "im in": the answerer's plan too
                facts.append(Fact(answerer, fact.target, "PLANS", *reply))
        elif (
            denied
            and fact.relation == "LIVES_IN"
            and _STILL.search(question.text)
            and (
                _HOME_PRESUMED.search(question.text)
                or not _TRIP_SAID.search(question.text + " " + answer.text)
            )
        ):
            # "you still in that flat in Kazimierz?" / "no!! I moved in August to Podgórze": the
            # home was theirs and is no more ("staying in Dundee after uni?" / "naw moving to
            # Aberdeen": theirs until they go)
            over = "still" in words(question.text)
            facts.append(replace(fact, earlier=True, ended=over))
            facts.append(Fact(fact.source, fact.target, fact.relation, *reply, ended=over))
    facts.extend(_who_is(question, answer, answerer, first))
    facts.extend(_kin_named_in_answer(question, answer, answerer, first))
    facts.extend(_still_there(question, answer, answerer, first))
    questions = [
        question.text[start:end].casefold()
        for start, end in question.sentences
        if question.text[start:end].rstrip().endswith("?")
    ]
    frame = asked_frame(questions[-1]) if questions else None
    if frame is not None:
        fitting = [
            slot
            for slot in answer.names
            if slot.sentence == 0
            and slot.entity.type in frame.objects
            and slot.entity.id != answerer.id
        ]
        if fitting:
            target = min(fitting, key=lambda slot: slot.start).entity
            facts.append(Fact(answerer, target, frame.relation, *first))
    return facts
