"""One deadline per half of scour, shared by all of that half's round trips.

A half makes several round trips: the graph half searches entities, scans concepts, spreads
activation over neighbourhoods and reads the recalled entities in full; the chunk half embeds
the query and searches by vector and by text. Each call has its store's own deadline, but one
after another against a frozen store they would add up (three deadlines for the graph half).
A ``Budget`` is the half's clock: every call made through a store wrapped by ``budgeted`` gets
only the time left, and once the budget has run out, or a call timed out, the half's later calls
fail at once with the same ``StoreTimeout``. Imports only the standard library and core.
"""

from __future__ import annotations

import inspect
import time
from collections.abc import Awaitable, Callable, Coroutine
from typing import Any, TypeVar, cast

from explorer.core.deadline import DeadlineExceeded, within
from explorer.core.errors import StoreTimeout

T = TypeVar("T")


class Budget:
    """``seconds`` for every call of one half together, counted from when it is made."""

    def __init__(
        self, half: str, seconds: float, clock: Callable[[], float] = time.monotonic
    ) -> None:
        self.half = half
        self.seconds = seconds
        self._clock = clock
        self._ends = clock() + seconds
        self._spent: str | None = None

    @property
    def spent(self) -> bool:
        return self._spent is not None

    def left(self) -> float:
        return max(0.0, self._ends - self._clock())

    async def run(self, call: Awaitable[T]) -> T:
        """``call``'s result within what is left, else ``StoreTimeout`` (and the budget is
        spent for every later call)."""
        left = self.left()
        if self._spent is None and left <= 0.0:
            self._spent = f"{self.half} gave no answer within its {self.seconds:g} s deadline"
        if self._spent is not None:
            if inspect.iscoroutine(call):
                call.close()  # never started: nothing to clean up, no "never awaited" warning
            raise StoreTimeout(self._spent)
        try:
            return await within(call, left)
        except DeadlineExceeded:
            self._spent = f"{self.half} gave no answer within its {self.seconds:g} s deadline"
            raise StoreTimeout(self._spent) from None
        except StoreTimeout as error:
            # The store's own deadline struck first: the store is as good as frozen.
            self._spent = str(error)
            raise


class _Budgeted:
    """A store whose coroutine methods run within a budget; everything else passes through."""

    def __init__(self, store: object, budget: Budget) -> None:
        self._store = store
        self._budget = budget
        self._bounded: dict[str, Any] = {}  # a query asks the same few methods many times

    def __getattr__(self, name: str) -> Any:
        found = self._bounded.get(name)
        if found is not None:
            return found
        value = getattr(self._store, name)
        if not inspect.iscoroutinefunction(value):
            return value
        method = cast(Callable[..., Coroutine[Any, Any, Any]], value)
        budget = self._budget

        async def bounded(*args: Any, **kwargs: Any) -> Any:
            return await budget.run(method(*args, **kwargs))

        bounded.__name__ = bounded.__qualname__ = name
        self._bounded[name] = bounded
        return bounded


def budgeted(store: T, budget: Budget | None) -> T:
    """``store`` with every coroutine method bounded by ``budget`` (as it is when ``None``)."""
    if store is None or budget is None:
        return store
    return cast(T, _Budgeted(store, budget))
