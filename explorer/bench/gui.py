"""GUI benchmark: layout and drawing at 1,000 nodes, growth, frames, recolouring, loop stalls.

Run ``python -m explorer.bench.gui`` (offscreen when there is no display). It prints a markdown
table of measured times against the targets of the explorer window:

- a 1,000-node / 3,000-edge neighbourhood laid out and drawn (≤ 300 ms),
- 50 new nodes expanded into it, laid out and drawn (≤ 50 ms),
- a pan or zoom frame of that graph (≤ 16 ms),
- 20,000 items recoloured 1,000 times without a crash (the PySide6 6.12.0 setBrush abort),
- the longest event-loop stall while a query and its layout run (≤ 50 ms), measured with a 2 ms
  timer probe; with ``--data-dir`` the query runs on that memory through the real bridge,
  otherwise only the 1,000-node layout-and-draw path is probed.

``figures()`` returns the same measurements as data for the project's benchmark report. Imports
Qt, qasync, the GUI modules and the standard library, all inside functions.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import statistics
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

REPEATS = 3
DEFAULT_QUERY = "What is Maya working on?"
TARGETS_MS = {
    "layout+draw 1,000 nodes / 3,000 edges": 300.0,
    "expand 50 nodes into it": 50.0,
    "pan frame": 16.0,
    "zoom frame": 16.0,
    "pan frame at 100 % zoom (all labels)": 16.0,
    "max event-loop stall, 1,000-node layout via the bridge": 50.0,
    "max event-loop stall, query + layout": 50.0,
}


@dataclass
class Row:
    name: str
    value: str
    target: str
    ok: bool | None
    ms: float | None = None

    def markdown(self) -> str:
        verdict = "" if self.ok is None else ("yes" if self.ok else "**no**")
        return f"| {self.name} | {self.value} | {self.target} | {verdict} |"


def synthetic_graph(n: int, m: int, seed: int = 7) -> tuple[list[tuple[str, str]], list[Any]]:
    """``n`` typed nodes and ``m`` relations: a random tree plus random extra edges."""
    from explorer.gui.graph_model import EdgeData

    rnd = random.Random(seed)
    types = ["person", "place", "organization", "event", "project", "concept", "tool", "thing"]
    nodes = [(f"e{i}", rnd.choice(types)) for i in range(n)]
    pairs: set[tuple[int, int]] = set()
    for i in range(1, n):
        pairs.add((rnd.randrange(0, i), i))
    while len(pairs) < m:
        a, b = rnd.sample(range(n), 2)
        pairs.add((a, b))
    edges = [
        EdgeData(
            id=f"r{k}", source=f"e{a}", target=f"e{b}", type=rnd.choice(["KNOWS", "IN", "HAS"])
        )
        for k, (a, b) in enumerate(sorted(pairs))
    ]
    return nodes, edges


def _state(nodes: Sequence[tuple[str, str]], edges: Sequence[Any], roots: int = 40) -> Any:
    from explorer.gui.graph_model import GraphState, NodeData

    state = GraphState()
    for index, (node_id, kind) in enumerate(nodes):
        state.nodes[node_id] = NodeData(
            id=node_id,
            name=f"Entity {node_id}",
            type=kind,
            score=1.0 - index / max(len(nodes), 1),
            root=index < roots,
        )
    for edge in edges:
        state.edges[edge.id] = edge
    return state


def _paint(view: Any) -> None:
    """Render the viewport now, the way a frame is drawn."""
    view.viewport().repaint()


def _ms(start: float) -> float:
    return (time.perf_counter() - start) * 1000.0


def bench_layout_and_draw(view: Any) -> tuple[float, float, float]:
    from explorer.gui.graph_model import with_positions
    from explorer.gui.layout import LayoutRequest, compute_layout

    nodes, edges = synthetic_graph(1000, 3000)
    state = _state(nodes, edges)
    start = time.perf_counter()
    result = compute_layout(
        LayoutRequest(nodes=tuple(state.nodes), edges=tuple((e.source, e.target) for e in edges))
    )
    layout_ms = _ms(start)
    start = time.perf_counter()
    view._apply_state(with_positions(state, result.positions))
    view.fit()
    _paint(view)
    draw_ms = _ms(start)
    return layout_ms, draw_ms, layout_ms + draw_ms


def bench_expand(view: Any, parent: str = "e5") -> tuple[float, float]:
    """50 new neighbours of ``parent``: merge, lay out the new nodes only, draw."""
    from explorer.core.models import Entity, Relation
    from explorer.gui.graph_model import merge_neighbourhood
    from explorer.gui.layout import LayoutRequest, compute_layout

    entities = [Entity(f"{parent}-x{i}", f"New {i}", "event") for i in range(50)]
    relations = [Relation(f"{parent}-rx{i}", parent, f"{parent}-x{i}", "HAS") for i in range(50)]
    start = time.perf_counter()
    merged, added = merge_neighbourhood(view.state, parent, entities, relations, cap=50)
    request = LayoutRequest(
        nodes=tuple(merged.nodes),
        edges=tuple((e.source, e.target) for e in merged.edges.values()),
        fixed=dict(view.state.positions),
        parents=dict.fromkeys(added, parent),
    )
    result = compute_layout(request)
    layout_ms = _ms(start)
    for node_id in added:
        merged.positions[node_id] = result.positions[node_id]
    start = time.perf_counter()
    view._apply_state(merged)
    _paint(view)
    return layout_ms, _ms(start)


def bench_frames(view: Any, frames: int = 60) -> tuple[list[float], list[float]]:
    """Pan and zoom frames at the current zoom (the whole graph in view)."""
    pans, zooms = [], []
    for i in range(frames):
        start = time.perf_counter()
        view.horizontalScrollBar().setValue(
            view.horizontalScrollBar().value() + (7 if i % 2 else -7)
        )
        _paint(view)
        pans.append(_ms(start))
    for i in range(frames):
        start = time.perf_counter()
        view.zoom(1.05 if i % 2 else 1 / 1.05)
        _paint(view)
        zooms.append(_ms(start))
    return pans, zooms


def bench_zoomed_in_frames(view: Any, frames: int = 40) -> list[float]:
    """Pan frames at 100 % zoom, where every label in view is drawn."""
    view.resetTransform()
    view.zoom(1.0)
    view.centerOn(0, 0)
    timings = []
    for i in range(frames):
        start = time.perf_counter()
        view.horizontalScrollBar().setValue(
            view.horizontalScrollBar().value() + (9 if i % 2 else -9)
        )
        _paint(view)
        timings.append(_ms(start))
    return timings


def bench_recolour(items: int = 20_000, rounds: int = 1_000) -> float:
    from PySide6.QtGui import QBrush, QColor, QPen
    from PySide6.QtWidgets import QGraphicsEllipseItem, QGraphicsScene

    scene = QGraphicsScene()
    scene.setItemIndexMethod(QGraphicsScene.ItemIndexMethod.NoIndex)
    ellipses = []
    for i in range(items):
        item = QGraphicsEllipseItem(0, 0, 6, 6)
        item.setPos((i % 200) * 8, (i // 200) * 8)
        scene.addItem(item)
        ellipses.append(item)
    brushes = [QBrush(QColor.fromHsl(h, 160, 140)) for h in range(0, 360, 30)]
    pens = [QPen(QColor.fromHsl(h, 100, 80), 1.0) for h in range(0, 360, 60)]
    start = time.perf_counter()
    for round_ in range(rounds):
        brush = brushes[round_ % len(brushes)]
        pen = pens[round_ % len(pens)]
        for item in ellipses:
            item.setBrush(brush)
        ellipses[round_ % items].setPen(pen)
    elapsed = _ms(start)
    scene.clear()
    return elapsed


class StallProbe:
    """A 2 ms timer; the longest gap between its ticks is the longest the loop was blocked."""

    def __init__(self, interval_ms: int = 2) -> None:
        from PySide6.QtCore import QTimer

        self.timer = QTimer()
        self.timer.setInterval(interval_ms)
        self.timer.timeout.connect(self._tick)
        self.last = 0.0
        self.worst = 0.0

    def _tick(self) -> None:
        now = time.perf_counter()
        self.worst = max(self.worst, (now - self.last) * 1000.0)
        self.last = now

    def start(self) -> None:
        self.worst = 0.0
        self.last = time.perf_counter()
        self.timer.start()

    def stop(self) -> float:
        self.timer.stop()
        self._tick()
        return self.worst


async def _until(predicate: Callable[[], bool], limit: float) -> None:
    deadline = time.monotonic() + limit
    while not predicate():
        if time.monotonic() > deadline:
            raise TimeoutError("benchmark step did not finish")
        await asyncio.sleep(0.005)


async def bench_bridge_stall(view: Any, bridge: Any) -> float:
    """Show a fresh 1,000-node graph through the bridge's worker-thread layout, probing stalls."""
    nodes, edges = synthetic_graph(1000, 3000, seed=11)
    state = _state(nodes, edges)
    view.clear()
    probe = StallProbe()
    probe.start()
    applied = False

    def settle(result: Any) -> None:
        nonlocal applied
        from explorer.gui.graph_model import with_positions

        view._apply_state(with_positions(state, result.positions), batched=True)
        applied = True

    view._request_layout(state, {}, settle)
    await _until(lambda: applied and not view.is_applying(), 60)
    await asyncio.sleep(0.05)
    return probe.stop()


async def bench_query_stall(window: Any, query: str) -> tuple[float, float]:
    probe = StallProbe()
    started = time.perf_counter()
    probe.start()
    token = window.run_query(query)
    await _until(
        lambda: (
            window.outcome is not None
            and window.outcome.token == token
            and not window.graph_view.is_layout_pending()
            and not window.graph_view.is_applying()
        ),
        120,
    )
    await asyncio.sleep(0.05)
    return probe.stop(), _ms(started)


def figures(
    data_dir: Path | None = None,
    query: str = DEFAULT_QUERY,
    recolour_rounds: int = 1_000,
) -> dict[str, Any]:
    """The measurements as data: ``{measure: {result, target, met, ms}}`` plus ``environment``."""
    rows, environment = run_benchmarks(data_dir, query, recolour_rounds)
    body: dict[str, Any] = {
        row.name: {"result": row.value, "target": row.target, "met": row.ok, "ms": row.ms}
        for row in rows
    }
    body["environment"] = environment
    return body


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m explorer.bench.gui", description=__doc__)
    parser.add_argument("--data-dir", type=Path, help="memory to query for the stall probe")
    parser.add_argument("--query", default=DEFAULT_QUERY)
    parser.add_argument("--recolour-rounds", type=int, default=1_000)
    args = parser.parse_args(argv)
    rows, environment = run_benchmarks(args.data_dir, args.query, args.recolour_rounds)
    print(f"GUI benchmark ({environment})\n")
    print("| measure | result | target | met |")
    print("|---|---|---|---|")
    for item in rows:
        print(item.markdown())
    return 0 if all(r.ok is not False for r in rows) else 1


def run_benchmarks(
    data_dir: Path | None, query: str, recolour_rounds: int
) -> tuple[list[Row], str]:
    """Every measurement, in a fresh offscreen window; returns the rows and the environment."""
    if sys.platform.startswith("linux") and not os.environ.get("DISPLAY"):
        os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    import qasync
    from PySide6.QtCore import QSettings
    from PySide6.QtGui import QGuiApplication
    from PySide6.QtWidgets import QApplication

    from explorer.gui.bridge import ServiceBridge
    from explorer.gui.main_window import MainWindow

    app = QApplication.instance() or QApplication(sys.argv[:1])
    loop = qasync.QEventLoop(app)
    asyncio.set_event_loop(loop)
    rows: list[Row] = []

    def row(name: str, value_ms: float, extra: str = "") -> None:
        target = TARGETS_MS.get(name)
        rows.append(
            Row(
                name,
                f"{value_ms:.1f} ms{extra}",
                f"≤ {target:.0f} ms" if target is not None else "",
                None if target is None else value_ms <= target,
                value_ms,
            )
        )

    import tempfile

    scratch = tempfile.TemporaryDirectory(prefix="scour-bench-")
    store = QSettings(str(Path(scratch.name) / "bench.ini"), QSettings.Format.IniFormat)
    settings = None
    if data_dir is not None:
        from explorer.settings import load_settings

        settings = load_settings(overrides={"data_dir": data_dir})
    if settings is not None:
        from explorer.compose import SERVICES

        bridge = ServiceBridge(settings, services=SERVICES)
    else:
        bridge = ServiceBridge()  # no memory: the bridge only lays out
    window = MainWindow(bridge, settings_store=store)
    window.resize(1400, 860)
    window.show()
    view = window.graph_view
    app.processEvents()

    async def run_all() -> None:
        runs = []
        for _ in range(REPEATS):
            view.clear()
            app.processEvents()
            runs.append(bench_layout_and_draw(view))
        layout_ms, draw_ms, total = sorted(runs, key=lambda r: r[2])[len(runs) // 2]
        row(
            "layout+draw 1,000 nodes / 3,000 edges",
            total,
            f" median of {REPEATS} (layout {layout_ms:.0f}, draw {draw_ms:.0f})",
        )
        grows = sorted((bench_expand(view, parent) for parent in ("e5", "e50", "e500")), key=sum)
        exp_layout, exp_draw = grows[len(grows) // 2]
        row(
            "expand 50 nodes into it",
            exp_layout + exp_draw,
            f" median of {len(grows)} (layout {exp_layout:.0f}, draw {exp_draw:.0f})",
        )
        pans, zooms = bench_frames(view)
        row("pan frame", statistics.median(pans), f" median, {max(pans):.1f} max")
        row("zoom frame", statistics.median(zooms), f" median, {max(zooms):.1f} max")
        close = bench_zoomed_in_frames(view)
        row(
            "pan frame at 100 % zoom (all labels)",
            statistics.median(close),
            f" median, {max(close):.1f} max",
        )
        stall = await bench_bridge_stall(view, bridge)
        row("max event-loop stall, 1,000-node layout via the bridge", stall)
        if settings is not None:
            bridge.open()
            await _until(lambda: bridge.opened or bridge.is_closed, 900)
            if bridge.opened:
                await bench_query_stall(window, query)  # warm caches and the embedder
                stall, elapsed = await bench_query_stall(window, query)
                row(
                    "max event-loop stall, query + layout",
                    stall,
                    f" (query shown in {elapsed:.0f} ms)",
                )
        recolour = bench_recolour(rounds=recolour_rounds)
        rows.append(
            Row(
                f"recolour 20,000 items × {recolour_rounds:,}",
                f"{recolour / 1000:.1f} s, no crash",
                "no crash",
                True,
                recolour,
            )
        )
        await bridge.aclose()

    try:
        loop.run_until_complete(run_all())
    finally:
        window.hide()
        loop.close()
        scratch.cleanup()
    import PySide6

    environment = (
        f"PySide6 {PySide6.__version__}, Python {sys.version.split()[0]}, "
        f"platform {QGuiApplication.platformName()}, {os.cpu_count()} CPUs, "
        f"load average {os.getloadavg()[0]:.1f}"
    )
    return rows, environment


if __name__ == "__main__":
    raise SystemExit(main())
