"""The retrieval policy: every decision the coordinator makes, as one frozen, validated value.

A policy names the enabled layers, the relevance weights, the scope blend, the gate floors, the
profile slots and the spreading-activation parameters. Each part checks itself when it is built,
so a mis-stated policy fails at wiring time with a message that says what is wrong, instead of
quietly retrieving nothing on every turn. Policies are plain data: named presets, a dict form for
JSON and a preset file. Imports only the standard library and core layers, models and errors.

The score range. Every signal (similarity, lexical, recency, salience, confidence, activation) is
in ``[0, 1]``; a candidate's relevance is the weighted mean of the signals that apply to it, and
scope blending multiplies that by a factor in ``(0, 1]``. A relevance score therefore lies in
``[0, 1]``, and a ``min_relevance`` outside that range could never be met (or always is), so it
is refused. The floor is compared with the score *before* activation adds its share, so with an
activation weight ``a`` out of a total ``W`` an entity can reach at most ``1 - a/W`` at the gate.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from dataclasses import dataclass, field, fields, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from explorer.core.errors import InvalidArgument
from explorer.core.layers import RETRIEVABLE_LAYERS, layer_names, parse_layers
from explorer.core.models import MemoryLayer

if TYPE_CHECKING:
    from explorer.core.candidates import MemoryQuery

MIN_SCORE = 0.0
MAX_SCORE = 1.0
PRESET_FILE_VERSION = 1


def _number(owner: str, name: str, value: object) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise InvalidArgument(f"{owner}.{name} must be a number, not {type(value).__name__}")
    if not math.isfinite(value):
        raise InvalidArgument(f"{owner}.{name} must be finite, not {value!r}")
    return float(value)


def _within(owner: str, name: str, value: object, low: float, high: float, why: str = "") -> None:
    number = _number(owner, name, value)
    if not low <= number <= high:
        reason = f" ({why})" if why else ""
        raise InvalidArgument(
            f"{owner}.{name} must be within [{low}, {high}], not {value!r}{reason}"
        )


def _integer(owner: str, name: str, value: object, low: int, high: int) -> None:
    if isinstance(value, bool) or not isinstance(value, int):
        raise InvalidArgument(f"{owner}.{name} must be an integer, not {type(value).__name__}")
    if not low <= value <= high:
        raise InvalidArgument(f"{owner}.{name} must be within {low}..{high}, not {value}")


def _flag(owner: str, name: str, value: object) -> None:
    if not isinstance(value, bool):
        raise InvalidArgument(f"{owner}.{name} must be true or false, not {value!r}")


@dataclass(frozen=True, slots=True)
class RelevanceWeights:
    """How much each signal counts in a relevance score; only their proportions matter.

    A weight of 0 also tells the candidate source that the signal need not be fetched (no query
    embedding without ``similarity``, no full-text search without ``lexical``).
    """

    similarity: float = 0.5
    lexical: float = 0.25
    recency: float = 0.05
    salience: float = 0.05
    confidence: float = 0.05
    activation: float = 0.1

    def __post_init__(self) -> None:
        for item in fields(self):
            _within("weights", item.name, getattr(self, item.name), 0.0, 1000.0)
        if self.total() <= 0.0:
            raise InvalidArgument("weights: at least one relevance weight must be above 0")

    def total(self) -> float:
        return sum(self.as_dict().values())

    def as_dict(self) -> dict[str, float]:
        return {item.name: float(getattr(self, item.name)) for item in fields(self)}


WEIGHT_NAMES: tuple[str, ...] = tuple(item.name for item in fields(RelevanceWeights))


@dataclass(frozen=True, slots=True)
class ScopeBlend:
    """How much less a memory from higher up the scope hierarchy is worth.

    A memory ``d`` levels above the query's scope scores ``decay ** d`` of its relevance; one more
    than ``max_levels`` up (or on another branch) is not recalled at all.
    """

    decay: float = 0.5
    max_levels: int = 2

    def __post_init__(self) -> None:
        _number("blend", "decay", self.decay)
        if not 0.0 < self.decay <= 1.0:
            raise InvalidArgument(
                f"blend.decay must be within (0, 1], not {self.decay!r} "
                "(it is the share of relevance a memory keeps per level climbed)"
            )
        _integer("blend", "max_levels", self.max_levels, 0, 16)


@dataclass(frozen=True, slots=True)
class ActivationParams:
    """Spreading activation over the graph around the kept hits (see ``activation``).

    ``hops`` bounds the spread, ``decay`` is the share of energy passed per hop, ``threshold`` the
    energy a node needs to become active, ``node_budget`` the most nodes (seeds included) that may
    be active, ``fan_normalisation`` divides what a node passes by its number of relations (the
    fan effect), ``max_seeds`` caps the seeds, ``max_found`` the nodes activation may add to the
    result, and ``limit_per_node`` how many relations per node are fetched from the store.
    ``max_frontier`` caps how many entities (the strongest would-be seeds) have their
    neighbourhood fetched in one round, which bounds the graph read whatever the candidate count.
    ``named_energy`` is the seed energy of an entity the query names (every word of its name is
    a word of the query): the query points at it, so it seeds at least that strongly whatever
    its match score (0 leaves seeds to their scores alone). A chunk is credited with a weighted
    mean of three ties (see ``credit``): the person who said it (in full, or ``mention_weight``
    of the strongest entity it mentions if that is more: saying something ties a turn to its
    speaker more closely than naming someone in it does), the strongest entity it mentions that
    is no person (``topic_weight``), and how well its neighbouring turns in the same session
    matched the query (``contiguity``); the speaker's share is what those two leave. A turn
    answering a kept turn of someone else (the one just before it) is tied to that turn's
    speaker by ``reply_weight`` of their energy, when that is more than its own ties give.
    ``weak_weight`` scales the energy passed over a weak signal (``MENTIONS``, ``CO_OCCURS``)
    against a typed fact's: below 1 the spread follows what the memory states more than what
    merely came up together.
    """

    enabled: bool = True
    hops: int = 2
    decay: float = 0.5
    threshold: float = 0.01
    node_budget: int = 50
    fan_normalisation: bool = True
    max_seeds: int = 10
    max_found: int = 5
    limit_per_node: int = 25
    max_frontier: int = 24
    named_energy: float = 1.0
    mention_weight: float = 0.3
    topic_weight: float = 0.05
    contiguity: float = 0.2
    weak_weight: float = 1.0
    reply_weight: float = 0.7

    def __post_init__(self) -> None:
        _flag("activation", "enabled", self.enabled)
        _flag("activation", "fan_normalisation", self.fan_normalisation)
        _integer("activation", "hops", self.hops, 0, 6)
        _number("activation", "decay", self.decay)
        if not 0.0 < self.decay <= 1.0:
            raise InvalidArgument(
                f"activation.decay must be within (0, 1], not {self.decay!r} "
                "(it is the share of energy passed on per hop; above 1 energy would grow)"
            )
        _within("activation", "threshold", self.threshold, 0.0, 1.0, "energies never exceed 1")
        _integer("activation", "node_budget", self.node_budget, 1, 10_000)
        _integer("activation", "max_seeds", self.max_seeds, 1, 1_000)
        _integer("activation", "max_found", self.max_found, 0, 1_000)
        _integer("activation", "limit_per_node", self.limit_per_node, 1, 1_000)
        _integer("activation", "max_frontier", self.max_frontier, 1, 500)
        _within("activation", "named_energy", self.named_energy, 0.0, 1.0, "energies lie in [0, 1]")
        _within("activation", "mention_weight", self.mention_weight, 0.0, 1.0, "a share of energy")
        _within("activation", "topic_weight", self.topic_weight, 0.0, 1.0, "a share of credit")
        _within("activation", "contiguity", self.contiguity, 0.0, 1.0, "a share of credit")
        _within("activation", "weak_weight", self.weak_weight, 0.0, 1.0, "a share of energy")
        _within("activation", "reply_weight", self.reply_weight, 0.0, 1.0, "a share of energy")
        if self.topic_weight + self.contiguity > 1.0:
            raise InvalidArgument(
                "activation.topic_weight + activation.contiguity must not exceed 1, not "
                f"{self.topic_weight!r} + {self.contiguity!r} (they are shares of a chunk's "
                "credit; what they leave is its speaker's)"
            )


@dataclass(frozen=True, slots=True)
class RetrievalPolicy:
    """The deployment's retrieval decisions in one value; see the module docstring for ranges."""

    enabled_layers: frozenset[MemoryLayer] = RETRIEVABLE_LAYERS
    weights: RelevanceWeights = field(default_factory=RelevanceWeights)
    blend: ScopeBlend = field(default_factory=ScopeBlend)
    activation: ActivationParams = field(default_factory=ActivationParams)
    min_relevance: float = 0.0
    min_salience: float = 0.0
    profile_slots: int = 1
    recency_half_life_days: float = 30.0
    fetch_factor: int = 3

    def __post_init__(self) -> None:
        if not isinstance(self.enabled_layers, frozenset) or not all(
            isinstance(layer, MemoryLayer) for layer in self.enabled_layers
        ):
            raise InvalidArgument("policy.enabled_layers must be a frozenset of MemoryLayer")
        for name, kind in (
            ("weights", RelevanceWeights),
            ("blend", ScopeBlend),
            ("activation", ActivationParams),
        ):
            if not isinstance(getattr(self, name), kind):
                raise InvalidArgument(f"policy.{name} must be a {kind.__name__}")
        _within(
            "policy",
            "min_relevance",
            self.min_relevance,
            MIN_SCORE,
            MAX_SCORE,
            "relevance scores lie in [0, 1], so a floor outside it drops everything or nothing",
        )
        _within("policy", "min_salience", self.min_salience, 0.0, 1.0, "salience lies in [0, 1]")
        _integer("policy", "profile_slots", self.profile_slots, 0, 100)
        _number("policy", "recency_half_life_days", self.recency_half_life_days)
        if not 0.0 < self.recency_half_life_days <= 36_500.0:
            raise InvalidArgument(
                "policy.recency_half_life_days must be within (0, 36500], "
                f"not {self.recency_half_life_days!r}"
            )
        _integer("policy", "fetch_factor", self.fetch_factor, 1, 20)

    def effective_layers(self, query: MemoryQuery) -> frozenset[MemoryLayer]:
        """The layers actually searched: what is enabled, narrowed by the query."""
        return self.enabled_layers & query.layers

    def best_gate_score(self) -> float:
        """The highest relevance an entity can have at the gate (before activation adds to it)."""
        return 1.0 - self.weights.activation / self.weights.total()


DEFAULT_POLICY = RetrievalPolicy()


def _section(data: Mapping[str, Any], name: str, kind: type[Any]) -> Any:
    raw = data.get(name, {})
    if isinstance(raw, kind):
        return raw
    if not isinstance(raw, Mapping):
        raise InvalidArgument(f"policy.{name} must be an object, not {type(raw).__name__}")
    known = {item.name for item in fields(kind)}
    unknown = sorted(set(raw) - known)
    if unknown:
        raise InvalidArgument(
            f"policy.{name} has unknown keys {unknown}; expected some of {sorted(known)}"
        )
    return kind(**raw)


_TOP_KEYS = frozenset(item.name for item in fields(RetrievalPolicy))

#: Activation keys that came after policies were first written, with the value an activation
#: section written without them meant: the reply tie came later, so a saved preset or recall
#: case that does not name it decides as it did when saved, without one.
_ADDED_LATER: Mapping[str, Any] = {"reply_weight": 0.0}


def policy_from_dict(data: Mapping[str, Any]) -> RetrievalPolicy:
    """A policy from its dict form; missing keys take defaults (but ``_ADDED_LATER``'s, in an
    activation section that is there), unknown keys are refused."""
    if not isinstance(data, Mapping):
        raise InvalidArgument(f"a policy must be an object, not {type(data).__name__}")
    activation = data.get("activation")
    if isinstance(activation, Mapping):
        data = {**data, "activation": {**_ADDED_LATER, **activation}}
    unknown = sorted(set(data) - _TOP_KEYS)
    if unknown:
        raise InvalidArgument(
            f"policy has unknown keys {unknown}; expected some of {sorted(_TOP_KEYS)}"
        )
    values: dict[str, Any] = {
        key: value
        for key, value in data.items()
        if key not in {"enabled_layers", "weights", "blend", "activation"}
    }
    if "enabled_layers" in data:
        layers = data["enabled_layers"]
        if isinstance(layers, str) or not isinstance(layers, list | tuple | set | frozenset):
            raise InvalidArgument("policy.enabled_layers must be a list of layer names")
        values["enabled_layers"] = parse_layers([str(name) for name in layers])
    values["weights"] = _section(data, "weights", RelevanceWeights)
    values["blend"] = _section(data, "blend", ScopeBlend)
    values["activation"] = _section(data, "activation", ActivationParams)
    return RetrievalPolicy(**values)


def policy_to_dict(policy: RetrievalPolicy) -> dict[str, Any]:
    """The policy as JSON-ready plain data; ``policy_from_dict`` reads it back unchanged."""
    return {
        "enabled_layers": layer_names(policy.enabled_layers),
        "weights": policy.weights.as_dict(),
        "blend": {"decay": policy.blend.decay, "max_levels": policy.blend.max_levels},
        "activation": {
            item.name: getattr(policy.activation, item.name) for item in fields(ActivationParams)
        },
        "min_relevance": policy.min_relevance,
        "min_salience": policy.min_salience,
        "profile_slots": policy.profile_slots,
        "recency_half_life_days": policy.recency_half_life_days,
        "fetch_factor": policy.fetch_factor,
    }


def _episodic_only(weights: RelevanceWeights) -> RetrievalPolicy:
    return RetrievalPolicy(
        enabled_layers=frozenset({MemoryLayer.EPISODIC}),
        weights=weights,
        activation=ActivationParams(enabled=False),
    )


#: Named presets as plain data (policy dicts); ``preset(name)`` builds the policy.
PRESETS: Mapping[str, Mapping[str, Any]] = {
    "default": policy_to_dict(DEFAULT_POLICY),
    "precise": policy_to_dict(
        replace(
            DEFAULT_POLICY,
            min_relevance=0.3,
            min_salience=0.1,
            blend=ScopeBlend(decay=0.5, max_levels=1),
            activation=ActivationParams(hops=1, node_budget=20, max_found=3, threshold=0.03),
        )
    ),
    "broad": policy_to_dict(
        replace(
            DEFAULT_POLICY,
            blend=ScopeBlend(decay=0.7, max_levels=4),
            activation=ActivationParams(hops=3, node_budget=200, max_found=15, threshold=0.005),
            fetch_factor=5,
        )
    ),
    "lexical": policy_to_dict(
        _episodic_only(
            RelevanceWeights(
                similarity=0, lexical=1, recency=0, salience=0, confidence=0, activation=0
            )
        )
    ),
    "vector": policy_to_dict(
        _episodic_only(
            RelevanceWeights(
                similarity=1, lexical=0, recency=0, salience=0, confidence=0, activation=0
            )
        )
    ),
    "hybrid": policy_to_dict(
        _episodic_only(
            RelevanceWeights(
                similarity=0.2, lexical=0.8, recency=0, salience=0, confidence=0, activation=0
            )
        )
    ),
    # Activation carries most of the weight here: the person a question names, and what spreads
    # from them, says more about which turns answer it than the words do. Weak signals pass half
    # the energy of a typed fact: the choice of most folds of the cross-validation (eval/crossval).
    "full": policy_to_dict(
        replace(
            DEFAULT_POLICY,
            weights=RelevanceWeights(
                similarity=0.1,
                lexical=0.2,
                recency=0.0,
                salience=0.02,
                confidence=0.0,
                activation=0.8,
            ),
            activation=ActivationParams(hops=1, node_budget=100, max_found=10, weak_weight=0.5),
            fetch_factor=5,
        )
    ),
}


def preset_names() -> list[str]:
    return list(PRESETS)


def preset(name: str) -> RetrievalPolicy:
    """The named built-in preset; an unknown name lists the known ones."""
    if name not in PRESETS:
        raise InvalidArgument(f"unknown policy preset {name!r}; known: {', '.join(PRESETS)}")
    return policy_from_dict(PRESETS[name])


def load_presets(path: Path) -> dict[str, RetrievalPolicy]:
    """The presets in a named-preset file: ``{"version": 1, "presets": {name: policy}}``.

    Any error names the file and, for a bad policy, the preset.
    """
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except OSError as error:
        raise InvalidArgument(f"{path}: cannot read the preset file: {error}") from error
    except json.JSONDecodeError as error:
        raise InvalidArgument(f"{path}: not valid JSON: {error}") from error
    if not isinstance(data, dict) or not isinstance(data.get("presets"), dict):
        raise InvalidArgument(f'{path}: expected {{"version": 1, "presets": {{...}}}}')
    if data.get("version", PRESET_FILE_VERSION) != PRESET_FILE_VERSION:
        raise InvalidArgument(f"{path}: unsupported preset file version {data.get('version')!r}")
    presets: dict[str, RetrievalPolicy] = {}
    for name, body in data["presets"].items():
        try:
            presets[str(name)] = policy_from_dict(body)
        except InvalidArgument as error:
            raise InvalidArgument(f"{path}: preset {name!r}: {error}") from error
    return presets


def save_presets(path: Path, presets: Mapping[str, RetrievalPolicy]) -> None:
    """Write presets as a named-preset file (atomically, so a crash never leaves half a file)."""
    body = {
        "version": PRESET_FILE_VERSION,
        "presets": {name: policy_to_dict(policy) for name, policy in presets.items()},
    }
    temporary = path.with_name(path.name + ".tmp")
    temporary.write_text(json.dumps(body, indent=2, sort_keys=True) + "\n", encoding="utf-8")
    temporary.replace(path)
