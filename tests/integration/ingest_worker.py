"""Run one import against given stores; the crash-and-resume test kills it with SIGKILL.

Usage: python ingest_worker.py PATH FORMAT --socket S --graph G --dsn D --schema X [--batch N]
Prints each progress step as a JSON line (``{"phase", "done", "total"}``), then the report.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from explorer.adapters.falkor import FalkorGraphStore
from explorer.adapters.local_embedder import LocalEmbedder
from explorer.adapters.postgres.chunks import PgChunkStore
from explorer.adapters.postgres.concepts import PgConceptStore
from explorer.ingest import pipeline
from explorer.ingest.progress import Progress


def _print_progress(progress: Progress) -> None:
    line = {"phase": progress.phase, "done": progress.done, "total": progress.total}
    print(json.dumps(line), flush=True)


async def run(args: argparse.Namespace) -> dict[str, object]:
    pipeline.WRITE_BATCH = args.batch
    pipeline.ENTITY_BATCH = args.batch
    pipeline.RELATION_BATCH = args.batch * 2
    pipeline.CONCEPT_BATCH = args.batch
    graph = await FalkorGraphStore.connect(socket_path=args.socket, graph=args.graph)
    chunks = await PgChunkStore.connect(args.dsn, schema=args.schema)
    concepts = await PgConceptStore.connect(args.dsn, schema=args.schema)
    try:
        stores = pipeline.Stores(chunks, graph, concepts, LocalEmbedder())
        report = await pipeline.ingest_file(
            stores, args.path, args.format, scope=args.scope, progress=_print_progress
        )
        return report.as_dict()
    finally:
        for store in (graph, chunks, concepts):
            await store.aclose()


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("path", type=Path)
    parser.add_argument("format")
    parser.add_argument("--socket", required=True)
    parser.add_argument("--graph", required=True)
    parser.add_argument("--dsn", required=True)
    parser.add_argument("--schema", required=True)
    parser.add_argument("--scope")
    parser.add_argument("--batch", type=int, default=pipeline.WRITE_BATCH)
    print(json.dumps({"report": asyncio.run(run(parser.parse_args()))}), flush=True)


if __name__ == "__main__":
    main()
