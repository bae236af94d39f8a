"""The desktop bundle, built by ``packaging/build`` and run the way a user runs it: from a clean
environment (no virtualenv on PATH, no PYTHONPATH, outside the checkout). The window's screenshot
comes out, the demo memory answers a query through the bundled stores and embedder, no server is
left behind, and the archive installs a launcher entry that validates."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import tarfile
from collections.abc import Iterator
from pathlib import Path

import psutil
import pytest
from PySide6.QtGui import QImage

import explorer
from explorer.assets import APP_ID

pytestmark = [pytest.mark.slow, pytest.mark.timeout(1800)]

ROOT = Path(__file__).resolve().parents[2]
SYSTEM_PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"


@pytest.fixture(scope="module")
def dist(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    out = tmp_path_factory.mktemp("bundle")
    done = subprocess.run(
        [
            str(ROOT / "packaging" / "build"),
            "--dist",
            str(out / "dist"),
            "--work",
            str(out / "work"),
        ],
        env={**os.environ, "PYTHON": sys.executable},
        capture_output=True,
        text=True,
        timeout=1500,
    )
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-4000:]
    yield out / "dist"
    # Over a gigabyte with the copies the install test makes; pytest would keep three runs.
    shutil.rmtree(out, ignore_errors=True)


def _clean_env(home: Path) -> dict[str, str]:
    env = {
        "PATH": SYSTEM_PATH,
        "HOME": str(home),
        "LANG": "C.UTF-8",
        "QT_QPA_PLATFORM": "offscreen",
    }
    assert str(Path(sys.executable).parent) not in env["PATH"].split(":")
    return env


def _run(argv: list[str], home: Path, timeout: float = 300) -> subprocess.CompletedProcess[str]:
    home.mkdir(parents=True, exist_ok=True)
    return subprocess.run(
        argv, env=_clean_env(home), cwd=home, capture_output=True, text=True, timeout=timeout
    )


def _left_running(bundle: Path, data: Path) -> list[str]:
    """Server processes (of the bundle, or on its data directory) still alive."""
    found = []
    for proc in psutil.process_iter(["pid", "name", "exe", "cmdline", "status"]):
        if proc.info["status"] == psutil.STATUS_ZOMBIE:
            continue
        if proc.info["name"] not in ("redis-server", "postgres"):
            continue
        exe = proc.info["exe"] or ""
        cmdline = " ".join(proc.info["cmdline"] or [])
        if exe.startswith(str(bundle)) or str(data) in cmdline:
            found.append(f"{proc.info['pid']} {exe} {cmdline}")
    return found


def test_bundle_holds_the_program_and_its_desktop_files(dist: Path) -> None:
    bundle = dist / "scour-explorer"
    program = bundle / "scour-explorer"
    assert program.is_file() and os.access(program, os.X_OK)
    share = bundle / "share"
    assert (share / "applications" / f"{APP_ID}.desktop").is_file()
    assert (share / "metainfo" / f"{APP_ID}.metainfo.xml").is_file()
    assert (share / "icons" / "hicolor" / "scalable" / "apps" / f"{APP_ID}.svg").is_file()
    for size in (16, 512):
        assert (share / "icons" / "hicolor" / f"{size}x{size}" / "apps" / f"{APP_ID}.png").is_file()
    archives = list(dist.glob(f"scour-explorer-{explorer.__version__}-*.tar.gz"))
    assert len(archives) == 1
    with tarfile.open(archives[0]) as archive:
        names = set(archive.getnames())
    assert {"scour-explorer/scour-explorer", "scour-explorer/install"} <= names


def test_bundled_window_screenshot_on_the_demo(dist: Path, tmp_path: Path) -> None:
    bundle = dist / "scour-explorer"
    program = str(bundle / "scour-explorer")
    data = tmp_path / "data"
    shot = tmp_path / "window.png"

    version = _run([program, "--version"], tmp_path)
    assert version.stdout.strip() == f"scour-explorer {explorer.__version__}", version.stderr

    done = _run(
        [program, "--data-dir", str(data), "--screenshot", str(shot), "--query", "Lisbon"], tmp_path
    )
    assert done.returncode == 0, done.stdout + done.stderr
    shown = re.search(r"shown: (\d+) entities, (\d+) chunks", done.stdout)
    assert shown is not None and min(map(int, shown.groups())) > 0, done.stdout
    image = QImage(str(shot))
    assert (image.width(), image.height()) == (1400, 900)
    colours = {image.pixel(x, y) for x in range(0, 1400, 7) for y in range(0, 900, 7)}
    assert len(colours) > 50, "the screenshot is blank"
    assert _left_running(bundle, data) == []

    # The demo was loaded into the bundled stores, and the bundled embedder and stores answer.
    query = _run([program, "--data-dir", str(data), "query", "Lisbon", "--n-chunks", "5"], tmp_path)
    assert query.returncode == 0, query.stderr
    answer = json.loads(query.stdout)
    assert answer["success"], answer
    assert not answer.get("kg_error") and not answer.get("chunks_error"), answer
    assert "Lisbon" in {entity["name"] for entity in answer["kg_entities"]}
    assert answer["chunk_count"] == 5
    assert any("Lisbon" in chunk["text"] for chunk in answer["chunks"])
    assert _left_running(bundle, data) == []


def test_archive_installs_a_valid_launcher_entry(dist: Path, tmp_path: Path) -> None:
    (archive,) = dist.glob("scour-explorer-*.tar.gz")
    unpacked = tmp_path / "unpacked"
    unpacked.mkdir()
    subprocess.run(["tar", "-xzf", str(archive), "-C", str(unpacked)], check=True, timeout=300)
    prefix = tmp_path / "prefix"
    done = _run([str(unpacked / "scour-explorer" / "install"), str(prefix)], tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr

    entry = prefix / "share" / "applications" / f"{APP_ID}.desktop"
    program = prefix / "lib" / "scour-explorer" / "scour-explorer"
    assert f'Exec="{program}"' in entry.read_text(encoding="utf-8").splitlines()
    assert (prefix / "share" / "icons" / "hicolor" / "48x48" / "apps" / f"{APP_ID}.png").is_file()
    version = _run([str(prefix / "bin" / "scour-explorer"), "--version"], tmp_path)
    assert version.stdout.strip() == f"scour-explorer {explorer.__version__}", version.stderr
    validator = shutil.which("desktop-file-validate")
    if validator is not None:
        checked = subprocess.run([validator, str(entry)], capture_output=True, text=True)
        assert checked.returncode == 0, checked.stdout + checked.stderr
    shutil.rmtree(unpacked)
    shutil.rmtree(prefix)
