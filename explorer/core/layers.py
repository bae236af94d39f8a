"""Memory layers: the default retrievable set, their canonical order and parsing from text.

A layer says what kind of memory a record is (``MemoryLayer`` lives in ``models``); the coordinator
searches a set of them. This module also says which half of scour serves each layer: episodic
chunks come from the chunk store, every other layer from the knowledge-graph side (the graph store,
or the concept store for ``CONCEPT``). Imports only the standard library, core models and errors.
"""

from __future__ import annotations

from collections.abc import Iterable

from explorer.core.errors import InvalidArgument
from explorer.core.models import MemoryLayer

#: Every layer, in the order they are listed in results and in the GUI.
LAYER_ORDER: tuple[MemoryLayer, ...] = (
    MemoryLayer.EPISODIC,
    MemoryLayer.SEMANTIC,
    MemoryLayer.PROFILE,
    MemoryLayer.CONCEPT,
)

#: What a policy enables unless told otherwise: everything.
RETRIEVABLE_LAYERS: frozenset[MemoryLayer] = frozenset(LAYER_ORDER)

#: Layers served by the chunk store (scour's vector half).
CHUNK_LAYERS: frozenset[MemoryLayer] = frozenset({MemoryLayer.EPISODIC})

#: Layers whose records are graph entities (searched by the graph store).
ENTITY_LAYERS: frozenset[MemoryLayer] = frozenset({MemoryLayer.SEMANTIC, MemoryLayer.PROFILE})

#: Layers served by the knowledge-graph half of scour (graph store and concept scan).
GRAPH_LAYERS: frozenset[MemoryLayer] = frozenset(
    {MemoryLayer.SEMANTIC, MemoryLayer.PROFILE, MemoryLayer.CONCEPT}
)

_RANK = {layer: index for index, layer in enumerate(LAYER_ORDER)}


def layer_rank(layer: MemoryLayer) -> int:
    """The layer's position in ``LAYER_ORDER``, used to break ties deterministically."""
    return _RANK[layer]


def ordered(layers: Iterable[MemoryLayer]) -> list[MemoryLayer]:
    """The given layers in canonical order, without duplicates."""
    return sorted(set(layers), key=layer_rank)


def layer_names(layers: Iterable[MemoryLayer]) -> list[str]:
    """The layers' names in canonical order, as they appear in JSON."""
    return [layer.value for layer in ordered(layers)]


def parse_layer(name: str) -> MemoryLayer:
    """One layer from its name (case-insensitive); an unknown name lists the accepted ones."""
    cleaned = name.strip().lower()
    for layer in LAYER_ORDER:
        if layer.value == cleaned:
            return layer
    accepted = ", ".join(layer.value for layer in LAYER_ORDER)
    raise InvalidArgument(f"unknown memory layer {name!r}; expected one of: {accepted}")


def parse_layers(value: str | Iterable[str]) -> frozenset[MemoryLayer]:
    """A set of layers from ``"episodic,semantic"``, a list of names, or ``"all"``.

    An empty selection is allowed: the coordinator then reports in its ledger that nothing was
    searched, which is what a user who unticks every layer expects to see.
    """
    names = value.split(",") if isinstance(value, str) else list(value)
    layers: set[MemoryLayer] = set()
    for name in names:
        if not name.strip():
            continue
        if name.strip().lower() == "all":
            layers.update(LAYER_ORDER)
            continue
        layers.add(parse_layer(name))
    return frozenset(layers)
