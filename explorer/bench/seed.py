"""``scour-explorer bench``: scour at the seed system's scale, measured against the stores' floor.

The memory (45,000 entities, 140,000 relations, 53,000 chunks at ``seed`` scale; a tenth at
``small``) is generated once into its own data directory, ``bench-<scale>`` under the configured
one, by a child process that also plans the query workload; later runs find it by its counts and
reuse it. Building it in a child keeps the planner's memory out of the figures and lets this
process start the embedded servers afresh, so the first queries really are cold. Then, in order:
scour cold (the first queries after start: model load, empty caches) and warm, with the share of
the embedding, each half and the coordinator; the floor (``bench.floor``) for the same queries
and the ratio of the two medians; throughput at 1, 8 and 32 concurrent calls; spreading
activation alone over the largest neighbourhoods the queries fetched; and the peak memory of
this process and of each server throughout. Prints a markdown table with each target beside its
measured value, writes the figures as JSON, and adds the GUI bench's figures when that bench
exists. Imports the standard library, the settings, ``memory``, core, ingest and bench modules.
"""

from __future__ import annotations

import argparse
import asyncio
import heapq
import json
import os
import platform
import re
import subprocess
import sys
import time
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from explorer.bench.measure import CpuUse, PeakMemory, summary
from explorer.bench.report import gui_table, render, targets
from explorer.core.activation import AdjacencyIndex, SpreadingActivation
from explorer.core.errors import ExplorerError, InvalidArgument
from explorer.core.scour import ScourRequest, ScourResult
from explorer.ingest.progress import Progress, ProgressCallback
from explorer.ingest.synthetic import SCALES, Scale
from explorer.settings import Settings

#: The hidden ``tiny`` scale exists for the test suite; ``seed`` and ``small`` are the real ones.
BENCH_SCALES: dict[str, Scale] = {**SCALES, "tiny": Scale(entities=600, edges=1_800, chunks=700)}
SCOPE = "synthetic"
GENERATOR_SEED = 0
QUERY_SEED = 7
QUERY_POOL = 2_000
COLD_QUERIES = 10
WARMUP_QUERIES = 20
CONCURRENCY = (1, 8, 32)
ACTIVATION_NEIGHBOURHOODS = 5
ACTIVATION_RUNS = 30
INGEST_FILE = "bench-ingest.json"
QUERIES_FILE = "bench-queries.json"
PACKAGE_ROOT = str(Path(__file__).resolve().parents[2])
COMMAND = "scour-explorer bench --scale {scale} --queries {queries} --json bench-{scale}.json"


def _read_json(path: Path) -> Any:
    """The parsed file, or ``None`` when it does not exist."""
    if not path.exists():
        return None
    return json.loads(path.read_text(encoding="utf-8"))


def _write_json(path: Path, value: Any) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(value, indent=2, default=str), encoding="utf-8")


def bench_settings(settings: Settings, scale: str) -> Settings:
    """Embedded servers under ``bench-<scale>`` and the local embedder, whatever is configured."""
    return replace(
        settings,
        data_dir=Path(settings.data_dir) / f"bench-{scale}",
        falkordb_url=None,
        postgres_dsn=None,
        embedder="local",
        load_demo=False,
    )


# -- preparing the memory (runs in a child process) ------------------------------------------


def _say(message: str) -> None:
    print(f"  {message}", file=sys.stderr, flush=True)


def _stderr_progress() -> ProgressCallback:
    last: dict[str, float] = {}

    def report(step: Progress) -> None:
        now = time.monotonic()
        if step.done >= step.total or now - last.get(step.phase, 0.0) >= 2.0:
            last[step.phase] = now
            print(f"  {step.phase}: {step.done:,}/{step.total:,}", file=sys.stderr, flush=True)

    return report


async def prepare(settings: Settings, scale: str, pool: int = QUERY_POOL) -> dict[str, Any]:
    """Make sure the memory of ``scale`` and its query workload are in ``settings.data_dir``.

    Returns the ingest figures (``reused`` when nothing had to be written).
    """
    import resource

    from explorer.bench.workload import make_queries
    from explorer.compose import open_memory
    from explorer.ingest.generate import generate
    from explorer.ingest.synthetic import plan_memory

    size = BENCH_SCALES[scale]
    data_dir = Path(settings.data_dir)
    ingest_path = data_dir / INGEST_FILE
    saved = await asyncio.to_thread(_read_json, ingest_path)
    async with open_memory(settings) as memory:
        if memory.graph is None or memory.chunks is None:
            raise ExplorerError(f"the bench needs both stores: {memory.errors}")
        graph_counts = await memory.graph.counts()
        chunk_counts = await memory.chunks.counts()
        found = {
            "entities": int(graph_counts.get("entities", 0)),
            "relations": int(graph_counts.get("relations", 0)),
            "chunks": int(chunk_counts.get("chunks", 0)),
        }
        complete = saved is not None and all(found[key] == saved.get(key) for key in found)
        if complete:
            assert saved is not None
            ingest = {**saved, "reused": True}
        else:
            print(
                f"building the {scale} memory ({size.entities:,} entities, {size.edges:,} "
                f"relations, {size.chunks:,} chunks) in {data_dir}",
                file=sys.stderr,
                flush=True,
            )
            report = await generate(
                memory.graph,
                memory.chunks,
                memory.concepts,
                memory.embedder,
                entities=size.entities,
                edges=size.edges,
                chunks_n=size.chunks,
                seed=GENERATOR_SEED,
                scope=SCOPE,
                progress=_stderr_progress(),
            )
            ingest = {
                "seconds": round(report.total_seconds, 2),
                "records_per_second": round(report.records_per_second, 1),
                "entities": report.entities,
                "relations": report.relations,
                "chunks": report.chunks,
                "concepts": report.concepts,
                "mentions": report.mentions,
                "stages": report.seconds,
                "resumed": any(found.values()),
                "rss_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1),
            }
            await asyncio.to_thread(_write_json, ingest_path, ingest)
            ingest["reused"] = False
    queries_path = data_dir / QUERIES_FILE
    if await asyncio.to_thread(_read_json, queries_path) is None:
        planned = await asyncio.to_thread(
            plan_memory,
            entities=size.entities,
            edges=size.edges,
            chunks=size.chunks,
            seed=GENERATOR_SEED,
            scope=SCOPE,
        )
        workload = [q.as_dict() for q in make_queries(planned, pool, seed=QUERY_SEED)]
        await asyncio.to_thread(_write_json, queries_path, workload)
    return ingest


def _prepare_main(argv: Sequence[str]) -> int:
    parser = argparse.ArgumentParser(prog="explorer.bench.seed")
    parser.add_argument("data_dir", type=Path)
    parser.add_argument("scale", choices=sorted(BENCH_SCALES))
    parser.add_argument("--start-timeout", type=float, default=60.0)
    args = parser.parse_args(argv)
    settings = Settings(data_dir=args.data_dir, load_demo=False, start_timeout=args.start_timeout)
    ingest = asyncio.run(prepare(settings, args.scale))
    print(json.dumps(ingest))
    return 0


async def _prepare_in_child(settings: Settings, scale: str) -> dict[str, Any]:
    command = [
        sys.executable,
        "-m",
        "explorer.bench.seed",
        str(settings.data_dir),
        scale,
        "--start-timeout",
        str(settings.start_timeout),
    ]
    # The child must import this very package, installed or not.
    path = os.pathsep.join(p for p in (PACKAGE_ROOT, os.environ.get("PYTHONPATH", "")) if p)
    env = {**os.environ, "PYTHONPATH": path}
    child = await asyncio.create_subprocess_exec(
        *command, stdout=asyncio.subprocess.PIPE, stderr=None, env=env
    )
    out, _ = await child.communicate()
    if child.returncode != 0:
        raise ExplorerError(f"building the bench memory failed (exit {child.returncode})")
    lines = out.decode("utf-8", "replace").strip().splitlines()
    if not lines:
        raise ExplorerError("building the bench memory reported nothing")
    result: dict[str, Any] = json.loads(lines[-1])
    return result


# -- measuring ---------------------------------------------------------------------------------


@dataclass
class _Phase:
    """Per-query samples (ms) of a sequential run."""

    total: list[float] = field(default_factory=list)
    parts: dict[str, list[float]] = field(default_factory=dict)
    shares: dict[str, list[float]] = field(default_factory=dict)
    errors: int = 0

    def add(self, total_ms: float, result: ScourResult | None) -> None:
        self.total.append(total_ms)
        if result is None:
            self.errors += 1
            return
        if result.kg_error or result.chunks_error:
            self.errors += 1
        timings = dict(result.timings_ms)
        timings["associations"] = float(result.retrieval.timings_ms.get("associations", 0.0))
        for key in ("embed", "kg", "chunks", "associations", "coordinator", "total"):
            value = float(timings.get(key, 0.0))
            self.parts.setdefault(key, []).append(value)
            if key != "total" and total_ms > 0:
                self.shares.setdefault(key, []).append(value / total_ms)

    def report(self) -> dict[str, Any]:
        figures: dict[str, Any] = summary(self.total)
        figures["errors"] = self.errors
        figures["parts_p50"] = {key: summary(v)["p50"] for key, v in self.parts.items()}
        figures["shares_p50"] = {key: round(summary(v)["p50"], 3) for key, v in self.shares.items()}
        return figures


async def _scour_once(
    memory: Any, text: str, errors: Counter[str] | None = None
) -> tuple[float, ScourResult | None]:
    """Milliseconds of one scour and its JSON, and the result (``None`` when it raised)."""
    started = time.perf_counter()
    try:
        result: ScourResult = await memory.scour(ScourRequest(query=text, scope=SCOPE))
        result.to_json()
    except ExplorerError as error:
        if errors is not None:
            errors[_error_kind(str(error))] += 1
        return (time.perf_counter() - started) * 1000.0, None
    if errors is not None:
        for message in (result.kg_error, result.chunks_error):
            if message:
                errors[_error_kind(message)] += 1
    return (time.perf_counter() - started) * 1000.0, result


def _error_kind(message: str) -> str:
    """A message without its numbers, so one kind of failure is counted once."""
    return re.sub(r"\d+(\.\d+)?", "N", message)[:160]


class _Largest:
    """The queries whose fetched neighbourhoods were largest, kept with what activation needs."""

    def __init__(self, keep: int) -> None:
        self._keep = keep
        self._heap: list[tuple[int, int, Any]] = []
        self._counter = 0

    def offer(self, text: str, result: ScourResult | None) -> None:
        if result is None or result.retrieval.gathered is None:
            return
        associations = result.retrieval.gathered.associations
        if associations is None:
            return
        size = len(associations.subgraph.relations)
        seeds = {s.node: s.energy for s in result.retrieval.activation.steps if s.hop == 0}
        if not seeds or size == 0:
            return
        self._counter += 1
        item = (size, self._counter, (text, associations.subgraph, seeds, result))
        if len(self._heap) < self._keep:
            heapq.heappush(self._heap, item)
        elif size > self._heap[0][0]:
            heapq.heapreplace(self._heap, item)

    def items(self) -> list[tuple[str, Any, dict[str, float], ScourResult]]:
        return [entry[2] for entry in sorted(self._heap, key=lambda e: (-e[0], e[1]))]


async def _sequential(memory: Any, texts: Sequence[str], largest: _Largest | None = None) -> _Phase:
    phase = _Phase()
    for text in texts:
        elapsed, result = await _scour_once(memory, text)
        phase.add(elapsed, result)
        if largest is not None:
            largest.offer(text, result)
    return phase


async def _concurrent(memory: Any, texts: Sequence[str], workers: int) -> dict[str, Any]:
    latencies: list[float] = []
    errors = 0
    kinds: Counter[str] = Counter()
    position = 0

    async def worker() -> None:
        nonlocal errors, position
        while position < len(texts):
            text = texts[position]
            position += 1
            elapsed, result = await _scour_once(memory, text, kinds)
            latencies.append(elapsed)
            if result is None or result.kg_error or result.chunks_error:
                errors += 1

    started = time.perf_counter()
    await asyncio.gather(*(worker() for _ in range(workers)))
    wall = time.perf_counter() - started
    figures: dict[str, Any] = summary(latencies)
    figures["calls"] = len(latencies)
    figures["errors"] = errors
    figures["error_kinds"] = dict(kinds.most_common(5))
    figures["qps"] = round(len(latencies) / wall, 1) if wall > 0 else 0.0
    return figures


def _activation(largest: _Largest, params: Any) -> dict[str, Any]:
    engine = SpreadingActivation()
    cases = []
    in_hand: list[float] = []
    with_build: list[float] = []
    for text, subgraph, seeds, result in largest.items():
        index = AdjacencyIndex(subgraph)
        engine.spread(seeds, index, params)
        warm: list[float] = []
        built: list[float] = []
        for _ in range(ACTIVATION_RUNS):
            started = time.perf_counter()
            engine.spread(seeds, index, params)
            warm.append((time.perf_counter() - started) * 1000.0)
            started = time.perf_counter()
            engine.spread(seeds, AdjacencyIndex(subgraph), params)
            built.append((time.perf_counter() - started) * 1000.0)
        in_hand.extend(warm)
        with_build.extend(built)
        cases.append(
            {
                "query": text,
                "entities": len(subgraph.entities),
                "relations": len(subgraph.relations),
                "seeds": len(seeds),
                "spread_p50": summary(warm)["p50"],
                "spread_with_index_p50": summary(built)["p50"],
                "fetch_ms": round(float(result.retrieval.timings_ms.get("associations", 0.0)), 3),
            }
        )
    return {
        "params": {
            "hops": params.hops,
            "limit_per_node": params.limit_per_node,
            "node_budget": params.node_budget,
        },
        "largest": cases,
        "spread": summary(in_hand),
        "spread_with_index": summary(with_build),
    }


async def _floor(memory: Any, texts: Sequence[str]) -> dict[str, Any]:
    from explorer.bench.floor import Floor

    policy = memory.policy
    fetch = policy.fetch_factor
    request = ScourRequest(query="x", scope=SCOPE)
    probe = Floor(
        memory.graph,
        memory.chunks,
        memory.embedder,
        scope=SCOPE,
        graph_k=max(request.kg_top_k, policy.profile_slots) * fetch,
        chunk_k=request.n_chunks * fetch,
        dimension=memory.embedder.spec.dimension,
    )
    for text in texts[:WARMUP_QUERIES]:
        await probe.measure(text)
    samples = [await probe.measure(text) for text in texts]
    figures: dict[str, Any] = summary(s.total for s in samples)
    figures["embed"] = summary(s.embed for s in samples)
    figures["graph"] = summary(s.graph for s in samples)
    figures["vector"] = summary(s.vector for s in samples)
    figures["stores"] = summary(s.stores for s in samples)
    return figures


def _gui_figures() -> dict[str, Any] | None:
    """The GUI bench's figures, run in a child (Qt offscreen) so Qt stays out of this process.

    Uses the GUI bench's ``figures()`` when it has one, else reads the table its ``main`` prints.
    """
    import importlib.util

    if importlib.util.find_spec("explorer.bench.gui") is None:
        return None
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen"}
    env["PYTHONPATH"] = os.pathsep.join(p for p in (PACKAGE_ROOT, env.get("PYTHONPATH", "")) if p)
    code = (
        "import json, sys\n"
        "from explorer.bench import gui\n"
        "if hasattr(gui, 'figures'):\n"
        "    print(json.dumps(gui.figures()))\n"
        "else:\n"
        "    sys.exit(gui.main([]))\n"
    )
    try:
        done = subprocess.run(
            [sys.executable, "-c", code],
            capture_output=True,
            text=True,
            timeout=900,
            env=env,
            check=False,
        )
    except subprocess.TimeoutExpired:
        return {"error": "the GUI bench did not finish within 900 s"}
    lines = done.stdout.strip().splitlines()
    if lines and lines[-1].startswith("{"):
        figures: dict[str, Any] = json.loads(lines[-1])
        return figures
    table = gui_table(done.stdout)
    if not table:
        tail = (done.stderr or "").strip().splitlines()[-1:] or ["no output"]
        return {"error": f"the GUI bench failed (exit {done.returncode}): {tail[0]}"}
    return table


# -- the command -------------------------------------------------------------------------------


def _server_pids(memory: Any) -> dict[str, int | None]:
    pids: dict[str, int | None] = {"falkordb": None, "postgres": None}
    if memory.servers is None:
        return pids
    for status in memory.servers.status():
        name = "postgres" if "postgres" in status.name.lower() else "falkordb"
        pids[name] = status.pid
    return pids


async def measure(settings: Settings, scale: str, queries: int) -> dict[str, Any]:
    """Every figure but ingest and GUI, over an already prepared bench memory."""
    from explorer.compose import open_memory

    workload = await asyncio.to_thread(_read_json, Path(settings.data_dir) / QUERIES_FILE)
    texts = [item["text"] for item in workload][:queries]
    if len(texts) < queries:
        raise InvalidArgument(f"--queries can be at most {len(workload)}")
    largest = _Largest(ACTIVATION_NEIGHBOURHOODS)
    async with open_memory(settings, stop_servers=True) as memory:
        if memory.graph is None or memory.chunks is None:
            raise ExplorerError(f"the bench needs both stores: {memory.errors}")
        graph_counts = await memory.graph.counts()
        chunk_counts = await memory.chunks.counts()
        pids = _server_pids(memory)
        with PeakMemory(pids) as peak:
            _say(f"cold: the first {COLD_QUERIES} queries after start")
            cold = await _sequential(memory, texts[:COLD_QUERIES])
            await _sequential(memory, texts[COLD_QUERIES : COLD_QUERIES + WARMUP_QUERIES])
            # Warm means steady: what still loads in the background (the graph's shape) ends.
            settling = time.perf_counter()
            await memory.settle()
            settle_ms = (time.perf_counter() - settling) * 1000.0
            _say(f"warm: {len(texts)} queries, one at a time")
            cpu = CpuUse(pids)
            cpu_before = cpu.read()
            warm = await _sequential(memory, texts, largest)
            cpu_after = cpu.read()
            _say(f"floor: {len(texts)} queries")
            floor = await _floor(memory, texts)
            concurrency = {}
            for workers in CONCURRENCY:
                _say(f"throughput: {len(texts)} calls, {workers} at a time")
                concurrency[str(workers)] = await _concurrent(memory, texts, workers)
            _say("activation over the largest neighbourhoods")
            activation = _activation(largest, memory.policy.activation)
    warm_report = warm.report()
    warm_report["cpu_ms"] = {
        name: round((cpu_after[name] - cpu_before[name]) * 1000.0 / len(texts), 2)
        for name in cpu_after
    }
    cold_report = cold.report()
    cold_report["first"] = round(cold.total[0], 3) if cold.total else 0.0
    cold_report["settle_ms"] = round(settle_ms, 3)
    return {
        "counts": {
            "entities": int(graph_counts.get("entities", 0)),
            "relations": int(graph_counts.get("relations", 0)),
            "chunks": int(chunk_counts.get("chunks", 0)),
        },
        "scour": {key: warm_report[key] for key in ("n", "p50", "p95", "p99", "mean", "max")},
        "floor": floor,
        "ratio_p50": round(warm_report["p50"] / floor["p50"], 3) if floor["p50"] else 0.0,
        "cold": cold_report,
        "warm": warm_report,
        "concurrency": concurrency,
        "activation": activation,
        "rss_mb": peak.report(),
    }


async def run_bench(
    settings: Settings,
    *,
    scale: str = "seed",
    json_out: Path | None = None,
    queries: int = 200,
    gui: bool = True,
) -> int:
    """Build (once) and measure the bench memory of ``scale``; print the table, write JSON.

    ``gui`` False skips the GUI bench (the test suite checks that part on its own).
    """
    if scale not in BENCH_SCALES:
        raise InvalidArgument(f"--scale must be one of {', '.join(SCALES)}, not {scale!r}")
    if not 1 <= queries <= QUERY_POOL:
        raise InvalidArgument(f"--queries must be between 1 and {QUERY_POOL}")
    settings = bench_settings(settings, scale)
    ingest = await _prepare_in_child(settings, scale)
    figures: dict[str, Any] = {
        "scale": scale,
        "command": COMMAND.format(scale=scale, queries=queries),
        "queries": queries,
        "machine": {
            "cpus": os.cpu_count(),
            "python": platform.python_version(),
            "platform": platform.platform(terse=True),
        },
        "ingest": ingest,
        **await measure(settings, scale, queries),
    }
    if gui:
        _say("GUI bench (offscreen)")
    gui_figures = await asyncio.to_thread(_gui_figures) if gui else None
    if gui_figures is not None:
        figures["gui"] = gui_figures
    figures["targets"] = targets(figures)
    print(render(figures))
    if json_out is not None:
        await asyncio.to_thread(_write_json, Path(json_out), figures)
    return 0


if __name__ == "__main__":
    sys.exit(_prepare_main(sys.argv[1:]))
