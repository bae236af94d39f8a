"""The service's forget over the store fakes: order, a store failing part-way, refusals."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy.typing as npt
import pytest

from explorer.core.errors import MemoryBusy, ReadOnlyStore, StoreUnavailable, WriteFailed
from explorer.ingest.demo import DEMO_MARK, FORGOTTEN
from explorer.memory import StoreMemoryService
from explorer.settings import Settings
from explorer.testing.stores import sample_memory

SCOPE = "acme/ana"


class Snapshots:
    """Index snapshots that only count how often they were cleared."""

    def __init__(self) -> None:
        self.cleared = 0

    def load(self, kind: str, slot: str, key: str) -> Mapping[str, npt.NDArray[Any]] | None:
        return None

    def save(self, kind: str, slot: str, key: str, arrays: Mapping[str, npt.NDArray[Any]]) -> None:
        pass

    def clear(self) -> None:
        self.cleared += 1


def _memory(tmp_path: Path, **settings: Any) -> StoreMemoryService:
    embedder, chunks, graph, concepts = sample_memory()
    concepts.put(SCOPE, {"name": "Lisbon"})
    return StoreMemoryService(
        settings=Settings(data_dir=tmp_path, load_demo=False, **settings),
        embedder=embedder,
        connector=None,  # type: ignore[arg-type]  # every store is in hand: no connect
        graph=graph,
        chunks=chunks,
        concepts=concepts,
        snapshots=Snapshots(),
    )


async def test_a_store_failing_part_way_is_reported_and_a_second_forget_finishes(
    tmp_path: Path,
) -> None:
    memory = _memory(tmp_path)
    graph, chunks = memory.graph, memory.chunks
    assert graph is not None and chunks is not None
    chunk_count = len(chunks.chunks)  # type: ignore[attr-defined]
    chunks.fail = StoreUnavailable("PostgreSQL went away")  # type: ignore[attr-defined]
    with pytest.raises(WriteFailed, match=r"did not finish .*PostgreSQL went away.*again"):
        await memory.forget_scope(SCOPE)
    # The graph went first; the chunks are still there to be found and forgotten.
    assert f"scope:{SCOPE}" not in await graph.counts()
    assert len(chunks.chunks) == chunk_count  # type: ignore[attr-defined]
    chunks.fail = None  # type: ignore[attr-defined]
    again = await memory.forget_scope(SCOPE)
    assert (again.chunks, again.entities, again.concepts) == (chunk_count, 0, 0)
    assert f"scope:{SCOPE}" not in await chunks.counts()
    # Nothing of the demo is left (there was none): it is not loaded into the emptied memory.
    assert await chunks.read_mark(DEMO_MARK) == FORGOTTEN
    assert memory.snapshots.cleared == 2  # type: ignore[union-attr]


async def test_a_forget_is_refused_while_another_write_runs_or_on_a_read_only_memory(
    tmp_path: Path,
) -> None:
    memory = _memory(tmp_path)
    async with memory._writing:
        with pytest.raises(MemoryBusy, match="try again once it is done"):
            await memory.forget_scope(SCOPE)
    graphiti = _memory(tmp_path, graphiti_graph="their_graph")
    with pytest.raises(ReadOnlyStore, match="nothing is forgotten"):
        await graphiti.forget_scope(SCOPE)
    for refused in (memory, graphiti):
        assert refused.chunks is not None and not refused.chunks.called("forget_scope")  # type: ignore[attr-defined]
