"""A graphiti graph behind the explorer's ports: ``GraphitiGraphStore`` and ``GraphitiChunkStore``.

The graph store serves graphiti's entities and ``RELATES_TO`` facts (``records`` says how they
map); the chunk store serves its episodes as verbatim chunks, listed per scope for the core's
BM25 (``ScopeChunks``), so lexical chunk search ranks exactly as over the explorer's own
chunks. Entities are ranked as over the explorer's own graph, by ``core.entity_ranking``
(cosine, name and description term share, full-text score).

Vectors. graphiti records neither the model nor the dimension of its embeddings. They are used
only when the setting ``graphiti_embedding_model`` names the model that wrote them, the
configured embedder is that model, and its dimension equals the stored vectors'. Otherwise
``vector_refusal`` says why, scour leaves the chunk vector route out with that reason in its
ledger (and the route in ``unavailable``), ``search`` raises ``EmbeddingMismatch`` with it, and
entities are searched by full text alone: never a silent mismatch.
graphiti keeps no vectors of episodes, so an episode's similarity is that of the nearest fact
extracted from it.

Every write method raises ``ReadOnlyStore``; every read goes through ``GRAPH.RO_QUERY``.
Imports the core, ``adapters.sanitize``, ``adapters.falkor`` (its limits, candidate ranking, id
and vector checks) and this package.
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import Any

from explorer.adapters import sanitize
from explorer.adapters.falkor.codec import plain_ids, plain_vector
from explorer.adapters.falkor.store import (
    KNN_OVERFETCH,
    MAX_K,
    MAX_NEIGHBOURS,
    MAX_QUERY_CHARS,
    MIN_CANDIDATES,
    rank_rows,
)
from explorer.adapters.graphiti import cypher
from explorer.adapters.graphiti import records as rec
from explorer.adapters.graphiti.connection import GraphitiConnection
from explorer.core.entity_ranking import entity_hits
from explorer.core.errors import EmbeddingMismatch, InvalidArgument, ReadOnlyStore
from explorer.core.lexical import LexicalIndex
from explorer.core.models import (
    Chunk,
    ChunkHit,
    EmbeddingSpec,
    Entity,
    EntityHit,
    Neighbour,
    Period,
    Relation,
    Subgraph,
    normalise_scope,
    scope_parts,
)
from explorer.core.ports import Vector

MENTIONS_PER_ENTITY = 50
MAX_IDS = 10_000
#: Episode lengths and times kept for relation provenance (episodes do not change).
EPISODE_CACHE = 50_000


def read_only(what: str) -> ReadOnlyStore:
    return ReadOnlyStore(f"this graphiti memory is opened read-only: {what} writes nothing to it")


def group_of(scope: str | None) -> str | None:
    """The group a scope sees: its top level (``None``, the root, sees every group)."""
    plain = sanitize.optional_text(scope, "scope", max_chars=1_000)
    parts = scope_parts(plain or "")
    return parts[0] if parts else None


def _vectors_off(reason: str) -> str:
    return (
        f"vector search is off for this graphiti memory ({reason}); episodes and entities are "
        "found by text and the graph only"
    )


class VectorGate:
    """Decides whether graphiti's stored vectors may be compared with the query's."""

    def __init__(self, connection: GraphitiConnection, declared_model: str | None) -> None:
        self._connection = connection
        self._declared = declared_model
        self._dimension: int | None = None
        self._looked = False

    async def stored_spec(self) -> EmbeddingSpec | None:
        """The declared model with the stored vectors' dimension, or ``None`` if either is
        unknown."""
        dimension = await self.stored_dimension()
        if self._declared is None or dimension is None:
            return None
        return EmbeddingSpec(self._declared, dimension)

    async def stored_dimension(self) -> int | None:
        if not self._looked:
            for statement in cypher.STORED_VECTOR.values():
                rows = await self._connection.read(statement, {})
                if rows and isinstance(rows[0][0], list):
                    self._dimension = len(rows[0][0])
                    break
            self._looked = True
        return self._dimension

    async def refusal(self, spec: EmbeddingSpec) -> str | None:
        """Why a query embedded by ``spec`` cannot use the stored vectors; ``None`` if it can."""
        dimension = await self.stored_dimension()
        if dimension is None:
            return "the graphiti graph holds no embeddings"
        asked = f"{spec.model}, {spec.dimension} dimensions"
        if self._declared is None:
            return (
                f"graphiti does not record which model made its {dimension}-dimension vectors; "
                "set graphiti_embedding_model to that model to use them (the embedder is "
                f"{asked})"
            )
        if self._declared != spec.model or dimension != spec.dimension:
            return (
                f"the graphiti vectors are {self._declared}, {dimension} dimensions; the "
                f"embedder is {asked}"
            )
        return None

    async def check(self, spec: EmbeddingSpec) -> None:
        reason = await self.refusal(spec)
        if reason is not None:
            raise EmbeddingMismatch(_vectors_off(reason))


class GraphitiGraphStore:
    """``GraphStore`` over graphiti's entities and facts; read-only."""

    def __init__(
        self, connection: GraphitiConnection, gate: VectorGate, query_spec: EmbeddingSpec
    ) -> None:
        self._connection = connection.share()
        self._gate = gate
        self._query_spec = query_spec
        self._episodes: dict[str, rec.Episode] = {}
        self._closed = False

    @property
    def graph_name(self) -> str:
        return self._connection.graph

    async def aclose(self) -> None:
        if not self._closed:
            self._closed = True
            await self._connection.release()

    async def _read(self, statement: str, params: Mapping[str, object]) -> list[list[Any]]:
        return await self._connection.read(statement, params)

    async def upsert(
        self,
        entities: Sequence[Entity],
        relations: Sequence[Relation],
        *,
        vectors: Mapping[str, Vector] | None = None,
    ) -> None:
        raise read_only("adding entities or relations")

    async def detach_alias(self, entity_id: str, alias: str) -> bool:
        raise read_only("detaching an alias")

    async def allow_alias(self, entity_id: str, alias: str) -> bool:
        raise read_only("allowing an alias again")

    async def forget_scope(self, scope: str) -> int:
        raise read_only("forgetting a scope")

    async def search_entities(
        self,
        text: str,
        k: int,
        *,
        vector: Vector | None = None,
        scope: str | None = None,
        period: Period | None = None,
        neighbour_limit: int = 10,
    ) -> list[EntityHit]:
        text = sanitize.plain_text(text, "text", max_chars=MAX_QUERY_CHARS)
        k = sanitize.plain_int(k, "k", low=0, high=MAX_K)
        limit = sanitize.plain_int(neighbour_limit, "neighbour_limit", low=0, high=MAX_NEIGHBOURS)
        if period is not None and not isinstance(period, Period):
            raise InvalidArgument("period must be a Period")
        near = None
        if vector is not None:
            near = plain_vector(vector, "vector")
            # Mismatched vectors are never compared; the chunk half's vector route says why.
            if await self._gate.refusal(self._query_spec) is not None:
                near = None
        terms = sanitize.search_terms(text)
        if k == 0 or (not terms and near is None):
            return []
        group = group_of(scope)
        params: dict[str, object] = {
            "group": group,
            "fetch": min(max(k * KNN_OVERFETCH, MIN_CANDIDATES), MAX_K * KNN_OVERFETCH),
            "vector": near,
            "start": rec.iso_bound(period.start) if period else None,
            "end": rec.iso_bound(period.end) if period else None,
        }
        clause = "" if period is None else cypher.IN_PERIOD
        text_rows: list[list[Any]] = []
        vector_rows: list[list[Any]] = []
        if terms:
            text_rows = await self._read(
                cypher.FULLTEXT_ENTITIES.format(period=clause),
                {**params, "query": "|".join(terms)},
            )
        if near is not None:
            vector_rows = await self._read(cypher.VECTOR_ENTITIES.format(period=clause), params)
        best = rank_rows(text_rows, vector_rows, terms, k, scope=None)
        ids = [c.id for c in best]
        entities = {e.id: e for e in await self.get_entities(ids)}
        neighbours = await self._neighbours(ids, limit, group)
        return entity_hits(best, entities, neighbours)

    async def get_entities(self, ids: Sequence[str]) -> list[Entity]:
        asked = plain_ids(ids, "ids")
        if not asked:
            return []
        rows = await self._read(
            cypher.FETCH_ENTITIES,
            {"ids": list(dict.fromkeys(asked)), "mention_cap": MENTIONS_PER_ENTITY},
        )
        found = {str(row[0]): rec.entity(row, row[9]) for row in rows}
        return [found[i] for i in asked if i in found]

    async def _fields(self, ids: Sequence[str]) -> dict[str, Entity]:
        if not ids:
            return {}
        rows = await self._read(cypher.FETCH_ENTITY_FIELDS, {"ids": list(ids)})
        return {str(row[0]): rec.entity(row) for row in rows}

    async def _episode_info(self, relations: Sequence[Mapping[str, Any]]) -> None:
        """Fill the episode cache for every episode the facts name."""
        wanted = {
            str(uuid)
            for fields in relations
            for uuid in fields.get("episodes") or ()
            if str(uuid) not in self._episodes
        }
        if not wanted:
            return
        rows = await self._read(cypher.EPISODE_INFO, {"ids": sorted(wanted)})
        if len(self._episodes) + len(rows) > EPISODE_CACHE:
            self._episodes.clear()
        for uuid, length, valid_at, created_at in rows:
            stamp = rec.when(valid_at) or rec.when(created_at) or rec.NO_TIME
            self._episodes[str(uuid)] = rec.Episode(str(uuid), int(length or 0), stamp)

    async def _neighbours(
        self, ids: Sequence[str], limit: int, group: str | None
    ) -> dict[str, list[Neighbour]]:
        if not ids or limit == 0:
            return {}
        rows = await self._read(
            cypher.NEIGHBOURS, {"ids": list(ids), "limit": limit, "group": group}
        )
        await self._episode_info([item[2] for _, near in rows for item in near or ()])
        result: dict[str, list[Neighbour]] = {}
        for seed, near in rows:
            listed = []
            for source, target, fields, other, name, labels, other_group in near or ():
                listed.append(
                    Neighbour(
                        relation=rec.relation(source, target, fields, self._episodes),
                        entity_id=str(other),
                        name=str(name or ""),
                        type=rec.entity_type(labels or (), str(other_group or "")),
                        outgoing=str(source) == str(seed),
                    )
                )
            result[str(seed)] = listed
        return result

    async def neighbourhood(
        self, ids: Sequence[str], *, limit_per_node: int = 50, scope: str | None = None
    ) -> Subgraph:
        """The seeds, up to ``limit_per_node`` neighbours each (valid facts first) and every
        fact among all of them; entities here carry no mentions."""
        seeds = list(dict.fromkeys(plain_ids(ids, "ids")))
        limit = sanitize.plain_int(limit_per_node, "limit_per_node", low=0, high=MAX_NEIGHBOURS)
        if not seeds:
            return Subgraph()
        near = await self._neighbours(seeds, limit, group_of(scope))
        members = list(dict.fromkeys([*seeds, *(n.entity_id for v in near.values() for n in v)]))
        rows = await self._read(cypher.RELATIONS_AMONG, {"ids": members})
        await self._episode_info([row[2] for row in rows])
        relations = {
            str(fields["uuid"]): rec.relation(source, target, fields, self._episodes)
            for source, target, fields in rows
        }
        entities = await self._fields(members)
        ordered = tuple(relations[key] for key in sorted(relations))
        return Subgraph(entities=entities, relations=ordered)

    async def degree(self, ids: Sequence[str]) -> dict[str, int]:
        rows = await self._read(cypher.DEGREE, {"ids": plain_ids(ids, "ids")})
        return {str(row[0]): int(row[1]) for row in rows}

    async def entities_in_chunks(self, chunk_ids: Sequence[str]) -> dict[str, list[str]]:
        asked = plain_ids(chunk_ids, "chunk_ids")
        rows = await self._read(cypher.ENTITIES_IN_EPISODES, {"ids": asked})
        found = {str(row[0]): sorted(str(i) for i in row[1]) for row in rows}
        return {chunk: found.get(chunk, []) for chunk in asked}

    async def counts(self) -> Mapping[str, int]:
        """``entities``, ``relations``, ``episodes``, ``mentions``, ``communities``,
        ``sagas``, and ``type:<t>`` / ``scope:<group>`` per entity type and group."""
        result: dict[str, int] = {}
        for key, statement in cypher.COUNTS.items():
            rows = await self._read(statement, {})
            result[key] = int(rows[0][0]) if rows else 0
        for labels, group, count in await self._read(cypher.ENTITY_LABELS, {}):
            for key in (
                f"type:{rec.entity_type(labels or (), str(group or ''))}",
                f"scope:{group or ''}",
            ):
                result[key] = result.get(key, 0) + int(count)
        return result

    async def most_salient(self, limit: int, *, scope: str | None = None) -> list[Entity]:
        top = sanitize.plain_int(limit, "limit", low=0, high=MAX_IDS)
        if top == 0:
            return []
        rows = await self._read(cypher.MOST_MENTIONED, {"limit": top, "group": group_of(scope)})
        return await self.get_entities([str(row[0]) for row in rows])

    async def version(self) -> str:
        return f"{await self._connection.version()} (graphiti graph {self.graph_name!r})"


class GraphitiChunkStore:
    """``ChunkStore`` (and ``ScopeChunks``) over graphiti's episodes; read-only."""

    def __init__(self, connection: GraphitiConnection, gate: VectorGate) -> None:
        self._connection = connection.share()
        self._gate = gate
        self._closed = False

    async def aclose(self) -> None:
        if not self._closed:
            self._closed = True
            await self._connection.release()

    async def _read(self, statement: str, params: Mapping[str, object]) -> list[list[Any]]:
        return await self._connection.read(statement, params)

    async def embedding_spec(self) -> EmbeddingSpec | None:
        return await self._gate.stored_spec()

    async def vector_refusal(self, spec: EmbeddingSpec) -> str | None:
        """Why a query embedded by ``spec`` cannot be compared with graphiti's vectors (scour
        then leaves the vector route out and puts this in its ledger); ``None`` if it can."""
        reason = await self._gate.refusal(spec)
        return None if reason is None else _vectors_off(reason)

    async def search(
        self,
        vector: Vector,
        k: int,
        *,
        spec: EmbeddingSpec,
        domain: str | None = None,
        scope: str | None = None,
    ) -> list[ChunkHit]:
        near = plain_vector(vector, "vector")
        k = sanitize.plain_int(k, "k", low=0, high=MAX_K)
        await self._gate.check(spec)
        if len(near) != spec.dimension:
            raise EmbeddingMismatch(
                f"the query vector has {len(near)} dimensions, not {spec.dimension}"
            )
        if k == 0 or domain is not None:
            return []  # graphiti episodes carry no domain tags
        fetch = min(max(k * KNN_OVERFETCH, MIN_CANDIDATES), MAX_K * KNN_OVERFETCH)
        rows = await self._read(
            cypher.NEAREST_FACTS, {"vector": near, "fetch": fetch, "group": group_of(scope)}
        )
        best: dict[str, float] = {}
        for episodes, distance in rows:
            similarity = max(-1.0, min(1.0, 1.0 - float(distance)))
            for uuid in episodes or ():
                best[str(uuid)] = max(best.get(str(uuid), -1.0), similarity)
        ranked = sorted(best, key=lambda uuid: (-best[uuid], uuid))[:k]
        chunks = await self.get(ranked)
        return [ChunkHit(chunk=chunk, similarity=best[chunk.id]) for chunk in chunks]

    async def lexical_search(
        self, text: str, k: int, *, domain: str | None = None, scope: str | None = None
    ) -> list[ChunkHit]:
        """BM25 (the core's ``LexicalIndex``) over the scope's episodes, built for this call."""
        text = sanitize.plain_text(text, "text", max_chars=MAX_QUERY_CHARS)
        k = sanitize.plain_int(k, "k", low=0, high=MAX_K)
        if k == 0 or domain is not None or not text.strip():
            return []
        index = await asyncio.to_thread(LexicalIndex, await self.scope_chunks(scope))
        return [ChunkHit(chunk=chunk, lexical=score) for chunk, score in index.search(text, k)]

    async def scope_stamp(self, scope: str | None) -> str:
        rows = await self._read(cypher.SCOPE_STAMP, {"group": group_of(scope)})
        return "|".join(str(value) for value in rows[0]) if rows else "empty"

    async def scope_chunks(self, scope: str | None) -> list[Chunk]:
        rows = await self._read(cypher.SCOPE_EPISODES, {"group": group_of(scope)})
        return rec.positioned(rows)

    async def said_by(
        self, speaker: str, limit: int, *, scope: str | None = None
    ) -> tuple[list[Chunk], int]:
        # An episode's speaker is read from its content, so the scope's episodes are filtered
        # here (a graphiti group is read whole by ``scope_chunks`` too).
        said = [chunk for chunk in await self.scope_chunks(scope) if chunk.speaker == speaker]
        said.sort(key=lambda chunk: (chunk.timestamp, chunk.id), reverse=True)
        return said[: max(limit, 0)], len(said)

    async def get(self, ids: Sequence[str]) -> list[Chunk]:
        asked = plain_ids(ids, "ids")
        if not asked:
            return []
        rows = await self._read(cypher.FETCH_EPISODES, {"ids": list(dict.fromkeys(asked))})
        pairs = sorted({(str(row[6] or ""), str(row[2] or "")) for row in rows})
        order: dict[str, int] = {}
        if pairs:
            listed = await self._read(cypher.CONVERSATIONS, {"pairs": [list(p) for p in pairs]})
            counters: dict[tuple[str, str], int] = {}
            for group, description, _, uuid in sorted(listed, key=_conversation_order):
                key = (str(group or ""), str(description or ""))
                order[str(uuid)] = counters.get(key, 0)
                counters[key] = order[str(uuid)] + 1
        found = {str(row[0]): rec.chunk(row, order.get(str(row[0]), 0)) for row in rows}
        return [found[i] for i in asked if i in found]

    async def upsert(
        self,
        chunks: Sequence[Chunk],
        vectors: Sequence[Vector],
        spec: EmbeddingSpec,
        *,
        pending: bool = False,
    ) -> int:
        raise read_only("importing conversations")

    async def pending(self) -> list[Chunk]:
        return []  # nothing is ever written here, so nothing is half-written

    async def mark_done(self, ids: Sequence[str]) -> None:
        raise read_only("completing an import")

    async def scopes_holding(self, said: Sequence[tuple[str, datetime, str]]) -> dict[str, int]:
        return {}  # nothing is imported into a graphiti memory

    async def read_mark(self, name: str) -> str | None:
        return None  # graphiti keeps no notes of ours

    async def write_mark(self, name: str, value: str) -> None:
        raise read_only("keeping a note")

    async def forget_scope(self, scope: str) -> int:
        raise read_only("forgetting a scope")

    async def domains(self) -> list[str]:
        return []  # graphiti episodes carry no domain tags

    async def counts(self) -> Mapping[str, int]:
        """``chunks`` (episodes) and ``scope:<group>`` per group."""
        rows = await self._read(cypher.COUNTS["episodes"], {})
        result = {"chunks": int(rows[0][0]) if rows else 0, "pending": 0}
        for group, count in await self._read(cypher.EPISODE_GROUPS, {}):
            result[f"scope:{normalise_scope(str(group or ''))}"] = int(count)
        return result

    async def time_span(self) -> tuple[datetime, datetime] | None:
        rows = await self._read(cypher.EPISODE_SPAN, {})
        first, last = (rec.when(v) for v in rows[0]) if rows else (None, None)
        return (first, last) if first is not None and last is not None else None

    async def version(self) -> str:
        return f"{await self._connection.version()} (graphiti episodes)"


def _conversation_order(row: Sequence[Any]) -> tuple[str, str, datetime, str]:
    group, description, valid_at, uuid = row
    return (str(group or ""), str(description or ""), rec.when(valid_at) or rec.NO_TIME, str(uuid))
