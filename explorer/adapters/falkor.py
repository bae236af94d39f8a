"""The knowledge graph in FalkorDB: ``FalkorGraphStore`` implements ``core.ports.GraphStore``.

Graph model. ``(:Entity {id, name, type, description, aliases[], alias_text, confidence,
salience, created_at, updated_at, first_seen, last_seen, temporal[], domains[], scope, layer,
embedding})``; the entity type is a property, never a label, so no data ever becomes Cypher
text (``embedding_next`` exists only while ``reembed_entities`` stages a new model's vectors).
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
yields ``StoreTimeout`` and a missing one ``StoreUnavailable``, never a hang. Imports the core,
``adapters.sanitize``, ``core.deadline``, ``falkordb`` and ``redis``.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import math
import sys
import time
import uuid
from collections.abc import Awaitable, Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, SupportsFloat, TypeVar

import redis.asyncio as aredis
import redis.exceptions as redis_errors
from falkordb.asyncio import FalkorDB
from falkordb.asyncio.graph import AsyncGraph
from falkordb.helpers import stringify_param_value

from explorer.adapters import sanitize
from explorer.core.deadline import DeadlineExceeded, within
from explorer.core.errors import (
    EmbeddingMismatch,
    InvalidArgument,
    StoreTimeout,
    StoreUnavailable,
    WriteFailed,
)
from explorer.core.models import (
    DEFAULT_SCOPE,
    Entity,
    EntityHit,
    MemoryLayer,
    Mention,
    Neighbour,
    Period,
    Relation,
    Subgraph,
    scope_distance,
    scope_parts,
)
from explorer.core.ports import Vector

T = TypeVar("T")
EmbedTexts = Callable[[Sequence[str]], Awaitable[Sequence[Vector]]]
ReembedProgress = Callable[[int, int], None]

MAX_IDS = 10_000
MAX_K = 1_000
MAX_NEIGHBOURS = 1_000
MAX_QUERY_CHARS = 10_000
MAX_FIELD_CHARS = 100_000
MAX_VECTOR_DIMENSION = 4_096
MENTIONS_PER_ENTITY = 50
MENTIONS_PER_RELATION = 50
WRITE_BATCH = 500
# Vector KNN cannot filter before ranking, so ask for more and filter afterwards.
KNN_OVERFETCH = 4
MIN_CANDIDATES = 40
NAME_TERM_WEIGHT = 1.0
DESCRIPTION_TERM_WEIGHT = 0.6

_SCOPE_MATCH = (
    "($scope IS NULL OR {n}.scope = $scope OR {n}.scope = '' "
    "OR {n}.scope STARTS WITH $scope_below OR $scope STARTS WITH ({n}.scope + '/'))"
)
# Pattern comprehensions are not allowed in WHERE, so the period test is computed in a WITH.
_IN_PERIOD = (
    "WITH node, score, size([(node)-[pm:MENTIONED_IN]->(:Source) "
    "WHERE ($start IS NULL OR pm.ts >= $start) AND ($end IS NULL OR pm.ts < $end) | 1]) > 0 "
    "AS in_period WHERE in_period"
)
_ENTITY_FIELDS = (
    "{n} {{.id, .name, .type, .description, .aliases, .confidence, .salience, .created_at, "
    ".updated_at, .first_seen, .last_seen, .temporal, .domains, .scope, .layer}}"
)
_RELATION_FIELDS = (
    "{r} {{.id, .type, .fact, .confidence, .valid_from, .valid_to, .mention_chunk, "
    ".mention_start, .mention_end, .mention_ts}}"
)

_UPSERT_ENTITIES = """
UNWIND $rows AS row
MERGE (n:Entity {id: row.id})
ON CREATE SET n.created_at = row.created_at, n.updated_at = row.updated_at
SET n.name = row.name, n.type = row.type, n.description = row.description,
    n.confidence = row.confidence, n.salience = row.salience, n.scope = row.scope,
    n.layer = row.layer,
    n.updated_at = coalesce(row.given_updated_at, n.updated_at),
    n.aliases = reduce(acc = coalesce(n.aliases, []), a IN row.aliases |
        CASE WHEN a IN acc THEN acc ELSE acc + a END),
    n.temporal = reduce(acc = coalesce(n.temporal, []), a IN row.temporal |
        CASE WHEN a IN acc THEN acc ELSE acc + a END),
    n.domains = reduce(acc = coalesce(n.domains, []), a IN row.domains |
        CASE WHEN a IN acc THEN acc ELSE acc + a END),
    n.first_seen = CASE WHEN n.first_seen IS NULL OR row.first_seen < n.first_seen
        THEN row.first_seen ELSE n.first_seen END,
    n.last_seen = CASE WHEN n.last_seen IS NULL OR row.last_seen > n.last_seen
        THEN row.last_seen ELSE n.last_seen END
WITH n
SET n.alias_text = reduce(text = '', a IN n.aliases | text + ' ' + a)
RETURN count(n)
"""

_UPSERT_VECTORS = """
UNWIND $rows AS row
MATCH (n:Entity {id: row.id})
SET n.embedding = vecf32(row.vector)
RETURN count(n)
"""

_UPSERT_MENTIONS = """
UNWIND $rows AS row
MATCH (n:Entity {id: row.entity})
MERGE (s:Source {id: row.chunk})
ON CREATE SET s.ts = row.ts
MERGE (n)-[m:MENTIONED_IN {start: row.start, end: row.end}]->(s)
ON CREATE SET m.ts = row.ts
RETURN count(m)
"""

_UPSERT_RELATIONS = """
UNWIND $rows AS row
MATCH (a:Entity {id: row.source}), (b:Entity {id: row.target})
MERGE (a)-[r:REL {id: row.id}]->(b)
SET r.type = row.type, r.fact = row.fact, r.confidence = row.confidence,
    r.valid_from = row.valid_from, r.valid_to = row.valid_to
WITH r, [m IN row.mentions WHERE NOT any(i IN range(0, size(coalesce(r.mention_chunk, [])) - 1)
    WHERE r.mention_chunk[i] = m.chunk AND r.mention_start[i] = m.start
      AND r.mention_end[i] = m.end)] AS fresh
SET r.mention_chunk = coalesce(r.mention_chunk, []) + [m IN fresh | m.chunk],
    r.mention_start = coalesce(r.mention_start, []) + [m IN fresh | m.start],
    r.mention_end = coalesce(r.mention_end, []) + [m IN fresh | m.end],
    r.mention_ts = coalesce(r.mention_ts, []) + [m IN fresh | m.ts]
RETURN count(r)
"""

_EXISTING_IDS = """
UNWIND $ids AS id
MATCH (n:Entity {id: id})
RETURN n.id
"""

# The latest ``$mention_cap`` mentions are picked per entity in a subquery (a top-k each,
# not one sort over every asked entity's mentions).
_FETCH_ENTITIES = f"""
UNWIND $ids AS id
MATCH (n:Entity {{id: id}})
CALL {{
    WITH n
    OPTIONAL MATCH (n)-[m:MENTIONED_IN]->(s:Source)
    WITH m, s
    ORDER BY m.ts DESC
    LIMIT $mention_cap
    RETURN collect(CASE WHEN m IS NULL THEN NULL
        ELSE {{chunk: s.id, start: m.start, end: m.end, ts: m.ts}} END) AS mentions
}}
RETURN {_ENTITY_FIELDS.format(n="n")}, mentions
"""

_FETCH_ENTITY_FIELDS = f"""
UNWIND $ids AS id
MATCH (n:Entity {{id: id}})
RETURN {_ENTITY_FIELDS.format(n="n")}
"""

# Both candidate reads return what ranking needs (names, description, scope and the cosine
# distance to the query vector), so ranking costs no further round trip.
_CANDIDATE_COLUMNS = """node.id, score, node.name, node.alias_text, node.description, node.scope,
    CASE WHEN $vector IS NULL OR node.embedding IS NULL THEN NULL
        ELSE vec.cosineDistance(node.embedding, vecf32($vector)) END"""

_FULLTEXT_CANDIDATES = f"""
CALL db.idx.fulltext.queryNodes('Entity', $query) YIELD node, score
WITH node, score WHERE {_SCOPE_MATCH.format(n="node")}
{{period}}
WITH node, score
ORDER BY score DESC, node.id
LIMIT $fetch
RETURN {_CANDIDATE_COLUMNS}
"""

_VECTOR_CANDIDATES = f"""
CALL db.idx.vector.queryNodes('Entity', 'embedding', $fetch, vecf32($vector)) YIELD node, score
WITH node, score WHERE {_SCOPE_MATCH.format(n="node")}
{{period}}
RETURN {_CANDIDATE_COLUMNS}
"""

# Each seed's strongest relations are picked inside a subquery, so the server keeps a top
# ``$limit`` per seed instead of sorting every relation of every seed together.
_NEIGHBOURS = f"""
UNWIND $ids AS id
MATCH (n:Entity {{id: id}})
CALL {{
    WITH n
    MATCH (n)-[r:REL]-(m:Entity)
    WHERE {_SCOPE_MATCH.format(n="m")}
    WITH n, r, m
    ORDER BY r.confidence DESC, m.salience DESC, r.id
    LIMIT $limit
    RETURN collect({{rel: {_RELATION_FIELDS.format(r="r")}, outgoing: startNode(r) = n,
        other: m {{.id, .name, .type}}}}) AS neighbours
}}
RETURN id, neighbours
"""

# One read: each seed's strongest relations pick its neighbours, then every relation among the
# seeds and those neighbours is walked from its source (an index lookup and one hop per member,
# never a scan of all relations). Aggregating without a grouping key keeps it to one row.
_NEIGHBOURHOOD = f"""
UNWIND $ids AS id
MATCH (n:Entity {{id: id}})
OPTIONAL MATCH (n)-[r:REL]-(m:Entity)
WHERE {_SCOPE_MATCH.format(n="m")}
WITH n, r, m
ORDER BY r.confidence DESC, m.salience DESC, r.id
WITH n, collect(m)[0..$limit] AS near
WITH collect(n) AS seeds, collect(near) AS nears
WITH seeds + reduce(acc = [], part IN nears | acc + part) AS listed
UNWIND listed AS member
WITH DISTINCT member
WITH collect(member) AS members
WITH members, [x IN members | x.id] AS member_ids
UNWIND members AS a
OPTIONAL MATCH (a)-[r:REL]->(b:Entity)
WHERE b.id IN member_ids
WITH collect(DISTINCT a) AS present,
    collect(CASE WHEN r IS NULL THEN NULL
        ELSE {{source: a.id, target: b.id, rel: {_RELATION_FIELDS.format(r="r")}}} END) AS rels
RETURN [x IN present | {_ENTITY_FIELDS.format(n="x")}], rels[0..$max_relations]
"""

#: Seeds from which a spread's neighbourhood is read in two concurrent halves.
SPLIT_SPREAD_AT = 8

_ENTITY_KEYS = (
    "id",
    "name",
    "type",
    "description",
    "aliases",
    "confidence",
    "salience",
    "created_at",
    "updated_at",
    "first_seen",
    "last_seen",
    "temporal",
    "domains",
    "scope",
    "layer",
)
_RELATION_KEYS = ("id", "type", "fact", "confidence", "valid_from", "valid_to")


def _as_list(variable: str, keys: Sequence[str]) -> str:
    return "[" + ", ".join(f"{variable}.{key}" for key in keys) + "]"


#: What the spread needs of an entity: enough to score it and draw it. Descriptions, aliases and
#: concept lists are left out (a recalled entity is read in full afterwards).
_SPREAD_ENTITY_KEYS = (
    "id",
    "name",
    "type",
    "confidence",
    "salience",
    "updated_at",
    "last_seen",
    "scope",
    "layer",
)

# Activation's read: one row per seed, its strongest relations first (picked per seed, as in
# ``_NEIGHBOURS``), each with the entity at the other end, all as plain lists (maps and
# provenance arrays cost more to decode than the spread ever uses).
_SPREAD_NEIGHBOURHOOD = f"""
UNWIND $ids AS id
MATCH (n:Entity {{id: id}})
CALL {{
    WITH n
    MATCH (n)-[r:REL]-(m:Entity)
    WHERE {_SCOPE_MATCH.format(n="m")}
    WITH r, m
    ORDER BY r.confidence DESC, m.salience DESC, r.id
    LIMIT $limit
    RETURN collect([r, m]) AS near
}}
RETURN {_as_list("n", _SPREAD_ENTITY_KEYS)},
    [pair IN near | [{_as_list("pair[1]", _SPREAD_ENTITY_KEYS)}, startNode(pair[0]).id,
        endNode(pair[0]).id, {_as_list("pair[0]", _RELATION_KEYS)}]]
"""

# The graph's shape for ``core.shape``: every entity's lean fields and every relation, read
# whole, and a token every write replaces, so a reader knows when to read them again.
# Read in pages of internal node ids, so neither side holds the whole graph as one reply.
_SHAPE_BOUNDS = "MATCH (n:Entity) RETURN min(id(n)), max(id(n))"
_SHAPE_ENTITIES = (
    "MATCH (n:Entity) WHERE id(n) >= $low AND id(n) < $high "
    f"RETURN {_as_list('n', _SPREAD_ENTITY_KEYS)}"
)
_SHAPE_RELATIONS = (
    "MATCH (a:Entity)-[r:REL]->(b:Entity) WHERE id(a) >= $low AND id(a) < $high "
    "RETURN a.id, b.id, r.id, r.type, r.fact, r.confidence, r.valid_from, r.valid_to"
)
_SHAPE_MENTIONS = (
    "MATCH (e:Entity)-[:MENTIONED_IN]->(s:Source) WHERE id(e) >= $low AND id(e) < $high "
    "RETURN s.id, e.id"
)
SHAPE_PAGE = 8_192
_SHAPE_VERSION = "MATCH (v:Shape) RETURN v.version"
_BUMP_SHAPE = "MERGE (v:Shape {id: 'graph'}) SET v.version = $token RETURN v.version"

_DEGREE = """
UNWIND $ids AS id
MATCH (n:Entity {id: id})
OPTIONAL MATCH (n)-[r:REL]-()
RETURN id, count(r)
"""

_ENTITIES_IN_CHUNKS = """
UNWIND $ids AS chunk
MATCH (:Source {id: chunk})<-[:MENTIONED_IN]-(e:Entity)
RETURN chunk, collect(DISTINCT e.id)
"""

_COUNTS = {
    "entities": "MATCH (n:Entity) RETURN count(n)",
    "relations": "MATCH (:Entity)-[r:REL]->(:Entity) RETURN count(r)",
    "sources": "MATCH (s:Source) RETURN count(s)",
    "mentions": "MATCH (:Entity)-[m:MENTIONED_IN]->(:Source) RETURN count(m)",
}
_COUNT_TYPES = "MATCH (n:Entity) RETURN n.type, count(n) ORDER BY n.type"
_COUNT_SCOPES = "MATCH (n:Entity) RETURN n.scope, count(n) ORDER BY n.scope"
_MOST_SALIENT = (
    "MATCH (n:Entity) WHERE " + _SCOPE_MATCH.format(n="n") + " "
    "RETURN n.id ORDER BY n.salience DESC, n.id LIMIT $limit"
)

_INDEXES = "CALL db.indexes() YIELD label, properties, types, options, entitytype"
_SCHEMA = (
    ("NODE", "Entity", "id", "RANGE", "CREATE INDEX FOR (n:Entity) ON (n.id)"),
    ("NODE", "Entity", "type", "RANGE", "CREATE INDEX FOR (n:Entity) ON (n.type)"),
    ("NODE", "Source", "id", "RANGE", "CREATE INDEX FOR (s:Source) ON (s.id)"),
    ("RELATIONSHIP", "REL", "id", "RANGE", "CREATE INDEX FOR ()-[r:REL]-() ON (r.id)"),
)
_FULLTEXT_FIELDS = ("name", "description", "alias_text")
_CREATE_FULLTEXT = "CREATE FULLTEXT INDEX FOR (n:Entity) ON (n.name, n.description, n.alias_text)"
_CREATE_VECTOR = (
    "CREATE VECTOR INDEX FOR (n:Entity) ON (n.embedding) "
    "OPTIONS {{dimension: {dimension:d}, similarityFunction: 'cosine'}}"
)

# Re-embedding writes the new name vectors to ``embedding_next`` first, so the live vectors and
# their index keep serving searches until the swap.
_DROP_VECTOR = "DROP VECTOR INDEX FOR (n:Entity) ON (n.embedding)"
_VECTOR_STATUS = _INDEXES + ", status RETURN label, types, status"
_REEMBED_PAGE = (
    "MATCH (n:Entity) WHERE n.id > $after "
    "RETURN n.id, coalesce(n.name, '') ORDER BY n.id LIMIT $limit"
)
_REEMBED_MISSING = (
    "MATCH (n:Entity) WHERE n.embedding_next IS NULL "
    "RETURN n.id, coalesce(n.name, '') ORDER BY n.id LIMIT $limit"
)
_REEMBED_STAGE = """
UNWIND $rows AS row
MATCH (n:Entity {id: row.id})
SET n.embedding_next = vecf32(row.vector)
RETURN count(n)
"""
_REEMBED_CLEAR = "MATCH (n:Entity) WHERE n.embedding_next IS NOT NULL SET n.embedding_next = NULL"
_REEMBED_SWAP = """
MATCH (n:Entity)
SET n.embedding = n.embedding_next, n.embedding_next = NULL
RETURN count(n.embedding)
"""


def epoch(moment: datetime | None) -> float | None:
    """Epoch seconds of ``moment``; naive datetimes are taken as UTC."""
    if moment is None:
        return None
    if not isinstance(moment, datetime):
        raise InvalidArgument(f"expected a datetime, got {type(moment).__name__}")
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    return datetime.timestamp(moment)


def moment(seconds: object) -> datetime | None:
    """The UTC datetime of stored epoch seconds (``None`` stays ``None``)."""
    if isinstance(seconds, int | float) and not isinstance(seconds, bool):
        return datetime.fromtimestamp(float(seconds), tz=UTC)
    return None


def normalise_scope(scope: str) -> str:
    """A scope path without empty levels or stray separators."""
    return "/".join(scope_parts(scope))


@dataclass(frozen=True, slots=True)
class _Candidate:
    id: str
    similarity: float
    lexical: float
    fulltext: float

    @property
    def rank_key(self) -> tuple[float, float, str]:
        return (-(self.similarity + self.lexical), -self.fulltext, self.id)


class FalkorGraphStore:
    """``GraphStore`` over one FalkorDB graph; build it with ``FalkorGraphStore.connect``."""

    def __init__(
        self,
        db: FalkorDB,
        pool: aredis.ConnectionPool,
        graph_name: str,
        *,
        timeout: float,
        write_timeout: float,
    ) -> None:
        self._db = db
        self._pool = pool
        self._graph: AsyncGraph = db.select_graph(graph_name)
        self._graph_name = graph_name
        self._timeout = timeout
        self._write_timeout = write_timeout
        self._vector_dimension: int | None = None
        self._closed = False

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
        ``deadline``) bounds connecting and the schema check.
        Raises ``StoreUnavailable`` when the server cannot be reached, ``StoreTimeout`` when it
        does not answer in time.
        """
        if (socket_path is None) == (url is None):
            raise InvalidArgument("give exactly one of socket_path and url")
        graph_name = sanitize.identifier(graph, "graph name")
        timeout = sanitize.plain_float(deadline, "deadline", low=0.05, high=3600.0)
        write_timeout = sanitize.plain_float(
            write_deadline, "write_deadline", low=0.05, high=86400.0
        )
        max_connections = sanitize.plain_int(max_connections, "max_connections", low=1, high=1024)
        connect_timeout = (
            timeout
            if connect_deadline is None
            else sanitize.plain_float(connect_deadline, "connect_deadline", low=0.05, high=3600.0)
        )
        # The socket timeout is only a backstop behind the asyncio deadlines.
        socket_timeout = max(timeout, write_timeout) + 1.0
        options: dict[str, Any] = {
            "socket_timeout": socket_timeout,
            "socket_connect_timeout": connect_timeout,
            "decode_responses": True,
            "max_connections": max_connections,
            # More concurrent queries than connections wait for one (within the deadline)
            # instead of failing with "Too many connections".
            "timeout": timeout,
        }
        if username is not None:
            options["username"] = sanitize.plain_text(username, "username", max_chars=1_000)
        if password is not None:
            options["password"] = sanitize.plain_text(password, "password", max_chars=10_000)
        if url is not None:
            url = sanitize.plain_text(url, "url", max_chars=4_000)
            if not url.startswith(("redis://", "rediss://", "unix://")):
                raise InvalidArgument("FalkorDB url must start with redis://, rediss:// or unix://")
            try:
                pool = aredis.BlockingConnectionPool.from_url(url, **options)
            except ValueError as error:
                raise InvalidArgument(f"invalid FalkorDB url: {error}") from None
        else:
            pool = aredis.BlockingConnectionPool(
                connection_class=aredis.UnixDomainSocketConnection,
                path=str(socket_path),
                **options,
            )
        try:
            await _bounded(aredis.Redis(connection_pool=pool).ping(), connect_timeout, "connect")
            # FalkorDB's constructor runs a blocking cluster probe; keep it off the loop.
            db = await _bounded(
                asyncio.to_thread(FalkorDB, connection_pool=pool), connect_timeout, "connect"
            )
        except BaseException:
            await pool.aclose()
            raise
        store = cls(db, pool, graph_name, timeout=timeout, write_timeout=write_timeout)
        if ensure_schema:
            try:
                await _bounded(store.ensure_schema(), connect_timeout, "schema check")
            except BaseException:
                await store.aclose()
                raise
        return store

    async def aclose(self) -> None:
        """Close every connection; later calls raise ``StoreUnavailable``. Safe to call twice."""
        if self._closed:
            return
        self._closed = True
        await self._pool.aclose()

    @property
    def closed(self) -> bool:
        return self._closed

    @property
    def graph_name(self) -> str:
        return self._graph_name

    async def ensure_schema(self) -> None:
        """Create the range, full-text and (once a dimension is known) vector indexes if missing.

        Once per schema version: a graph whose marker key holds this schema's digest is only
        read, so a connect never writes to a store that is already set up.
        """
        client = aredis.Redis(connection_pool=self._pool)
        marker = f"{_SCHEMA_MARKER}{self._graph_name}"
        stored = await self._call(lambda: client.get(marker), self._timeout, "schema check")
        if stored != _SCHEMA_DIGEST or not await self._graph_exists():
            # A read on a graph that was never written fails, so make sure the key exists first.
            await self._write("RETURN 1", {})
            for entity_type, label, prop, kind, statement in _SCHEMA:
                await self._create_index(statement, [(entity_type, label, prop, kind)])
            await self._create_index(
                _CREATE_FULLTEXT, [("NODE", "Entity", f, "FULLTEXT") for f in _FULLTEXT_FIELDS]
            )
            await self._call(
                lambda: client.set(marker, _SCHEMA_DIGEST), self._write_timeout, "schema mark"
            )
        self._vector_dimension = await self._stored_vector_dimension()

    async def delete_graph(self, *, recreate_schema: bool = True) -> None:
        """Drop this store's whole graph ("start over", tests); the schema comes back unless
        ``recreate_schema`` is false."""
        self._check_open()
        if await self._graph_exists():
            await self._call(lambda: self._graph.delete(), self._write_timeout, "delete")
        client = aredis.Redis(connection_pool=self._pool)
        marker = f"{_SCHEMA_MARKER}{self._graph_name}"
        await self._call(lambda: client.delete(marker), self._write_timeout, "delete")
        self._vector_dimension = None
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
        self._check_open()
        entity_rows = _entity_rows(entities)
        mention_rows = _mention_rows(entities)
        relation_rows = _relation_rows(relations)
        vector_rows = _vector_rows({} if vectors is None else vectors)
        if vector_rows:
            first = vector_rows[0]["vector"]
            assert isinstance(first, list)
            await self._ensure_vector_index(len(first))
        known = {str(row["id"]) for row in entity_rows}
        endpoints = {str(row[end]) for row in relation_rows for end in ("source", "target")}
        missing = sorted(endpoints - known - await self._existing(endpoints - known))
        if missing:
            raise InvalidArgument(f"relations point to unknown entities: {missing[:5]}")
        unknown_vectors = {str(r["id"]) for r in vector_rows} - known
        if unknown_vectors - await self._existing(unknown_vectors):
            raise InvalidArgument("vectors given for unknown entities")
        await self._write_batches(_UPSERT_ENTITIES, entity_rows)
        await self._write_batches(_UPSERT_VECTORS, vector_rows)
        await self._write_batches(_UPSERT_MENTIONS, mention_rows)
        await self._write_batches(_UPSERT_RELATIONS, relation_rows)
        if entity_rows or relation_rows:
            # After the writes: a reader that saw the old token reads the shape again.
            await self._write(_BUMP_SHAPE, {"token": uuid.uuid4().hex})

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
        self._check_open()
        text = sanitize.plain_text(text, "text", max_chars=MAX_QUERY_CHARS)
        k = sanitize.plain_int(k, "k", low=0, high=MAX_K)
        neighbour_limit = sanitize.plain_int(
            neighbour_limit, "neighbour_limit", low=0, high=MAX_NEIGHBOURS
        )
        query_vector = None if vector is None else _plain_vector(vector, "vector")
        filters = _filter_params(scope, period)
        plain_scope = filters["scope"]
        assert plain_scope is None or isinstance(plain_scope, str)
        terms = sanitize.search_terms(text)
        period_clause = "" if period is None else _IN_PERIOD
        if k == 0 or (not terms and query_vector is None):
            return []
        fetch = min(max(k * KNN_OVERFETCH, MIN_CANDIDATES), MAX_K * KNN_OVERFETCH)

        searchable = query_vector is not None and await self._vector_search_possible(query_vector)
        near = query_vector if searchable else None

        async def by_text() -> list[list[Any]]:
            if not terms:
                return []
            return await self._read(
                _FULLTEXT_CANDIDATES.format(period=period_clause),
                {"query": "|".join(terms), "fetch": fetch, "vector": near, **filters},
            )

        async def by_vector() -> list[list[Any]]:
            if near is None:
                return []
            return await self._read(
                _VECTOR_CANDIDATES.format(period=period_clause),
                {"vector": near, "fetch": fetch, **filters},
            )

        # Independent round trips go out together: each one's latency is the query's floor.
        text_rows, vector_rows = await _gather_both(by_text(), by_vector())
        fulltext = {str(row[0]): float(row[1]) for row in text_rows}
        candidates = _ranked_candidates([*text_rows, *vector_rows], terms, fulltext, plain_scope)
        best = sorted(candidates, key=lambda c: c.rank_key)[:k]
        fetched, neighbours = await _gather_both(
            self._fetch_entities([c.id for c in best]),
            self._neighbours([c.id for c in best], neighbour_limit, plain_scope),
        )
        entities = {e.id: e for e in fetched}
        return [
            EntityHit(
                entity=entities[c.id],
                similarity=c.similarity,
                lexical=c.lexical,
                neighbours=tuple(neighbours.get(c.id, ())),
            )
            for c in best
            if c.id in entities
        ]

    async def get_entities(self, ids: Sequence[str]) -> list[Entity]:
        self._check_open()
        return await self._fetch_entities(_ids(ids, "ids"))

    async def neighbourhood(
        self, ids: Sequence[str], *, limit_per_node: int = 50, scope: str | None = None
    ) -> Subgraph:
        """The seeds, up to ``limit_per_node`` neighbours each (strongest relations first) and
        every relation among all of them. Entities here carry no mentions; ask ``get_entities``.
        """
        self._check_open()
        seeds = list(dict.fromkeys(_ids(ids, "ids")))
        limit = sanitize.plain_int(limit_per_node, "limit_per_node", low=0, high=MAX_NEIGHBOURS)
        if not seeds:
            return Subgraph()
        params = {
            "ids": seeds,
            "limit": limit,
            "max_relations": MAX_IDS * 10,
            **_filter_params(scope, None),
        }
        rows = await self._read(_NEIGHBOURHOOD, params)
        if not rows:
            return Subgraph()
        fields, found = rows[0]
        entities = {str(item["id"]): _entity(item, ()) for item in fields or ()}
        relations = sorted(
            (
                _relation(str(item["source"]), str(item["target"]), item["rel"])
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
        self._check_open()
        seeds = list(dict.fromkeys(_ids(ids, "ids")))
        limit = sanitize.plain_int(limit_per_node, "limit_per_node", low=0, high=MAX_NEIGHBOURS)
        if not seeds:
            return Subgraph()
        filters = _filter_params(scope, None)

        async def read(part: list[str]) -> list[list[Any]]:
            return await self._read(_SPREAD_NEIGHBOURHOOD, {"ids": part, "limit": limit, **filters})

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
                    entity = _entity(dict(zip(_SPREAD_ENTITY_KEYS, values, strict=True)), ())
                    entities[entity.id] = entity
            for _, source, target, relation in near or ():
                fields = dict(zip(_RELATION_KEYS, relation, strict=True))
                relations.setdefault(str(fields["id"]), _relation(str(source), str(target), fields))
        ordered = tuple(relations[key] for key in sorted(relations))
        return Subgraph(entities=entities, relations=ordered)

    async def shape_version(self) -> str:
        """A token that every write of entities or relations replaces (``""`` before any)."""
        self._check_open()
        rows = await self._read(_SHAPE_VERSION, {})
        return str(rows[0][0]) if rows and rows[0][0] is not None else ""

    async def shape(self) -> tuple[list[Entity], list[Relation], list[tuple[str, str]]]:
        """Every entity with the fields ``spread_neighbourhood`` reads, every relation, and
        every (chunk id, entity id) pair of a mention."""
        self._check_open()
        bounds = await self._read(_SHAPE_BOUNDS, {})
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
                    self._reply(q, page)
                    for q in (_SHAPE_ENTITIES, _SHAPE_RELATIONS, _SHAPE_MENTIONS)
                )
            )
            # Decoded in a worker thread: the event loop keeps serving queries meanwhile.
            found, linked, named = await asyncio.to_thread(_shape_page, *replies)
            entities += found
            relations += linked
            mentions += named
        return entities, relations, mentions

    async def degree(self, ids: Sequence[str]) -> dict[str, int]:
        """Relation counts of the known entities among ``ids``; unknown ids are left out."""
        self._check_open()
        rows = await self._read(_DEGREE, {"ids": _ids(ids, "ids")})
        return {str(row[0]): int(row[1]) for row in rows}

    async def entities_in_chunks(self, chunk_ids: Sequence[str]) -> dict[str, list[str]]:
        """Every asked chunk id, mapped to the sorted ids of the entities mentioned in it."""
        self._check_open()
        asked = _ids(chunk_ids, "chunk_ids")
        found = {
            str(row[0]): sorted(str(i) for i in row[1])
            for row in await self._read(_ENTITIES_IN_CHUNKS, {"ids": asked})
        }
        return {chunk: found.get(chunk, []) for chunk in asked}

    async def counts(self) -> Mapping[str, int]:
        """``entities``, ``relations``, ``sources``, ``mentions`` and ``type:<t>`` per type."""
        self._check_open()
        result: dict[str, int] = {}
        for key, statement in _COUNTS.items():
            rows = await self._read(statement, {})
            result[key] = int(rows[0][0]) if rows else 0
        for entity_type, count in await self._read(_COUNT_TYPES, {}):
            result[f"type:{entity_type}"] = int(count)
        for scope, count in await self._read(_COUNT_SCOPES, {}):
            result[f"scope:{scope or ''}"] = int(count)
        return result

    async def most_salient(self, limit: int, *, scope: str | None = None) -> list[Entity]:
        """Up to ``limit`` entities visible from ``scope``, most salient first (ties by id)."""
        self._check_open()
        top = sanitize.plain_int(limit, "limit", low=0, high=MAX_IDS)
        if top == 0:
            return []
        rows = await self._read(
            _MOST_SALIENT, {"limit": top, **_filter_params(scope or None, None)}
        )
        ids = [str(row[0]) for row in rows]
        found = {entity.id: entity for entity in await self._fetch_entities(ids)}
        return [found[i] for i in ids if i in found]

    async def version(self) -> str:
        """The FalkorDB module's version as the server reports it (``4.16.1``)."""
        self._check_open()
        modules = await self._call(
            lambda: aredis.Redis(connection_pool=self._pool).execute_command("MODULE", "LIST"),  # type: ignore[no-untyped-call]
            self._timeout,
            "version",
        )
        return _module_version(modules)

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
        self._check_open()
        dimension = sanitize.plain_int(dimension, "dimension", low=1, high=MAX_VECTOR_DIMENSION)
        batch = sanitize.plain_int(batch, "batch", low=1, high=MAX_IDS)
        rows = await self._read(_COUNTS["entities"], {})
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
                numbers = _plain_vector(vector, "vector")
                if len(numbers) != dimension:
                    raise EmbeddingMismatch(
                        f"a name vector has dimension {len(numbers)}, expected {dimension}"
                    )
                staged.append({"id": str(entity_id), "vector": numbers})
            await self._write(_REEMBED_STAGE, {"rows": staged})

        try:
            await self._write(_REEMBED_CLEAR, {})
            after = ""
            while found := await self._read(_REEMBED_PAGE, {"after": after, "limit": batch}):
                await stage(found)
                after = str(found[-1][0])
                done += len(found)
                if progress is not None:
                    progress(min(done, total), max(done, total))
            # Entities an ingest added meanwhile (they sort anywhere among the ids).
            late: set[str] = set()
            while found := await self._read(_REEMBED_MISSING, {"limit": batch}):
                ids = {str(row[0]) for row in found}
                if ids <= late:
                    raise WriteFailed("entity name vectors were not stored")
                late |= ids
                await stage(found)
        except BaseException:
            with contextlib.suppress(StoreUnavailable):
                await self._write(_REEMBED_CLEAR, {})
            raise
        self._vector_dimension = None
        if await self._stored_vector_dimension() is not None:
            await self._write(_DROP_VECTOR, {})
        replaced_rows = await self._write(_REEMBED_SWAP, {})
        await self._ensure_vector_index(dimension)
        await self._vector_index_built()
        replaced = int(replaced_rows[0][0]) if replaced_rows else 0
        if progress is not None:
            progress(replaced, replaced)
        return replaced

    async def _vector_index_built(self) -> None:
        """Wait (within the write deadline) until the vector index has indexed every node."""
        give_up = time.monotonic() + self._write_timeout
        while True:
            rows = await self._read(_VECTOR_STATUS, {})
            building = any(
                label == "Entity"
                and "VECTOR" in dict(types).get("embedding", [])
                and "OPERATIONAL" not in str(status)
                for label, types, status in rows
            )
            if not building:
                return
            if time.monotonic() > give_up:
                raise StoreTimeout(
                    f"the entity vector index of graph {self._graph_name!r} is still being built"
                )
            await asyncio.sleep(0.05)

    # -- internals --------------------------------------------------------------------------

    def _check_open(self) -> None:
        if self._closed:
            raise StoreUnavailable("the FalkorDB graph store is closed")

    async def _call(self, make: Callable[[], Awaitable[T]], deadline: float, what: str) -> T:
        self._check_open()
        return await _bounded(make(), deadline, what)

    async def _read(self, statement: str, params: Mapping[str, object]) -> list[list[Any]]:
        return compact_rows(await self._reply(statement, params))

    async def _reply(self, statement: str, params: Mapping[str, object]) -> Any:
        # The client decodes replies cell by cell through coroutines, which costs more than the
        # query itself for a neighbourhood; reads send the same command and decode it here.
        command = (
            "GRAPH.RO_QUERY",
            self._graph_name,
            _params_header(sanitize.plain_params(params)) + statement,
            "--compact",
            "timeout",
            max(1, int(self._timeout * 1000)),
        )
        return await self._call(
            lambda: self._graph.execute_command(*command), self._timeout, "read"
        )

    async def _write(self, statement: str, params: Mapping[str, object]) -> list[list[Any]]:
        plain = sanitize.plain_params(params)
        millis = max(1, int(self._write_timeout * 1000))
        result = await self._call(
            lambda: self._graph.query(statement, plain, timeout=millis),
            self._write_timeout,
            "write",
        )
        return list(result.result_set)

    async def _write_batches(self, statement: str, rows: Sequence[dict[str, object]]) -> None:
        for start in range(0, len(rows), WRITE_BATCH):
            await self._write(statement, {"rows": list(rows[start : start + WRITE_BATCH])})

    async def _graph_exists(self) -> bool:
        names = await self._call(lambda: self._db.list_graphs(), self._timeout, "list graphs")
        return self._graph_name in names

    async def _index_types(self) -> dict[tuple[str, str, str], set[str]]:
        rows = await self._read(_INDEXES + " RETURN label, types, entitytype", {})
        found: dict[tuple[str, str, str], set[str]] = {}
        for label, types, entity_type in rows:
            for prop, kinds in dict(types).items():
                found.setdefault((str(entity_type), str(label), str(prop)), set()).update(kinds)
        return found

    async def _create_index(
        self, statement: str, needed: Sequence[tuple[str, str, str, str]]
    ) -> None:
        def missing(existing: dict[tuple[str, str, str], set[str]]) -> bool:
            return any(
                kind not in existing.get((e, label, p), set()) for e, label, p, kind in needed
            )

        if not missing(await self._index_types()):
            return
        try:
            await self._write(statement, {})
        except StoreUnavailable:
            # Another client may have created it meanwhile; only a still-missing index is an error.
            if missing(await self._index_types()):
                raise

    async def _stored_vector_dimension(self) -> int | None:
        rows = await self._read(_INDEXES + " RETURN label, types, options", {})
        for label, types, options in rows:
            if label == "Entity" and "VECTOR" in dict(types).get("embedding", []):
                dimension = dict(dict(options).get("embedding", {})).get("dimension")
                return int(dimension) if dimension is not None else None
        return None

    async def _ensure_vector_index(self, dimension: int) -> None:
        if self._vector_dimension is None:
            self._vector_dimension = await self._stored_vector_dimension()
        if self._vector_dimension is None:
            await self._create_index(
                _CREATE_VECTOR.format(dimension=dimension),
                [("NODE", "Entity", "embedding", "VECTOR")],
            )
            self._vector_dimension = await self._stored_vector_dimension()
        if self._vector_dimension != dimension:
            raise EmbeddingMismatch(
                f"entity vectors in graph {self._graph_name!r} have dimension "
                f"{self._vector_dimension}, got {dimension}"
            )

    async def _vector_search_possible(self, vector: list[float]) -> bool:
        if self._vector_dimension is None:
            self._vector_dimension = await self._stored_vector_dimension()
        if self._vector_dimension is None:
            return False
        if self._vector_dimension != len(vector):
            raise EmbeddingMismatch(
                f"entity vectors in graph {self._graph_name!r} have dimension "
                f"{self._vector_dimension}, the query vector has {len(vector)}"
            )
        return True

    async def _existing(self, ids: set[str]) -> set[str]:
        if not ids:
            return set()
        rows = await self._read(_EXISTING_IDS, {"ids": sorted(ids)})
        return {str(row[0]) for row in rows}

    async def _fetch_entities(
        self, ids: Sequence[str], *, mention_cap: int = MENTIONS_PER_ENTITY
    ) -> list[Entity]:
        if not ids:
            return []
        unique = list(dict.fromkeys(ids))
        if mention_cap == 0:
            # Without mentions there is no provenance to walk and sort: fields only.
            plain = await self._read(_FETCH_ENTITY_FIELDS, {"ids": unique})
            found = {str(row[0]["id"]): _entity(row[0], ()) for row in plain}
            return [found[i] for i in ids if i in found]
        rows = await self._read(_FETCH_ENTITIES, {"ids": unique, "mention_cap": mention_cap})
        found = {str(row[0]["id"]): _entity(row[0], row[1]) for row in rows}
        return [found[i] for i in ids if i in found]

    async def _neighbours(
        self, ids: Sequence[str], limit: int, scope: str | None
    ) -> dict[str, list[Neighbour]]:
        if not ids or limit == 0:
            return {}
        params = {"ids": list(ids), "limit": limit, **_scope_params(scope)}
        result: dict[str, list[Neighbour]] = {}
        for entity_id, items in await self._read(_NEIGHBOURS, params):
            listed = []
            for item in items:
                other = item["other"]
                outgoing = bool(item["outgoing"])
                source, target = (entity_id, other["id"]) if outgoing else (other["id"], entity_id)
                listed.append(
                    Neighbour(
                        relation=_relation(str(source), str(target), item["rel"]),
                        entity_id=str(other["id"]),
                        name=str(other.get("name") or ""),
                        type=str(other.get("type") or ""),
                        outgoing=outgoing,
                    )
                )
            result[str(entity_id)] = listed
        return result


# -- boundary helpers -------------------------------------------------------------------------

# Cell kinds of FalkorDB's compact result set that the reads here return.
_NULL, _STRING, _INTEGER, _BOOLEAN, _DOUBLE, _ARRAY, _MAP, _VECTOR = 1, 2, 3, 4, 5, 6, 10, 12


def _params_header(params: Mapping[str, object]) -> str:
    """The ``CYPHER name=value ...`` prefix, quoted by the client's own quoting."""
    if not params:
        return ""
    return "CYPHER " + "".join(
        f"`{key}`={stringify_param_value(value)} " for key, value in params.items()
    )


def _cell(cell: Sequence[Any]) -> Any:
    kind, value = cell
    if kind == _STRING:
        return value.decode() if isinstance(value, bytes) else str(value)
    if kind == _INTEGER:
        return int(value)
    if kind == _DOUBLE:
        return float(value)
    if kind == _NULL:
        return None
    if kind == _ARRAY:
        return [_cell(item) for item in value]
    if kind == _BOOLEAN:
        return value in ("true", b"true")
    if kind == _VECTOR:  # a vecf32 property, e.g. a graphiti graph's stored embeddings
        return [float(item) for item in value]
    if kind == _MAP:
        return {
            (key.decode() if isinstance(key, bytes) else str(key)): _cell(item)
            for key, item in zip(value[::2], value[1::2], strict=True)
        }
    raise StoreUnavailable(f"FalkorDB returned a value of kind {kind} that no read here asks for")


def compact_rows(reply: Sequence[Any]) -> list[list[Any]]:
    """The rows of a compact ``GRAPH.RO_QUERY`` reply as plain values; errors raised."""
    for part in (reply[0], reply[-1]) if reply else ():
        if isinstance(part, redis_errors.ResponseError):
            raise StoreUnavailable(f"FalkorDB refused the read: {part}")
    if len(reply) < 3:
        return []  # statistics only: the statement returns nothing
    return [[_cell(cell) for cell in row] for row in reply[1]]


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


async def _bounded(awaitable: Awaitable[T], deadline: float, what: str) -> T:
    """Await within ``deadline`` seconds, translating driver errors into the project's own."""
    try:
        return await within(awaitable, deadline)
    except DeadlineExceeded:
        raise StoreTimeout(f"FalkorDB did not answer the {what} within {deadline:g} s") from None
    except redis_errors.TimeoutError as error:
        raise StoreTimeout(f"FalkorDB {what} timed out: {error}") from None
    except redis_errors.ConnectionError as error:
        if _caused_by_timeout(error):
            raise StoreTimeout(f"FalkorDB {what} timed out: {error}") from None
        raise StoreUnavailable(f"FalkorDB is unreachable ({what}): {error}") from None
    except redis_errors.ResponseError as error:
        raise StoreUnavailable(f"FalkorDB refused the {what}: {error}") from None
    except redis_errors.RedisError as error:
        raise StoreUnavailable(f"FalkorDB {what} failed: {error}") from None
    except OSError as error:
        raise StoreUnavailable(f"FalkorDB is unreachable ({what}): {error}") from None


# Beside each graph, the digest of the schema it was set up with (see ensure_schema).
_SCHEMA_MARKER = "scour:schema:"
_SCHEMA_DIGEST = hashlib.sha256(
    repr((_SCHEMA, _CREATE_FULLTEXT, _FULLTEXT_FIELDS)).encode()
).hexdigest()[:32]


def _interned(value: object) -> object:
    return sys.intern(value) if isinstance(value, str) else value


def _shape_page(
    entity_reply: Any, relation_reply: Any, mention_reply: Any
) -> tuple[list[Entity], list[Relation], list[tuple[str, str]]]:
    """One page of the graph's shape, decoded as ``spread_neighbourhood`` decodes its rows
    (types, scopes and layers interned: they repeat across the graph)."""
    entities = [
        _entity(dict(zip(_SPREAD_ENTITY_KEYS, map(_interned, values), strict=True)), ())
        for (values,) in compact_rows(entity_reply)
    ]
    relations = [
        Relation(
            id=str(relation_id),
            source_id=str(source),
            target_id=str(target),
            type=sys.intern(str(kind or "")),
            fact=str(fact or ""),
            confidence=float(confidence or 0.0),
            valid_from=moment(valid_from),
            valid_to=moment(valid_to),
        )
        for source, target, relation_id, kind, fact, confidence, valid_from, valid_to in (
            compact_rows(relation_reply)
        )
    ]
    mentions = [(str(chunk), str(entity)) for chunk, entity in compact_rows(mention_reply)]
    return entities, relations, mentions


def _module_version(modules: Any) -> str:
    """``MODULE LIST``'s entry for the graph module, as ``major.minor.patch``."""
    for module in modules or ():
        if isinstance(module, list):  # RESP2 servers without the client's parsing
            module = dict(zip(module[::2], module[1::2], strict=False))
        if isinstance(module, Mapping) and str(module.get("name", "")).lower() == "graph":
            number = int(module.get("ver", 0))
            return f"FalkorDB {number // 10000}.{number // 100 % 100}.{number % 100}"
    return "no FalkorDB module loaded"


def _caused_by_timeout(error: BaseException) -> bool:
    seen: set[int] = set()
    current: BaseException | None = error
    while current is not None and id(current) not in seen:
        if isinstance(current, TimeoutError | redis_errors.TimeoutError):
            return True
        seen.add(id(current))
        current = current.__cause__ or current.__context__
    return False


def _ids(values: object, name: str) -> list[str]:
    return sanitize.plain_strings(values, name, max_items=MAX_IDS, max_chars=1_000)


def _plain_vector(values: object, name: str) -> list[float]:
    if isinstance(values, str | bytes) or not isinstance(values, Sequence | Iterable):
        raise InvalidArgument(f"{name} must be a sequence of numbers")
    numbers = []
    for value in values:
        if isinstance(value, bool) or not isinstance(value, int | float | SupportsFloat):
            raise InvalidArgument(f"{name} must contain only numbers")
        numbers.append(float(value))
    if not 0 < len(numbers) <= MAX_VECTOR_DIMENSION:
        raise InvalidArgument(f"{name} must have 1 to {MAX_VECTOR_DIMENSION} numbers")
    if not all(math.isfinite(v) for v in numbers):
        raise InvalidArgument(f"{name} must contain only finite numbers")
    return numbers


def _scope_params(scope: str | None) -> dict[str, object]:
    return {"scope": scope, "scope_below": None if scope is None else scope + "/"}


def _filter_params(scope: str | None, period: Period | None) -> dict[str, object]:
    plain_scope = sanitize.optional_text(scope, "scope", max_chars=1_000)
    if plain_scope is not None:
        plain_scope = normalise_scope(plain_scope)
    if period is not None and not isinstance(period, Period):
        raise InvalidArgument("period must be a Period")
    return {
        **_scope_params(plain_scope),
        "start": None if period is None else epoch(period.start),
        "end": None if period is None else epoch(period.end),
    }


def _ranked_candidates(
    rows: Sequence[Sequence[Any]],
    terms: Sequence[str],
    fulltext: Mapping[str, float],
    scope: str | None,
) -> list[_Candidate]:
    """One candidate per entity in the candidate reads' rows, with its ranking signals."""
    stems = [sanitize.light_stem(t) for t in terms]
    candidates: dict[str, _Candidate] = {}
    for entity_id, _, name, alias_text, description, entity_scope, distance in rows:
        key = str(entity_id)
        if key in candidates:
            continue
        if scope is not None and scope_distance(str(entity_scope or ""), scope) is None:
            continue
        similarity = 0.0 if distance is None else max(-1.0, min(1.0, 1.0 - float(distance)))
        candidates[key] = _Candidate(
            id=key,
            similarity=similarity,
            lexical=_lexical(stems, f"{name or ''} {alias_text or ''}", str(description or "")),
            fulltext=fulltext.get(key, 0.0),
        )
    return list(candidates.values())


def _lexical(stems: Sequence[str], names: str, description: str) -> float:
    """Share of the query's terms found in the entity, names counting more than description."""
    if not stems:
        return 0.0
    name_words = _Words(sanitize.word_stems(names))
    description_words = _Words(sanitize.word_stems(description))
    total = 0.0
    for stem in stems:
        if name_words.cover(stem):
            total += NAME_TERM_WEIGHT
        elif description_words.cover(stem):
            total += DESCRIPTION_TERM_WEIGHT
    return total / len(stems)


class _Words:
    """A text's word stems, asked whether a query stem matches one, equal or by prefix."""

    __slots__ = ("_joined", "_long", "_words")

    def __init__(self, words: set[str]) -> None:
        self._words = words
        self._long = tuple(w for w in words if len(w) >= 3)
        # A space before each word: " stem" occurs in it exactly when a word starts with stem.
        self._joined = "".join(f" {w}" for w in self._long)

    def cover(self, stem: str) -> bool:
        return stem in self._words or f" {stem}" in self._joined or stem.startswith(self._long)


def _text_list(values: object, name: str) -> list[str]:
    return sanitize.plain_strings(values, name, max_items=1_000, max_chars=10_000)


def _entity_rows(entities: Sequence[Entity]) -> list[dict[str, object]]:
    if isinstance(entities, str | bytes) or not isinstance(entities, Sequence):
        raise InvalidArgument("entities must be a sequence of Entity")
    now = time.time()
    rows: dict[str, dict[str, object]] = {}
    for index, entity in enumerate(entities):
        if not isinstance(entity, Entity):
            raise InvalidArgument(f"entities[{index}] is not an Entity")
        name = f"entities[{index}]"
        mention_times = [epoch(m.timestamp) for m in _mentions(entity.mentions, name)]
        first_seen = epoch(entity.first_seen)
        last_seen = epoch(entity.last_seen)
        if first_seen is None and mention_times:
            first_seen = min(t for t in mention_times if t is not None)
        if last_seen is None and mention_times:
            last_seen = max(t for t in mention_times if t is not None)
        entity_id = sanitize.plain_text(entity.id, f"{name}.id", max_chars=1_000, allow_empty=False)
        updated_at = epoch(entity.updated_at)
        rows[entity_id] = {
            "id": entity_id,
            "name": sanitize.plain_text(entity.name, f"{name}.name", max_chars=10_000),
            "type": sanitize.plain_text(entity.type, f"{name}.type", max_chars=200),
            "description": sanitize.plain_text(
                entity.description, f"{name}.description", max_chars=MAX_FIELD_CHARS
            ),
            "aliases": list(dict.fromkeys(_text_list(entity.aliases, f"{name}.aliases"))),
            "temporal": list(dict.fromkeys(_text_list(entity.temporal, f"{name}.temporal"))),
            "domains": list(dict.fromkeys(_text_list(entity.domains, f"{name}.domains"))),
            "confidence": sanitize.plain_float(entity.confidence, f"{name}.confidence"),
            "salience": sanitize.plain_float(entity.salience, f"{name}.salience"),
            "scope": normalise_scope(
                sanitize.plain_text(entity.scope, f"{name}.scope", max_chars=1_000)
            )
            or DEFAULT_SCOPE,
            "layer": _plain_layer(entity.layer, f"{name}.layer"),
            "created_at": epoch(entity.created_at) or now,
            "updated_at": updated_at or now,
            "given_updated_at": updated_at,
            "first_seen": first_seen,
            "last_seen": last_seen,
        }
    return list(rows.values())


def _plain_layer(value: object, name: str) -> str:
    text = sanitize.plain_text(value, name, max_chars=100)
    try:
        return str.__str__(MemoryLayer(text).value)
    except ValueError:
        raise InvalidArgument(f"{name} is not a memory layer: {text[:40]!r}") from None


def _mentions(mentions: object, name: str) -> list[Mention]:
    if not isinstance(mentions, Sequence):
        raise InvalidArgument(f"{name}.mentions must be a sequence of Mention")
    for index, mention in enumerate(mentions):
        if not isinstance(mention, Mention):
            raise InvalidArgument(f"{name}.mentions[{index}] is not a Mention")
    return list(mentions)


def _mention_row(mention: Mention, name: str) -> dict[str, object]:
    start = sanitize.plain_int(mention.start, f"{name}.start", low=0, high=2**53)
    end = sanitize.plain_int(mention.end, f"{name}.end", low=0, high=2**53)
    if end < start:
        raise InvalidArgument(f"{name} ends before it starts")
    return {
        "chunk": sanitize.plain_text(
            mention.chunk_id, f"{name}.chunk_id", max_chars=1_000, allow_empty=False
        ),
        "start": start,
        "end": end,
        "ts": epoch(mention.timestamp),
    }


def _mention_rows(entities: Sequence[Entity]) -> list[dict[str, object]]:
    rows: dict[tuple[object, ...], dict[str, object]] = {}
    for index, entity in enumerate(entities):
        entity_id = sanitize.plain_text(entity.id, f"entities[{index}].id", max_chars=1_000)
        for position, mention in enumerate(_mentions(entity.mentions, f"entities[{index}]")):
            row = _mention_row(mention, f"entities[{index}].mentions[{position}]")
            row["entity"] = entity_id
            rows.setdefault((entity_id, row["chunk"], row["start"], row["end"]), row)
    return list(rows.values())


def _relation_rows(relations: Sequence[Relation]) -> list[dict[str, object]]:
    if isinstance(relations, str | bytes) or not isinstance(relations, Sequence):
        raise InvalidArgument("relations must be a sequence of Relation")
    rows: dict[str, dict[str, object]] = {}
    for index, relation in enumerate(relations):
        name = f"relations[{index}]"
        if not isinstance(relation, Relation):
            raise InvalidArgument(f"{name} is not a Relation")
        mentions: dict[tuple[object, ...], dict[str, object]] = {}
        for position, mention in enumerate(_mentions(relation.mentions, name)):
            row = _mention_row(mention, f"{name}.mentions[{position}]")
            mentions.setdefault((row["chunk"], row["start"], row["end"]), row)
        relation_id = sanitize.plain_text(
            relation.id, f"{name}.id", max_chars=1_000, allow_empty=False
        )
        rows[relation_id] = {
            "id": relation_id,
            "source": sanitize.plain_text(relation.source_id, f"{name}.source_id", max_chars=1_000),
            "target": sanitize.plain_text(relation.target_id, f"{name}.target_id", max_chars=1_000),
            "type": sanitize.plain_text(relation.type, f"{name}.type", max_chars=200),
            "fact": sanitize.plain_text(relation.fact, f"{name}.fact", max_chars=MAX_FIELD_CHARS),
            "confidence": sanitize.plain_float(relation.confidence, f"{name}.confidence"),
            "valid_from": epoch(relation.valid_from),
            "valid_to": epoch(relation.valid_to),
            "mentions": list(mentions.values()),
        }
    return list(rows.values())


def _vector_rows(vectors: Mapping[str, Vector]) -> list[dict[str, object]]:
    if not isinstance(vectors, Mapping):
        raise InvalidArgument("vectors must be a mapping of entity id to vector")
    rows: list[dict[str, object]] = []
    dimensions: set[int] = set()
    for key, value in vectors.items():
        entity_id = sanitize.plain_text(key, "vectors key", max_chars=1_000, allow_empty=False)
        numbers = _plain_vector(value, f"vectors[{entity_id[:40]!r}]")
        dimensions.add(len(numbers))
        rows.append({"id": entity_id, "vector": numbers})
    if len(dimensions) > 1:
        raise EmbeddingMismatch("entity vectors in one upsert have different dimensions")
    return rows


def _mention_tuple(items: Sequence[Mapping[str, Any]]) -> tuple[Mention, ...]:
    mentions = []
    for item in items:
        if item is None:
            continue
        when = moment(item.get("ts"))
        mentions.append(
            Mention(
                chunk_id=str(item["chunk"]),
                start=int(item["start"]),
                end=int(item["end"]),
                timestamp=when or datetime.fromtimestamp(0, tz=UTC),
            )
        )
    mentions.sort(key=lambda m: (m.timestamp, m.chunk_id, m.start))
    return tuple(mentions)


def _entity(fields: Mapping[str, Any], mentions: Sequence[Mapping[str, Any]]) -> Entity:
    layer = fields.get("layer") or MemoryLayer.SEMANTIC.value
    return Entity(
        id=str(fields["id"]),
        name=str(fields.get("name") or ""),
        type=str(fields.get("type") or ""),
        description=str(fields.get("description") or ""),
        aliases=tuple(str(a) for a in fields.get("aliases") or ()),
        confidence=float(fields.get("confidence") or 0.0),
        salience=float(fields.get("salience") or 0.0),
        created_at=moment(fields.get("created_at")),
        updated_at=moment(fields.get("updated_at")),
        first_seen=moment(fields.get("first_seen")),
        last_seen=moment(fields.get("last_seen")),
        temporal=tuple(str(t) for t in fields.get("temporal") or ()),
        domains=tuple(str(d) for d in fields.get("domains") or ()),
        scope=str(fields.get("scope") or DEFAULT_SCOPE),
        layer=_layer(layer),
        mentions=_mention_tuple(mentions),
    )


def _layer(value: object) -> MemoryLayer:
    try:
        return MemoryLayer(str(value))
    except ValueError:
        return MemoryLayer.SEMANTIC


def _relation(source: str, target: str, fields: Mapping[str, Any]) -> Relation:
    chunks = list(fields.get("mention_chunk") or [])
    starts = list(fields.get("mention_start") or [])
    ends = list(fields.get("mention_end") or [])
    stamps = list(fields.get("mention_ts") or [])
    items = [
        {"chunk": c, "start": s, "end": e, "ts": t}
        for c, s, e, t in zip(chunks, starts, ends, stamps, strict=False)
    ]
    mentions = _mention_tuple(items)[-MENTIONS_PER_RELATION:]
    return Relation(
        id=str(fields["id"]),
        source_id=source,
        target_id=target,
        type=str(fields.get("type") or ""),
        fact=str(fields.get("fact") or ""),
        confidence=float(fields.get("confidence") or 0.0),
        valid_from=moment(fields.get("valid_from")),
        valid_to=moment(fields.get("valid_to")),
        mentions=mentions,
    )
