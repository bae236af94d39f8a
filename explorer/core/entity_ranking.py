"""Ranking an entity search's candidates: the best ``k``, one per entity, by similarity and terms.

A graph store finds candidate entities by full text and by vector KNN and reads, with each, what
ranking needs: its names, description, scope, the cosine distance to the query vector and its
full-text score. ``rank_entities`` keeps the first candidate of each entity that is visible from
the query's scope, gives it a similarity (``1 - distance``, clamped to ``[-1, 1]``) and a lexical
signal (the share of the query's terms its names cover, the description counting less), and
returns the best ``k`` by their sum, then the full-text score, then the id; ``entity_hits`` pairs
them with the entities read afterwards. The stemmer is the
caller's, so terms are matched the way the store split them for its full-text search. Imports
only the standard library and core models.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from collections.abc import Set as AbstractSet
from dataclasses import dataclass

from explorer.core.models import Entity, EntityHit, Neighbour, scope_distance

NAME_TERM_WEIGHT = 1.0
DESCRIPTION_TERM_WEIGHT = 0.6
#: A query stem and a word stem match when equal, or when one starts with the other and the
#: word stem has at least this many letters. As a word's stem is a prefix of the word, a text
#: in which no case-folded word starts with a query stem's first letters cannot match it.
_PREFIX_MIN = 3


@dataclass(frozen=True, slots=True)
class EntityCandidate:
    """One entity as a candidate read returned it: enough to rank it without another read."""

    id: str
    #: The name and the aliases, space-separated.
    names: str
    description: str
    scope: str
    #: Cosine distance to the query vector; ``None`` without a query vector or entity vector.
    distance: float | None
    #: The full-text index's score; 0 for an entity only the vector read found.
    fulltext: float = 0.0
    #: The aliases alone, space-separated (the query may name an entity by one).
    alias_text: str = ""


@dataclass(frozen=True, slots=True)
class RankedEntity:
    """A ranked candidate with the signals it was ranked by."""

    id: str
    similarity: float
    lexical: float
    fulltext: float
    alias_text: str = ""

    @property
    def rank_key(self) -> tuple[float, float, str]:
        return (-(self.similarity + self.lexical), -self.fulltext, self.id)


def rank_entities(
    candidates: Iterable[EntityCandidate],
    terms: Sequence[str],
    k: int,
    *,
    scope: str | None,
    stem: Callable[[str], str],
    word_stems: Callable[[str], AbstractSet[str]],
) -> list[RankedEntity]:
    """The best ``k`` of ``candidates``, best first; an entity's first candidate stands for it.

    Candidates outside ``scope`` (``None``: no filter) are dropped. ``stem`` turns one query term
    into a stem, ``word_stems`` a text into the set of its words' stems: its words as
    ``core.text.words`` splits them, each stem a prefix of its word.
    """
    stems = [stem(term) for term in terms]
    heads = _word_heads(stems)
    ranked: dict[str, RankedEntity] = {}
    for candidate in candidates:
        if candidate.id in ranked:
            continue
        if scope is not None and scope_distance(candidate.scope, scope) is None:
            continue
        distance = candidate.distance
        similarity = 0.0 if distance is None else max(-1.0, min(1.0, 1.0 - distance))
        ranked[candidate.id] = RankedEntity(
            id=candidate.id,
            similarity=similarity,
            lexical=_lexical(stems, heads, candidate.names, candidate.description, word_stems),
            fulltext=candidate.fulltext,
            alias_text=candidate.alias_text,
        )
    return sorted(ranked.values(), key=lambda entity: entity.rank_key)[:k]


def entity_hits(
    ranked: Sequence[RankedEntity],
    entities: Mapping[str, Entity],
    neighbours: Mapping[str, Sequence[Neighbour]],
) -> list[EntityHit]:
    """The search hits of ``ranked``, in its order; one whose entity was not read is left out."""
    return [
        EntityHit(
            entity=entities[c.id],
            similarity=c.similarity,
            lexical=c.lexical,
            neighbours=tuple(neighbours.get(c.id, ())),
        )
        for c in ranked
        if c.id in entities
    ]


def _lexical(
    stems: Sequence[str],
    heads: re.Pattern[str],
    names: str,
    description: str,
    word_stems: Callable[[str], AbstractSet[str]],
) -> float:
    """Share of the query's terms found in the entity, names counting more than description;
    ``heads`` is ``_word_heads(stems)``."""
    if not stems:
        return 0.0
    # Only a word starting with a stem's first letters can cover it: those words alone are
    # stemmed, and a text with none (most of the vector read's candidates) not at all.
    name_words = _words_near(names, heads, word_stems)
    description_words = _words_near(description, heads, word_stems)
    total = 0.0
    for stem in stems:
        if name_words is not None and name_words.cover(stem):
            total += NAME_TERM_WEIGHT
        elif description_words is not None and description_words.cover(stem):
            total += DESCRIPTION_TERM_WEIGHT
    return total / len(stems)


def _word_heads(stems: Sequence[str]) -> re.Pattern[str]:
    """Finds the words (``core.text`` words: runs of letters and digits) that start with one
    of the stems' first ``_PREFIX_MIN`` letters, each whole."""
    heads = sorted({stem[:_PREFIX_MIN] for stem in stems})
    return re.compile(r"(?<![^\W_])(?:" + "|".join(map(re.escape, heads)) + r")[^\W_]*")


def _words_near(
    text: str, heads: re.Pattern[str], word_stems: Callable[[str], AbstractSet[str]]
) -> _Words | None:
    """The stems of ``text``'s words that start as a stem does (``heads``); ``None``: none."""
    near = heads.findall(text.casefold())
    return _Words(frozenset(word_stems(" ".join(near)))) if near else None


class _Words:
    """A text's word stems, asked whether a query stem matches one, equal or by prefix."""

    __slots__ = ("_joined", "_long", "_words")

    def __init__(self, words: AbstractSet[str]) -> None:
        self._words = words
        self._long = tuple(w for w in words if len(w) >= _PREFIX_MIN)
        # A space before each word: " stem" occurs in it exactly when a word starts with stem.
        self._joined = "".join(f" {w}" for w in self._long)

    def cover(self, stem: str) -> bool:
        return stem in self._words or f" {stem}" in self._joined or stem.startswith(self._long)
