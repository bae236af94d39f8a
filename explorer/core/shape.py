"""The graph's shape in process: every entity and relation, lean, for spreading activation.

Activation reads, per hop, each active node's strongest relations with the entities at their
other ends. Asking the graph store for them costs one round trip per hop and a server-side sort
of every relation of each node, hubs included. A ``GraphShape`` holds the same lean records (no
descriptions, aliases or provenance) for the whole graph, with each node's relations already in
the store's order: confidence, then the other end's salience (both descending), then relation
id. A neighbourhood read is then a slice per node, with no round trip; which entities a chunk
mentions (what seeds activation from a chunk hit) is a lookup too.

``ShapeCache`` keeps the shape of one graph and loads it again only when the store's shape
version (a token every write replaces) has changed, so a write invalidates it by itself, also one
made by another process. Concurrent queries share one load, which runs in the background while
they read through the store (the same answer, a few round trips slower). ``ShapeAssociations``
is the association source over it, reading through the graph store whenever the store offers
no shape or the shape could not be read. Imports only the standard library, numpy and core.
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping, Sequence
from typing import Any, Protocol, runtime_checkable

import numpy as np
import numpy.typing as npt

from explorer.core.candidates import AssociationSource
from explorer.core.models import Entity, Relation, Subgraph, normalise_scope

IntArray = npt.NDArray[np.int64]


@runtime_checkable
class ShapeStore(Protocol):
    """What a graph store offers to be held in process (optional beside ``GraphStore``)."""

    async def shape_version(self) -> str:
        """A stamp that changes whenever an entity or relation is written."""
        ...

    async def shape(self) -> tuple[list[Entity], list[Relation], list[tuple[str, str]]]:
        """Every entity with the fields activation scores with and every relation, no
        provenance (the records ``spread_neighbourhood`` would return), and every mention as a
        (chunk id, entity id) pair."""
        ...


def _in_scope(entity_scope: str, scope: str) -> bool:
    """The graph store's scope match: the same scope, the root, below it or above it."""
    return (
        entity_scope == scope
        or entity_scope == ""
        or entity_scope.startswith(scope + "/")
        or scope.startswith(entity_scope + "/")
    )


class GraphShape:
    """Every entity and relation of a graph, each node's relations in the store's order."""

    __slots__ = (
        "_masks",
        "ends",
        "entities",
        "ids",
        "index",
        "mentioned",
        "offsets",
        "others",
        "relations",
    )

    def __init__(
        self,
        entities: Sequence[Entity],
        relations: Sequence[Relation],
        mentions: Sequence[tuple[str, str]] = (),
    ) -> None:
        self.entities = list(entities)
        self.ids = [entity.id for entity in self.entities]
        self.index = {entity_id: position for position, entity_id in enumerate(self.ids)}
        known = [
            relation
            for relation in relations
            if relation.source_id in self.index and relation.target_id in self.index
        ]
        self.relations = known
        salience = np.array([entity.salience for entity in self.entities], dtype=np.float64)
        count = len(known)
        source = np.fromiter((self.index[r.source_id] for r in known), np.int64, count)
        target = np.fromiter((self.index[r.target_id] for r in known), np.int64, count)
        confidence = np.fromiter((r.confidence for r in known), np.float64, count)
        id_rank = np.empty(count, dtype=np.int64)
        id_rank[sorted(range(count), key=lambda i: known[i].id)] = np.arange(count)
        loop = source == target
        # Each relation seen from both ends (a loop once): node, the other end, the relation.
        node = np.concatenate([source, target[~loop]])
        other = np.concatenate([target, source[~loop]])
        edge = np.concatenate([np.arange(count), np.arange(count)[~loop]])
        order = np.lexsort((id_rank[edge], -salience[other], -confidence[edge], node))
        self.others = other[order]
        self.ends = edge[order]
        self.offsets = np.zeros(len(self.entities) + 1, dtype=np.int64)
        np.cumsum(np.bincount(node, minlength=len(self.entities)), out=self.offsets[1:])
        self._masks: dict[str, npt.NDArray[np.bool_]] = {}
        named: dict[str, set[str]] = {}
        for chunk_id, entity_id in mentions:
            named.setdefault(chunk_id, set()).add(entity_id)
        self.mentioned = {chunk_id: sorted(found) for chunk_id, found in named.items()}

    def __len__(self) -> int:
        return len(self.relations)

    def entities_in_chunks(self, chunk_ids: Sequence[str]) -> dict[str, list[str]]:
        """Every asked chunk id with the sorted ids of the entities mentioned in it."""
        return {chunk_id: list(self.mentioned.get(chunk_id, ())) for chunk_id in chunk_ids}

    def _mask(self, scope: str) -> npt.NDArray[np.bool_]:
        mask = self._masks.get(scope)
        if mask is None:
            mask = np.fromiter(
                (_in_scope(entity.scope, scope) for entity in self.entities),
                np.bool_,
                len(self.entities),
            )
            if len(self._masks) >= 16:
                self._masks.pop(next(iter(self._masks)))
            self._masks[scope] = mask
        return mask

    def neighbours(
        self, ids: Sequence[str], *, limit_per_node: int, scope: str | None = None
    ) -> Subgraph:
        """The known ``ids`` and up to ``limit_per_node`` of each one's strongest relations
        whose other end is visible from ``scope``, with those ends: what the store's lean
        neighbourhood read returns."""
        plain = normalise_scope(scope) if scope is not None else None
        mask = self._mask(plain) if plain is not None else None
        entities: dict[str, Entity] = {}
        chosen: dict[str, Relation] = {}
        for entity_id in dict.fromkeys(ids):
            position = self.index.get(entity_id)
            if position is None:
                continue
            entities.setdefault(entity_id, self.entities[position])
            start, end = self.offsets[position], self.offsets[position + 1]
            others, ends = self.others[start:end], self.ends[start:end]
            if mask is not None:
                keep = mask[others]
                others, ends = others[keep], ends[keep]
            for near, relation in zip(
                others[:limit_per_node].tolist(), ends[:limit_per_node].tolist(), strict=True
            ):
                entities.setdefault(self.ids[near], self.entities[near])
                found = self.relations[relation]
                chosen.setdefault(found.id, found)
        ordered = tuple(chosen[key] for key in sorted(chosen))
        return Subgraph(entities=entities, relations=ordered)


class ShapeCache:
    """The shape of one graph, loaded again when the store's shape version changes.

    A query that finds no shape for the version it read does not wait for one: it reads
    through the store, which answers the same, and the load runs in the background once it is
    answered (``load_pending``).
    """

    #: Wait for a missing shape instead (tests, to read every query from the shape).
    wait_for_load = False

    def __init__(self) -> None:
        self._entry: tuple[object, str, GraphShape] | None = None
        self._lock = asyncio.Lock()
        self._loading: asyncio.Task[GraphShape] | None = None
        self._pending: tuple[ShapeStore, object, str] | None = None
        #: Shapes loaded so far.
        self.builds = 0

    async def shape(
        self, store: object, loader: object | None = None, *, wait: bool | None = None
    ) -> GraphShape | None:
        """The store's shape as of the version read now; ``None`` while it loads or when the
        store keeps none. ``loader`` reads it (the store itself unless given: a background
        load should not count against one query's deadline)."""
        if not isinstance(store, ShapeStore):
            return None
        key = getattr(store, "graph_name", None)
        version = await store.shape_version()
        entry = self._entry
        if entry is not None and entry[:2] == (key, version):
            return entry[2]
        source = loader if isinstance(loader, ShapeStore) else store
        if wait if wait is not None else self.wait_for_load:
            async with self._lock:
                entry = self._entry
                if entry is not None and entry[:2] == (key, version):
                    return entry[2]
                return await self._load(source, key, version)
        self._pending = (source, key, version)
        return None

    def load_pending(self) -> None:
        """Start loading the shape a query found missing; called once that query is answered,
        so the load does not compete with it (a first query also builds other indexes)."""
        if self._pending is None or (self._loading is not None and not self._loading.done()):
            return
        source, key, version = self._pending
        self._pending = None
        self._loading = asyncio.ensure_future(self._locked_load(source, key, version))
        self._loading.add_done_callback(_retrieved)

    async def settled(self) -> None:
        """Wait for a background load under way, if any (its failure is not raised)."""
        loading = self._loading
        if loading is not None:
            await asyncio.wait([loading])

    async def _locked_load(self, store: ShapeStore, key: object, version: str) -> GraphShape:
        async with self._lock:
            entry = self._entry
            if entry is not None and entry[:2] == (key, version):
                return entry[2]  # asked for again while it loaded
            return await self._load(store, key, version)

    async def _load(self, store: ShapeStore, key: object, version: str) -> GraphShape:
        entities, relations, mentions = await store.shape()
        built = await asyncio.to_thread(GraphShape, entities, relations, mentions)
        self.builds += 1
        self._entry = (key, version, built)
        return built


def _retrieved(done: asyncio.Future[Any]) -> None:
    """A background load nobody awaits: its failure is dropped (the next query tries again)."""
    if not done.cancelled():
        done.exception()


class ShapeAssociations:
    """The association source over the graph's shape in process, and the store beside it.

    The version is read as soon as this is made (while the candidates are searched); a store
    without a shape, or a shape that could not be read, leaves ``neighbours`` to ``fallback``.
    """

    def __init__(
        self,
        cache: ShapeCache,
        store: object,
        fallback: AssociationSource,
        loader: object | None = None,
    ) -> None:
        self._fallback = fallback
        self._loading: asyncio.Future[GraphShape | None] = asyncio.ensure_future(
            cache.shape(store, loader)
        )
        # Nobody may wait for it (no hit to spread from): its failure is not a lost error.
        self._loading.add_done_callback(_retrieved)

    async def _shape(self) -> GraphShape | None:
        try:
            return await self._loading
        except Exception:  # the store's own reads still answer, or fail with the reason
            return None

    async def neighbours(
        self, ids: Sequence[str], *, limit_per_node: int, scope: str | None = None
    ) -> Subgraph:
        shape = await self._shape()
        if shape is None:
            return await self._fallback.neighbours(ids, limit_per_node=limit_per_node, scope=scope)
        return shape.neighbours(ids, limit_per_node=limit_per_node, scope=scope)

    async def entities_in_chunks(self, chunk_ids: Sequence[str]) -> Mapping[str, Sequence[str]]:
        shape = await self._shape()
        if shape is not None:
            return shape.entities_in_chunks(chunk_ids)
        lookup = getattr(self._fallback, "entities_in_chunks", None)
        if not callable(lookup):
            return {}
        found: Mapping[str, Sequence[str]] = await lookup(chunk_ids)
        return found
