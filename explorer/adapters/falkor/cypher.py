"""The Cypher of the FalkorDB graph store: every statement it sends, as constant text.

Nothing here is built from caller text: values travel as parameters, and the only formatted parts
are the period clause chosen from a constant and the vector index's validated ``int`` dimension.
The graph model these statements read and write is described in ``adapters.falkor``. Beside the
statements: the field lists the codec zips replies with, and the digest of the schema a graph was
set up with. Imports the standard library and the core's relation names.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence

from explorer.core.models import WEAK_RELATIONS

SCOPE_MATCH = (
    "($scope IS NULL OR {n}.scope = $scope OR {n}.scope = '' "
    "OR {n}.scope STARTS WITH $scope_below OR $scope STARTS WITH ({n}.scope + '/'))"
)
# Pattern comprehensions are not allowed in WHERE, so the period test is computed in a WITH.
IN_PERIOD = (
    "WITH node, score, size([(node)-[pm:MENTIONED_IN]->(:Source) "
    "WHERE ($start IS NULL OR pm.ts >= $start) AND ($end IS NULL OR pm.ts < $end) | 1]) > 0 "
    "AS in_period WHERE in_period"
)
ENTITY_FIELDS = (
    "{n} {{.id, .name, .type, .description, .aliases, .alias_evidence, .refused_aliases, "
    ".confidence, .salience, .created_at, .updated_at, .first_seen, .last_seen, .temporal, "
    ".domains, .scope, .layer}}"
)
RELATION_FIELDS = (
    "{r} {{.id, .type, .fact, .confidence, .valid_from, .valid_to, .mention_chunk, "
    ".mention_start, .mention_end, .mention_ts}}"
)

UPSERT_ENTITIES = """
UNWIND $rows AS row
MERGE (n:Entity {id: row.id})
ON CREATE SET n.created_at = row.created_at, n.updated_at = row.updated_at
SET n.name = row.name, n.type = row.type, n.description = row.description,
    n.confidence = row.confidence, n.salience = row.salience, n.scope = row.scope,
    n.layer = row.layer,
    n.updated_at = coalesce(row.given_updated_at, n.updated_at),
    n.aliases = reduce(acc = coalesce(n.aliases, []), i IN range(0, size(row.aliases) - 1) |
        CASE WHEN row.aliases[i] IN acc OR row.alias_folds[i] IN coalesce(n.refused_folds, [])
        THEN acc ELSE acc + row.aliases[i] END),
    n.alias_evidence = reduce(acc = coalesce(n.alias_evidence, []),
        i IN range(0, size(row.alias_evidence) - 1) |
        CASE WHEN row.alias_evidence[i] IN acc
            OR row.evidence_folds[i] IN coalesce(n.refused_folds, [])
        THEN acc ELSE acc + row.alias_evidence[i] END),
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

# Detaching an alias: the entity's aliases and their evidence are read, filtered by the adapter
# (names compare case-insensitively) and written back whole, and the refusal is kept twice: as
# written (``refused_aliases``, shown) and case-folded (``refused_folds``, which the entity
# upsert compares each incoming alias and evidence item with, by the fold the codec sends).
READ_ALIASES = """
MATCH (n:Entity {id: $id})
RETURN n.aliases, n.alias_evidence, n.refused_aliases
"""

DETACH_ALIAS = """
MATCH (n:Entity {id: $id})
WITH n, $fold IN coalesce(n.refused_folds, []) AS known
SET n.aliases = $aliases, n.alias_evidence = $alias_evidence,
    n.alias_text = reduce(text = '', a IN $aliases | text + ' ' + a),
    n.refused_aliases = CASE WHEN known THEN n.refused_aliases
        ELSE coalesce(n.refused_aliases, []) + $refused END,
    n.refused_folds = CASE WHEN known THEN n.refused_folds
        ELSE coalesce(n.refused_folds, []) + $fold END
RETURN count(n)
"""

SET_REFUSALS = """
MATCH (n:Entity {id: $id})
SET n.refused_aliases = $refused, n.refused_folds = $folds
RETURN count(n)
"""

UPSERT_VECTORS = """
UNWIND $rows AS row
MATCH (n:Entity {id: row.id})
SET n.embedding = vecf32(row.vector)
RETURN count(n)
"""

UPSERT_MENTIONS = """
UNWIND $rows AS row
MATCH (n:Entity {id: row.entity})
MERGE (s:Source {id: row.chunk})
ON CREATE SET s.ts = row.ts
MERGE (n)-[m:MENTIONED_IN {start: row.start, end: row.end}]->(s)
ON CREATE SET m.ts = row.ts
RETURN count(m)
"""

UPSERT_RELATIONS = """
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

# Deleting a scope, a batch at a time so no one write holds the graph for long: its entities
# (with their relations and mention edges), then the sources no entity mentions any more.
IN_SCOPE = "MATCH (n:Entity) WHERE n.scope = $scope OR n.scope STARTS WITH $below"
COUNT_IN_SCOPE = f"{IN_SCOPE} RETURN count(n)"
FORGET_ENTITIES = f"""
{IN_SCOPE}
WITH n LIMIT $batch
DETACH DELETE n
RETURN count(n)
"""
FORGET_SOURCES = """
MATCH (s:Source) WHERE NOT (s)<-[:MENTIONED_IN]-()
WITH s LIMIT $batch
DELETE s
RETURN count(s)
"""

EXISTING_IDS = """
UNWIND $ids AS id
MATCH (n:Entity {id: id})
RETURN n.id
"""

# A node's strongest relations, as every neighbourhood read orders them: stated facts before
# the weak signals (a speaker's mentions, co-occurrence), then confidence, the other end's
# salience and the relation id. ``core.shape`` keeps the same order.
WEAK_TYPES = ", ".join(f"'{name}'" for name in sorted(WEAK_RELATIONS))
STRONGEST = (
    f"CASE WHEN r.type IN [{WEAK_TYPES}] THEN 1 ELSE 0 END, "
    "r.confidence DESC, m.salience DESC, r.id"
)

# The latest ``$mention_cap`` mentions are picked per entity in a subquery (a top-k each,
# not one sort over every asked entity's mentions).
FETCH_ENTITIES = f"""
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
RETURN {ENTITY_FIELDS.format(n="n")}, mentions
"""

FETCH_ENTITY_FIELDS = f"""
UNWIND $ids AS id
MATCH (n:Entity {{id: id}})
RETURN {ENTITY_FIELDS.format(n="n")}
"""

# Both candidate reads return what ranking needs (names, description, scope and the cosine
# distance to the query vector), so ranking costs no further round trip.
CANDIDATE_COLUMNS = """node.id, score, node.name, node.alias_text, node.description, node.scope,
    CASE WHEN $vector IS NULL OR node.embedding IS NULL THEN NULL
        ELSE vec.cosineDistance(node.embedding, vecf32($vector)) END"""


# Equal scores are common (a word in thousands of descriptions scores them alike): they are
# ordered by the node's internal id, the order entities were written, which needs no property
# read. Ordering them by ``node.id`` read it from every tied match and doubled the read's cost.
def _fulltext_candidates(scope_test: str) -> str:
    return f"""
CALL db.idx.fulltext.queryNodes('Entity', $query) YIELD node, score
{scope_test}{{period}}
WITH node, score
ORDER BY score DESC, id(node)
LIMIT $fetch
RETURN {CANDIDATE_COLUMNS}
"""


FULLTEXT_CANDIDATES = _fulltext_candidates(
    f"WITH node, score WHERE {SCOPE_MATCH.format(n='node')}\n"
)
# The same read for a scope that sees every entity: no test per match.
FULLTEXT_ANY = _fulltext_candidates("")

VECTOR_CANDIDATES = f"""
CALL db.idx.vector.queryNodes('Entity', 'embedding', $fetch, vecf32($vector)) YIELD node, score
WITH node, score WHERE {SCOPE_MATCH.format(n="node")}
{{period}}
RETURN {CANDIDATE_COLUMNS}
"""

# Each seed's strongest relations are picked inside a subquery, so the server keeps a top
# ``$limit`` per seed instead of sorting every relation of every seed together.
NEIGHBOURS = f"""
UNWIND $ids AS id
MATCH (n:Entity {{id: id}})
CALL {{
    WITH n
    MATCH (n)-[r:REL]-(m:Entity)
    WHERE {SCOPE_MATCH.format(n="m")}
    WITH n, r, m
    ORDER BY {STRONGEST}
    LIMIT $limit
    RETURN collect({{rel: {RELATION_FIELDS.format(r="r")}, outgoing: startNode(r) = n,
        other: m {{.id, .name, .type}}}}) AS neighbours
}}
RETURN id, neighbours
"""

# One read: each seed's strongest relations pick its neighbours, then every relation among the
# seeds and those neighbours is walked from its source (an index lookup and one hop per member,
# never a scan of all relations). Aggregating without a grouping key keeps it to one row.
NEIGHBOURHOOD = f"""
UNWIND $ids AS id
MATCH (n:Entity {{id: id}})
OPTIONAL MATCH (n)-[r:REL]-(m:Entity)
WHERE {SCOPE_MATCH.format(n="m")}
WITH n, r, m
ORDER BY {STRONGEST}
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
        ELSE {{source: a.id, target: b.id, rel: {RELATION_FIELDS.format(r="r")}}} END) AS rels
RETURN [x IN present | {ENTITY_FIELDS.format(n="x")}], rels[0..$max_relations]
"""

RELATION_KEYS = ("id", "type", "fact", "confidence", "valid_from", "valid_to")


def _as_list(variable: str, keys: Sequence[str]) -> str:
    return "[" + ", ".join(f"{variable}.{key}" for key in keys) + "]"


#: What the spread needs of an entity: enough to score it and draw it. Descriptions, aliases and
#: concept lists are left out (a recalled entity is read in full afterwards).
SPREAD_ENTITY_KEYS = (
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
# ``NEIGHBOURS``), each with the entity at the other end, all as plain lists (maps and
# provenance arrays cost more to decode than the spread ever uses).
SPREAD_NEIGHBOURHOOD = f"""
UNWIND $ids AS id
MATCH (n:Entity {{id: id}})
CALL {{
    WITH n
    MATCH (n)-[r:REL]-(m:Entity)
    WHERE {SCOPE_MATCH.format(n="m")}
    WITH r, m
    ORDER BY {STRONGEST}
    LIMIT $limit
    RETURN collect([r, m]) AS near
}}
RETURN {_as_list("n", SPREAD_ENTITY_KEYS)},
    [pair IN near | [{_as_list("pair[1]", SPREAD_ENTITY_KEYS)}, startNode(pair[0]).id,
        endNode(pair[0]).id, {_as_list("pair[0]", RELATION_KEYS)}]]
"""

# The graph's shape for ``core.shape``: every entity's lean fields and every relation, read
# whole, and a token every write replaces, so a reader knows when to read them again.
# Read in pages of internal node ids, so neither side holds the whole graph as one reply.
SHAPE_BOUNDS = "MATCH (n:Entity) RETURN min(id(n)), max(id(n))"
SHAPE_ENTITIES = (
    "MATCH (n:Entity) WHERE id(n) >= $low AND id(n) < $high "
    f"RETURN {_as_list('n', SPREAD_ENTITY_KEYS)}"
)
SHAPE_RELATIONS = (
    "MATCH (a:Entity)-[r:REL]->(b:Entity) WHERE id(a) >= $low AND id(a) < $high "
    "RETURN a.id, b.id, r.id, r.type, r.fact, r.confidence, r.valid_from, r.valid_to"
)
SHAPE_MENTIONS = (
    "MATCH (e:Entity)-[:MENTIONED_IN]->(s:Source) WHERE id(e) >= $low AND id(e) < $high "
    "RETURN s.id, e.id"
)
SHAPE_VERSION = "MATCH (v:Shape) RETURN v.version"
BUMP_SHAPE = "MERGE (v:Shape {id: 'graph'}) SET v.version = $token RETURN v.version"

DEGREE = """
UNWIND $ids AS id
MATCH (n:Entity {id: id})
OPTIONAL MATCH (n)-[r:REL]-()
RETURN id, count(r)
"""

ENTITIES_IN_CHUNKS = """
UNWIND $ids AS chunk
MATCH (:Source {id: chunk})<-[:MENTIONED_IN]-(e:Entity)
RETURN chunk, collect(DISTINCT e.id)
"""

COUNTS = {
    "entities": "MATCH (n:Entity) RETURN count(n)",
    "relations": "MATCH (:Entity)-[r:REL]->(:Entity) RETURN count(r)",
    "sources": "MATCH (s:Source) RETURN count(s)",
    "mentions": "MATCH (:Entity)-[m:MENTIONED_IN]->(:Source) RETURN count(m)",
}
COUNT_TYPES = "MATCH (n:Entity) RETURN n.type, count(n) ORDER BY n.type"
COUNT_SCOPES = "MATCH (n:Entity) RETURN n.scope, count(n) ORDER BY n.scope"
MOST_SALIENT = (
    "MATCH (n:Entity) WHERE " + SCOPE_MATCH.format(n="n") + " "
    "RETURN n.id ORDER BY n.salience DESC, n.id LIMIT $limit"
)

INDEXES = "CALL db.indexes() YIELD label, properties, types, options, entitytype"
SCHEMA = (
    ("NODE", "Entity", "id", "RANGE", "CREATE INDEX FOR (n:Entity) ON (n.id)"),
    ("NODE", "Entity", "type", "RANGE", "CREATE INDEX FOR (n:Entity) ON (n.type)"),
    ("NODE", "Source", "id", "RANGE", "CREATE INDEX FOR (s:Source) ON (s.id)"),
    ("RELATIONSHIP", "REL", "id", "RANGE", "CREATE INDEX FOR ()-[r:REL]-() ON (r.id)"),
    # Every label and relationship type a MERGE writes must exist before two writers meet: on
    # a graph that lacks the type, two concurrent MERGEs of one relationship both create it.
    (
        "RELATIONSHIP",
        "MENTIONED_IN",
        "start",
        "RANGE",
        "CREATE INDEX FOR ()-[m:MENTIONED_IN]-() ON (m.start)",
    ),
    ("NODE", "Shape", "id", "RANGE", "CREATE INDEX FOR (v:Shape) ON (v.id)"),
)
FULLTEXT_FIELDS = ("name", "description", "alias_text")
CREATE_FULLTEXT = "CREATE FULLTEXT INDEX FOR (n:Entity) ON (n.name, n.description, n.alias_text)"
CREATE_VECTOR = (
    "CREATE VECTOR INDEX FOR (n:Entity) ON (n.embedding) "
    "OPTIONS {{dimension: {dimension:d}, similarityFunction: 'cosine'}}"
)

# Re-embedding writes the new name vectors to ``embedding_next`` first, so the live vectors and
# their index keep serving searches until the swap.
DROP_VECTOR = "DROP VECTOR INDEX FOR (n:Entity) ON (n.embedding)"
VECTOR_STATUS = INDEXES + ", status RETURN label, types, status"
REEMBED_PAGE = (
    "MATCH (n:Entity) WHERE n.id > $after "
    "RETURN n.id, coalesce(n.name, '') ORDER BY n.id LIMIT $limit"
)
REEMBED_MISSING = (
    "MATCH (n:Entity) WHERE n.embedding_next IS NULL "
    "RETURN n.id, coalesce(n.name, '') ORDER BY n.id LIMIT $limit"
)
REEMBED_STAGE = """
UNWIND $rows AS row
MATCH (n:Entity {id: row.id})
SET n.embedding_next = vecf32(row.vector)
RETURN count(n)
"""
REEMBED_CLEAR = "MATCH (n:Entity) WHERE n.embedding_next IS NOT NULL SET n.embedding_next = NULL"
REEMBED_SWAP = """
MATCH (n:Entity)
SET n.embedding = n.embedding_next, n.embedding_next = NULL
RETURN count(n.embedding)
"""
# Beside each graph, the digest of the schema it was set up with (see ensure_schema).
SCHEMA_MARKER = "scour:schema:"
SCHEMA_DIGEST = hashlib.sha256(
    repr((SCHEMA, CREATE_FULLTEXT, FULLTEXT_FIELDS)).encode()
).hexdigest()[:32]
