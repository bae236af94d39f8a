"""The demo memory: the conversations shipped in ``resources/demo/*.jsonl``, loaded on first run.

``load_demo`` imports them (each record carries its own scope) when the memory holds no chunks
yet, or finishes a demo load that was interrupted; with ``reset`` it imports them again and
re-extracts, which restores the demo's entities, relations and concepts to what the files say.
Importing is idempotent, so loading twice never doubles anything. Imports the standard library,
``explorer.assets`` and ingest modules.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

from explorer.assets import demo_dir
from explorer.ingest.chunking import chunk_turns
from explorer.ingest.importers import Turn, read_turns
from explorer.ingest.pipeline import MemoryStores, ingest_turns, stored_ids
from explorer.ingest.progress import ProgressCallback

DEMO_GLOB = "*.jsonl"


def demo_turns(directory: Path | None = None) -> list[Turn]:
    """Every demo turn, files in name order; a demo file is written for the project, so strict."""
    folder = directory or demo_dir()
    turns: list[Turn] = []
    for path in sorted(folder.glob(DEMO_GLOB)):
        turns.extend(read_turns(path, "jsonl").turns)
    return turns


async def load_demo(
    memory: MemoryStores,
    *,
    progress: ProgressCallback | None = None,
    reset: bool = False,
    directory: Path | None = None,
) -> bool:
    """Load the demo if the memory is empty, half-loaded, or ``reset``; True if it was loaded."""
    turns = await asyncio.to_thread(demo_turns, directory)
    if not turns or memory.chunks is None:
        return False
    if not reset:
        ids = [chunk.id for chunk in chunk_turns(turns)]
        present = await stored_ids(memory.chunks, ids)
        if len(present) == len(set(ids)) and not await memory.chunks.pending():
            return False
        counts = await memory.chunks.counts()
        if not present and counts.get("chunks", 0) > 0:
            return False  # someone's own memory, without the demo: leave it be
    await ingest_turns(memory, turns, progress=progress, reextract=reset)
    return True
