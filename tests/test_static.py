"""The static checks belong to the test suite: style, types and the layering contracts."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def _tool(name: str) -> str:
    found = shutil.which(name, path=str(Path(sys.executable).parent))
    if found is None:
        pytest.fail(f"{name} is not installed beside {sys.executable}; install '.[test]'")
    return found


def _run(*command: str) -> None:
    done = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, f"{' '.join(command)} failed:\n{done.stdout}\n{done.stderr}"


def test_ruff_check() -> None:
    _run(_tool("ruff"), "check", "explorer", "tests")


def test_ruff_format() -> None:
    _run(_tool("ruff"), "format", "--check", "explorer", "tests")


def test_mypy_strict_core_and_adapters() -> None:
    _run(_tool("mypy"), "explorer")


def test_mypy_tests() -> None:
    _run(_tool("mypy"), "tests")


def test_import_contracts() -> None:
    _run(_tool("lint-imports"))
