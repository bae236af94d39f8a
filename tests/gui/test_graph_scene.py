"""The graph reads at a glance, checked from what the screenshot command says it drew.

The README's example queries run one after another in one window at 1280x800 (``--query``
repeated, as a user would ask them) over the real demo memory; ``--scene-json`` then describes
the last graph in scene coordinates. No two drawn labels may intersect, every result entity is
labelled, the legend lists every type on screen, and every node and label lies inside the view.
"""

from __future__ import annotations

import json
import subprocess
import sys
from typing import Any

import pytest

QUERIES = (
    "who recommended the builder?",
    "marathon",
    "Lisbon",
    "Who recommended the builder Maya hired?",
)


def _intersect(a: list[float], b: list[float]) -> bool:
    return a[0] < b[0] + b[2] and b[0] < a[0] + a[2] and a[1] < b[1] + b[3] and b[1] < a[1] + a[3]


def _inside(rect: list[float], view: list[float], slack: float = 1.0) -> bool:
    return (
        rect[0] >= view[0] - slack
        and rect[1] >= view[1] - slack
        and rect[0] + rect[2] <= view[0] + view[2] + slack
        and rect[1] + rect[3] <= view[1] + view[3] + slack
    )


@pytest.fixture(scope="module")
def scene(memory: Any, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    out = tmp_path_factory.mktemp("scene")
    args = [
        sys.executable,
        "-m",
        "explorer.cli",
        "--data-dir",
        str(memory.settings.data_dir),
        "--screenshot",
        str(out / "graph.png"),
        "--scene-json",
        str(out / "scene.json"),
        "--size",
        "1280x800",
    ]
    for query in QUERIES:
        args += ["--query", query]
    env = {"QT_QPA_PLATFORM": "offscreen", "PATH": "/usr/bin:/bin", "HOME": str(out)}
    done = subprocess.run(args, capture_output=True, text=True, env=env, timeout=300, check=False)
    assert done.returncode == 0, done.stderr[-2000:]
    assert (out / "graph.png").stat().st_size > 10_000
    parsed: dict[str, Any] = json.loads((out / "scene.json").read_text("utf-8"))
    return parsed


def test_no_two_labels_intersect(scene: dict[str, Any]) -> None:
    rects = [node["label"]["rect"] for node in scene["nodes"] if node["label"]]
    assert len(rects) >= 5
    for i, a in enumerate(rects):
        for b in rects[i + 1 :]:
            assert not _intersect(a, b), (a, b)


def test_every_result_entity_is_labelled(scene: dict[str, Any]) -> None:
    results = [node for node in scene["nodes"] if node["result"]]
    assert results
    for node in results:
        assert node["label"] is not None, node["name"]
        assert node["label"]["text"].startswith(node["name"][:20])


def test_legend_lists_every_type_present(scene: dict[str, Any]) -> None:
    shown = {node["type"] for node in scene["nodes"]}
    legend = {entry["type"]: entry for entry in scene["legend"]}
    assert shown == set(legend)
    for kind in shown:
        assert legend[kind]["count"] == sum(1 for n in scene["nodes"] if n["type"] == kind)
        assert legend[kind]["colour"].startswith("#")


def test_everything_fits_inside_the_view(scene: dict[str, Any]) -> None:
    view = scene["view"]
    for node in scene["nodes"]:
        r = node["radius"]
        assert _inside([node["x"] - r, node["y"] - r, 2 * r, 2 * r], view), node["name"]
        if node["label"]:
            assert _inside(node["label"]["rect"], view), node["label"]
    assert scene["edges"] and all(edge["count"] >= 1 for edge in scene["edges"])
