"""Retrieval quality measured on public benchmarks, through the same scour path users get.

Each benchmark module reads its data from a path it is given (nothing is bundled), loads it into
the open memory when needed and reports recall per retrieval configuration. Imports the core, the
ingest pipeline and the memory handle; nothing here is imported by the core or the GUI.
``write_report`` is how each ``eval`` command writes its ``--json`` file.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any


async def write_report(json_out: Path | str, results: Any) -> None:
    """Write ``results`` as indented JSON to ``json_out`` (off the event loop) and say so."""
    text = json.dumps(results, indent=2, ensure_ascii=False) + "\n"
    await asyncio.to_thread(Path(json_out).write_text, text, encoding="utf-8")
    print(f"wrote {json_out}")
