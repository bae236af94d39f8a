"""Spreading activation over the graph around the kept hits, with a step-by-step log.

Seeds are entities with an energy in ``(0, 1]`` (their hits' scores). At each hop every node
that became active in the previous hop *fires once*: it passes ``energy * decay * confidence /
fan`` (times ``weak_weight`` over a weak signal, see ``ActivationParams``) over each of its
relations, in both directions, where ``fan`` is its number of relations in the subgraph (the fan
effect of ACT-R, so a hub spreads thinly instead of flooding the graph; with
``fan_normalisation`` off, ``fan`` is 1). A node not yet active becomes active when what it
received in one hop reaches ``threshold`` and the ``node_budget`` (seeds included) has room; the
strongest go first, ties by id. Energy that does not activate a node is discarded (and listed in
``pruned``); energy reaching an already active node is added to it but never re-spread.

A node never passes energy straight back to the nodes it got its energy from (no echo), though
longer cycles may return some. Energy decays: with fan normalisation and confidences in
``[0, 1]`` the energy passed in hop ``h`` is at most ``decay`` times the energy fired in hop
``h - 1``, hence at most ``decay ** h`` times the seeds' total (conserved exactly when ``decay``
is 1, every confidence 1, nothing is pruned and no relation leads back to a feeder). Without
fan normalisation a node passes up to ``decay`` times its energy to *each* neighbour, so totals
can grow with fan-out: that mode exists to show what the fan effect prevents.

Deterministic: nodes fire in id order and each node's relations are taken in (neighbour id,
relation id) order, so the log does not depend on the order the store returned relations in.
Every transfer that lands on an active node is an ``ActivationStep``; a node's final energy is the
sum of its steps in log order. Nothing is stored between calls. Imports only the standard
library and core.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import NamedTuple

from explorer.core.models import WEAK_RELATIONS, Relation, Subgraph
from explorer.core.policy import ActivationParams

PRUNED_THRESHOLD = "threshold"
PRUNED_BUDGET = "budget"


class ActivationStep(NamedTuple):
    """Energy arriving at ``node`` in ``hop``: from ``source_node`` over a relation, or a seed."""

    node: str
    name: str
    energy: float
    source_node: str | None
    relation_id: str | None
    relation_type: str | None
    hop: int

    def to_json_dict(self) -> dict[str, object]:
        return {
            "node": self.node,
            "name": self.name,
            "energy": self.energy,
            "from": self.source_node,
            "relation": self.relation_id,
            "relation_type": self.relation_type,
            "hop": self.hop,
        }


class PrunedNode(NamedTuple):
    """A node that received energy but did not become active, and why."""

    node: str
    energy: float
    hop: int
    reason: str


@dataclass(frozen=True)
class ActivationLog:
    """One spread, fully recorded; ``energy`` is the final state the steps add up to.

    ``received`` is what each active node got from other nodes (a seed's own energy excluded);
    ``found`` lists the active nodes that were not seeds, in the order they became active.
    """

    steps: tuple[ActivationStep, ...] = ()
    energy: Mapping[str, float] = field(default_factory=dict)
    received: Mapping[str, float] = field(default_factory=dict)
    seeds: tuple[str, ...] = ()
    found: tuple[str, ...] = ()
    pruned: tuple[PrunedNode, ...] = ()

    @property
    def hops(self) -> int:
        return max((step.hop for step in self.steps), default=0)

    def replay(self, upto: int) -> dict[str, float]:
        """The energy of every node after the first ``upto`` steps of the log."""
        state: dict[str, float] = {}
        for step in self.steps[: max(upto, 0)]:
            state[step.node] = state.get(step.node, 0.0) + step.energy
        return state

    def to_json_list(self) -> list[dict[str, object]]:
        return [step.to_json_dict() for step in self.steps]


Edge = tuple[str, str, str, float]  # neighbour id, relation id, relation type, weight


class AdjacencyIndex:
    """The subgraph as adjacency lists; ``Associations.index`` builds it once per fetched subgraph.

    A node's relations are put in (neighbour id, relation id) order only when it first fires,
    into a separate map, so building stays linear and concurrent readers in other threads never
    see a list half-sorted.
    """

    __slots__ = ("_ordered", "adjacency", "relation_count", "subgraph")

    def __init__(self, subgraph: Subgraph) -> None:
        self.adjacency: dict[str, list[Edge]] = {}
        self._ordered: dict[str, list[Edge]] = {}
        self._add(subgraph.relations)
        self._describe(subgraph)

    def grown(self, subgraph: Subgraph, added: Iterable[Relation]) -> AdjacencyIndex:
        """The index of ``subgraph``, which is this index's subgraph with ``added`` relations
        (and their entities): only the nodes they touch are copied, and this index is left
        as it was for whoever still reads it."""
        index = AdjacencyIndex.__new__(AdjacencyIndex)
        added = tuple(added)
        touched = {end for relation in added for end in (relation.source_id, relation.target_id)}
        adjacency = index.adjacency = dict(self.adjacency)
        for node in touched & adjacency.keys():
            adjacency[node] = list(adjacency[node])  # the old index keeps its own list
        index._add(added)
        index._ordered = {n: e for n, e in self._ordered.items() if n not in touched}
        index._describe(subgraph)
        return index

    def _add(self, relations: Iterable[Relation]) -> None:
        """Add each relation from both ends (the hot loop of building: kept flat)."""
        adjacency = self.adjacency
        for relation in relations:
            source, target = relation.source_id, relation.target_id
            if source == target:
                continue
            weight = relation.confidence
            weight = 0.0 if not weight > 0.0 else 1.0 if weight > 1.0 else weight
            key, kind = relation.id, relation.type
            edges = adjacency.get(source)
            if edges is None:
                adjacency[source] = [(target, key, kind, weight)]
            else:
                edges.append((target, key, kind, weight))
            edges = adjacency.get(target)
            if edges is None:
                adjacency[target] = [(source, key, kind, weight)]
            else:
                edges.append((source, key, kind, weight))

    def _describe(self, subgraph: Subgraph) -> None:
        self.subgraph = subgraph
        self.relation_count = len(subgraph.relations)

    def name(self, node: str) -> str:
        """The node's entity name (its id when the subgraph holds no record of it)."""
        entity = self.subgraph.entities.get(node)
        return node if entity is None else entity.name

    def edges(self, node: str) -> list[Edge]:
        """The node's relations in deterministic order (empty for an unknown node)."""
        ordered = self._ordered.get(node)
        if ordered is None:
            ordered = self._ordered[node] = sorted(self.adjacency.get(node, ()))
        return ordered

    def degree(self, node: str) -> int:
        return len(self.adjacency.get(node, ()))


class SpreadingActivation:
    """The spreading-activation engine; stateless, so one instance serves concurrent calls."""

    def spread(
        self,
        seeds: Mapping[str, float],
        graph: Subgraph | AdjacencyIndex,
        params: ActivationParams,
        names: Mapping[str, str] | None = None,
        *,
        logged: bool = True,
    ) -> ActivationLog:
        """The spread from ``seeds``; without ``logged`` the log holds no steps and nothing
        pruned, only where the energy ended (what choosing the next nodes to fetch needs)."""
        index = graph if isinstance(graph, AdjacencyIndex) else AdjacencyIndex(graph)
        given = names or {}

        def known_name(node: str) -> str:
            found = given.get(node)
            return index.name(node) if found is None else found

        budget = params.node_budget
        chosen = sorted(
            ((node, min(energy, 1.0)) for node, energy in seeds.items() if energy > 0.0),
            key=lambda item: (-item[1], item[0]),
        )[: min(params.max_seeds, budget)]
        if not chosen:
            return ActivationLog()

        steps: list[ActivationStep] = []
        energy: dict[str, float] = {}
        received: dict[str, float] = {}
        found: list[str] = []
        pruned: list[PrunedNode] = []
        firing: dict[str, float] = {}
        # Who fed each node in the hop it became active: it does not pass energy straight back.
        fed_by: dict[str, set[str]] = {}
        for node, amount in sorted(chosen):
            if logged:
                steps.append(ActivationStep(node, known_name(node), amount, None, None, None, 0))
            energy[node] = amount
            firing[node] = amount

        edges_of = index.edges
        weak = params.weak_weight
        decay = params.decay
        threshold = params.threshold
        normalise = params.fan_normalisation
        for hop in range(1, params.hops + 1):
            transfers: list[tuple[str, str, str, str, float]] = []
            incoming: dict[str, float] = {}
            for source in sorted(firing):
                edges = edges_of(source)
                if not edges:
                    continue
                base = firing[source] * decay / (len(edges) if normalise else 1)
                feeders = fed_by.get(source, ())
                for target, relation_id, relation_type, weight in edges:
                    amount = base * weight
                    if weak != 1.0 and relation_type in WEAK_RELATIONS:
                        amount *= weak
                    if amount <= 0.0 or target in feeders:
                        continue
                    transfers.append((target, source, relation_id, relation_type, amount))
                    incoming[target] = incoming.get(target, 0.0) + amount

            eligible: list[tuple[float, str]] = []
            for node, amount in incoming.items():
                if node in energy:
                    continue
                if amount >= threshold:
                    eligible.append((-amount, node))
                elif logged:
                    pruned.append(PrunedNode(node, amount, hop, PRUNED_THRESHOLD))
            eligible.sort()
            room = max(budget - len(energy), 0)
            newly = [node for _, node in eligible[:room]]
            if logged:
                pruned.extend(
                    PrunedNode(node, -negative, hop, PRUNED_BUDGET)
                    for negative, node in eligible[room:]
                )
            for node in newly:
                energy[node] = 0.0
                found.append(node)
            activated = set(newly)
            fed_by = {}
            for target, source, relation_id, relation_type, amount in transfers:
                if target not in energy:
                    continue
                if target in activated:
                    fed_by.setdefault(target, set()).add(source)
                if logged:
                    steps.append(
                        ActivationStep(
                            target,
                            known_name(target),
                            amount,
                            source,
                            relation_id,
                            relation_type,
                            hop,
                        )
                    )
                energy[target] += amount
                received[target] = received.get(target, 0.0) + amount
            firing = {node: incoming[node] for node in newly}
            if not firing:
                break

        return ActivationLog(
            steps=tuple(steps),
            energy=energy,
            received=received,
            seeds=tuple(node for node, _ in sorted(chosen)),
            found=tuple(found),
            pruned=tuple(pruned),
        )
