"""The headless commands run on uvloop where it is installed, and on asyncio's loop without it."""

from __future__ import annotations

import asyncio
import builtins
import sys
from typing import Any

import pytest

from explorer.cli import run_loop


async def _loop_module() -> int:
    return 1 if type(asyncio.get_running_loop()).__module__.startswith("uvloop") else 0


@pytest.mark.skipif(sys.platform == "win32", reason="uvloop is not installed on Windows")
def test_a_command_runs_on_uvloop() -> None:
    assert run_loop(_loop_module()) == 1


def test_without_uvloop_a_command_runs_on_asyncio(monkeypatch: pytest.MonkeyPatch) -> None:
    real_import = builtins.__import__

    def no_uvloop(name: str, *args: Any, **kwargs: Any) -> Any:
        if name == "uvloop":
            raise ImportError("no uvloop here")
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", no_uvloop)
    assert run_loop(_loop_module()) == 0
