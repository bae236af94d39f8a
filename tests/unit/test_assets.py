"""Shipped files are found as resources of ``explorer.resources``, and ``python -m explorer`` is
the command."""

from __future__ import annotations

import subprocess
import sys
from importlib.resources import files
from pathlib import Path

import pytest

import explorer
from explorer import assets


def test_demo_and_icons_are_resources_of_the_package() -> None:
    assert assets.demo_dir() == files("explorer.resources") / "demo"
    assert len(list(assets.demo_dir().glob("*.jsonl"))) >= 2
    assert assets.icon_svg().read_text(encoding="utf-8").lstrip().startswith("<?xml")
    for size in assets.ICON_SIZES:
        assert assets.icon_png(size).read_bytes().startswith(b"\x89PNG")
    with pytest.raises(ValueError, match="sizes are"):
        assets.icon_png(20)


def test_python_m_explorer_is_the_command(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "explorer", "--version"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == f"scour-explorer {explorer.__version__}"
