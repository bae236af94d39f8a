"""Benchmark of the coordinator's pure work: ``decide`` at demo size, activation at 10k relations.

Synthetic, seeded data so every run measures the same work: about 300 candidates (chunks,
entities, concepts over a few scopes) with a 1,000-relation subgraph for ``decide``, and a
10,000-relation neighbourhood for spreading activation alone (with its adjacency index built
once, as a what-if re-run reuses it, and also timed with the build). Prints a markdown table of
p50/p95 in milliseconds. Imports only the standard library and ``explorer.core``.
"""

from __future__ import annotations

import random
import statistics
import time
from collections.abc import Callable
from datetime import UTC, datetime, timedelta

from explorer.core.activation import AdjacencyIndex, SpreadingActivation
from explorer.core.candidates import Associations, Candidate, CandidateKind, MemoryQuery, Source
from explorer.core.coordinator import decide
from explorer.core.models import Chunk, Entity, MemoryLayer, Relation, Subgraph
from explorer.core.policy import ActivationParams, RetrievalPolicy

NOW = datetime(2024, 6, 1, tzinfo=UTC)
SCOPES = ("demo/ana", "demo/ana/conv-1", "demo/ana/conv-2", "demo", "demo/bob")


def _graph(rng: random.Random, nodes: int, relations: int, prefix: str = "e") -> Subgraph:
    entities = {
        f"{prefix}{i}": Entity(
            f"{prefix}{i}",
            f"Entity {i}",
            "thing",
            salience=rng.random(),
            confidence=rng.uniform(0.5, 1.0),
            scope=rng.choice(SCOPES[:4]),
            layer=MemoryLayer.PROFILE if i % 25 == 0 else MemoryLayer.SEMANTIC,
            last_seen=NOW - timedelta(days=rng.randrange(400)),
        )
        for i in range(nodes)
    }
    edges = []
    for index in range(relations):
        # A skewed choice of ends, so some nodes are hubs as in a real memory.
        a = int(nodes * rng.random() ** 2)
        b = rng.randrange(nodes)
        edges.append(
            Relation(f"r{index}", f"{prefix}{a}", f"{prefix}{b}", "R", confidence=rng.random())
        )
    return Subgraph(entities=entities, relations=tuple(edges))


def demo_workload(
    seed: int = 7, candidates: int = 300, relations: int = 1_000
) -> tuple[list[Candidate], Associations, MemoryQuery]:
    """About ``candidates`` candidates and a ``relations``-relation subgraph around them."""
    rng = random.Random(seed)
    subgraph = _graph(rng, 400, relations)
    items: list[Candidate] = []
    for index in range(candidates):
        roll = index % 3
        scope = rng.choice(SCOPES)
        stamp = NOW - timedelta(days=rng.randrange(400))
        if roll == 0:
            chunk = Chunk(f"c{index}", "text " * 20, "conv-1", index, "user", stamp, scope=scope)
            items.append(
                Candidate(
                    id=chunk.id,
                    kind=CandidateKind.CHUNK,
                    label=chunk.text[:40],
                    layer=MemoryLayer.EPISODIC,
                    source=rng.choice((Source.VECTOR, Source.LEXICAL)),
                    scope=scope,
                    similarity=rng.random(),
                    lexical=rng.random(),
                    timestamp=stamp,
                    record=chunk,
                )
            )
        else:
            entity = subgraph.entities[f"e{rng.randrange(400)}"]
            concept = roll == 2 and index % 6 == 2
            items.append(
                Candidate(
                    id=entity.id,
                    kind=CandidateKind.CONCEPT if concept else CandidateKind.ENTITY,
                    label=entity.name,
                    layer=MemoryLayer.CONCEPT if concept else entity.layer,
                    source=Source.LEXICAL if concept else Source.GRAPH,
                    scope=entity.scope,
                    similarity=None if concept else rng.random(),
                    lexical=rng.random(),
                    salience=entity.salience,
                    confidence=entity.confidence,
                    timestamp=entity.last_seen,
                    record=entity,
                )
            )
    chunk_entities = {
        item.id: tuple(f"e{rng.randrange(400)}" for _ in range(3))
        for item in items
        if item.kind is CandidateKind.CHUNK
    }
    query = MemoryQuery(
        "demo", scope="demo/ana/conv-1", k={layer: 10 for layer in MemoryLayer}, max_entities=10
    )
    return items, Associations(subgraph=subgraph, chunk_entities=chunk_entities), query


def activation_workload(
    seed: int = 11, relations: int = 10_000
) -> tuple[dict[str, float], Subgraph, ActivationParams]:
    rng = random.Random(seed)
    subgraph = _graph(rng, 2_500, relations, prefix="a")
    seeds = {f"a{i}": rng.uniform(0.3, 1.0) for i in rng.sample(range(2_500), 10)}
    params = ActivationParams(hops=3, threshold=0.0005, node_budget=1_000, max_seeds=10)
    return seeds, subgraph, params


def _percentiles(samples: list[float]) -> tuple[float, float]:
    samples = sorted(samples)
    p95 = samples[min(len(samples) - 1, round(0.95 * (len(samples) - 1)))]
    return statistics.median(samples), p95


def _measure(work: Callable[[], object], runs: int) -> tuple[float, float, float, float]:
    """Wall-clock and CPU-time p50/p95 in ms; CPU time shows the work on a contended host."""
    work()
    wall, cpu = [], []
    for _ in range(runs):
        started, started_cpu = time.perf_counter(), time.process_time()
        work()
        cpu.append((time.process_time() - started_cpu) * 1000.0)
        wall.append((time.perf_counter() - started) * 1000.0)
    return (*_percentiles(wall), *_percentiles(cpu))


Row = tuple[str, float, float, float, float, str]


def run(runs: int = 200) -> list[Row]:
    """Rows of (what, wall p50, wall p95, cpu p50, cpu p95 in ms, target)."""
    candidates, associations, query = demo_workload()
    policy = RetrievalPolicy()
    engine = SpreadingActivation()
    rows: list[Row] = [
        (
            f"decide(): {len(candidates)} candidates, "
            f"{len(associations.subgraph.relations)} relations",
            *_measure(lambda: decide(candidates, query, policy, associations, engine=engine), runs),
            "≤ 5 ms p95",
        )
    ]
    seeds, subgraph, params = activation_workload()
    index = AdjacencyIndex(subgraph)
    rows.append(
        (
            f"activation: {len(subgraph.relations):,} relations, index in hand",
            *_measure(lambda: engine.spread(seeds, index, params), runs),
            "≤ 20 ms",
        )
    )
    rows.append(
        (
            f"activation: {len(subgraph.relations):,} relations, index built each run",
            *_measure(lambda: engine.spread(seeds, AdjacencyIndex(subgraph), params), runs // 4),
            "",
        )
    )
    return rows


def main() -> None:
    print("| work | p50 ms | p95 ms | CPU p50 ms | CPU p95 ms | target |")
    print("| --- | ---: | ---: | ---: | ---: | --- |")
    for what, p50, p95, cpu50, cpu95, target in run():
        print(f"| {what} | {p50:.2f} | {p95:.2f} | {cpu50:.2f} | {cpu95:.2f} | {target} |")


if __name__ == "__main__":
    main()
