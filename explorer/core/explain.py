"""Answering "why was X not recalled?" from a retrieval in hand, without asking the stores.

``why_not`` matches a name or phrase (a substring of a candidate's label or id, or of a node's
name in the activation log, with case, accents and runs of spaces ignored by ``core.text.fold``,
so "Jose" finds "José") and says, for each match, what happened to it: recalled (at which rank),
dropped by which gate at what value against which floor, kept but outranked (by which memories,
by how much), reached by activation but pruned (energy against the threshold, or the budget
full), or not a candidate at all (with the routes that were asked and those that were
unavailable). Imports only the standard library and core.
"""

from __future__ import annotations

from dataclasses import dataclass

from explorer.core.activation import PRUNED_BUDGET
from explorer.core.candidates import Dropped
from explorer.core.coordinator import CoordinatedRetrieval
from explorer.core.gates import GATE_BUDGET, GATE_RANK
from explorer.core.select import Recollection
from explorer.core.text import fold

RECALLED = "recalled"
DROPPED = "dropped"
OUTRANKED = "outranked"
PRUNED = "pruned"
NOT_A_CANDIDATE = "not a candidate"


@dataclass(frozen=True)
class Explanation:
    """One answer: the verdict, a sentence for the user, and the records behind it."""

    verdict: str
    message: str
    id: str = ""
    label: str = ""
    memory: Recollection | None = None
    dropped: Dropped | None = None
    outranked_by: tuple[Recollection, ...] = ()


def _matches(needle: str, *texts: str) -> bool:
    return any(needle in fold(text) for text in texts if text)


def _number(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.3f}"


def why_not(retrieval: CoordinatedRetrieval, text: str, limit: int = 20) -> list[Explanation]:
    """What happened to every candidate or activated node matching ``text`` (best first)."""
    needle = fold(text)
    if not needle:
        return []
    result = retrieval.result
    answers: list[Explanation] = []
    seen: set[str] = set()
    for memory in result.memories:
        candidate = memory.candidate
        if _matches(needle, candidate.label, candidate.id):
            seen.add(candidate.id)
            answers.append(
                Explanation(
                    RECALLED,
                    f"{candidate.label!r} was recalled at rank {memory.rank} with score "
                    f"{memory.score:.3f} ({candidate.source.value}, layer {candidate.layer.value})",
                    candidate.id,
                    candidate.label,
                    memory=memory,
                )
            )
    for entry in result.dropped:
        if entry.kind == "none" or not _matches(needle, entry.label, entry.id):
            continue
        seen.add(entry.id)
        if entry.gate in (GATE_RANK, GATE_BUDGET):
            rivals = tuple(
                m
                for m in result.memories
                if m.score >= (entry.value or 0.0)
                and (m.layer == entry.layer or entry.gate == GATE_BUDGET)
            )
            gap = None if entry.margin is None else max(entry.margin, 0.0)
            answers.append(
                Explanation(
                    OUTRANKED,
                    f"{entry.label!r} passed every gate but was outranked: {entry.reason}; "
                    f"its score {_number(entry.value)} fell {_number(gap)} short of the weakest "
                    f"memory kept ({_number(entry.threshold)})",
                    entry.id,
                    entry.label,
                    dropped=entry,
                    outranked_by=rivals,
                )
            )
        else:
            answers.append(
                Explanation(
                    DROPPED,
                    f"{entry.label!r} was dropped by the {entry.gate} gate: {entry.reason} "
                    f"(value {_number(entry.value)}, floor {_number(entry.threshold)}, "
                    f"found by {entry.source})",
                    entry.id,
                    entry.label,
                    dropped=entry,
                )
            )
    names = _activation_names(retrieval)
    for pruned in retrieval.activation.pruned:
        name = names.get(pruned.node, pruned.node)
        if pruned.node in seen or not _matches(needle, name, pruned.node):
            continue
        seen.add(pruned.node)
        why = (
            "the node budget was full"
            if pruned.reason == PRUNED_BUDGET
            else "that is below the activation threshold"
        )
        answers.append(
            Explanation(
                PRUNED,
                f"{name!r} was reached by activation in hop {pruned.hop} with energy "
                f"{pruned.energy:.4f}, but {why}",
                pruned.node,
                name,
            )
        )
    if not answers:
        asked = ", ".join(f"{route} ({count})" for route, count in result.sources.items())
        missing = ", ".join(result.unavailable)
        message = f"nothing matching {text!r} was a candidate; routes asked: {asked or 'none'}"
        if missing:
            message += f"; unavailable: {missing}"
        answers.append(Explanation(NOT_A_CANDIDATE, message))
    return answers[:limit]


def _activation_names(retrieval: CoordinatedRetrieval) -> dict[str, str]:
    gathered = retrieval.gathered
    if gathered is None or gathered.associations is None:
        return {}
    return {key: entity.name for key, entity in gathered.associations.subgraph.entities.items()}
