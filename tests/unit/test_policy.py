"""The retrieval policy: validation at construction, presets, the dict form and preset files."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from explorer.core.candidates import MemoryQuery
from explorer.core.errors import InvalidArgument
from explorer.core.layers import RETRIEVABLE_LAYERS, layer_names, parse_layers
from explorer.core.models import MemoryLayer
from explorer.core.policy import (
    PRESETS,
    ActivationParams,
    RelevanceWeights,
    RetrievalPolicy,
    ScopeBlend,
    load_presets,
    policy_from_dict,
    policy_to_dict,
    preset,
    save_presets,
)


def test_a_relevance_floor_above_the_score_range_fails_at_construction() -> None:
    with pytest.raises(InvalidArgument, match=r"min_relevance must be within \[0.0, 1.0\].*1.5"):
        RetrievalPolicy(min_relevance=1.5)


@pytest.mark.parametrize(
    ("build", "message"),
    [
        (lambda: RetrievalPolicy(min_relevance=-0.1), "min_relevance"),
        (lambda: RetrievalPolicy(min_relevance=float("nan")), "finite"),
        (lambda: RetrievalPolicy(min_salience=2), "min_salience"),
        (lambda: RetrievalPolicy(profile_slots=-1), "profile_slots"),
        (lambda: RetrievalPolicy(profile_slots=True), "integer"),
        (lambda: RetrievalPolicy(recency_half_life_days=0), "recency_half_life_days"),
        (lambda: RetrievalPolicy(fetch_factor=0), "fetch_factor"),
        (lambda: RetrievalPolicy(enabled_layers={MemoryLayer.EPISODIC}), "frozenset"),  # type: ignore[arg-type]
        (lambda: RelevanceWeights(similarity=-1), "weights.similarity"),
        (lambda: RelevanceWeights(0, 0, 0, 0, 0, 0), "at least one"),
        (lambda: RelevanceWeights(lexical="1"), "number"),  # type: ignore[arg-type]
        (lambda: ScopeBlend(decay=0), "blend.decay"),
        (lambda: ScopeBlend(decay=1.5), "blend.decay"),
        (lambda: ScopeBlend(max_levels=-1), "max_levels"),
        (lambda: ActivationParams(hops=7), "hops"),
        (lambda: ActivationParams(hops=True), "hops"),
        (lambda: ActivationParams(decay=1.2), "energy would grow"),
        (lambda: ActivationParams(threshold=1.5), "threshold"),
        (lambda: ActivationParams(node_budget=0), "node_budget"),
        (lambda: ActivationParams(enabled=1), "true or false"),  # type: ignore[arg-type]
    ],
)
def test_invalid_parts_fail_with_a_message_naming_them(build: object, message: str) -> None:
    with pytest.raises(InvalidArgument, match=message):
        build()  # type: ignore[operator]


@given(st.floats(allow_nan=False, allow_infinity=False))
def test_min_relevance_is_accepted_exactly_within_the_score_range(value: float) -> None:
    if 0.0 <= value <= 1.0:
        assert RetrievalPolicy(min_relevance=value).min_relevance == value
    else:
        with pytest.raises(InvalidArgument):
            RetrievalPolicy(min_relevance=value)


def test_effective_layers_are_the_enabled_ones_narrowed_by_the_query() -> None:
    policy = RetrievalPolicy(enabled_layers=frozenset({MemoryLayer.EPISODIC, MemoryLayer.SEMANTIC}))
    query = MemoryQuery("x", layers=frozenset({MemoryLayer.SEMANTIC, MemoryLayer.CONCEPT}))
    assert policy.effective_layers(query) == {MemoryLayer.SEMANTIC}


def test_best_gate_score_leaves_room_for_activation() -> None:
    weights = RelevanceWeights(
        similarity=1, lexical=0, recency=0, salience=0, confidence=0, activation=1
    )
    assert RetrievalPolicy(weights=weights).best_gate_score() == pytest.approx(0.5)


@pytest.mark.parametrize("name", list(PRESETS))
def test_every_preset_builds_and_round_trips(name: str) -> None:
    policy = preset(name)
    assert policy_from_dict(json.loads(json.dumps(policy_to_dict(policy)))) == policy


def test_presets_differ_where_they_say() -> None:
    assert preset("lexical").weights.similarity == 0
    assert preset("vector").weights.lexical == 0
    assert preset("hybrid").enabled_layers == {MemoryLayer.EPISODIC}
    assert not preset("hybrid").activation.enabled
    assert preset("full").activation.enabled
    assert preset("full").enabled_layers == RETRIEVABLE_LAYERS
    assert preset("precise").min_relevance > preset("default").min_relevance
    with pytest.raises(InvalidArgument, match="known: default"):
        preset("nope")


def test_policy_from_dict_refuses_unknown_keys_and_bad_values() -> None:
    with pytest.raises(InvalidArgument, match="unknown keys"):
        policy_from_dict({"min_relevanse": 0.2})
    with pytest.raises(InvalidArgument, match="unknown keys"):
        policy_from_dict({"activation": {"hopz": 2}})
    with pytest.raises(InvalidArgument, match="hops"):
        policy_from_dict({"activation": {"hops": "2"}})
    with pytest.raises(InvalidArgument, match="unknown memory layer"):
        policy_from_dict({"enabled_layers": ["episodic", "dreams"]})
    partial = policy_from_dict({"min_relevance": 0.25, "weights": {"lexical": 0.9}})
    assert partial.min_relevance == 0.25
    assert partial.weights.lexical == 0.9
    assert partial.weights.similarity == RelevanceWeights().similarity
    # The reply tie came later: an activation section saved without it decides as saved, and
    # a policy that says nothing of activation takes today's defaults.
    assert partial.activation.reply_weight == ActivationParams().reply_weight > 0.0
    saved = policy_to_dict(preset("full"))
    del saved["activation"]["reply_weight"]
    assert policy_from_dict(saved) == replace(
        preset("full"), activation=replace(preset("full").activation, reply_weight=0.0)
    )


def test_preset_file_round_trip_and_errors_name_the_file(tmp_path: Path) -> None:
    path = tmp_path / "presets.json"
    mine = replace(preset("default"), min_relevance=0.42)
    save_presets(path, {"mine": mine, "broad": preset("broad")})
    assert load_presets(path) == {"mine": mine, "broad": preset("broad")}
    bad = tmp_path / "bad.json"
    bad.write_text('{"version": 1, "presets": {"x": {"min_relevance": 3}}}')
    with pytest.raises(InvalidArgument, match=r"bad.json: preset 'x': .*min_relevance"):
        load_presets(bad)
    bad.write_text("{not json")
    with pytest.raises(InvalidArgument, match="not valid JSON"):
        load_presets(bad)


def test_layers_parse_from_text() -> None:
    assert parse_layers("episodic, SEMANTIC") == {MemoryLayer.EPISODIC, MemoryLayer.SEMANTIC}
    assert parse_layers("all") == RETRIEVABLE_LAYERS
    assert parse_layers("") == frozenset()
    assert layer_names(RETRIEVABLE_LAYERS) == ["episodic", "semantic", "profile", "concept"]
    with pytest.raises(InvalidArgument, match="expected one of: episodic"):
        parse_layers("episodic,nope")
