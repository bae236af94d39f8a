"""The suite's guard fails a test that leaves a thread or a server process running."""

from __future__ import annotations

import os
import signal
from pathlib import Path

import pytest

pytest_plugins = ["pytester"]

GUARD = Path(__file__).resolve().parents[1] / "leak_guard.py"


def _run(pytester: pytest.Pytester, body: str) -> pytest.RunResult:
    pytester.makeconftest(GUARD.read_text())
    pytester.makepyfile(test_inner=body)
    return pytester.runpytest_subprocess("-p", "no:cacheprovider")


def test_a_forgotten_thread_fails_the_test(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("LEAK_GRACE_SECONDS", "0.5")
    result = _run(
        pytester,
        "import threading, time\n"
        "def test_forgets():\n"
        "    threading.Thread(target=time.sleep, args=(20,), daemon=True, name='lost').start()\n"
        "def test_joins():\n"
        "    worker = threading.Thread(target=time.sleep, args=(0.1,))\n"
        "    worker.start()\n"
        "    worker.join()\n",
    )
    result.assert_outcomes(passed=2, errors=1)
    result.stdout.fnmatch_lines(["*left these running*", "*thread 'lost'*"])


def test_a_server_left_in_the_temporary_dir_fails_the_test(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("LEAK_GRACE_SECONDS", "0.5")
    pid_file = pytester.path / "server.pid"
    result = _run(
        pytester,
        "import subprocess, sys\n"
        "def test_starts_a_server(tmp_path):\n"
        "    server = subprocess.Popen(\n"
        "        [sys.executable, '-c', 'import time; time.sleep(30)', str(tmp_path / 'data')]\n"
        "    )\n"
        f"    open({str(pid_file)!r}, 'w').write(str(server.pid))\n",
    )
    try:
        result.assert_outcomes(passed=1, errors=1)
        result.stdout.fnmatch_lines(["*left these running*", "*process *time.sleep(30)*"])
    finally:
        os.kill(int(pid_file.read_text()), signal.SIGKILL)
