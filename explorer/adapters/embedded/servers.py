"""The pair of embedded servers under one data directory, as the app and the CLI use them."""

from __future__ import annotations

import contextlib
import hashlib
import logging
import os
import threading
from pathlib import Path

from explorer.adapters.embedded import lease
from explorer.adapters.embedded.common import (
    UNSUPPORTED,
    ServersFailed,
    ServerStatus,
    _first_cause,
    _locked,
    _os_reason,
    _runtime_base,
)
from explorer.adapters.embedded.falkordb import _FalkorDB
from explorer.adapters.embedded.postgres import _Postgres
from explorer.core.errors import StoreUnavailable

_log = logging.getLogger(__name__)

#: Seconds without any process holding a lease before the watcher stops the servers.
IDLE_TIMEOUT = 30.0


class EmbeddedServers:
    """The pair of embedded servers that live under one data directory.

    ``DATA/falkordb`` holds the AOF, pid file, log and (when the path is short enough) the socket;
    ``DATA/postgres`` is PGDATA. Sockets that would exceed the unix path limit go to a 0700
    directory named after a hash of DATA under the user runtime dir (or the temp dir).
    Methods block; call them from a worker thread in async code.
    """

    def __init__(
        self,
        data_dir: Path,
        *,
        start_timeout: float = 30.0,
        reuse_timeout: float | None = None,
    ) -> None:
        if UNSUPPORTED:
            raise StoreUnavailable(UNSUPPORTED)
        # Resolved even before it exists: the server processes' cwd is compared against it, and
        # the permission walk must see real directories rather than symlinks.
        self._data_dir = data_dir.expanduser().resolve()
        self._timeout = start_timeout
        # How long a server found running may take to answer (default: start_timeout).
        self._reuse_timeout = reuse_timeout
        digest = hashlib.sha256(os.fsencode(self._data_dir)).hexdigest()[:16]
        self._runtime_base: Path | None = None
        self._thread_lock = threading.Lock()
        self._lease: lease.Lease | None = None
        self._falkordb = _FalkorDB(
            self._data_dir / "falkordb", self._runtime_path(f"scour-{digest}")
        )
        self._postgres = _Postgres(
            self._data_dir / "postgres", self._runtime_path(f"scour-{digest}-pg")
        )

    def _runtime_path(self, name: str) -> Path:
        if self._runtime_base is None:
            self._runtime_base = _runtime_base()
        return self._runtime_base / name

    @property
    def data_dir(self) -> Path:
        return self._data_dir

    @property
    def falkordb_socket(self) -> Path:
        return self._falkordb.socket

    @property
    def postgres_dsn(self) -> str:
        return self._postgres.dsn()

    def falkordb_pid(self) -> int | None:
        proc = self._falkordb.process()
        return proc.pid if proc is not None else None

    def postgres_pid(self) -> int | None:
        proc = self._postgres.process()
        return proc.pid if proc is not None else None

    def start(self) -> tuple[ServerStatus, ServerStatus]:
        """Start both servers, or reuse running ones, and keep them running until ``stop``
        (``servers start``); returns (falkordb, postgres).

        A server that is already up is left as it is; if the second fails the first keeps
        running, and ``stop`` ends both.
        """
        statuses, _ = self._start(persist=True)
        return statuses

    def open(self, idle_timeout: float = IDLE_TIMEOUT) -> tuple[ServerStatus, ServerStatus]:
        """Start or reuse both servers for this process, which holds a lease on them until
        ``close``. Unless they are persistent a watcher (one per data dir) stops them after
        ``idle_timeout`` seconds without any lease, should this process be killed.

        Raises ``ServersFailed`` for a server that did not start; the lease is held all the
        same (the other one is in use), so ``close`` must still be called.
        """
        statuses, _ = self._start(persist=False, idle_timeout=idle_timeout)
        return statuses

    def close(self) -> bool:
        """Let go of this process's lease; the last one out stops the servers unless they are
        persistent. True when this call stopped them."""
        held = self._lease
        if held is None:
            return False
        with self._thread_lock, _locked(self._lock_path, self._timeout * 3):
            held.release()
            self._lease = None
            if lease.persistent(self._data_dir) or lease.holders(self._data_dir):
                return False
            self._stop_locked()
        return True

    def watch(self, idle_timeout: float, poll: float = 1.0) -> bool:
        """Stop the servers once no lease has been held for ``idle_timeout`` seconds (the
        ``servers watch`` process); returns at once when another watcher has this data dir.
        True when it stopped them."""
        if not self._data_dir.is_dir():
            return False
        with lease.watching(self._data_dir) as mine:
            if not mine:
                return False
            grace = self._timeout * 3  # how long a start may take, lock wait included
            while lease.idle_for(self._data_dir, idle_timeout, poll, self._any_running, grace):
                with self._thread_lock, _locked(self._lock_path, self._timeout * 3):
                    # A process may have taken a lease between the last look and the lock.
                    if lease.persistent(self._data_dir) or lease.holders(self._data_dir):
                        continue
                    self._stop_locked()
                    return True
        return False

    def dead(self) -> list[str]:
        """The servers (``falkordb``, ``postgres``) whose process is not running."""
        return [server.NAME for server in (self._falkordb, self._postgres) if not server.process()]

    def revive(self) -> tuple[ServerStatus, ServerStatus]:
        """Start whichever server died (its AOF or WAL brings its data back); the running one
        is left alone. Raises ``ServersFailed`` like ``open``."""
        statuses, _ = self._start(persist=self.persistent)
        return statuses

    def restart(self, name: str) -> ServerStatus:
        """Stop the server ``name`` (gracefully, else by signal) and start it again."""
        server = {s.NAME: s for s in (self._falkordb, self._postgres)}.get(name)
        if server is None:
            raise StoreUnavailable(f"no embedded server named {name!r}")
        with self._thread_lock, _locked(self._lock_path, self._timeout * 3):
            try:
                server.stop(self._timeout)
                return server.start(self._timeout, self._reuse_timeout)
            except OSError as exc:
                raise StoreUnavailable(f"{name} could not restart: {_os_reason(exc)}") from exc

    def holders(self) -> list[str]:
        """The processes' leases on these servers (``pid.n``), stale ones removed."""
        return lease.holders(self._data_dir)

    @property
    def persistent(self) -> bool:
        return lease.persistent(self._data_dir)

    def _any_running(self) -> bool:
        return self._falkordb.process() is not None or self._postgres.process() is not None

    @property
    def _lock_path(self) -> Path:
        return self._data_dir / ".embedded.lock"

    def _start(
        self, *, persist: bool, idle_timeout: float = IDLE_TIMEOUT
    ) -> tuple[tuple[ServerStatus, ServerStatus], bool]:
        try:
            self._data_dir.mkdir(mode=0o700, parents=True, exist_ok=True)
        except OSError as exc:
            reason = f"cannot create the data dir {self._data_dir}: {_os_reason(exc)}"
            raise ServersFailed({"falkordb": reason, "postgres": reason}) from exc
        statuses: list[ServerStatus] = []
        failures: dict[str, str] = {}
        details: list[str] = []
        with self._thread_lock, _locked(self._lock_path, self._timeout * 3):
            if persist:
                lease.set_persistent(self._data_dir, True)
            elif self._lease is None:
                # Taken under the lock, so a process leaving now cannot stop them under us.
                self._lease = lease.take(self._data_dir)
                # Before starting anything: a process killed mid-start leaves nothing behind.
                if not lease.persistent(self._data_dir) and not lease.watched(self._data_dir):
                    try:
                        lease.spawn_watcher(self._data_dir, idle_timeout)
                    except StoreUnavailable as exc:
                        _log.warning("%s", exc)
            # Each is tried even when the other fails: one store is still half a memory.
            for server in (self._falkordb, self._postgres):
                try:
                    statuses.append(server.start(self._timeout, self._reuse_timeout))
                except StoreUnavailable as exc:
                    failures[server.NAME] = _first_cause(str(exc))
                    details.append(str(exc))
                except OSError as exc:
                    failures[server.NAME] = f"{server.NAME} could not start: {_os_reason(exc)}"
        launched = any(status.launched for status in statuses)
        if failures:
            raise ServersFailed(failures, "\n".join(details))
        for status in statuses:
            _log.info("%s: %s (pid %s) %s", status.name, status.detail, status.pid, status.address)
        return (statuses[0], statuses[1]), launched

    def stop(self) -> None:
        """Stop both servers gracefully, escalating to signals, whoever uses them, and end
        their persistence (``servers stop``); a no-op when none is running."""
        if not self._data_dir.is_dir():
            return
        with self._thread_lock, _locked(self._lock_path, self._timeout * 3):
            lease.set_persistent(self._data_dir, False)
            self._stop_locked()

    def _stop_locked(self) -> None:
        errors: list[str] = []
        for server in (self._falkordb, self._postgres):
            try:
                server.stop(self._timeout)
            except (StoreUnavailable, OSError) as exc:
                errors.append(f"{server.NAME}: {exc}")
        if errors:
            raise StoreUnavailable("could not stop embedded servers: " + "; ".join(errors))
        for runtime_dir in (self._falkordb.runtime_dir, self._postgres.runtime_dir):
            # rmdir refuses a non-empty directory, so one still holding a socket stays.
            with contextlib.suppress(OSError):
                runtime_dir.rmdir()

    def status(self) -> tuple[ServerStatus, ServerStatus]:
        """Report both servers without starting or stopping anything."""
        return self._falkordb.status(), self._postgres.status()
