"""The ingest pipeline over in-memory stores: idempotence, strictness, crashes and resumes."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from explorer.core.errors import ImportFormatError, StoreUnavailable, WriteFailed
from explorer.ingest import pipeline
from explorer.ingest.chunking import chunk_turns
from explorer.ingest.demo import after_forget, before_forget, demo_turns, load_demo
from explorer.ingest.pipeline import Stores, ingest_file, ingest_turns, memory_stats, reconcile
from explorer.ingest.progress import CliProgressBar, Progress
from explorer.testing import FakeEmbedder
from tests.unit.ingest_fakes import (
    Crash,
    CrashPlan,
    IngestChunkStore,
    IngestGraphStore,
    make_stores,
)

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "ingest"
SOURCES = [(FIXTURES / "benchmark_small.json", "locomo"), (FIXTURES / "messages.jsonl", "jsonl")]


def embedder() -> FakeEmbedder:
    return FakeEmbedder(dimension=4096)  # wide enough that distinct names never collide


def snapshot(stores: Stores) -> dict[str, object]:
    chunks = stores.chunks
    graph = stores.graph
    assert isinstance(chunks, IngestChunkStore) and isinstance(graph, IngestGraphStore)
    return {
        "chunks": sorted(chunks.rows),
        "pending": sorted(i for i, state in chunks.state.items() if state == "pending"),
        "entities": {
            entity.id: (entity.name, sorted((m.chunk_id, m.start, m.end) for m in entity.mentions))
            for entity in graph.entities.values()
        },
        "relations": {
            relation.id: sorted((m.chunk_id, m.start, m.end) for m in relation.mentions)
            for relation in graph.relations.values()
        },
        "concepts": {
            agent: sorted(names) for (agent, _), names in stores.concepts._records.items()
        },
    }


async def import_all(stores: Stores) -> list[pipeline.IngestReport]:
    return [await ingest_file(stores, path, fmt) for path, fmt in SOURCES]


@pytest.fixture
def small_batches(monkeypatch: pytest.MonkeyPatch) -> None:
    """Tiny batches, so a crash can land between many more writes."""
    monkeypatch.setattr(pipeline, "WRITE_BATCH", 3)
    monkeypatch.setattr(pipeline, "ENTITY_BATCH", 5)
    monkeypatch.setattr(pipeline, "RELATION_BATCH", 7)
    monkeypatch.setattr(pipeline, "CONCEPT_BATCH", 4)


async def test_an_import_writes_chunks_graph_and_concepts_and_marks_them_done() -> None:
    stores = make_stores(embedder=embedder())
    report = await ingest_file(stores, FIXTURES / "benchmark_small.json", "locomo", scope="lab")
    state = snapshot(stores)
    assert report.turns == 9 and report.chunks == 9 and report.chunks_new == 9
    assert report.scopes == ["lab/locomo/trail-1", "lab/locomo/trail-2"]
    assert state["pending"] == []
    assert report.entities == len(state["entities"]) > 5  # type: ignore[arg-type]
    assert report.relations == len(state["relations"]) > 5  # type: ignore[arg-type]
    assert set(state["concepts"]) == set(report.scopes)  # type: ignore[call-overload]
    assert report.ok and "9 turns → 9 chunks" in report.summary()


async def test_importing_the_same_file_twice_adds_nothing() -> None:
    stores = make_stores(embedder=embedder())
    await import_all(stores)
    first = snapshot(stores)
    upserts = stores.chunks.upserts
    again = await import_all(stores)
    assert snapshot(stores) == first
    assert stores.chunks.upserts == upserts
    assert all(report.chunks_new == 0 and report.conversations_unchanged for report in again)


async def test_reextract_rewrites_the_graph_to_the_same_state() -> None:
    stores = make_stores(embedder=embedder())
    await import_all(stores)
    first = snapshot(stores)
    await ingest_file(stores, *SOURCES[0], reextract=True)
    assert snapshot(stores) == first


async def test_strict_import_of_a_bad_file_writes_nothing() -> None:
    stores = make_stores(embedder=embedder())
    with pytest.raises(ImportFormatError, match=r"messages_bad\.jsonl: line 2"):
        await ingest_file(stores, FIXTURES / "messages_bad.jsonl", "jsonl")
    assert stores.chunks.upserts == 0
    assert snapshot(stores)["entities"] == {}


async def test_skip_bad_imports_the_rest_and_reports_the_bad() -> None:
    stores = make_stores(embedder=embedder())
    report = await ingest_file(stores, FIXTURES / "messages_bad.jsonl", "jsonl", skip_bad=True)
    assert report.chunks == 2 and report.bad_count == 7 and not report.ok
    assert "line 6: text contains a NUL character" in report.summary()


async def test_a_crash_at_any_write_resumes_to_the_clean_result(small_batches: None) -> None:
    clean = make_stores(embedder=embedder())
    await import_all(clean)
    expected = snapshot(clean)
    total_calls = clean.chunks.plan.calls
    assert total_calls > 15
    for crash_at in range(1, total_calls + 1):
        plan = CrashPlan(at=crash_at)
        stores = make_stores(plan, embedder=embedder())
        with pytest.raises(Crash):
            await import_all(stores)
        plan.at = None
        await import_all(stores)
        assert snapshot(stores) == expected, f"crash at call {crash_at}"


async def test_reconcile_alone_finishes_what_a_crash_left_pending(small_batches: None) -> None:
    clean = make_stores(embedder=embedder())
    await ingest_file(clean, *SOURCES[0])
    # Crash at the first mark_done: every chunk and the graph written, all chunks still pending.
    plan = CrashPlan(at=clean.chunks.plan.log.index("chunks.mark_done") + 1)
    stores = make_stores(plan, embedder=embedder())
    with pytest.raises(Crash):
        await ingest_file(stores, *SOURCES[0])
    assert snapshot(stores)["pending"]
    plan.at = None
    finished = await reconcile(stores)
    assert finished > 0
    assert snapshot(stores) == snapshot(clean)


async def test_a_failed_graph_write_is_raised_and_leaves_the_chunks_pending() -> None:
    stores = make_stores(embedder=embedder())

    async def refuse(*args: object, **kwargs: object) -> None:
        raise WriteFailed("the graph did not acknowledge the write")

    stores.graph.upsert = refuse
    with pytest.raises(WriteFailed, match="did not acknowledge"):
        await ingest_file(stores, *SOURCES[1])
    state = snapshot(stores)
    assert state["chunks"] and state["pending"] == state["chunks"]


async def test_a_missing_store_is_reported_before_anything_is_read() -> None:
    stores = make_stores(embedder=embedder())
    stores.graph = None
    stores.errors["graph"] = "connection refused"
    with pytest.raises(
        StoreUnavailable, match=r"graph store is unavailable \(connection refused\)"
    ):
        await ingest_file(stores, *SOURCES[1])


async def test_progress_reports_every_phase_to_completion() -> None:
    seen: list[Progress] = []
    stores = make_stores(embedder=embedder())
    await ingest_file(stores, *SOURCES[0], progress=seen.append)
    finished = [p.phase for p in seen if p.finished and p.total]
    for phase in ("chunks", "extract", "graph", "concepts", "done"):
        assert phase in finished
    assert all(p.done <= p.total and p.rate >= 0 for p in seen)


def test_the_cli_bar_prints_one_line_per_finished_phase_off_a_terminal() -> None:
    import io

    stream = io.StringIO()
    bar = CliProgressBar(stream)
    for done in (0, 5, 10, 10):
        bar(Progress("graph", done, 10, 100.0, 0.1))
    assert stream.getvalue() == f"graph     [{'#' * 28}] 10/10 100/s 0.1s\n"


async def test_stats_gather_counts_by_type_scope_layer_and_the_embedder() -> None:
    stores = make_stores(embedder=embedder())
    await import_all(stores)
    figures = await memory_stats(stores)
    assert figures["chunks"] == 14
    assert figures["pending"] == 0
    assert figures["embedder"] == {"model": "fake-hash", "dimension": 4096}
    by_scope = figures["chunks_by_scope"]
    assert by_scope == {"acme/helper/rosa": 5, "locomo/trail-1": 7, "locomo/trail-2": 2}
    assert figures["concepts"] == sum(figures["concepts_by_scope"].values()) > 0  # type: ignore[attr-defined]
    assert figures["entities_by_type"]["person"] >= 4  # type: ignore[index]


async def test_stats_of_a_store_that_did_not_answer_are_unknown_not_zero() -> None:
    from dataclasses import replace

    from explorer.ingest.stats import answered
    from explorer.tools import CORE_MEMORY, ToolContext, execute_tool

    stores = make_stores(embedder=embedder())
    await import_all(stores)
    graph_down = replace(stores, graph=None)
    figures = await memory_stats(graph_down)
    assert figures["chunks"] == 14 and answered(figures)
    assert figures["entities"] is None and figures["entities_by_type"] is None
    assert figures["by_layer"] == {
        "episodic": 14,
        "semantic": None,
        "profile": None,
        "concept": figures["concepts"],
    }
    both_down = replace(stores, graph=None, chunks=None, concepts=None)
    assert not answered(await memory_stats(both_down))
    ctx = ToolContext(user_id="t", privileges=CORE_MEMORY, memory=both_down)
    reply = json.loads(await execute_tool("memory_stats", {}, ctx))
    assert reply["success"] is False and "neither store answered" in reply["error"]
    partial = json.loads(await execute_tool("memory_stats", {}, replace(ctx, memory=graph_down)))
    assert partial["success"] is True and partial["entities"] is None and partial["chunks"] == 14


async def test_the_demo_loads_once_and_again_on_reset() -> None:
    turns = demo_turns()
    assert len(turns) >= 200
    # Narrow vectors keep this fast; stray merges from collisions do not matter to idempotence.
    stores = make_stores(embedder=FakeEmbedder(dimension=256))
    assert await load_demo(stores) is True
    first = snapshot(stores)
    assert await load_demo(stores) is False
    assert await load_demo(stores, reset=True) is True
    assert snapshot(stores) == first


async def test_a_demo_load_cut_short_is_finished_even_after_another_import(
    small_batches: None,
) -> None:
    demo = FakeEmbedder(dimension=256)
    clean = make_stores(embedder=demo)
    assert await load_demo(clean) is True
    # The load dies at its first chunk write: only its note says it began.
    first = clean.chunks.plan.log.index("chunks.upsert")
    plan = CrashPlan(at=first + 1)
    stores = make_stores(plan, embedder=demo)
    with pytest.raises(Crash):
        await load_demo(stores)
    assert not stores.chunks.rows
    plan.at = None
    # An import of the user's own file finishes the pending demo chunks first: none is pending.
    await ingest_file(stores, *SOURCES[1])
    assert not await stores.chunks.pending()
    assert await load_demo(stores) is True
    demo_ids = {chunk.id for chunk in chunk_turns(demo_turns())}
    assert demo_ids <= set(stores.chunks.rows)
    assert await load_demo(stores) is False  # loaded in full now


async def test_a_forgotten_demo_is_not_loaded_back() -> None:
    stores = make_stores(embedder=FakeEmbedder(dimension=256))
    assert await load_demo(stores) is True
    # Part of it forgotten: the rest stays, the part does not come back.
    tomas = [i for i, chunk in stores.chunks.rows.items() if chunk.scope.endswith("/tomas")]
    for chunk_id in tomas:
        del stores.chunks.rows[chunk_id]
    await before_forget(stores.chunks, "demo/assistant/tomas")
    assert await load_demo(stores) is False
    assert not set(tomas) & set(stores.chunks.rows)
    # Another memory, emptied of the user's own scope, stays empty too.
    own = make_stores(embedder=embedder())
    await ingest_file(own, *SOURCES[1])
    own.chunks.rows.clear()
    await before_forget(own.chunks, "imported")  # not the demo's: no note yet
    assert await load_demo(own) is True
    own.chunks.rows.clear()
    await after_forget(own.chunks)  # nothing of the demo left: noted
    assert await load_demo(own) is False and not own.chunks.rows
    assert await load_demo(own, reset=True) is True  # asked for by name, it comes back


async def test_a_memory_from_before_the_demo_mark_reads_as_it_did() -> None:
    whole = make_stores(embedder=FakeEmbedder(dimension=256))
    assert await load_demo(whole) is True
    whole.chunks.marks.clear()  # stored by a version that kept no marks
    assert await load_demo(whole) is False
    part = make_stores(embedder=FakeEmbedder(dimension=256))
    turns = demo_turns()
    await ingest_turns(part, turns[:30])  # a load of that version, cut short and reconciled
    assert await load_demo(part) is True
    assert len(part.chunks.rows) == len({chunk.id for chunk in chunk_turns(turns)})


async def test_the_demo_is_not_added_to_someone_elses_memory() -> None:
    stores = make_stores(embedder=embedder())
    await ingest_file(stores, *SOURCES[1])
    assert await load_demo(stores) is False


def test_an_import_summary_counts_in_words_that_agree() -> None:
    from explorer.ingest.pipeline import IngestReport

    report = IngestReport(path="big.jsonl", format="jsonl", turns=1, chunks=1, chunks_new=1)
    report.duplicates = 949
    first, skipped = report.summary().splitlines()
    assert "1 turn → 1 chunk (1 new), 0 entities, 0 relations, 0 concepts" in first
    assert skipped == "skipped 949 chunks whose text was already stored or earlier in the file"


async def test_a_file_imported_again_under_another_scope_is_called_a_second_copy() -> None:
    stores = make_stores(embedder=embedder())
    path, fmt = SOURCES[1]
    first = await ingest_file(stores, path, fmt, scope="messages")
    assert first.copies == {} and first.copies_looked_at > 0
    again = await ingest_file(stores, path, fmt, scope="messages")  # the same place: no copy
    assert again.copies == {}
    copy = await ingest_file(stores, path, fmt, scope="messages (1)")
    first_place = "messages/acme/helper/rosa"  # the file's records name scopes of their own
    assert copy.copies == {first_place: copy.copies_looked_at}
    said = f"were already stored under {first_place!r}: this is a second copy"
    assert said in copy.summary()
    assert copy.as_dict()["copies"] == {first_place: copy.copies_looked_at}


async def test_a_partial_copy_is_called_so_and_a_failed_lookup_loses_only_the_warning(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    report = pipeline.IngestReport(copies={"old": 3}, copies_looked_at=40)
    (note,) = report.copy_notes()
    assert note.startswith("3 of 40 messages looked at were already stored under 'old'")
    assert "part of this file is a second copy" in note
    stores = make_stores(embedder=embedder())

    async def down(said: object) -> dict[str, int]:
        raise StoreUnavailable("PostgreSQL is busy")

    monkeypatch.setattr(stores.chunks, "scopes_holding", down)
    imported = await ingest_file(stores, *SOURCES[1])
    assert imported.ok and imported.chunks_new > 0 and imported.copies == {}
