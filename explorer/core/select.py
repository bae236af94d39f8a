"""Selection: rank kept and activation-found memories, de-duplicate, fill slots, cut the rest.

Order is score descending, then canonical layer order, kind and id, so equal scores always come
out the same way. The first occurrence of a memory wins and later copies are ``duplicate`` drops.
Profile memories are placed first, into ``policy.profile_slots`` slots of their own; memories
found by activation share an allowance of ``activation.max_found``; every other layer keeps up to
``query.limit(layer)``; and ``query.max_entities`` caps all non-chunk memories together. A memory
that loses a per-layer place is a ``rank`` drop, one that finds its slots or a budget full is a
``budget`` drop; either records its score against the score of the weakest memory kept in its
place. Imports only the standard library and core.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from explorer.core.candidates import (
    Candidate,
    CandidateKind,
    Dropped,
    MemoryQuery,
    Source,
    dropped_candidate,
)
from explorer.core.gates import GATE_BUDGET, GATE_DUPLICATE, GATE_RANK, Scored
from explorer.core.layers import layer_rank
from explorer.core.models import MemoryLayer
from explorer.core.policy import RetrievalPolicy
from explorer.core.scoring import ScoreBreakdown


@dataclass(frozen=True, slots=True)
class Recollection:
    """One recalled item: the candidate, its score with breakdown, and its place in the result."""

    candidate: Candidate
    score: float
    breakdown: ScoreBreakdown
    distance: int
    rank: int
    energy: float = 0.0

    @property
    def id(self) -> str:
        return self.candidate.id

    @property
    def layer(self) -> MemoryLayer:
        return self.candidate.layer

    @property
    def source(self) -> Source:
        return self.candidate.source


@dataclass(frozen=True, slots=True)
class Selection:
    memories: tuple[Recollection, ...]
    dropped: tuple[Dropped, ...]


def _order(item: Scored) -> tuple[float, int, str, str, str]:
    candidate = item.candidate
    return (
        -item.score,
        layer_rank(candidate.layer),
        candidate.kind._value_,
        candidate.id,
        candidate.source._value_,
    )


def select(
    scored: Sequence[Scored],
    query: MemoryQuery,
    policy: RetrievalPolicy,
    energies: Mapping[str, float] | None = None,
) -> Selection:
    """Pick the memories to recall from ``scored``; everything else goes to the ledger."""
    ranked = sorted(scored, key=_order)
    dropped: list[Dropped] = []
    winners: dict[tuple[str, str], Scored] = {}
    unique: list[Scored] = []
    for item in ranked:
        key = item.candidate.key
        winner = winners.get(key)
        if winner is not None:
            dropped.append(
                dropped_candidate(
                    item.candidate,
                    GATE_DUPLICATE,
                    f"same memory as a higher-ranked {winner.candidate.source.value} hit "
                    f"in layer {winner.candidate.layer.value!r}",
                    value=item.score,
                    threshold=winner.score,
                )
            )
            continue
        winners[key] = item
        unique.append(item)

    profile_layer, activation = MemoryLayer.PROFILE, Source.ACTIVATION
    profiles = [
        item
        for item in unique
        if item.candidate.layer is profile_layer and item.candidate.source is not activation
    ]
    chosen_profiles = {id(item) for item in profiles}

    per_layer: dict[MemoryLayer, list[float]] = {}
    profile: list[float] = []
    found: list[float] = []
    entities: list[float] = []
    chosen: list[Scored] = []
    max_entities = query.max_entities
    chunk = CandidateKind.CHUNK
    limits: dict[MemoryLayer, int] = {}
    for item in [*profiles, *(i for i in unique if id(i) not in chosen_profiles)]:
        candidate = item.candidate
        if candidate.source is activation:
            place, limit, gate_name = found, policy.activation.max_found, GATE_BUDGET
        elif id(item) in chosen_profiles:
            place, limit, gate_name = profile, policy.profile_slots, GATE_BUDGET
        else:
            layer = candidate.layer
            place = per_layer.setdefault(layer, [])
            limit = limits.get(layer, -1)
            if limit < 0:
                limit = limits[layer] = query.limit(layer)
            gate_name = GATE_RANK
        if len(place) >= limit:
            if place is found:
                what = f"the activation allowance of {limit}"
            elif place is profile:
                what = f"the {limit} profile slot(s)"
            else:
                what = f"the {limit} place(s) of layer {candidate.layer.value!r}"
            bar = min(place) if place else None
            dropped.append(
                dropped_candidate(
                    candidate,
                    gate_name,
                    f"outranked: {what} are taken" if limit else f"{what} allow nothing",
                    value=item.score,
                    threshold=bar,
                )
            )
            continue
        is_entity = candidate.kind is not chunk
        if is_entity and max_entities is not None and len(entities) >= max_entities:
            bar = min(entities) if entities else None
            dropped.append(
                dropped_candidate(
                    candidate,
                    GATE_BUDGET,
                    f"the budget of {max_entities} graph memories is full",
                    value=item.score,
                    threshold=bar,
                )
            )
            continue
        place.append(item.score)
        if is_entity:
            entities.append(item.score)
        chosen.append(item)

    chosen.sort(key=_order)
    energy = energies or {}
    memories = tuple(
        Recollection(
            candidate=item.candidate,
            score=item.score,
            breakdown=item.breakdown,
            distance=item.distance,
            rank=rank,
            energy=energy.get(item.candidate.id, 0.0)
            if item.candidate.kind is not CandidateKind.CHUNK
            else 0.0,
        )
        for rank, item in enumerate(chosen, start=1)
    )
    return Selection(memories, tuple(dropped))
