"""scour's full answer for the README's example queries on the demo memory, pinned.

Speed work on scour (caches, snapshots, fewer round trips) must not change what it recalls: the
``--explain`` answer of each example, timings aside, is compared with the one recorded in
``tests/fixtures/scour/readme-examples.json``. After a change meant to alter recall, record it
again with ``SCOUR_PIN_WRITE=1`` and review the diff.
"""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from explorer.adapters.embedded import EmbeddedServers
from explorer.cli import main
from explorer.core.shape import ShapeCache

PINNED = Path(__file__).parents[1] / "fixtures" / "scour" / "readme-examples.json"
EXAMPLES = [
    ["who is working on what project"],
    ["who recommended the builder?", "--n-chunks", "5", "--kg-top-k", "5"],
    ["marathon", "--domain", "health", "--temporal", "2026-Q2", "--scope", "demo/assistant/maya"],
    ["Lisbon", "--preset", "full", "--min-relevance", "0.2", "--hops", "3"],
    ["Lisbon"],
    ["Declan Hughes", "--n-chunks", "1", "--kg-top-k", "1"],
    ["Who recommended the builder Maya hired?"],
]


@pytest.fixture(scope="module")
def pinned_demo(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """A demo memory of its own: the session's shared one may be written to by other tests."""
    data_dir = tmp_path_factory.mktemp("pinned-demo")
    servers = EmbeddedServers(data_dir)
    servers.start()
    try:
        assert main(["--data-dir", str(data_dir), "demo"]) == 0
        yield data_dir
    finally:
        servers.stop()


def _rounded(value: Any) -> Any:
    # Twelve digits: the pin is about what is recalled and how it scores, not the last ulp.
    if isinstance(value, float):
        return round(value, 12)
    if isinstance(value, dict):
        return {key: _rounded(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_rounded(item) for item in value]
    return value


def _answer(
    capsys: pytest.CaptureFixture[str], data_dir: Path, example: list[str], *, rebuild: bool
) -> Any:
    if rebuild:  # no saved search index: this command builds its own
        shutil.rmtree(data_dir / "indexes", ignore_errors=True)
    capsys.readouterr()
    assert main(["--data-dir", str(data_dir), "query", *example, "--explain"]) == 0
    answer = json.loads(capsys.readouterr().out)
    answer.pop("timings_ms", None)
    return _rounded(answer)


@pytest.mark.parametrize("from_shape", [False, True], ids=["store reads", "graph shape"])
def test_readme_examples_answer_as_pinned(
    capsys: pytest.CaptureFixture[str],
    pinned_demo: Path,
    monkeypatch: pytest.MonkeyPatch,
    from_shape: bool,
) -> None:
    # A one-shot command reads activation's neighbourhoods through the store (the graph's shape
    # loads in the background); waiting for the shape makes the same query read it instead.
    # The first pass also builds the search indexes each time; the second loads the ones saved.
    monkeypatch.setattr(ShapeCache, "wait_for_load", from_shape)
    answers = {
        " ".join(example): _answer(capsys, pinned_demo, example, rebuild=not from_shape)
        for example in EXAMPLES
    }
    if os.environ.get("SCOUR_PIN_WRITE") and not from_shape:
        PINNED.parent.mkdir(parents=True, exist_ok=True)
        PINNED.write_text(json.dumps(answers, indent=1, ensure_ascii=False) + "\n")
    pinned = json.loads(PINNED.read_text())
    assert set(answers) == set(pinned)
    for key, answer in answers.items():
        changed = [part for part in pinned[key] if answer.get(part) != pinned[key][part]]
        assert answer == pinned[key], f"scour's answer to {key!r} changed in {changed}: " + (
            json.dumps(answer.get(changed[0]))[:2000] if changed else ""
        )
