"""Where ``fcntl``, ``pwd`` and ``resource`` are missing (Windows), every module of the app still
imports and the embedded servers refuse with a message that says what to do instead. Run in a
child process whose ``import`` refuses those modules to the app's own code (libraries keep theirs:
they ship their own Windows builds), so this process is untouched."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

CHILD = textwrap.dedent(
    """
    import builtins, importlib, pkgutil, sys

    real_import = builtins.__import__

    def windows_import(name, globals=None, locals=None, fromlist=(), level=0):
        caller = (globals or {}).get("__name__", "")
        if name in ("fcntl", "pwd", "resource") and caller.startswith("explorer"):
            raise ModuleNotFoundError(f"No module named {name!r}", name=name)
        return real_import(name, globals, locals, fromlist, level)

    builtins.__import__ = windows_import
    import explorer
    for info in pkgutil.walk_packages(explorer.__path__, "explorer."):
        if info.name != "explorer.__main__":
            importlib.import_module(info.name)
    from explorer.cli import main
    sys.exit(main(["--data-dir", sys.argv[1], "servers", "status"]))
    """
)


def test_imports_everywhere_and_refuses_embedded_servers_clearly(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-c", CHILD, str(tmp_path / "data")],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 2, done.stdout + done.stderr
    assert "Linux and macOS only" in done.stderr
    assert "falkordb_url and postgres_dsn" in done.stderr
    assert "Traceback" not in done.stderr
    assert not (tmp_path / "data").exists()
