"""FalkorDB's failures as the project's own: ``StoreTimeout`` and ``StoreUnavailable``.

``bounded`` awaits a driver call within a deadline and translates what redis-py raises (a
timeout, a refused connection, an error reply, an ``OSError``) into the core's error types, so
no driver exception leaves the adapter. A connection error caused by a timeout anywhere in its
chain counts as a timeout. Imports ``core.deadline``, ``core.errors`` and ``redis``'s error types.
"""

from __future__ import annotations

from collections.abc import Awaitable
from typing import TypeVar

import redis.exceptions as redis_errors

from explorer.core.deadline import DeadlineExceeded, within
from explorer.core.errors import StoreTimeout, StoreUnavailable

T = TypeVar("T")


async def bounded(awaitable: Awaitable[T], deadline: float, what: str) -> T:
    """Await within ``deadline`` seconds, translating driver errors into the project's own."""
    try:
        return await within(awaitable, deadline)
    except DeadlineExceeded:
        raise StoreTimeout(f"FalkorDB did not answer the {what} within {deadline:g} s") from None
    except redis_errors.TimeoutError as error:
        raise StoreTimeout(f"FalkorDB {what} timed out: {error}") from None
    except redis_errors.ConnectionError as error:
        if _caused_by_timeout(error):
            raise StoreTimeout(f"FalkorDB {what} timed out: {error}") from None
        raise StoreUnavailable(f"FalkorDB is unreachable ({what}): {error}") from None
    except redis_errors.ResponseError as error:
        raise StoreUnavailable(f"FalkorDB refused the {what}: {error}") from None
    except redis_errors.RedisError as error:
        raise StoreUnavailable(f"FalkorDB {what} failed: {error}") from None
    except OSError as error:
        raise StoreUnavailable(f"FalkorDB is unreachable ({what}): {error}") from None


def _caused_by_timeout(error: BaseException) -> bool:
    seen: set[int] = set()
    current: BaseException | None = error
    while current is not None and id(current) not in seen:
        if isinstance(current, TimeoutError | redis_errors.TimeoutError):
            return True
        seen.add(id(current))
        current = current.__cause__ or current.__context__
    return False
