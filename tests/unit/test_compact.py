"""scour's compact answer, built from the full one over in-memory fakes and from hand-made data."""

from __future__ import annotations

from typing import Any

from explorer.core.asked import asked_kinds
from explorer.core.compact import (
    COMPACT_FACTS,
    FACT_CHARS,
    compact_answer,
    compact_entity,
)
from explorer.core.policy import RetrievalPolicy
from explorer.core.scour import ScourRequest, scour
from explorer.testing import sample_memory


async def _full(**arguments: Any) -> dict[str, Any]:
    embedder, chunks, graph, concepts = sample_memory()
    request = ScourRequest(scope="acme/ana", **arguments)
    result = await scour(
        request,
        graph=graph,
        chunks=chunks,
        concepts=concepts,
        embedder=embedder,
        policy=RetrievalPolicy(),
    )
    return result.to_json_dict()


async def test_the_compact_answer_keeps_the_hits_and_drops_the_trace() -> None:
    full = await _full(query="Lisbon trip with Marta", n_chunks=3, kg_top_k=5, domain="travel")
    compact = compact_answer(full)
    assert set(compact) == {
        "success", "query", "kg_entities", "kg_count", "chunks", "chunk_count", "domain_filter",
    }  # fmt: skip
    assert compact["domain_filter"] == "travel"
    assert [e["id"] for e in compact["kg_entities"]] == [e["id"] for e in full["kg_entities"]]
    assert [c["id"] for c in compact["chunks"]] == [c["id"] for c in full["chunks"]]
    for chunk, source in zip(compact["chunks"], full["chunks"], strict=True):
        assert chunk["text"] == source["text"]  # verbatim, never cut
        assert chunk["speaker"] == source["speaker"]
        assert chunk["score"] == round(source["score"], 3)
    marta = next(e for e in compact["kg_entities"] if e["id"] == "marta")
    assert marta["provenance"][0].startswith("c2[")
    assert marta["facts"] and all(isinstance(fact, str) for fact in marta["facts"])


def _relation(kind: str, direction: str, other: str, fact: str, confidence: float) -> Any:
    return {
        "id": f"r-{other}-{kind}",
        "type": kind,
        "fact": fact,
        "direction": direction,
        "neighbour": {"id": other.lower(), "name": other, "type": "person"},
        "confidence": confidence,
        "valid_from": "2026-03-02T10:00:00+00:00",
        "valid_to": "2026-05-01T00:00:00+00:00" if other == "Old" else None,
    }


def test_facts_read_subject_relation_object_with_dates_strongest_first_once_each() -> None:
    long_fact = "word " * 100
    entity = {
        "id": "e1",
        "name": "Maya",
        "relationships": [
            _relation("KNOWS", "out", "Lena", "Maya knows Lena.", 0.5),
            _relation("FRIEND_OF", "in", "Rui", "Maya knows Lena.", 0.4),  # the same fact again
            _relation("WORKED_AT", "out", "Old", "Maya worked at Old.", 0.9),
            _relation("LIKES", "in", "Tom", long_fact, 0.6),
            _relation("VISITED", "out", "Porto", "Maya visited Porto.", 0.1),
        ],
        "provenance": [
            {"chunk_id": f"c{i}", "start": i, "end": i + 4, "timestamp": None} for i in range(9)
        ],
        "provenance_count": 9,
    }
    compact = compact_entity(entity)
    facts = compact["facts"]
    assert len(facts) == COMPACT_FACTS
    assert facts[0] == "Maya WORKED_AT Old (2026-03-02..2026-05-01): Maya worked at Old."
    assert facts[1].startswith("Tom LIKES Maya (2026-03-02): word")
    assert facts[1].endswith("…") and len(facts[1].split(": ", 1)[1]) <= FACT_CHARS
    assert facts[2] == "Maya KNOWS Lena (2026-03-02): Maya knows Lena."
    assert compact["provenance"][:2] == ["c0[0:4]", "c1[1:5]"]
    assert compact["provenance_count"] == 9


def test_the_kind_of_fact_a_question_asks_for_comes_first() -> None:
    relationships = [
        _relation("PARTNER_OF", "out", "Lena", "Jonas and Lena.", 0.9),
        _relation("OWNS", "out", "Biscuit", "Jonas owns Biscuit.", 0.8),
        _relation("VISITED", "out", "Madeira", "Jonas visited Madeira.", 0.7),
        _relation("WORKS_AT", "out", "Kestrel", "Jonas works at Kestrel.", 0.3),
    ]
    entity = {"id": "e1", "name": "Jonas", "relationships": relationships, "provenance": []}
    full = {"success": True, "query": "Where does Jonas work?", "kg_entities": [entity]}
    (answered,) = compact_answer(full)["kg_entities"]
    assert answered["facts"][0].startswith("Jonas WORKS_AT Kestrel")
    assert asked_kinds("Who is Jonas's dog?") == {"OWNS"}
    assert asked_kinds("Jonas") == frozenset()
    # Asked for nothing in particular: the strongest first, as before.
    assert compact_entity(entity)["facts"][0].startswith("Jonas PARTNER_OF Lena")


def test_weak_signals_are_never_given_as_facts() -> None:
    entity = {
        "id": "e1",
        "name": "Maya",
        "relationships": [
            _relation("CO_OCCURS", "out", "Tom", "Maya and Tom at the fair.", 0.9),
            _relation("MENTIONS", "in", "Ana", "Ana talked about Maya.", 0.8),
            _relation("HIRED", "out", "Declan", "Maya hired Declan.", 0.2),
        ],
        "provenance": [],
    }
    assert compact_entity(entity)["facts"] == ["Maya HIRED Declan (2026-03-02): Maya hired Declan."]


def test_a_failure_object_passes_through_unchanged() -> None:
    failure = {"success": False, "error": "permission denied", "query": "x"}
    assert compact_answer(failure) == failure


def test_half_errors_and_filters_are_kept() -> None:
    full = {
        "success": True,
        "query": "q",
        "kg_entities": [],
        "chunks": [],
        "kg_error": "graph: down",
        "temporal_filter": "2026-Q2",
        "unavailable": ["graph"],
        "dropped": [{"id": "x"}],
    }
    compact = compact_answer(full)
    assert compact["kg_error"] == "graph: down"
    assert compact["temporal_filter"] == "2026-Q2"
    assert compact["unavailable"] == ["graph"]
    assert "dropped" not in compact and compact["kg_count"] == 0
