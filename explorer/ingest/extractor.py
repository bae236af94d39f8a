"""Entity and relation extraction: the ``Extractor`` port and the default offline extractor.

An extractor reads the chunks of one conversation (its context) and returns an ``Extraction``:
entities and relations with provenance (``Mention`` spans into the chunks), stable ids from
``ids`` and a first confidence; the pipeline merges them with what the graph already holds and
computes the final confidence and salience (``evidence``). The offline extractor needs no network
and no model: speakers become people; capitalised names (seen mid-sentence, or recurring and never
written in lower case) become named entities typed from evidence (``people.evidence_type``: being
addressed, kinship and person verbs, suffixes, the nouns and words around a name), a
lower-case "of" joining the parts of one name ("A Map of Small Hours"); a word only ever used to
address an agent ("Fine, actually." to the assistant) is no name by that use; names that stand
for one person (vocatives, display handles, a speaker's first name, "Dad" and the named father,
nicknames) are folded into one entity whose ``alias_evidence`` says which turn linked each alias
(``linking``); the ids of names whose type is only a guess are ``Extraction.guessed``;
recurring noun phrases become topics; date phrases become temporal entities resolved against the
turn's time. Relations are typed facts from the fixed vocabulary of ``relation_rules`` (read by
``relations``: verb patterns, kinship and role words, question and answer pairs, negation and
tense), a speaker's MENTIONS of what they talk about, and CO_OCCURS between names of one turn
said in the same sentence or the next that no fact links (never a date, which the entities'
temporal concepts already hold), a weak signal and never a fact. Every mention's span covers
text equal (ignoring case) to the entity's name or one of its aliases. The word-level reading
(tokens, name runs, type votes, topic words) is ``name_reading``; the word lists are
``lexicon``. Imports the standard library, core models and text, and ingest helpers.
"""

from __future__ import annotations

import asyncio
import re
from collections import Counter, defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime
from typing import Protocol

from explorer.core.models import AliasEvidence, Chunk, Entity, MemoryLayer, Mention, Relation
from explorer.core.text import singular
from explorer.ingest.casing import (
    BUSINESS_NAMED_AFTER,
    COMMON_RANK,
    LIST_SIZE,
    in_lower_case,
    is_everyday_word,
    reads_as_a_word,
    restore_names,
)
from explorer.ingest.chunking import sentence_spans
from explorer.ingest.given_names import (
    is_census_name,
    is_common_surname,
    is_given_name,
    is_world_given_name,
)
from explorer.ingest.ids import entity_id, entity_kind, normalise_name, relation_id
from explorer.ingest.lexicon import (
    BIRTHDAY_WORDS,
    COMMON_MODIFIERS,
    COMMON_VERBS,
    DEPARTMENTS,
    ENDEARMENTS,
    FOR_HEADS,
    FUNCTION_WORDS,
    HOLIDAYS,
    INTERJECTIONS,
    KNOWN_ACRONYM_BODIES,
    KNOWN_ORGANISATIONS,
    MATCH_WORDS,
    MONTH_ABBREVIATIONS,
    MONTHS,
    NAME_STOPWORDS,
    OCCASION_HEADS,
    OCCASION_OBJECTS,
    OCCASIONS,
    OCCASIONS_WITH_HEAD,
    OF_HEADS,
    SEASONS,
    SET_PHRASES,
    TITLES,
    TOPIC_STOPWORDS,
    VERSUS,
    WEEKDAYS,
    WEIGHING_UP,
    keyword_domains,
)
from explorer.ingest.linking import PeopleLinks
from explorer.ingest.name_reading import (
    DRAWN_OUT,
    Candidate,
    Occurrence,
    Token,
    continues_name,
    is_acronym,
    is_brand_cased,
    is_name_token,
    is_topic_token,
    sentence_of,
    strip_possessive,
    tokenise,
    vote,
)
from explorer.ingest.people import AGENT_SPEAKERS as AGENT_SPEAKERS
from explorer.ingest.people import (
    ROLE_TITLES,
    addressees,
    context_cues,
    handle_stems,
    is_vocative,
    kin_word,
    opens_exclaimed,
    teases,
    typed,
)
from explorer.ingest.people import speaker_type as speaker_type
from explorer.ingest.places import is_known_place
from explorer.ingest.relation_rules import (
    KIN_RELATIONS,
    PETS,
    ROLE_NOUNS,
    TITLED_KIN,
    UNIQUE_KIN,
    QuestionFrame,
    asked_frame,
    closed,
    names_kin,
)
from explorer.ingest.relations import (
    Fact,
    Named,
    Slot,
    Turn,
    answer_facts,
    here_facts,
    joining_facts,
    pet_owner,
    turn_facts,
    where_named,
)
from explorer.ingest.temporal import find_times


@dataclass(frozen=True, slots=True)
class Extraction:
    """Entities and relations found in one context, each with its mentions.

    ``guessed`` holds the ids of named entities whose type no evidence backs (a bare name read
    as a person by default): where two conversations type one name differently, ``combine``
    keeps the type that evidence gave.
    """

    entities: tuple[Entity, ...] = ()
    relations: tuple[Relation, ...] = ()
    guessed: frozenset[str] = frozenset()


class Extractor(Protocol):
    """Finds entities and relations in the chunks of one conversation."""

    async def extract(self, turns: Sequence[Chunk]) -> Extraction:
        """Deterministic for the same chunks; CPU-heavy work runs off the event loop."""
        ...


# First confidences, before evidence is counted (see ``evidence`` for the final formula).
BASE_CONFIDENCE = {
    "speaker": 1.0,
    "name": 0.7,  # capitalised in mid-sentence, or an acronym
    "recurring_name": 0.5,  # only ever capitalised at a sentence start, but recurring
    "topic": 0.4,
    "day": 0.8,
    "week": 0.7,
    "month": 0.7,
    "year": 0.7,
}
RELATION_CONFIDENCE = {"MENTIONS": 0.6, "CO_OCCURS": 0.3}
TYPED_RELATION_CONFIDENCE = 0.7

MIN_TOPIC_COUNT = 3
MIN_KEYWORD_TOPIC_COUNT = 2
MIN_PHRASE_COUNT = 2
MAX_TOPIC_WORDS = 3
MAX_CO_OCCURRING = 6  # entities per chunk paired for co-occurrence, in order of appearance
CO_OCCURRING_SENTENCES = 1  # how many sentences apart two names of a turn may be and co-occur
MAX_FACT_CHARS = 600

# The facts that say where someone lives now ("I love it here" is about it).
_HOMES = frozenset({"LIVES_IN", "MOVED_TO"})


@dataclass(slots=True)
class _Builder:
    """An accepted entity while its mentions and context are gathered."""

    id: str
    key: str
    name: str
    type: str
    scope: str
    confidence: float
    surfaces: set[str]
    occurrences: list[Occurrence]
    seen: list[datetime] = field(default_factory=list)
    temporal: Counter[str] = field(default_factory=Counter)
    domains: Counter[str] = field(default_factory=Counter)
    alias_evidence: list[AliasEvidence] = field(default_factory=list)
    guessed: bool = False  # the type is the fallback for a name nothing else is known of
    pet: bool = False  # an animal's name ("Biscuit got into a scrap ... brought him to the vet")


@dataclass(slots=True)
class _RelationBuilder:
    source: str
    target: str
    type: str
    confidence: float
    evidence: list[tuple[datetime, int, int, int, str]] = field(default_factory=list)
    ended: datetime | None = None


def _unique_aliases(name: str, surfaces: set[str]) -> tuple[str, ...]:
    seen = {name.casefold()}
    aliases: list[str] = []
    for surface in sorted(surfaces):
        if surface.casefold() not in seen:
            seen.add(surface.casefold())
            aliases.append(surface)
    return tuple(aliases)


def _top(counter: Counter[str], limit: int) -> tuple[str, ...]:
    ranked = sorted(counter.items(), key=lambda item: (-item[1], item[0]))
    return tuple(key for key, _count in ranked[:limit])


def _verb_form(word: str) -> bool:
    """A common verb, or its "-ing" form ("walking", "making", "running")."""
    if word in COMMON_VERBS:
        return True
    stem = word[:-3] if word.endswith("ing") else ""
    return len(stem) > 1 and (
        stem in COMMON_VERBS
        or stem + "e" in COMMON_VERBS
        or (stem[-1] == stem[-2] and stem[:-1] in COMMON_VERBS)
    )


def _a_match(sentence: str, one: Token, other: Token) -> bool:
    """Whether "one v other" in ``sentence`` is a match: two sides, never kin ("Mum vs Dad"),
    in a sentence about a match, not weighing one up against the other."""
    if kin_word(one.folded) or kin_word(other.folded) or WEIGHING_UP.search(sentence):
        return False
    return MATCH_WORDS.search(sentence) is not None


class OfflineExtractor:
    """The default extractor: rules and word lists, no network, deterministic and fast."""

    name = "offline"

    async def extract(self, turns: Sequence[Chunk]) -> Extraction:
        chunks = list(turns)
        return await asyncio.to_thread(extract_offline, chunks)


def extract_offline(chunks: Sequence[Chunk]) -> Extraction:
    """The offline extraction of one context, synchronously (see the module docstring).

    Chunks of several scopes are read as one context per scope: nothing links across scopes.
    """
    by_scope: dict[str, list[Chunk]] = defaultdict(list)
    for chunk in chunks:
        by_scope[chunk.scope].append(chunk)
    entities: list[Entity] = []
    relations: list[Relation] = []
    guessed: set[str] = set()
    for scope in sorted(by_scope):
        typed_lower = frozenset(c.id for c in by_scope[scope] if in_lower_case(c.text))
        restored = restore_names(by_scope[scope])
        changed = [
            (old, new)
            for old, new in zip(by_scope[scope], restored, strict=True)
            if old.text != new.text
        ]
        capitals = {new.id: _restored_capitals(old.text, new.text) for old, new in changed}
        verbatim = {new.id: old.text for old, new in changed}
        extraction = _Context(scope, restored, typed_lower, capitals, verbatim).run()
        entities.extend(extraction.entities)
        relations.extend(extraction.relations)
        guessed |= extraction.guessed
    return Extraction(tuple(entities), tuple(relations), frozenset(guessed))


# Words of time before a month's short form: "due end Oct", "by Sept", "the 3rd Dec"
_WHEN_BEFORE = re.compile(
    r"\b(?:end|early|mid|late|by|in|before|after|from|until|till|since|this|next|last|"
    r"\d{1,2}(?:st|nd|rd|th)?)\s+$",
    re.IGNORECASE,
)

#: Words a place's name follows, and a possessive then names a place ("at Maria's").
_VENUE_BEFORE = frozenset({"at", "to", "from"})


# A pet's name given: "Her name's Coco", "his name is Max", "she's called Shadow".
_NAME_GIVEN = re.compile(
    r"\W*(?:(?:her|his|their|its)\s+names?\s*(?:['’]s|is|was|are)|(?:she|he)['’]s\s+called|"
    r"(?:she|he)\s+is\s+called)\s+",
    re.IGNORECASE,
)
# Someone brought up (kin, a colleague, "someone"): a name given next is theirs, no pet's.
_PERSON_BROUGHT_UP = re.compile(
    r"\b(?:"
    + "|".join(sorted(map(re.escape, {*KIN_RELATIONS, "baby", "someone", "girl", "guy", "boy"})))
    + r")s?\b",
    re.IGNORECASE,
)
_PET_BROUGHT_UP = re.compile(r"\b(?:pets?|" + "|".join(sorted(PETS)) + r")s?\b", re.IGNORECASE)
# Nothing before a name but other names of the list: "Luna and Oliver!", "Pip, Sox and Tilly".
_NAMES_LISTED = re.compile(r"\W*(?:[A-Z][\w'’-]*(?:\s*,\s*|\s+and\s+|\s*&\s*))*")
_NAMES_ASKED = re.compile(
    r"\bwhat(?:\s+(?:are|is|was)|['’]s)\s+(?:their|his|her|its)\s+names?\b", re.IGNORECASE
)
# A title in quotes: "Becoming Nicole", "The Lord of the Rings", "Cyberpunk 2077" (each word
# of four letters or more capitalised, up to eight words; a quoted sentence is none, and one
# word only after "called": a word quoted is often the word itself).
_QUOTED = re.compile(r"(?<![\w])[\"“]([A-Z0-9][^\"“”\n]{0,60}?)[.!?,]?[\"”](?![\w])")
_TITLE_WORD = re.compile(r"[^\W_][\w'’:&-]*")
_TITLE_NAMED = re.compile(r"\b(?:called|titled|named)\s*$", re.IGNORECASE)


def _quoted_titles(text: str) -> list[tuple[int, int]]:
    """The spans of the titles ``text`` quotes (``_QUOTED``), without the quotes."""
    found = []
    for match in _QUOTED.finditer(text):
        words = _TITLE_WORD.findall(match.group(1))
        if not 1 <= len(words) <= 8:
            continue
        if any(
            len(word) >= 4 and not word[0].isupper() and not word[0].isdigit() for word in words
        ):
            continue  # "Always look on the bright side of life": a saying, no title
        if len(words) == 1 and not _TITLE_NAMED.search(text, 0, match.start()):
            continue  # "Esquisito" means strange, she says "Porto": a word quoted, unless named
        if any(word.casefold() in MONTHS for word in words) or (
            any(word.casefold() in WEEKDAYS for word in words)
            and any(word[:1].isdigit() for word in words)
        ):
            continue  # "Thursday 14 May": a date quoted ("The Thursday Murder Club" a title)
        if any(sum(char.isupper() for char in word) > 1 for word in words):
            continue  # "Kestrel ETAs", "GOOD PAIN": initials or shouting, no title
        found.append((match.start(1), match.end(1)))
    return found


def _opens_after_emoji(word: str) -> bool:
    """Whether a capitalised word after an emoji opens a sentence: an everyday word does ("😎
    Room is tiny"); a name does not lose its capital there ("😍 Orla looks amazing")."""
    return is_everyday_word(word) and not is_census_name(word)


#: Words that open a sentence to wish, greet or pity, before a name that is no part of them
#: ("Happy Diwali", "Best Diwali in years", "Poor Marcus", "Morning Rosie", "Night Jay").
_WISHES = frozenset({"happy", "merry", "best", "poor", "dear", "morning", "night", "evening"})

#: Cues every capitalised word has: written plainly, inside a sentence.
_BARE_CUES = frozenset({"plain", "framed"})
_WEAK_CUES = _BARE_CUES | {"group"}
_NUMBER_WORDS = frozenset(
    ["two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "twelve"]
)
# A name followed by what only a person does ("Sinéad booked", "Tom says"; a place answered
# may still be what "is" something, "jesmond is sooo expensive tho", and a chat's answer drops
# its subject: "Paystack joined in March", "Rosebank got a flat there").
_SUBJECT_OF_A_VERB = re.compile(
    r"\s+(?:says|said|thinks|thought|wants|reckons|booked|told)\b|['’]s\s+(?:booked|told)\b"
)
# The cue a name answering a question frame takes (``people.typed`` counts it).
_ANSWER_KINDS = {
    "WORKS_AT": "organization",
    "STUDIES_AT": "organization",
    "FROM": "place",
    "MOVED_TO": "place",
    "LIVES_IN": "place",
    "VISITED": "place",
    "PLANS": "place",
}
# A quarter, a half or a financial year ("ship in Q4", "the H2 plan", "FY26 targets"): a time.
_PERIOD_CODE = re.compile(r"q[1-4]|h[12]|fy\d{2}(?:\d{2})?")


_LONG_SHOUT = 7  # letters of a shouted word checked against the whole word list
#: Below this rank a word is that word even when somewhere it is a given name ("Karma!!"
#: 8,430th, "Bliss!!" 9,700th; "Imran!!" is 22,992nd, "Hamish!!" 27,107th).
WORD_RANK = 15_000


def _common_word_shouted(
    piece: Sequence[Token], key: str, tokens: Sequence[Token], in_run: bool
) -> bool:
    """Whether a name in capitals is a common word shouted: in a run of shouting ("NO WAY"),
    or alone with four letters or more ("DONE", "in a SUIT"), unless it follows a word a
    business's name follows ("works at SHELTER") or is known initials ("NASA"). A long word
    is so if any dictionary knows it ("his mom has a SPREADSHEET"; "BEATRIZ" is a name)."""
    rank = LIST_SIZE if len(key) >= _LONG_SHOUT else COMMON_RANK
    if len(piece) != 1 or not is_everyday_word(key, rank) or is_census_name(key):
        return False
    if in_run:
        return True
    first = piece[0]
    before = tokens[first.index - 1].folded if first.index > 0 else ""
    return (
        len(key) >= 4
        and first.word.isupper()
        and key not in KNOWN_ACRONYM_BODIES
        and before not in BUSINESS_NAMED_AFTER
    )


# A title of kin given for respect, not kinship: the sentence says whose elder it is
_TITLED_FOR_RESPECT = re.compile(
    r"\b(?:office|work|landlady|landlord|boss|boss['’]s|neighbou?rs?|downstairs|colleague|"
    r"teacher|coach)\b",
    re.IGNORECASE,
)


def _named_like_a_business(key: str) -> bool:
    """Whether a name of two words or more opens and ends on everyday words that no one is
    called and ends on no common surname ("Toast Box", "Embedded World"): a business or a
    thing, as far as anything says; "Uncle Kunle", "Pastor Adeyemi", "Blessing Okoro" and
    "Declan Hughes" are people (their last word is no everyday word, or a surname)."""
    words = key.split()
    if len(words) < 2 or names_kin(key):
        return False
    first, last = words[0], words[-1]
    return (
        is_everyday_word(first)
        and is_everyday_word(last)
        and not first.endswith("ly")  # "Apparently Grandma Okafor": a word before the name
        and not any(is_census_name(word) or is_given_name(word) for word in (first, last))
        and not is_common_surname(last)
        and first not in TITLES
    )


#: Words after a possessive that are no thing of the owner's.
_OWNS_NOTHING = frozenset({"instead", "tho", "though", "then", "too", "again", "lol", "haha"})


def _venue_name(key: str, candidate: Candidate, joined: bool = False) -> str | None:
    """The name with its "'s" when the conversation only ever writes it so, once after "at",
    "to" or "from" ("drinks at Maria's", "Maria's at 8"): a restaurant, a shop, someone's
    place; a known business written so ("Nando's") is one wherever it stands. ``None`` when
    the name is also written plainly or owns a noun ("Maria said", "Maria's brother"), or is
    family ("at Uncle Samir's", "at Grandma's": their home, and they are people). ``joined``:
    the conversation also names a place "X's ..." ("told me about Yinka's" beside Yinka's Afro
    Foods), which the name is short for."""
    if not candidate.venues or candidate.cues["plain"]:
        return None
    if names_kin(key):
        return None
    written = candidate.venues.most_common(1)[0][0]
    known = " ".join(written.casefold().replace("’", "'").split()) in KNOWN_ORGANISATIONS
    # Twice written so and never otherwise ("Kelly's is closer tho" / "ok Kelly's saturday")
    again = sum(candidate.venues.values()) >= 2
    return written if candidate.cues["venue"] or known or joined or again else None


def _within(token: Token | None, sentence: int) -> Token | None:
    """``token`` if it is in ``sentence``, else ``None``."""
    return token if token is not None and token.sentence == sentence else None


def _in_a_shouted_run(tokens: Sequence[Token], index: int) -> bool:
    """Whether a word in capitals stands beside a little word shouted too ("NO WAY", "I LOVE
    IT"): words shouted, no initials."""
    for at in (index - 1, index + 1):
        if 0 <= at < len(tokens):
            near = tokens[at]
            little = near.folded in FUNCTION_WORDS or near.folded in INTERJECTIONS
            if little and near.sentence == tokens[index].sentence and is_acronym(near.word):
                return True
    return False


def _restored_capitals(typed: str, restored: str) -> frozenset[int]:
    """Where ``casing`` gave a lower-case name its capital (the texts differ only there)."""
    return frozenset(
        at for at, (a, b) in enumerate(zip(typed, restored, strict=True)) if a != b and b.isupper()
    )


class _Context(PeopleLinks):
    """One scope's chunks of one conversation, read together so recurrence can be counted."""

    def __init__(
        self,
        scope: str,
        chunks: Sequence[Chunk],
        typed_lower: frozenset[str] = frozenset(),
        restored: Mapping[str, frozenset[int]] | None = None,
        verbatim: Mapping[str, str] | None = None,
    ) -> None:
        self.scope = scope
        self.chunks = list(chunks)
        # The turns as written, where ``casing`` changed a letter's case: a fact quotes them.
        self.verbatim = verbatim or {}
        # The chunks typed all in lower case (before ``casing`` gave their names capitals).
        self.typed_lower = typed_lower
        # Per chunk, where ``casing`` capitalised a name: a capital a context gave, not a
        # sentence's habit, so it counts as written mid-sentence ("austin is too hot").
        self.restored = restored or {}
        self.sentences: list[list[tuple[int, int]]] = []
        self.tokens: list[list[Token]] = []
        self.names: dict[str, Candidate] = {}
        self.topics: dict[str, Candidate] = {}
        self.times: dict[str, Candidate] = {}
        # Words seen in lower case, and capitalised, other than at a clause's start.
        self.lower_seen: Counter[str] = Counter()
        self.upper_seen: Counter[str] = Counter()
        self.speakers: dict[str, str] = {}  # normalised → as written
        self.vocatives: dict[str, list[tuple[int, str]]] = defaultdict(
            list
        )  # key → (turn, surface)
        # Names that open a turn exclaimed ("Kasia!! happy birthday"): vocatives when a person's.
        self.exclaimed: dict[str, list[tuple[int, str]]] = defaultdict(list)
        self.called_out: set[str] = set()  # a person's "Ciaro!!" opening a turn
        self.alias_evidence: dict[str, list[AliasEvidence]] = defaultdict(list)
        self.addressed: list[str | None] = []
        self.handle_stems: dict[str, str] = {}  # "emi" → the speaker emi_k

    def run(self) -> Extraction:
        for chunk in self.chunks:
            self.speakers.setdefault(normalise_name(chunk.speaker), chunk.speaker)
        self.addressed = addressees([normalise_name(chunk.speaker) for chunk in self.chunks])
        self.handle_stems = handle_stems(
            {key: name for key, name in self.speakers.items() if speaker_type(name) == "person"}
        )
        # Every chunk is tokenised before any name is read, so how a word is written anywhere
        # in the context can decide where a name starts.
        for index, chunk in enumerate(self.chunks):
            self._scan_chunk(index, chunk)
        for index, chunk in enumerate(self.chunks):
            self._read_names(index, chunk.text, self.tokens[index])
            self._read_topics(index, chunk.text, self.tokens[index])
        self._link_people()
        builders = self._builders()
        relations = self._relations(builders)  # first: an answer can give someone an alias
        entities = {builder.id: self._entity(builder) for builder in builders}
        guessed = frozenset(builder.id for builder in builders if builder.guessed)
        return Extraction(tuple(entities.values()), tuple(relations), guessed)

    # -- reading ---------------------------------------------------------------------------

    def _scan_chunk(self, index: int, chunk: Chunk) -> None:
        text = chunk.text
        sentences = sentence_spans(text)
        self.sentences.append(sentences)
        times = find_times(text, chunk.timestamp)
        for time in times:
            candidate = self.times.setdefault(time.value, Candidate(grain=time.grain))
            candidate.surfaces[text[time.start : time.end]] += 1
            candidate.occurrences.append(
                Occurrence(index, time.start, time.end, sentence_of(sentences, time.start))
            )
        tokens = tokenise(text, sentences, [(time.start, time.end) for time in times])
        capitals = self.restored.get(chunk.id, frozenset())
        tokens = [
            replace(token, clause_start=False)
            if token.start in capitals
            else replace(token, clause_start=True)
            if token.after_emoji and _opens_after_emoji(token.folded)
            else token
            for token in tokens
        ]
        self.tokens.append(tokens)
        for token in tokens:
            if not token.clause_start:
                seen = self.lower_seen if token.word[0].islower() else self.upper_seen
                seen[strip_possessive(token.folded)] += 1

    def _read_names(self, index: int, text: str, tokens: list[Token]) -> None:
        titled = _quoted_titles(text)
        run: list[Token] = []
        for token in tokens:
            if titled and any(start <= token.start < end for start, end in titled):
                if run:
                    self._add_name_run(index, text, tokens, run)
                    run = []
                continue
            if run and continues_name(run[-1], token, text):
                run.append(token)
                continue
            if run:
                self._add_name_run(index, text, tokens, run)
            run = [token] if is_name_token(token) else []
            if not run and self._called_in_lower_case(index, text, token):
                self._add_name(index, text, tokens, [token], token.word.title())
        if run:
            self._add_name_run(index, text, tokens, run)
        for start, end in titled:
            piece = [token for token in tokens if start <= token.start < end]
            candidate = self._add_name(index, text, tokens, piece) if piece else None
            if candidate is not None:
                # a title quoted is a name where it stands, even opening its quote; a work
                # unless what is said of it says more ("a product called "Kestrel Live"")
                candidate.mid_sentence += 1
                candidate.cues["work_of_art"] += 1
                candidate.cues["quoted"] += 1

    def _called_in_lower_case(self, index: int, text: str, token: Token) -> bool:
        """A chat's "night emi x", "congrats kate!!": a lower-case word in a vocative's place
        that is a given name or a speaker's handle ("emi" of emi_k) is a name, and so is one
        that is no common word in a turn typed all in lower case ("night lulu x"; "what keeps
        you sane" from someone who capitalises calls nobody Sane)."""
        word = token.folded
        if token.in_time or not word.isalpha() or len(word) < 3 or not token.word.islower():
            return False
        if word in FUNCTION_WORDS or word in COMMON_VERBS or word in INTERJECTIONS:
            return False
        typed_lower = self.chunks[index].id in self.typed_lower
        if not (
            # one who capitalises writes a word that is also a name with a capital when it is
            # one: "bring you joy!" calls nobody Joy
            (is_given_name(word) and (typed_lower or not is_everyday_word(word)))
            or (_world_name(word) and (typed_lower or not is_everyday_word(word)))
            or word in self.handle_stems
            or (typed_lower and not (reads_as_a_word(word) or word.endswith(("ly", "ing", "ed"))))
        ):
            return False
        sentence = self.sentences[index][token.sentence]
        return is_vocative(text, token.start, token.end, sentence)

    def _add_name_run(self, index: int, text: str, tokens: list[Token], run: list[Token]) -> None:
        # Split at stopwords ("Hey", "I'm", month names) and trim lower-case connectors.
        pieces: list[list[Token]] = [[]]
        for position, token in enumerate(run):
            # "at The Boulder Yard", "is A Map of Small Hours": a capitalised article in the
            # middle of a sentence opens the name it belongs to.
            article = (
                token.folded in _ARTICLES
                and token.word[0].isupper()
                and not token.clause_start
                and not pieces[-1]
                and position + 1 < len(run)
            )
            # "CEO Emeka 👑": a role's initials before a name are no part of it.
            titled = (
                token.folded in ROLE_TITLES
                and position + 1 < len(run)
                and run[position + 1].word[0].isupper()
            )
            # "the Great Scottish Run", "the Good Samaritan": a capitalised word English also
            # cries out, after "the" and before more of the name, is part of it
            inside = (
                token.index > 0
                and tokens[token.index - 1].word == "the"
                and (
                    (token.folded in INTERJECTIONS and token.folded not in FUNCTION_WORDS)
                    or token.folded in _NUMBER_WORDS  # "the Two Oceans", "the Three Peaks"
                )
                and token.word[0].isupper()
                and not token.word.isupper()
                and not token.clause_start
                and position + 1 < len(run)
            )
            # "Glasgow Uni DONE ✅": an everyday word shouted after a name written in mixed
            # case ends it
            cried = (
                token.word.isupper()
                and len(token.word) >= 3
                and any(not part.word.isupper() for part in pieces[-1])
                and is_everyday_word(token.folded, COMMON_RANK)
                # a surname in capitals, as forms and tickets write it: "Mr David BROWN"
                and not is_common_surname(token.folded)
                and not is_census_name(token.folded)
            )
            stop = (
                titled
                or cried
                or (
                    not inside
                    and (
                        token.folded in NAME_STOPWORDS
                        or strip_possessive(token.folded) in NAME_STOPWORDS
                    )
                    and not self._named_like_a_month(token, text)
                    # "Mr Im", "Sunny Im": a surname after a title or a name, not "I'm" unmarked
                    and not (token.folded == "im" and position > 0)
                )
            )
            if stop and not article and not _joins(pieces[-1], token, run[position + 1 :]):
                pieces.append([])
            else:
                pieces[-1].append(token)
        for piece in pieces:
            while piece and piece[-1].word[0].islower():
                piece.pop()
            while piece and piece[0].word[0].islower():
                piece.pop(0)
            # "Saw Rosa this morning", "Walking Ada down the aisle": a sentence's first word
            # that is a common verb or its "-ing" form (a chat drops its "I"), or is written
            # in lower case elsewhere in the context, is no part of the name after it, unless
            # the context also capitalises it mid-sentence.
            while (
                len(piece) > 1
                and piece[0].clause_start
                and self._common_word(piece[0])
                and piece[1].word != "and"  # "Ox and Finch is in Sydney"
                and not _heads_a_name(piece)
            ):
                piece.pop(0)
            if len(piece) == 1 and self._teased(index, text, piece[0]):
                continue
            if piece:
                self._add_name(index, text, tokens, piece)

    def _answered_frame(self, index: int) -> QuestionFrame | None:
        """The frame the turn before asked in, when another speaker asked it (its last question,
        as ``relations.answer_facts`` reads it)."""
        if index == 0 or self.chunks[index - 1].speaker == self.chunks[index].speaker:
            return None
        text = self.chunks[index - 1].text
        questions = [
            text[start:end].casefold()
            for start, end in self.sentences[index - 1]
            if text[start:end].rstrip().endswith("?")
        ]
        return asked_frame(questions[-1]) if questions else None

    def _teased(self, index: int, text: str, token: Token) -> bool:
        opens = self.sentences[index][token.sentence][0]
        return teases(text[opens : token.start], token.word)

    @staticmethod
    def _named_like_a_month(token: Token, text: str) -> bool:
        """ "my bf Jun", "ask Jan": a month's short form capitalised inside a sentence that the
        time reader took for no date is a name (a full month's name, "the June retest", is not;
        nor one after a word of time: "due end Oct", "by Sept", "the 3rd Dec")."""
        word = strip_possessive(token.folded)
        return (
            word in MONTH_ABBREVIATIONS
            and not token.in_time
            and not token.clause_start
            and token.word[0].isupper()
            and not _WHEN_BEFORE.search(text, 0, token.start)
        )

    def _common_word(self, token: Token) -> bool:
        word = strip_possessive(token.folded)
        if self.upper_seen[word]:  # capitalised mid-sentence too: a name ("in Reading")
            return False
        return (
            self.lower_seen[word] > 0
            or _verb_form(word)
            or word in _WISHES
            # "Sadly Stockbridge is too far": a sentence's adverb, not a name's first word
            or (word.endswith("ly") and not is_census_name(word) and is_everyday_word(word))
        )

    def _add_name(
        self,
        index: int,
        text: str,
        tokens: list[Token],
        piece: list[Token],
        written: str | None = None,
    ) -> Candidate | None:
        """Read one name where ``piece`` stands; its candidate, or ``None`` when it is none."""
        start = piece[0].start
        written_whole = text[start : piece[-1].end]
        surface = strip_possessive(written_whole)
        end = start + len(surface)
        surface = written or surface  # a lower-case name is kept as a name is written
        key = normalise_name(surface)
        if len(key) < 2 or not any(char.isalpha() for char in key):
            return None
        shouted_run = len(piece) == 1 and _in_a_shouted_run(tokens, piece[0].index)
        if _common_word_shouted(piece, key, tokens, shouted_run):
            return None  # "NO WAY", "Glasgow Uni DONE": a common word shouted, no name
        if self._in_a_fixture(index, text, tokens, piece):
            return None  # "Wales v England": the match, not the two countries
        candidate = self.names.setdefault(key, Candidate())
        candidate.surfaces[surface] += 1
        first = piece[0]
        candidate.occurrences.append(Occurrence(index, start, end, first.sentence))
        # A word in capitals exclaimed at the start of a turn is a name shouted ("HAMISH!!!!"),
        # not an organisation's initials.
        exclaimed = opens_exclaimed(text, start, end)
        shouted = exclaimed and text[end:].lstrip().startswith("!")
        acronym = len(piece) == 1 and is_acronym(first.word) and not shouted and not shouted_run
        if acronym:
            candidate.acronym = True
        if not first.clause_start:
            candidate.mid_sentence += 1
        previous = tokens[first.index - 1] if first.index > 0 else None
        before = tokens[first.index - 2] if first.index > 1 else None
        after_index = piece[-1].index + 1
        following = tokens[after_index] if after_index < len(tokens) else None
        earlier = tokens[first.index - 3] if first.index > 2 else None
        # Only the name's own sentence votes: "I'm so in. Marlon went" puts no place before him.
        sentence_of = first.sentence
        vote(
            candidate,
            key,
            _within(previous, sentence_of),
            _within(before, sentence_of),
            _within(following, sentence_of),
            _within(earlier, sentence_of),
            written_whole != surface,
        )
        self._read_venue(candidate, written_whole, surface, piece, previous, following)
        if (
            previous is not None
            and previous.folded in TITLES
            and previous.sentence == first.sentence
            # "i miss Ruth": a lower-case "miss" is the verb
            and (previous.folded != "miss" or previous.word[0].isupper())
        ):
            # Kept as an alias ("Dr. Lee"), never preferred to the plain name as the entity's name.
            candidate.surfaces[text[previous.start : start + len(surface)]] += 0
        sentence = self.sentences[index][first.sentence]
        context_cues(
            candidate.cues,
            text[sentence[0] : start],
            text[end : sentence[1]],
            previous.folded
            if previous is not None and previous.sentence == first.sentence
            else None,
        )
        if self._named_as_a_pet(index, text, sentence, start, first.sentence):
            candidate.cues["pet"] += 1
        if acronym:
            candidate.cues["acronym"] += 1
        if following is not None and written_whole != surface:
            self._add_occasion(index, text, tokens, piece, following)
        answered = self._answered_frame(index) if not text[:start].strip() else None
        if answered is not None and not _SUBJECT_OF_A_VERB.match(text, end):
            # "where are you working now?" / "Wealthsimple! on the payments team": the name an
            # answer opens on is what was asked for, of the kind asked, unless it is the
            # subject of a verb ("where are ye staying?" / "Sinéad booked Harbour Cottage")
            candidate.cues["answer"] += 1
            kind = _ANSWER_KINDS.get(answered.relation)
            if kind is not None:
                candidate.cues[kind] += 1
        brand_cased = len(piece) == 1 and is_brand_cased(first.word)
        if brand_cased:
            candidate.cues["brand_cased"] += 1
        if len(piece) <= 2 and is_vocative(text, start, end, sentence):
            # "Pádraig yeah, SeaWatch.": a name cased like a brand is nobody's to be called by
            if not reads_as_a_word(key) and not brand_cased:
                self.vocatives[key].append((index, surface))
        elif len(piece) <= 2 and exclaimed:
            self.exclaimed[key].append((index, surface))
            # A call, not an interjection: cried out twice over ("Ciaro!!"; "Woo!" is none),
            # by a person (an assistant cries out words: "Parabéns!"), and no word English
            # uses often ("Woo!!", "Hiya!!") or draws out ("Yesss!!", "AAAAAH!!!").
            twice = text[end:].lstrip().startswith("!!")
            from_person = speaker_type(self.chunks[index].speaker) == "person"
            wordlike = DRAWN_OUT.search(key) or any(_cried_word(w) for w in key.split())
            if twice and from_person and not wordlike:
                self.called_out.add(key)
        return candidate

    def _named_as_a_pet(
        self, index: int, text: str, sentence: tuple[int, int], start: int, number: int
    ) -> bool:
        """Whether a name is given to a pet just brought up: "I adopted a puppy! Her name's
        Coco", or the answer to "Pets are the best. What are their names?" ("Luna and Oliver!")."""
        # brought up in this turn or the last few ("we got a puppy!" ... "her name's Biscuit")
        earlier = self.chunks[max(0, index - 4) : index]
        if _NAME_GIVEN.fullmatch(text, sentence[0], start):
            if _PERSON_BROUGHT_UP.search(text, 0, sentence[0]):
                return False  # "My sister visited. Her name's Sarah"
            return _PET_BROUGHT_UP.search(text, 0, sentence[0]) is not None or any(
                _PET_BROUGHT_UP.search(chunk.text) for chunk in earlier
            )
        return (
            number == 0
            and index > 0
            and _NAMES_LISTED.fullmatch(text, sentence[0], start) is not None
            and _NAMES_ASKED.search(self.chunks[index - 1].text) is not None
            and any(_PET_BROUGHT_UP.search(chunk.text) for chunk in earlier)
        )

    def _in_a_fixture(self, index: int, text: str, tokens: list[Token], piece: list[Token]) -> bool:
        """Whether ``piece`` is a side of a match ("Wales v England", "Chiefs vs Pirates"): the
        first side adds the match, as an event; neither side is a name of its own there."""
        first, last = piece[0], piece[-1]

        def at(position: int) -> Token | None:
            if 0 <= position < len(tokens) and tokens[position].sentence == first.sentence:
                return tokens[position]
            return None

        versus, other = at(last.index + 1), at(last.index + 2)
        opens, closes = self.sentences[index][first.sentence]
        said = text[opens:closes]
        if (
            versus is not None
            and versus.word in VERSUS
            and other
            and is_name_token(other)
            and _a_match(said, first, other)
        ):
            end = other.index
            while (following := at(end + 1)) is not None and is_name_token(following):
                end = following.index  # "Kaizer Chiefs vs Orlando Pirates"
            self._add_event(index, text, first.start, tokens[end].end, first.sentence, weight=2)
            return True
        versus, other = at(first.index - 1), at(first.index - 2)
        return (
            versus is not None
            and versus.word in VERSUS
            and other is not None
            and is_name_token(other)
            and _a_match(said, other, first)
        )

    def _add_occasion(
        self, index: int, text: str, tokens: list[Token], piece: list[Token], following: Token
    ) -> None:
        """An occasion named by whose it is: "Meera's wedding", "Mum's 60th", "Lerato's
        farewell braai", "Sam's 21st birthday" is an event of its own (the person stays a name
        too); "Ada's wedding dress", "Tom's birthday card" and "Tom's leaving tomorrow" are not."""
        sentence = piece[-1].sentence

        def next_word(token: Token) -> Token | None:
            after = tokens[token.index + 1] if token.index + 1 < len(tokens) else None
            return after if after is not None and after.sentence == sentence else None

        if following.sentence != sentence or following.folded not in OCCASIONS:
            return
        last = following
        after = next_word(last)
        if (
            last.folded.endswith(("st", "nd", "rd", "th"))
            and after
            and after.folded in BIRTHDAY_WORDS
        ):
            last, after = after, next_word(after)  # "Sam's 21st birthday"
        if after is not None and after.folded in OCCASION_HEADS:
            last, after = after, next_word(after)  # "farewell braai", "birthday party", "hen do"
        elif last.folded in OCCASIONS_WITH_HEAD:
            return  # "Tom's leaving tomorrow": 's is "is"
        if after is not None and after.folded in OCCASION_OBJECTS:
            return  # "Ada's wedding dress": a thing of the occasion, not the occasion
        start, end = piece[0].start, last.end
        first = piece[0].index
        if first >= 2 and tokens[first - 1].folded in ("and", "&"):
            other = tokens[first - 2]
            if other.sentence == sentence and is_name_token(other) and other.folded not in HOLIDAYS:
                start = other.start  # "Cillian and Orla's wedding": the couple's
        self._add_event(index, text, start, end, sentence, weight=1)

    def _add_event(
        self, index: int, text: str, start: int, end: int, sentence: int, *, weight: int
    ) -> None:
        """An event named by its shape (a match, an occasion): the shape is the evidence of its
        type, and of its being a name wherever in the sentence it stands."""
        surface = text[start:end]
        candidate = self.names.setdefault(normalise_name(surface), Candidate())
        candidate.surfaces[surface] += 1
        candidate.occurrences.append(Occurrence(index, start, end, sentence))
        candidate.cues["event"] += weight
        candidate.mid_sentence += 1

    @staticmethod
    def _read_venue(
        candidate: Candidate,
        written: str,
        surface: str,
        piece: list[Token],
        previous: Token | None,
        following: Token | None,
    ) -> None:
        """Count how a name is written, for ``_venue_name``: "at Maria's", "Nando's at 8" (a
        possessive no noun follows) could be a place; "Maria" or "Maria's brother" names her."""
        owned = (
            following is not None
            and following.sentence == piece[-1].sentence
            # "Maria's brother", "Ada's Mum", "Ada's Kwame" (not "at Maria's saturday?", "how
            # bout Terry Black's instead")
            and following.folded not in FUNCTION_WORDS
            and not following.in_time
            and following.folded not in _OWNS_NOTHING
        )
        if written == surface or owned or kin_word(normalise_name(surface)) is not None:
            candidate.cues["plain"] += 1
            return
        candidate.venues[written] += 1
        if (
            previous is not None
            and previous.sentence == piece[0].sentence
            and previous.folded in _VENUE_BEFORE
        ):
            candidate.cues["venue"] += 1

    def _read_topics(self, index: int, text: str, tokens: list[Token]) -> None:
        run: list[Token] = []
        previous = ""
        for token in tokens:
            said_with, previous = previous, token.folded
            if not is_topic_token(token) or (said_with, token.folded) in SET_PHRASES:
                if run:
                    self._add_topic(index, text, run)
                run = []
                continue
            if run and (
                token.sentence != run[-1].sentence or text[run[-1].end : token.start] != " "
            ):
                self._add_topic(index, text, run)
                run = []
            run.append(token)
        if run:
            self._add_topic(index, text, run)

    def _add_topic(self, index: int, text: str, run: list[Token]) -> None:
        # Noun phrases end in their head noun, so the last few words of a run are kept.
        phrase = run[-MAX_TOPIC_WORDS:]
        start, end = phrase[0].start, phrase[-1].end
        key = singular(" ".join(token.folded for token in phrase))
        candidate = self.topics.setdefault(key, Candidate())
        candidate.surfaces[text[start:end]] += 1
        candidate.occurrences.append(Occurrence(index, start, end, phrase[0].sentence))

    # -- deciding --------------------------------------------------------------------------

    def _name_label(self, key: str, candidate: Candidate) -> str | None:
        """The base-confidence label if ``key`` is a name, else ``None``."""
        if key in self.speakers:
            return "speaker"
        single = " " not in key
        if single and (
            key in COMMON_VERBS
            or key in COMMON_MODIFIERS
            or key in DEPARTMENTS
            or key in ROLE_NOUNS
            or key.isdigit()
            or _PERIOD_CODE.fullmatch(key)
        ):
            return None
        if candidate.acronym or self._addresses_a_person(key):
            return "name"
        if candidate.cues["answer"] and not is_everyday_word(key, COMMON_RANK):
            return "recurring_name"  # the answer to "where do you work?", however it is cried
        if candidate.cues["pet"] and single and self.lower_seen[key] == 0:
            return "recurring_name"  # "What's his name?" / "Bandit."
        lower = self.lower_seen[key] if single else 0
        if candidate.cues["person_verb"] and single and lower == 0 and key not in TOPIC_STOPWORDS:
            return "recurring_name"  # "Zaid says ..." opening a sentence
        if (
            candidate.cues["joining"]
            and single
            and lower == 0
            and key not in TOPIC_STOPWORDS
            and key not in SEASONS
            and key not in MONTHS
        ):
            return "recurring_name"  # "Mariana's coming too" ("Summer's coming too" is June)
        if (
            candidate.cues["life_verb"]
            and single
            and lower == 0
            and is_census_name(key)
            and not is_known_place(key)
            and key not in MONTHS
            and key not in SEASONS
        ):
            return "recurring_name"  # "Sarah got the job at Adyen" opening a sentence
        if kin_word(key) in UNIQUE_KIN and (
            candidate.mid_sentence
            or candidate.cues["person_verb"]
            or len(candidate.occurrences) > 1
        ):
            return "name"  # "ask Mum" or "Mum says ...", though "my mum" is written too
        if candidate.mid_sentence and candidate.mid_sentence >= lower:
            return "name"
        if candidate.cues["honorific"] and lower == 0:
            return "name"  # "Kamala aunty recommended one physio", opening a sentence
        # Only ever seen opening a sentence: a name only if it recurs and does not look like an
        # ordinary word (adverb, participle, contraction) that a sentence happens to start with.
        # Two or more capitalised words in a row ("Project Falcon ships") name something even
        # at a sentence start, and so does a word the conversation's people vouch for (``linking``).
        # A known town opens a sentence as itself ("🥺 Milwaukee was worth it").
        recurring = (
            len(candidate.occurrences) >= 2
            or not single
            or self._vouched_for(key)
            or (is_known_place(key) and not is_everyday_word(key, COMMON_RANK))
        )
        ordinary = key.endswith(("ly", "ing", "ed")) or "'" in key or "’" in key
        # A word that only ever opens a sentence and stands alone there ("Fine, actually.") is
        # an exclamation, not a name.
        # A full name that no dictionary knows opens a sentence as itself even so ("Kamran
        # Akhtar?", "Oskar Wieland, starts on the 16th").
        # Two words or more open a sentence as a name unless one is among the commonest words
        # ("Fair play", "Grand Central"): "Paolo Cruz?? from our section?" is someone. Shouted,
        # any word a dictionary knows makes it a cry ("ERES UNA LEYENDA").
        shouted = all(surface.isupper() for surface in candidate.surfaces)
        rank = LIST_SIZE if shouted else COMMON_RANK
        words = key.split()
        exclaimed = (
            not candidate.cues["framed"]
            and (single or any(is_everyday_word(word, rank) for word in words))
            and not (words[0] in OF_HEADS and "of" in words)  # "University of Tasmania, in May"
        )
        # An everyday word only ever opening a sentence, with nothing said of it that a name
        # would have (a type's evidence), is that word ("Fair enough", "Fair play to him"),
        # unless it is a given name or a town too ("Will", "Jonah", "Milwaukee").
        everyday = (
            single
            and not candidate.votes
            # ("Ill have both tickets": a plural verb after a word says no group of it)
            and all(not count for cue, count in candidate.cues.items() if cue not in _WEAK_CUES)
            and is_everyday_word(key)
            and not is_census_name(key)
            and not (is_known_place(key) and not is_everyday_word(key, COMMON_RANK))
        )
        if (
            recurring
            and lower == 0
            and not ordinary
            and not exclaimed
            and not everyday
            and key not in TOPIC_STOPWORDS
        ):
            return "recurring_name"
        return None

    def _addresses_a_person(self, key: str) -> bool:
        """Whether ``key`` is used to address a person ("Thanks, Kate" to the speaker Kate).

        A user's "Fine, actually." or "Scope, I think." to an assistant reads like a vocative but
        names no one: a word used only to address an agent, or no one, is not made a name by it.
        """
        for index, _surface in self.vocatives.get(key, ()):
            addressed = self.addressed[index]
            if addressed is not None and speaker_type(self.speakers[addressed]) == "person":
                return True
        return False

    def _topic_accepted(self, key: str, candidate: Candidate) -> bool:
        if key in self.names or key in self.speakers:
            return False
        count = len(candidate.occurrences)
        if " " in key:
            return count >= MIN_PHRASE_COUNT
        if keyword_domains(key):
            return count >= MIN_KEYWORD_TOPIC_COUNT
        # A lone participle is more often a verb ("standing", "booked") than an activity
        # ("camping"); the activities worth keeping are in the domain lexicon.
        return count >= MIN_TOPIC_COUNT and not key.endswith(("ing", "ed"))

    def _first_names(self) -> None:
        """Fold a speaker's first name, used alone, into the speaker ("Maya" → "Maya Okafor")."""
        firsts: dict[str, list[str]] = defaultdict(list)
        for key in self.speakers:
            if " " in key:
                firsts[key.split()[0]].append(key)
        for first, keys in firsts.items():
            if len(keys) != 1 or first in self.speakers or first not in self.names:
                continue
            occurrence = self.names[first].occurrences[0]
            surface = self.chunks[occurrence.chunk].text[occurrence.start : occurrence.end]
            reason = f"{surface} is the first name of {self.speakers[keys[0]]}"
            self._fold_into(first, keys[0], occurrence.chunk, surface, reason)

    def _builders(self) -> list[_Builder]:
        self._first_names()
        self._short_heads()
        builders: list[_Builder] = []
        # The owners of names "X's ...": "Yinka's" is short for Yinka's Afro Foods
        owners = {key.split("'s ", 1)[0] for key in self.names if "'s " in key}
        for key, candidate in self.names.items():
            label = self._name_label(key, candidate)
            if label == "speaker":
                speaker = self.speakers[key]
                kind = speaker_type(speaker)
                builders.append(self._builder(key, candidate, kind, 1.0, name=speaker))
            elif label is not None:
                kind, backed = typed(key, candidate.votes, candidate.cues)
                if not backed and kind == "place" and self._vouched_for(key):
                    kind = "person"  # "Farah" beside Dr. Farah Haddad is her, not the town
                elif not backed and kind == "person" and _named_like_a_business(key):
                    kind = "organization"
                venue = _venue_name(key, candidate, key in owners)
                if venue is not None and kind in ("person", "place", "organization"):
                    kind, backed = ("place" if kind == "person" else kind), True
                builder = self._builder(key, candidate, kind, BASE_CONFIDENCE[label], venue)
                builder.guessed = not backed
                cues = candidate.cues
                builder.pet = (
                    kind == "other" and cues["pet"] + cues["pet_care"] + cues["pet_emoji"] > 0
                )
                builders.append(builder)
        for key, speaker in self.speakers.items():
            if key not in self.names:
                kind = speaker_type(speaker)
                builders.append(self._builder(key, Candidate(), kind, 1.0, name=speaker))
        for key, candidate in self.topics.items():
            if self._topic_accepted(key, candidate):
                builders.append(self._builder(key, candidate, "topic", BASE_CONFIDENCE["topic"]))
        for key, candidate in self.times.items():
            confidence = BASE_CONFIDENCE[candidate.grain]
            builders.append(self._builder(key, candidate, "date", confidence, name=key))
        self._attach_context(builders)
        return builders

    def _builder(
        self,
        key: str,
        candidate: Candidate,
        entity_type: str,
        confidence: float,
        name: str | None = None,
    ) -> _Builder:
        if name is None:
            ranked = sorted(candidate.surfaces.items(), key=lambda item: (-item[1], item[0]))
            name = ranked[0][0]
        return _Builder(
            id=entity_id(self.scope, entity_type, key),
            key=key,
            name=name,
            type=entity_type,
            scope=self.scope,
            confidence=confidence,
            surfaces=set(candidate.surfaces),
            occurrences=list(candidate.occurrences),
            alias_evidence=list(self.alias_evidence.get(key, ())),
        )

    def _attach_context(self, builders: list[_Builder]) -> None:
        """Dates and domains an entity shares chunks with; speakers' own turns count as seen."""
        times_in_chunk: dict[int, set[str]] = defaultdict(set)
        for key, candidate in self.times.items():
            for occurrence in candidate.occurrences:
                times_in_chunk[occurrence.chunk].add(key)
        spoken: dict[str, list[int]] = defaultdict(list)
        for index, chunk in enumerate(self.chunks):
            spoken[normalise_name(chunk.speaker)].append(index)
        for builder in builders:
            indexes = [occurrence.chunk for occurrence in builder.occurrences]
            if builder.type in ("person", "agent"):
                indexes += spoken.get(builder.key, [])
            for index in indexes:
                chunk = self.chunks[index]
                builder.seen.append(chunk.timestamp)
                builder.domains.update(chunk.domains)
                if builder.type != "date":
                    builder.temporal.update(times_in_chunk.get(index, ()))

    def _entity(self, builder: _Builder) -> Entity:
        mentions = tuple(
            sorted(
                {
                    Mention(
                        self.chunks[occurrence.chunk].id,
                        occurrence.start,
                        occurrence.end,
                        self.chunks[occurrence.chunk].timestamp,
                    )
                    for occurrence in builder.occurrences
                },
                key=lambda mention: (mention.timestamp, mention.chunk_id, mention.start),
            )
        )
        return Entity(
            id=builder.id,
            name=builder.name,
            type=builder.type,
            aliases=_unique_aliases(builder.name, builder.surfaces),
            confidence=builder.confidence,
            first_seen=min(builder.seen, default=None),
            last_seen=max(builder.seen, default=None),
            temporal=_top(builder.temporal, MAX_TEMPORAL),
            domains=_top(builder.domains, MAX_DOMAINS),
            scope=builder.scope,
            layer=MemoryLayer.PROFILE if builder.type == "person" else MemoryLayer.SEMANTIC,
            mentions=mentions,
            alias_evidence=tuple(dict.fromkeys(builder.alias_evidence)),
        )

    # -- relations -------------------------------------------------------------------------

    def _relations(self, builders: list[_Builder]) -> list[Relation]:
        in_chunk: dict[int, list[tuple[Occurrence, _Builder]]] = defaultdict(list)
        for builder in builders:
            for occurrence in builder.occurrences:
                in_chunk[occurrence.chunk].append((occurrence, builder))
        by_key = {(entity_kind(builder.type), builder.key): builder for builder in builders}
        relations: dict[str, _RelationBuilder] = {}
        recent: list[_Builder] = []
        previous: tuple[Turn, list[Fact], list[Fact]] | None = None
        homes: dict[str, Named] = {}
        turns: list[Turn] = []
        for index, chunk in enumerate(self.chunks):
            speaker = by_key.get(("named", normalise_name(chunk.speaker)))
            addressed = self.addressed[index]
            addressee = by_key.get(("named", addressed)) if addressed is not None else None
            mentions = sorted(in_chunk.get(index, []), key=lambda item: item[0].start)
            turn = Turn(
                text=chunk.text,
                sentences=self.sentences[index],
                tokens=self.tokens[index],
                names=[
                    Slot(occurrence.start, occurrence.end, occurrence.sentence, builder)
                    for occurrence, builder in mentions
                    if entity_kind(builder.type) == "named"
                ],
                speaker=speaker if speaker is not None and speaker.type == "person" else None,
                addressee=addressee
                if addressee is not None and addressee.type == "person"
                else None,
                recent=list(recent),
                earlier_where=where_named(previous[0]) if previous is not None else None,
            )
            turns.append(turn)
            stated, asked = turn_facts(turn)
            if previous is not None and previous[0].addressee is turn.speaker is not None:
                answered = answer_facts(previous[0], turn, previous[1])
                _answered_aliases(answered, chunk.id)
                stated += answered
            stated += self._kin_name_facts(turn, mentions)
            # The plans on the table: the turn before's (asked too) and this one's so far.
            before = [] if previous is None else [*previous[1], *previous[2]]
            stated += joining_facts(
                turn,
                None if previous is None else previous[0],
                [*(replace(f, earlier=True) for f in before if not f.earlier), *stated],
            )
            if turn.speaker is not None:
                for fact in stated:
                    # Where each speaker lives, as the conversation last said it.
                    if fact.relation in _HOMES and fact.source is turn.speaker and not fact.ended:
                        homes[turn.speaker.id] = fact.target
                stated += here_facts(turn, homes.get(turn.speaker.id))
            # An event is attended, whatever rule found it visited ("we went to the Biennale")
            stated = [
                replace(f, relation="ATTENDED")
                if f.relation == "VISITED" and f.target.type == "event"
                else f
                for f in stated
            ]
            led = {(f.source.id, f.target.id) for f in stated if f.relation == "LEADS"}
            if led:
                # "asked to lead a new app called Project Harbor": leading it says the work
                stated = [
                    f
                    for f in stated
                    if f.relation != "WORKS_ON" or (f.source.id, f.target.id) not in led
                ]
            self._chunk_relations(index, chunk, speaker, mentions, stated, relations)
            previous = (turn, asked, stated)
            for _occurrence, builder in mentions:
                if builder.type == "person" and builder is not speaker:
                    recent = [*(b for b in recent if b is not builder), builder][-MAX_RECENT:]
        self._pet_owners(builders, turns, relations)
        organisations = {b.id for b in builders if b.type == "organization"}
        _shared_employers(self.scope, relations, organisations)
        _project_colleagues(self.scope, relations, {b.id for b in builders if b.type == "person"})
        return [self._relation(builder) for builder in relations.values()]

    def _pet_owners(
        self, builders: list[_Builder], turns: list[Turn], relations: dict[str, _RelationBuilder]
    ) -> None:
        """A pet no fact gives an owner is whoever the turn that first speaks of it says
        (``relations.pet_owner``), cited by that sentence."""
        owned = {builder.target for builder in relations.values() if builder.type == "OWNS"}
        for pet in builders:
            if not pet.pet or pet.id in owned or not pet.occurrences:
                continue
            first = min(
                pet.occurrences, key=lambda occurrence: (occurrence.chunk, occurrence.start)
            )
            owner = pet_owner(turns[first.chunk], first.sentence)
            if owner is None or owner.id == pet.id:
                continue
            # Cited by the owner's own first words of it where they say any ("and Mochi?" /
            # "Mochi hates it, she sleeps on the radiator"), else by the turn that asked.
            own = [o for o in pet.occurrences if turns[o.chunk].speaker is owner]
            if own:
                first = min(own, key=lambda occurrence: (occurrence.chunk, occurrence.start))
            start, end = self.sentences[first.chunk][first.sentence]
            said = self.chunks[first.chunk]
            fact = self.verbatim.get(said.id, said.text)[start:end][:MAX_FACT_CHARS]
            builder = _RelationBuilder(owner.id, pet.id, "OWNS", TYPED_RELATION_CONFIDENCE)
            builder.evidence.append((said.timestamp, first.chunk, start, end, fact))
            relations[relation_id(self.scope, owner.id, "OWNS", pet.id)] = builder

    def _kin_name_facts(
        self, turn: Turn, mentions: list[tuple[Occurrence, _Builder]]
    ) -> list[Fact]:
        """A capitalised "Dad" or "Mum", or a name titled "Uncle Samir", is the speaker's family
        (the addressee's, from an agent)."""
        owner = turn.speaker or turn.addressee
        if owner is None:
            return []
        facts = []
        for occurrence, builder in mentions:
            said = turn.text[occurrence.start : occurrence.end].casefold()
            if names_kin(said) and builder.type == "person" and builder.id != owner.id:
                span = turn.sentences[occurrence.sentence]
                if _TITLED_FOR_RESPECT.search(turn.text, span[0], span[1]):
                    continue  # "Tita Cherry from the office", "our landlady Tita Rose"
                facts.append(Fact(owner, builder, "FAMILY_OF", span[0], span[1]))
        return facts

    def _chunk_relations(
        self,
        index: int,
        chunk: Chunk,
        speaker: _Builder | None,
        mentions: list[tuple[Occurrence, _Builder]],
        facts: list[Fact],
        relations: dict[str, _RelationBuilder],
    ) -> None:
        sentences = self.sentences[index]
        linked: set[frozenset[str]] = set()

        def add(
            source_id: str, target_id: str, kind: str, start: int, end: int, earlier: bool = False
        ) -> _RelationBuilder:
            if kind in _SYMMETRIC_OR_WEAK and target_id < source_id:
                source_id, target_id = target_id, source_id
            key = relation_id(self.scope, source_id, kind, target_id)
            confidence = RELATION_CONFIDENCE.get(kind, TYPED_RELATION_CONFIDENCE)
            builder = relations.setdefault(
                key, _RelationBuilder(source_id, target_id, kind, confidence)
            )
            at = index - 1 if earlier else index
            said = self.chunks[at]
            fact = self.verbatim.get(said.id, said.text)[start:end][:MAX_FACT_CHARS]
            builder.evidence.append((said.timestamp, at, start, end, fact))
            linked.add(frozenset((source_id, target_id)))
            return builder

        for fact in facts:
            if fact.source.id == fact.target.id:
                continue
            typed = add(
                fact.source.id, fact.target.id, fact.relation, fact.start, fact.end, fact.earlier
            )
            if fact.ended and typed.ended is None:
                typed.ended = chunk.timestamp
        if speaker is not None:
            for occurrence, target in _first_each(mentions):
                if target.type != "date" and target.id != speaker.id:
                    add(speaker.id, target.id, "MENTIONS", *sentences[occurrence.sentence])
        # Co-occurrence, a weak signal: names of one turn that no fact links, said in the same
        # sentence or the next ("Is that near Harbour Park? Noor's friend goes there."). Dates
        # are never paired: an entity's temporal concepts already hold the dates of its turns.
        others = [
            item
            for item in _first_each(mentions)
            if (speaker is None or item[1].id != speaker.id) and item[1].type != "date"
        ][:MAX_CO_OCCURRING]
        for position, (first, left) in enumerate(others):
            for second, right in others[position + 1 :]:
                near = second.sentence - first.sentence <= CO_OCCURRING_SENTENCES
                if not near or frozenset((left.id, right.id)) in linked:
                    continue
                start = sentences[min(first.sentence, second.sentence)][0]
                end = sentences[max(first.sentence, second.sentence)][1]
                add(left.id, right.id, "CO_OCCURS", start, end)

    def _relation(self, builder: _RelationBuilder) -> Relation:
        evidence = sorted(set(builder.evidence))
        first = evidence[0]
        mentions = tuple(
            sorted(
                {
                    Mention(self.chunks[index].id, start, end, when)
                    for when, index, start, end, _ in evidence
                },
                key=lambda mention: (mention.timestamp, mention.chunk_id, mention.start),
            )
        )
        return Relation(
            id=relation_id(self.scope, builder.source, builder.type, builder.target),
            source_id=builder.source,
            target_id=builder.target,
            type=builder.type,
            fact=first[4],
            confidence=builder.confidence,
            # A fact said to be over when first stated ("lived in Partick for years") held
            # from a time the turn does not give.
            valid_from=None
            if builder.ended is not None and builder.ended <= first[0]
            else first[0],
            valid_to=builder.ended,
            mentions=mentions,
        )


def _answered_aliases(facts: Sequence[Fact], chunk_id: str) -> None:
    """The kinship phrase an answer calls the one asked about by is their alias, with the turn
    as evidence ("how's Njeri btw?" / "my sister is in Mombasa now": Njeri is "my sister")."""
    for fact in facts:
        target = fact.target
        if not fact.called or not isinstance(target, _Builder) or target.type != "person":
            continue
        if fact.called not in target.surfaces:
            target.surfaces.add(fact.called)
            reason = f"asked about {target.name}, answered {fact.called!r}"
            target.alias_evidence.append(AliasEvidence(fact.called, chunk_id, reason))


def _shared_employers(
    scope: str, relations: dict[str, _RelationBuilder], organisations: set[str]
) -> None:
    """Colleagues share an employer: "my manager Sharon" beside the speaker's job at Lidl is
    Sharon's job at Lidl, when one of the two has exactly one current employer here and the
    other none, is tied to no other organisation ("my manager at Aldi, Sharon", "Dave from
    Amazon") and is no former colleague ("my old colleague Dave"). Cited by both facts' words,
    the colleague's and the job's."""
    jobs: dict[str, list[_RelationBuilder]] = defaultdict(list)
    tied: dict[str, set[str]] = defaultdict(set)
    for builder in relations.values():
        if builder.type == "WORKS_AT" and builder.ended is None:
            jobs[builder.source].append(builder)
        for one, other in ((builder.source, builder.target), (builder.target, builder.source)):
            if other in organisations:
                tied[one].add(other)
    for builder in [b for b in relations.values() if b.type == "WORKS_WITH"]:
        if any(_FORMER.search(fact) for *_, fact in builder.evidence):
            continue
        for one, other in ((builder.source, builder.target), (builder.target, builder.source)):
            if len(jobs[one]) != 1 or jobs[other]:
                continue
            (job,) = jobs[one]
            key = relation_id(scope, other, "WORKS_AT", job.target)
            if key in relations or tied[other] - {job.target}:
                continue  # said already, and over; or another organisation's
            confidence = min(builder.confidence, job.confidence)
            shared = _RelationBuilder(other, job.target, "WORKS_AT", confidence)
            shared.evidence.extend([*builder.evidence, *job.evidence])
            relations[key] = shared


def _project_colleagues(
    scope: str, relations: dict[str, _RelationBuilder], people: set[str]
) -> None:
    """Whoever leads a project works with whoever works on it, when one turn says both: "we're
    on Project Tausi ... Kevin Mwangi is leading it" is Kevin working with the speaker (in
    separate turns the two may be on different teams of it), unless that work is over ("I
    used to be on Project Tern, Owen leads it now"). Cited by both facts' words."""
    leaders: dict[str, list[_RelationBuilder]] = defaultdict(list)
    workers: dict[str, list[_RelationBuilder]] = defaultdict(list)
    for builder in relations.values():
        if builder.source in people and builder.ended is None:
            if builder.type == "LEADS":
                leaders[builder.target].append(builder)
            elif builder.type == "WORKS_ON" and not all(
                closed(fact) for *_, fact in builder.evidence
            ):
                workers[builder.target].append(builder)
    for project, leading in leaders.items():
        for lead in leading:
            turns = {turn for _, turn, *_ in lead.evidence}
            for work in workers.get(project, ()):
                if lead.source == work.source or not turns & {t for _, t, *_ in work.evidence}:
                    continue
                one, other = sorted((lead.source, work.source))
                key = relation_id(scope, one, "WORKS_WITH", other)
                if key in relations:
                    continue
                confidence = min(lead.confidence, work.confidence)
                shared = _RelationBuilder(one, other, "WORKS_WITH", confidence)
                shared.evidence.extend([*lead.evidence, *work.evidence])
                relations[key] = shared


_FORMER = re.compile(
    r"\b(?:old|ex-?|former|previous)\s+(?:work\s+)?(?:colleague|co-?worker|manager|boss|"
    r"team\s*mate|workmate|mentor|supervisor)s?\b",
    re.IGNORECASE,
)


# Relations whose two ends read the same both ways round get one direction, by id.
_SYMMETRIC_OR_WEAK = frozenset(
    {"CO_OCCURS", "WORKS_WITH", "MARRIED_TO", "PARTNER_OF", "FAMILY_OF", "FRIEND_OF", "KNOWS"}
)
_ARTICLES = frozenset({"the", "a", "an"})
_CONNECTORS = frozenset({"of", "de", "la", "van", "von", "the", "du", "del", "da", "do", "dos"})
MAX_RECENT = 6
MAX_TEMPORAL = 10
MAX_DOMAINS = 5


def _world_name(word: str) -> bool:
    """Whether a word is a given name somewhere and no word English uses often nor an
    endearment: "hamish", "amara" (not "will", "karma", "darling")."""
    return (
        is_world_given_name(word)
        and not is_everyday_word(word, WORD_RANK)
        and word not in ENDEARMENTS
    )


def _cried_word(word: str) -> bool:
    """Whether a word cried out opening a turn is one English uses ("Woo!!", "Gutted!!"),
    not a name ("Hamish!!", "Declan!!"; ``_world_name``)."""
    return is_everyday_word(word) and not _world_name(word)


def _heads_a_name(piece: list[Token]) -> bool:
    """Whether a piece's first word is its head, not a word the sentence opens with: a body's
    before "of" ("University of Tasmania, starts in May") or a relative's title ("Uncle Mandla
    did the dance"), however often the chat writes it in lower case."""
    first = piece[0].folded
    return first in TITLED_KIN or (first in OF_HEADS and piece[1].folded == "of")


def _joins(piece: list[Token], token: Token, rest: list[Token]) -> bool:
    """Whether a lower-case "of" (or "de", "van", "for" ...) holds two capitalised parts of a name.

    "A Map of Small Hours", "the Bank of England", "Ponte de Lima": the part before it is a
    name's own start (more than one word, opened by an article, inside a sentence, or a body's
    own word opening one: "University of Tasmania, starts in May"), and a capitalised word that
    is no stopword follows it. "None of Ada's friends" joins nothing.
    "for" joins after a body's own word only ("Transport for Wales"), and "and" between two
    common words ("Ox and Finch"; ``name_reading.continues_name`` lets no other "and" in).
    """
    if not token.word[0].islower():
        return False
    if token.folded == "for":
        if not piece or piece[-1].folded not in FOR_HEADS:
            return False
    elif token.folded == "and":
        # the run holds it only between two common words ("Ox and Finch is in Sydney")
        return bool(piece) and bool(rest) and rest[0].word[0].isupper()
    elif token.folded not in _CONNECTORS or token.folded == "the":
        return False
    if not piece or not rest or not rest[0].word[0].isupper():
        return False
    following = strip_possessive(rest[0].folded)
    if following in NAME_STOPWORDS or rest[0].folded in NAME_STOPWORDS:
        return False
    opener = piece[0]
    # A body's own word opens its name even opening a sentence ("University of Tasmania,
    # starts in May", "Transport for Wales cancelled it")
    heads = OF_HEADS if token.folded == "of" else FOR_HEADS if token.folded == "for" else ()
    return len(piece) > 1 or not opener.clause_start or opener.folded in heads


def _first_each(
    mentions: list[tuple[Occurrence, _Builder]],
) -> list[tuple[Occurrence, _Builder]]:
    """Each entity's first mention in a chunk, in order of appearance."""
    seen: set[str] = set()
    firsts: list[tuple[Occurrence, _Builder]] = []
    for occurrence, builder in mentions:
        if builder.id not in seen:
            seen.add(builder.id)
            firsts.append((occurrence, builder))
    return firsts
