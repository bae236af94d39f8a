"""The seed-scale bench end to end at a tiny scale: it runs and writes every figure (no timings)."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

from explorer.adapters.embedded import EmbeddedServers
from explorer.bench.report import TARGETS
from explorer.bench.seed import BENCH_SCALES, bench_settings, prepare, run_bench
from explorer.settings import Settings

pytestmark = pytest.mark.slow

PERCENTILES = ("p50", "p95", "p99")


def _is_ms(value: object) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool) and value >= 0


async def test_bench_builds_measures_and_writes_every_field(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    settings = Settings(data_dir=tmp_path / "data", load_demo=False)
    out = tmp_path / "bench.json"

    status = await run_bench(settings, scale="tiny", json_out=out, queries=12, gui=False)

    assert status == 0
    figures = json.loads(out.read_text(encoding="utf-8"))
    for block in ("scour", "floor"):
        for key in PERCENTILES:
            assert _is_ms(figures[block][key]), (block, key, figures[block])
        assert figures[block]["p50"] <= figures[block]["p95"] <= figures[block]["p99"]
    assert figures["scour"]["n"] == 12
    for part in ("embed", "graph", "vector"):
        assert figures["floor"][part]["n"] == 12
    assert figures["ratio_p50"] > 0
    assert figures["ratio_p50"] == pytest.approx(
        figures["scour"]["p50"] / figures["floor"]["p50"], rel=1e-2
    )

    size = BENCH_SCALES["tiny"]
    assert figures["counts"] == {
        "entities": size.entities,
        "relations": figures["ingest"]["relations"],
        "chunks": size.chunks,
    }
    assert figures["ingest"]["reused"] is False
    assert figures["ingest"]["seconds"] > 0
    assert figures["ingest"]["records_per_second"] > 0

    for phase in ("cold", "warm"):
        for key in PERCENTILES:
            assert _is_ms(figures[phase][key])
        assert figures[phase]["errors"] == 0
        assert set(figures[phase]["shares_p50"]) >= {"embed", "kg", "chunks", "coordinator"}
    assert figures["cold"]["n"] == 10

    assert set(figures["concurrency"]) == {"1", "8", "32"}
    for block in figures["concurrency"].values():
        assert block["calls"] == 12
        assert block["errors"] == 0
        assert block["qps"] > 0
        assert all(_is_ms(block[key]) for key in PERCENTILES)

    activation = figures["activation"]
    assert activation["largest"], "the queries touched no neighbourhood"
    assert activation["largest"][0]["relations"] >= activation["largest"][-1]["relations"]
    assert all(_is_ms(activation["spread"][key]) for key in PERCENTILES)

    assert set(figures["rss_mb"]) >= {"app", "falkordb", "postgres"}
    assert all(figures["rss_mb"][name] > 0 for name in ("app", "falkordb", "postgres"))
    # The app's CPU a warm call, and the servers' (read in 10 ms steps, so a short run's can
    # round to nothing, but never below it).
    cpu = figures["warm"]["cpu_ms"]
    assert cpu["app"] > 0 and cpu["falkordb"] >= 0 and cpu["postgres"] >= 0

    assert [row["key"] for row in figures["targets"]] == [key for key, *_ in TARGETS]
    printed = capsys.readouterr().out
    assert "| warm scour p50 | 15 ms |" in printed
    assert "Scour / floor at p50" in printed
    assert "CPU per warm call" in printed

    # A second preparation finds the memory by its counts and writes nothing. Run in this
    # long-lived process, it starts servers this process owns: stopped here, not at exit.
    tiny = bench_settings(settings, "tiny")
    try:
        again = await prepare(tiny, "tiny")
    finally:
        await asyncio.to_thread(EmbeddedServers(Path(tiny.data_dir)).stop)
    assert again["reused"] is True
    assert again["seconds"] == figures["ingest"]["seconds"]
