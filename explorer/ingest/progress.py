"""Progress of a long ingest: one value type, a tracker for the pipeline, a bar for the terminal.

The pipeline reports ``Progress(phase, done, total, rate, elapsed)`` (``explorer.core.progress``,
where the window reads it too) through a plain callback, always from the event loop's thread.
``CliProgressBar`` draws it on stderr: a redrawn bar with counts and rate on a terminal, one line
per finished phase otherwise. Imports the standard library and core.
"""

from __future__ import annotations

import sys
import time
from typing import TextIO

from explorer.core.progress import Progress, ProgressCallback

__all__ = ["CliProgressBar", "Progress", "ProgressBar", "ProgressCallback", "ProgressTracker"]


class ProgressTracker:
    """Counts one phase at a time and passes each step to the callback (if any)."""

    def __init__(self, callback: ProgressCallback | None) -> None:
        self._callback = callback
        self._phase = ""
        self._total = 0
        self._done = 0
        self._started = time.monotonic()

    def start(self, phase: str, total: int) -> None:
        self._phase, self._total, self._done = phase, max(total, 0), 0
        self._started = time.monotonic()
        self._report()

    def advance(self, count: int = 1) -> None:
        self.update(self._done + count)

    def update(self, done: int, total: int | None = None) -> None:
        if total is not None:
            self._total = max(total, 0)
        self._done = min(max(done, 0), self._total)
        self._report()

    def finish(self) -> None:
        self.update(self._total)

    def _report(self) -> None:
        if self._callback is None:
            return
        elapsed = time.monotonic() - self._started
        rate = self._done / elapsed if elapsed > 0 else 0.0
        self._callback(Progress(self._phase, self._done, self._total, rate, elapsed))


class CliProgressBar:
    """A progress callback that draws on a text stream (stderr by default)."""

    def __init__(self, stream: TextIO | None = None, width: int = 28, interval: float = 0.1):
        self._stream = stream if stream is not None else sys.stderr
        self._width = width
        self._interval = interval
        self._last_draw = 0.0
        self._interactive = bool(getattr(self._stream, "isatty", lambda: False)())
        self._closed_phase: str | None = None

    def __call__(self, progress: Progress) -> None:
        if progress.finished:
            if progress.phase == self._closed_phase:
                return  # a phase reported finished twice is drawn once
            self._closed_phase = progress.phase if progress.total else None
        else:
            self._closed_phase = None
        now = time.monotonic()
        if self._interactive:
            if progress.finished or now - self._last_draw >= self._interval:
                self._last_draw = now
                end = "\n" if progress.finished and progress.total else ""
                self._stream.write("\r" + self.render(progress) + end)
                self._stream.flush()
        elif progress.finished and progress.total:
            self._stream.write(self.render(progress) + "\n")
            self._stream.flush()

    def render(self, progress: Progress) -> str:
        share = progress.done / progress.total if progress.total else 1.0
        filled = round(share * self._width)
        bar = "#" * filled + "." * (self._width - filled)
        return (
            f"{progress.phase:<9} [{bar}] {progress.done}/{progress.total} "
            f"{progress.rate:,.0f}/s {progress.elapsed:.1f}s"
        )


ProgressBar = CliProgressBar
