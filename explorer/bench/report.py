"""The seed bench's report: targets with pass or miss, and the figures as a markdown table.

``targets`` sets each measured figure beside its limit (``None`` where a figure does not apply,
such as the build time below seed scale); ``render`` prints everything a run measured; and
``gui_table`` reads the GUI bench's markdown table into figures. Imports only the standard
library.
"""

from __future__ import annotations

from typing import Any

#: (key, label, limit, unit) — a figure passes when it is at most ``limit``.
TARGETS: tuple[tuple[str, str, float, str], ...] = (
    ("warm_p50", "warm scour p50", 15.0, "ms"),
    ("warm_p95", "warm scour p95", 40.0, "ms"),
    ("first_query", "first query after a restart", 500.0, "ms"),
    ("ratio_p50", "scour / floor at p50", 5.0, "×"),
    ("c32_p95", "32 concurrent calls p95", 250.0, "ms"),
    ("c32_errors", "32 concurrent calls errors", 0.0, ""),
    ("ingest_s", "build the seed-scale memory", 300.0, "s"),
    ("app_rss", "app RSS (peak)", 600.0, "MB"),
)


def gui_table(markdown: str) -> dict[str, Any]:
    """The rows of the GUI bench's markdown table as ``{measure: {result, target, met}}``."""
    rows: dict[str, Any] = {}
    for line in markdown.splitlines():
        cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
        if len(cells) < 4 or cells[0] in ("measure", "") or set(cells[0]) <= set("-: "):
            continue
        met = {
            "True": True,
            "yes": True,
            "✓": True,
            "False": False,
            "no": False,
            "**no**": False,
            "✗": False,
        }
        rows[cells[0]] = {"result": cells[1], "target": cells[2], "met": met.get(cells[3])}
    return rows


def _measured(figures: dict[str, Any]) -> dict[str, float | None]:
    c32 = figures["concurrency"].get("32", {})
    ingest = figures["ingest"]
    return {
        "warm_p50": figures["warm"]["p50"],
        "warm_p95": figures["warm"]["p95"],
        "first_query": figures["cold"].get("first"),
        "ratio_p50": figures["ratio_p50"],
        "c32_p95": c32.get("p95"),
        "c32_errors": c32.get("errors"),
        "ingest_s": ingest.get("seconds") if figures["scale"] == "seed" else None,
        "app_rss": figures["rss_mb"]["app"],
    }


def targets(figures: dict[str, Any]) -> list[dict[str, Any]]:
    measured = _measured(figures)
    rows = []
    for key, label, limit, unit in TARGETS:
        value = measured[key]
        rows.append(
            {
                "key": key,
                "what": label,
                "target": limit,
                "unit": unit,
                "measured": value,
                "pass": None if value is None else value <= limit,
            }
        )
    return rows


def _ms(block: dict[str, Any]) -> str:
    return f"{block['p50']:.1f} | {block['p95']:.1f} | {block['p99']:.1f}"


def render(figures: dict[str, Any]) -> str:
    """The markdown report of a run's figures."""
    lines = [
        f"### Scour at `{figures['scale']}` scale ({figures['counts']['entities']:,} entities, "
        f"{figures['counts']['relations']:,} relations, {figures['counts']['chunks']:,} chunks)",
        "",
        f"`{figures['command']}` — {figures['machine']['cpus']} cores, "
        f"{figures['machine']['python']}, local embedder, {figures['queries']} queries",
        "",
        "| figure | p50 ms | p95 ms | p99 ms |",
        "| --- | ---: | ---: | ---: |",
        f"| scour cold (first {figures['cold']['n']} after start) | {_ms(figures['cold'])} |",
        "| then waiting for background loads (the graph's shape) before warm | "
        f"{figures['cold'].get('settle_ms', 0.0):.1f} | | |",
        f"| scour warm (end to end, JSON included) | {_ms(figures['warm'])} |",
        f"| floor: embed + FalkorDB entity KNN ‖ pgvector KNN | {_ms(figures['floor'])} |",
        f"| floor: embedding | {_ms(figures['floor']['embed'])} |",
        f"| floor: FalkorDB entity KNN | {_ms(figures['floor']['graph'])} |",
        f"| floor: pgvector KNN | {_ms(figures['floor']['vector'])} |",
    ]
    for workers, block in figures["concurrency"].items():
        lines.append(
            f"| {workers} concurrent ({block['qps']:.1f} calls/s, {block['errors']} errors) | "
            f"{_ms(block)} |"
        )
    activation = figures["activation"]
    if activation["largest"]:
        biggest = activation["largest"][0]
        lines.append(
            f"| activation alone, largest neighbourhoods (up to {biggest['relations']:,} "
            f"relations) | {_ms(activation['spread'])} |"
        )
        lines.append(
            f"| activation with its index built | {_ms(activation['spread_with_index'])} |"
        )
    shares = figures["warm"]["shares_p50"]
    parts = figures["warm"]["parts_p50"]
    lines += [
        "",
        f"Scour / floor at p50: **{figures['ratio_p50']:.2f}**. Warm scour, median share of the "
        "total (ms): "
        + ", ".join(
            f"{key} {shares.get(key, 0.0):.0%} ({parts.get(key, 0.0):.1f})"
            for key in ("embed", "kg", "chunks", "associations", "coordinator")
        )
        + " — the halves run side by side, so shares overlap.",
    ]
    cpu = figures["warm"].get("cpu_ms")
    if cpu:
        names = {"app": "app", "falkordb": "FalkorDB", "postgres": "PostgreSQL"}
        lines.append(
            "CPU per warm call (process time over the warm phase; steadier than the clock on a "
            "shared machine): "
            + ", ".join(f"{names.get(name, name)} {ms:.1f} ms" for name, ms in cpu.items())
            + "."
        )
    ingest = figures["ingest"]
    if "seconds" in ingest:
        lines.append(
            f"Ingest: {ingest['seconds']:.0f} s, {ingest['records_per_second']:,.0f} records/s"
            + (" (built by an earlier run)" if ingest.get("reused") else "")
            + "."
        )
    rss = figures["rss_mb"]
    lines.append(
        f"Peak memory: app {rss['app']:.0f} MB, FalkorDB {rss.get('falkordb', 0):.0f} MB, "
        f"PostgreSQL {rss.get('postgres', 0):.0f} MB (PSS of all its processes)."
    )
    lines += ["", "| target | limit | measured | |", "| --- | ---: | ---: | --- |"]
    for row in figures["targets"]:
        value = row["measured"]
        shown = "n/a" if value is None else f"{value:g} {row['unit']}".strip()
        verdict = "—" if row["pass"] is None else ("pass" if row["pass"] else "**miss**")
        lines.append(f"| {row['what']} | {row['target']:g} {row['unit']} | {shown} | {verdict} |")
    gui = figures.get("gui")
    if isinstance(gui, dict) and gui:
        lines += ["", "| GUI measure | result | target | met |", "| --- | --- | --- | --- |"]
        for name, value in gui.items():
            if isinstance(value, dict):
                met_value = value.get("met")
                met = "—" if met_value is None else ("pass" if met_value else "**miss**")
                lines.append(
                    f"| {name} | {value.get('result', '')} | {value.get('target', '')} | {met} |"
                )
            else:
                lines.append(f"| {name} | {value} | | |")
    return "\n".join(lines)
