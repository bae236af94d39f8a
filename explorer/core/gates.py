"""Gates: keep or drop each candidate, and write every drop to the ledger.

The gates run in a fixed order and the first one a candidate fails is the one recorded:
``layer`` (its layer is not searched), ``scope`` (on another branch of the scope hierarchy, or
more than ``blend.max_levels`` above the query), ``period`` (with a temporal filter: an entity
with no provenance in the period — judged by its mentions when it carries them, else by its
first/last-seen span, so concept hits and activation finds obey the filter too), ``salience``
(below ``min_salience``; memories without a salience, such as chunks, are not salience-gated)
and ``relevance`` (its blended score, before activation, below ``min_relevance``). Every
candidate comes out exactly once, kept or in the ledger. Imports only the standard library and core.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import NamedTuple

from explorer.core.blend import scope_factor
from explorer.core.candidates import Candidate, Dropped, dropped_candidate
from explorer.core.layers import layer_names
from explorer.core.models import Entity, MemoryLayer, Period, scope_distance
from explorer.core.policy import RetrievalPolicy
from explorer.core.scoring import ScoreBreakdown, Scorer, Signals, signals_of

GATE_LAYER = "layer"
GATE_SCOPE = "scope"
GATE_PERIOD = "period"
GATE_SALIENCE = "salience"
GATE_RELEVANCE = "relevance"
GATE_DUPLICATE = "duplicate"
GATE_RANK = "rank"
GATE_BUDGET = "budget"
GATE_SOURCE = "source"
GATE_LAYERS = "layers"
GATE_ASSOCIATIONS = "associations"

#: Gates whose value and threshold are comparable numbers (candidates for "near miss").
NUMERIC_GATES = frozenset({GATE_SALIENCE, GATE_RELEVANCE, GATE_RANK, GATE_BUDGET, GATE_DUPLICATE})


class Scored(NamedTuple):
    """A candidate that passed the gates so far, with its signals and score."""

    candidate: Candidate
    distance: int
    factor: float
    signals: Signals
    breakdown: ScoreBreakdown
    score: float

    @classmethod
    def of(
        cls, candidate: Candidate, distance: int, factor: float, signals: Signals, scorer: Scorer
    ) -> Scored:
        breakdown = scorer.breakdown(signals, factor)
        return cls(candidate, distance, factor, signals, breakdown, breakdown.total)


@dataclass(frozen=True, slots=True)
class GateOutcome:
    kept: tuple[Scored, ...]
    dropped: tuple[Dropped, ...]


def within_period(record: object, period: Period) -> bool:
    """Whether an entity is evidenced inside ``period``; anything that is not an entity passes."""
    if not isinstance(record, Entity):
        return True
    if record.mentions:
        return any(period.contains(mention.timestamp) for mention in record.mentions)
    first, last = record.first_seen, record.last_seen
    if first is None or last is None:
        return False
    # Evidence spans [first, last]; it meets [start, end) unless it lies wholly outside.
    return not (
        (period.end is not None and first >= period.end)
        or (period.start is not None and last < period.start)
    )


def gate(
    candidates: Iterable[Candidate],
    *,
    layers: frozenset[MemoryLayer],
    policy: RetrievalPolicy,
    query_scope: str,
    anchor: datetime | None,
    scorer: Scorer,
    check_relevance: bool = True,
    activation: dict[str, float] | None = None,
    period: Period | None = None,
) -> GateOutcome:
    """Run every gate over ``candidates``; ``activation`` gives a signal per node id."""
    kept: list[Scored] = []
    dropped: list[Dropped] = []
    searched = ", ".join(layer_names(layers)) or "none"
    max_levels = policy.blend.max_levels
    distances: dict[str, int | None] = {}
    factors: dict[int, float] = {}
    min_salience, min_relevance = policy.min_salience, policy.min_relevance
    half_life = policy.recency_half_life_days
    for candidate in candidates:
        if candidate.layer not in layers:
            dropped.append(
                dropped_candidate(
                    candidate,
                    GATE_LAYER,
                    f"layer {candidate.layer.value!r} is not searched (searched: {searched})",
                )
            )
            continue
        if candidate.scope in distances:
            distance = distances[candidate.scope]
        else:
            distance = distances[candidate.scope] = scope_distance(candidate.scope, query_scope)
        if distance is None:
            dropped.append(
                dropped_candidate(
                    candidate,
                    GATE_SCOPE,
                    f"scope {candidate.scope!r} is on another branch than {query_scope!r}",
                    threshold=float(max_levels),
                )
            )
            continue
        if distance > max_levels:
            dropped.append(
                dropped_candidate(
                    candidate,
                    GATE_SCOPE,
                    f"{distance} levels above the query's scope; at most {max_levels} allowed",
                    value=float(distance),
                    threshold=float(max_levels),
                )
            )
            continue
        if period is not None and not within_period(candidate.record, period):
            dropped.append(
                dropped_candidate(
                    candidate,
                    GATE_PERIOD,
                    f"no provenance inside the period {period.text or 'asked'}",
                )
            )
            continue
        salience = candidate.salience
        if salience is not None and salience < min_salience:
            dropped.append(
                dropped_candidate(
                    candidate,
                    GATE_SALIENCE,
                    f"salience {salience:.3f} below the floor {min_salience:.3f}",
                    value=salience,
                    threshold=min_salience,
                )
            )
            continue
        factor = factors.get(distance)
        if factor is None:
            factor = factors[distance] = scope_factor(distance, policy.blend)
        signals = signals_of(
            candidate,
            anchor=anchor,
            half_life_days=half_life,
            activation=activation.get(candidate.id, 0.0) if activation else 0.0,
        )
        scored = Scored.of(candidate, distance, factor, signals, scorer)
        score = scored.score
        if check_relevance and score < min_relevance:
            dropped.append(
                dropped_candidate(
                    candidate,
                    GATE_RELEVANCE,
                    f"relevance {score:.3f} below the floor {min_relevance:.3f}",
                    value=score,
                    threshold=min_relevance,
                )
            )
            continue
        kept.append(scored)
    return GateOutcome(tuple(kept), tuple(dropped))


def near_misses(dropped: Sequence[Dropped], limit: int | None = None) -> list[Dropped]:
    """Numeric drops ordered by how little they missed their floor by (relative, then absolute).

    Ties keep ledger order, so the answer is deterministic.
    """

    def closeness(entry: Dropped) -> tuple[float, float]:
        margin = entry.margin if entry.margin is not None else float("inf")
        scale = abs(entry.threshold) if entry.threshold else 1.0
        return (max(margin, 0.0) / scale, margin)

    numeric = [
        entry for entry in dropped if entry.gate in NUMERIC_GATES and entry.margin is not None
    ]
    ordered = sorted(numeric, key=closeness)
    return ordered if limit is None else ordered[:limit]
