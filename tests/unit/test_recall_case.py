"""Recall cases: one canonical JSON file that re-opens byte for byte and decides again offline."""

from __future__ import annotations

import asyncio
import json
from dataclasses import replace
from pathlib import Path

import pytest

from explorer.core.asked import GraphAnswer
from explorer.core.coordinator import answers_change
from explorer.core.errors import InvalidArgument
from explorer.core.models import Entity
from explorer.core.policy import DEFAULT_POLICY, ActivationParams, policy_to_dict
from explorer.core.recall_case import (
    CaseDiff,
    RecallCase,
    case_text,
    diff_results,
    dropped_from_json,
    gathered_from_json,
    gathered_to_json,
    load_case,
    save_case,
)
from explorer.core.scour import ScourRequest, ScourResult, scour
from explorer.testing import sample_memory

QUERY = "Where does Marta live in Lisbon?"


def _answer(policy=DEFAULT_POLICY, query: str = QUERY) -> ScourResult:  # type: ignore[no-untyped-def]
    embedder, chunks, graph, concepts = sample_memory()
    request = ScourRequest(query=query, n_chunks=3, kg_top_k=3, scope="acme/ana")
    return asyncio.run(
        scour(
            request,
            graph=graph,
            chunks=chunks,
            concepts=concepts,
            embedder=embedder,
            policy=policy,
        )
    )


@pytest.fixture(scope="module")
def answer() -> ScourResult:
    return _answer(replace(DEFAULT_POLICY, activation=ActivationParams(hops=2, threshold=0.001)))


def test_save_open_save_is_byte_for_byte(answer: ScourResult, tmp_path: Path) -> None:
    case = RecallCase.capture(answer, title="Marta")
    first = tmp_path / "one.json"
    second = tmp_path / "two.json"
    save_case(first, case)
    opened = load_case(first)
    save_case(second, opened)
    assert first.read_bytes() == second.read_bytes()
    assert opened == case
    assert opened.result == json.loads(json.dumps(answer.to_json_dict()))


def test_file_is_canonical_sorted_json(answer: ScourResult) -> None:
    text = case_text(RecallCase.capture(answer))
    data = json.loads(text)
    assert text == json.dumps(data, indent=2, sort_keys=True, ensure_ascii=False) + "\n"
    assert data["format"] == "scour-recall-case"
    assert data["policy"] == policy_to_dict(answer.retrieval.policy or DEFAULT_POLICY)


def test_gathered_round_trips_to_equal_objects(answer: ScourResult) -> None:
    gathered = answer.retrieval.gathered
    assert gathered is not None and gathered.candidates
    back = gathered_from_json(json.loads(json.dumps(gathered_to_json(gathered))))
    assert back.candidates == gathered.candidates
    assert back.query == gathered.query
    assert back.refused == gathered.refused
    assert back.associations is not None and gathered.associations is not None
    assert back.associations.subgraph.entities == gathered.associations.subgraph.entities
    assert back.associations.subgraph.relations == gathered.associations.subgraph.relations


def test_the_graphs_answers_round_trip_and_an_older_case_has_none(answer: ScourResult) -> None:
    gathered = answer.retrieval.gathered
    assert gathered is not None
    answered = replace(
        gathered, answers=(GraphAnswer("Marta", "LIVES_IN", "Alfama", "r9"),), answered=True
    )
    data = json.loads(json.dumps(gathered_to_json(answered)))
    back = gathered_from_json(data)
    assert (back.answers, back.answered) == (answered.answers, True)
    del data["answers"], data["answered"]  # as a case saved before answers were looked for
    older = gathered_from_json(data)
    assert (older.answers, older.answered) == (None, False)
    assert not answers_change(older, DEFAULT_POLICY)  # decided as saved, never re-asked


def test_reopened_case_decides_exactly_as_the_live_answer(
    answer: ScourResult, tmp_path: Path
) -> None:
    path = tmp_path / "case.json"
    save_case(path, RecallCase.capture(answer))
    case = load_case(path)
    assert case.can_decide
    again = case.scour_result()
    fresh, saved = again.to_json_dict(), case.result
    for key in ("kg_entities", "chunks", "dropped", "activation", "sources", "layers"):
        assert fresh[key] == saved[key], key
    stricter = replace(DEFAULT_POLICY, min_relevance=0.4)
    assert (
        case.scour_result(stricter).to_json_dict()["dropped"]
        == (answer.decide(stricter).to_json_dict()["dropped"])
    )


def test_case_without_candidates_is_read_only(answer: ScourResult, tmp_path: Path) -> None:
    case = replace(RecallCase.capture(answer), gathered=None)
    path = tmp_path / "bare.json"
    save_case(path, case)
    opened = load_case(path)
    assert not opened.can_decide
    assert opened.result == case.result
    with pytest.raises(InvalidArgument, match="read-only"):
        opened.retrieval()


def test_load_refuses_other_files(tmp_path: Path) -> None:
    path = tmp_path / "x.json"
    path.write_text('{"presets": {}}', encoding="utf-8")
    with pytest.raises(InvalidArgument, match="not a recall case"):
        load_case(path)
    path.write_text("{", encoding="utf-8")
    with pytest.raises(InvalidArgument, match="not valid JSON"):
        load_case(path)


def test_a_case_keeps_the_full_records_read_for_its_answer(
    answer: ScourResult, tmp_path: Path
) -> None:
    # Candidates found by activation or answered from the graph's shape carry lean records; the
    # answer shows the full ones it read afterwards, and so must the case opened later.
    shown = answer.entities[0].candidate.record
    assert isinstance(shown, Entity)
    full = replace(shown, description="the full record", aliases=("Another name",))
    answer = replace(answer, records={full.id: full})
    assert answer.to_json_dict()["kg_entities"][0]["description"] == "the full record"
    path = tmp_path / "case.json"
    save_case(path, RecallCase.capture(answer))
    reopened = load_case(path).scour_result()
    assert reopened.records == answer.records
    assert reopened.to_json_dict()["kg_entities"] == answer.to_json_dict()["kg_entities"]
    broken = json.loads(path.read_text(encoding="utf-8"))
    broken["records"] = ["not an entity"]
    path.write_text(json.dumps(broken), encoding="utf-8")
    with pytest.raises(InvalidArgument, match="'records' must be a list"):
        load_case(path)


def test_dropped_from_json_matches_the_ledger(answer: ScourResult) -> None:
    body = json.loads(json.dumps(answer.to_json_dict()))
    assert dropped_from_json(body["dropped"]) == list(answer.retrieval.result.dropped)


def test_diff_of_identical_results_is_empty(answer: ScourResult) -> None:
    body = answer.to_json_dict()
    diff = diff_results(body, body)
    assert diff.same and diff.unchanged == body["kg_count"] + body["chunk_count"]


def test_diff_lists_entered_left_and_moved() -> None:
    def result(entities: list[tuple[str, float]], chunks: list[tuple[str, float]]) -> dict:  # type: ignore[type-arg]
        return {
            "kg_entities": [{"id": i, "name": i.upper(), "score": s} for i, s in entities],
            "chunks": [{"id": i, "text": i, "score": s} for i, s in chunks],
        }

    old = result([("a", 0.9), ("b", 0.8), ("c", 0.7)], [("x", 0.5)])
    new = result([("b", 0.95), ("a", 0.9), ("d", 0.6)], [("x", 0.5)])
    diff = diff_results(old, new)
    assert isinstance(diff, CaseDiff)
    assert [(h.kind, h.id, h.rank) for h in diff.entered] == [("entity", "d", 3)]
    assert [(h.kind, h.id, h.rank) for h in diff.left] == [("entity", "c", 3)]
    assert sorted((m.id, m.old_rank, m.new_rank, m.old_score, m.new_score) for m in diff.moved) == [
        ("a", 1, 2, 0.9, 0.9),
        ("b", 2, 1, 0.8, 0.95),
    ]
    assert diff.unchanged == 1
    assert "1 entered, 1 left, 2 moved" in diff.summary()


def test_diff_between_two_policies_shows_what_a_floor_removed(answer: ScourResult) -> None:
    strict = answer.decide(replace(DEFAULT_POLICY, min_relevance=0.45))
    diff = diff_results(answer.to_json_dict(), strict.to_json_dict())
    kept = {(h.kind, h.id) for h in diff.left}
    dropped = {
        ("entity" if d["kind"] != "chunk" else "chunk", d["id"])
        for d in strict.to_json_dict()["dropped"]
    }
    assert kept and kept <= dropped
    assert not diff.entered
