"""Shared by both embedded servers: statuses and failures, process handling, short commands,
private directories and the start/stop lock. Imports the standard library, ``psutil`` and
core errors.
"""

from __future__ import annotations

import contextlib
import importlib.util
import logging
import os
import signal
import stat
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import IO, TypeVar

import psutil

from explorer.core.errors import StoreUnavailable

try:
    import fcntl
    import pwd  # noqa: F401  # needed by access; both are missing together

    UNSUPPORTED = ""
except ImportError:  # Windows: the module still imports, the servers refuse to start.
    UNSUPPORTED = (
        "the embedded servers run on Linux and macOS only; on this system set falkordb_url and "
        "postgres_dsn to external servers"
    )


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
    launched: bool = False  # this call started it (rather than finding it running)


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
    env: dict[str, str] | None = None,
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
                env={**_clean_env(), **(env or {})},
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
