"""The knowledge graph in FalkorDB: ``FalkorGraphStore`` implements ``core.ports.GraphStore``.

Graph model. ``(:Entity {id, name, type, description, aliases[], alias_evidence[], alias_text,
refused_aliases[], refused_folds[], confidence, salience, created_at, updated_at, first_seen,
last_seen, temporal[], domains[], scope, layer, embedding})``, each ``alias_evidence`` item the
JSON text ``[alias, chunk_id, reason]``, ``refused_aliases`` the names the user detached and
``refused_folds`` their case folds (which an upsert does not add back as aliases); the entity
type is a property, never a label, so no data ever becomes Cypher text
(``embedding_next`` exists only while ``reembed_entities`` stages a new model's vectors).
Relations are ``(:Entity)-[:REL {id, type, fact, confidence, valid_from, valid_to,
mention_chunk[], mention_start[], mention_end[], mention_ts[]}]->(:Entity)`` with the relation type
as a property of the single ``REL`` edge type. Entity provenance is
``(:Entity)-[:MENTIONED_IN {start, end, ts}]->(:Source {id: chunk_id, ts})``: one ``Source`` node
per chunk behind a range index makes ``entities_in_chunks`` an index lookup plus one hop, and the
period filter reads only the candidate's own ``MENTIONED_IN`` edges. Every timestamp is stored as
epoch seconds (UTC float) so ranges compare numerically; naive datetimes are taken as UTC.

Safety and deadlines. Every parameter goes through ``adapters.sanitize`` (plain built-ins only)
because the client pastes parameters into the query text; Cypher is never built from caller text
(the one formatted query, the vector index, takes a validated ``int``). Reads use
``GRAPH.RO_QUERY``. The client's constructor blocks on a synchronous probe, so it runs in a
worker thread after an async PING; every await is bounded by ``core.deadline.within``, every
socket has a timeout and every query passes its own server-side timeout, so a frozen server
yields ``StoreTimeout`` and a missing one ``StoreUnavailable``, never a hang. Search hits are
ranked by ``core.entity_ranking``. The statements live in ``cypher``, the rows and their decoding
in ``codec``, the pool and bounded calls in ``connection``, the indexes in ``schema``. Imports
the core, ``adapters.sanitize`` and those modules of ``adapters.falkor``.
"""

from __future__ import annotations

import asyncio
import contextlib
import uuid
from collections.abc import Awaitable, Callable, Mapping, Sequence
from pathlib import Path
from typing import Any, TypeVar

from explorer.adapters import sanitize
from explorer.adapters.falkor import codec, cypher
from explorer.adapters.falkor.codec import MAX_IDS, MAX_VECTOR_DIMENSION
from explorer.adapters.falkor.connection import WRITE_BATCH, FalkorConnection
from explorer.adapters.falkor.schema import GraphSchema
from explorer.core.entity_ranking import RankedEntity, entity_hits, rank_entities
from explorer.core.errors import (
    EmbeddingMismatch,
    InvalidArgument,
    StoreUnavailable,
    WriteFailed,
)
from explorer.core.freshness import SharedRead
from explorer.core.models import Entity, EntityHit, Neighbour, Period, Relation, Subgraph
from explorer.core.ports import Vector
from explorer.core.shape import WRITING
from explorer.core.validate import forgettable_scope

EmbedTexts = Callable[[Sequence[str]], Awaitable[Sequence[Vector]]]
ReembedProgress = Callable[[int, int], None]

MAX_K = 1_000
# Entities (or sources) one delete takes while a scope is forgotten.
FORGET_BATCH = 5_000
MAX_NEIGHBOURS = 1_000
MAX_QUERY_CHARS = 10_000
MENTIONS_PER_ENTITY = 50
# Vector KNN cannot filter before ranking, so ask for more and filter afterwards.
KNN_OVERFETCH = 4
MIN_CANDIDATES = 40
#: Seeds from which a spread's neighbourhood is read in two concurrent halves.
SPLIT_SPREAD_AT = 8
SHAPE_PAGE = 8_192


class FalkorGraphStore:
    """``GraphStore`` over one FalkorDB graph; build it with ``FalkorGraphStore.connect``."""

    def __init__(self, connection: FalkorConnection) -> None:
        self._conn = connection
        self._schema = GraphSchema(connection)
        # FalkorDB's HNSW search shares its visited-node state between concurrent searches
        # (FalkorDB/FalkorDB#2848): two at once can each lose real neighbours, or return none
        # once a scope or period filter follows. This store sends them one at a time.
        self._vector_turn = asyncio.Lock()
        self._shape_version: SharedRead[list[list[Any]]] = SharedRead()

    # -- life cycle -------------------------------------------------------------------------

    @classmethod
    async def connect(
        cls,
        *,
        socket_path: str | Path | None = None,
        url: str | None = None,
        username: str | None = None,
        password: str | None = None,
        graph: str = "memory",
        deadline: float = 5.0,
        write_deadline: float = 60.0,
        max_connections: int = 16,
        ensure_schema: bool = True,
        connect_deadline: float | None = None,
    ) -> FalkorGraphStore:
        """Connect by unix socket (embedded) or ``redis://``/``rediss://`` URL (external).

        ``deadline`` (seconds) bounds every read, ``write_deadline`` every write batch; each is
        also sent to the server as the query's own timeout. ``connect_deadline`` (default:
        ``deadline``) bounds connecting and reading the schema marker; creating a new graph's
        indexes is writing, bounded by ``write_deadline`` (on a busy machine it outlasts a
        connect deadline).
        Raises ``StoreUnavailable`` when the server cannot be reached, ``StoreTimeout`` when it
        does not answer in time.
        """
        connection = await FalkorConnection.open(
            socket_path=socket_path,
            url=url,
            username=username,
            password=password,
            graph=graph,
            deadline=deadline,
            write_deadline=write_deadline,
            max_connections=max_connections,
            connect_deadline=connect_deadline,
        )
        store = cls(connection)
        if ensure_schema:
            try:
                await store.ensure_schema()
            except BaseException:
                await store.aclose()
                raise
        return store

    async def aclose(self) -> None:
        """Close every connection; later calls raise ``StoreUnavailable``. Safe to call twice."""
        await self._conn.aclose()

    @property
    def closed(self) -> bool:
        return self._conn.closed

    @property
    def graph_name(self) -> str:
        return self._conn.graph_name

    async def ensure_schema(self) -> None:
        """Create the range, full-text and (once a dimension is known) vector indexes if missing.

        Once per schema version: a graph whose marker key holds this schema's digest is only
        read, so a connect never writes to a store that is already set up.
        """
        await self._schema.ensure()

    async def delete_graph(self, *, recreate_schema: bool = True) -> None:
        """Drop this store's whole graph ("start over", tests); the schema comes back unless
        ``recreate_schema`` is false."""
        self._conn.check_open()
        if await self._conn.graph_exists():
            await self._conn.delete_graph()
        await self._schema.forget()
        if recreate_schema:
            await self.ensure_schema()

    # -- writes -----------------------------------------------------------------------------

    async def upsert(
        self,
        entities: Sequence[Entity],
        relations: Sequence[Relation],
        *,
        vectors: Mapping[str, Vector] | None = None,
    ) -> None:
        self._conn.check_open()
        entity_rows = codec.entity_rows(entities)
        mention_rows = codec.mention_rows(entities)
        relation_rows = codec.relation_rows(relations)
        vector_rows = codec.vector_rows({} if vectors is None else vectors)
        if vector_rows:
            first = vector_rows[0]["vector"]
            assert isinstance(first, list)
            await self._schema.ensure_vector_index(len(first))
        known = {str(row["id"]) for row in entity_rows}
        endpoints = {str(row[end]) for row in relation_rows for end in ("source", "target")}
        missing = sorted(endpoints - known - await self._existing(endpoints - known))
        if missing:
            raise InvalidArgument(f"relations point to unknown entities: {missing[:5]}")
        unknown_vectors = {str(r["id"]) for r in vector_rows} - known
        if unknown_vectors - await self._existing(unknown_vectors):
            raise InvalidArgument("vectors given for unknown entities")
        changes = bool(entity_rows or relation_rows)
        if changes:
            await self._bump_shape(writing=True)
        await self._conn.write_batches(cypher.UPSERT_ENTITIES, entity_rows)
        await self._conn.write_batches(cypher.UPSERT_VECTORS, vector_rows)
        await self._conn.write_batches(cypher.UPSERT_MENTIONS, mention_rows)
        await self._conn.write_batches(cypher.UPSERT_RELATIONS, relation_rows)
        if changes:
            await self._bump_shape(writing=False)

    async def _bump_shape(self, *, writing: bool) -> None:
        """A fresh shape version: before a write, one marked as a write under way (what is read
        under it is never kept between runs, so a write that dies halfway leaves no saved shape
        passing for the graph), and after it a plain one (a reader that saw an older version
        reads the shape again)."""
        token = uuid.uuid4().hex
        await self._conn.write(
            cypher.BUMP_SHAPE, {"token": f"{WRITING}{token}" if writing else token}
        )

    async def detach_alias(self, entity_id: str, alias: str) -> bool:
        self._conn.check_open()
        (plain_id,) = codec.plain_ids([entity_id], "entity_id")
        name = sanitize.plain_text(alias, "alias", max_chars=10_000, allow_empty=False)
        rows = await self._conn.read(cypher.READ_ALIASES, {"id": plain_id})
        if not rows:
            return False
        aliases = [str(a) for a in rows[0][0] or ()]
        evidence = codec.decode_alias_evidence(rows[0][1])
        folded = name.casefold()
        kept = [a for a in aliases if a.casefold() != folded]
        kept_evidence = [e for e in evidence if e.alias.casefold() != folded]
        if len(kept) == len(aliases) and len(kept_evidence) == len(evidence):
            return False
        # The refusal is remembered as the entity wrote the name, not as the caller typed it.
        written = [a for a in aliases if a.casefold() == folded]
        written += [e.alias for e in evidence if e.alias.casefold() == folded]
        params = {
            "id": plain_id,
            "aliases": kept,
            "alias_evidence": codec.encode_alias_evidence(kept_evidence, "entity"),
            "refused": written[0] if written else name,
            "fold": folded,
        }
        await self._bump_shape(writing=True)
        await self._conn.write(cypher.DETACH_ALIAS, params)
        await self._bump_shape(writing=False)
        return True

    async def allow_alias(self, entity_id: str, alias: str) -> bool:
        self._conn.check_open()
        (plain_id,) = codec.plain_ids([entity_id], "entity_id")
        name = sanitize.plain_text(alias, "alias", max_chars=10_000, allow_empty=False)
        rows = await self._conn.read(cypher.READ_ALIASES, {"id": plain_id})
        refused = [str(a) for a in (rows[0][2] or ())] if rows else []
        kept = [a for a in refused if a.casefold() != name.casefold()]
        if len(kept) == len(refused):
            return False
        params = {"id": plain_id, "refused": kept, "folds": [a.casefold() for a in kept]}
        await self._conn.write(cypher.SET_REFUSALS, params)
        return True

    async def forget_scope(self, scope: str) -> int:
        self._conn.check_open()
        plain = forgettable_scope(scope)
        params = {"scope": plain, "below": f"{plain}/", "batch": FORGET_BATCH}
        # Nothing to delete and no earlier forget left unfinished: the shape stays as it is.
        found = (await self._conn.read(cypher.COUNT_IN_SCOPE, params))[0][0]
        if not found and not (await self.shape_version()).startswith(WRITING):
            return 0
        await self._bump_shape(writing=True)
        removed = 0
        while deleted := await self._deleted(cypher.FORGET_ENTITIES, params):
            removed += deleted
        while await self._deleted(cypher.FORGET_SOURCES, {"batch": FORGET_BATCH}):
            pass
        await self._bump_shape(writing=False)
        return removed

    async def _deleted(self, statement: str, params: Mapping[str, object]) -> int:
        rows = await self._conn.write(statement, params)
        return int(rows[0][0]) if rows else 0

    # -- reads ------------------------------------------------------------------------------

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
        best = await self.ranked_entities(text, k, vector=vector, scope=scope, period=period)
        return await self.hits_of(best, neighbour_limit=neighbour_limit, scope=scope)

    async def ranked_entities(
        self,
        text: str,
        k: int,
        *,
        vector: Vector | None = None,
        scope: str | None = None,
        period: Period | None = None,
        all_visible: bool = False,
    ) -> list[RankedEntity]:
        """The best ``k`` entities by full text and vector, ranked but not read: one round trip
        (the two searches side by side), for a caller holding the graph's shape. With
        ``all_visible`` the full-text read skips its scope test, a third of its cost when a
        common word matches thousands of entities."""
        self._conn.check_open()
        text = sanitize.plain_text(text, "text", max_chars=MAX_QUERY_CHARS)
        k = sanitize.plain_int(k, "k", low=0, high=MAX_K)
        query_vector = None if vector is None else codec.plain_vector(vector, "vector")
        filters = codec.filter_params(scope, period)
        plain_scope = filters["scope"]
        assert plain_scope is None or isinstance(plain_scope, str)
        terms = sanitize.search_terms(text)
        period_clause = "" if period is None else cypher.IN_PERIOD
        if k == 0 or (not terms and query_vector is None):
            return []
        fetch = min(max(k * KNN_OVERFETCH, MIN_CANDIDATES), MAX_K * KNN_OVERFETCH)

        searchable = query_vector is not None and await self._schema.vector_search_possible(
            query_vector
        )
        near = query_vector if searchable else None

        async def by_text() -> list[list[Any]]:
            if not terms:
                return []
            statement = cypher.FULLTEXT_CANDIDATES if not all_visible else cypher.FULLTEXT_ANY
            return await self._conn.read(
                statement.format(period=period_clause),
                {"query": "|".join(terms), "fetch": fetch, "vector": near, **filters},
            )

        async def by_vector() -> list[list[Any]]:
            if near is None:
                return []
            async with self._vector_turn:
                return await self._conn.read(
                    cypher.VECTOR_CANDIDATES.format(period=period_clause),
                    {"vector": near, "fetch": fetch, **filters},
                )

        # Independent round trips go out together: each one's latency is the query's floor.
        text_rows, vector_rows = await _gather_both(by_text(), by_vector())
        return rank_rows(text_rows, vector_rows, terms, k, scope=plain_scope)

    async def hits_of(
        self, best: Sequence[RankedEntity], *, neighbour_limit: int = 10, scope: str | None = None
    ) -> list[EntityHit]:
        """``best`` (from ``ranked_entities``) as hits: records and neighbours, read together."""
        self._conn.check_open()
        neighbour_limit = sanitize.plain_int(
            neighbour_limit, "neighbour_limit", low=0, high=MAX_NEIGHBOURS
        )
        plain_scope = codec.filter_params(scope, None)["scope"]
        assert plain_scope is None or isinstance(plain_scope, str)
        ids = codec.plain_ids([c.id for c in best], "ids")
        fetched, neighbours = await _gather_both(
            self._fetch_entities(ids), self._neighbours(ids, neighbour_limit, plain_scope)
        )
        return entity_hits(best, {e.id: e for e in fetched}, neighbours)

    async def get_entities(self, ids: Sequence[str]) -> list[Entity]:
        self._conn.check_open()
        return await self._fetch_entities(codec.plain_ids(ids, "ids"))

    async def neighbourhood(
        self, ids: Sequence[str], *, limit_per_node: int = 50, scope: str | None = None
    ) -> Subgraph:
        """The seeds, up to ``limit_per_node`` neighbours each (strongest relations first) and
        every relation among all of them. Entities here carry no mentions; ask ``get_entities``.
        """
        self._conn.check_open()
        seeds = list(dict.fromkeys(codec.plain_ids(ids, "ids")))
        limit = sanitize.plain_int(limit_per_node, "limit_per_node", low=0, high=MAX_NEIGHBOURS)
        if not seeds:
            return Subgraph()
        params = {
            "ids": seeds,
            "limit": limit,
            "max_relations": MAX_IDS * 10,
            **codec.filter_params(scope, None),
        }
        rows = await self._conn.read(cypher.NEIGHBOURHOOD, params)
        if not rows:
            return Subgraph()
        fields, found = rows[0]
        entities = {str(item["id"]): codec.decode_entity(item, ()) for item in fields or ()}
        relations = sorted(
            (
                codec.decode_relation(str(item["source"]), str(item["target"]), item["rel"])
                for item in found or ()
                if item is not None
            ),
            key=lambda relation: relation.id,
        )
        unique = {relation.id: relation for relation in relations}
        return Subgraph(entities=entities, relations=tuple(unique.values()))

    async def spread_neighbourhood(
        self, ids: Sequence[str], *, limit_per_node: int = 50, scope: str | None = None
    ) -> Subgraph:
        """What spreading activation walks, in one lean read: the seeds and, for each, up to
        ``limit_per_node`` of its strongest relations with the entities at their other ends.

        Unlike ``neighbourhood`` it leaves out relations among the neighbours themselves (a
        spread fetches a node's relations when that node fires), relation provenance, and the
        entities' descriptions, aliases and concepts (``get_entities`` reads those).
        """
        self._conn.check_open()
        seeds = list(dict.fromkeys(codec.plain_ids(ids, "ids")))
        limit = sanitize.plain_int(limit_per_node, "limit_per_node", low=0, high=MAX_NEIGHBOURS)
        if not seeds:
            return Subgraph()
        filters = codec.filter_params(scope, None)

        async def read(part: list[str]) -> list[list[Any]]:
            return await self._conn.read(
                cypher.SPREAD_NEIGHBOURHOOD, {"ids": part, "limit": limit, **filters}
            )

        # FalkorDB runs each query on one of its threads; a wide frontier goes out as two
        # halves at once, so two threads order the seeds' relations side by side.
        if len(seeds) >= SPLIT_SPREAD_AT:
            half = len(seeds) // 2
            first, second = await _gather_both(read(seeds[:half]), read(seeds[half:]))
            rows = first + second
        else:
            rows = await read(seeds)
        entities: dict[str, Entity] = {}
        relations: dict[str, Relation] = {}
        for seed, near in rows:
            for values in (seed, *(item[0] for item in near or ())):
                if str(values[0]) not in entities:
                    entity = codec.decode_entity(
                        dict(zip(cypher.SPREAD_ENTITY_KEYS, values, strict=True)), ()
                    )
                    entities[entity.id] = entity
            for _, source, target, relation in near or ():
                fields = dict(zip(cypher.RELATION_KEYS, relation, strict=True))
                relations.setdefault(
                    str(fields["id"]), codec.decode_relation(str(source), str(target), fields)
                )
        ordered = tuple(relations[key] for key in sorted(relations))
        return Subgraph(entities=entities, relations=ordered)

    async def shape_version(self) -> str:
        """A token that every write of entities or relations replaces (``""`` before any)."""
        self._conn.check_open()
        rows = await self._shape_version(lambda: self._conn.read(cypher.SHAPE_VERSION, {}))
        return str(rows[0][0]) if rows and rows[0][0] is not None else ""

    async def shape(self) -> tuple[list[Entity], list[Relation], list[tuple[str, str]]]:
        """Every entity with the fields ``spread_neighbourhood`` reads, every relation, and
        every (chunk id, entity id) pair of a mention."""
        self._conn.check_open()
        bounds = await self._conn.read(cypher.SHAPE_BOUNDS, {})
        entities: list[Entity] = []
        relations: list[Relation] = []
        mentions: list[tuple[str, str]] = []
        if not bounds or bounds[0][0] is None:
            return entities, relations, mentions
        low, high = int(bounds[0][0]), int(bounds[0][1])
        for start in range(low, high + 1, SHAPE_PAGE):
            page = {"low": start, "high": start + SHAPE_PAGE}
            replies = await asyncio.gather(
                *(
                    self._conn.reply(q, page)
                    for q in (cypher.SHAPE_ENTITIES, cypher.SHAPE_RELATIONS, cypher.SHAPE_MENTIONS)
                )
            )
            # Decoded in a worker thread: the event loop keeps serving queries meanwhile.
            found, linked, named = await asyncio.to_thread(codec.shape_page, *replies)
            entities += found
            relations += linked
            mentions += named
        return entities, relations, mentions

    async def degree(self, ids: Sequence[str]) -> dict[str, int]:
        """Relation counts of the known entities among ``ids``; unknown ids are left out."""
        self._conn.check_open()
        rows = await self._conn.read(cypher.DEGREE, {"ids": codec.plain_ids(ids, "ids")})
        return {str(row[0]): int(row[1]) for row in rows}

    async def entities_in_chunks(self, chunk_ids: Sequence[str]) -> dict[str, list[str]]:
        """Every asked chunk id, mapped to the sorted ids of the entities mentioned in it."""
        self._conn.check_open()
        asked = codec.plain_ids(chunk_ids, "chunk_ids")
        found = {
            str(row[0]): sorted(str(i) for i in row[1])
            for row in await self._conn.read(cypher.ENTITIES_IN_CHUNKS, {"ids": asked})
        }
        return {chunk: found.get(chunk, []) for chunk in asked}

    async def counts(self) -> Mapping[str, int]:
        """``entities``, ``relations``, ``sources``, ``mentions`` and ``type:<t>`` per type."""
        self._conn.check_open()
        result: dict[str, int] = {}
        for key, statement in cypher.COUNTS.items():
            rows = await self._conn.read(statement, {})
            result[key] = int(rows[0][0]) if rows else 0
        for entity_type, count in await self._conn.read(cypher.COUNT_TYPES, {}):
            result[f"type:{entity_type}"] = int(count)
        for scope, count in await self._conn.read(cypher.COUNT_SCOPES, {}):
            result[f"scope:{scope or ''}"] = int(count)
        return result

    async def most_salient(self, limit: int, *, scope: str | None = None) -> list[Entity]:
        """Up to ``limit`` entities visible from ``scope``, most salient first (ties by id)."""
        self._conn.check_open()
        top = sanitize.plain_int(limit, "limit", low=0, high=MAX_IDS)
        if top == 0:
            return []
        rows = await self._conn.read(
            cypher.MOST_SALIENT, {"limit": top, **codec.filter_params(scope or None, None)}
        )
        ids = [str(row[0]) for row in rows]
        found = {entity.id: entity for entity in await self._fetch_entities(ids)}
        return [found[i] for i in ids if i in found]

    async def version(self) -> str:
        """The FalkorDB module's version as the server reports it (``4.16.1``)."""
        return await self._conn.version()

    # -- re-embedding -----------------------------------------------------------------------

    async def reembed_entities(
        self,
        embed: EmbedTexts,
        dimension: int,
        *,
        batch: int = WRITE_BATCH,
        progress: ReembedProgress | None = None,
    ) -> int:
        """Replace every entity's name vector with ``embed(names)`` of ``dimension``; the count.

        The new vectors go to ``embedding_next`` ``batch`` entities at a time (``progress(done,
        total)`` after each) while the old ones and their index serve searches; then the index is
        dropped, every entity's vector replaced in one query and the index recreated with the new
        dimension. An exception before the swap (from ``embed`` or the server) leaves the old
        vectors and index as they were; between the drop and the recreation searches skip the
        vector route. Running this again starts over.
        """
        self._conn.check_open()
        dimension = sanitize.plain_int(dimension, "dimension", low=1, high=MAX_VECTOR_DIMENSION)
        batch = sanitize.plain_int(batch, "batch", low=1, high=MAX_IDS)
        rows = await self._conn.read(cypher.COUNTS["entities"], {})
        total = int(rows[0][0]) if rows else 0
        done = 0
        if progress is not None:
            progress(done, total)

        async def stage(found: Sequence[Sequence[Any]]) -> None:
            names = [str(name) for _, name in found]
            vectors = list(await embed(names))
            if len(vectors) != len(names):
                raise InvalidArgument(f"got {len(vectors)} vectors for {len(names)} names")
            staged = []
            for (entity_id, _), vector in zip(found, vectors, strict=True):
                numbers = codec.plain_vector(vector, "vector")
                if len(numbers) != dimension:
                    raise EmbeddingMismatch(
                        f"a name vector has dimension {len(numbers)}, expected {dimension}"
                    )
                staged.append({"id": str(entity_id), "vector": numbers})
            await self._conn.write(cypher.REEMBED_STAGE, {"rows": staged})

        try:
            await self._conn.write(cypher.REEMBED_CLEAR, {})
            after = ""
            while found := await self._conn.read(
                cypher.REEMBED_PAGE, {"after": after, "limit": batch}
            ):
                await stage(found)
                after = str(found[-1][0])
                done += len(found)
                if progress is not None:
                    progress(min(done, total), max(done, total))
            # Entities an ingest added meanwhile (they sort anywhere among the ids).
            late: set[str] = set()
            while found := await self._conn.read(cypher.REEMBED_MISSING, {"limit": batch}):
                ids = {str(row[0]) for row in found}
                if ids <= late:
                    raise WriteFailed("entity name vectors were not stored")
                late |= ids
                await stage(found)
        except BaseException:
            with contextlib.suppress(StoreUnavailable):
                await self._conn.write(cypher.REEMBED_CLEAR, {})
            raise
        await self._schema.drop_vector_index()
        replaced_rows = await self._conn.write(cypher.REEMBED_SWAP, {})
        await self._schema.ensure_vector_index(dimension)
        await self._schema.vector_index_built()
        replaced = int(replaced_rows[0][0]) if replaced_rows else 0
        if progress is not None:
            progress(replaced, replaced)
        return replaced

    # -- internals --------------------------------------------------------------------------

    async def _existing(self, ids: set[str]) -> set[str]:
        if not ids:
            return set()
        rows = await self._conn.read(cypher.EXISTING_IDS, {"ids": sorted(ids)})
        return {str(row[0]) for row in rows}

    async def _fetch_entities(
        self, ids: Sequence[str], *, mention_cap: int = MENTIONS_PER_ENTITY
    ) -> list[Entity]:
        if not ids:
            return []
        unique = list(dict.fromkeys(ids))
        if mention_cap == 0:
            # Without mentions there is no provenance to walk and sort: fields only.
            plain = await self._conn.read(cypher.FETCH_ENTITY_FIELDS, {"ids": unique})
            found = {str(row[0]["id"]): codec.decode_entity(row[0], ()) for row in plain}
            return [found[i] for i in ids if i in found]
        rows = await self._conn.read(
            cypher.FETCH_ENTITIES, {"ids": unique, "mention_cap": mention_cap}
        )
        found = {str(row[0]["id"]): codec.decode_entity(row[0], row[1]) for row in rows}
        return [found[i] for i in ids if i in found]

    async def _neighbours(
        self, ids: Sequence[str], limit: int, scope: str | None
    ) -> dict[str, list[Neighbour]]:
        if not ids or limit == 0:
            return {}
        params = {"ids": list(ids), "limit": limit, **codec.scope_params(scope)}
        result: dict[str, list[Neighbour]] = {}
        for entity_id, items in await self._conn.read(cypher.NEIGHBOURS, params):
            listed = []
            for item in items:
                other = item["other"]
                outgoing = bool(item["outgoing"])
                source, target = (entity_id, other["id"]) if outgoing else (other["id"], entity_id)
                listed.append(
                    Neighbour(
                        relation=codec.decode_relation(str(source), str(target), item["rel"]),
                        entity_id=str(other["id"]),
                        name=str(other.get("name") or ""),
                        type=str(other.get("type") or ""),
                        outgoing=outgoing,
                    )
                )
            result[str(entity_id)] = listed
        return result


def rank_rows(
    text_rows: Sequence[Sequence[Any]],
    vector_rows: Sequence[Sequence[Any]],
    terms: Sequence[str],
    k: int,
    *,
    scope: str | None,
) -> list[RankedEntity]:
    """The best ``k`` entities of the candidate reads' rows, their terms stemmed as the full-text
    search terms were split (``adapters.sanitize``)."""
    return rank_entities(
        codec.candidates(text_rows, vector_rows),
        terms,
        k,
        scope=scope,
        stem=sanitize.light_stem,
    )


A = TypeVar("A")
B = TypeVar("B")


async def _gather_both(first: Awaitable[A], second: Awaitable[B]) -> tuple[A, B]:
    """Both results, run concurrently; if one fails the other is cancelled, not left running."""
    tasks = (asyncio.ensure_future(first), asyncio.ensure_future(second))
    try:
        one, two = await asyncio.gather(*tasks)
    except BaseException:
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        raise
    return one, two
