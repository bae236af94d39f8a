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
import zipfile
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

log = logging.getLogger(__name__)

_KEY = "__key__"


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
        if not path.is_file():
            return None
        try:
            # Opened here so a damaged file is closed even when numpy gives up on it.
            with path.open("rb") as file, np.load(file, allow_pickle=False) as stored:
                if stored[_KEY].tobytes().decode("utf-8") != key:
                    return None
                return {name: stored[name] for name in stored.files if name != _KEY}
        except (OSError, ValueError, EOFError, KeyError, UnicodeDecodeError, zipfile.BadZipFile):
            log.warning("unreadable index snapshot %s removed", path.name)
            path.unlink(missing_ok=True)
            return None

    def save(self, kind: str, slot: str, key: str, arrays: Mapping[str, npt.NDArray[Any]]) -> None:
        path = self._path(kind, slot)
        partial = path.with_name(f"{path.name}.{os.getpid()}.partial")
        try:
            self.directory.mkdir(parents=True, exist_ok=True)
            with partial.open("wb") as file:
                named: dict[str, Any] = dict(arrays)
                named[_KEY] = np.frombuffer(key.encode("utf-8"), dtype=np.uint8)
                np.savez(file, allow_pickle=False, **named)
            os.replace(partial, path)
            self._prune(kind)
        except OSError as error:
            log.warning("index snapshot %s not saved: %s", path.name, error)
            with contextlib.suppress(OSError):
                partial.unlink(missing_ok=True)

    def _prune(self, kind: str) -> None:
        """Remove all but the ``keep`` most recently saved slots of ``kind``."""
        saved = sorted(
            self.directory.glob(f"{kind}-*.npz"), key=lambda p: p.stat().st_mtime, reverse=True
        )
        for old in saved[self.keep :]:
            old.unlink(missing_ok=True)
