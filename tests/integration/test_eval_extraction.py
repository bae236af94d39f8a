"""``eval extraction`` on the shipped demo gold: the real extractor and embedder; the JSON."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from explorer import assets
from explorer.cli import main
from explorer.core.models import RELATION_TYPES
from explorer.eval.extraction import read_gold

GOLD = assets.demo_dir() / "gold" / "extraction-gold.jsonl"
MESSAGE_FIELDS = ("conversation_id", "speaker", "text", "timestamp", "scope")


def _figures(body: dict[str, Any]) -> list[float]:
    return [
        *(
            body[part][key]
            for part in ("entities", "relations")
            for key in ("precision", "recall", "f1")
        ),
        body["alias_recall"],
    ]


def test_the_gold_is_taken_from_the_demo_and_annotated() -> None:
    demo = {
        tuple(record[field] for field in MESSAGE_FIELDS)
        for path in assets.demo_dir().glob("*.jsonl")
        for record in map(json.loads, path.read_text(encoding="utf-8").splitlines())
    }
    records = [json.loads(line) for line in GOLD.read_text(encoding="utf-8").splitlines()]
    assert len(records) >= 150
    assert all(tuple(record[field] for field in MESSAGE_FIELDS) in demo for record in records)
    relations = [relation for record in records for relation in record["relations"]]
    assert relations and {relation["type"] for relation in relations} <= set(RELATION_TYPES)
    gold = read_gold(GOLD)  # checks every line as the command does
    assert len(gold.turns) == len(records)


def test_the_command_scores_the_shipped_gold(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "scores.json"
    argv = [
        "--data-dir",
        str(tmp_path / "data"),
        "eval",
        "extraction",
        str(GOLD),
        "--json",
        str(out),
    ]
    assert main(argv) == 0
    table = capsys.readouterr().out
    assert "| **overall** |" in table
    result = json.loads(out.read_text(encoding="utf-8"))
    assert {"entities", "relations", "alias_recall", "per_conversation"} <= set(result)
    conversations = {record.conversation_id for record in read_gold(GOLD).turns}
    assert set(result["per_conversation"]) == conversations
    for body in (result, *result["per_conversation"].values()):
        assert all(isinstance(value, float) and 0.0 <= value <= 1.0 for value in _figures(body))
        counts = body["counts"]["entities"]
        assert 0 <= counts["matched"] <= min(counts["extracted"], counts["gold"])
    assert sum(body["messages"] for body in result["per_conversation"].values()) >= 150
