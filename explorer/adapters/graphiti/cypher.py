"""The read-only Cypher the graphiti adapter sends, written against graphiti-core 0.31's schema.

What graphiti-core 0.31 writes to FalkorDB (its ``nodes.py``, ``edges.py`` and
``models/*/…_db_queries.py``): ``(:Entity:<Label>… {uuid, name, name_embedding (vecf32),
group_id, summary, created_at, <attributes>…})``, ``(:Episodic {uuid, name, group_id, source,
source_description, content, entity_edges, created_at, valid_at})``, ``(:Episodic)-[:MENTIONS
{uuid, group_id, created_at}]->(:Entity)``, ``(:Entity)-[:RELATES_TO {uuid, source_uuid,
target_uuid, name, group_id, fact, fact_embedding (vecf32), episodes, created_at, valid_at,
invalid_at, expired_at, reference_time}]->(:Entity)``; times are ISO-8601 texts in UTC, so a
period compares as text against bounds in the same form. Its full-text indexes are used as they
are (``Entity`` on name, summary, group_id; ``Episodic`` on content, source,
source_description, group_id); it has no vector index, so vector search is a scan with
``vec.cosineDistance``. Every statement filters by ``$group`` (``NULL``: every group) and takes
values only as parameters. Imports nothing.
"""

from __future__ import annotations

GROUP = "($group IS NULL OR {n}.group_id = $group)"

# ``[uuid, name, summary, group_id, created_at, labels, mentioned, first, last]`` of ``n``.
_ENTITY_STATS = """
CALL {
    WITH n
    OPTIONAL MATCH (ep:Episodic)-[:MENTIONS]->(n)
    RETURN count(ep) AS mentioned, min(ep.valid_at) AS first, max(ep.valid_at) AS last
}"""
_ENTITY_COLUMNS = (
    "n.uuid, n.name, n.summary, n.group_id, n.created_at, labels(n), mentioned, first, last"
)

FETCH_ENTITIES = f"""
UNWIND $ids AS id
MATCH (n:Entity {{uuid: id}})
{_ENTITY_STATS}
CALL {{
    WITH n
    OPTIONAL MATCH (ep:Episodic)-[:MENTIONS]->(n)
    WITH ep ORDER BY ep.valid_at DESC, ep.uuid LIMIT $mention_cap
    RETURN collect(CASE WHEN ep IS NULL THEN NULL
        ELSE [ep.uuid, ep.content, ep.valid_at, ep.created_at] END) AS episodes
}}
RETURN {_ENTITY_COLUMNS}, episodes
"""

FETCH_ENTITY_FIELDS = f"""
UNWIND $ids AS id
MATCH (n:Entity {{uuid: id}})
{_ENTITY_STATS}
RETURN {_ENTITY_COLUMNS}
"""

# Kept only when an episode that mentions the entity happened inside the period.
IN_PERIOD = """
WITH node, score, size([(ep:Episodic)-[:MENTIONS]->(node)
    WHERE ($start IS NULL OR ep.valid_at >= $start) AND ($end IS NULL OR ep.valid_at < $end)
    | 1]) > 0 AS in_period
WHERE in_period"""

# Both candidate reads return what the project's entity ranking takes: id, full-text score,
# names, aliases (graphiti has none), description, scope and cosine distance to the query.
_CANDIDATE_COLUMNS = """node.uuid, score, node.name, '', node.summary, node.group_id,
    CASE WHEN $vector IS NULL OR node.name_embedding IS NULL THEN NULL
        ELSE vec.cosineDistance(node.name_embedding, vecf32($vector)) END"""

# Ties in write order, as the memory's own full-text read breaks them (no property read each).
FULLTEXT_ENTITIES = f"""
CALL db.idx.fulltext.queryNodes('Entity', $query) YIELD node, score
WITH node, score WHERE {GROUP.format(n="node")}
{{period}}
WITH node, score
ORDER BY score DESC, id(node)
LIMIT $fetch
RETURN {_CANDIDATE_COLUMNS}
"""

VECTOR_ENTITIES = f"""
MATCH (node:Entity)
WHERE node.name_embedding IS NOT NULL AND {GROUP.format(n="node")}
WITH node, 0.0 AS score
{{period}}
WITH node, score, vec.cosineDistance(node.name_embedding, vecf32($vector)) AS distance
ORDER BY distance, node.uuid
LIMIT $fetch
RETURN {_CANDIDATE_COLUMNS}
"""

_RELATION_FIELDS = (
    "{r} {{.uuid, .name, .fact, .episodes, .valid_at, .invalid_at, .expired_at, .created_at}}"
)

# Each seed's facts, those still valid first, then the newest; with the entity at the other end.
NEIGHBOURS = f"""
UNWIND $ids AS id
MATCH (n:Entity {{uuid: id}})
CALL {{
    WITH n
    MATCH (n)-[r:RELATES_TO]-(m:Entity)
    WHERE {GROUP.format(n="m")}
    WITH n, r, m
    ORDER BY r.invalid_at IS NULL AND r.expired_at IS NULL DESC, r.created_at DESC, r.uuid
    LIMIT $limit
    RETURN collect([startNode(r).uuid, endNode(r).uuid, {_RELATION_FIELDS.format(r="r")},
        m.uuid, m.name, labels(m), m.group_id]) AS near
}}
RETURN id, near
"""

RELATIONS_AMONG = f"""
UNWIND $ids AS id
MATCH (a:Entity {{uuid: id}})-[r:RELATES_TO]->(b:Entity)
WHERE b.uuid IN $ids
RETURN a.uuid, b.uuid, {_RELATION_FIELDS.format(r="r")}
"""

EPISODE_INFO = """
UNWIND $ids AS id
MATCH (e:Episodic {uuid: id})
RETURN e.uuid, size(e.content), e.valid_at, e.created_at
"""

DEGREE = """
UNWIND $ids AS id
MATCH (n:Entity {uuid: id})
OPTIONAL MATCH (n)-[r:RELATES_TO]-()
RETURN id, count(r)
"""

ENTITIES_IN_EPISODES = """
UNWIND $ids AS id
MATCH (:Episodic {uuid: id})-[:MENTIONS]->(n:Entity)
RETURN id, collect(DISTINCT n.uuid)
"""

COUNTS = {
    "entities": "MATCH (n:Entity) RETURN count(n)",
    "relations": "MATCH (:Entity)-[r:RELATES_TO]->(:Entity) RETURN count(r)",
    "episodes": "MATCH (e:Episodic) RETURN count(e)",
    "mentions": "MATCH (:Episodic)-[m:MENTIONS]->(:Entity) RETURN count(m)",
    "communities": "MATCH (c:Community) RETURN count(c)",
    "sagas": "MATCH (s:Saga) RETURN count(s)",
}
ENTITY_LABELS = "MATCH (n:Entity) RETURN labels(n), n.group_id, count(n)"
EPISODE_GROUPS = "MATCH (e:Episodic) RETURN e.group_id, count(e)"
EPISODE_SPAN = "MATCH (e:Episodic) RETURN min(e.valid_at), max(e.valid_at)"

MOST_MENTIONED = f"""
MATCH (n:Entity) WHERE {GROUP.format(n="n")}
WITH n, size([(:Episodic)-[:MENTIONS]->(n) | 1]) AS mentioned
RETURN n.uuid ORDER BY mentioned DESC, n.uuid LIMIT $limit
"""

# ``[uuid, content, source_description, source, valid_at, created_at, group_id]``.
_EPISODE_COLUMNS = (
    "e.uuid, e.content, e.source_description, e.source, e.valid_at, e.created_at, e.group_id"
)

SCOPE_EPISODES = f"""
MATCH (e:Episodic) WHERE {GROUP.format(n="e")}
RETURN {_EPISODE_COLUMNS}
ORDER BY e.group_id, e.source_description, e.valid_at, e.uuid
"""

SCOPE_STAMP = f"""
MATCH (e:Episodic) WHERE {GROUP.format(n="e")}
RETURN count(e), max(e.created_at), max(e.uuid)
"""

FETCH_EPISODES = f"""
UNWIND $ids AS id
MATCH (e:Episodic {{uuid: id}})
RETURN {_EPISODE_COLUMNS}
"""

# Every episode of the asked (group, source description) pairs, to number them in Python:
# FalkorDB 4.16 drops a text ``<`` against its range index on ``valid_at`` (and against
# variables a CALL subquery imports), so "how many came before" cannot be counted there.
CONVERSATIONS = """
UNWIND $pairs AS pair
MATCH (x:Episodic) WHERE x.group_id = pair[0] AND x.source_description = pair[1]
RETURN x.group_id, x.source_description, x.valid_at, x.uuid
"""

# graphiti keeps no vectors of episodes: an episode is as near as the nearest fact taken from it.
NEAREST_FACTS = f"""
MATCH (:Entity)-[r:RELATES_TO]->(:Entity)
WHERE r.fact_embedding IS NOT NULL AND {GROUP.format(n="r")}
WITH r, vec.cosineDistance(r.fact_embedding, vecf32($vector)) AS distance
ORDER BY distance, r.uuid
LIMIT $fetch
RETURN r.episodes, distance
"""

STORED_VECTOR = {
    "name_embedding": (
        "MATCH (n:Entity) WHERE n.name_embedding IS NOT NULL RETURN n.name_embedding LIMIT 1"
    ),
    "fact_embedding": (
        "MATCH ()-[r:RELATES_TO]->() WHERE r.fact_embedding IS NOT NULL "
        "RETURN r.fact_embedding LIMIT 1"
    ),
}

GROUPS = "MATCH (n:Entity) RETURN DISTINCT n.group_id ORDER BY n.group_id"

GROUP_NAMES = """
MATCH (n:Entity {group_id: $group})
RETURN n.name, n.uuid ORDER BY n.uuid
"""

# The concept stamp changes when graphiti rewrites the entity's summary or adds facts to it.
GROUP_STAMPS = """
MATCH (n:Entity {group_id: $group}) WHERE n.name IN $names
OPTIONAL MATCH (n)-[r:RELATES_TO]-()
RETURN n.name, n.uuid, n.created_at, size(n.summary), count(r)
ORDER BY n.uuid
"""

GROUP_RECORDS = f"""
MATCH (n:Entity {{group_id: $group}}) WHERE n.name IN $names
{_ENTITY_STATS}
CALL {{
    WITH n
    OPTIONAL MATCH (n)-[r:RELATES_TO]-()
    WITH r ORDER BY r.created_at DESC, r.uuid LIMIT $fact_cap
    RETURN collect(r.fact) AS facts
}}
RETURN {_ENTITY_COLUMNS}, facts
ORDER BY n.uuid
"""
