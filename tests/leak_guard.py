"""Every test must leave no thread and no server process behind (a plugin of tests/conftest.py).

Fixtures of a wider scope (a session's servers, a package's service thread) are set up before
this function-scoped guard takes its snapshot, so what they start is not counted; what the test
itself, or its function-scoped fixtures, started must be gone once they are torn down. A server
is any process whose command line names this session's temporary directory (embedded FalkorDB
and PostgreSQL run from data dirs there). Stopping takes a moment, so the guard waits a little
before it fails the test.
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Iterator

import psutil
import pytest

GRACE_SECONDS = float(os.environ.get("LEAK_GRACE_SECONDS", "10"))


def _threads() -> dict[int, threading.Thread]:
    # "asyncio_N" are the workers of the session event loop's default executor, a pool that
    # lives as long as the loop, not something a test started and forgot. Threads Python did
    # not start (Qt's own, once they call back into Python) stay listed as dummies after they
    # end, so they cannot be judged here.
    return {
        thread.ident: thread
        for thread in threading.enumerate()
        if thread.ident is not None
        and not thread.name.startswith("asyncio_")
        and not isinstance(thread, threading._DummyThread)
    }


def _servers(root: str) -> dict[str, int]:
    """Command line → pid. Keyed by the command line, which names the data dir, so a server a
    wider fixture owns that the test killed and the app restarted is still that fixture's."""
    found: dict[str, int] = {}
    for process in psutil.process_iter(["pid", "cmdline"]):
        command = " ".join(process.info["cmdline"] or ())
        if root in command:
            found[command] = process.info["pid"]
    return found


@pytest.fixture(autouse=True)
def leaves_nothing_running(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    root = str(tmp_path_factory.getbasetemp())
    threads, servers = set(_threads()), set(_servers(root))
    yield
    deadline = time.monotonic() + GRACE_SECONDS
    while True:
        threads_left = [t for key, t in _threads().items() if key not in threads]
        servers_left = {c: pid for c, pid in _servers(root).items() if c not in servers}
        if not threads_left and not servers_left:
            return
        if time.monotonic() > deadline:
            break
        time.sleep(0.1)
    lines = [f"thread {thread.name!r}" for thread in threads_left]
    lines += [f"process {pid}: {command[:160]}" for command, pid in servers_left.items()]
    pytest.fail("the test left these running:\n  " + "\n  ".join(lines), pytrace=False)
