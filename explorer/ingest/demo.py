"""The demo memory: the conversations shipped in ``resources/demo/*.jsonl``, loaded on first run.

``load_demo`` imports them (each record carries its own scope) when the memory holds no chunks
yet, or finishes a demo load that was interrupted; with ``reset`` (after the service has
forgotten ``DEMO_SCOPE``) it imports them again, which restores the demo to what the files say.
The chunk store keeps a note of the demo (``DEMO_MARK``): a load that was cut short is finished
whatever ran since, and a memory whose demo the user forgot (``before_forget``), or that a
forget left without it (``after_forget``), never gets it back by itself.
Importing is idempotent, so loading twice never doubles anything. Imports the standard library,
``explorer.assets`` and ingest modules.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

from explorer.assets import demo_dir
from explorer.core.models import scope_distance
from explorer.core.overview import prefixed_counts
from explorer.core.ports import ChunkStore
from explorer.ingest.chunking import chunk_turns
from explorer.ingest.importers import Turn, read_turns
from explorer.ingest.pipeline import MemoryStores, ingest_turns, stored_ids
from explorer.ingest.progress import ProgressCallback

DEMO_GLOB = "*.jsonl"
#: Every demo record's scope lies below this one, so forgetting it removes the whole demo.
DEMO_SCOPE = "demo"
#: The note the chunk store keeps of the demo: being loaded, loaded in full, or forgotten.
DEMO_MARK = "demo"
LOADING, LOADED, FORGOTTEN = "loading", "loaded", "forgotten"


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
    """Load the demo into an empty memory, finish a load cut short, or (``reset``) load it
    again; True if it was loaded."""
    turns = await asyncio.to_thread(demo_turns, directory)
    if not turns or memory.chunks is None:
        return False
    if not reset and not await _wanted(memory.chunks, turns):
        return False
    await memory.chunks.write_mark(DEMO_MARK, LOADING)
    await ingest_turns(memory, turns, progress=progress, reextract=reset)
    await memory.chunks.write_mark(DEMO_MARK, LOADED)
    return True


async def _wanted(chunks: ChunkStore, turns: list[Turn]) -> bool:
    """Whether the demo goes in now: into an empty memory, or to finish a load cut short."""
    mark = await chunks.read_mark(DEMO_MARK)
    if mark is not None:
        return mark == LOADING  # loaded in full, or forgotten by the user: left as it is
    # No mark: a new memory, or one from before marks were kept.
    if not (await chunks.counts()).get("chunks", 0):
        return True
    ids = [chunk.id for chunk in chunk_turns(turns)]
    present = await stored_ids(chunks, ids)
    # None of it: someone's own memory. Part of it, or some of it pending: a load cut short.
    if not present:
        return False
    pending = {chunk.id for chunk in await chunks.pending()}
    return len(present) < len(set(ids)) or bool(pending & present)


async def before_forget(chunks: ChunkStore, scope: str) -> None:
    """Before ``scope`` is forgotten: if it holds the demo, in part or whole, the demo is the
    user's to keep out from now on (noted first, so a forget cut short does not bring it back)."""
    if scope_distance(scope, DEMO_SCOPE) == 0 or scope_distance(DEMO_SCOPE, scope) == 0:
        await chunks.write_mark(DEMO_MARK, FORGOTTEN)


async def after_forget(chunks: ChunkStore) -> None:
    """After a forget: a memory left without any of the demo does not get it by itself."""
    counts = prefixed_counts(await chunks.counts(), "scope:")
    if not any(count and scope_distance(scope, DEMO_SCOPE) == 0 for scope, count in counts.items()):
        await chunks.write_mark(DEMO_MARK, FORGOTTEN)
