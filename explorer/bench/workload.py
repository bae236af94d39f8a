"""The benchmark's queries: realistic questions drawn from a planned synthetic memory, seeded.

Three kinds, mixed in fixed proportions so two runs with the same seed ask exactly the same
things: *name* queries (an entity's name, alias or first name inside a short question, half of
them picking entities in proportion to how often they are mentioned, as real questions favour
what is talked about), *phrase* queries (a run of words cut from a chunk, as when a user recalls
what was said) and *paraphrases* (a relation or an entity restated in other words, with its type
and domain). Imports only the standard library and the ingest planner's types.
"""

from __future__ import annotations

import random
import re
from dataclasses import asdict, dataclass

from explorer.ingest.synthetic import SyntheticMemory

#: Share of each kind in a workload (the rest are paraphrases).
NAME_SHARE = 0.4
PHRASE_SHARE = 0.3

_NAME_FORMS = (
    "{name}",
    "what do I know about {name}?",
    "tell me about {name}",
    "anything new on {name}",
    "when did we last talk about {name}",
    "{name} notes",
)
_PERSON_FORMS = ("who is {name}?", "what did {name} say", "{first}")
_RELATION_FORMS = (
    "how is {a} connected to {b}?",
    "what does {a} have to do with {b}",
    "{b} and {a}",
    "did I mention {a} together with {b}",
)
_ENTITY_FORMS = (
    "that {type} about {domain}, {name}",
    "{domain} things involving {name}",
    "the {type} {name} from our {domain} chats",
    "remind me what {name} was about",
)
_WORD = re.compile(r"[A-Za-z0-9&'-]+")


@dataclass(frozen=True, slots=True)
class BenchQuery:
    """One query of the workload and how it was made."""

    text: str
    kind: str  # "name" | "phrase" | "paraphrase"

    def as_dict(self) -> dict[str, str]:
        return asdict(self)


def _entity_index(rng: random.Random, weights: list[float]) -> int:
    if rng.random() < 0.5:
        return rng.randrange(len(weights))
    return rng.choices(range(len(weights)), weights=weights, k=1)[0]


def _name_query(rng: random.Random, memory: SyntheticMemory, weights: list[float]) -> str:
    entity = memory.entities[_entity_index(rng, weights)]
    name = entity.name
    if entity.aliases and rng.random() < 0.2:
        name = rng.choice(entity.aliases)
    forms = _NAME_FORMS + (_PERSON_FORMS if entity.type == "person" else ())
    first = entity.name.split()[0]
    return rng.choice(forms).format(name=name, first=first)


def _phrase_query(rng: random.Random, memory: SyntheticMemory) -> str:
    text = rng.choice(memory.chunks).text
    words = _WORD.findall(text)
    if len(words) <= 4:
        return " ".join(words) or text
    size = rng.randint(4, min(9, len(words)))
    start = rng.randrange(len(words) - size + 1)
    return " ".join(words[start : start + size])


def make_queries(memory: SyntheticMemory, count: int, seed: int = 7) -> list[BenchQuery]:
    """``count`` queries over ``memory``; the same memory, count and seed give the same list."""
    rng = random.Random(seed)
    weights = [1.0 + len(entity.mentions) for entity in memory.entities]
    by_id = {entity.id: entity.name for entity in memory.entities}
    queries: list[BenchQuery] = []
    for _ in range(count):
        roll = rng.random()
        if roll < NAME_SHARE:
            queries.append(BenchQuery(_name_query(rng, memory, weights), "name"))
        elif roll < NAME_SHARE + PHRASE_SHARE and memory.chunks:
            queries.append(BenchQuery(_phrase_query(rng, memory), "phrase"))
        elif memory.relations and rng.random() < 0.5:
            relation = rng.choice(memory.relations)
            text = rng.choice(_RELATION_FORMS).format(
                a=by_id.get(relation.source_id, ""), b=by_id.get(relation.target_id, "")
            )
            queries.append(BenchQuery(text.lower(), "paraphrase"))
        else:
            entity = memory.entities[_entity_index(rng, weights)]
            domain = entity.domains[0] if entity.domains else "everyday"
            text = rng.choice(_ENTITY_FORMS).format(
                type=entity.type, domain=domain, name=entity.name
            )
            queries.append(BenchQuery(text, "paraphrase"))
    return queries
