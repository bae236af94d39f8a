"""The question sets shipped for retrieval checks read as the eval reads them, and every
evidence turn they cite is a turn of the conversation."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from explorer.eval.locomo import CATEGORIES, read_questions

EVAL = Path(__file__).parent.parent.parent / "resources" / "eval"
SETS = sorted(EVAL.glob("*.json"))  # the question sets (the gold files are .jsonl)


def test_the_sets_are_there() -> None:
    assert {"messaging-qa.json", "messaging-long.json", "longform-qa.json"} <= {
        p.name for p in SETS
    }


@pytest.mark.parametrize("path", SETS, ids=lambda path: path.name)
def test_every_cited_turn_exists(path: Path) -> None:
    raw = json.loads(path.read_text(encoding="utf-8"))
    for sample in raw:
        conversation = sample["conversation"]
        turns = {
            turn["dia_id"]
            for key, session in conversation.items()
            if key.startswith("session_") and isinstance(session, list)
            for turn in session
        }
        for item in sample["qa"]:
            if item.get("category") in CATEGORIES:
                assert set(item["evidence"]) <= turns, (sample["sample_id"], item["question"])
    questions = [q for c in read_questions(path) for q in c.questions]
    assert questions and all(q.evidence for q in questions)
