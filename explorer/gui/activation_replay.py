"""The activation log as a replay: steps, frames (one per step or one per hop) and their captions.

``ActivationReplay`` holds an answer's ``ActivationLog`` (one step per transfer, in order) and
replays it, summing energies in log order exactly as the core's ``ActivationLog.replay`` does, so
every step and the final state agree with the log to the bit. ``frame_ends`` cuts the log into
frames: one per step, or one per hop (the log lists hops in order, so a hop is one run of
steps). ``caption`` says what a frame did in words a reader follows ("hop 2: Owen Price → Berlin
over LIVES_IN, +0.12"). No Qt; imports the standard library and the core's activation log.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from explorer.core.activation import ActivationLog, ActivationStep


@dataclass(frozen=True, slots=True)
class Step:
    node: str
    name: str
    energy: float
    source: str | None
    relation: str | None
    hop: int
    relation_type: str | None = None

    @property
    def over(self) -> str:
        """The relation the energy came over, as a reader names it (its type, else its id)."""
        return self.relation_type or self.relation or "?"


def step_of(step: ActivationStep) -> Step:
    return Step(
        node=step.node,
        name=step.name or step.node,
        energy=step.energy,
        source=step.source_node,
        relation=step.relation_id,
        hop=step.hop,
        relation_type=step.relation_type,
    )


def amount(energy: float) -> str:
    """An energy short enough for a caption; small ones keep enough digits to not read as 0."""
    return f"{energy:.2f}" if abs(energy) >= 0.01 else f"{energy:.4f}"


def sum_in_order(values: Iterable[float]) -> float:
    total = 0.0
    for value in values:
        total += value
    return total


class ActivationReplay:
    """The log of one spread, replayable step by step (see the module docstring)."""

    def __init__(self, steps: Sequence[Step] = ()) -> None:
        self.steps = list(steps)
        self.seeds = [s.node for s in self.steps if s.source is None]
        seeds = set(self.seeds)
        self.found = list(dict.fromkeys(s.node for s in self.steps if s.node not in seeds))
        #: Relation id → what a reader calls it, for the relations the spread went over.
        self.relation_names = {s.relation: s.over for s in self.steps if s.relation is not None}
        self.names: dict[str, str] = {}
        for step in self.steps:
            self.names.setdefault(step.node, step.name)

    @classmethod
    def of(cls, log: ActivationLog) -> ActivationReplay:
        return cls([step_of(step) for step in log.steps])

    def __len__(self) -> int:
        return len(self.steps)

    @property
    def hops(self) -> int:
        return max((s.hop for s in self.steps), default=0)

    def name(self, node: str) -> str:
        return self.names.get(node, node)

    def energies(self, upto: int) -> dict[str, float]:
        """Every node's energy after the first ``upto`` steps (as ``ActivationLog.replay``)."""
        state: dict[str, float] = {}
        for step in self.steps[: max(upto, 0)]:
            state[step.node] = state.get(step.node, 0.0) + step.energy
        return state

    def final(self) -> dict[str, float]:
        return self.energies(len(self.steps))

    def flows(self, upto: int, since: int = 0) -> dict[tuple[str, str, str], float]:
        """Energy carried per (from, to, relation) in steps ``since`` .. ``upto``."""
        carried: dict[tuple[str, str, str], float] = {}
        for step in self.steps[max(since, 0) : max(upto, 0)]:
            if step.source is None or step.relation is None:
                continue
            key = (step.source, step.node, step.relation)
            carried[key] = carried.get(key, 0.0) + step.energy
        return carried

    def arrivals(self, upto: int) -> dict[str, list[Step]]:
        """The steps that brought energy to each node, in log order."""
        found: dict[str, list[Step]] = {}
        for step in self.steps[: max(upto, 0)]:
            found.setdefault(step.node, []).append(step)
        return found

    def hop_end(self, hop: int) -> int:
        """The number of steps up to and including ``hop``."""
        return sum(1 for s in self.steps if s.hop <= hop)

    def frame_ends(self, by_hop: bool) -> list[int]:
        """How many steps are shown at each frame: 0 first, then after each step or each hop."""
        if not by_hop:
            return list(range(len(self.steps) + 1))
        ends, done = [0], 0
        for _hop, run in itertools.groupby(self.steps, key=lambda s: s.hop):
            done += sum(1 for _ in run)
            ends.append(done)
        return ends

    def caption(self, steps: Sequence[Step]) -> str:
        """What the steps of one frame did, for a reader following the replay."""
        if not steps:
            return f"before the spread: {len(self.seeds)} seeds" if self.steps else ""
        hops = sorted({s.hop for s in steps})
        hop = f"hop {hops[0]}" if len(hops) == 1 else f"hops {hops[0]}–{hops[-1]}"
        if len(steps) == 1:
            return f"{hop}: {self.describe(steps[0])}"
        strongest = max(steps, key=lambda s: s.energy)
        seeds = sum(1 for s in steps if s.source is None)
        if seeds == len(steps):
            return f"{hop}: {seeds} seeds; the strongest {self.describe(strongest)}"
        reached = len({s.node for s in steps})
        return (
            f"{hop}: {len(steps)} transfers to {reached} nodes; "
            f"the strongest {self.describe(strongest)}"
        )

    def describe(self, step: Step) -> str:
        if step.source is None:
            return f"{step.name} is a seed with {amount(step.energy)}"
        return f"{self.name(step.source)} → {step.name} over {step.over}, +{amount(step.energy)}"
