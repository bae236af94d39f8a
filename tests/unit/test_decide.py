"""Scoring, gates, scope blending and selection, and the ledger they write, through ``decide``."""

from __future__ import annotations

from collections import Counter
from dataclasses import replace
from datetime import UTC, datetime, timedelta

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from explorer.core.blend import reach_scopes, scope_factor, within_reach
from explorer.core.candidates import Candidate, CandidateKind, Dropped, MemoryQuery, Source
from explorer.core.coordinator import CoordinatedRetrieval, decide
from explorer.core.gates import near_misses
from explorer.core.models import Entity, MemoryLayer, Relation, Subgraph
from explorer.core.policy import ActivationParams, RelevanceWeights, RetrievalPolicy, ScopeBlend
from explorer.core.scoring import Scorer, recency, signals_of
from explorer.testing import make_candidate

SCOPE = "acme/ana"
QUERY = MemoryQuery("anything", scope=SCOPE, k={MemoryLayer.EPISODIC: 3, MemoryLayer.SEMANTIC: 3})
NOW = datetime(2024, 6, 1, tzinfo=UTC)


def drops(retrieval: CoordinatedRetrieval, gate: str) -> list[Dropped]:
    return [entry for entry in retrieval.result.dropped if entry.gate == gate]


def kept_ids(retrieval: CoordinatedRetrieval) -> list[str]:
    return [memory.id for memory in retrieval.result.memories]


def test_recency_halves_every_half_life() -> None:
    assert recency(NOW, NOW, 30) == 1.0
    assert recency(NOW - timedelta(days=30), NOW, 30) == pytest.approx(0.5)
    assert recency(NOW - timedelta(days=90), NOW, 30) == pytest.approx(0.125)
    assert recency(NOW + timedelta(days=1), NOW, 30) == 1.0
    assert recency(None, NOW, 30) == 0.0
    assert recency(NOW.replace(tzinfo=None), NOW, 30) == 1.0  # naive counts as UTC


def test_breakdown_adds_up_to_the_score_and_skips_signals_that_do_not_apply() -> None:
    weights = RelevanceWeights(
        similarity=2, lexical=1, recency=1, salience=1, confidence=1, activation=1
    )
    scorer = Scorer(weights)
    chunk = make_candidate("c", similarity=0.8, lexical=0.5, timestamp=NOW)
    signals = signals_of(chunk, anchor=NOW, half_life_days=30)
    assert signals.salience is None and signals.confidence is None and signals.activation is None
    breakdown = scorer.breakdown(signals, factor=0.5)
    # Applicable: similarity 2, lexical 1, recency 1 → weights sum to 4.
    assert breakdown.similarity == pytest.approx(2 * 0.8 / 4)
    assert breakdown.lexical == pytest.approx(0.5 / 4)
    assert breakdown.recency == pytest.approx(1 / 4)
    assert breakdown.relevance == pytest.approx((1.6 + 0.5 + 1) / 4)
    assert breakdown.scope == pytest.approx(-breakdown.relevance / 2)
    assert breakdown.total == pytest.approx(breakdown.relevance * 0.5)
    assert scorer.relevance(signals, 0.5) == pytest.approx(breakdown.total)


def test_scope_blend_factors_reach_and_search_scopes() -> None:
    blend = ScopeBlend(decay=0.5, max_levels=2)
    assert [scope_factor(d, blend) for d in range(4)] == [1.0, 0.5, 0.25, 0.125]
    assert within_reach("a/b/c", "a/b/c", blend) == 0
    assert within_reach("a/b/c/d", "a/b/c", blend) == 0
    assert within_reach("a", "a/b/c", blend) == 2
    assert within_reach("x", "a/b/c", blend) is None
    assert within_reach("a/z", "a/b/c", blend) is None
    assert within_reach("a", "a/b/c/d", blend) is None  # 3 levels up
    assert reach_scopes("a/b/c/d", blend) == ("a/b/c/d", "a/b")
    assert reach_scopes("a/b/c", ScopeBlend(max_levels=0)) == ("a/b/c",)
    assert reach_scopes("default", blend) == ("default",)
    assert reach_scopes("a/b", ScopeBlend(max_levels=5)) == ("a/b", "a")


def test_memories_from_higher_up_are_worth_less_and_too_high_are_dropped() -> None:
    policy = RetrievalPolicy(blend=ScopeBlend(decay=0.5, max_levels=1))
    query = replace(QUERY, scope="acme/ana/conv")
    here = make_candidate("here", scope="acme/ana/conv", similarity=0.8)
    above = make_candidate("above", scope="acme/ana", similarity=0.8)
    top = make_candidate("top", scope="acme", similarity=0.8)
    sibling = make_candidate("sibling", scope="acme/bob", similarity=0.8)
    retrieval = decide([here, above, top, sibling], query, policy)
    scores = {m.id: m.score for m in retrieval.result.memories}
    assert scores["above"] == pytest.approx(scores["here"] / 2)
    scope_drops = {entry.id: entry for entry in drops(retrieval, "scope")}
    assert set(scope_drops) == {"top", "sibling"}
    assert scope_drops["top"].value == 2 and scope_drops["top"].threshold == 1
    assert scope_drops["sibling"].value is None
    assert "another branch" in scope_drops["sibling"].reason


def test_each_gate_drops_with_value_threshold_layer_scope_and_source() -> None:
    policy = RetrievalPolicy(
        enabled_layers=frozenset({MemoryLayer.EPISODIC, MemoryLayer.SEMANTIC}),
        min_relevance=0.3,
        min_salience=0.4,
    )
    candidates = [
        make_candidate("strong", similarity=0.9, lexical=0.9),
        make_candidate("weak", similarity=0.1),
        make_candidate("dull", kind="entity", similarity=0.9, salience=0.1),
        make_candidate("idea", kind="concept", lexical=1.0),
    ]
    retrieval = decide(candidates, QUERY, policy)
    assert kept_ids(retrieval) == ["strong"]
    (weak,) = drops(retrieval, "relevance")
    assert (weak.id, weak.kind, weak.layer, weak.scope, weak.source) == (
        "weak",
        "chunk",
        MemoryLayer.EPISODIC,
        SCOPE,
        "vector",
    )
    assert weak.threshold == 0.3 and weak.value is not None and weak.value < 0.3
    assert weak.margin == pytest.approx(0.3 - weak.value)
    (dull,) = drops(retrieval, "salience")
    assert (dull.value, dull.threshold) == (0.1, 0.4)
    (idea,) = drops(retrieval, "layer")
    assert idea.id == "idea" and "not searched" in idea.reason and idea.value is None


def test_no_layer_left_is_a_result_whose_ledger_says_so() -> None:
    policy = RetrievalPolicy(enabled_layers=frozenset({MemoryLayer.PROFILE}))
    query = replace(QUERY, layers=frozenset({MemoryLayer.EPISODIC}))
    retrieval = decide([make_candidate("c1")], query, policy)
    assert retrieval.result.memories == ()
    assert retrieval.layers == frozenset()
    (entry,) = drops(retrieval, "layers")
    assert entry.kind == "none" and "no layer left to search" in entry.reason
    assert [e.id for e in drops(retrieval, "layer")] == ["c1"]


def test_selection_keeps_k_per_layer_and_records_rank_drops_against_the_bar() -> None:
    candidates = [make_candidate(f"c{i}", similarity=i / 10) for i in range(1, 7)]
    retrieval = decide(candidates, QUERY, RetrievalPolicy())
    assert kept_ids(retrieval) == ["c6", "c5", "c4"]
    assert [m.rank for m in retrieval.result.memories] == [1, 2, 3]
    rank = drops(retrieval, "rank")
    assert [e.id for e in rank] == ["c3", "c2", "c1"]
    weakest_kept = retrieval.result.memories[-1].score
    assert all(e.threshold == weakest_kept for e in rank)
    assert [e.id for e in near_misses(retrieval.result.dropped)][:1] == ["c3"]


def test_duplicates_keep_the_best_and_ledger_the_rest() -> None:
    candidates = [
        make_candidate("e1", kind="entity", similarity=0.9),
        make_candidate("e1", kind="concept", lexical=0.2, similarity=None),
    ]
    retrieval = decide(candidates, QUERY, RetrievalPolicy())
    assert [(m.id, m.candidate.kind) for m in retrieval.result.memories] == [
        ("e1", CandidateKind.ENTITY)
    ]
    (dup,) = drops(retrieval, "duplicate")
    assert dup.kind == "concept" and dup.threshold == retrieval.result.memories[0].score


def test_profile_slots_are_filled_first_with_the_best_profile_memories() -> None:
    profile = [
        make_candidate(f"p{i}", kind="entity", layer="profile", similarity=i / 10)
        for i in range(1, 4)
    ]
    semantic = [make_candidate(f"s{i}", kind="entity", similarity=0.9) for i in range(5)]
    query = replace(QUERY, max_entities=4)
    retrieval = decide([*semantic, *profile], query, RetrievalPolicy(profile_slots=2))
    ids = kept_ids(retrieval)
    assert {"p3", "p2"} <= set(ids) and "p1" not in ids
    assert len(ids) == 4
    budget = {e.id: e for e in drops(retrieval, "budget")}
    assert "profile slot" in budget["p1"].reason
    assert any("budget of 4" in e.reason for e in budget.values())
    none = decide(profile, QUERY, RetrievalPolicy(profile_slots=0))
    assert kept_ids(none) == []
    assert all("allow nothing" in e.reason for e in drops(none, "budget"))


def test_decide_is_deterministic_under_input_order() -> None:
    candidates = [make_candidate(f"c{i}", similarity=0.5) for i in range(8)]
    first = decide(candidates, QUERY, RetrievalPolicy())
    second = decide(list(reversed(candidates)), QUERY, RetrievalPolicy())
    assert kept_ids(first) == kept_ids(second) == ["c0", "c1", "c2"]


def test_recency_is_anchored_at_the_newest_candidate_when_the_query_has_no_now() -> None:
    old = NOW - timedelta(days=365 * 3)
    weights = RelevanceWeights(
        similarity=0, lexical=0, recency=1, salience=0, confidence=0, activation=0
    )
    candidates = [
        make_candidate("newest", timestamp=old),
        make_candidate("older", timestamp=old - timedelta(days=30)),
    ]
    retrieval = decide(candidates, QUERY, RetrievalPolicy(weights=weights))
    scores = {m.id: m.score for m in retrieval.result.memories}
    assert scores == {"newest": pytest.approx(1.0), "older": pytest.approx(0.5)}
    anchored = decide(
        candidates, replace(QUERY, now=old + timedelta(days=30)), RetrievalPolicy(weights=weights)
    )
    assert {m.id: m.score for m in anchored.result.memories}["newest"] == pytest.approx(0.5)


# ---- ledger completeness, as a property ------------------------------------------------------

SCOPES = ["acme", "acme/ana", "acme/ana/conv", "acme/bob", "other"]
unit = st.floats(min_value=0.0, max_value=1.0)


@st.composite
def candidates(draw: st.DrawFn) -> Candidate:
    kind = draw(st.sampled_from(["chunk", "entity", "concept"]))
    layer = draw(st.sampled_from([None, "episodic", "semantic", "profile", "concept"]))
    return make_candidate(
        draw(st.sampled_from([f"n{i}" for i in range(8)])),
        kind=kind,
        layer=layer,
        scope=draw(st.sampled_from(SCOPES)),
        similarity=draw(st.one_of(st.none(), unit)),
        lexical=draw(unit),
        salience=draw(unit) if kind != "chunk" else None,
        timestamp=NOW - timedelta(days=draw(st.integers(0, 400))),
    )


@st.composite
def policies(draw: st.DrawFn) -> RetrievalPolicy:
    layers = draw(st.frozensets(st.sampled_from(list(MemoryLayer))))
    return RetrievalPolicy(
        enabled_layers=layers,
        min_relevance=draw(unit),
        min_salience=draw(unit),
        profile_slots=draw(st.integers(0, 3)),
        blend=ScopeBlend(decay=draw(st.floats(0.1, 1.0)), max_levels=draw(st.integers(0, 3))),
        activation=ActivationParams(
            hops=draw(st.integers(0, 3)),
            threshold=draw(st.floats(0.0, 0.2)),
            node_budget=draw(st.integers(1, 12)),
            max_found=draw(st.integers(0, 4)),
        ),
    )


def graph() -> Subgraph:
    entities = {f"n{i}": Entity(f"n{i}", f"N{i}", "thing", scope="acme/ana") for i in range(12)}
    relations = tuple(
        Relation(f"r{i}-{j}", f"n{i}", f"n{j}", "LINKS")
        for i in range(12)
        for j in (i + 1, i + 3)
        if j < 12
    )
    return Subgraph(entities=entities, relations=relations)


SUBGRAPH = graph()


def identity(
    kind: str, id_: str, source: str, layer: MemoryLayer | None, scope: str
) -> tuple[object, ...]:
    return (kind, id_, source, layer, scope)


@settings(max_examples=150, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(candidates(), max_size=25), policies(), st.integers(0, 4), st.integers(0, 6))
def test_every_candidate_is_kept_or_in_the_ledger_exactly_once(
    items: list[Candidate], policy: RetrievalPolicy, k: int, max_entities: int
) -> None:
    query = MemoryQuery(
        "q", scope="acme/ana", k={layer: k for layer in MemoryLayer}, max_entities=max_entities
    )
    retrieval = decide(items, query, policy, SUBGRAPH)
    result = retrieval.result
    out = Counter(
        identity(m.candidate.kind.value, m.id, m.source.value, m.layer, m.candidate.scope)
        for m in result.memories
    ) + Counter(
        identity(e.kind, e.id, e.source, e.layer, e.scope)
        for e in result.dropped
        if e.kind != "none"
    )
    expected = Counter(
        identity(c.kind.value, c.id, c.source.value, c.layer, c.scope) for c in items
    )
    from_inputs = Counter({key: n for key, n in out.items() if key[2] != "activation"})
    assert from_inputs == expected
    found = sum(n for key, n in out.items() if key[2] == "activation")
    assert found == result.sources["activation"]
    # Kept memories respect every cap, and scores stay in the documented range.
    assert sum(1 for m in result.memories if m.candidate.kind is not CandidateKind.CHUNK) <= (
        max_entities
    )
    for memory in result.memories:
        assert 0.0 <= memory.score <= 1.0 + 1e-12
        assert memory.score == pytest.approx(sum(memory.breakdown.to_dict().values()))
        if memory.source is not Source.ACTIVATION:
            assert memory.score >= policy.min_relevance - 1e-12
    for entry in result.dropped:
        if entry.gate == "relevance":
            assert entry.value is not None and entry.value < policy.min_relevance


def test_near_misses_order_by_how_little_they_missed() -> None:
    def entry(gate: str, value: float | None, threshold: float | None) -> Dropped:
        return Dropped("x", "chunk", "x", gate, value, threshold, None, "", "vector", "")

    ledger = [
        entry("relevance", 0.1, 0.5),
        entry("relevance", 0.45, 0.5),
        entry("layer", None, None),
        entry("salience", 0.29, 0.3),
    ]
    assert [e.value for e in near_misses(ledger)] == [0.29, 0.45, 0.1]
    assert len(near_misses(ledger, 1)) == 1
