"""The bench's pure parts: percentiles, the GUI table reader and the rendered target table."""

from __future__ import annotations

from explorer.bench.measure import percentile, summary
from explorer.bench.report import gui_table, render, targets


def test_percentiles_are_nearest_rank_samples() -> None:
    samples = [float(n) for n in range(1, 101)]
    assert percentile(samples, 0.50) == 50.0
    assert percentile(samples, 0.95) == 95.0
    assert percentile(samples, 0.99) == 99.0
    assert summary([]) == {"n": 0, "p50": 0.0, "p95": 0.0, "p99": 0.0, "mean": 0.0, "max": 0.0}
    assert summary([3.0, 1.0, 2.0])["p50"] == 2.0


def test_gui_table_rows_become_figures() -> None:
    markdown = (
        "GUI benchmark (PySide6 6.11)\n\n"
        "| measure | result | target | met |\n|---|---|---|---|\n"
        "| pan frame | 3.1 ms median | ≤ 16 ms | yes |\n"
        "| zoom frame | 30.0 ms median | ≤ 16 ms | **no** |\n"
        "| recolour | 4.0 s, no crash | no crash |  |\n"
    )
    rows = gui_table(markdown)
    assert rows["pan frame"] == {"result": "3.1 ms median", "target": "≤ 16 ms", "met": True}
    assert rows["zoom frame"]["met"] is False
    assert rows["recolour"]["met"] is None
    assert "measure" not in rows


def _figures(warm_p50: float, errors: int) -> dict[str, object]:
    block = {"n": 5, "p50": warm_p50, "p95": 30.0, "p99": 35.0}
    return {
        "scale": "small",
        "command": "scour-explorer bench --scale small",
        "queries": 5,
        "machine": {"cpus": 2, "python": "3.11"},
        "counts": {"entities": 10, "relations": 20, "chunks": 30},
        "ingest": {"seconds": 12.0, "records_per_second": 5.0, "reused": True},
        "scour": block,
        "floor": {**block, "p50": 5.0, "embed": block, "graph": block, "vector": block},
        "ratio_p50": warm_p50 / 5.0,
        "cold": {**block, "n": 5, "first": 700.0},
        "warm": {**block, "shares_p50": {"kg": 0.5}, "parts_p50": {"kg": 4.0}},
        "concurrency": {"32": {**block, "qps": 9.0, "errors": errors}},
        "activation": {"largest": []},
        "rss_mb": {"app": 100.0, "falkordb": 50.0, "postgres": 60.0},
    }


def test_targets_pass_and_miss_and_skip_ingest_below_seed_scale() -> None:
    figures = _figures(warm_p50=20.0, errors=2)
    rows = {row["key"]: row for row in targets(figures)}
    assert rows["warm_p50"]["pass"] is False
    assert rows["warm_p95"]["pass"] is True
    assert rows["first_query"]["measured"] == 700.0 and rows["first_query"]["pass"] is False
    assert rows["c32_errors"]["pass"] is False
    assert rows["ingest_s"]["measured"] is None and rows["ingest_s"]["pass"] is None
    figures["targets"] = list(rows.values())
    text = render(figures)
    assert "| warm scour p50 | 15 ms | 20 ms | **miss** |" in text
    assert "| build the seed-scale memory | 300 s | n/a | — |" in text
