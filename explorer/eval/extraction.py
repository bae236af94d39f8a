"""Extraction quality against a hand-annotated gold file: typed entities, relations, aliases.

The gold file is JSONL in the ``jsonl`` import format (``conversation_id``, ``speaker``, ``text``,
``timestamp``, optionally ``scope``) plus, per message, ``entities`` (``{"name", "type",
"aliases"}``, the canonical name and a type from the Gemini extractor's ``ENTITY_TYPES``) and
``relations`` (``{"source", "type", "target"}`` between canonical names, the type from
``RELATION_TYPES``). Its messages are extracted the way an import of that file into an empty
memory would: chunked, one extraction per conversation, near-duplicate names merged by the
embedder's vectors, all conversations combined and short names folded into full names. Then, per
conversation and overall (summed over conversations): typed entity precision, recall and F1 (an
extracted entity matches a gold one of the same type when any of its names, folded for case and
accents, is the gold name or an alias; one to one), relation precision, recall and F1 over (source,
type, target) after mapping extracted entities to gold ones, and alias recall (the share of gold
name–alias pairs that one extracted entity holds). Imports the standard library, the core and the
ingest modules; the stores are not needed.
"""

from __future__ import annotations

import asyncio
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from explorer.core.errors import InvalidArgument
from explorer.core.models import RELATION_TYPES, WEAK_RELATIONS, Chunk, Entity
from explorer.core.ports import Embedder
from explorer.core.text import fold
from explorer.eval import write_report
from explorer.ingest.aliases import merge_keys, merge_near_duplicates
from explorer.ingest.chunking import chunk_turns
from explorer.ingest.evidence import combine
from explorer.ingest.extractor import Extraction, Extractor, OfflineExtractor, speaker_type
from explorer.ingest.gemini_extractor import ENTITY_TYPES
from explorer.ingest.ids import entity_id
from explorer.ingest.importers import Turn, read_turns
from explorer.ingest.importers.base import (
    BadValue,
    ImportLimits,
    check_name,
    check_scope,
    join_scope,
)
from explorer.ingest.importers.reading import is_blank, iter_json_lines
from explorer.ingest.short_names import merge_short_names
from explorer.ingest.unfounded import drop_unfounded

#: Relations that read the same both ways round, compared as unordered pairs.
SYMMETRIC = frozenset({"WORKS_WITH", "MARRIED_TO", "PARTNER_OF", "FAMILY_OF", "FRIEND_OF", "KNOWS"})
#: Not scored as entities: topics have no agreed boundary, dates are resolved values, and an
#: assistant speaker is the memory's owner rather than something it knows about.
UNSCORED_TYPES = frozenset({"topic", "date", "agent"})
#: The offline extractor spells one type the American way.
TYPE_SPELLINGS = {"organization": "organisation"}
EMBED_BATCH = 512


@dataclass
class GoldEntity:
    name: str
    type: str
    aliases: set[str] = field(default_factory=set)

    def names(self) -> set[str]:
        return {fold(self.name)} | {fold(alias) for alias in self.aliases}


@dataclass
class GoldConversation:
    scope: str
    conversation_id: str
    messages: int = 0
    entities: dict[str, GoldEntity] = field(default_factory=dict)  # folded name → entity
    relations: set[tuple[str, str, str]] = field(default_factory=set)  # folded names


@dataclass
class Gold:
    """A gold file read and checked: its turns and, per conversation, what it states."""

    turns: list[Turn]
    conversations: dict[tuple[str, str], GoldConversation]

    def scope_entities(self, scope: str) -> dict[str, GoldEntity]:
        """Every gold entity of a scope, aliases gathered over all its conversations."""
        merged: dict[str, GoldEntity] = {}
        for conversation in self.conversations.values():
            if conversation.scope != scope:
                continue
            for key, entity in conversation.entities.items():
                known = merged.setdefault(key, GoldEntity(entity.name, entity.type))
                known.aliases |= entity.aliases
        return merged


# -- reading the gold file -------------------------------------------------------------------


def _text(value: object, what: str) -> str:
    if not isinstance(value, str) or not value.strip():
        raise BadValue(f"{what} must be a non-empty string")
    return value.strip()


def _list(value: object, what: str) -> list[Mapping[str, object]]:
    if value is None:
        return []
    if not isinstance(value, list) or not all(isinstance(item, Mapping) for item in value):
        raise BadValue(f"{what} must be a list of objects")
    return list(value)


def _entities(value: object) -> list[GoldEntity]:
    found: list[GoldEntity] = []
    for item in _list(value, "entities"):
        name = _text(item.get("name"), "an entity's name")
        kind = item.get("type")
        if kind not in ENTITY_TYPES:
            raise BadValue(
                f"entity {name!r} has type {kind!r}; use one of {', '.join(ENTITY_TYPES)}"
            )
        aliases = item.get("aliases") or []
        if not isinstance(aliases, list):
            raise BadValue(f"the aliases of {name!r} must be a list of strings")
        entity = GoldEntity(name, str(kind))
        entity.aliases = {_text(alias, f"an alias of {name!r}") for alias in aliases}
        found.append(entity)
    return found


def _relations(value: object) -> list[tuple[str, str, str]]:
    found: list[tuple[str, str, str]] = []
    for item in _list(value, "relations"):
        source = _text(item.get("source"), "a relation's source")
        target = _text(item.get("target"), "a relation's target")
        kind = item.get("type")
        if kind not in RELATION_TYPES:
            raise BadValue(
                f"relation {source!r} → {target!r} has type {kind!r}; "
                f"use one of {', '.join(RELATION_TYPES)}"
            )
        found.append((source, str(kind), target))
    return found


def read_gold(path: Path | str) -> Gold:
    """The gold file checked line by line; a bad line raises ``InvalidArgument`` naming it."""
    path = Path(path)
    # The message fields are checked by the importer itself, so the gold reads as an import.
    imported = read_turns(path, "jsonl", skip_bad=True)
    if imported.bad_count:
        more = imported.bad_count - 1
        tail = f" (and {more} more bad line{'s' if more != 1 else ''})" if more else ""
        raise InvalidArgument(f"{imported.bad[0].describe(path)}{tail}")
    if not imported.turns:
        raise InvalidArgument(f"{path}: no messages in this gold file")
    turns = imported.turns
    conversations: dict[tuple[str, str], GoldConversation] = {}
    types: dict[tuple[str, str], tuple[str, int]] = {}  # (scope, folded name) → (type, line)
    pending: list[tuple[int, str, tuple[str, str, str]]] = []
    for number, value, problem in iter_json_lines(path, ImportLimits()):
        if problem is not None or is_blank(value) or not isinstance(value, Mapping):
            continue  # read_turns has already refused anything of that kind
        try:
            own = value.get("scope")
            scope = join_scope(None, None if own is None else check_scope(own))
            key = (scope, check_name(value.get("conversation_id"), "conversation_id"))
            conversation = conversations.setdefault(key, GoldConversation(*key))
            conversation.messages += 1
            for entity in _entities(value.get("entities")):
                folded = fold(entity.name)
                earlier = types.setdefault((scope, folded), (entity.type, number))
                if earlier[0] != entity.type:
                    raise BadValue(
                        f"{entity.name!r} is typed {entity.type} here but {earlier[0]} "
                        f"on line {earlier[1]}"
                    )
                known = conversation.entities.setdefault(
                    folded, GoldEntity(entity.name, entity.type)
                )
                known.aliases |= entity.aliases
            for relation in _relations(value.get("relations")):
                pending.append((number, scope, relation))
                conversation.relations.add(_triple(relation))
        except BadValue as error:
            raise InvalidArgument(f"{path}: line {number}: {error}") from None
    for number, scope, (source, _kind, target) in pending:
        for end in (source, target):
            if (scope, fold(end)) not in types:
                raise InvalidArgument(
                    f"{path}: line {number}: relation end {end!r} is not the name of a gold "
                    "entity of its scope"
                )
    return Gold(turns, conversations)


def _triple(relation: tuple[str, str, str]) -> tuple[str, str, str]:
    source, kind, target = fold(relation[0]), relation[1], fold(relation[2])
    if kind in SYMMETRIC and target < source:
        source, target = target, source
    return source, kind, target


# -- extracting as an import does ------------------------------------------------------------


async def extract_as_imported(
    turns: Sequence[Turn], embedder: Embedder, extractor: Extractor | None = None
) -> tuple[list[Chunk], Extraction]:
    """The chunks and the merged extraction an import of these turns into an empty memory makes.

    The same steps as the ingest pipeline, without the stores: near-duplicates merged per
    conversation, speakers protected, then the write's short names folded into full names and
    its unfounded names left out.
    """
    extractor = extractor or OfflineExtractor()
    chunks: list[Chunk] = []
    hashes: set[str] = set()
    for chunk in chunk_turns(turns):
        if chunk.content_hash not in hashes:  # the pipeline skips a repeated chunk too
            hashes.add(chunk.content_hash)
            chunks.append(chunk)
    groups: dict[tuple[str, str], list[Chunk]] = {}
    for chunk in chunks:
        groups.setdefault((chunk.scope, chunk.conversation_id), []).append(chunk)
    extractions = [await extractor.extract(group) for group in groups.values()]
    spoken = {entity_id(c.scope, speaker_type(c.speaker), c.speaker) for c in chunks}
    keys = sorted({key for extraction in extractions for key in merge_keys(extraction)})
    vectors: dict[str, list[float]] = {}
    for start in range(0, len(keys), EMBED_BATCH):
        batch = keys[start : start + EMBED_BATCH]
        vectors.update(zip(batch, await embedder.embed(batch), strict=True))
    merged = [merge_near_duplicates(e, vectors, protected=spoken) for e in extractions]
    return chunks, drop_unfounded(merge_short_names(combine(merged), protected=spoken), keep=spoken)


# -- scoring ---------------------------------------------------------------------------------


def prf(matched: int, extracted: int, gold: int) -> dict[str, float]:
    """Precision, recall and F1; finding nothing where nothing was to be found scores 1."""
    precision = matched / extracted if extracted else (1.0 if gold == 0 else 0.0)
    recall = matched / gold if gold else (1.0 if extracted == 0 else 0.0)
    total = precision + recall
    f1 = 2 * precision * recall / total if total else 0.0
    return {"precision": round(precision, 6), "recall": round(recall, 6), "f1": round(f1, 6)}


def _names(entity: Entity) -> set[str]:
    return {fold(entity.name)} | {fold(alias) for alias in entity.aliases}


def _type(entity: Entity) -> str:
    return TYPE_SPELLINGS.get(entity.type, entity.type)


def _max_matching(edges: Mapping[int, Sequence[str]]) -> int:
    """The size of a largest one-to-one matching of extracted entities to gold ones."""
    owner: dict[str, int] = {}

    def place(left: int, seen: set[str]) -> bool:
        for right in edges[left]:
            if right in seen:
                continue
            seen.add(right)
            if right not in owner or place(owner[right], seen):
                owner[right] = left
                return True
        return False

    return sum(place(left, set()) for left in edges)


def _gold_of(entity: Entity, gold: Mapping[str, GoldEntity]) -> str | None:
    """The gold entity (folded canonical name) an extracted one stands for, if any."""
    own = fold(entity.name)
    if own in gold:
        return own
    names = _names(entity)
    hits = sorted(key for key, candidate in gold.items() if names & candidate.names())
    return hits[0] if hits else None


@dataclass
class _Tally:
    entities: list[int] = field(default_factory=lambda: [0, 0, 0])  # matched, extracted, gold
    relations: list[int] = field(default_factory=lambda: [0, 0, 0])
    aliases: list[int] = field(default_factory=lambda: [0, 0])  # linked, gold pairs

    def add(self, other: _Tally) -> None:
        for mine, theirs in ((self.entities, other.entities), (self.relations, other.relations)):
            for index in range(3):
                mine[index] += theirs[index]

    def report(self, alias_recall: float) -> dict[str, Any]:
        return {
            "entities": prf(*self.entities),
            "relations": prf(*self.relations),
            "alias_recall": round(alias_recall, 6),
            "counts": {
                "entities": dict(zip(("matched", "extracted", "gold"), self.entities, strict=True)),
                "relations": dict(
                    zip(("matched", "extracted", "gold"), self.relations, strict=True)
                ),
                "alias_pairs": dict(zip(("linked", "gold"), self.aliases, strict=True)),
            },
        }


def _alias_pairs(entities: Iterable[GoldEntity]) -> set[tuple[str, str]]:
    return {
        (fold(entity.name), fold(alias))
        for entity in entities
        for alias in entity.aliases
        if fold(alias) != fold(entity.name)
    }


def _linked(pairs: set[tuple[str, str]], extracted: Sequence[Entity]) -> int:
    held = [_names(entity) for entity in extracted]
    return sum(any(a in names and b in names for names in held) for a, b in pairs)


def score_extraction(gold: Gold, chunks: Sequence[Chunk], extraction: Extraction) -> dict[str, Any]:
    """The scores (see the module docstring): overall, then ``per_conversation``."""
    conversation_of = {chunk.id: (chunk.scope, chunk.conversation_id) for chunk in chunks}
    speakers: dict[str, set[tuple[str, str]]] = defaultdict(set)
    for chunk in chunks:
        speaker = entity_id(chunk.scope, speaker_type(chunk.speaker), chunk.speaker)
        speakers[speaker].add((chunk.scope, chunk.conversation_id))
    in_conversation: dict[tuple[str, str], list[Entity]] = defaultdict(list)
    by_scope: dict[str, list[Entity]] = defaultdict(list)
    for entity in extraction.entities:
        by_scope[entity.scope].append(entity)
        where = {conversation_of.get(m.chunk_id) for m in entity.mentions} | speakers[entity.id]
        for key in where:
            if key is not None:
                in_conversation[key].append(entity)
    by_id = {entity.id: entity for entity in extraction.entities}
    facts: dict[tuple[str, str], list[tuple[Entity, str, Entity]]] = defaultdict(list)
    for relation in extraction.relations:
        source, target = by_id.get(relation.source_id), by_id.get(relation.target_id)
        if relation.type in WEAK_RELATIONS or source is None or target is None:
            continue
        for key in {conversation_of.get(m.chunk_id) for m in relation.mentions}:
            if key is not None:
                facts[key].append((source, relation.type, target))
    total = _Tally()
    per_conversation: dict[str, Any] = {}
    ids = [key[1] for key in gold.conversations]
    scope_gold = {scope: gold.scope_entities(scope) for scope, _ in gold.conversations}
    for key, conversation in gold.conversations.items():
        tally = _score_one(
            conversation,
            in_conversation[key],
            facts[key],
            scope_gold[conversation.scope],
            by_scope[conversation.scope],
        )
        total.add(tally)
        name = key[1] if ids.count(key[1]) == 1 else f"{key[0]}/{key[1]}"
        linked, pairs = tally.aliases
        per_conversation[name] = {
            **tally.report(linked / pairs if pairs else 1.0),
            "messages": conversation.messages,
        }
    for scope, entities in scope_gold.items():
        gold_pairs = _alias_pairs(entities.values())
        total.aliases[0] += _linked(gold_pairs, by_scope[scope])
        total.aliases[1] += len(gold_pairs)
    linked, pairs = total.aliases
    return {**total.report(linked / pairs if pairs else 1.0), "per_conversation": per_conversation}


def _score_one(
    conversation: GoldConversation,
    extracted: Sequence[Entity],
    facts: Sequence[tuple[Entity, str, Entity]],
    scope_gold: Mapping[str, GoldEntity],
    scope_extracted: Sequence[Entity],
) -> _Tally:
    tally = _Tally()
    # Aliases gathered over the whole scope: a name used in another conversation still names it.
    wanted = {
        key: scope_gold[key]
        for key, entity in conversation.entities.items()
        if entity.type not in UNSCORED_TYPES
    }
    found = [entity for entity in extracted if _type(entity) not in UNSCORED_TYPES]
    edges = {
        index: sorted(
            key
            for key, candidate in wanted.items()
            if candidate.type == _type(entity) and _names(entity) & candidate.names()
        )
        for index, entity in enumerate(found)
    }
    tally.entities = [_max_matching(edges), len(found), len(wanted)]
    triples: set[tuple[str, str, str]] = set()
    for source, kind, target in facts:
        # An end with no gold counterpart keeps its own name, marked so it can never match.
        ends = [_gold_of(end, scope_gold) or f"\0{fold(end.name)}" for end in (source, target)]
        triples.add(_triple((ends[0], kind, ends[1])))
    tally.relations = [
        len(triples & conversation.relations),
        len(triples),
        len(conversation.relations),
    ]
    pairs = _alias_pairs(conversation.entities.values())
    tally.aliases = [_linked(pairs, scope_extracted), len(pairs)]
    return tally


# -- the command -----------------------------------------------------------------------------


def format_table(results: Mapping[str, Any]) -> str:
    """A markdown table: one row per conversation, then the overall figures."""
    headers = [
        "conversation",
        "messages",
        "entity P",
        "R",
        "F1",
        "relation P",
        "R",
        "F1",
        "alias R",
    ]
    lines = ["| " + " | ".join(headers) + " |", "|---|" + "---:|" * (len(headers) - 1)]

    def row(name: str, body: Mapping[str, Any], messages: str) -> str:
        cells = [name, messages]
        for part in ("entities", "relations"):
            cells += [f"{body[part][k]:.2f}" for k in ("precision", "recall", "f1")]
        cells.append(f"{body['alias_recall']:.2f}")
        return "| " + " | ".join(cells) + " |"

    per = results.get("per_conversation", {})
    for name, body in per.items():
        lines.append(row(name, body, str(body.get("messages", ""))))
    total = sum(int(body.get("messages", 0)) for body in per.values())
    lines.append(row("**overall**", results, str(total)))
    return "\n".join(lines)


async def evaluate_extraction(
    path: Path | str, embedder: Embedder, extractor: Extractor | None = None
) -> dict[str, Any]:
    """Read the gold file, extract its conversations as an import would, and score them."""
    gold = await asyncio.to_thread(read_gold, path)
    chunks, extraction = await extract_as_imported(gold.turns, embedder, extractor)
    return score_extraction(gold, chunks, extraction)


async def run_eval_command(path: Path | str, embedder: Embedder, json_out: Path | None) -> int:
    """``eval extraction GOLD``: print the table, write the JSON when asked; the exit status."""
    results = await evaluate_extraction(path, embedder)
    print(format_table(results))
    if json_out is not None:
        await write_report(json_out, results)
    return 0
