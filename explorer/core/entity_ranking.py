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
from dataclasses import dataclass
from typing import NamedTuple

from explorer.core.models import Entity, EntityHit, Neighbour, scope_distance

NAME_TERM_WEIGHT = 1.0
DESCRIPTION_TERM_WEIGHT = 0.6
#: A query stem and a word stem match when equal, or when one starts with the other and the
#: word stem has at least this many letters. As a word's stem is a prefix of the word, a text
#: in which no case-folded word starts with a query stem's first letters cannot match it.
_PREFIX_MIN = 3


class EntityCandidate(NamedTuple):
    """One entity as a candidate read returned it: enough to rank it without another read (a
    tuple: a query reads about a hundred, and a frozen dataclass costs more to make)."""

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


def rank_entities(
    candidates: Iterable[EntityCandidate],
    terms: Sequence[str],
    k: int,
    *,
    scope: str | None,
    stem: Callable[[str], str],
) -> list[RankedEntity]:
    """The best ``k`` of ``candidates``, best first; an entity's first candidate stands for it.

    Candidates outside ``scope`` (``None``: no filter) are dropped. ``stem`` turns one query term
    or one word of a text (as ``core.text.words`` splits it) into its stem, a prefix of it.
    """
    terms_of = _TermMatcher([stem(term) for term in terms], stem)
    # Ranked by the sum of the signals, then the full-text score, then the id; records are
    # made for the best ``k`` only (a query has about a hundred candidates).
    scored: dict[str, tuple[float, float, str, float, float, EntityCandidate]] = {}
    for candidate in candidates:
        if candidate.id in scored:
            continue
        if scope is not None and scope_distance(candidate.scope, scope) is None:
            continue
        distance = candidate.distance
        similarity = 0.0 if distance is None else max(-1.0, min(1.0, 1.0 - distance))
        lexical = _lexical(terms_of, candidate.names, candidate.description)
        scored[candidate.id] = (
            -(similarity + lexical),
            -candidate.fulltext,
            candidate.id,
            similarity,
            lexical,
            candidate,
        )
    best = sorted(scored.values(), key=lambda row: row[:3])[:k]
    return [
        RankedEntity(
            id=candidate.id,
            similarity=similarity,
            lexical=lexical,
            fulltext=candidate.fulltext,
            alias_text=candidate.alias_text,
        )
        for _, _, _, similarity, lexical, candidate in best
    ]


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


def _lexical(terms_of: _TermMatcher, names: str, description: str) -> float:
    """Share of the query's terms found in the entity, names counting more than description."""
    stems = terms_of.stems
    if not stems:
        return 0.0
    in_names = terms_of.covered(names)
    everything = (1 << len(stems)) - 1
    in_description = 0 if in_names == everything else terms_of.covered(description)
    total = 0.0
    for bit in range(len(stems)):
        if in_names >> bit & 1:
            total += NAME_TERM_WEIGHT
        elif in_description >> bit & 1:
            total += DESCRIPTION_TERM_WEIGHT
    return total / len(stems)


class _TermMatcher:
    """One query's stems, asked which of them a text's words cover (equal, or one a prefix of
    the other with the word's stem at least ``_PREFIX_MIN`` letters long).

    Only a word starting with a stem's first letters can cover it, so only those words are
    stemmed, and a text with none (most of the vector read's candidates) not at all. What a word
    covers is worked out once per query: the candidates of a query share most of their words.
    """

    __slots__ = ("_heads", "_memo", "_stem", "stems")

    def __init__(self, stems: Sequence[str], stem: Callable[[str], str]) -> None:
        self.stems = tuple(stems)
        self._stem = stem
        self._memo: dict[str, int] = {}
        heads = sorted({s[:_PREFIX_MIN] for s in self.stems})
        # Whole words (``core.text`` words: runs of letters and digits) starting with a head.
        self._heads = re.compile(r"(?<![^\W_])(?:" + "|".join(map(re.escape, heads)) + r")[^\W_]*")

    def covered(self, text: str) -> int:
        """The stems ``text`` covers, as a bit mask over ``stems``."""
        mask = 0
        memo = self._memo
        for word in self._heads.findall(text.casefold()):
            found = memo.get(word)
            if found is None:
                found = memo[word] = self._covers(self._stem(word))
            mask |= found
        return mask

    def _covers(self, word: str) -> int:
        long = len(word) >= _PREFIX_MIN
        mask = 0
        for bit, stem in enumerate(self.stems):
            if stem == word or (long and (word.startswith(stem) or stem.startswith(word))):
                mask |= 1 << bit
        return mask
