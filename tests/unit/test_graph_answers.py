"""The lexical route asked again with the graph's answers (``StoreCandidateSource.with_answers``).

Over the in-process BM25 index and fake stores: the answers' chunks join the batch with both
routes' signals kept, the report follows the new finds, and a route that failed, cannot take
names or fails now leaves the first finds standing.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from explorer.core.candidates import ROUTE_LEXICAL, ROUTE_VECTOR, MemoryQuery
from explorer.core.errors import StoreUnavailable
from explorer.core.lexical import LexicalIndexCache, LexicalParams
from explorer.core.models import Chunk, MemoryLayer
from explorer.core.policy import RetrievalPolicy
from explorer.core.sources import StoreCandidateSource
from explorer.testing import FakeChunkStore, FakeEmbedder

SCOPE = "friends/chat"
START = datetime(2026, 3, 1, 10, tzinfo=UTC)
LAYERS = frozenset({MemoryLayer.EPISODIC})
QUERY = MemoryQuery("Where does Ravi work now?", scope=SCOPE)


class ListedChunks(FakeChunkStore):
    """The fake chunk store with what the BM25 index needs to list a scope; ``listing_fails``
    fails the lexical route alone."""

    listing_fails = False

    async def scope_stamp(self, scope: str | None) -> str:
        if self.listing_fails:
            raise StoreUnavailable("the listing timed out")
        return str(len(self.chunks))

    async def scope_chunks(self, scope: str | None) -> list[Chunk]:
        return list(self.chunks.values())


def _chunks() -> list[Chunk]:
    lines = [  # the speaker's name is searched too: the second is another speaker's
        ("ravi.k", "work is fine, honestly"),
        ("jools", "the Drygate crew took him to the pub"),
        ("jools", "my flat is freezing"),
        ("ravi.k", "now on nights"),
    ]
    return [
        Chunk(
            id=f"c{n}",
            text=text,
            conversation_id="job",
            position=n,
            speaker=speaker,
            timestamp=START + timedelta(minutes=n),
            scope=SCOPE,
        )
        for n, (speaker, text) in enumerate(lines)
    ]


def _source(params: LexicalParams | None = None) -> tuple[StoreCandidateSource, ListedChunks]:
    embedder = FakeEmbedder()
    store = ListedChunks(embedder, _chunks())
    source = StoreCandidateSource(
        chunks=store,
        graph=None,
        embedder=embedder,
        policy=RetrievalPolicy(),
        lexical_index=LexicalIndexCache(params),
    )
    return source, store


async def test_the_answers_chunks_join_the_batch_with_both_routes_signals() -> None:
    source, _ = _source(LexicalParams(neighbour_weight=0.0, session_weight=0.0))
    first = await source.search(QUERY, LAYERS)
    # c1 says no word of the question: the vector route alone found it.
    assert "c1" not in {c.id for c in first.by_route[ROUTE_LEXICAL]}
    again = await source.with_answers(QUERY, first, ["Drygate"])
    assert again.answered == ("Drygate",)
    found = {c.id: c for c in again}
    assert set(found["c1"].routes) == {ROUTE_VECTOR, ROUTE_LEXICAL}
    assert found["c1"].lexical and found["c1"].lexical > 0.0
    # Merged as the first asking merges: each signal as its own route found it.
    vector = {c.id: c for c in again.by_route[ROUTE_VECTOR]}
    lexical = {c.id: c for c in again.by_route[ROUTE_LEXICAL]}
    assert set(found) == set(vector) | set(lexical)
    for key, candidate in found.items():
        assert candidate.similarity == (vector[key].similarity if key in vector else 0.0)
        assert candidate.lexical == (lexical[key].lexical if key in lexical else 0.0)
    assert again.sources["lexical"] == len(again.by_route[ROUTE_LEXICAL])
    assert again.by_route[ROUTE_VECTOR] == first.by_route[ROUTE_VECTOR]
    assert again.refused == first.refused and again.failures == first.failures


async def test_a_lexical_route_that_failed_the_first_time_is_not_asked_again() -> None:
    source, store = _source()
    store.listing_fails = True
    first = await source.search(QUERY, LAYERS)
    assert ROUTE_LEXICAL in first.failures and ROUTE_VECTOR not in first.failures
    store.listing_fails = False
    assert await source.with_answers(QUERY, first, ["Drygate"]) is first


async def test_failing_now_leaves_the_first_finds_and_a_note() -> None:
    source, store = _source()
    first = await source.search(QUERY, LAYERS)
    store.fail = StoreUnavailable("postgres went away")
    again = await source.with_answers(QUERY, first, ["Drygate"])
    assert not again.answered
    assert list(again) == list(first)
    assert any("went away" in entry.reason for entry in again.refused)


async def test_no_weight_for_instances_takes_no_names() -> None:
    source, _ = _source(LexicalParams(instance_weight=0.0))
    first = await source.search(QUERY, LAYERS)
    assert await source.with_answers(QUERY, first, ["Drygate"]) is first
