"""The graph's shape in process: every entity and relation, lean, for spreading activation.

Activation reads, per hop, each active node's strongest relations with the entities at their
other ends. Asking the graph store for them costs one round trip per hop and a server-side sort
of every relation of each node, hubs included. A ``GraphShape`` holds the same lean records (no
descriptions, aliases or provenance) for the whole graph, with each node's relations already in
the store's order: stated facts before the weak signals (``WEAK_RELATIONS``), then confidence,
then the other end's salience (both descending), then relation id. A neighbourhood read is then
a slice per node, with no round trip; which entities a chunk mentions (what seeds activation
from a chunk hit) is a lookup too.

``ShapeCache`` keeps the shape of one graph and loads it again only when the store's shape
version (a token every write replaces) has changed, so a write invalidates it by itself, also one
made by another process. Concurrent queries share one load, which runs in the background while
they read through the store (the same answer, a few round trips slower). With ``IndexSnapshots``
a shape read from the store is saved under its version, and a later run finds it there: a start
on an unchanged graph loads arrays instead of reading every record. ``ShapeAssociations``
is the association source over it, reading through the graph store whenever the store offers
no shape or the shape could not be read. Imports only the standard library, numpy and core.
"""

from __future__ import annotations

import asyncio
import math
from collections.abc import Mapping, Sequence
from datetime import UTC, datetime
from typing import Any, Protocol, runtime_checkable

import numpy as np
import numpy.typing as npt

from explorer.core import snapshot
from explorer.core.candidates import AssociationSource
from explorer.core.entity_ranking import RankedEntity
from explorer.core.models import (
    WEAK_RELATIONS,
    Entity,
    EntityHit,
    MemoryLayer,
    Neighbour,
    Period,
    Relation,
    Subgraph,
    normalise_scope,
)
from explorer.core.ports import IndexSnapshots
from explorer.core.snapshot import pack_texts, unpack_texts

IntArray = npt.NDArray[np.int64]
#: How a shape version starts while a write is under way.
WRITING = "writing-"


@runtime_checkable
class RankedSearch(Protocol):
    """An entity search split in two (optional beside ``GraphStore``): rank without reading
    records, then read the hits, so a caller holding the shape can skip the second step."""

    async def ranked_entities(
        self,
        text: str,
        k: int,
        *,
        vector: Sequence[float] | None = None,
        scope: str | None = None,
        period: Period | None = None,
        all_visible: bool = False,
    ) -> list[RankedEntity]:
        """``search_entities``'s ranking: the best ``k`` ids with their signals, best first.
        ``all_visible``: the caller knows every entity is visible from ``scope``, so the store
        need not test each full-text match (the ranking still drops any that is not)."""
        ...

    async def hits_of(
        self, best: Sequence[RankedEntity], *, neighbour_limit: int = 10, scope: str | None = None
    ) -> list[EntityHit]:
        """What ``search_entities`` returns for that ranking."""
        ...


@runtime_checkable
class ShapeStore(Protocol):
    """What a graph store offers to be held in process (optional beside ``GraphStore``)."""

    async def shape_version(self) -> str:
        """A stamp that changes whenever an entity or relation is written; one starting with
        ``WRITING`` while a write is under way (a shape read then is never saved)."""
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


def _seconds(moment: datetime | None) -> float:
    return moment.timestamp() if moment is not None else math.nan


def _moment(seconds: float) -> datetime | None:
    # The store keeps epoch seconds and reads them back this way, so the round trip is exact.
    return None if seconds != seconds else datetime.fromtimestamp(seconds, tz=UTC)  # NaN: none


_LAYER_OF = {layer.value: layer for layer in MemoryLayer}
_ENTITY_TEXTS = ("entity_ids", "entity_names", "entity_types", "entity_scopes", "entity_layers")
_ENTITY_NUMBERS = ("entity_confidence", "entity_salience", "entity_updated", "entity_seen")
_RELATION_TEXTS = ("relation_ids", "relation_types", "relation_facts")
_RELATION_NUMBERS = (
    "relation_source",
    "relation_target",
    "relation_confidence",
    "relation_from",
    "relation_to",
)


class GraphShape:
    """Every entity and relation of a graph, each node's relations in the store's order.

    Held as columns (a list or an array per field) rather than an object per record, so
    ``arrays()`` / ``from_arrays`` save and load it without building any; an ``Entity`` or
    ``Relation`` is made the first time it is asked for, then kept. ``ShapeCache`` has them
    all made (``make_records``) off the event loop before it hands a shape out. The records are
    lean, as the store's spread read gives them: entities with id, name, type, confidence,
    salience, updated_at, last_seen, scope and layer; relations with id, ends, type, fact,
    confidence and validity; every other field at its default.
    """

    __slots__ = (
        "_chunks",
        "_columns",
        "_entities",
        "_id_rank",
        "_masks",
        "_number",
        "_relations",
        "_text",
        "ends",
        "ids",
        "index",
        "offsets",
        "others",
    )

    def __init__(
        self,
        entities: Sequence[Entity],
        relations: Sequence[Relation],
        mentions: Sequence[tuple[str, str]] = (),
    ) -> None:
        index = {entity.id: position for position, entity in enumerate(entities)}
        known = [r for r in relations if r.source_id in index and r.target_id in index]
        count = len(known)
        named: dict[str, set[int]] = {}
        for chunk_id, entity_id in mentions:
            if entity_id in index:
                named.setdefault(chunk_id, set()).add(index[entity_id])
        # A chunk's entities in id order, as the store lists them.
        listed = [sorted(found, key=lambda p: entities[p].id) for found in named.values()]
        self._setup(
            {
                "entity_ids": pack_texts([e.id for e in entities]),
                "entity_names": pack_texts([e.name for e in entities]),
                "entity_types": pack_texts([e.type for e in entities]),
                "entity_scopes": pack_texts([e.scope for e in entities]),
                "entity_layers": pack_texts([e.layer.value for e in entities]),
                "entity_confidence": np.array([e.confidence for e in entities], dtype=float),
                "entity_salience": np.array([e.salience for e in entities], dtype=float),
                "entity_updated": np.array([_seconds(e.updated_at) for e in entities], float),
                "entity_seen": np.array([_seconds(e.last_seen) for e in entities], float),
                "relation_ids": pack_texts([r.id for r in known]),
                "relation_types": pack_texts([r.type for r in known]),
                "relation_facts": pack_texts([r.fact for r in known]),
                "relation_source": np.fromiter((index[r.source_id] for r in known), int, count),
                "relation_target": np.fromiter((index[r.target_id] for r in known), int, count),
                "relation_confidence": np.fromiter((r.confidence for r in known), float, count),
                "relation_from": np.fromiter((_seconds(r.valid_from) for r in known), float, count),
                "relation_to": np.fromiter((_seconds(r.valid_to) for r in known), float, count),
                "chunk_ids": pack_texts(list(named)),
                "chunk_offsets": np.cumsum([0, *map(len, listed)], dtype=np.int64),
                "chunk_entities": np.array([p for found in listed for p in found], dtype=int),
            }
        )

    @classmethod
    def from_arrays(cls, arrays: Mapping[str, npt.NDArray[Any]]) -> GraphShape:
        """The shape whose ``arrays()`` these are (``ValueError`` when they are not one)."""
        shape = cls.__new__(cls)
        shape._setup(dict(arrays))
        return shape

    def arrays(self) -> dict[str, npt.NDArray[Any]]:
        """The columns; the relation order per node is worked out again from them on load."""
        return dict(self._columns)

    def _setup(self, columns: dict[str, npt.NDArray[Any]]) -> None:
        self._columns = columns
        self._text = {key: unpack_texts(columns[key]) for key in (*_ENTITY_TEXTS, *_RELATION_TEXTS)}
        self.ids = self._text["entity_ids"]
        size, count = len(self.ids), len(self._text["relation_ids"])
        if any(len(self._text[key]) != size for key in _ENTITY_TEXTS) or any(
            len(columns[key]) != size for key in _ENTITY_NUMBERS
        ):
            raise ValueError("graph shape arrays hold entity columns of different lengths")
        if any(len(self._text[key]) != count for key in _RELATION_TEXTS) or any(
            len(columns[key]) != count for key in _RELATION_NUMBERS
        ):
            raise ValueError("graph shape arrays hold relation columns of different lengths")
        if not set(self._text["entity_layers"]) <= _LAYER_OF.keys():
            raise ValueError("graph shape arrays name an unknown memory layer")
        self.index = {entity_id: position for position, entity_id in enumerate(self.ids)}
        # Numbers as Python lists too: a record is made from them without a numpy scalar each.
        self._number = {
            key: columns[key].tolist() for key in (*_ENTITY_NUMBERS, *_RELATION_NUMBERS)
        }
        source, target = columns["relation_source"], columns["relation_target"]
        salience, confidence = columns["entity_salience"], columns["relation_confidence"]
        relation_ids = self._text["relation_ids"]
        id_rank = np.empty(count, dtype=np.int64)
        id_rank[sorted(range(count), key=relation_ids.__getitem__)] = np.arange(count)
        loop = source == target
        # Each relation seen from both ends (a loop once): node, the other end, the relation.
        node = np.concatenate([source, target[~loop]])
        other = np.concatenate([target, source[~loop]])
        edge = np.concatenate([np.arange(count), np.arange(count)[~loop]])
        types = self._text["relation_types"]
        weak = np.fromiter((kind in WEAK_RELATIONS for kind in types), np.bool_, count)
        order = np.lexsort((id_rank[edge], -salience[other], -confidence[edge], weak[edge], node))
        self._id_rank = id_rank
        self.others = other[order]
        self.ends = edge[order]
        self.offsets = np.zeros(size + 1, dtype=np.int64)
        np.cumsum(np.bincount(node, minlength=size), out=self.offsets[1:])
        self._chunks = {c: i for i, c in enumerate(unpack_texts(columns["chunk_ids"]))}
        self._masks: dict[str, npt.NDArray[np.bool_] | None] = {}
        self._entities: list[Entity | None] = [None] * size
        self._relations: list[Relation | None] = [None] * count

    def __len__(self) -> int:
        return len(self._text["relation_ids"])

    def entity(self, position: int) -> Entity:
        """The lean record of the entity at ``position``, made once."""
        found = self._entities[position]
        if found is None:
            text, number = self._text, self._number
            found = Entity(
                id=self.ids[position],
                name=text["entity_names"][position],
                type=text["entity_types"][position],
                confidence=number["entity_confidence"][position],
                salience=number["entity_salience"][position],
                updated_at=_moment(number["entity_updated"][position]),
                last_seen=_moment(number["entity_seen"][position]),
                scope=text["entity_scopes"][position],
                layer=_LAYER_OF[text["entity_layers"][position]],
            )
            self._entities[position] = found
        return found

    def relation(self, position: int) -> Relation:
        """The lean record of the relation at ``position``, made once."""
        found = self._relations[position]
        if found is None:
            text, number = self._text, self._number
            found = Relation(
                id=text["relation_ids"][position],
                source_id=self.ids[number["relation_source"][position]],
                target_id=self.ids[number["relation_target"][position]],
                type=text["relation_types"][position],
                fact=text["relation_facts"][position],
                confidence=number["relation_confidence"][position],
                valid_from=_moment(number["relation_from"][position]),
                valid_to=_moment(number["relation_to"][position]),
            )
            self._relations[position] = found
        return found

    def make_records(self) -> None:
        """Make every entity's and relation's record now (0.56 s of CPU and 32 MB at seed scale:
        45,000 entities and 140,000 relations), so no query pays for the ones it reaches
        first: at that scale most neighbourhoods reach records no query made before."""
        for position in range(len(self._entities)):
            self.entity(position)
        for position in range(len(self._relations)):
            self.relation(position)

    def entities_in_chunks(self, chunk_ids: Sequence[str]) -> dict[str, list[str]]:
        """Every asked chunk id with the sorted ids of the entities mentioned in it."""
        offsets, positions = self._columns["chunk_offsets"], self._columns["chunk_entities"]
        found: dict[str, list[str]] = {}
        for chunk_id in chunk_ids:
            at = self._chunks.get(chunk_id)
            named = () if at is None else positions[offsets[at] : offsets[at + 1]].tolist()
            found[chunk_id] = [self.ids[position] for position in named]
        return found

    def _mask(self, scope: str) -> npt.NDArray[np.bool_] | None:
        """Which entities ``scope`` sees; ``None`` when it sees every one (nothing to test)."""
        if scope in self._masks:
            return self._masks[scope]
        scopes = self._text["entity_scopes"]
        seen = np.fromiter((_in_scope(s, scope) for s in scopes), np.bool_, len(scopes))
        mask = None if seen.all() else seen
        if len(self._masks) >= 16:
            self._masks.pop(next(iter(self._masks)))
        self._masks[scope] = mask
        return mask

    def _strongest(
        self, position: int, limit: int, mask: npt.NDArray[np.bool_] | None
    ) -> tuple[IntArray, IntArray]:
        """(other ends, relations) positions of the node's ``limit`` strongest relations whose
        other end ``mask`` keeps, in the store's order."""
        start, end = self.offsets[position], self.offsets[position + 1]
        if mask is None:
            stop = min(end, start + limit)
            return self.others[start:stop], self.ends[start:stop]
        # A hub has thousands of relations: look at a few times the limit first.
        window = min(end, start + 4 * limit)
        while True:
            others = self.others[start:window]
            keep = mask[others]
            if window == end or np.count_nonzero(keep) >= limit:
                break
            window = end
        return others[keep][:limit], self.ends[start:window][keep][:limit]

    def sees_everything(self, scope: str | None) -> bool:
        """Whether every entity is visible from ``scope`` (``None``: no scope, so yes)."""
        return self._scope_mask(scope) is None

    def _scope_mask(self, scope: str | None) -> npt.NDArray[np.bool_] | None:
        return self._mask(normalise_scope(scope)) if scope is not None else None

    def neighbours(
        self, ids: Sequence[str], *, limit_per_node: int, scope: str | None = None
    ) -> Subgraph:
        """The known ``ids`` and up to ``limit_per_node`` of each one's strongest relations
        whose other end is visible from ``scope``, with those ends: what the store's lean
        neighbourhood read returns."""
        mask = self._scope_mask(scope)
        index = self.index
        nodes: list[IntArray] = []
        edges: list[IntArray] = []
        for entity_id in dict.fromkeys(ids):
            position = index.get(entity_id)
            if position is None:
                continue
            others, ends = self._strongest(position, limit_per_node, mask)
            nodes += (np.array([position]), others)
            edges.append(ends)
        if not nodes:
            return Subgraph()
        # Entities in the order they are first met (each node, then its neighbours), relations
        # in id order: as the store's read lists them.
        met = np.concatenate(nodes)
        _, first = np.unique(met, return_index=True)
        every_id, made_entities = self.ids, self._entities
        entities = {
            every_id[p]: made_entities[p] or self.entity(p) for p in met[np.sort(first)].tolist()
        }
        chosen = np.unique(np.concatenate(edges))
        made_relations = self._relations
        ordered = tuple(
            made_relations[edge] or self.relation(edge)
            for edge in chosen[np.argsort(self._id_rank[chosen])].tolist()
        )
        return Subgraph(entities=entities, relations=ordered)

    def entity_hits(
        self, ranked: Sequence[RankedEntity], *, neighbour_limit: int, scope: str | None = None
    ) -> list[EntityHit] | None:
        """``ranked`` as search hits with lean records and each one's strongest neighbours, as
        the store's hit read would list them (relations without provenance); ``None`` when
        the shape lacks one of them (written after the shape's version was read)."""
        mask = self._scope_mask(scope)
        hits: list[EntityHit] = []
        for candidate in ranked:
            position = self.index.get(candidate.id)
            if position is None:
                return None
            neighbours = []
            others, ends = self._strongest(position, neighbour_limit, mask)
            for near, edge in zip(others.tolist(), ends.tolist(), strict=True):
                relation = self.relation(edge)
                other = self.entity(near)
                neighbours.append(
                    Neighbour(
                        relation=relation,
                        entity_id=other.id,
                        name=other.name,
                        type=other.type,
                        outgoing=relation.source_id == candidate.id,
                    )
                )
            hits.append(
                EntityHit(
                    entity=self.entity(position),
                    similarity=candidate.similarity,
                    lexical=candidate.lexical,
                    neighbours=tuple(neighbours),
                    alias_text=candidate.alias_text,
                )
            )
        return hits


class ShapeCache:
    """The shape of one graph, loaded again when the store's shape version changes.

    A query that finds no shape for the version it read does not wait for one: it reads
    through the store, which answers the same, and the load runs in the background once it is
    answered (``load_pending``).
    """

    #: Wait for a missing shape instead (tests, to read every query from the shape).
    wait_for_load = False

    KIND = "shape"
    #: Raised whenever what the saved arrays mean changes (see ``core.snapshot``).
    FORMAT = 1

    def __init__(self, snapshots: IndexSnapshots | None = None) -> None:
        self._snapshots = snapshots
        self._entry: tuple[object, str, GraphShape] | None = None
        self._lock = asyncio.Lock()
        self._loading: asyncio.Task[GraphShape] | None = None
        self._pending: tuple[ShapeStore, object, str] | None = None
        self._seen: dict[object, str] = {}  # the version each graph's last read found
        #: Shapes read from the store so far, and loaded from snapshots.
        self.builds = 0
        self.loads = 0

    def last_known(self, store: object) -> GraphShape | None:
        """The shape held for ``store``'s graph if it is of the last version read (no round
        trip); ``None`` once a read has seen a newer version, until that one is loaded."""
        entry = self._entry
        key = getattr(store, "graph_name", None)
        if entry is None or entry[0] != key or self._seen.get(key) != entry[1]:
            return None
        return entry[2]

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
        self._seen[key] = version
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
        # The version is a fresh random token per write, so it names this graph's state alone.
        saved = version and not version.startswith(WRITING) and self._snapshots is not None
        slot, state = repr(key), f"format {self.FORMAT} {version}"
        built = None
        if saved:
            built = await asyncio.to_thread(
                snapshot.load, self._snapshots, self.KIND, slot, state, GraphShape.from_arrays
            )
        loaded = built is not None
        if built is None:
            # The store's records go as soon as the columns are made: held on, they would
            # sit beside the lean records ``make_records`` makes (the start's peak memory).
            built = await asyncio.to_thread(GraphShape, *await store.shape())
            if saved and self._snapshots is not None:
                arrays = built.arrays()
                await asyncio.to_thread(self._snapshots.save, self.KIND, slot, state, arrays)
        await asyncio.to_thread(built.make_records)
        # Counted once the records exist: the memory takes what a new count brings out of
        # garbage collection (``memory._exempt_long_lived``), and records made after that
        # would stay in it, walked by every full collection.
        if loaded:
            self.loads += 1
        else:
            self.builds += 1
        self._entry = (key, version, built)
        return built


def _retrieved(done: asyncio.Future[Any]) -> None:
    """A background load nobody awaits: its failure is dropped (the next query tries again)."""
    if not done.cancelled():
        done.exception()


class ShapeInHand:
    """One query's shape: its version is read as soon as this is made (beside the searches),
    and every part of the query that can use the shape awaits the same read."""

    def __init__(self, cache: ShapeCache, store: object, loader: object | None = None) -> None:
        self.last_known = cache.last_known(store)
        self._loading: asyncio.Future[GraphShape | None] = asyncio.ensure_future(
            cache.shape(store, loader)
        )
        # Nobody may wait for it (no hit to spread from): its failure is not a lost error.
        self._loading.add_done_callback(_retrieved)

    async def get(self) -> GraphShape | None:
        """The shape, or ``None`` while it loads, when the store keeps none or its version
        could not be read (the store's own reads still answer, or fail with the reason)."""
        try:
            return await self._loading
        except Exception:
            return None


class ShapeAssociations:
    """The association source over the graph's shape in process, and the store beside it.

    A store without a shape, or a shape that could not be read, leaves ``neighbours`` to
    ``fallback``.
    """

    def __init__(self, shape: ShapeInHand, fallback: AssociationSource) -> None:
        self._fallback = fallback
        self._shape = shape.get

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
