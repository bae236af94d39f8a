"""How many statements one warm scour sends to each store, on the real embedded servers.

Round trips were much of a warm call's time (see the README's Performance section): this pins
what a warm call over both halves may send, so one that creeps back in fails here. Counted at
the adapters' own boundaries: each PostgreSQL statement a store's work sends on its pooled
connection (transactions included), and each FalkorDB command.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from explorer.adapters.falkor.connection import FalkorConnection
from explorer.adapters.postgres import chunks as chunk_module
from explorer.adapters.postgres import concepts as concept_module
from explorer.compose import open_memory
from explorer.core.scour import ScourRequest
from explorer.ingest.pipeline import ingest_turns
from explorer.settings import Settings
from tests.turns import daily_turns

# One level, so scope blending asks each route once (a deeper scope asks its ancestors too).
SCOPE = "trips"
# More turns than a kNN asks for, so its filtered search needs no exact-scan fallback.
TURNS = daily_turns(
    SCOPE,
    "Ines",
    "Ines repaired the cello with Rafael in Porto on day {day}.",
    24,
    datetime(2025, 6, 1, 8, tzinfo=UTC),
)
STATEMENTS = ("execute", "fetch", "fetchrow", "fetchval", "executemany")


class _Counting:
    """A pooled connection that counts the statements sent through it."""

    def __init__(self, conn: Any, seen: Counter[str]) -> None:
        self._conn, self._seen = conn, seen

    def __getattr__(self, name: str) -> Any:
        found = getattr(self._conn, name)
        if name == "transaction":
            self._seen["BEGIN … COMMIT"] += 2  # two statements of its own
            return found
        if name not in STATEMENTS:
            return found

        def sent(statement: str = "", *args: Any, **kwargs: Any) -> Any:
            self._seen[" ".join(str(statement).split())[:60]] += 1
            return found(statement, *args, **kwargs)

        return sent


async def test_a_warm_scour_sends_five_statements_to_postgres_and_four_commands_to_falkordb(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    postgres: Counter[str] = Counter()
    falkordb: Counter[str] = Counter()
    counting = [False]
    for module in (chunk_module, concept_module):
        real = module.run_bounded

        def counted(
            pool: Any, work: Callable[[Any], Awaitable[Any]], *rest: Any, _real: Any = real
        ) -> Any:
            if not counting[0]:
                return _real(pool, work, *rest)
            return _real(pool, lambda conn: work(_Counting(conn, postgres)), *rest)

        monkeypatch.setattr(module, "run_bounded", counted)
    for method in ("reply", "write"):
        real_method = getattr(FalkorConnection, method)

        async def command(
            self: Any, *args: Any, _real: Any = real_method, _name: str = method
        ) -> Any:
            if counting[0]:
                falkordb[_name] += 1
            return await _real(self, *args)

        monkeypatch.setattr(FalkorConnection, method, command)

    settings = Settings(data_dir=tmp_path / "data", load_demo=False)
    async with open_memory(settings) as memory:
        assert (await ingest_turns(memory, TURNS)).ok
        request = ScourRequest(query="Who repaired the cello in Porto?", scope=SCOPE)
        await memory.scour(request)  # builds the indexes, starts the shape loading
        await memory.settle()
        await memory.scour(request)
        counting[0] = True
        answer = (await memory.scour(request)).to_json_dict()
        counting[0] = False
    assert answer["kg_entities"] and answer["chunks"]
    # Chunks: BM25 version and its hits read by id, the kNN. Concepts: the table's stamp (the
    # agent listing held stands under it, and the scan's version check takes it too), the hits
    # read by name.
    assert sum(postgres.values()) == 5, postgres
    # The shape's version, the full-text and vector searches, the answer's full records.
    assert falkordb == {"reply": 4}, falkordb
