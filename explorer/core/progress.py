"""Progress of long work (an import, the demo load): one value type and the callback it goes to.

The pipeline reports ``Progress(phase, done, total, rate, elapsed)`` through a plain callback,
always from the event loop's thread, so the window can connect the same callback to a signal.
Imports only the standard library.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Progress:
    """Where a phase stands: ``done`` of ``total`` items at ``rate`` items per second."""

    phase: str
    done: int
    total: int
    rate: float
    elapsed: float

    @property
    def finished(self) -> bool:
        return self.done >= self.total

    def __str__(self) -> str:
        return f"{self.phase} {self.done}/{self.total} ({self.rate:,.0f}/s)"


ProgressCallback = Callable[[Progress], None]
