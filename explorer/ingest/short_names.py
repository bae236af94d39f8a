"""A person's given name or surname used alone, merged into the one person it can only mean.

Extraction reads one conversation at a time, so "Ada" in one chat and "Ada Okafor" in another
arrive as two entities. Here, over everything one write holds and whatever the graph already
knows of the same scope: a single-word capitalised name (a person or an untyped name, never a
speaker) that equals the first or the last word of exactly one multi-word name in its scope that
is a person becomes that person's alias, its mentions and relations moving over. A titled
surname has already lost its title in extraction ("Dr. Lee" is read as "Lee"), so it matches by
the last word, though never a speaker's ("a checkup with Dra. Reyes" is not the speaker Paolo
Reyes). The multi-word name counts as a person when it is typed one, or when the short
name is (typed "other", "Bernie Quinn" is still Bernie's full name). Two candidates ("Maya" with
both "Maya Okafor" and "Maya Lin") leave the short name alone, and a full name the user detached
the short name from is no candidate for it (``evidence.refuses``). A merge can make the long name a
person, which can settle another short name, so the rule is applied until nothing changes.
Nicknames ("Tom" for Tomás) and kinship words ("Dad") are not words of the full name and stay
as they are. Things are folded the same way (``_thing_short_names``: "Corvid" of Corvid Labs),
and a city named by another name GeoNames gives it joins the city ("Warszawa" and Warsaw), as
does a town shortened as chat does ("Brissy" and Brisbane, "Durbs" and Durban).
Every mention keeps its span, which is the short name, and the short name joins the
aliases, so each span still reads as the entity's name or an alias. Ids are those of the full
names, so a re-import lands on the same nodes; an import resumed after a crash sees the same
people (the finished conversations' are stored, the rest are redone together). Imports the
standard library, core models and ingest helpers.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Collection, Iterable, Mapping
from dataclasses import dataclass, replace

from explorer.core.models import AliasEvidence, Entity, MemoryLayer
from explorer.ingest.aliases import repoint
from explorer.ingest.casing import LIST_SIZE, is_everyday_word
from explorer.ingest.evidence import merge_entity, refuses
from explorer.ingest.extractor import Extraction
from explorer.ingest.given_names import is_census_name, is_common_surname
from explorer.ingest.ids import normalise_name
from explorer.ingest.lexicon import (
    NATURE_WORDS,
    ORGANISATION_SUFFIXES,
    PLACE_PREFIXES,
    PLACE_SUFFIXES,
    PROJECT_HEADS,
    TITLES,
)
from explorer.ingest.people import EVENT_WORDS, says_whose
from explorer.ingest.places import city_named, is_known_place, plain_name

PERSON_LIKE = frozenset({"person", "other"})
MAX_NAME_WORDS = 4


def short_name(entity: Entity) -> str | None:
    """The normalised one-word name of an entity that may be a short form of a person's name."""
    key = normalise_name(entity.name)
    if entity.type not in PERSON_LIKE or " " in key or not entity.name[:1].isupper():
        return None
    return key if any(char.isalpha() for char in key) else None


def name_ends(entity: Entity) -> tuple[str, str] | None:
    """First and last word of a multi-word name that may be a person's full name."""
    words = normalise_name(entity.name).split()
    if entity.type not in PERSON_LIKE or not 2 <= len(words) <= MAX_NAME_WORDS:
        return None
    return words[0], words[-1]


@dataclass(slots=True)
class _FullName:
    entity: Entity
    person: bool


def resolve_short_names(
    entities: Iterable[Entity],
    known: Iterable[Entity] = (),
    *,
    protected: Collection[str] = (),
    guessed: Collection[str] = (),
) -> dict[str, str]:
    """Which short-name entities (of ``entities``) stand for which full name, by id.

    ``known`` are records already stored (the graph's), full names among them count as
    candidates too; ``protected`` ids (speakers) are never treated as short forms; ``guessed``
    ids have a type no evidence backs (``Extraction.guessed``), a place among them may still
    be a short form ("the Mater" of the Mater Hospital).
    """
    entities = list(entities)
    full: dict[tuple[str, str], _FullName] = {}
    for entity in (*known, *entities):
        if name_ends(entity) is None:
            continue
        seen = full.get((entity.scope, entity.id))
        person = entity.type == "person" or (seen is not None and seen.person)
        full[(entity.scope, entity.id)] = _FullName(seen.entity if seen else entity, person)
    by_word: dict[tuple[str, str], list[_FullName]] = defaultdict(list)
    for candidate in full.values():
        ends = name_ends(candidate.entity)
        assert ends is not None
        for word in sorted(set(ends)):
            by_word[(candidate.entity.scope, word)].append(candidate)
    shorts = sorted(
        (
            (entity.scope, key, entity)
            for entity in entities
            if entity.id not in protected and (key := short_name(entity)) is not None
        ),
        key=lambda item: (item[0], item[1], item[2].id),
    )
    resolved: dict[str, str] = {}
    changed = True
    while changed:
        changed = False
        for scope, key, entity in shorts:
            if entity.id in resolved:
                continue
            matches = [
                candidate
                for candidate in by_word.get((scope, key), ())
                if (candidate.person or entity.type == "person")
                and not refuses(candidate.entity, entity.name)
                # "a checkup with Dra. Reyes" is no speaker Paolo Reyes: one titled so is
                # spoken of, and the speakers of the chat are its own people
                and not (candidate.entity.id in protected and _titled(entity))
            ]
            if len(matches) == 1:
                (match,) = matches
                resolved[entity.id] = match.entity.id
                changed = changed or not match.person
                match.person = True
    for short_id, full_id in _thing_short_names(entities, known, protected, guessed).items():
        resolved.setdefault(short_id, full_id)
    return resolved


_TITLED = re.compile(r"(?:" + "|".join(sorted(TITLES)) + r")\.?\s", re.IGNORECASE)


def _titled(entity: Entity) -> bool:
    """Whether a name is also said with a title ("Dr. Lee", "Dra. Reyes", "Mr Kamau")."""
    return any(_TITLED.match(alias) for alias in entity.aliases)


THING_FIRST = frozenset({"organization", "event"})
_NOT_SHORT = frozenset({"date", "topic", "agent", "place"})  # a guessed place aside
_PLACE_WORDS = PLACE_SUFFIXES | PLACE_PREFIXES
_NAMED_BODY = re.compile(r"(?P<owner>\S+(?: \S+)?)'s (?P<body>\S+(?: \S+){0,2})")
_COUPLES_OCCASION = re.compile(r"(?P<one>[^\s']+) and (?P<other>[^\s']+)'s (?P<occasion>.+)")


def _plain_quote(name: str) -> str:
    return normalise_name(name).replace("’", "'")


def _thing_short_names(
    entities: list[Entity],
    known: Iterable[Entity],
    protected: Collection[str],
    guessed: Collection[str],
) -> dict[str, str]:
    """ "Corvid" for Corvid Labs, "Tern" for Project Tern, "Garda" for Lake Garda: a one-word
    name that is the first word of exactly one organisation or event of its scope, the last word
    of exactly one "Project ..." name, the word that makes an event one ("the Fringe" of the
    Edinburgh Fringe), or the one word (or two) of a place's name that is no place word ("Drei
    Raben" of Hotel Drei Raben), is its short form. A name typed a place from evidence is never
    one: the place a body or an event is named after is still the place ("our flat in Partick"
    beside Partick Vets, "Lisbon" beside the Lisbon Data Summit); a place only guessed from
    "the" may be ("the Mater"). A person is never a place's short form, nor a given name
    ("Victoria" beside Victoria Park, "Nelson Mandela" beside Nelson Mandela Square), nor the
    short form of an occasion named after them ("Cillian" of Cillian and Orla's wedding). Two
    names of more words are short forms too: one of a couple's occasion ("Orla's wedding" of
    Cillian and Orla's wedding) and a body named after someone ("St. Aldhelm's" of St.
    Aldhelm's Hospital)."""
    owners: dict[tuple[str, str], set[str]] = defaultdict(set)
    places: set[str] = set()  # owners that are places: a person is never their short form
    features: set[str] = set()  # of them, lakes, hills, islands: their own word is the place
    refusing: dict[str, Entity] = {}
    for entity in (*known, *entities):
        if entity.refused_aliases:
            refusing.setdefault(entity.id, entity)
        words = normalise_name(entity.name).split()
        if len(words) < 2:
            continue
        if entity.type in THING_FIRST and not says_whose(entity.name):
            # ("Cillian and Orla's wedding" is theirs: Cillian is no short form of it)
            owners[(entity.scope, words[0])].add(entity.id)
            # "the Fringe" of the Edinburgh Fringe; "Raya" of Hari Raya (a word of no dictionary)
            if entity.type == "event" and (
                words[-1] in EVENT_WORDS or not is_everyday_word(words[-1], LIST_SIZE)
            ):
                owners[(entity.scope, words[-1])].add(entity.id)
        if entity.type == "project" and words[0] in PROJECT_HEADS:
            owners[(entity.scope, words[-1])].add(entity.id)
        if entity.type in THING_FIRST and not says_whose(entity.name):
            for key in _several_word_short_forms(words):
                owners[(entity.scope, key)].add(entity.id)
        if entity.type == "place":
            # "Hatherley" of Hatherley Manor, "Garda" of Lake Garda: the one word of a place's
            # name that is not a place word ("Leeds" of Leeds Station stays the town).
            # Two own words too after a word that opens a place's name: "Drei Raben" of Hotel
            # Drei Raben (not "Mahatma Gandhi" of Mahatma Gandhi Road: the man named).
            own = [word for word in words if word not in _PLACE_WORDS]
            two = len(own) == 2 and words[0] in PLACE_PREFIXES
            if (
                (len(own) == 1 or two)
                and len(own) < len(words)
                and not is_known_place(" ".join(own))
            ):
                owners[(entity.scope, " ".join(own))].add(entity.id)
                places.add(entity.id)
                if set(words) & NATURE_WORDS:
                    features.add(entity.id)
    found: dict[str, str] = {}
    couples: dict[tuple[str, str], set[str]] = defaultdict(set)
    bodies: dict[tuple[str, str], set[str]] = defaultdict(set)
    for entity in (*known, *entities):
        if entity.type in ("organization", "place"):
            # "St. Aldhelm's" of St. Aldhelm's Hospital, "Yinka's" of Yinka's Afro Foods
            body = _NAMED_BODY.fullmatch(_plain_quote(entity.name))
            if body is not None:
                bodies[(entity.scope, body["owner"])].add(entity.id)
        if entity.type != "event":
            continue
        pair = _COUPLES_OCCASION.fullmatch(_plain_quote(entity.name))
        if pair is not None:
            for one in (pair["one"], pair["other"]):
                couples[(entity.scope, f"{one}'s {pair['occasion']}")].add(entity.id)
    for entity in entities:
        key = normalise_name(entity.name)
        if entity.id not in protected and entity.type in ("event", "organization", "place"):
            # "Ada's wedding" of Ada and Kwame's wedding; "St. Aldhelm('s)" of its hospital
            plain = _plain_quote(entity.name)
            ids = (
                couples.get((entity.scope, plain), set())
                if entity.type == "event"
                else bodies.get((entity.scope, plain.removesuffix("'s")), set())
            ) - {entity.id}
            if len(ids) == 1:
                found[entity.id] = next(iter(ids))
                continue
        if entity.id in protected or (" " in key and (entity.scope, key) not in owners):
            continue
        # A place guessed from "the" may be short for a body ("the Mater"); a known town is
        # the town ("into Winnipeg" beside the Winnipeg Jets)
        guessed_place = entity.type == "place" and entity.id in guessed and not is_known_place(key)
        ids = {
            owner
            for owner in owners.get((entity.scope, key), set())
            if owner not in refusing or not refuses(refusing[owner], entity.name)
        }
        # A place is short for the one lake, hill or island its word names ("Garda" of Lake
        # Garda), never for a venue, a body or an event named after it ("Didsbury" beside the
        # Didsbury Boathouse)
        place_of_a_place = entity.type == "place" and len(ids) == 1 and ids <= features
        if entity.type in _NOT_SHORT and not (guessed_place or place_of_a_place):
            continue
        person = entity.type == "person" and entity.id not in guessed
        if ids & places and (person or is_census_name(key.split()[0])):
            continue  # "Victoria said she's coming" beside Victoria Park is Victoria
        if len(ids) == 1:
            found[entity.id] = next(iter(ids))
    found.update(_other_city_names(entities, known, protected, guessed))
    return found


# (and a trade's word ending a shop's name: "Old Pueblo Cycles", "Kettle Books")
_BODY_WORDS = (
    ORGANISATION_SUFFIXES
    | EVENT_WORDS
    | frozenset({"hotel", "cycles", "bikes", "books", "coffee", "foods", "wines", "tours"})
)
_LOOSE_ENDS = frozenset({"of", "the", "and", "&", "for", "de", "at", "on"})


def _several_word_short_forms(words: list[str]) -> list[str]:
    """The names of two words or more a body or an event of more words is called by: its name
    without the words that say what kind it is ("Blue Door" of Blue Door Bakehouse, "Alder
    Creek" of Alder Creek Hospital, "King Arthur" of King Arthur Baking School). Not without
    the town it opens on: "the Royal Infirmary" of Glasgow is not Aberdeen Royal Infirmary."""
    if words[-1] not in _BODY_WORDS:
        return []
    return [
        " ".join(words[:size])
        for size in range(2, len(words))
        if words[size - 1] not in _LOOSE_ENDS and words[size - 1] not in _BODY_WORDS
    ]


def _may_be_a_town(entity: Entity, guessed: Collection[str]) -> bool:
    """Whether an entity typed a person by default alone may be a town's other name ("Palmy"):
    not a given name or a surname, nor anyone titled."""
    words = normalise_name(entity.name).split()
    return (
        entity.id in guessed
        and not entity.aliases
        and not any(is_census_name(word) or is_common_surname(word) for word in words)
    )


def _other_city_names(
    entities: list[Entity],
    known: Iterable[Entity],
    protected: Collection[str],
    guessed: Collection[str],
) -> dict[str, str]:
    """ "Warszawa" beside Warsaw, "Bangalore" beside Bengaluru, "Palmy" beside Palmerston North:
    a place named by another name GeoNames gives the one city of its scope so named."""
    cities: dict[tuple[str, str], set[str]] = defaultdict(set)
    for entity in (*known, *entities):
        if entity.type == "place":
            cities[(entity.scope, plain_name(entity.name))].add(entity.id)
    found: dict[str, str] = {}
    for entity in entities:
        if entity.id in protected or entity.type not in ("place", "person"):
            continue
        key = normalise_name(entity.name)
        ids: set[str] = set()
        # "Juliet got a job in Joliet", "Dr Yang grew up in Yangzhou": people, not towns
        if entity.type == "place" or _may_be_a_town(entity, guessed):
            city = city_named(key)
            ids = set(cities.get((entity.scope, city), set())) if city else set()
        if not ids and (entity.type == "place" or not (entity.aliases or is_common_surname(key))):
            # a town shortened as chat does, even read as someone missed ("gonna miss Brissy")
            ids = _shortened_town(key, entity.scope, cities)
        ids -= {entity.id}
        if len(ids) == 1:
            found[entity.id] = next(iter(ids))
    return found


# How chat ends a town's shortened name: "Brissy" (Brisbane), "Durbs" (Durban), "Freo"
# (Fremantle), "Welly" (Wellington); or not at all: "Hyd" (Hyderabad), "Obs" (Observatory)
_TOWN_ENDINGS = ("", "s", "y", "ie", "sy", "o", "zza")
_MIN_TOWN_STEM = 3


def _shortened_town(key: str, scope: str, cities: Mapping[tuple[str, str], set[str]]) -> set[str]:
    """The one known town of the scope that a one-word name shortens, if one: the name less a
    chat ending begins the town's name, three letters or more (never a given name: "Mel" is
    someone before Melbourne; nor a town of its own)."""
    if " " in key or not key.isalpha() or is_census_name(key) or is_known_place(key):
        return set()  # "Porto" is no Portugal
    stems = {
        key[: len(key) - len(ending)]
        for ending in _TOWN_ENDINGS
        if key.endswith(ending) and len(key) - len(ending) >= _MIN_TOWN_STEM
    }
    towns = {
        (name, frozenset(ids))
        for (where, name), ids in cities.items()
        if where == scope
        and name != key
        and is_known_place(name)
        and any(name.startswith(stem) for stem in stems)
    }
    return set(next(iter(towns))[1]) if len(towns) == 1 else set()


def merge_short_names(
    extraction: Extraction,
    known: Iterable[Entity] = (),
    *,
    protected: Collection[str] = (),
) -> Extraction:
    """The extraction with short names folded into their full names (see the module docstring).

    A full name known only from ``known`` comes back as a new record under its id and name that
    carries the short name's evidence; the write then merges it with the stored one.
    """
    known = list(known)
    renamed = resolve_short_names(
        extraction.entities, known, protected=protected, guessed=extraction.guessed
    )
    if not renamed:
        return extraction
    own = {entity.id: entity for entity in extraction.entities}
    stored = {entity.id: entity for entity in known}
    merged: dict[str, Entity] = {}
    for short_id, full_id in sorted(renamed.items()):
        short = own[short_id]
        target = merged.get(full_id) or own.get(full_id)
        if target is None:
            target = _standing_in(stored[full_id], short)
        other_name = city_named(short.name) == plain_name(target.name)
        said = AliasEvidence(
            short.name,
            short.mentions[0].chunk_id if short.mentions else "",
            f"{short.name} is another name of {target.name} (GeoNames)"
            if other_name
            else f"{short.name} is the short form of {target.name}",
        )
        merged[full_id] = merge_entity(
            target,
            replace(short, id=full_id, alias_evidence=(*short.alias_evidence, said)),
        )
    kept = [
        merged.get(entity.id, entity) for entity in extraction.entities if entity.id not in renamed
    ]
    present = {entity.id for entity in kept}
    kept.extend(entity for entity_id, entity in merged.items() if entity_id not in present)
    scopes: Mapping[str, str] = {entity.id: entity.scope for entity in (*known, *kept)}
    events = {entity.id for entity in (*known, *kept) if entity.type == "event"}
    relations = tuple(repoint(extraction.relations, renamed, scopes, events))
    return Extraction(tuple(kept), relations, extraction.guessed - renamed.keys())


def _standing_in(stored: Entity, short: Entity) -> Entity:
    """A record of a stored full name holding no evidence yet, for the short name's to join."""
    return Entity(
        id=stored.id,
        name=stored.name,
        type=stored.type,
        confidence=0.0,
        scope=short.scope,
        layer=MemoryLayer.PROFILE if stored.type == "person" else stored.layer,
    )
