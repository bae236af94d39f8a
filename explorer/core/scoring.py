"""Relevance scoring: a candidate's signals, their weighted mean, and a per-hit breakdown.

A relevance score is the weighted mean of the signals that apply to a candidate, each clamped to
``[0, 1]``, multiplied by the scope factor (``blend``). The ``ScoreBreakdown`` holds each
component's share, ``weight * signal / total weight``, before blending, and a ``scope`` entry that
is the (zero or negative) amount scope blending took off, so the components always add up to the
score. Recency halves every ``half_life_days``. Imports only the standard library and core.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from datetime import UTC, datetime
from typing import NamedTuple

from explorer.core.candidates import Candidate, CandidateKind
from explorer.core.policy import WEIGHT_NAMES, RelevanceWeights

SECONDS_PER_DAY = 86_400.0


def clamp_unit(value: float) -> float:
    """``value`` forced into ``[0, 1]``; NaN counts as 0 so a bad score cannot poison sums."""
    if value != value:  # NaN
        return 0.0
    return 0.0 if value < 0.0 else 1.0 if value > 1.0 else value


def as_aware(moment: datetime) -> datetime:
    """Naive datetimes are taken as UTC, so stores that drop the zone still compare."""
    return moment if moment.tzinfo is not None else moment.replace(tzinfo=UTC)


def recency(timestamp: datetime | None, now: datetime | None, half_life_days: float) -> float:
    """``0.5 ** (age / half_life)``: 1 for now or the future, 0 when the time is unknown."""
    if timestamp is None or now is None:
        return 0.0
    if timestamp.tzinfo is None:
        timestamp = timestamp.replace(tzinfo=UTC)
    if now.tzinfo is None:
        now = now.replace(tzinfo=UTC)
    seconds = (now - timestamp).total_seconds()
    if seconds <= 0.0:
        return 1.0
    return math.pow(0.5, seconds / (half_life_days * SECONDS_PER_DAY))


def recency_anchor(candidates: Iterable[Candidate], now: datetime | None) -> datetime | None:
    """The moment recency is measured from: ``now`` if given, else the newest candidate."""
    if now is not None:
        return as_aware(now)
    stamps = [as_aware(item.timestamp) for item in candidates if item.timestamp is not None]
    return max(stamps) if stamps else None


class Signals(NamedTuple):
    """A candidate's signals in ``[0, 1]``, ``None`` where one does not apply."""

    similarity: float | None
    lexical: float | None
    recency: float | None
    salience: float | None
    confidence: float | None
    activation: float | None

    def values(self) -> tuple[float | None, ...]:
        return (
            self.similarity,
            self.lexical,
            self.recency,
            self.salience,
            self.confidence,
            self.activation,
        )


def signals_of(
    candidate: Candidate,
    *,
    anchor: datetime | None,
    half_life_days: float,
    activation: float = 0.0,
) -> Signals:
    """The candidate's signals; chunks never take part in activation, so theirs is ``None``."""
    similarity, lexical = candidate.similarity, candidate.lexical
    salience, confidence = candidate.salience, candidate.confidence
    return Signals(
        similarity=None if similarity is None else clamp_unit(similarity),
        lexical=None if lexical is None else clamp_unit(lexical),
        recency=recency(candidate.timestamp, anchor, half_life_days),
        salience=None if salience is None else clamp_unit(salience),
        confidence=None if confidence is None else clamp_unit(confidence),
        activation=None if candidate.kind is CandidateKind.CHUNK else clamp_unit(activation),
    )


class ScoreBreakdown(NamedTuple):
    """Each weighted component's share of a score; ``total`` is the score itself."""

    similarity: float = 0.0
    lexical: float = 0.0
    recency: float = 0.0
    salience: float = 0.0
    confidence: float = 0.0
    activation: float = 0.0
    scope: float = 0.0

    @property
    def relevance(self) -> float:
        """The score before scope blending."""
        return (
            self.similarity
            + self.lexical
            + self.recency
            + self.salience
            + self.confidence
            + self.activation
        )

    @property
    def total(self) -> float:
        return self.relevance + self.scope

    def to_dict(self) -> dict[str, float]:
        return {
            "similarity": self.similarity,
            "lexical": self.lexical,
            "recency": self.recency,
            "salience": self.salience,
            "confidence": self.confidence,
            "activation": self.activation,
            "scope": self.scope,
        }


class Scorer:
    """Weighted means under one set of weights; cheap enough to build per decision."""

    __slots__ = ("_weights",)

    def __init__(self, weights: RelevanceWeights) -> None:
        self._weights = tuple(getattr(weights, name) for name in WEIGHT_NAMES)

    def relevance(self, signals: Signals, factor: float = 1.0) -> float:
        """The blended score: weighted mean of the applicable signals times the scope factor."""
        numerator = 0.0
        denominator = 0.0
        for weight, value in zip(self._weights, signals.values(), strict=True):
            if value is not None:
                numerator += weight * value
                denominator += weight
        if denominator <= 0.0:
            return 0.0
        return numerator / denominator * factor

    def breakdown(self, signals: Signals, factor: float = 1.0) -> ScoreBreakdown:
        # Unrolled on purpose: this runs once per candidate on every what-if re-run.
        w_sim, w_lex, w_rec, w_sal, w_con, w_act = self._weights
        total_weight = 0.0
        similarity = lexical = recency_share = salience = confidence = activation = 0.0
        if signals.similarity is not None:
            total_weight += w_sim
            similarity = w_sim * signals.similarity
        if signals.lexical is not None:
            total_weight += w_lex
            lexical = w_lex * signals.lexical
        if signals.recency is not None:
            total_weight += w_rec
            recency_share = w_rec * signals.recency
        if signals.salience is not None:
            total_weight += w_sal
            salience = w_sal * signals.salience
        if signals.confidence is not None:
            total_weight += w_con
            confidence = w_con * signals.confidence
        if signals.activation is not None:
            total_weight += w_act
            activation = w_act * signals.activation
        if total_weight <= 0.0:
            return ScoreBreakdown()
        similarity /= total_weight
        lexical /= total_weight
        recency_share /= total_weight
        salience /= total_weight
        confidence /= total_weight
        activation /= total_weight
        relevance = similarity + lexical + recency_share + salience + confidence + activation
        return ScoreBreakdown(
            similarity=similarity,
            lexical=lexical,
            recency=recency_share,
            salience=salience,
            confidence=confidence,
            activation=activation,
            scope=relevance * factor - relevance,
        )
