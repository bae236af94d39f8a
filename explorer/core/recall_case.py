"""Recall cases: a query, the policy and what it recalled, in one JSON file, and result diffs.

A case holds the scour request, the policy (``policy_to_dict``), the result in scour's JSON shape
and, when there is one, everything the coordinator decided from (the gathered candidates, the
subgraph activation spread over, the refused routes and the route tally) and the full records
read for the answer's entities (a candidate may carry a lean one). With the gathered part
a case opened later can be decided again under another policy without any store, and "why not
X?" works on it; without it the case still opens exactly as it was, read-only. The file is
canonical JSON (sorted keys, floats in Python's shortest round-trip form), so saving, opening and
saving again gives the same bytes; chunks, entities and relations are written by ``core.codec``.
``diff_results`` compares two results in scour's JSON shape: what entered, what left and what
moved. Imports only the standard library and core.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any, NamedTuple

from explorer.core.asked import GraphAnswer
from explorer.core.candidates import (
    Associations,
    Candidate,
    CandidateKind,
    Dropped,
    MemoryQuery,
    Source,
)
from explorer.core.codec import (
    JsonDict,
    chunk_from_json,
    chunk_to_json,
    entity_from_json,
    entity_to_json,
    iso,
    moment_from_json,
    relation_from_json,
    relation_to_json,
)
from explorer.core.coordinator import CoordinatedRetrieval, Gathered, decide_gathered
from explorer.core.errors import InvalidArgument
from explorer.core.layers import layer_names, parse_layers
from explorer.core.models import (
    Chunk,
    Entity,
    MemoryLayer,
    Neighbour,
    Period,
    Subgraph,
)
from explorer.core.policy import RetrievalPolicy, policy_from_dict, policy_to_dict
from explorer.core.scour import ScourRequest, ScourResult

CASE_FORMAT = "scour-recall-case"
CASE_VERSION = 1


# ---------------------------------------------------------------------- what a case holds


def _candidate_json(candidate: Candidate) -> JsonDict:
    record = candidate.record
    return {
        "id": candidate.id,
        "kind": candidate.kind.value,
        "label": candidate.label,
        "layer": candidate.layer.value,
        "source": candidate.source.value,
        "scope": candidate.scope,
        "similarity": candidate.similarity,
        "lexical": candidate.lexical,
        "salience": candidate.salience,
        "confidence": candidate.confidence,
        "timestamp": iso(candidate.timestamp),
        "record": (
            chunk_to_json(record)
            if isinstance(record, Chunk)
            else entity_to_json(record)
            if isinstance(record, Entity)
            else None
        ),
        "neighbours": [
            {
                "relation": relation_to_json(n.relation),
                "entity_id": n.entity_id,
                "name": n.name,
                "type": n.type,
                "outgoing": n.outgoing,
            }
            for n in candidate.neighbours
        ],
        "routes": list(candidate.routes),
        "alias_text": candidate.alias_text,
    }


def _candidate(data: Mapping[str, Any]) -> Candidate:
    raw = data["record"]
    record: Chunk | Entity | None = None
    if raw is not None:
        record = chunk_from_json(raw) if raw["type"] == "chunk" else entity_from_json(raw)
    return Candidate(
        id=str(data["id"]),
        kind=CandidateKind(data["kind"]),
        label=str(data["label"]),
        layer=MemoryLayer(data["layer"]),
        source=Source(data["source"]),
        scope=str(data["scope"]),
        similarity=data["similarity"],
        lexical=data["lexical"],
        salience=data["salience"],
        confidence=data["confidence"],
        timestamp=moment_from_json(data["timestamp"]),
        record=record,
        neighbours=tuple(
            Neighbour(
                relation=relation_from_json(n["relation"]),
                entity_id=str(n["entity_id"]),
                name=str(n["name"]),
                type=str(n["type"]),
                outgoing=bool(n["outgoing"]),
            )
            for n in data["neighbours"]
        ),
        routes=tuple(data["routes"]),
        # Cases saved before aliases named entities hold none: they replay as they were made.
        alias_text=str(data.get("alias_text", "")),
    )


def _dropped(data: Mapping[str, Any]) -> Dropped:
    layer = data.get("layer")
    return Dropped(
        id=str(data["id"]),
        kind=str(data["kind"]),
        label=str(data["label"]),
        gate=str(data["gate"]),
        value=data.get("value"),
        threshold=data.get("threshold"),
        layer=MemoryLayer(layer) if layer is not None else None,
        scope=str(data.get("scope", "")),
        source=str(data.get("source", "")),
        reason=str(data.get("reason", "")),
    )


def dropped_from_json(entries: Sequence[Mapping[str, Any]]) -> list[Dropped]:
    """Ledger entries from scour's ``dropped`` JSON, as the core's ``Dropped`` values."""
    return [_dropped(entry) for entry in entries]


def _query_json(query: MemoryQuery) -> JsonDict:
    period = query.period
    return {
        "text": query.text,
        "scope": query.scope,
        "layers": layer_names(query.layers),
        "k": {layer.value: count for layer, count in query.k.items()},
        "max_entities": query.max_entities,
        "domain": query.domain,
        "period": None
        if period is None
        else {"start": iso(period.start), "end": iso(period.end), "text": period.text},
        "now": iso(query.now),
        "agent": query.agent,
    }


def _query(data: Mapping[str, Any]) -> MemoryQuery:
    period = data["period"]
    return MemoryQuery(
        text=str(data["text"]),
        scope=str(data["scope"]),
        layers=parse_layers([str(name) for name in data["layers"]]),
        k={MemoryLayer(name): int(count) for name, count in data["k"].items()},
        max_entities=data["max_entities"],
        domain=data["domain"],
        period=None
        if period is None
        else Period(
            moment_from_json(period["start"]), moment_from_json(period["end"]), str(period["text"])
        ),
        now=moment_from_json(data["now"]),
        agent=data["agent"],
    )


def gathered_to_json(gathered: Gathered) -> JsonDict:
    """Everything a retrieval was decided from, as JSON-ready data (see ``gathered_from_json``)."""
    associations = gathered.associations
    return {
        "query": _query_json(gathered.query),
        "candidates": [_candidate_json(c) for c in gathered.candidates],
        "associations": None
        if associations is None
        else {
            "entities": [
                entity_to_json(associations.subgraph.entities[key])
                for key in sorted(associations.subgraph.entities)
            ],
            "relations": [relation_to_json(r) for r in associations.subgraph.relations],
            "chunk_entities": {
                key: list(value) for key, value in associations.chunk_entities.items()
            },
            "expanded": sorted(associations.expanded),
            "hops": associations.hops,
            "limit_per_node": associations.limit_per_node,
        },
        "refused": [entry.to_json_dict() for entry in gathered.refused],
        "sources": dict(gathered.sources),
        "unavailable": list(gathered.unavailable),
        "answers": None
        if gathered.answers is None
        else [list(answer) for answer in gathered.answers],
        "answered": gathered.answered,
    }


def gathered_from_json(data: Mapping[str, Any]) -> Gathered:
    raw = data["associations"]
    associations = None
    if raw is not None:
        entities = [entity_from_json(item) for item in raw["entities"]]
        associations = Associations(
            subgraph=Subgraph(
                entities={entity.id: entity for entity in entities},
                relations=tuple(relation_from_json(item) for item in raw["relations"]),
            ),
            chunk_entities={key: tuple(value) for key, value in raw["chunk_entities"].items()},
            expanded=frozenset(raw["expanded"]),
            hops=int(raw["hops"]),
            limit_per_node=int(raw["limit_per_node"]),
        )
    return Gathered(
        query=_query(data["query"]),
        candidates=tuple(_candidate(item) for item in data["candidates"]),
        associations=associations,
        refused=tuple(_dropped(item) for item in data["refused"]),
        sources={str(key): int(value) for key, value in data["sources"].items()},
        unavailable=tuple(data["unavailable"]),
        # A case saved before the graph's answers were looked for does not say.
        answers=None
        if data.get("answers") is None
        else tuple(GraphAnswer(*map(str, item)) for item in data["answers"]),
        answered=bool(data.get("answered", False)),
    )


def request_to_json(request: ScourRequest) -> JsonDict:
    return {
        "query": request.query,
        "n_chunks": request.n_chunks,
        "kg_top_k": request.kg_top_k,
        "domain": request.domain,
        "temporal": request.temporal,
        "scope": request.scope,
        "agent": request.agent,
        "now": iso(request.now),
    }


def request_from_json(data: Mapping[str, Any]) -> ScourRequest:
    return ScourRequest(
        query=str(data["query"]),
        n_chunks=int(data["n_chunks"]),
        kg_top_k=int(data["kg_top_k"]),
        domain=data.get("domain"),
        temporal=data.get("temporal"),
        scope=str(data.get("scope", "")),
        agent=data.get("agent"),
        now=moment_from_json(data.get("now")),
    )


# ---------------------------------------------------------------------- the case


def canonical_json(data: Any) -> str:
    """The one text form of a case: sorted keys, two-space indent, a final newline."""
    return json.dumps(data, indent=2, sort_keys=True, ensure_ascii=False) + "\n"


@dataclass(frozen=True)
class RecallCase:
    """A saved recall as plain JSON-ready data; ``scour_result`` rebuilds the live answer."""

    request: JsonDict
    policy: JsonDict
    result: JsonDict
    gathered: JsonDict | None = None
    title: str = ""
    saved_at: str | None = None
    extra: JsonDict = field(default_factory=dict)
    # The full records read for the answer's entities (their candidates may carry lean ones),
    # so a reopened case shows every entity as the answer did.
    records: list[JsonDict] = field(default_factory=list)

    @classmethod
    def capture(
        cls,
        answer: ScourResult,
        policy: RetrievalPolicy | None = None,
        *,
        title: str = "",
        saved_at: datetime | None = None,
    ) -> RecallCase:
        """A case from a live answer; ``policy`` defaults to the one it was decided under."""
        decided = policy or answer.retrieval.policy
        if decided is None:
            raise InvalidArgument("the answer carries no policy; pass the one it was made with")
        gathered = answer.retrieval.gathered
        # Through canonical text once, so the case in memory equals the case read back.
        body = json.loads(
            canonical_json(
                {
                    "request": request_to_json(answer.request),
                    "policy": policy_to_dict(decided),
                    "result": answer.to_json_dict(),
                    "gathered": gathered_to_json(gathered) if gathered is not None else None,
                    "records": [
                        entity_to_json(answer.records[key]) for key in sorted(answer.records)
                    ],
                }
            )
        )
        return cls(
            request=body["request"],
            policy=body["policy"],
            result=body["result"],
            gathered=body["gathered"],
            title=title,
            saved_at=iso(saved_at),
            records=body["records"],
        )

    def to_json_dict(self) -> JsonDict:
        return {
            "format": CASE_FORMAT,
            "version": CASE_VERSION,
            "title": self.title,
            "saved_at": self.saved_at,
            "request": self.request,
            "policy": self.policy,
            "result": self.result,
            "gathered": self.gathered,
            **({"records": self.records} if self.records else {}),
            **({"extra": self.extra} if self.extra else {}),
        }

    @classmethod
    def from_json_dict(cls, data: Mapping[str, Any]) -> RecallCase:
        if not isinstance(data, Mapping) or data.get("format") != CASE_FORMAT:
            raise InvalidArgument(f"not a recall case (expected format {CASE_FORMAT!r})")
        if data.get("version") != CASE_VERSION:
            raise InvalidArgument(f"unsupported recall case version {data.get('version')!r}")
        for key in ("request", "policy", "result"):
            if not isinstance(data.get(key), Mapping):
                raise InvalidArgument(f"recall case: {key!r} must be an object")
        gathered = data.get("gathered")
        records = data.get("records") or []
        if not isinstance(records, list) or not all(isinstance(r, Mapping) for r in records):
            raise InvalidArgument("recall case: 'records' must be a list of entity objects")
        return cls(
            request=dict(data["request"]),
            policy=dict(data["policy"]),
            result=dict(data["result"]),
            gathered=dict(gathered) if isinstance(gathered, Mapping) else None,
            title=str(data.get("title", "")),
            saved_at=data.get("saved_at"),
            extra=dict(data.get("extra") or {}),
            records=[dict(record) for record in records],
        )

    @property
    def can_decide(self) -> bool:
        """True when the case carries what the coordinator decided from (what-if works)."""
        return self.gathered is not None

    def scour_request(self) -> ScourRequest:
        return request_from_json(self.request)

    def retrieval_policy(self) -> RetrievalPolicy:
        return policy_from_dict(self.policy)

    def retrieval(self, policy: RetrievalPolicy | None = None) -> CoordinatedRetrieval:
        """The retrieval decided again from the saved candidates (no store is asked)."""
        if self.gathered is None:
            raise InvalidArgument("this case was saved without its candidates; it is read-only")
        return decide_gathered(gathered_from_json(self.gathered), policy or self.retrieval_policy())

    def scour_result(self, policy: RetrievalPolicy | None = None) -> ScourResult:
        """A live answer rebuilt from the case, with the saved errors and timings."""
        result = self.result
        timings = {str(k): float(v) for k, v in (result.get("timings_ms") or {}).items()}
        return ScourResult(
            self.scour_request(),
            self.retrieval(policy),
            kg_error=result.get("kg_error"),
            chunks_error=result.get("chunks_error"),
            timings_ms=timings,
            records={record.id: record for record in map(entity_from_json, self.records)},
            # A saved answer in which every half asked failed stays one when rebuilt.
            failed_halves=frozenset({"graph", "chunks"})
            if result.get("success") is False
            else frozenset(),
        )


def case_text(case: RecallCase) -> str:
    return canonical_json(case.to_json_dict())


def save_case(path: Path, case: RecallCase) -> None:
    """Write the case atomically (a crash never leaves half a file)."""
    temporary = path.with_name(path.name + ".tmp")
    temporary.write_text(case_text(case), encoding="utf-8")
    temporary.replace(path)


def load_case(path: Path) -> RecallCase:
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as error:
        raise InvalidArgument(f"{path}: cannot read the recall case: {error}") from error
    try:
        data = json.loads(text)
    except json.JSONDecodeError as error:
        raise InvalidArgument(f"{path}: not valid JSON: {error}") from error
    try:
        return RecallCase.from_json_dict(data)
    except InvalidArgument as error:
        raise InvalidArgument(f"{path}: {error}") from error


# ---------------------------------------------------------------------- diffs


class Hit(NamedTuple):
    """One recalled memory in a result: its kind, id, label, rank within its kind and score."""

    kind: str
    id: str
    label: str
    rank: int
    score: float


class Moved(NamedTuple):
    kind: str
    id: str
    label: str
    old_rank: int
    new_rank: int
    old_score: float
    new_score: float


@dataclass(frozen=True)
class CaseDiff:
    """What entered, what left and what moved (rank or score) between two results."""

    entered: tuple[Hit, ...] = ()
    left: tuple[Hit, ...] = ()
    moved: tuple[Moved, ...] = ()
    unchanged: int = 0

    @property
    def same(self) -> bool:
        return not (self.entered or self.left or self.moved)

    def summary(self) -> str:
        if self.same:
            return f"no difference ({self.unchanged} memories unchanged)"
        return (
            f"{len(self.entered)} entered, {len(self.left)} left, {len(self.moved)} moved, "
            f"{self.unchanged} unchanged"
        )


def result_hits(result: Mapping[str, Any]) -> dict[tuple[str, str], Hit]:
    """The recalled memories of a scour JSON result, keyed by (kind, id), ranked per kind."""
    hits: dict[tuple[str, str], Hit] = {}
    for kind, key, label_key in (("entity", "kg_entities", "name"), ("chunk", "chunks", "text")):
        for rank, item in enumerate(result.get(key) or [], start=1):
            label = str(item.get(label_key, ""))
            hits[(kind, str(item["id"]))] = Hit(
                kind, str(item["id"]), label[:120], rank, float(item.get("score") or 0.0)
            )
    return hits


def diff_results(old: Mapping[str, Any], new: Mapping[str, Any]) -> CaseDiff:
    """Compare two results in scour's JSON shape (``old`` → ``new``)."""
    before, after = result_hits(old), result_hits(new)
    entered = tuple(hit for key, hit in after.items() if key not in before)
    left = tuple(hit for key, hit in before.items() if key not in after)
    moved: list[Moved] = []
    unchanged = 0
    for key, hit in after.items():
        was = before.get(key)
        if was is None:
            continue
        if was.rank != hit.rank or was.score != hit.score:
            moved.append(
                Moved(hit.kind, hit.id, hit.label, was.rank, hit.rank, was.score, hit.score)
            )
        else:
            unchanged += 1
    return CaseDiff(entered, left, tuple(moved), unchanged)
