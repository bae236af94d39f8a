"""Who uses the embedded servers of a data directory: leases, the persistent mark, the watcher.

Every process that opens the memory holds a *lease*: a file under ``DATA/leases`` locked with
``flock`` for as long as the memory is open. The kernel drops the lock when the process ends,
even by SIGKILL, so a lease whose lock can be taken belongs to no one and is removed. The last
process to let go stops the servers, unless ``servers start`` made them *persistent* (a mark
``servers stop`` removes). A process that starts a server also starts a *watcher*
(``servers watch``): a small detached process that stops the servers once no lease has been
held for ``idle_timeout`` seconds, so a client that was killed leaves nothing running for
longer than that. Leases are taken and the last one's stop decided under the start/stop lock,
so a process arriving while another leaves never finds its servers stopped under it. Imports
the standard library and the package's common helpers.
"""

from __future__ import annotations

import contextlib
import itertools
import os
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

from explorer.adapters.embedded.common import _os_reason
from explorer.core.errors import StoreUnavailable

with contextlib.suppress(ImportError):  # Windows: see common.UNSUPPORTED
    import fcntl

LEASES = "leases"
PERSISTENT = ".persistent"
WATCHER_LOCK = ".watcher.lock"
_counter = itertools.count()


@dataclass
class Lease:
    """One open memory's claim on the servers; ``release`` (or the process ending) drops it."""

    path: Path
    fd: int

    def release(self) -> None:
        if self.fd < 0:
            return
        with contextlib.suppress(OSError):
            self.path.unlink()
        os.close(self.fd)
        self.fd = -1


def take(data_dir: Path) -> Lease:
    """A new lease for this process (one per open memory, so a reopen is counted apart)."""
    folder = data_dir / LEASES
    try:
        folder.mkdir(mode=0o700, exist_ok=True)
        path = folder / f"{os.getpid()}.{next(_counter)}"
        fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_TRUNC, 0o600)
    except OSError as exc:
        raise StoreUnavailable(f"cannot write a lease in {folder}: {_os_reason(exc)}") from exc
    fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    os.write(fd, f"{os.getpid()} {' '.join(sys.argv[:3])}\n".encode(errors="replace"))
    return Lease(path, fd)


def holders(data_dir: Path) -> list[str]:
    """The live leases (``pid.n``); leases of processes that have ended are removed."""
    folder = data_dir / LEASES
    try:
        names = sorted(os.listdir(folder))
    except OSError:
        return []
    live = []
    for name in names:
        path = folder / name
        try:
            fd = os.open(path, os.O_RDONLY)
        except OSError:
            continue
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            live.append(name)  # locked: its process is alive (this one's own leases too)
        else:
            with contextlib.suppress(OSError):
                path.unlink()
        finally:
            os.close(fd)
    return live


def persistent(data_dir: Path) -> bool:
    return (data_dir / PERSISTENT).exists()


def set_persistent(data_dir: Path, on: bool) -> None:
    mark = data_dir / PERSISTENT
    if on:
        mark.touch(mode=0o600)
    else:
        mark.unlink(missing_ok=True)


def spawn_watcher(data_dir: Path, idle_timeout: float) -> None:
    """Start ``servers watch`` for ``data_dir`` in its own session; it exits at once when one
    is already watching."""
    frozen = getattr(sys, "frozen", False)  # a bundle's executable is the command itself
    command = [sys.executable] if frozen else [sys.executable, "-m", "explorer"]
    command += ["--data-dir", str(data_dir), "servers", "watch", "--idle", f"{idle_timeout:g}"]
    env = {k: v for k, v in os.environ.items() if not k.startswith("PG")}
    try:
        # Through a shell that backgrounds it and exits: the watcher is nobody's child, so it
        # is never left a zombie of a long-lived app, and outlives the process that started it.
        subprocess.run(
            ["/bin/sh", "-c", '"$@" </dev/null >/dev/null 2>&1 &', "watch", *command],
            check=True,
            cwd="/",
            env=env,
            start_new_session=True,
            timeout=10,
        )
    except (OSError, subprocess.SubprocessError) as exc:
        raise StoreUnavailable(f"cannot start the servers' watcher: {exc}") from exc


@contextlib.contextmanager
def watching(data_dir: Path) -> Iterator[bool]:
    """Hold the one watcher's lock of ``data_dir``; yields False when another holds it."""
    fd = os.open(data_dir / WATCHER_LOCK, os.O_RDWR | os.O_CREAT, 0o600)
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            yield False
            return
        yield True
    finally:
        os.close(fd)


def watched(data_dir: Path) -> bool:
    """Whether a watcher holds this data dir's watcher lock now."""
    try:
        fd = os.open(data_dir / WATCHER_LOCK, os.O_RDWR | os.O_CREAT, 0o600)
    except OSError:
        return False
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        return True
    finally:
        os.close(fd)
    return False


def idle_for(
    data_dir: Path, seconds: float, poll: float, running: Callable[[], bool], grace: float
) -> bool:
    """Wait until no lease has been held for ``seconds`` (True), or until the servers are gone
    or made persistent (False); ``running`` tells whether any server runs. The watcher is
    started before the servers are, so for ``grace`` seconds none running is not the end."""
    idle_since: float | None = None
    began = time.monotonic()
    seen = False
    while True:
        if persistent(data_dir):
            return False
        if running():
            seen = True
        elif seen or time.monotonic() - began > grace:
            return False
        if holders(data_dir):
            idle_since = None
        elif idle_since is None:
            idle_since = time.monotonic()
        elif time.monotonic() - idle_since >= seconds:
            return True
        time.sleep(poll)
