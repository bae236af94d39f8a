"""``IndexSnapshots`` as files: built search indexes kept under the data directory between runs.

A slot's snapshot is one uncompressed ``.npz`` file named by its kind and a hash of the slot, so
saving a newer one replaces it; the key it was built from is stored inside and compared on
load, so a snapshot of another state (or a file copied from elsewhere) reads as missing. Files
are written to a temporary name and renamed, so a reader (or a killed writer) never sees half a
snapshot; only the ``keep`` most recently saved slots of a kind stay. A file that cannot be read
is removed and reported missing, one that cannot be written is logged and skipped: a snapshot
only ever saves work. Imports the standard library and numpy.
"""

from __future__ import annotations

import contextlib
import hashlib
import logging
import os
import tempfile
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

log = logging.getLogger(__name__)

_KEY = "__key__"
#: A partial file this old belongs to a writer that was killed (a save takes well under a second).
ABANDONED_SECONDS = 3_600.0


def _stored_key(slot: str, key: str) -> str:
    # The slot too: a file moved under another slot's name is not taken for that slot's.
    return f"{slot}\n{key}"


class FileSnapshots:
    """Snapshots under ``directory`` (made when the first one is saved)."""

    def __init__(self, directory: Path, keep: int = 16) -> None:
        self.directory = Path(directory)
        self.keep = keep

    def _path(self, kind: str, slot: str) -> Path:
        digest = hashlib.sha256(slot.encode("utf-8")).hexdigest()[:32]
        return self.directory / f"{kind}-{digest}.npz"

    def load(self, kind: str, slot: str, key: str) -> Mapping[str, npt.NDArray[Any]] | None:
        path = self._path(kind, slot)
        try:
            # Opened here so a damaged file is closed even when numpy gives up on it.
            with path.open("rb") as file, np.load(file, allow_pickle=False) as stored:
                if stored[_KEY].tobytes().decode("utf-8") != _stored_key(slot, key):
                    return None
                return {name: stored[name] for name in stored.files if name != _KEY}
        except FileNotFoundError:
            return None
        except OSError as error:  # unreadable for now (permissions, too many open files)
            log.warning("index snapshot %s not read: %s", path.name, error)
            return None
        except Exception as error:  # a damaged or foreign file: whatever numpy or zip raise
            log.warning("unreadable index snapshot %s removed (%s)", path.name, error)
            with contextlib.suppress(OSError):
                path.unlink(missing_ok=True)
            return None

    def save(self, kind: str, slot: str, key: str, arrays: Mapping[str, npt.NDArray[Any]]) -> None:
        path = self._path(kind, slot)
        partial: Path | None = None
        try:
            self.directory.mkdir(parents=True, exist_ok=True)
            # A name of its own per save: two saves of one slot at once (two processes, or two
            # queries that both built it) each rename a whole file, the later one winning.
            handle, name = tempfile.mkstemp(dir=self.directory, prefix=path.name, suffix=".partial")
            partial = Path(name)
            with os.fdopen(handle, "wb") as file:
                named: dict[str, Any] = dict(arrays)
                named[_KEY] = np.frombuffer(_stored_key(slot, key).encode("utf-8"), np.uint8)
                np.savez(file, **named)
            os.replace(partial, path)
            self._prune(kind)
        except OSError as error:
            log.warning("index snapshot %s not saved: %s", path.name, error)
            if partial is not None:
                with contextlib.suppress(OSError):
                    partial.unlink(missing_ok=True)

    def clear(self) -> None:
        for path in (*self.directory.glob("*.npz"), *self.directory.glob("*.partial")):
            with contextlib.suppress(OSError):
                path.unlink(missing_ok=True)

    def _prune(self, kind: str) -> None:
        """Remove all but the ``keep`` most recently saved slots of ``kind``, and what writers
        that were killed left behind; a file another process removes meanwhile is skipped."""
        stamped: list[tuple[float, Path]] = []
        for path in self.directory.glob(f"{kind}-*"):
            with contextlib.suppress(OSError):
                stamped.append((path.stat().st_mtime, path))
        saved = sorted((item for item in stamped if item[1].suffix == ".npz"), reverse=True)
        stale = time.time() - ABANDONED_SECONDS
        abandoned = [item for item in stamped if item[1].suffix == ".partial" and item[0] < stale]
        for _, old in (*saved[self.keep :], *abandoned):
            with contextlib.suppress(OSError):
                old.unlink(missing_ok=True)
