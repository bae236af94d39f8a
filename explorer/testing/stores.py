"""In-memory fakes of the store ports (embedder, chunk, graph and concept stores).

For tests of the core and of code built on it, here and in other projects. Each fake keeps a
``calls`` list of ``(method, arguments)`` so a test can prove a store was (or was not) asked,
and a ``fail`` attribute: set it to an exception and every call raises it. They are small and
deterministic, and ``tests/contract`` runs each one through the same contract as the real
adapter of its port (domain and scope filter inside the search, best first, unknown ids left
out). ``sample_memory`` builds a small memory over them. Imports the standard library and core.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import math
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import replace
from datetime import UTC, datetime

from explorer.core.candidates import Candidate
from explorer.core.errors import EmbeddingMismatch
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
)
from explorer.core.validate import forgettable_scope

Call = tuple[str, dict[str, object]]
_WORD = re.compile(r"\w+")


def words(text: str) -> list[str]:
    return [word.lower() for word in _WORD.findall(text)]


def in_scope(memory_scope: str, scope: str | None) -> bool:
    """The ports' scope filter: the scope itself and everything below it."""
    return scope is None or memory_scope == scope or memory_scope.startswith(scope + "/")


def scopes_holding_in(
    chunks: Iterable[Chunk], said: Sequence[tuple[str, datetime, str]]
) -> dict[str, int]:
    """``ChunkStore.scopes_holding`` over chunks in hand (the fakes')."""
    wanted = set(said)
    held: dict[str, set[tuple[str, datetime, str]]] = {}
    for chunk in chunks:
        key = (chunk.speaker, chunk.timestamp, chunk.text)
        if key in wanted:
            held.setdefault(chunk.scope, set()).add(key)
    return {scope: len(keys) for scope, keys in held.items()}


def cosine(a: Sequence[float], b: Sequence[float]) -> float:
    return sum(x * y for x, y in zip(a, b, strict=True))


class _Faulty:
    def __init__(self) -> None:
        self.calls: list[Call] = []
        self.fail: BaseException | None = None
        self.delay = 0.0

    async def _enter(self, method: str, **arguments: object) -> None:
        self.calls.append((method, arguments))
        if self.delay:
            await asyncio.sleep(self.delay)
        if self.fail is not None:
            raise self.fail

    def called(self, method: str) -> list[dict[str, object]]:
        return [arguments for name, arguments in self.calls if name == method]

    async def aclose(self) -> None:
        self.calls.append(("aclose", {}))


class FakeEmbedder(_Faulty):
    """Hashed bag of words, unit length: texts sharing words are close."""

    def __init__(self, dimension: int = 64, model: str = "fake-hash") -> None:
        super().__init__()
        self._spec = EmbeddingSpec(model=model, dimension=dimension)

    @property
    def spec(self) -> EmbeddingSpec:
        return self._spec

    def vector(self, text: str) -> list[float]:
        values = [0.0] * self._spec.dimension
        for word in words(text):
            digest = hashlib.blake2b(word.encode(), digest_size=8).digest()
            values[int.from_bytes(digest[:4], "big") % self._spec.dimension] += 1.0
        norm = math.sqrt(sum(v * v for v in values)) or 1.0
        return [v / norm for v in values]

    async def embed(self, texts: Sequence[str]) -> list[list[float]]:
        await self._enter("embed", texts=list(texts))
        return [self.vector(text) for text in texts]


class FakeChunkStore(_Faulty):
    def __init__(self, embedder: FakeEmbedder, chunks: Sequence[Chunk] = ()) -> None:
        super().__init__()
        self._embedder = embedder
        self.spec = embedder.spec
        self.chunks: dict[str, Chunk] = {}
        self.vectors: dict[str, list[float]] = {}
        self.pending_ids: set[str] = set()
        self.marks: dict[str, str] = {}
        for chunk in chunks:
            self.add(chunk)

    def add(self, chunk: Chunk) -> None:
        self.chunks[chunk.id] = chunk
        self.vectors[chunk.id] = self._embedder.vector(chunk.text)

    def _matching(self, domain: str | None, scope: str | None) -> list[Chunk]:
        return [
            chunk
            for chunk in self.chunks.values()
            if (domain is None or domain in chunk.domains) and in_scope(chunk.scope, scope)
        ]

    async def embedding_spec(self) -> EmbeddingSpec | None:
        await self._enter("embedding_spec")
        return self.spec if self.chunks else None

    async def search(
        self,
        vector: Sequence[float],
        k: int,
        *,
        spec: EmbeddingSpec,
        domain: str | None = None,
        scope: str | None = None,
    ) -> list[ChunkHit]:
        await self._enter("search", k=k, spec=spec, domain=domain, scope=scope)
        if spec != self.spec:
            raise EmbeddingMismatch(f"store holds {self.spec}, query is {spec}")
        scored = [
            ChunkHit(chunk=chunk, similarity=cosine(vector, self.vectors[chunk.id]))
            for chunk in self._matching(domain, scope)
        ]
        scored.sort(key=lambda hit: (-hit.similarity, hit.chunk.id))
        return scored[:k]

    async def lexical_search(
        self, text: str, k: int, *, domain: str | None = None, scope: str | None = None
    ) -> list[ChunkHit]:
        await self._enter("lexical_search", text=text, k=k, domain=domain, scope=scope)
        terms = set(words(text))
        hits = []
        for chunk in self._matching(domain, scope):
            tokens = words(chunk.text)
            shared = sum(1 for token in tokens if token in terms)
            if shared:
                hits.append(ChunkHit(chunk=chunk, lexical=shared / (len(tokens) + 1)))
        hits.sort(key=lambda hit: (-hit.lexical, hit.chunk.id))
        return hits[:k]

    async def said_by(
        self, speaker: str, limit: int, *, scope: str | None = None
    ) -> tuple[list[Chunk], int]:
        await self._enter("said_by", speaker=speaker, limit=limit, scope=scope)
        said = [c for c in self._matching(None, scope) if c.speaker == speaker]
        said.sort(key=lambda chunk: (chunk.timestamp, chunk.id), reverse=True)
        return said[:limit], len(said)

    async def get(self, ids: Sequence[str]) -> list[Chunk]:
        await self._enter("get", ids=list(ids))
        return [self.chunks[i] for i in ids if i in self.chunks]

    async def upsert(
        self,
        chunks: Sequence[Chunk],
        vectors: Sequence[Sequence[float]],
        spec: EmbeddingSpec,
        *,
        pending: bool = False,
    ) -> int:
        await self._enter("upsert", count=len(chunks))
        new = 0
        for chunk, vector in zip(chunks, vectors, strict=True):
            if chunk.id in self.chunks:
                continue
            new += 1
            self.chunks[chunk.id] = chunk
            self.vectors[chunk.id] = list(vector)
            if pending:
                self.pending_ids.add(chunk.id)
        return new

    async def pending(self) -> list[Chunk]:
        return [self.chunks[i] for i in sorted(self.pending_ids)]

    async def mark_done(self, ids: Sequence[str]) -> None:
        self.pending_ids.difference_update(ids)

    async def scopes_holding(self, said: Sequence[tuple[str, datetime, str]]) -> dict[str, int]:
        return scopes_holding_in(self.chunks.values(), said)

    async def read_mark(self, name: str) -> str | None:
        return self.marks.get(name)

    async def write_mark(self, name: str, value: str) -> None:
        await self._enter("write_mark", name=name, value=value)
        self.marks[name] = value

    async def forget_scope(self, scope: str) -> int:
        await self._enter("forget_scope", scope=scope)
        gone = [
            i for i, chunk in self.chunks.items() if in_scope(chunk.scope, forgettable_scope(scope))
        ]
        for chunk_id in gone:
            del self.chunks[chunk_id], self.vectors[chunk_id]
            self.pending_ids.discard(chunk_id)
        return len(gone)

    async def domains(self) -> list[str]:
        return sorted({d for chunk in self.chunks.values() for d in chunk.domains})

    async def counts(self) -> Mapping[str, int]:
        counts = {"chunks": len(self.chunks), "pending": len(self.pending_ids)}
        for chunk in self.chunks.values():
            counts[f"scope:{chunk.scope}"] = counts.get(f"scope:{chunk.scope}", 0) + 1
        return counts

    async def time_span(self) -> tuple[datetime, datetime] | None:
        moments = [chunk.timestamp for chunk in self.chunks.values()]
        return (min(moments), max(moments)) if moments else None

    async def version(self) -> str:
        return "in-memory fake"


class FakeGraphStore(_Faulty):
    def __init__(
        self,
        embedder: FakeEmbedder,
        entities: Sequence[Entity] = (),
        relations: Sequence[Relation] = (),
    ) -> None:
        super().__init__()
        self._embedder = embedder
        self.entities: dict[str, Entity] = {entity.id: entity for entity in entities}
        self.relations: list[Relation] = list(relations)

    def _neighbours(self, entity_id: str, limit: int) -> tuple[Neighbour, ...]:
        found = []
        for relation in sorted(self.relations, key=lambda r: r.id):
            if entity_id not in (relation.source_id, relation.target_id):
                continue
            outgoing = relation.source_id == entity_id
            other = self.entities.get(relation.target_id if outgoing else relation.source_id)
            if other is None:
                continue
            found.append(Neighbour(relation, other.id, other.name, other.type, outgoing))
        return tuple(found[:limit])

    async def search_entities(
        self,
        text: str,
        k: int,
        *,
        vector: Sequence[float] | None = None,
        scope: str | None = None,
        period: Period | None = None,
        neighbour_limit: int = 10,
    ) -> list[EntityHit]:
        await self._enter(
            "search_entities", text=text, k=k, vector=vector, scope=scope, period=period
        )
        terms = set(words(text))
        hits = []
        for entity in self.entities.values():
            if not in_scope(entity.scope, scope):
                continue
            if period is not None and not any(
                period.contains(m.timestamp) for m in entity.mentions
            ):
                continue
            name_words = words(entity.name + " " + entity.description)
            lexical = float(sum(1 for word in name_words if word in terms))
            similarity = (
                cosine(vector, self._embedder.vector(entity.name + " " + entity.description))
                if vector is not None
                else 0.0
            )
            if lexical <= 0 and similarity <= 0.2:
                continue
            hits.append(
                EntityHit(
                    entity=entity,
                    similarity=similarity,
                    lexical=lexical,
                    neighbours=self._neighbours(entity.id, neighbour_limit),
                )
            )
        hits.sort(key=lambda hit: (-(hit.similarity + hit.lexical), hit.entity.id))
        return hits[:k]

    async def get_entities(self, ids: Sequence[str]) -> list[Entity]:
        await self._enter("get_entities", ids=list(ids))
        return [self.entities[i] for i in ids if i in self.entities]

    async def neighbourhood(
        self, ids: Sequence[str], *, limit_per_node: int = 50, scope: str | None = None
    ) -> Subgraph:
        await self._enter("neighbourhood", ids=list(ids), limit_per_node=limit_per_node)
        entities: dict[str, Entity] = {}
        relations: dict[str, Relation] = {}
        for entity_id in ids:
            entity = self.entities.get(entity_id)
            if entity is None:
                continue
            entities[entity_id] = entity
            for neighbour in self._neighbours(entity_id, limit_per_node):
                entities[neighbour.entity_id] = self.entities[neighbour.entity_id]
                relations[neighbour.relation.id] = neighbour.relation
        return Subgraph(entities=entities, relations=tuple(relations.values()))

    async def degree(self, ids: Sequence[str]) -> dict[str, int]:
        return {i: len(self._neighbours(i, 10**9)) for i in ids}

    async def entities_in_chunks(self, chunk_ids: Sequence[str]) -> dict[str, list[str]]:
        await self._enter("entities_in_chunks", chunk_ids=list(chunk_ids))
        wanted = set(chunk_ids)
        found: dict[str, list[str]] = {}
        for entity in sorted(self.entities.values(), key=lambda e: e.id):
            for mention in entity.mentions:
                if mention.chunk_id in wanted and entity.id not in found.get(mention.chunk_id, []):
                    found.setdefault(mention.chunk_id, []).append(entity.id)
        return found

    async def upsert(
        self,
        entities: Sequence[Entity],
        relations: Sequence[Relation],
        *,
        vectors: Mapping[str, Sequence[float]] | None = None,
    ) -> None:
        await self._enter("upsert")
        for entity in entities:
            known = self.entities.get(entity.id)
            # Only ``detach_alias`` records a refusal, and an upsert adds no refused alias back.
            refused = () if known is None else known.refused_aliases
            folds = {name.casefold() for name in refused}
            aliases = (*(() if known is None else known.aliases), *entity.aliases)
            evidence = (*(() if known is None else known.alias_evidence), *entity.alias_evidence)
            spans = {
                (m.chunk_id, m.start, m.end): m
                for m in (*(() if known is None else known.mentions), *entity.mentions)
            }
            self.entities[entity.id] = replace(  # mentions and aliases merge, as in the real store
                entity,
                mentions=tuple(spans.values()),
                aliases=tuple(dict.fromkeys(a for a in aliases if a.casefold() not in folds)),
                alias_evidence=tuple(
                    dict.fromkeys(e for e in evidence if e.alias.casefold() not in folds)
                ),
                refused_aliases=refused,
            )
        known_ids = {relation.id for relation in self.relations}
        self.relations.extend(r for r in relations if r.id not in known_ids)

    async def detach_alias(self, entity_id: str, alias: str) -> bool:
        await self._enter("detach_alias", entity_id=entity_id, alias=alias)
        entity = self.entities.get(entity_id)
        if entity is None:
            return False
        folded = alias.casefold()
        aliases = tuple(a for a in entity.aliases if a.casefold() != folded)
        evidence = tuple(e for e in entity.alias_evidence if e.alias.casefold() != folded)
        if aliases == entity.aliases and evidence == entity.alias_evidence:
            return False
        written = [a for a in entity.aliases if a.casefold() == folded]
        written += [e.alias for e in entity.alias_evidence if e.alias.casefold() == folded]
        refused = entity.refused_aliases
        if folded not in {name.casefold() for name in refused}:
            refused = (*refused, written[0] if written else alias)
        self.entities[entity_id] = replace(
            entity, aliases=aliases, alias_evidence=evidence, refused_aliases=refused
        )
        return True

    async def allow_alias(self, entity_id: str, alias: str) -> bool:
        await self._enter("allow_alias", entity_id=entity_id, alias=alias)
        entity = self.entities.get(entity_id)
        if entity is None:
            return False
        kept = tuple(a for a in entity.refused_aliases if a.casefold() != alias.casefold())
        if kept == entity.refused_aliases:
            return False
        self.entities[entity_id] = replace(entity, refused_aliases=kept)
        return True

    async def forget_scope(self, scope: str) -> int:
        await self._enter("forget_scope", scope=scope)
        gone = {
            i
            for i, entity in self.entities.items()
            if in_scope(entity.scope, forgettable_scope(scope))
        }
        for entity_id in gone:
            del self.entities[entity_id]
        self.relations = [
            r for r in self.relations if r.source_id not in gone and r.target_id not in gone
        ]
        return len(gone)

    async def counts(self) -> Mapping[str, int]:
        counts = {"entities": len(self.entities), "relations": len(self.relations)}
        for entity in self.entities.values():
            counts[f"scope:{entity.scope}"] = counts.get(f"scope:{entity.scope}", 0) + 1
        return counts

    async def most_salient(self, limit: int, *, scope: str | None = None) -> list[Entity]:
        visible = [e for e in self.entities.values() if in_scope(e.scope, scope or None)]
        visible.sort(key=lambda entity: (-entity.salience, entity.id))
        return visible[:limit]

    async def version(self) -> str:
        return "in-memory fake"


class FakeConceptStore(_Faulty):
    """Records as raw JSON per ``(agent, tenant)``; every write stamps a fresh ``updated_at``."""

    def __init__(self) -> None:
        super().__init__()
        self._records: dict[tuple[str, str | None], dict[str, tuple[str, str]]] = {}
        self._tick = 0
        self.read_names: list[str] = []

    def _stamp(self) -> str:
        self._tick += 1
        moment = datetime(2024, 1, 1, tzinfo=UTC).timestamp() + self._tick
        return datetime.fromtimestamp(moment, UTC).isoformat()

    def put(self, agent: str, record: Mapping[str, object], tenant: str | None = None) -> str:
        """Write one record synchronously (for arranging a test); returns its stamp."""
        stamp = self._stamp()
        body = dict(record)
        body.setdefault("updated_at", stamp)
        self._records.setdefault((agent, tenant), {})[str(record["name"])] = (
            stamp,
            json.dumps(body),
        )
        return stamp

    def put_raw(self, agent: str, name: str, raw: str, tenant: str | None = None) -> None:
        self._records.setdefault((agent, tenant), {})[name] = (self._stamp(), raw)

    async def agents(self, within: str = "") -> list[str]:
        await self._enter("agents", within=within)
        prefix = within.strip("/")
        return sorted(
            {
                agent
                for agent, _ in self._records
                if not prefix or agent == prefix or agent.startswith(prefix + "/")
            }
        )

    async def names(self, agent: str, tenant: str | None = None) -> list[str]:
        await self._enter("names", agent=agent, tenant=tenant)
        return list(self._records.get((agent, tenant), {}))

    async def updated_at(
        self, agent: str, names: Sequence[str], tenant: str | None = None
    ) -> dict[str, str]:
        await self._enter("updated_at", agent=agent, names=list(names), tenant=tenant)
        bucket = self._records.get((agent, tenant), {})
        return {name: bucket[name][0] for name in names if name in bucket}

    async def read(
        self, agent: str, names: Sequence[str], tenant: str | None = None
    ) -> dict[str, str]:
        await self._enter("read", agent=agent, names=list(names), tenant=tenant)
        self.read_names.extend(names)
        bucket = self._records.get((agent, tenant), {})
        return {name: bucket[name][1] for name in names if name in bucket}

    async def upsert(
        self, agent: str, records: Sequence[Mapping[str, object]], tenant: str | None = None
    ) -> int:
        await self._enter("upsert", agent=agent, count=len(records))
        for record in records:
            self.put(agent, record, tenant)
        return len(records)

    async def forget_scope(self, scope: str) -> int:
        await self._enter("forget_scope", scope=scope)
        gone = [key for key in self._records if in_scope(key[0], forgettable_scope(scope))]
        return sum(len(self._records.pop(key)) for key in gone)


class FakeAssociations:
    """An association source over a fixed subgraph, counting calls; ``fail`` makes it raise."""

    def __init__(self, subgraph: Subgraph) -> None:
        self.subgraph = subgraph
        self.calls = 0
        self.fail: BaseException | None = None

    async def neighbours(
        self, ids: Sequence[str], *, limit_per_node: int, scope: str | None = None
    ) -> Subgraph:
        self.calls += 1
        if self.fail is not None:
            raise self.fail
        wanted = set(ids)
        relations = tuple(
            r for r in self.subgraph.relations if r.source_id in wanted or r.target_id in wanted
        )
        ends = {r.source_id for r in relations} | {r.target_id for r in relations} | wanted
        entities = {i: e for i, e in self.subgraph.entities.items() if i in ends}
        return Subgraph(entities=entities, relations=relations)


T0 = datetime(2024, 3, 1, 12, 0, tzinfo=UTC)


def sample_memory(
    embedder: FakeEmbedder | None = None,
) -> tuple[FakeEmbedder, FakeChunkStore, FakeGraphStore, FakeConceptStore]:
    """A tiny memory: chunks about a trip and a garden, a graph linking the people and places."""
    from explorer.core.models import MemoryLayer, Mention

    embedder = embedder or FakeEmbedder()
    chunk_rows = [
        ("c1", "Ana booked a trip to Lisbon in May", ("travel",)),
        ("c2", "Ana's sister Marta lives in Lisbon near the river", ("family",)),
        ("c3", "The tomatoes in the garden need water every morning", ("garden",)),
        ("c4", "Marta recommended a restaurant in Lisbon called Taberna", ("travel",)),
        ("c5", "Ana prefers window seats on long flights", ("travel",)),
    ]
    chunks = [
        Chunk(
            id=cid,
            text=text,
            conversation_id="conv-1",
            position=index,
            speaker="user",
            timestamp=T0.replace(day=index + 1),
            domains=domains,
            scope="acme/ana",
        )
        for index, (cid, text, domains) in enumerate(chunk_rows)
    ]

    def mention(chunk_id: str, day: int) -> Mention:
        return Mention(chunk_id=chunk_id, start=0, end=3, timestamp=T0.replace(day=day))

    entities = [
        Entity(
            "ana",
            "Ana",
            "person",
            "the user",
            salience=0.9,
            confidence=0.95,
            scope="acme/ana",
            layer=MemoryLayer.PROFILE,
            mentions=(mention("c1", 1), mention("c2", 2), mention("c5", 5)),
        ),
        Entity(
            "lisbon",
            "Lisbon",
            "place",
            "capital of Portugal",
            salience=0.7,
            scope="acme/ana",
            mentions=(mention("c1", 1), mention("c2", 2)),
        ),
        Entity(
            "marta",
            "Marta",
            "person",
            "Ana's sister",
            salience=0.6,
            scope="acme/ana",
            mentions=(mention("c2", 2), mention("c4", 4)),
        ),
        Entity(
            "taberna",
            "Taberna",
            "place",
            "a restaurant",
            salience=0.3,
            scope="acme/ana",
            mentions=(mention("c4", 4),),
        ),
        Entity(
            "tomato",
            "Tomato",
            "plant",
            "grows in the garden",
            salience=0.2,
            scope="acme/ana",
            mentions=(mention("c3", 3),),
        ),
        Entity(
            "portugal",
            "Portugal",
            "place",
            "a country",
            salience=0.5,
            scope="acme",
            mentions=(mention("c1", 1),),
        ),
    ]
    relations = [
        Relation("r1", "ana", "lisbon", "TRAVELS_TO", "Ana travels to Lisbon"),
        Relation("r2", "marta", "lisbon", "LIVES_IN", "Marta lives in Lisbon"),
        Relation("r3", "ana", "marta", "SISTER_OF", "Ana is Marta's sister", confidence=0.9),
        Relation("r4", "marta", "taberna", "RECOMMENDS", "Marta recommends Taberna"),
        Relation("r5", "lisbon", "portugal", "CAPITAL_OF", "Lisbon is the capital of Portugal"),
    ]
    chunk_store = FakeChunkStore(embedder, chunks)
    graph = FakeGraphStore(embedder, entities, relations)
    concepts = FakeConceptStore()
    concepts.put(
        "acme/ana",
        {
            "name": "Lisbon trip",
            "description": "travel plans for May",
            "body": "flights and a restaurant",
            "confidence": 0.8,
            "id": "concept-trip",
        },
        tenant="acme",
    )
    concepts.put(
        "acme/ana",
        {
            "name": "Garden",
            "description": "tomatoes and herbs",
            "body": "water every morning",
            "id": "concept-garden",
        },
        tenant="acme",
    )
    return embedder, chunk_store, graph, concepts


def make_candidate(
    id: str,
    *,
    kind: str = "chunk",
    layer: str | None = None,
    source: str | None = None,
    scope: str = "acme/ana",
    similarity: float | None = 0.5,
    lexical: float | None = 0.0,
    salience: float | None = None,
    confidence: float | None = None,
    timestamp: datetime | None = None,
) -> Candidate:
    """A candidate with sensible defaults per kind, for tests that build them by hand."""
    from explorer.core.candidates import Candidate, CandidateKind, Source
    from explorer.core.models import MemoryLayer

    kinds = {
        "chunk": (MemoryLayer.EPISODIC, Source.VECTOR),
        "entity": (MemoryLayer.SEMANTIC, Source.GRAPH),
        "concept": (MemoryLayer.CONCEPT, Source.LEXICAL),
    }
    default_layer, default_source = kinds[kind]
    entity_like = kind != "chunk"
    return Candidate(
        id=id,
        kind=CandidateKind(kind),
        label=f"label of {id}",
        layer=MemoryLayer(layer) if layer else default_layer,
        source=Source(source) if source else default_source,
        scope=scope,
        similarity=similarity,
        lexical=lexical,
        salience=salience if salience is not None or not entity_like else 0.5,
        confidence=confidence if confidence is not None or not entity_like else 1.0,
        timestamp=timestamp,
    )
