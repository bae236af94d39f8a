"""A query's answer in one scope does not move when a sibling scope is imported (real stores).

Scope blending searches an ancestor's subtree too, and that subtree holds the sibling branches;
their memories are ledgered by the scope gate, and must leave the scores of the query's own
memories as they were: the lexical scores are relative to the best hit within reach, and each
memory of the query's own scope is scored against its own scope's index.
"""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

from explorer.compose import open_memory
from explorer.core.policy import preset
from explorer.core.scour import ScourRequest, ScourResult
from explorer.ingest.pipeline import ingest_turns
from explorer.settings import Settings
from tests.turns import chat_turns

OURS = "friends/ana"
SIBLING = "friends/bob"
START = datetime(2026, 5, 1, 9, tzinfo=UTC)
OUR_LINES = [
    ("Ana", "We booked the Lisbon trip for May, flights are sorted."),
    ("Marta", "Lovely! Lisbon in May is perfect, say hi to the river for me."),
    ("Ana", "I still need a hotel near Alfama, any ideas?"),
    ("Marta", "My friend Rui runs a guesthouse there, ask him."),
]
SIBLING_LINES = [
    ("Bob", "Lisbon trip! Lisbon trip! The Lisbon trip is on."),
    ("Carl", "Lisbon trip planning: Lisbon trip budget for the Lisbon trip."),
]


def _scores(result: ScourResult) -> list[tuple[str, float]]:
    return [(m.candidate.id, round(m.score, 12)) for m in (*result.chunks, *result.entities)]


async def test_importing_a_sibling_scope_leaves_our_answer_as_it_was(tmp_path: Path) -> None:
    settings = Settings(data_dir=tmp_path / "data", load_demo=False)
    request = ScourRequest(query="Lisbon trip hotel", scope=OURS, n_chunks=4, kg_top_k=5)
    policy = preset("full")
    async with open_memory(settings) as memory:
        assert (await ingest_turns(memory, chat_turns(OURS, "ana-chat", OUR_LINES, START))).ok
        await memory.settle()
        before = await memory.scour(request, policy)
        assert (
            await ingest_turns(memory, chat_turns(SIBLING, "bob-chat", SIBLING_LINES, START))
        ).ok
        await memory.settle()
        after = await memory.scour(request, policy)
    assert before.chunks and _scores(after) == _scores(before)
    ledgered = {entry.scope for entry in after.retrieval.result.dropped if entry.gate == "scope"}
    assert SIBLING in ledgered  # found under the ancestor, dropped by the gate, on the record
