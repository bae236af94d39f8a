"""Plans a synthetic memory of any size: entities, relations and the chunks that mention them.

Pure and deterministic for a seed (one ``random.Random``, no set iteration, no clock): names are
built from syllables and shaped by entity type; relations follow a heavy-tailed degree
distribution (a spanning tree grown by preferential attachment, then Chung-Lu edges with Zipf
weights), typed by the pair of entity types and stated as fact sentences; chunks are turns of
conversations spread over two years that walk the graph, each mentioning one to four entities
whose exact character spans become the provenance of entities and relations. Every entity is
mentioned at least once whenever there are at least as many chunks as entities. Imports only the
standard library and core models.
"""

from __future__ import annotations

import bisect
import itertools
import math
import random
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from explorer.core.errors import InvalidArgument
from explorer.core.models import Chunk, Entity, MemoryLayer, Mention, Relation
from explorer.ingest import ids


@dataclass(frozen=True, slots=True)
class Scale:
    """How big a synthetic memory is."""

    entities: int
    edges: int
    chunks: int


#: ``seed`` is the size of the system the product is specified from; ``small`` is one tenth.
SCALES: dict[str, Scale] = {
    "seed": Scale(entities=45_000, edges=140_000, chunks=53_000),
    "small": Scale(entities=4_500, edges=14_000, chunks=5_300),
}

#: The memory ends here, so a seed gives the same timestamps on every machine and day.
DEFAULT_END = datetime(2025, 6, 1, tzinfo=UTC)
SPAN = timedelta(days=730)
ZIPF_EXPONENT = 0.8
ASSISTANT_SPEAKER = "assistant"

DOMAINS = ("work", "family", "health", "travel", "finance", "hobbies", "learning", "home")

#: Entity types, their share of the entities, and the domains they mostly belong to.
TYPE_SHARES: tuple[tuple[str, float, tuple[str, ...]], ...] = (
    ("person", 0.30, ("family", "work", "hobbies", "health")),
    ("place", 0.12, ("travel", "home", "family")),
    ("organisation", 0.12, ("work", "finance", "learning")),
    ("project", 0.12, ("work", "home", "learning")),
    ("event", 0.10, ("travel", "family", "work", "hobbies")),
    ("topic", 0.16, ("learning", "hobbies", "health", "finance")),
    ("product", 0.08, ("home", "hobbies", "finance")),
)

_ONSETS = (
    "b", "br", "c", "d", "dr", "f", "g", "h", "j", "k", "l", "m", "n", "p", "r", "s", "sh",
    "t", "th", "v", "w", "z", "b", "d", "k", "l", "m", "n", "r", "s", "t", "v",
)  # fmt: skip
_VOWELS = ("a", "e", "i", "o", "u", "a", "e", "i", "o", "ia", "ei", "ou")
_CODAS = ("n", "r", "l", "s", "m", "th", "x", "nd", "rk", "ll")
_CODA_CHANCE = 0.3

_PLACE_FORMS = (
    "{w}", "{w}ford", "{w} Valley", "Port {w}", "{w} Bay", "{w}ville", "Lake {w}",
    "{w} Heights", "{w}burg", "Mount {w}", "{w} Springs", "{w}ton",
)  # fmt: skip
_ORG_FORMS = (
    "{w} Labs", "{w} Group", "{w} & {v}", "{w} Institute", "{w} Foundation", "{w} Systems",
    "{w} Collective", "{w} Partners", "{w} Health", "{w} Studio", "{w} Bank", "{w} University",
)  # fmt: skip
_PROJECT_FORMS = (
    "Project {w}", "{w} Engine", "{w} Redesign", "{w} Migration", "Operation {w}", "{w} App",
    "{w} Renovation", "{w} Pipeline", "{w} Garden Plan", "{w} Launch",
)  # fmt: skip
_EVENT_FORMS = (
    "{w} Summit", "{w} Festival", "{w} Hackathon", "{w} Retreat", "{w} Wedding", "{w} Marathon",
    "{w} Conference", "{w} Reunion", "{w} Fair", "{w} Concert",
)  # fmt: skip
_PRODUCT_FORMS = (
    "{w} X{n}", "{w} Pro", "{w} {n}", "{w} Mini", "{w} Air", "{w} One", "{w} Max", "{w} Lite",
)  # fmt: skip
_TOPIC_MODIFIERS = (
    "sourdough", "quantum", "marathon", "urban", "sleep", "retirement", "machine", "ceramic",
    "jazz", "alpine", "garden", "budget", "climate", "chess", "language", "vintage", "coastal",
    "interval", "open source", "bread", "tax", "family", "solar", "film", "night", "mindful",
    "trail", "wine", "cycling", "home", "data", "meal", "photo", "dance", "bird", "sailing",
    "indoor", "sustainable", "reading", "investment",
)  # fmt: skip
_TOPIC_NOUNS = (
    "baking", "computing", "training", "planning", "hygiene", "savings", "learning", "pottery",
    "improvisation", "hiking", "design", "travel", "policy", "openings", "exchange", "furniture",
    "ecology", "running", "software", "fermentation", "returns", "history", "panels",
    "photography", "walks", "meditation", "maps", "tasting", "routes", "automation", "privacy",
    "prep", "editing", "lessons", "watching", "navigation", "climbing", "fashion", "clubs",
    "strategy", "repair", "law", "gardening", "nutrition", "recovery", "rituals", "astronomy",
    "journaling", "woodwork", "negotiation",
)  # fmt: skip
_TOPIC_FORMS = ("{w} theory", "the {w} method", "{w} style cooking", "{w} studies")

_PERSON_ROLES = (
    "a colleague", "an old school friend", "a neighbour", "a cousin", "a climbing partner",
    "a mentor", "a client", "a doctor", "a teacher", "a sister", "a brother", "a former manager",
    "a running buddy", "an accountant", "a landlord", "a bandmate", "a college roommate",
)  # fmt: skip
_DESCRIPTIONS = {
    "person": "{n} is {role} who comes up in conversations about {d}.",
    "place": "{n} is a place linked to {d} plans and memories.",
    "organisation": "{n} is an organisation the user deals with around {d}.",
    "project": "{n} is a project the user follows, mostly a {d} matter.",
    "event": "{n} is an event remembered in the context of {d}.",
    "topic": "{n} is a subject the user reads and talks about, filed under {d}.",
    "product": "{n} is a product the user owns or considered, related to {d}.",
}

#: Relation types by (source type, target type): each with fact sentences, the first canonical.
_RELATION_TEMPLATES: dict[tuple[str, str], tuple[tuple[str, tuple[str, ...]], ...]] = {
    ("person", "person"): (
        ("KNOWS", ("{s} knows {t}", "{s} has known {t} for years", "{s} got to know {t}")),
        ("WORKS_WITH", ("{s} works with {t}", "{s} and {t} work together")),
        ("FRIENDS_WITH", ("{s} is friends with {t}", "{s} and {t} are close friends")),
        ("SIBLING_OF", ("{s} is a sibling of {t}", "{s} and {t} are siblings")),
        ("MENTORS", ("{s} mentors {t}", "{s} has been mentoring {t}")),
    ),
    ("person", "place"): (
        ("LIVES_IN", ("{s} lives in {t}", "{s} has settled in {t}", "{s} rents a flat in {t}")),
        ("VISITED", ("{s} visited {t}", "{s} spent a few days in {t}", "{s} travelled to {t}")),
        ("GREW_UP_IN", ("{s} grew up in {t}", "{s} spent childhood summers in {t}")),
    ),
    ("person", "organisation"): (
        ("WORKS_AT", ("{s} works at {t}", "{s} took a job at {t}", "{s} is employed by {t}")),
        ("MEMBER_OF", ("{s} is a member of {t}", "{s} joined {t}")),
        ("VOLUNTEERS_AT", ("{s} volunteers at {t}", "{s} helps out at {t} on weekends")),
    ),
    ("person", "project"): (
        ("WORKS_ON", ("{s} works on {t}", "{s} is busy with {t}", "{s} spends evenings on {t}")),
        ("LEADS", ("{s} leads {t}", "{s} is in charge of {t}")),
    ),
    ("person", "event"): (
        ("ATTENDED", ("{s} attended {t}", "{s} went to {t}", "{s} was at {t}")),
        ("ORGANISED", ("{s} organised {t}", "{s} is organising {t}")),
    ),
    ("person", "topic"): (
        ("INTERESTED_IN", ("{s} is interested in {t}", "{s} got into {t}", "{s} loves {t}")),
        ("LEARNING", ("{s} is learning {t}", "{s} takes a course on {t}")),
    ),
    ("person", "product"): (
        ("USES", ("{s} uses {t}", "{s} relies on {t} every day")),
        ("BOUGHT", ("{s} bought {t}", "{s} finally ordered {t}")),
    ),
    ("place", "place"): (("NEAR", ("{s} is near {t}", "{s} is a short drive from {t}")),),
    ("organisation", "place"): (("BASED_IN", ("{s} is based in {t}", "{s} has an office in {t}")),),
    ("organisation", "organisation"): (
        ("PARTNERS_WITH", ("{s} partners with {t}", "{s} signed a deal with {t}")),
    ),
    ("project", "organisation"): (
        ("OWNED_BY", ("{s} is run by {t}", "{s} belongs to {t}")),
        ("FUNDED_BY", ("{s} is funded by {t}", "{s} got a grant from {t}")),
    ),
    ("project", "project"): (("DEPENDS_ON", ("{s} depends on {t}", "{s} waits for {t}")),),
    ("project", "topic"): (("ABOUT", ("{s} is about {t}", "{s} deals with {t}")),),
    ("project", "product"): (("USES", ("{s} uses {t}", "{s} is built around {t}")),),
    ("project", "place"): (("LOCATED_IN", ("{s} takes place in {t}", "{s} is set in {t}")),),
    ("project", "event"): (("PRESENTED_AT", ("{s} was presented at {t}", "{s} debuted at {t}")),),
    ("event", "place"): (("HELD_IN", ("{s} is held in {t}", "{s} took place in {t}")),),
    ("event", "organisation"): (("HOSTED_BY", ("{s} is hosted by {t}", "{s} is run by {t}")),),
    ("event", "topic"): (("ABOUT", ("{s} is about {t}", "{s} focused on {t}")),),
    ("event", "event"): (("FOLLOWED_BY", ("{s} was followed by {t}", "{s} came before {t}")),),
    ("event", "product"): (("FEATURED", ("{s} featured {t}", "{s} showed off {t}")),),
    ("topic", "topic"): (("RELATED_TO", ("{s} is related to {t}", "{s} overlaps with {t}")),),
    ("product", "organisation"): (("MADE_BY", ("{s} is made by {t}", "{s} comes from {t}")),),
    ("product", "topic"): (("USED_FOR", ("{s} is used for {t}", "{s} helps with {t}")),),
    ("product", "product"): (("COMPETES_WITH", ("{s} competes with {t}", "{s} rivals {t}")),),
    ("product", "place"): (("SOLD_IN", ("{s} is sold in {t}", "{s} is popular in {t}")),),
    ("place", "topic"): (("KNOWN_FOR", ("{s} is known for {t}", "{s} is famous for {t}")),),
    ("organisation", "topic"): (("FOCUSES_ON", ("{s} focuses on {t}", "{s} works on {t}")),),
}
#: Relation types whose facts hold for a while and may end (they get ``valid_to``).
_TEMPORAL_TYPES = frozenset({"LIVES_IN", "WORKS_AT", "WORKS_ON", "LEADS", "MEMBER_OF", "USES"})

_USER_OPENERS = (
    "", "", "", "By the way, ", "Quick update: ", "Just so you know, ", "I found out that ",
    "Funny thing: ", "Note to self: ", "Heads up: ", "Remember that ", "Turns out ",
    "So it seems ", "I forgot to say that ",
)  # fmt: skip
_USER_CLOSERS = (
    ".", ".", ".", "!", " now.", " these days.", ", apparently.", ", which surprised me.",
    ", as far as I know.", " since last spring.", ", I think.", " again this year.",
)  # fmt: skip
_ASSISTANT_OPENERS = (
    "Noted: ", "Got it, ", "Thanks, I'll remember that ", "Understood. ", "I've saved that ",
    "Okay, so ", "Good to know: ", "Adding to your notes that ",
)  # fmt: skip
_ENTITY_SENTENCES = (
    "I keep thinking about {e}.", "{e} came up again today.",
    "Can you remind me what we said about {e}?", "Also, {e} is on my mind.",
    "We should revisit {e} soon.", "Not sure how {e} fits in yet.",
    "Did I ever tell you about {e}?", "Let's park {e} for now.",
    "What do you remember about {e}?", "There is news about {e}.",
)  # fmt: skip
_ASSISTANT_FOLLOWUPS = (
    "Should I connect this with {e}?", "Earlier you mentioned {e} as well.",
    "This might matter for {e} too.", "I'll keep {e} in mind.",
    "Do you want a reminder about {e}?", "That links back to {e}.",
)  # fmt: skip
_TIME_TAGS = ("in the morning", "at lunch", "that evening", "over the weekend", "on the train")


@dataclass(frozen=True, slots=True)
class SyntheticMemory:
    """A planned memory: everything a store needs, with provenance already resolved."""

    entities: list[Entity]
    relations: list[Relation]
    chunks: list[Chunk]
    owner_id: str


def _syllable(rng: random.Random) -> str:
    coda = rng.choice(_CODAS) if rng.random() < _CODA_CHANCE else ""
    return rng.choice(_ONSETS) + rng.choice(_VOWELS) + coda


def _word(rng: random.Random, syllables: int) -> str:
    return "".join(_syllable(rng) for _ in range(syllables)).capitalize()


class _Namer:
    """Unique names per entity type, drawn from syllables and type-shaped forms."""

    def __init__(self, rng: random.Random) -> None:
        self._rng = rng
        self._taken: dict[str, None] = {}
        self.first_names = [_word(rng, rng.choice((2, 2, 2, 3))) for _ in range(1500)]
        self.surnames = [_word(rng, rng.choice((2, 2, 3))) for _ in range(8000)]

    def name(self, kind: str) -> str:
        for _ in range(1000):
            candidate = self._candidate(kind)
            if candidate.lower() not in self._taken:
                self._taken[candidate.lower()] = None
                return candidate
        raise InvalidArgument(f"ran out of distinct {kind} names")  # pragma: no cover

    def _candidate(self, kind: str) -> str:
        rng = self._rng
        word = _word(rng, rng.choice((2, 2, 3)))
        if kind == "person":
            return f"{rng.choice(self.first_names)} {rng.choice(self.surnames)}"
        if kind == "place":
            return rng.choice(_PLACE_FORMS).format(w=word)
        if kind == "organisation":
            return rng.choice(_ORG_FORMS).format(w=word, v=_word(rng, 2))
        if kind == "project":
            return rng.choice(_PROJECT_FORMS).format(w=word)
        if kind == "event":
            return f"{rng.choice(_EVENT_FORMS).format(w=word)} {rng.randint(2023, 2025)}"
        if kind == "product":
            return rng.choice(_PRODUCT_FORMS).format(w=word, n=rng.randint(2, 900))
        if rng.random() < 0.6:
            return f"{rng.choice(_TOPIC_MODIFIERS)} {rng.choice(_TOPIC_NOUNS)}"
        return rng.choice(_TOPIC_FORMS).format(w=word.lower())


def _aliases(kind: str, name: str) -> tuple[str, ...]:
    if kind == "person":
        return (name.split(" ", 1)[0],)
    if kind == "organisation":
        words = [w for w in name.replace("&", " ").split() if w[:1].isupper()]
        return ("".join(w[0] for w in words),) if len(words) > 1 else ()
    if kind == "project" and name.startswith(("Project ", "Operation ")):
        return (name.split(" ", 1)[1],)
    return ()


def _pick_types(rng: random.Random, count: int) -> list[str]:
    kinds = [kind for kind, _share, _domains in TYPE_SHARES]
    weights = [share for _kind, share, _domains in TYPE_SHARES]
    return rng.choices(kinds, weights=weights, k=count)


def _edges(rng: random.Random, count: int, edges: int) -> list[tuple[int, int]]:
    """Undirected pairs over nodes ranked by Zipf weight: a preferential tree, then Chung-Lu."""
    weights = [(rank + 1) ** -ZIPF_EXPONENT for rank in range(count)]
    cumulative = list(itertools.accumulate(weights))
    pairs: list[tuple[int, int]] = []
    seen: dict[tuple[int, int], None] = {}
    for node in range(1, min(count, edges + 1)):
        other = bisect.bisect_left(cumulative, rng.random() * cumulative[node - 1])
        other = min(other, node - 1)
        seen[(other, node)] = None
        pairs.append((other, node))
    total = cumulative[-1]
    limit = count * (count - 1) // 2
    target = min(edges, limit)
    misses = 0
    while len(pairs) < target:
        a = min(bisect.bisect_left(cumulative, rng.random() * total), count - 1)
        b = min(bisect.bisect_left(cumulative, rng.random() * total), count - 1)
        key = (a, b) if a < b else (b, a)
        if a == b or key in seen:
            misses += 1
            if misses > 50 * target:  # pragma: no cover - only for near-complete graphs
                break
            continue
        seen[key] = None
        pairs.append(key)
    return pairs


def _relation_shape(
    rng: random.Random, kind_a: str, kind_b: str
) -> tuple[bool, str, tuple[str, ...]]:
    """(swap endpoints?, relation type, fact templates) for a pair of entity types."""
    options = _RELATION_TEMPLATES.get((kind_a, kind_b))
    swap = False
    if options is None:
        options = _RELATION_TEMPLATES.get((kind_b, kind_a))
        swap = options is not None
    if options is None:
        return False, "RELATED_TO", ("{s} is connected to {t}", "{s} has something to do with {t}")
    relation_type, templates = rng.choice(options)
    return swap, relation_type, templates


class _TextBuilder:
    """Concatenates a chunk's text while recording where each entity name lands."""

    def __init__(self) -> None:
        self.parts: list[str] = []
        self.length = 0
        self.spans: list[tuple[int, int, int]] = []  # (entity index, start, end)

    def add(self, text: str) -> None:
        self.parts.append(text)
        self.length += len(text)

    def add_template(self, template: str, names: dict[str, tuple[int, str]]) -> None:
        """Append ``template`` with ``{s}``/``{t}``/``{e}`` replaced by entity names."""
        rest = template
        while "{" in rest:
            head, _, tail = rest.partition("{")
            key, _, rest = tail.partition("}")
            self.add(head)
            entity, name = names[key]
            self.spans.append((entity, self.length, self.length + len(name)))
            self.add(name)
        self.add(rest)

    def text(self) -> str:
        return "".join(self.parts)


@dataclass(slots=True)
class _Turn:
    text: str
    spans: list[tuple[int, int, int]]
    facts: list[tuple[int, int, int]]  # (relation index, start, end)


class _Planner:
    def __init__(
        self, rng: random.Random, entities: int, edges: int, chunks: int, scope: str, end: datetime
    ) -> None:
        if entities < 1 or edges < 0 or chunks < 0:
            raise InvalidArgument("a synthetic memory needs entities ≥ 1 and counts ≥ 0")
        self.rng = rng
        self.scope = scope
        self.end = end
        self.entity_count = entities
        self.chunk_count = chunks
        self.namer = _Namer(rng)
        kinds = _pick_types(rng, entities)
        kinds[0] = "person"  # the memory's owner, the biggest hub
        self.kinds = kinds
        self.names = [self.namer.name(kind) for kind in kinds]
        domain_table = {kind: domains for kind, _share, domains in TYPE_SHARES}
        self.home_domain = [rng.choice(domain_table[kind]) for kind in kinds]
        self.pairs = _edges(rng, entities, edges)
        self.relation_type: list[str] = []
        self.templates: list[tuple[str, ...]] = []
        self.endpoints: list[tuple[int, int]] = []
        self.adjacency: list[list[int]] = [[] for _ in range(entities)]
        for index, (a, b) in enumerate(self.pairs):
            swap, relation_type, templates = _relation_shape(rng, kinds[a], kinds[b])
            source, target = (b, a) if swap else (a, b)
            self.relation_type.append(relation_type)
            self.templates.append(templates)
            self.endpoints.append((source, target))
            self.adjacency[a].append(index)
            self.adjacency[b].append(index)
        for incident in self.adjacency:
            rng.shuffle(incident)
        self.cursor = [0] * entities
        self.stated = [False] * len(self.pairs)
        self.mentioned = [False] * entities
        self.unmentioned = entities
        self.coverage_order = rng.sample(range(entities), entities)
        self.coverage_cursor = 0
        weights = [(rank + 1) ** -ZIPF_EXPONENT for rank in range(entities)]
        self.cumulative = list(itertools.accumulate(weights))
        self.entity_mentions: list[list[Mention]] = [[] for _ in range(entities)]
        self.relation_mentions: list[list[Mention]] = [[] for _ in self.pairs]

    def hub(self) -> int:
        point = self.rng.random() * self.cumulative[-1]
        return min(bisect.bisect_left(self.cumulative, point), self.entity_count - 1)

    def next_unmentioned(self) -> int | None:
        while self.coverage_cursor < len(self.coverage_order):
            candidate = self.coverage_order[self.coverage_cursor]
            if not self.mentioned[candidate]:
                return candidate
            self.coverage_cursor += 1
        return None

    def relation_of(self, entity: int) -> int | None:
        """A relation of ``entity``, preferring one not stated yet."""
        incident = self.adjacency[entity]
        if not incident:
            return None
        while self.cursor[entity] < len(incident):
            relation = incident[self.cursor[entity]]
            self.cursor[entity] += 1
            if not self.stated[relation]:
                return relation
        return self.rng.choice(incident)

    def neighbour_of(self, entity: int) -> int:
        incident = self.adjacency[entity]
        if not incident:
            return self.hub()
        source, target = self.endpoints[self.rng.choice(incident)]
        return target if source == entity else source

    def fact_names(self, relation: int) -> dict[str, tuple[int, str]]:
        source, target = self.endpoints[relation]
        return {"s": (source, self.names[source]), "t": (target, self.names[target])}

    def canonical_fact(self, relation: int) -> str:
        names = self.fact_names(relation)
        return self.templates[relation][0].format(s=names["s"][1], t=names["t"][1])

    def turn(self, focus: int, owner_speaks: bool, behind: bool) -> tuple[_Turn, int]:
        rng = self.rng
        subject = focus
        if behind or rng.random() < 0.08:
            unmentioned = self.next_unmentioned()
            subject = focus if unmentioned is None else unmentioned
        text = _TextBuilder()
        facts: list[tuple[int, int, int]] = []
        relation = self.relation_of(subject) if rng.random() < 0.93 else None
        next_focus = subject
        distinct: list[int] = []
        if relation is not None:
            names = self.fact_names(relation)
            template = rng.choice(self.templates[relation])
            opener = rng.choice(_USER_OPENERS if owner_speaks else _ASSISTANT_OPENERS)
            start = text.length
            text.add(opener)
            text.add_template(template, names)
            text.add(rng.choice(_USER_CLOSERS) if owner_speaks else ".")
            facts.append((relation, start, text.length))
            self.stated[relation] = True
            distinct.extend(dict.fromkeys([names["s"][0], names["t"][0]]))
            if rng.random() < 0.35:
                next_focus = names["t"][0] if names["s"][0] == subject else names["s"][0]
        else:
            text.add_template(rng.choice(_ENTITY_SENTENCES), {"e": (subject, self.names[subject])})
            distinct.append(subject)
        roll = rng.random()
        if roll < 0.18 and len(distinct) <= 2:
            second = self.relation_of(next_focus)
            if second is not None:
                names = self.fact_names(second)
                added = [e for e, _n in names.values() if e not in distinct]
                if len(distinct) + len(added) <= 4:
                    text.add(" Also, ")
                    start = text.length
                    text.add_template(rng.choice(self.templates[second]), names)
                    text.add(".")
                    facts.append((second, start, text.length))
                    self.stated[second] = True
                    distinct.extend(added)
                    if len(distinct) < 4 and rng.random() < 0.3:
                        self.add_extra(text, distinct, next_focus, owner_speaks, behind)
        elif roll < 0.55 and len(distinct) < 4:
            self.add_extra(text, distinct, next_focus, owner_speaks, behind)
        return _Turn(text.text(), text.spans, facts), next_focus

    def add_extra(
        self,
        text: _TextBuilder,
        distinct: list[int],
        focus: int,
        owner_speaks: bool,
        behind: bool,
    ) -> None:
        """Append a sentence naming one more entity: a neighbour, or an unmentioned one."""
        extra = self.next_unmentioned() if behind else None
        if extra is None or extra in distinct:
            extra = self.neighbour_of(focus)
        if extra in distinct:
            return
        pool = _ENTITY_SENTENCES if owner_speaks else _ASSISTANT_FOLLOWUPS
        text.add(" ")
        text.add_template(self.rng.choice(pool), {"e": (extra, self.names[extra])})
        distinct.append(extra)

    def mark(self, turn: _Turn, chunk_id: str, timestamp: datetime) -> None:
        for entity, start, end in turn.spans:
            self.entity_mentions[entity].append(Mention(chunk_id, start, end, timestamp))
            if not self.mentioned[entity]:
                self.mentioned[entity] = True
                self.unmentioned -= 1
        for relation, start, end in turn.facts:
            self.relation_mentions[relation].append(Mention(chunk_id, start, end, timestamp))


def _conversation_starts(rng: random.Random, count: int, end: datetime) -> list[datetime]:
    start = end - SPAN
    seconds = SPAN.total_seconds() - 6 * 3600
    return sorted(start + timedelta(seconds=rng.randrange(int(seconds))) for _ in range(count))


def plan_memory(
    *,
    entities: int,
    edges: int,
    chunks: int,
    seed: int = 0,
    scope: str = "synthetic",
    end: datetime = DEFAULT_END,
) -> SyntheticMemory:
    """A synthetic memory of the given size, identical for identical arguments."""
    rng = random.Random(seed)
    planner = _Planner(rng, entities, edges, chunks, scope, end)
    prefix = f"syn{seed}"
    entity_ids = [
        ids.entity_id(scope, kind, name)
        for kind, name in zip(planner.kinds, planner.names, strict=True)
    ]
    owner = planner.names[0]

    lengths: list[int] = []
    remaining = chunks
    while remaining > 0:
        length = min(remaining, rng.randint(10, 40))
        lengths.append(length)
        remaining -= length
    starts = _conversation_starts(rng, len(lengths), end)

    chunk_list: list[Chunk] = []
    texts_seen: dict[str, None] = {}
    for conversation, (length, started) in enumerate(zip(lengths, starts, strict=True)):
        conversation_id = f"{prefix}-conv{conversation:05d}"
        fresh = planner.next_unmentioned()
        focus = planner.hub() if fresh is None or rng.random() < 0.7 else fresh
        domain = planner.home_domain[focus]
        moment = started
        for position in range(length):
            owner_speaks = position % 2 == 0
            remaining_turns = chunks - len(chunk_list)
            behind = planner.unmentioned >= remaining_turns
            turn, focus = planner.turn(focus, owner_speaks, behind)
            if turn.text in texts_seen:
                turn.text += f" ({rng.choice(_TIME_TAGS)}, {moment:%d %B %Y})"
            texts_seen[turn.text] = None
            turn_id = str(position)
            chunk_id = ids.chunk_id(scope, conversation_id, turn_id, 0)
            speaker = owner if owner_speaks else ASSISTANT_SPEAKER
            planner.mark(turn, chunk_id, moment)
            mentioned_domains = dict.fromkeys(
                [domain] + [planner.home_domain[entity] for entity, _s, _e in turn.spans]
            )
            chunk_list.append(
                Chunk(
                    id=chunk_id,
                    text=turn.text,
                    conversation_id=conversation_id,
                    position=position,
                    speaker=speaker,
                    timestamp=moment,
                    domains=tuple(list(mentioned_domains)[:2]),
                    scope=scope,
                    layer=MemoryLayer.EPISODIC,
                    content_hash=ids.content_hash(
                        scope, conversation_id, speaker, moment, turn.text
                    ),
                    turn_id=turn_id,
                    turn_offset=0,
                )
            )
            moment += timedelta(seconds=rng.randint(15, 300))

    relations = _relations(planner, entity_ids, end)
    entity_list = _entities(planner, entity_ids)
    return SyntheticMemory(entity_list, relations, chunk_list, entity_ids[0])


def _relations(planner: _Planner, entity_ids: Sequence[str], end: datetime) -> list[Relation]:
    rng = planner.rng
    relations: list[Relation] = []
    for index, (source, target) in enumerate(planner.endpoints):
        mentions = planner.relation_mentions[index]
        relation_type = planner.relation_type[index]
        valid_from: datetime | None = None
        valid_to: datetime | None = None
        if relation_type in _TEMPORAL_TYPES:
            first = mentions[0].timestamp if mentions else end - SPAN / 2
            valid_from = first - timedelta(days=rng.randint(0, 120))
            if rng.random() < 0.2:
                last = mentions[-1].timestamp if mentions else first
                valid_to = min(end, last + timedelta(days=rng.randint(1, 90)))
        relations.append(
            Relation(
                id=ids.relation_id(
                    planner.scope, entity_ids[source], relation_type, entity_ids[target]
                ),
                source_id=entity_ids[source],
                target_id=entity_ids[target],
                type=relation_type,
                fact=planner.canonical_fact(index),
                confidence=round(min(0.99, 0.55 + 0.1 * len(mentions) + 0.2 * rng.random()), 3),
                valid_from=valid_from,
                valid_to=valid_to,
                mentions=tuple(mentions),
            )
        )
    return relations


def _entities(planner: _Planner, entity_ids: Sequence[str]) -> list[Entity]:
    rng = planner.rng
    degrees = [len(incident) for incident in planner.adjacency]
    top_degree = max(degrees, default=0)
    entities: list[Entity] = []
    for index, entity_id in enumerate(entity_ids):
        kind = planner.kinds[index]
        name = planner.names[index]
        mentions = planner.entity_mentions[index]
        domain = planner.home_domain[index]
        description = _DESCRIPTIONS[kind].format(n=name, role=rng.choice(_PERSON_ROLES), d=domain)
        if index == 0:
            description = f"{name} is the user whose memory this is."
        first_seen = min((m.timestamp for m in mentions), default=None)
        last_seen = max((m.timestamp for m in mentions), default=None)
        months = sorted({f"{m.timestamp:%Y-%m}" for m in mentions})
        salience = math.log1p(degrees[index]) / math.log1p(top_degree) if top_degree else 0.0
        entities.append(
            Entity(
                id=entity_id,
                name=name,
                type=kind,
                description=description,
                aliases=_aliases(kind, name),
                confidence=round(min(0.99, 0.5 + 0.12 * math.log2(1 + len(mentions))), 3),
                salience=round(salience, 4),
                created_at=first_seen,
                updated_at=last_seen,
                first_seen=first_seen,
                last_seen=last_seen,
                temporal=tuple(months[:3] + months[3:][-3:]),
                domains=(domain,),
                scope=planner.scope,
                # As the offline extractor does: people are profile memory.
                layer=MemoryLayer.PROFILE if kind == "person" else MemoryLayer.SEMANTIC,
                mentions=tuple(mentions),
            )
        )
    return entities
