"""A restart on an unchanged memory loads the search indexes the last run saved (the BM25 index
and the concept scan's listing) instead of building them, and answers the same."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

from explorer.compose import open_memory
from explorer.core.scour import ScourRequest, ScourResult
from explorer.core.termscan import TermScan


async def test_a_restart_loads_the_saved_indexes(demo_dir: Path) -> None:
    shutil.rmtree(demo_dir / "indexes", ignore_errors=True)
    request = ScourRequest(query="who recommended the builder?", scope="demo")
    async with open_memory(data_dir=demo_dir) as first:
        built = await first.scour(request)
        assert isinstance(first.term_scan, TermScan)
        assert (first.lexical_index.builds, first.lexical_index.loads) == (1, 0)
        assert first.term_scan.builds >= 1 and first.term_scan.loads == 0
    assert sorted(path.name.split("-")[0] for path in (demo_dir / "indexes").iterdir())
    async with open_memory(data_dir=demo_dir) as later:
        loaded = await later.scour(request)
        assert isinstance(later.term_scan, TermScan)
        assert (later.lexical_index.builds, later.lexical_index.loads) == (0, 1)
        assert later.term_scan.builds == 0 and later.term_scan.loads >= 1

    def answer(result: ScourResult) -> dict[str, Any]:
        found = result.to_json_dict()
        found.pop("timings_ms", None)
        return found

    assert answer(loaded) == answer(built) and answer(built)["chunks"]
