"""A ``Memory``-shaped fake over the unit fakes, for widget tests that need no servers.

It runs the real ``core.scour`` over the in-memory fakes of ``tests.unit.fakes``, so the answers
have exactly the shape the real service gives. The real-service tests live beside it.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from types import SimpleNamespace
from typing import Any

from explorer.core.policy import DEFAULT_POLICY, RetrievalPolicy
from explorer.core.scour import ScourRequest, ScourResult, scour
from tests.unit.fakes import sample_memory


class FakeMemory:
    def __init__(self, *, delay: float = 0.0) -> None:
        self.embedder, self.chunks, self.graph, self.concepts = sample_memory()
        self.settings = SimpleNamespace(default_scope="acme/ana", load_demo=False)
        self.servers = None
        self.policy = DEFAULT_POLICY
        self.delay = delay
        self.closed = False
        self.scour_calls = 0

    async def scour(
        self, request: ScourRequest, policy: RetrievalPolicy | None = None
    ) -> ScourResult:
        self.scour_calls += 1
        if self.delay:
            await asyncio.sleep(self.delay)
        return await scour(
            request,
            graph=self.graph,
            chunks=self.chunks,
            concepts=self.concepts,
            embedder=self.embedder,
            policy=policy or self.policy,
        )

    async def health(self) -> dict[str, str]:
        report = {}
        for name, store in (("graph", self.graph), ("chunks", self.chunks)):
            report[name] = "ok" if getattr(store, "fail", None) is None else str(store.fail)
        return report

    async def ensure_demo(self, progress: Any = None) -> bool:
        return False


@asynccontextmanager
async def fake_opener(settings: Any = None, **_: Any) -> AsyncIterator[FakeMemory]:
    memory = FakeMemory()
    try:
        yield memory
    finally:
        memory.closed = True
