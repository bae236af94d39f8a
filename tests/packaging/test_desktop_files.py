"""The files a desktop reads: the launcher entry and AppStream data pass their validators, and
they, the changelog and the packaging agree with the app on its id and its one version."""

from __future__ import annotations

import re
import shutil
import subprocess
import tomllib
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

import explorer
from explorer.assets import APP_ID

ROOT = Path(__file__).resolve().parents[2]
PACKAGING = ROOT / "packaging"
DESKTOP = PACKAGING / f"{APP_ID}.desktop"
METAINFO = PACKAGING / f"{APP_ID}.metainfo.xml"


def _validator(name: str) -> str:
    found = shutil.which(name)
    if found is None:
        pytest.skip(f"{name} is not installed")
    return found


def _entry() -> dict[str, str]:
    lines = DESKTOP.read_text(encoding="utf-8").splitlines()
    assert lines[0] == "[Desktop Entry]"
    return dict(line.split("=", 1) for line in lines[1:] if line and not line.startswith("#"))


def test_desktop_entry_validates() -> None:
    done = subprocess.run(
        [_validator("desktop-file-validate"), str(DESKTOP)], capture_output=True, text=True
    )
    assert done.returncode == 0 and not done.stdout.strip(), done.stdout + done.stderr


def test_metainfo_validates() -> None:
    done = subprocess.run(
        [_validator("appstreamcli"), "validate", "--no-net", str(METAINFO)],
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stdout + done.stderr


def test_entry_starts_the_command_with_the_app_icon() -> None:
    entry = _entry()
    assert entry["Type"] == "Application"
    assert entry["Exec"] == "scour-explorer"
    assert entry["Icon"] == APP_ID
    scripts = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    assert "scour-explorer" in scripts["scripts"]
    assert "scour-explorer-gui" in scripts["gui-scripts"]


def test_metainfo_names_the_entry_and_the_current_release() -> None:
    component = ET.parse(METAINFO).getroot()
    assert component.findtext("id") == APP_ID
    assert component.findtext("launchable") == DESKTOP.name
    assert component.findtext("provides/binary") == "scour-explorer"
    releases = component.findall("releases/release")
    assert releases[0].get("version") == explorer.__version__


def test_version_is_written_once() -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    assert "version" not in project and "version" in project["dynamic"]
    changelog = (ROOT / "CHANGELOG.md").read_text(encoding="utf-8")
    newest = re.search(r"^## (\S+)", changelog, re.MULTILINE)
    assert newest is not None and newest.group(1) == explorer.__version__


def test_license_is_mit() -> None:
    assert (ROOT / "LICENSE").read_text(encoding="utf-8").startswith("MIT License")
