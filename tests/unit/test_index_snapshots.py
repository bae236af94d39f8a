"""Search indexes kept between runs: the file snapshots themselves, and the BM25 index and the
concept scan loaded from them ranking exactly as the ones built from the records."""

from __future__ import annotations

import asyncio
import os
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from explorer.adapters.snapshots import FileSnapshots
from explorer.core.lexical import LexicalIndex, LexicalIndexCache, LexicalParams
from explorer.core.models import Chunk, Entity, Relation
from explorer.core.shape import GraphShape
from explorer.core.snapshot import pack_texts, unpack_texts
from explorer.core.termscan import TermScan
from tests.unit.test_lexical_index import _chunk as plain_chunk
from tests.unit.test_termscan_version import VersionedStore

WORDS = ("pepper", "puppy", "walks", "sailing", "boat", "painting", "paints", "the", "ünïcode")
DOMAINS = ("health", "home", "work")
START = datetime(2024, 1, 1, tzinfo=UTC)
NOW = datetime(2024, 6, 1, tzinfo=UTC)
AGENT = "acme/bot"


def _chunk(
    position: int, text: str, minutes: int, conversation: str, domains: tuple[str, ...]
) -> Chunk:
    return replace(plain_chunk(position, text, minutes, conversation), domains=domains)


def test_a_snapshot_round_trips_and_only_for_its_own_key(tmp_path: Path) -> None:
    snapshots = FileSnapshots(tmp_path)
    arrays = {"a": np.arange(5, dtype=np.int32), "b": np.array([0.5, 1.5])}
    snapshots.save("lexical", "scope", "v1", arrays)
    loaded = snapshots.load("lexical", "scope", "v1")
    assert loaded is not None and set(loaded) == {"a", "b"}
    assert loaded["a"].tolist() == [0, 1, 2, 3, 4] and loaded["b"].tolist() == [0.5, 1.5]
    assert snapshots.load("lexical", "scope", "v2") is None
    assert snapshots.load("lexical", "other scope", "v1") is None
    assert snapshots.load("concepts", "scope", "v1") is None


def test_a_newer_snapshot_replaces_its_slots_older_one(tmp_path: Path) -> None:
    snapshots = FileSnapshots(tmp_path)
    snapshots.save("lexical", "scope", "v1", {"a": np.arange(2)})
    snapshots.save("lexical", "scope", "v2", {"a": np.arange(3)})
    assert len(list(tmp_path.glob("lexical-*.npz"))) == 1
    assert snapshots.load("lexical", "scope", "v1") is None
    found = snapshots.load("lexical", "scope", "v2")
    assert found is not None and found["a"].tolist() == [0, 1, 2]


def test_a_damaged_snapshot_reads_as_missing_and_is_removed(tmp_path: Path) -> None:
    snapshots = FileSnapshots(tmp_path)
    snapshots.save("lexical", "s", "k", {"a": np.arange(3)})
    (saved,) = tmp_path.glob("lexical-*.npz")
    saved.write_bytes(saved.read_bytes()[:40])
    assert snapshots.load("lexical", "s", "k") is None
    assert not saved.exists()


def test_a_file_under_the_right_name_with_another_key_is_not_trusted(tmp_path: Path) -> None:
    snapshots = FileSnapshots(tmp_path)
    snapshots.save("lexical", "s1", "v7", {"a": np.arange(3)})
    (saved,) = tmp_path.glob("lexical-*.npz")
    other = FileSnapshots(tmp_path / "other")
    other.save("lexical", "s2", "v7", {"a": np.arange(9)})  # the same stamp, another scope
    (foreign,) = (tmp_path / "other").glob("lexical-*.npz")
    foreign.replace(saved)  # another slot's arrays where s1's should be
    assert snapshots.load("lexical", "s1", "v7") is None


def test_only_the_newest_snapshots_of_a_kind_stay(tmp_path: Path) -> None:
    snapshots = FileSnapshots(tmp_path, keep=2)
    for scope in range(4):
        snapshots.save("lexical", f"scope {scope}", "v1", {"a": np.arange(scope + 1)})
        os.utime(snapshots._path("lexical", f"scope {scope}"), (scope, scope))  # saved in order
    snapshots.save("concepts", "agent", "v0", {"a": np.arange(1)})
    assert len(list(tmp_path.glob("lexical-*.npz"))) == 2
    assert snapshots.load("lexical", "scope 3", "v1") is not None
    assert snapshots.load("lexical", "scope 0", "v1") is None
    assert snapshots.load("concepts", "agent", "v0") is not None
    assert not list(tmp_path.glob("*.partial"))


def test_saves_of_one_slot_at_once_each_leave_a_whole_file(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    snapshots = FileSnapshots(tmp_path)
    arrays = {"a": np.arange(200_000)}
    with ThreadPoolExecutor(4) as pool:
        list(pool.map(lambda n: snapshots.save("concepts", "agent", "v1", arrays), range(8)))
    assert "not saved" not in caplog.text
    loaded = snapshots.load("concepts", "agent", "v1")
    assert loaded is not None and loaded["a"].tolist() == arrays["a"].tolist()
    assert [path.suffix for path in tmp_path.iterdir()] == [".npz"]


def test_a_killed_writers_partial_file_is_cleared_later(tmp_path: Path) -> None:
    snapshots = FileSnapshots(tmp_path)
    left = tmp_path / "lexical-abc.npz.x.partial"
    left.write_bytes(b"half a snapshot")
    recent = tmp_path / "lexical-def.npz.y.partial"
    recent.write_bytes(b"being written")
    os.utime(left, (0, 0))
    snapshots.save("lexical", "scope", "v1", {"a": np.arange(2)})
    assert not left.exists() and recent.exists()


def test_an_unwritable_directory_skips_the_snapshot(tmp_path: Path) -> None:
    blocked = tmp_path / "file"
    blocked.write_text("not a directory")
    snapshots = FileSnapshots(blocked / "indexes")
    snapshots.save("lexical", "s", "k", {"a": np.arange(3)})  # logged, not raised
    assert snapshots.load("lexical", "s", "k") is None


turns = st.lists(
    st.tuples(
        st.lists(st.sampled_from(WORDS), min_size=1, max_size=6).map(" ".join),
        st.integers(min_value=0, max_value=200),
        st.sampled_from(("c1", "c2")),
        st.lists(st.sampled_from(DOMAINS), max_size=2).map(tuple),
    ),
    min_size=1,
    max_size=25,
)


@settings(max_examples=100, deadline=None)
@given(
    turns,
    st.lists(st.sampled_from(WORDS), min_size=1, max_size=4).map(" ".join),
    st.sampled_from((None, *DOMAINS, "absent")),
)
def test_an_index_from_its_arrays_ranks_as_the_built_one(
    rows: list[tuple[str, int, str, tuple[str, ...]]], query: str, domain: str | None
) -> None:
    chunks = [_chunk(i, text, m, conv, doms) for i, (text, m, conv, doms) in enumerate(rows)]
    params = LexicalParams(session_gap=timedelta(minutes=30))
    built = LexicalIndex(chunks, params)
    loaded = LexicalIndex.from_arrays(built.arrays(), params)
    assert loaded.chunks == () and loaded.ids == built.ids
    assert loaded.ranked(query, 5, domain=domain) == built.ranked(query, 5, domain=domain)
    by_id = {chunk.id: chunk for chunk in chunks}
    expected = [
        (chunk.id, score)
        for chunk, score in built.search(query, len(chunks))
        if domain is None or domain in chunk.domains
    ][:5]
    found = [(loaded.ids[p], score) for p, score in loaded.ranked(query, 5, domain=domain)]
    assert found == expected
    assert all(domain is None or domain in by_id[i].domains for i, _ in found)


class _Chunks:
    """A scope's chunks behind ``ScopeChunks``, counting full listings."""

    def __init__(self, chunks: list[Chunk], stamp: str) -> None:
        self.chunks, self.stamp, self.listings = chunks, stamp, 0

    async def scope_stamp(self, scope: str | None) -> str:
        return self.stamp

    async def scope_chunks(self, scope: str | None) -> list[Chunk]:
        self.listings += 1
        return list(self.chunks)

    async def get(self, ids: Sequence[str]) -> list[Chunk]:
        return [chunk for chunk in self.chunks if chunk.id in ids]


async def test_a_later_run_loads_the_index_a_first_run_saved(tmp_path: Path) -> None:
    chunks = [_chunk(i, text, i, "c1", ()) for i, text in enumerate(WORDS)]
    store = _Chunks(chunks, "e1:v3")
    first = LexicalIndexCache(snapshots=FileSnapshots(tmp_path))
    built = await first.index(store, "s")
    later = LexicalIndexCache(snapshots=FileSnapshots(tmp_path))
    loaded = await later.index(store, "s")
    assert (first.builds, later.builds, later.loads, store.listings) == (1, 0, 1, 1)
    assert loaded.ranked("pepper boat", 3) == built.ranked("pepper boat", 3)
    store.stamp = "e1:v4"  # a write: the saved index is for another state
    await later.index(store, "s")
    assert later.builds == 1 and store.listings == 2


async def test_only_what_the_arrays_depend_on_needs_a_new_index(tmp_path: Path) -> None:
    store = _Chunks([_chunk(i, text, i, "c1", ()) for i, text in enumerate(WORDS)], "e1:v3")
    await LexicalIndexCache(snapshots=FileSnapshots(tmp_path)).index(store, "s")
    weighed = LexicalParams(instance_weight=0.5, neighbour_weight=0.1, session_weight=0.2)
    later = LexicalIndexCache(weighed, snapshots=FileSnapshots(tmp_path))
    await later.index(store, "s")
    assert (later.builds, later.loads) == (0, 1)  # a query's weights are not the index's
    for changed in (
        LexicalParams(k1=1.2),
        LexicalParams(b=0.75),
        LexicalParams(session_gap=timedelta(minutes=5)),
    ):
        other = LexicalIndexCache(changed, snapshots=FileSnapshots(tmp_path))
        await other.index(store, "s")
        assert (other.builds, other.loads) == (1, 0), changed


async def test_a_later_run_scans_concepts_from_the_saved_listing(tmp_path: Path) -> None:
    store = VersionedStore()
    for name, description in (("Kestrel", "a falcon"), ("Falconry", "keeping falcons")):
        store.put(AGENT, {"name": name, "description": description, "updated_at": NOW.isoformat()})
    store.put(AGENT, {"name": "Broken"})
    await store.upsert(AGENT, [{"name": "Raw", "description": "x"}])
    first = TermScan(store, clock=lambda: NOW, snapshots=FileSnapshots(tmp_path))
    built = await first.search(AGENT, "falcon kestrel")
    later = TermScan(store, clock=lambda: NOW, snapshots=FileSnapshots(tmp_path))
    loaded = await later.search(AGENT, "falcon kestrel")
    assert (first.builds, later.builds, later.loads, store.listings) == (1, 0, 1, 1)
    assert loaded == built and [hit.record.name for hit in loaded.hits] == ["Kestrel", "Falconry"]
    again = await first.search(AGENT, "falcon kestrel")  # the first run kept the same listing
    assert again == built and first.builds == 1


async def test_scans_arriving_while_one_builds_share_its_listing(tmp_path: Path) -> None:
    store = VersionedStore()
    for n in range(50):
        store.put(AGENT, {"name": f"Kestrel {n}", "updated_at": NOW.isoformat()})
    scan = TermScan(store, clock=lambda: NOW, snapshots=FileSnapshots(tmp_path))
    found = await asyncio.gather(*(scan.search(AGENT, "kestrel") for _ in range(4)))
    assert (scan.builds, store.listings) == (1, 1)
    assert all(result == found[0] for result in found) and found[0].hits


@given(st.lists(st.sampled_from(("", "a", "ünï", "x y", "\n")), max_size=6))
def test_texts_pack_and_unpack_whatever_they_hold(texts: list[str]) -> None:
    assert unpack_texts(pack_texts(texts)) == texts


def test_a_one_entity_graph_in_the_root_scope_round_trips() -> None:
    entities = [Entity(id="e1", name="Ana", type="person", scope="")]
    relations = [Relation(id="r1", source_id="e1", target_id="e1", type="KNOWS", fact="")]
    shape = GraphShape(entities, relations)
    loaded = GraphShape.from_arrays(shape.arrays())
    assert loaded.neighbours(["e1"], limit_per_node=5) == shape.neighbours(["e1"], limit_per_node=5)
    assert loaded.entity(0) == entities[0] and loaded.relation(0) == relations[0]


async def test_a_saved_listing_keeps_no_parsed_records_and_a_write_reads_them_again(
    tmp_path: Path,
) -> None:
    # With snapshots the scan holds what a later start loads (names and haystack), not the
    # parsed records: a write then reads every record once, and answers stay current.
    store = VersionedStore()
    for name in ("Kestrel", "Falconry", "Merlin"):
        store.put(AGENT, {"name": name, "description": "falcon", "updated_at": NOW.isoformat()})
    scan = TermScan(store, clock=lambda: NOW, snapshots=FileSnapshots(tmp_path))
    await scan.search(AGENT, "falcon")
    assert scan.parses == 3
    await store.upsert(AGENT, [{"name": "Merlin", "description": "a small falcon owl"}])
    after = await scan.search(AGENT, "owl")
    assert scan.parses == 6 and [hit.record.name for hit in after.hits] == ["Merlin"]


def test_clearing_removes_every_snapshot_and_partial_file(tmp_path: Path) -> None:
    snapshots = FileSnapshots(tmp_path)
    arrays = {"words": np.arange(3)}
    snapshots.save("bm25", "acme/bot", "v1", arrays)
    snapshots.save("shape", "graph", "v1", arrays)
    (tmp_path / "bm25-x.npz.partial").write_bytes(b"half a file")
    (tmp_path / "notes.txt").write_text("not ours")
    snapshots.clear()
    assert snapshots.load("bm25", "acme/bot", "v1") is None
    assert sorted(path.name for path in tmp_path.iterdir()) == ["notes.txt"]
    FileSnapshots(tmp_path / "never-made").clear()  # nothing saved yet: nothing to do
