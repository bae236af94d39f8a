"""The README's query examples on the demo memory, through the real command: the default answer
is compact (at most 8 KB), ``--explain`` carries the full trace, and both keep the seed's fields."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from explorer.cli import main

LIMIT = 8 * 1024
SEED_KEYS = {"success", "query", "kg_entities", "kg_count", "chunks", "chunk_count"}
TRACE_KEYS = {"dropped", "activation", "answers", "layers", "sources", "unavailable", "timings_ms"}
EXAMPLES = [
    ["who is working on what project"],
    ["who recommended the builder?", "--n-chunks", "5", "--kg-top-k", "5"],
    ["marathon", "--domain", "health", "--temporal", "2026-Q2", "--scope", "demo/assistant/maya"],
    ["Lisbon", "--preset", "full", "--min-relevance", "0.2", "--hops", "3"],
]


def _query(capsys: pytest.CaptureFixture[str], data_dir: Path, *args: str) -> tuple[str, Any]:
    capsys.readouterr()
    assert main(["--data-dir", str(data_dir), "query", *args]) == 0
    text = capsys.readouterr().out
    return text, json.loads(text)


@pytest.mark.parametrize("example", EXAMPLES, ids=lambda e: e[0])
def test_readme_examples_are_compact_by_default_and_full_with_explain(
    capsys: pytest.CaptureFixture[str], demo_dir: Path, example: list[str]
) -> None:
    text, compact = _query(capsys, demo_dir, *example)
    full_text, full = _query(capsys, demo_dir, *example, "--explain")
    assert len(text.encode()) <= LIMIT, f"{len(text.encode())} bytes"
    assert set(compact) >= SEED_KEYS and set(full) >= SEED_KEYS
    assert not TRACE_KEYS & set(compact)
    assert set(full) >= TRACE_KEYS
    assert compact["kg_count"] > 0 and compact["chunk_count"] > 0
    # A route that failed in one of the two runs would explain their answers differing: say so.
    assert not compact.get("unavailable") and not full.get("unavailable"), (
        compact.get("unavailable"),
        [d["reason"] for d in full["dropped"] if d["kind"] == "none"],
    )
    names = [e["name"] for e in compact["kg_entities"]], [e["name"] for e in full["kg_entities"]]
    assert names[0] == names[1]
    assert [e["id"] for e in compact["kg_entities"]] == [e["id"] for e in full["kg_entities"]]
    assert [c["id"] for c in compact["chunks"]] == [c["id"] for c in full["chunks"]]
    for key in ("domain_filter", "temporal_filter"):
        asked = f"--{key.split('_')[0]}" in example
        assert (key in compact) == (key in full) == asked
    assert len(full_text) > 4 * len(text)
