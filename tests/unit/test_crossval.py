"""Cross-validated weights: each fold chooses without its held-out conversation."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import cast

import pytest

from explorer.core.errors import InvalidArgument
from explorer.core.policy import RetrievalPolicy, preset
from explorer.eval import crossval
from explorer.eval.crossval import CROSS_VALIDATED, candidates, cross_validate, folds
from explorer.eval.locomo import Conversation, EvalMemory, read_questions

FIXTURE = Path(__file__).parent.parent / "fixtures" / "eval" / "benchmark-tiny.json"
# Each conversation is answered perfectly by a different contiguity share, and by nothing else.
BEST = {"tiny-1": 0.3, "tiny-2": 0.0}


async def _scripted(
    memory: object,
    conversations: Sequence[Conversation],
    policy: RetrievalPolicy,
    k: int,
    on_done: object = None,
) -> list[list[str]]:
    ranked = []
    for conversation in conversations:
        perfect = policy.activation.contiguity == BEST.get(conversation.sample_id)
        for question in conversation.questions:
            ranked.append(list(question.evidence) if perfect else ["nothing"])
    return ranked


@pytest.fixture
def scripted(monkeypatch: pytest.MonkeyPatch) -> None:
    async def nothing_missing(memory: object, path: object, progress: object = None) -> list[str]:
        return []

    monkeypatch.setattr(crossval, "ensure_ingested", nothing_missing)
    monkeypatch.setattr(crossval, "rank_questions", _scripted)


def test_candidates_vary_full_along_the_grid() -> None:
    found = candidates({"weights.activation": (0.4, 0.8), "activation.contiguity": (0.0, 0.2)})
    assert list(found) == [
        "activation=0.4 contiguity=0",
        "activation=0.4 contiguity=0.2",
        "activation=0.8 contiguity=0",
        "activation=0.8 contiguity=0.2",
    ]
    chosen = found["activation=0.4 contiguity=0.2"]
    assert chosen.weights.activation == 0.4 and chosen.activation.contiguity == 0.2
    assert chosen.weights.lexical == preset("full").weights.lexical


def test_folds_hold_out_each_conversation_or_round_robin_groups() -> None:
    conversations = read_questions(FIXTURE)
    assert folds(conversations, None) == [["tiny-1"], ["tiny-2"]]
    with pytest.raises(InvalidArgument, match="folds must be between 2 and 2"):
        folds(conversations, 3)


@pytest.mark.usefixtures("scripted")
async def test_a_fold_scores_what_the_other_conversations_chose() -> None:
    memory = cast(EvalMemory, object())  # never asked: the script answers the questions
    result = await cross_validate(
        memory, FIXTURE, ks=(1, 5, 10), grid={"activation.contiguity": (0.0, 0.3)}
    )
    # Holding out tiny-1, the training conversation (tiny-2) prefers contiguity 0, which fails
    # on tiny-1, and the other way round: chosen in hindsight each would be perfect, held out
    # each scores nothing.
    assert [fold["chosen"] for fold in result["folds"]] == ["contiguity=0", "contiguity=0.3"]
    total = sum(len(c.questions) for c in read_questions(FIXTURE))
    held_out = result["configs"][CROSS_VALIDATED]
    assert held_out["questions"] == total and held_out["recall"]["5"] == 0.0
    # The fixed configurations are reported over the same questions.
    assert set(result["configs"]) == {"lexical", "vector", "hybrid", "full", CROSS_VALIDATED}
    assert all(body["questions"] == total for body in result["configs"].values())
