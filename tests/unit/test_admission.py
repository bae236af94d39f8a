"""The admission of concurrent calls: a few at a time, in order, and a slow one lets others in."""

from __future__ import annotations

import asyncio
import time

import pytest

from explorer.core.admission import Admission


async def test_at_most_the_slots_run_at_once_and_turns_go_in_arrival_order() -> None:
    admission = Admission(2, hold=10.0)
    running, most, started = 0, 0, []

    async def call(number: int) -> None:
        nonlocal running, most
        async with admission.turn():
            started.append(number)
            running += 1
            most = max(most, running)
            await asyncio.sleep(0.02)
            running -= 1

    await asyncio.gather(*(call(number) for number in range(7)))
    assert most == 2
    assert started == list(range(7))


async def test_a_call_holding_its_turn_past_the_hold_lets_the_next_one_in() -> None:
    admission = Admission(1, hold=0.05)
    began: dict[str, float] = {}

    async def call(name: str, seconds: float) -> None:
        async with admission.turn():
            began[name] = time.monotonic()
            await asyncio.sleep(seconds)

    origin = time.monotonic()
    await asyncio.gather(call("stuck", 1.0), call("next", 0.0), call("last", 0.0))
    # Without the hold, "next" would wait the whole second "stuck" sleeps.
    assert began["next"] - origin < 0.5
    assert began["last"] >= began["next"]


async def test_a_failing_or_cancelled_call_gives_its_turn_back() -> None:
    admission = Admission(1, hold=10.0)
    with pytest.raises(RuntimeError):
        async with admission.turn():
            raise RuntimeError("the call failed")

    async def hold_forever() -> None:
        async with admission.turn():
            await asyncio.sleep(60)

    holder = asyncio.ensure_future(hold_forever())
    await asyncio.sleep(0.01)
    holder.cancel()  # a superseded query
    async with asyncio.timeout(1.0), admission.turn():
        pass  # both turns came back


def test_an_admission_needs_a_slot_and_a_hold() -> None:
    with pytest.raises(ValueError):
        Admission(0, hold=1.0)
    with pytest.raises(ValueError):
        Admission(1, hold=0.0)


async def test_a_call_cancelled_while_waiting_leaves_its_place_to_the_next() -> None:
    admission = Admission(1, hold=10.0)
    order: list[str] = []
    release = asyncio.Event()

    async def call(name: str) -> None:
        async with admission.turn():
            order.append(name)
            if name == "first":
                await release.wait()

    first = asyncio.ensure_future(call("first"))
    await asyncio.sleep(0.01)
    waiting, last = asyncio.ensure_future(call("waiting")), asyncio.ensure_future(call("last"))
    await asyncio.sleep(0.01)
    waiting.cancel()  # superseded before its turn came
    release.set()
    async with asyncio.timeout(1.0):
        await asyncio.gather(first, last)
    assert order == ["first", "last"] and waiting.cancelled()
