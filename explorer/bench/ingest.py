"""Benchmark of a real import: a LoCoMo-format file into fresh embedded stores, timed.

``main(path)`` starts FalkorDB and PostgreSQL in a temporary data directory, imports the file with
the local embedder and the offline extractor, and prints a markdown table: turns, chunks,
entities, relations, concepts, seconds and turns per second, plus the time of each phase. The
target is the LoCoMo development file (2,760 turns) in under 30 seconds on two cores, embeddings
included; starting the servers is timed apart. The file's path is an argument: the benchmark
ships no data. Imports the standard library, the adapters and the ingest pipeline.
"""

from __future__ import annotations

import asyncio
import sys
import tempfile
import time
from pathlib import Path

from explorer.adapters.embedded import EmbeddedServers
from explorer.adapters.falkor import FalkorGraphStore
from explorer.adapters.local_embedder import LocalEmbedder
from explorer.adapters.postgres.chunks import PgChunkStore
from explorer.adapters.postgres.concepts import PgConceptStore
from explorer.ingest.pipeline import IngestReport, Stores, ingest_file

TARGET_SECONDS = 30.0


async def _import(servers: EmbeddedServers, path: Path, fmt: str) -> IngestReport:
    graph = await FalkorGraphStore.connect(socket_path=servers.falkordb_socket, graph="bench")
    chunks = await PgChunkStore.connect(servers.postgres_dsn)
    concepts = await PgConceptStore.connect(servers.postgres_dsn)
    embedder = LocalEmbedder()
    try:
        await embedder.embed(["warm up"])  # loading the model is start-up, not import
        return await ingest_file(Stores(chunks, graph, concepts, embedder), path, fmt)
    finally:
        for store in (graph, chunks, concepts):
            await store.aclose()


def run(path: Path, fmt: str = "locomo") -> tuple[IngestReport, float]:
    """Import ``path`` into fresh stores; the report and the seconds the servers took to start."""
    with tempfile.TemporaryDirectory(prefix="scour-bench-") as data_dir:
        servers = EmbeddedServers(Path(data_dir))
        started = time.perf_counter()
        servers.start()
        start_seconds = time.perf_counter() - started
        try:
            return asyncio.run(_import(servers, path, fmt)), start_seconds
        finally:
            servers.stop()


def main(path: str | Path | None = None, fmt: str = "locomo") -> None:
    if path is None:
        if len(sys.argv) < 2:
            raise SystemExit("usage: python -m explorer.bench.ingest PATH [FORMAT]")
        path = sys.argv[1]
        fmt = sys.argv[2] if len(sys.argv) > 2 else fmt
    report, start_seconds = run(Path(path), fmt)
    rate = report.turns / report.seconds if report.seconds else 0.0
    verdict = "met" if report.seconds < TARGET_SECONDS else "MISSED"
    print("| turns | chunks | entities | relations | concepts | seconds | turns/s | target |")
    print("| ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |")
    print(
        f"| {report.turns} | {report.chunks} | {report.entities} | {report.relations} | "
        f"{report.concepts} | {report.seconds:.1f} | {rate:.0f} | < {TARGET_SECONDS:.0f} s "
        f"({verdict}) |"
    )
    print()
    print("| phase | seconds |")
    print("| --- | ---: |")
    for phase, seconds in sorted(report.timings.items(), key=lambda item: -item[1]):
        print(f"| {phase} | {seconds:.2f} |")
    print(f"| (servers starting, not counted) | {start_seconds:.2f} |")


if __name__ == "__main__":
    main()
