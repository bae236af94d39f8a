"""Measuring tools for the benchmarks: percentiles of samples, a peak-memory sampler, CPU time.

``summary`` turns millisecond samples into ``{"n", "p50", "p95", "p99", "mean", "max"}`` (nearest
rank, so a p99 over 200 samples is a real sample, not an interpolation). ``PeakMemory`` samples,
from a process of its own, the resident memory of this process and of each named server process
(PostgreSQL counted as its postmaster plus children by proportional set size, because its
backends share one buffer pool that plain RSS would count once per backend). ``CpuUse`` reads the
CPU time this process and each server (PostgreSQL with its backends) have used, so a phase's
cost per call can be told apart from the machine's speed at the time. Imports the standard
library and psutil.
"""

from __future__ import annotations

import json
import math
import os
import select
import subprocess
import sys
import time
from collections.abc import Iterable, Mapping
from typing import Any

import psutil

MB = 1024 * 1024


def percentile(sorted_samples: list[float], share: float) -> float:
    """Nearest-rank percentile of already sorted samples (0 when there are none)."""
    if not sorted_samples:
        return 0.0
    rank = max(1, math.ceil(share * len(sorted_samples)))
    return sorted_samples[min(rank, len(sorted_samples)) - 1]


def summary(samples: Iterable[float]) -> dict[str, float]:
    """``n``, ``p50``, ``p95``, ``p99``, ``mean`` and ``max`` of millisecond samples, rounded."""
    ordered = sorted(samples)
    if not ordered:
        return {"n": 0, "p50": 0.0, "p95": 0.0, "p99": 0.0, "mean": 0.0, "max": 0.0}
    return {
        "n": len(ordered),
        "p50": round(percentile(ordered, 0.50), 3),
        "p95": round(percentile(ordered, 0.95), 3),
        "p99": round(percentile(ordered, 0.99), 3),
        "mean": round(sum(ordered) / len(ordered), 3),
        "max": round(ordered[-1], 3),
    }


def _processes(servers: Mapping[str, int | None]) -> dict[str, psutil.Process]:
    """The named servers' processes (one that is gone or never started is left out)."""
    found: dict[str, psutil.Process] = {}
    for name, pid in servers.items():
        if pid:
            try:
                found[name] = psutil.Process(pid)
            except psutil.NoSuchProcess:
                continue
    return found


def _tree(proc: psutil.Process) -> list[psutil.Process]:
    try:
        return [proc, *proc.children(recursive=True)]
    except (psutil.NoSuchProcess, psutil.AccessDenied):
        return [proc]


def _tree_pss(proc: psutil.Process) -> float:
    total = 0.0
    for member in _tree(proc):
        try:
            info: Any = member.memory_full_info()
            total += float(getattr(info, "pss", info.rss))
        except (psutil.NoSuchProcess, psutil.AccessDenied):
            continue
    return total


def _rss(proc: psutil.Process) -> float:
    try:
        return float(proc.memory_info().rss)
    except (psutil.NoSuchProcess, psutil.AccessDenied):
        return 0.0


class PeakMemory:
    """Peak memory in MB of this process (``app``) and of the given servers while running.

    ``servers`` maps a name to a pid; a name in ``trees`` is measured with its children.
    Use as a context manager around the phases to measure. The sampling runs in a process of
    its own: reading a server's proportional set size costs milliseconds, and a thread here
    would take them, and the interpreter lock, from the calls being measured.
    """

    def __init__(
        self,
        servers: Mapping[str, int | None],
        *,
        trees: Iterable[str] = ("postgres",),
        interval: float = 0.25,
    ) -> None:
        self._plan = {
            "pids": {"app": os.getpid(), **{n: pid for n, pid in servers.items() if pid}},
            "trees": sorted(set(trees)),
            "interval": interval,
        }
        self._child: subprocess.Popen[str] | None = None
        self.peak: dict[str, float] = {"app": 0.0, **{name: 0.0 for name in servers}}

    def __enter__(self) -> PeakMemory:
        self._child = subprocess.Popen(
            [sys.executable, "-m", "explorer.bench.measure", json.dumps(self._plan)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )
        # The first sample is taken before the phases begin.
        assert self._child.stdout is not None
        self._child.stdout.readline()
        return self

    def __exit__(self, *exc: object) -> None:
        assert self._child is not None
        out, _ = self._child.communicate("", timeout=60)  # end of input: a last sample, then peaks
        lines = out.strip().splitlines()
        if lines:
            self.peak.update(json.loads(lines[-1]))

    def report(self) -> dict[str, float]:
        """Peaks in MB, plus ``app_max_rss``: the kernel's own high-water mark for this process."""
        import resource  # Unix only; imported here so the module imports everywhere

        figures = {name: round(value / MB, 1) for name, value in self.peak.items()}
        figures["app_max_rss"] = round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1)
        return figures


def _sample_until_told(plan: Mapping[str, Any]) -> None:
    """``PeakMemory``'s sampling process: samples every ``interval`` until its input ends, then
    prints the peaks in bytes as one JSON line."""
    procs = _processes(plan["pids"])
    trees = set(plan["trees"])
    peak = {name: 0.0 for name in plan["pids"]}

    def sample() -> None:
        for name, proc in procs.items():
            value = _tree_pss(proc) if name in trees else _rss(proc)
            peak[name] = max(peak[name], value)

    sample()
    print("ready", flush=True)
    while True:
        readable, _, _ = select.select([sys.stdin], [], [], plan["interval"])
        if readable and not sys.stdin.read(1):
            break
        sample()
    sample()
    print(json.dumps(peak), flush=True)


def _cpu_seconds(proc: psutil.Process, tree: bool) -> float:
    """CPU seconds of ``proc``, and with ``tree`` of its live children and of those it has
    reaped (so a backend that exits between two readings does not take its time away)."""
    total = 0.0
    for member in _tree(proc) if tree else [proc]:
        try:
            used = member.cpu_times()
        except (psutil.NoSuchProcess, psutil.AccessDenied):
            continue
        total += used.user + used.system
        if tree and member is proc:
            total += used.children_user + used.children_system
    return total


class CpuUse:
    """CPU seconds used so far by this process (``app``) and by each named server; a name in
    ``trees`` counts its children too (PostgreSQL's backends)."""

    def __init__(self, servers: Mapping[str, int | None], *, trees: Iterable[str] = ("postgres",)):
        self._procs = _processes(servers)
        self._trees = set(trees)

    def read(self) -> dict[str, float]:
        used = {"app": time.process_time()}
        for name, proc in self._procs.items():
            used[name] = _cpu_seconds(proc, name in self._trees)
        return used


if __name__ == "__main__":
    _sample_until_told(json.loads(sys.argv[1]))
