"""A stamp read is shared only with queries that began before it was issued."""

from __future__ import annotations

import asyncio

import pytest

from explorer.core.freshness import SharedRead, query_began


class Stamps:
    """A stamp store that counts its reads; each read waits for ``release`` when it is set."""

    def __init__(self) -> None:
        self.reads = 0
        self.version = 1
        self.release: asyncio.Event | None = None
        self.fail = False

    async def read(self) -> int:
        self.reads += 1
        seen = self.version
        if self.release is not None:
            await self.release.wait()
        if self.fail:
            raise OSError("store down")
        return seen


async def test_without_a_mark_every_call_reads() -> None:
    stamps, shared = Stamps(), SharedRead[int]()
    assert [await shared(stamps.read) for _ in range(3)] == [1, 1, 1]
    assert stamps.reads == 3


async def test_a_query_that_began_after_a_read_was_issued_reads_again() -> None:
    stamps, shared = Stamps(), SharedRead[int]()
    with query_began():
        assert await shared(stamps.read) == 1
    stamps.version = 2  # a write that finished before the next query began
    with query_began():
        assert await shared(stamps.read) == 2
    assert stamps.reads == 2


async def test_concurrent_queries_share_a_read_issued_after_they_began() -> None:
    stamps, shared = Stamps(), SharedRead[int]()
    stamps.release = asyncio.Event()
    began = asyncio.Event()

    async def query() -> int:
        with query_began():
            began.set()
            await asyncio.sleep(0)
            return await shared(stamps.read)

    first = asyncio.ensure_future(query())
    await began.wait()
    others = [asyncio.ensure_future(query()) for _ in range(4)]
    await asyncio.sleep(0.01)
    stamps.release.set()
    results = await asyncio.gather(first, *others)
    assert results == [1] * 5
    # The first query's read was issued before the later ones began: they could not share it.
    assert 1 <= stamps.reads < 5


async def test_parts_of_one_query_share_its_read() -> None:
    stamps, shared = Stamps(), SharedRead[int]()
    with query_began():
        assert [await shared(stamps.read) for _ in range(3)] == [1, 1, 1]
    assert stamps.reads == 1


async def test_a_failed_read_is_not_shared() -> None:
    stamps, shared = Stamps(), SharedRead[int]()
    stamps.fail = True
    with query_began():
        with pytest.raises(OSError):
            await shared(stamps.read)
        stamps.fail = False
        assert await shared(stamps.read) == 1
    assert stamps.reads == 2


async def test_a_caller_giving_up_leaves_the_read_to_the_others() -> None:
    stamps, shared = Stamps(), SharedRead[int]()
    stamps.release = asyncio.Event()
    with query_began():
        impatient = asyncio.ensure_future(shared(stamps.read))
        patient = asyncio.ensure_future(shared(stamps.read))
        await asyncio.sleep(0.01)
        impatient.cancel()
        stamps.release.set()
        assert await patient == 1
    assert impatient.cancelled()
    assert stamps.reads == 1
