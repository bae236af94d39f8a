"""'Why not X?' answered from the retrieval in hand."""

from __future__ import annotations

from explorer.core.candidates import MemoryQuery
from explorer.core.coordinator import decide
from explorer.core.explain import DROPPED, NOT_A_CANDIDATE, OUTRANKED, PRUNED, RECALLED, why_not
from explorer.core.models import Entity, MemoryLayer, Relation, Subgraph
from explorer.core.policy import ActivationParams, RetrievalPolicy
from explorer.testing import make_candidate

QUERY = MemoryQuery("q", scope="acme", k={MemoryLayer.EPISODIC: 1, MemoryLayer.SEMANTIC: 2})


def test_each_verdict() -> None:
    candidates = [
        make_candidate("c1", similarity=0.9, scope="acme"),
        make_candidate("c2", similarity=0.8, scope="acme"),
        make_candidate("c3", similarity=0.05, scope="acme"),
        make_candidate("far", similarity=0.9, scope="other"),
    ]
    retrieval = decide(candidates, QUERY, RetrievalPolicy(min_relevance=0.1))
    (recalled,) = why_not(retrieval, "LABEL OF C1")
    assert recalled.verdict == RECALLED and "rank 1" in recalled.message
    (outranked,) = why_not(retrieval, "c2")
    assert outranked.verdict == OUTRANKED
    assert [m.id for m in outranked.outranked_by] == ["c1"]
    (weak,) = why_not(retrieval, "c3")
    assert weak.verdict == DROPPED and "relevance" in weak.message and "floor 0.100" in weak.message
    (far,) = why_not(retrieval, "far")
    assert far.verdict == DROPPED and "scope" in far.message
    (nothing,) = why_not(retrieval, "zebra")
    assert nothing.verdict == NOT_A_CANDIDATE and "routes asked" in nothing.message


def test_a_node_pruned_by_activation_is_explained() -> None:
    entities = {
        n: Entity(n, n.title(), "t", scope="acme") for n in ["hub", "alpha", "beta", "gamma"]
    }
    relations = tuple(Relation(f"r{n}", "hub", n, "R") for n in ["alpha", "beta", "gamma"])
    subgraph = Subgraph(entities, relations)
    policy = RetrievalPolicy(activation=ActivationParams(threshold=0.5))
    hub = make_candidate("hub", kind="entity", similarity=0.9, scope="acme")
    retrieval = decide([hub], QUERY, policy, subgraph)
    (answer,) = why_not(retrieval, "Beta")
    assert answer.verdict == PRUNED and "below the activation threshold" in answer.message


def test_why_not_ignores_accents_case_and_spacing() -> None:
    names = {"hub": "Hub", "jose": "José  Ruiz", "zoe": "ZOË"}
    entities = {n: Entity(n, name, "t", scope="acme") for n, name in names.items()}
    relations = (Relation("r1", "hub", "jose", "R"), Relation("r2", "hub", "zoe", "R"))
    policy = RetrievalPolicy(activation=ActivationParams(threshold=0.5))
    hub = make_candidate("hub", kind="entity", similarity=0.9, scope="acme")
    retrieval = decide([hub], QUERY, policy, Subgraph(entities, relations))
    for asked in ("jose ruiz", "JOSÉ RUIZ", " Jose   Ruiz "):
        (answer,) = why_not(retrieval, asked)
        assert answer.verdict == PRUNED and answer.id == "jose", asked
    (answer,) = why_not(retrieval, "zoe")
    assert answer.verdict == PRUNED and answer.label == "ZOË"
