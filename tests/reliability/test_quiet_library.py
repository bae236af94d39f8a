"""Using the library never configures the caller's logging (no handler, no level on root)."""

from __future__ import annotations

import subprocess
import sys

from tests.reliability.conftest import ROOT

PROGRAM = """
import asyncio, logging
import explorer.memory, explorer.tools.scour, explorer.adapters.embedded
from explorer.adapters.local_embedder import LocalEmbedder
asyncio.run(LocalEmbedder().embed(["Lisbon in spring"]))
root = logging.getLogger()
print(len(root.handlers), root.level)
"""


def test_importing_and_embedding_leave_the_root_logger_alone() -> None:
    done = subprocess.run(
        [sys.executable, "-c", PROGRAM], cwd=ROOT, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["0", "30"]
    assert done.stderr == ""
