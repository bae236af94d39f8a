"""``GraphitiConceptStore``: the concept scan's records, built from graphiti's entities on read.

graphiti keeps no concept records, so each entity is one, as the explorer's own ingest writes
one per entity: its name, type, summary as the description and its latest facts as the body,
with salience and last-seen time from the episodes that mention it. An agent is a ``group_id``
(the scope's top level) and the tenant is the same group. The ``updated_at`` stamp changes when
graphiti rewrites the summary or adds a fact, so the term scan's cache stays fresh. ``upsert``
raises ``ReadOnlyStore``. Imports the core and this package.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence

from explorer.adapters import sanitize
from explorer.adapters.graphiti import cypher
from explorer.adapters.graphiti import records as rec
from explorer.adapters.graphiti.connection import GraphitiConnection
from explorer.adapters.graphiti.store import read_only
from explorer.core.models import scope_distance, scope_parts

FACTS_PER_RECORD = 50


def _group(agent: str) -> str:
    parts = scope_parts(sanitize.plain_text(agent, "agent", max_chars=1_000))
    return parts[0] if parts else ""


def _names(names: Sequence[str]) -> list[str]:
    return sanitize.plain_strings(names, "names", max_items=100_000, max_chars=10_000)


class GraphitiConceptStore:
    """``ConceptStore`` over graphiti's entities, one record per name within a group."""

    def __init__(self, connection: GraphitiConnection) -> None:
        self._connection = connection.share()
        self._closed = False

    async def aclose(self) -> None:
        if not self._closed:
            self._closed = True
            await self._connection.release()

    async def agents(self, within: str = "") -> list[str]:
        rows = await self._connection.read(cypher.GROUPS, {})
        groups = [str(row[0]) for row in rows if row[0]]
        return [g for g in groups if scope_distance(g, within) == 0]

    async def names(self, agent: str, tenant: str | None = None) -> list[str]:
        rows = await self._connection.read(cypher.GROUP_NAMES, {"group": _group(agent)})
        return list(dict.fromkeys(str(row[0]) for row in rows if row[0]))

    async def updated_at(
        self, agent: str, names: Sequence[str], tenant: str | None = None
    ) -> dict[str, str]:
        rows = await self._connection.read(
            cypher.GROUP_STAMPS, {"group": _group(agent), "names": _names(names)}
        )
        stamps: dict[str, str] = {}
        for name, uuid, created, summary_size, facts in rows:
            stamps.setdefault(str(name), f"{created}|{uuid}|{summary_size}|{facts}")
        return stamps

    async def read(
        self, agent: str, names: Sequence[str], tenant: str | None = None
    ) -> dict[str, str]:
        rows = await self._connection.read(
            cypher.GROUP_RECORDS,
            {"group": _group(agent), "names": _names(names), "fact_cap": FACTS_PER_RECORD},
        )
        found: dict[str, str] = {}
        for row in rows:
            entity = rec.entity(row)
            if entity.name in found:
                continue  # graphiti may keep two entities of one name; the first one speaks
            facts = [str(fact) for fact in row[9] or () if fact]
            record = {
                "name": entity.name,
                "id": entity.id,
                "type": entity.type,
                "description": entity.description,
                "body": "\n".join(facts),
                "confidence": entity.confidence,
                "salience": entity.salience,
                "updated_at": entity.updated_at.isoformat() if entity.updated_at else None,
                "first_seen": entity.first_seen.isoformat() if entity.first_seen else None,
                "last_seen": entity.last_seen.isoformat() if entity.last_seen else None,
                "scope": entity.scope,
            }
            found[entity.name] = json.dumps(record, ensure_ascii=False)
        return found

    async def upsert(
        self, agent: str, records: Sequence[Mapping[str, object]], tenant: str | None = None
    ) -> int:
        raise read_only("writing concept records")

    async def forget_scope(self, scope: str) -> int:
        raise read_only("forgetting a scope")
