"""Fakes of the stores with the write semantics ingest depends on, and a way to crash them.

``IngestChunkStore`` keeps a pending mark and refuses a second row with the same content hash,
like the PostgreSQL adapter; ``IngestGraphStore`` merges like the FalkorDB adapter (scalar
properties replaced, aliases, dates, domains and mentions unioned, relations needing both ends).
``CrashPlan`` raises ``Crash`` at the n-th store call, which stops an import exactly where a
``kill -9`` would, so a test can resume from every point.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace
from datetime import datetime

from explorer.core.errors import EmbeddingMismatch, InvalidArgument
from explorer.core.models import Chunk, EmbeddingSpec, Entity, Mention, Relation
from explorer.testing import FakeConceptStore, FakeEmbedder
from explorer.testing.stores import scopes_holding_in


class Crash(Exception):
    """Stands for the process dying at this point."""


class CrashPlan:
    """Counts store calls across all fakes and raises ``Crash`` at the chosen one."""

    def __init__(self, at: int | None = None) -> None:
        self.at = at
        self.calls = 0
        self.log: list[str] = []

    def tick(self, what: str) -> None:
        self.calls += 1
        self.log.append(what)
        if self.at is not None and self.calls == self.at:
            raise Crash(f"crashed at call {self.calls} ({what})")


class IngestChunkStore:
    def __init__(self, plan: CrashPlan | None = None) -> None:
        self.plan = plan or CrashPlan()
        self.rows: dict[str, Chunk] = {}
        self.vectors: dict[str, list[float]] = {}
        self.state: dict[str, str] = {}
        self.hashes: dict[str, str] = {}
        self.spec: EmbeddingSpec | None = None
        self.marks: dict[str, str] = {}
        self.upserts = 0

    async def embedding_spec(self) -> EmbeddingSpec | None:
        return self.spec

    async def scopes_holding(self, said: Sequence[tuple[str, datetime, str]]) -> dict[str, int]:
        return scopes_holding_in(self.rows.values(), said)

    async def read_mark(self, name: str) -> str | None:
        return self.marks.get(name)

    async def write_mark(self, name: str, value: str) -> None:
        self.plan.tick("chunks.write_mark")
        self.marks[name] = value

    async def get(self, ids: Sequence[str]) -> list[Chunk]:
        return [self.rows[i] for i in ids if i in self.rows]

    async def upsert(
        self,
        chunks: Sequence[Chunk],
        vectors: Sequence[Sequence[float]],
        spec: EmbeddingSpec,
        *,
        pending: bool = False,
    ) -> int:
        self.plan.tick("chunks.upsert")
        if self.spec is not None and spec != self.spec:
            raise EmbeddingMismatch(f"store holds {self.spec}, not {spec}")
        self.spec = spec
        self.upserts += 1
        new = 0
        for chunk, vector in zip(chunks, vectors, strict=True):
            if chunk.id in self.rows or chunk.content_hash in self.hashes:
                continue
            self.rows[chunk.id] = chunk
            self.vectors[chunk.id] = list(vector)
            self.hashes[chunk.content_hash] = chunk.id
            self.state[chunk.id] = "pending" if pending else "done"
            new += 1
        return new

    async def pending(self) -> list[Chunk]:
        ids = [i for i, state in self.state.items() if state == "pending"]
        return sorted(
            (self.rows[i] for i in ids), key=lambda c: (c.conversation_id, c.position, c.id)
        )

    async def mark_done(self, ids: Sequence[str]) -> None:
        self.plan.tick("chunks.mark_done")
        for chunk_id in ids:
            if chunk_id in self.state:
                self.state[chunk_id] = "done"

    async def domains(self) -> list[str]:
        return sorted({d for chunk in self.rows.values() for d in chunk.domains})

    async def counts(self) -> Mapping[str, int]:
        result = {
            "chunks": len(self.rows),
            "pending": sum(1 for state in self.state.values() if state == "pending"),
        }
        for chunk in self.rows.values():
            result[f"scope:{chunk.scope}"] = result.get(f"scope:{chunk.scope}", 0) + 1
        return result


def _union(first: Sequence[Mention], second: Sequence[Mention]) -> tuple[Mention, ...]:
    seen = {(m.chunk_id, m.start, m.end): m for m in first}
    for mention in second:
        seen.setdefault((mention.chunk_id, mention.start, mention.end), mention)
    return tuple(sorted(seen.values(), key=lambda m: (m.timestamp, m.chunk_id, m.start)))


def _union_list(first: Sequence[str], second: Sequence[str]) -> tuple[str, ...]:
    return tuple(dict.fromkeys((*first, *second)))


class IngestGraphStore:
    def __init__(self, plan: CrashPlan | None = None) -> None:
        self.plan = plan or CrashPlan()
        self.entities: dict[str, Entity] = {}
        self.relations: dict[str, Relation] = {}
        self.vectors: dict[str, list[float]] = {}

    async def get_entities(self, ids: Sequence[str]) -> list[Entity]:
        return [self.entities[i] for i in ids if i in self.entities]

    async def upsert(
        self,
        entities: Sequence[Entity],
        relations: Sequence[Relation],
        *,
        vectors: Mapping[str, Sequence[float]] | None = None,
    ) -> None:
        self.plan.tick("graph.upsert")
        known = set(self.entities) | {entity.id for entity in entities}
        for relation in relations:
            if relation.source_id not in known or relation.target_id not in known:
                raise InvalidArgument("relations point to unknown entities")
        for entity in entities:
            old = self.entities.get(entity.id)
            if old is not None:
                entity = replace(
                    entity,
                    aliases=_union_list(old.aliases, entity.aliases),
                    temporal=_union_list(old.temporal, entity.temporal),
                    domains=_union_list(old.domains, entity.domains),
                    mentions=_union(old.mentions, entity.mentions),
                    created_at=old.created_at,
                )
            self.entities[entity.id] = entity
        for key, vector in (vectors or {}).items():
            self.vectors[key] = list(vector)
        for relation in relations:
            old_relation = self.relations.get(relation.id)
            if old_relation is not None:
                relation = replace(
                    relation, mentions=_union(old_relation.mentions, relation.mentions)
                )
            self.relations[relation.id] = relation

    async def counts(self) -> Mapping[str, int]:
        result = {"entities": len(self.entities), "relations": len(self.relations)}
        for entity in self.entities.values():
            result[f"type:{entity.type}"] = result.get(f"type:{entity.type}", 0) + 1
        return result

    async def search_entities(self, *args: object, **kwargs: object) -> list[object]:
        return []

    async def neighbourhood(self, *args: object, **kwargs: object) -> object:
        raise NotImplementedError

    async def degree(self, ids: Sequence[str]) -> dict[str, int]:
        return {}

    async def entities_in_chunks(self, chunk_ids: Sequence[str]) -> dict[str, list[str]]:
        return {}


class IngestConceptStore(FakeConceptStore):
    def __init__(self, plan: CrashPlan | None = None) -> None:
        super().__init__()
        self.plan = plan or CrashPlan()

    async def upsert(
        self, agent: str, records: Sequence[Mapping[str, object]], tenant: str | None = None
    ) -> int:
        self.plan.tick("concepts.upsert")
        return await super().upsert(agent, records, tenant)


def make_stores(plan: CrashPlan | None = None, embedder: FakeEmbedder | None = None):  # type: ignore[no-untyped-def]
    """Fresh fakes sharing one crash plan, as a ``Stores`` the pipeline accepts."""
    from explorer.ingest.pipeline import Stores

    plan = plan or CrashPlan()
    return Stores(
        chunks=IngestChunkStore(plan),  # type: ignore[arg-type]
        graph=IngestGraphStore(plan),  # type: ignore[arg-type]
        concepts=IngestConceptStore(plan),
        embedder=embedder or FakeEmbedder(),
    )
