"""The ``full`` preset's weights chosen by cross-validation over LoCoMo conversations.

Tuning on the questions one reports on flatters a retrieval method, so this reports what a choice
made *without* a conversation scores *on* it. Every candidate of ``GRID`` (variations of ``full``:
the activation weight, the contiguity credit share, the energy weak signals pass, the share of a
speaker's energy the answer to their turn takes) is asked every question once; then, for each fold
(by default one conversation held out at a time), the candidate with the best training objective —
R@5 plus multi-hop R@10 over the other conversations' questions — is chosen and scored on the
held-out conversation alone. The held-out scores of all folds together are the headline ``full
(cross-validated)`` row: every question answered by a choice that never saw its conversation. The
fixed configurations (``lexical``, ``vector``, ``hybrid`` and ``full`` as shipped) are reported
over the same questions for comparison. Imports the standard library, the core policy and the
LoCoMo evaluation.
"""

from __future__ import annotations

import itertools
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from explorer.core.errors import InvalidArgument
from explorer.core.policy import RetrievalPolicy, preset
from explorer.eval import write_report
from explorer.eval.locomo import (
    DEFAULT_KS,
    MULTI_HOP,
    Conversation,
    EvalMemory,
    Progress,
    RecallTally,
    ensure_ingested,
    format_table,
    print_progress,
    rank_questions,
    read_questions,
)

#: What the folds choose among: ``full`` with each combination of these values.
GRID: Mapping[str, tuple[float, ...]] = {
    "weights.activation": (0.6, 0.8, 1.0),
    "activation.contiguity": (0.1, 0.2, 0.3),
    "activation.weak_weight": (0.5, 1.0),
    "activation.reply_weight": (0.0, 0.7),
}
FIXED = ("lexical", "vector", "hybrid", "full")
CROSS_VALIDATED = "full (cross-validated)"


def _with(policy: RetrievalPolicy, setting: str, value: float) -> RetrievalPolicy:
    part, name = setting.split(".")
    return replace(policy, **{part: replace(getattr(policy, part), **{name: value})})


def candidates(grid: Mapping[str, Sequence[float]] = GRID) -> dict[str, RetrievalPolicy]:
    """``full`` with every combination of the grid's values, named by them."""
    base = preset("full")
    found: dict[str, RetrievalPolicy] = {}
    for values in itertools.product(*grid.values()):
        policy = base
        for setting, value in zip(grid, values, strict=True):
            policy = _with(policy, setting, value)
        name = " ".join(f"{s.split('.')[1]}={v:g}" for s, v in zip(grid, values, strict=True))
        found[name] = policy
    return found


@dataclass(frozen=True, slots=True)
class Answered:
    """One question's ranked turns under one configuration."""

    conversation: str
    category: int
    ranked: tuple[str, ...]
    evidence: tuple[str, ...]


def tally(answers: Sequence[Answered], ks: Sequence[int], keep: set[str]) -> RecallTally:
    counted = RecallTally(tuple(ks))
    for answer in answers:
        if answer.conversation in keep:
            counted.add(answer.category, answer.ranked, answer.evidence)
    return counted


def objective(counted: RecallTally) -> float:
    """R@5 plus multi-hop R@10: the two figures the retrieval is judged by."""
    body = counted.to_dict()
    multi = body["recall_by_category"].get(str(MULTI_HOP), {})
    return float(body["recall"].get("5", 0.0)) + float(multi.get("10", 0.0))


def folds(conversations: Sequence[Conversation], count: int | None) -> list[list[str]]:
    """Held-out groups of conversation ids: one each by default, else ``count`` round-robin."""
    ids = [conversation.sample_id for conversation in conversations]
    count = len(ids) if count is None else count
    if isinstance(count, bool) or not 2 <= count <= len(ids):
        raise InvalidArgument(f"folds must be between 2 and {len(ids)}, not {count!r}")
    return [ids[start::count] for start in range(count)]


async def _answers(
    memory: EvalMemory,
    conversations: Sequence[Conversation],
    policy: RetrievalPolicy,
    k: int,
) -> list[Answered]:
    ranked = await rank_questions(memory, conversations, policy, k)
    pairs = [(c, q) for c in conversations for q in c.questions]
    return [
        Answered(c.sample_id, q.category, tuple(turns), q.evidence)
        for (c, q), turns in zip(pairs, ranked, strict=True)
    ]


async def cross_validate(
    memory: EvalMemory,
    path: Path | str,
    *,
    fold_count: int | None = None,
    ks: Sequence[int] = DEFAULT_KS,
    grid: Mapping[str, Sequence[float]] = GRID,
    progress: Progress | None = None,
) -> dict[str, Any]:
    """``{"configs": {name: recall body}, "folds": [{held_out, chosen, train_objective}]}``."""
    ks = tuple(sorted(set(ks)))
    conversations = read_questions(Path(path))
    groups = folds(conversations, fold_count)
    await ensure_ingested(memory, Path(path), progress)
    every = {conversation.sample_id for conversation in conversations}
    policies = {name: preset(name) for name in FIXED}
    grid_policies = candidates(grid)
    answers: dict[str, list[Answered]] = {}
    for number, (name, policy) in enumerate({**policies, **grid_policies}.items(), 1):
        answers[name] = await _answers(memory, conversations, policy, max(ks))
        if progress is not None:
            progress("configurations", number, len(policies) + len(grid_policies))
    held_out: list[Answered] = []
    chosen: list[dict[str, Any]] = []
    for group in groups:
        training = every - set(group)
        scores = {name: objective(tally(answers[name], ks, training)) for name in grid_policies}
        best = max(scores, key=lambda name: (scores[name], name))
        held_out += [a for a in answers[best] if a.conversation in group]
        chosen.append({"held_out": group, "chosen": best, "train_objective": scores[best]})
    configs = {name: tally(answers[name], ks, every).to_dict() for name in policies}
    configs[CROSS_VALIDATED] = tally(held_out, ks, every).to_dict()
    return {"configs": configs, "folds": chosen, "grid": {k: list(v) for k, v in grid.items()}}


def format_folds(result: Mapping[str, Any]) -> str:
    """One line per fold: what it held out and which candidate the others chose."""
    lines = [
        "| held out | chosen on the other conversations | training objective |",
        "|---|---|---|",
    ]
    for fold in result["folds"]:
        held = ", ".join(fold["held_out"])
        lines.append(f"| {held} | {fold['chosen']} | {fold['train_objective']:.3f} |")
    return "\n".join(lines)


async def run_cross_validation(
    memory: EvalMemory,
    path: Path | str,
    ks: Sequence[int],
    fold_count: int | None,
    json_out: Path | str | None,
) -> int:
    """``eval locomo PATH --cross-validate``: the held-out table, the folds' choices, the JSON."""
    started = time.perf_counter()
    result = await cross_validate(
        memory, path, fold_count=fold_count, ks=ks, progress=print_progress
    )
    print(format_table(result["configs"]))
    print()
    print(format_folds(result))
    print(f"({time.perf_counter() - started:.0f} s)")
    if json_out is not None:
        await write_report(json_out, result)
    return 0
