"""The LoCoMo evaluation's bookkeeping: evidence parsing, recall@k, turn mapping, JSON shape."""

from __future__ import annotations

import json
from dataclasses import replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from explorer.core.errors import InvalidArgument
from explorer.core.lexical import LexicalIndex, tokens
from explorer.core.models import Chunk
from explorer.core.policy import RetrievalPolicy, preset
from explorer.core.scour import ScourRequest, ScourResult
from explorer.core.text import stem
from explorer.eval.locomo import (
    RecallTally,
    evaluate_locomo,
    expected_chunks,
    format_table,
    parse_evidence,
    read_questions,
    recall_at,
)

FIXTURE = Path(__file__).parent.parent / "fixtures" / "eval" / "benchmark-tiny.json"
NOW = datetime(2024, 3, 3, 9, 15, tzinfo=UTC)


def test_evidence_entries_are_split_on_semicolons_stripped_and_deduplicated() -> None:
    assert parse_evidence(["D8:6; D9:17", " D1:2 ", "D8:6", ""]) == ("D8:6", "D9:17", "D1:2")
    assert parse_evidence("D3:1;D3:2") == ("D3:1", "D3:2")
    assert parse_evidence([None, 4, "D1:1"]) == ("D1:1",)
    assert parse_evidence(None) == ()


def test_recall_is_the_share_of_evidence_in_the_first_k_turns() -> None:
    ranked = ["D1:1", "D1:2", "D2:1", "D2:2"]
    assert recall_at(ranked, ["D1:2", "D2:2"], 2) == 0.5
    assert recall_at(ranked, ["D1:2", "D2:2"], 4) == 1.0
    assert recall_at(ranked, ["D9:9"], 4) == 0.0
    assert recall_at(ranked, [], 4) == 0.0


def test_tally_averages_over_questions_overall_and_per_category() -> None:
    tally = RecallTally((1, 2))
    tally.add(1, ["a", "b"], ["b"])  # @1: 0, @2: 1
    tally.add(4, ["a", "b"], ["a", "c"])  # @1: 0.5, @2: 0.5
    body = tally.to_dict()
    assert body == {
        "questions": 2,
        "recall": {"1": 0.25, "2": 0.75},
        "recall_by_category": {"1": {"1": 0.0, "2": 1.0}, "4": {"1": 0.5, "2": 0.5}},
    }


def test_the_fixture_reads_categories_one_to_four_with_parsed_evidence() -> None:
    conversations = read_questions(FIXTURE)
    assert [c.scope for c in conversations] == ["locomo/tiny-1", "locomo/tiny-2"]
    first = conversations[0].questions
    assert [q.category for q in first] == [4, 2, 1, 3]  # category 5 left out
    assert first[2].evidence == ("D1:3", "D2:2")  # "D1:3; D2:2" is two turns
    assert conversations[1].questions[1].evidence == ("D1:3", "D1:1")
    assert expected_chunks(FIXTURE) == {"locomo/tiny-1": 7, "locomo/tiny-2": 3}


def test_a_file_that_is_not_a_list_is_refused(tmp_path: Path) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text('{"sample_id": "x"}', encoding="utf-8")
    with pytest.raises(InvalidArgument, match="list of LoCoMo conversations"):
        read_questions(bad)


def _chunk(turn_id: str, text: str, speaker: str, position: int, offset: int = 0) -> Chunk:
    return Chunk(
        id=f"{turn_id}@{offset}",
        text=text,
        conversation_id="c",
        position=position,
        speaker=speaker,
        timestamp=NOW,
        scope="locomo/tiny-1",
        turn_id=turn_id,
        turn_offset=offset,
    )


class ScriptedMemory:
    """Answers every scour with the fixture's turns in a fixed order: D1:3 split in two chunks."""

    chunks = None

    def __init__(self) -> None:
        self.requests: list[ScourRequest] = []
        self.index = LexicalIndex(
            [
                _chunk("D1:3", "Her name is Pepper", "Ana", 0),
                _chunk("D1:3", "and she loves long walks.", "Ana", 1, offset=19),
                _chunk("D2:2", "Pepper and I started agility classes.", "Ana", 2),
                _chunk("D2:1", "The sailboat finally floats!", "Ben", 3),
            ]
        )

    async def scour(self, request: ScourRequest, policy: RetrievalPolicy | None = None) -> Any:
        from explorer.core.candidates import Source
        from explorer.core.coordinator import decide
        from explorer.core.models import ChunkHit
        from explorer.core.sources import _chunk_candidate

        self.requests.append(request)
        hits = [
            ChunkHit(chunk=chunk, lexical=1.0 - 0.1 * position)
            for position, chunk in enumerate(self.index.chunks)
        ]
        candidates = [_chunk_candidate(hit, Source.LEXICAL, 1.0) for hit in hits]
        assert policy is not None
        return ScourResult(request, decide(candidates, request.memory_query(), policy))


@pytest.fixture
def ingested(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every conversation counts as ingested already (the scripted memory holds them)."""

    async def nothing_missing(memory: object, path: object, progress: object = None) -> list[str]:
        return []

    monkeypatch.setattr("explorer.eval.locomo.ensure_ingested", nothing_missing)


@pytest.mark.usefixtures("ingested")
async def test_evaluate_counts_each_turn_once_and_keeps_the_json_shape() -> None:
    memory = ScriptedMemory()
    results = await evaluate_locomo(memory, FIXTURE, ks=(1, 2), configs=("lexical",))
    assert set(results) == {"lexical"}
    body = results["lexical"]
    assert body["questions"] == 6
    assert set(body["recall"]) == {"1", "2"}
    assert set(body["recall_by_category"]) == {"1", "2", "3", "4"}
    for per_k in [body["recall"], *body["recall_by_category"].values()]:
        assert all(0.0 <= value <= 1.0 for value in per_k.values())
    # Two chunks are asked for (the largest k) and both are D1:3's, so the turn list is just
    # D1:3: "What does Ana do..." (D1:3, D2:2) scores 1/2. tiny-2's question gets nothing, as
    # every scripted chunk lies in tiny-1's scope and the query is restricted to tiny-2's.
    assert body["recall_by_category"]["1"]["2"] == pytest.approx((0.5 + 0.0) / 2)
    assert body["recall_by_category"]["4"]["1"] == pytest.approx((1.0 + 0.0) / 2)
    assert all(r.scope.startswith("locomo/") and r.n_chunks == 2 for r in memory.requests)
    assert json.loads(json.dumps(results)) == results


@pytest.mark.usefixtures("ingested")
async def test_a_configuration_may_name_a_preset_from_a_preset_file() -> None:
    asked: list[RetrievalPolicy | None] = []
    memory = ScriptedMemory()
    scour = memory.scour

    async def recorded(request: ScourRequest, policy: RetrievalPolicy | None = None) -> Any:
        asked.append(policy)
        return await scour(request, policy)

    memory.scour = recorded  # type: ignore[method-assign]
    mine = replace(preset("full"), min_relevance=0.05)
    results = await evaluate_locomo(
        memory, FIXTURE, ks=(1,), configs=("mine", "lexical"), presets={"mine": mine}
    )
    assert set(results) == {"mine", "lexical"}
    assert mine in asked and preset("lexical") in asked


async def test_unknown_configurations_and_bad_k_are_refused() -> None:
    memory = ScriptedMemory()
    with pytest.raises(InvalidArgument, match="unknown evaluation configuration"):
        await evaluate_locomo(memory, FIXTURE, configs=("nonsense",))
    with pytest.raises(InvalidArgument, match="positive integers"):
        await evaluate_locomo(memory, FIXTURE, ks=(0, 5))


def test_table_prints_our_rows_and_the_published_reference() -> None:
    results = {
        "full": {
            "questions": 3,
            "recall": {"5": 0.6, "10": 0.7},
            "recall_by_category": {"1": {"5": 0.4, "10": 0.5}},
        }
    }
    table = format_table(results)
    lines = table.splitlines()
    assert lines[0].startswith("| config | questions | R@5 | R@10 |")
    assert "| full | 3 | 60.0 | 70.0 | 40.0 | 50.0 |" in table
    assert lines[-1].startswith("| DRAGON") and "56.7" in lines[-1] and "46.6" in lines[-1]


def test_tokens_drop_stop_words_and_stem_lightly() -> None:
    assert tokens("What did Ana's greyhounds paint?") == ["ana", "greyhound", "paint"]
    assert stem("painting") == "paint" and stem("painted") == "paint" and stem("is") == "is"


def test_context_lifts_the_neighbour_of_a_match_within_its_session_only() -> None:
    later = datetime(2024, 4, 17, 18, 40, tzinfo=UTC)
    chunks = [
        _chunk("D1:1", "Did you ever find a name for the puppy?", "Ben", 0),
        _chunk("D1:2", "Yes, we call her Pepper.", "Ana", 1),
        Chunk(
            id="D2:1@0",
            text="Lovely weather today.",
            conversation_id="c",
            position=2,
            speaker="Ana",
            timestamp=later,
            scope="locomo/tiny-1",
            turn_id="D2:1",
        ),
    ]
    index = LexicalIndex(chunks)
    ranked = index.search("What is the name of the puppy?", 10)
    assert [chunk.turn_id for chunk, _ in ranked] == ["D1:1", "D1:2"]
    assert ranked[0][1] == 1.0 and 0.0 < ranked[1][1] < 1.0
