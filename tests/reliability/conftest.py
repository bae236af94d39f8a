"""Helpers for the fault matrix: the real CLI in a subprocess, each run bounded in time.

Every test here starts the command the way a user does (``python -m explorer``) against a data
directory of its own, with a clean environment, and checks the exit status, the one-line
message on stderr and that no server of that data directory is left running.
"""

from __future__ import annotations

import contextlib
import os
import subprocess
import sys
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

import psutil
import pytest

ROOT = Path(__file__).resolve().parents[2]
SERVER_NAMES = ("redis-server", "postgres")


@dataclass(frozen=True)
class Run:
    returncode: int
    stdout: str
    stderr: str
    seconds: float


def cli_env(home: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("SCOUR_", "PG"))}
    env["XDG_CONFIG_HOME"] = str(home / "config")
    env.pop("GEMINI_API_KEY", None)
    return env


def write_settings(data_dir: Path, **values: object) -> None:
    data_dir.mkdir(parents=True, exist_ok=True)
    lines = ["load_demo = false"]
    for name, value in values.items():
        lines.append(f"{name} = {value!r}" if not isinstance(value, str) else f'{name} = "{value}"')
    (data_dir / "settings.toml").write_text("\n".join(lines) + "\n")


def run_cli(
    args: Sequence[str], home: Path, *, timeout: float = 120.0, close_stdout: bool = False
) -> Run:
    """``scour-explorer ARGS`` to the end; ``close_stdout`` closes the reader at once, like
    ``| head``."""
    began = time.monotonic()
    process = subprocess.Popen(
        [sys.executable, "-m", "explorer", *args],
        cwd=ROOT,
        env=cli_env(home),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    if close_stdout:
        assert process.stdout is not None
        process.stdout.close()
        _, err = process.communicate(timeout=timeout)
        out = ""
    else:
        out, err = process.communicate(timeout=timeout)
    return Run(process.returncode, out, err, time.monotonic() - began)


def servers_under(data_dir: Path) -> list[psutil.Process]:
    """Live redis-server or postgres processes working in ``data_dir``."""
    found = []
    root = os.path.realpath(data_dir)
    for proc in psutil.process_iter(["name"]):
        with contextlib.suppress(psutil.Error):
            if (
                proc.info["name"] in SERVER_NAMES
                and os.path.realpath(proc.cwd()).startswith(root)
                and proc.status() != psutil.STATUS_ZOMBIE
            ):
                found.append(proc)
    return found


@contextlib.contextmanager
def tmpfs(where: Path, *, size: str, read_only: bool = False) -> Iterator[Path]:
    """A small tmpfs mounted at ``where`` (root only); skipped where mounting is not allowed."""
    where.mkdir(parents=True, exist_ok=True)
    options = f"size={size}" + (",ro" if read_only else "")
    if os.geteuid() != 0:
        pytest.skip("mounting a test filesystem needs root")
    done = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", options, "none", str(where)], capture_output=True
    )
    if done.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here: {done.stderr.decode(errors='replace')}")
    try:
        yield where
    finally:
        subprocess.run(["umount", "-l", str(where)], check=False)
