"""Running an import of the window against the memory service, as an ``ImportOutcome``.

Plain asyncio over ``core.ports.MemoryService`` (no Qt), used by the bridge, which emits the
outcome: ``import_file`` runs the import (a refusal or an OS error is the outcome's error; a
cancel propagates); ``finish_cancelled`` completes what a cancelled import already wrote.
Imports the core and the GUI's request values.
"""

from __future__ import annotations

from collections.abc import Callable

from explorer.core.errors import ExplorerError
from explorer.core.ports import MemoryService
from explorer.core.progress import Progress
from explorer.gui.requests import ImportOutcome, ImportRequest


async def import_file(
    memory: MemoryService, request: ImportRequest, progress: Callable[[Progress], None]
) -> ImportOutcome:
    try:
        report = await memory.import_file(
            request.path,
            request.format,
            scope=request.scope,
            skip_bad=request.skip_bad,
            progress=progress,
        )
    except (ExplorerError, OSError) as exc:
        return ImportOutcome(request, error=str(exc))
    return ImportOutcome(request, report=report)


async def finish_cancelled(
    memory: MemoryService, request: ImportRequest, progress: Callable[[Progress], None]
) -> ImportOutcome:
    try:
        completed = await memory.finish_pending(progress=progress)
    except ExplorerError as exc:
        message = f"cancelled; completing what was written failed ({exc}): import again"
        return ImportOutcome(request, cancelled=True, error=message)
    return ImportOutcome(request, cancelled=True, completed=completed)
