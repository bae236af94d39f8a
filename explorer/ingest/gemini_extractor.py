"""``GeminiExtractor``: entities and relations found by a hosted model, with provenance found here.

The model reads a conversation's turns and answers JSON constrained by ``EXTRACTION_SCHEMA``:
entities (name, type, description, aliases) and relations (source, target, type, fact and a
verbatim evidence quote). Nothing it says about positions is trusted: every mention span is found
here by searching the turns for the entity's name and aliases (whole words, ignoring case, the
longest name winning where names overlap), so provenance is exact; an entity found nowhere in the
text (and not a speaker) is dropped as unsupported, and so is a relation whose ends are unknown or
that no turn supports. Ids, first confidences and layers follow the offline extractor, so the two
merge into one graph. The model is anything with ``generate_json`` (``adapters.gemini.
GeminiJsonModel`` in the app, a fake in tests). Imports the standard library, core models and
ingest helpers.
"""

from __future__ import annotations

import logging
import re
from collections import Counter, defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Protocol

from explorer.core.errors import ModelServiceError
from explorer.core.models import Chunk, Entity, MemoryLayer, Mention, Relation
from explorer.ingest.chunking import sentence_spans
from explorer.ingest.extractor import (
    BASE_CONFIDENCE,
    MAX_DOMAINS,
    MAX_FACT_CHARS,
    MAX_TEMPORAL,
    TYPED_RELATION_CONFIDENCE,
    Extraction,
    speaker_type,
)
from explorer.ingest.ids import entity_id, normalise_name, relation_id

log = logging.getLogger(__name__)

ENTITY_TYPES = (
    "person",
    "place",
    "organisation",
    "project",
    "event",
    "product",
    "topic",
    "date",
    "other",
)
MAX_NAME_CHARS = 200
MAX_DESCRIPTION_CHARS = 1_000
MAX_ALIASES = 10
DEFAULT_RELATION_TYPE = "RELATED_TO"
#: Characters of turns sent in one request; a longer conversation is read in windows.
DEFAULT_WINDOW_CHARS = 60_000

EXTRACTION_SCHEMA: dict[str, object] = {
    "type": "object",
    "properties": {
        "entities": {
            "type": "array",
            "items": {
                "type": "object",
                "properties": {
                    "name": {"type": "string"},
                    "type": {"type": "string", "enum": list(ENTITY_TYPES)},
                    "description": {"type": "string"},
                    "aliases": {"type": "array", "items": {"type": "string"}},
                },
                "required": ["name", "type"],
            },
        },
        "relations": {
            "type": "array",
            "items": {
                "type": "object",
                "properties": {
                    "source": {"type": "string"},
                    "target": {"type": "string"},
                    "type": {"type": "string"},
                    "fact": {"type": "string"},
                    "evidence": {"type": "string"},
                },
                "required": ["source", "target", "type"],
            },
        },
    },
    "required": ["entities", "relations"],
}

INSTRUCTIONS = (
    "You build a knowledge graph from a conversation for a long-term memory. List every person, "
    "place, organisation, project, event, product, topic and date the turns mention, including "
    "the speakers. Write each name exactly as it appears in the text, and give other spellings "
    "used in the text as aliases. Describe each entity in one sentence from what the turns say. "
    "List the relations the turns state between those entities: source and target are names "
    "from your entity list, type is UPPER_SNAKE_CASE (WORKS_AT, LIVES_IN, SIBLING_OF...), fact is "
    "one short sentence, and evidence is a verbatim quote from a single turn that states it. "
    "Invent nothing that the turns do not say."
)


class JsonModel(Protocol):
    """A model that answers a prompt with JSON following a JSON schema."""

    async def generate_json(
        self, prompt: str, schema: Mapping[str, object], *, instructions: str | None = None
    ) -> object:
        """The parsed JSON answer; raises ``ModelServiceError`` (or a subclass) on failure."""
        ...


@dataclass(slots=True)
class _Proposed:
    """An entity as the model proposed it, merged across windows by id."""

    id: str
    name: str
    type: str
    description: str
    surfaces: dict[str, None] = field(default_factory=dict)  # name and aliases, in order


@dataclass(frozen=True, slots=True)
class _ProposedRelation:
    source: str
    target: str
    type: str
    fact: str
    evidence: str


def _text(value: object, limit: int) -> str:
    return " ".join(value.split())[:limit] if isinstance(value, str) else ""


def _entity_type(value: object) -> str:
    folded = _text(value, 40).casefold().replace(" ", "_")
    return {"organization": "organisation"}.get(
        folded, folded if folded in ENTITY_TYPES else "other"
    )


def _relation_type(value: object) -> str:
    cleaned = re.sub(r"[^A-Za-z0-9]+", "_", _text(value, 60)).strip("_").upper()
    return cleaned or DEFAULT_RELATION_TYPE


def _prompt(turns: Sequence[Chunk]) -> str:
    lines = [
        f"[{index}] {turn.timestamp:%Y-%m-%d %H:%M} {turn.speaker}: {turn.text}"
        for index, turn in enumerate(turns, 1)
    ]
    return "Conversation turns:\n" + "\n".join(lines)


def _windows(turns: Sequence[Chunk], budget: int) -> list[list[Chunk]]:
    windows: list[list[Chunk]] = [[]]
    used = 0
    for turn in turns:
        size = len(turn.text) + len(turn.speaker) + 24
        if windows[-1] and used + size > budget:
            windows.append([])
            used = 0
        windows[-1].append(turn)
        used += size
    return [window for window in windows if window]


def _top(counter: Counter[str], limit: int) -> tuple[str, ...]:
    ranked = sorted(counter.items(), key=lambda item: (-item[1], item[0]))
    return tuple(key for key, _count in ranked[:limit])


class GeminiExtractor:
    """The ``Extractor`` that asks a hosted model (see the module docstring)."""

    name = "gemini"

    def __init__(self, model: JsonModel, *, window_chars: int = DEFAULT_WINDOW_CHARS) -> None:
        self._model = model
        self._window_chars = window_chars

    async def extract(self, turns: Sequence[Chunk]) -> Extraction:
        by_scope: dict[str, list[Chunk]] = defaultdict(list)
        for turn in turns:
            by_scope[turn.scope].append(turn)
        entities: list[Entity] = []
        relations: list[Relation] = []
        for scope in sorted(by_scope):
            chunks = by_scope[scope]
            proposed: dict[str, _Proposed] = {}
            proposed_relations: list[_ProposedRelation] = []
            for window in _windows(chunks, self._window_chars):
                answer = await self._model.generate_json(
                    _prompt(window), EXTRACTION_SCHEMA, instructions=INSTRUCTIONS
                )
                _read_answer(answer, scope, proposed, proposed_relations)
            found = _Grounding(scope, chunks, list(proposed.values()))
            entities.extend(found.entities())
            relations.extend(found.relations(proposed_relations))
        return Extraction(tuple(entities), tuple(relations))


def _read_answer(
    answer: object,
    scope: str,
    proposed: dict[str, _Proposed],
    relations: list[_ProposedRelation],
) -> None:
    """Fold one model answer into ``proposed``; malformed items are skipped, not fatal."""
    if not isinstance(answer, Mapping):
        raise ModelServiceError("the model's answer is not a JSON object with entities")
    items = answer.get("entities")
    for item in items if isinstance(items, list) else []:
        if not isinstance(item, Mapping):
            continue
        name = _text(item.get("name"), MAX_NAME_CHARS)
        if not normalise_name(name):
            continue
        kind = _entity_type(item.get("type"))
        key = entity_id(scope, kind, name)
        entry = proposed.setdefault(
            key, _Proposed(key, name, kind, _text(item.get("description"), MAX_DESCRIPTION_CHARS))
        )
        entry.surfaces[name] = None
        aliases = item.get("aliases")
        for alias in (aliases if isinstance(aliases, list) else [])[:MAX_ALIASES]:
            cleaned = _text(alias, MAX_NAME_CHARS)
            if normalise_name(cleaned):
                entry.surfaces[cleaned] = None
    items = answer.get("relations")
    for item in items if isinstance(items, list) else []:
        if not isinstance(item, Mapping):
            continue
        source = _text(item.get("source"), MAX_NAME_CHARS)
        target = _text(item.get("target"), MAX_NAME_CHARS)
        if normalise_name(source) and normalise_name(target):
            relations.append(
                _ProposedRelation(
                    source,
                    target,
                    _relation_type(item.get("type")),
                    _text(item.get("fact"), MAX_FACT_CHARS),
                    _text(item.get("evidence"), MAX_FACT_CHARS),
                )
            )


@dataclass(frozen=True, slots=True)
class _Span:
    chunk: int
    start: int
    end: int


class _Grounding:
    """Finds where the proposed entities and relations are stated in one scope's chunks."""

    def __init__(self, scope: str, chunks: Sequence[Chunk], proposed: list[_Proposed]) -> None:
        self.scope = scope
        self.chunks = chunks
        self.proposed = proposed
        self.spans: dict[str, list[_Span]] = {entry.id: [] for entry in proposed}
        self.speakers = {normalise_name(chunk.speaker) for chunk in chunks}
        self.sentences = [sentence_spans(chunk.text) for chunk in chunks]
        self._find_mentions()
        self.kept = {
            entry.id: entry
            for entry in proposed
            if self.spans[entry.id] or normalise_name(entry.name) in self.speakers
        }
        dropped = len(proposed) - len(self.kept)
        if dropped:
            log.debug("dropped %d proposed entities not found in the text", dropped)
        self.by_surface: dict[str, str] = {}
        for entry in sorted(self.kept.values(), key=lambda e: (e.type == "topic", e.id)):
            for surface in entry.surfaces:
                self.by_surface.setdefault(normalise_name(surface), entry.id)

    def _find_mentions(self) -> None:
        surfaces = sorted(
            {(surface, entry.id) for entry in self.proposed for surface in entry.surfaces},
            key=lambda item: (-len(item[0]), item[0], item[1]),
        )
        patterns = [(_whole_words(surface), key) for surface, key in surfaces]
        for index, chunk in enumerate(self.chunks):
            taken: list[tuple[int, int]] = []
            for pattern, key in patterns:
                for match in pattern.finditer(chunk.text):
                    start, end = match.span()
                    if any(
                        start < other_end and other_start < end for other_start, other_end in taken
                    ):
                        continue  # a longer name already covers this text
                    taken.append((start, end))
                    self.spans[key].append(_Span(index, start, end))

    def _spoken_in(self, entry: _Proposed) -> list[int]:
        key = normalise_name(entry.name)
        return [i for i, chunk in enumerate(self.chunks) if normalise_name(chunk.speaker) == key]

    def entities(self) -> list[Entity]:
        dates_in_chunk: dict[int, set[str]] = defaultdict(set)
        for entry in self.kept.values():
            if entry.type == "date":
                for span in self.spans[entry.id]:
                    dates_in_chunk[span.chunk].add(entry.name)
        found: list[Entity] = []
        for entry in self.kept.values():
            spans = self.spans[entry.id]
            speaker = normalise_name(entry.name) in self.speakers
            kind = self._kind(entry)
            seen_in = sorted({span.chunk for span in spans} | set(self._spoken_in(entry)))
            domains: Counter[str] = Counter()
            temporal: Counter[str] = Counter()
            for index in seen_in:
                domains.update(self.chunks[index].domains)
                if kind != "date":
                    temporal.update(dates_in_chunk.get(index, ()))
            moments = [self.chunks[index].timestamp for index in seen_in]
            mentions = sorted(
                {
                    Mention(
                        self.chunks[span.chunk].id,
                        span.start,
                        span.end,
                        self.chunks[span.chunk].timestamp,
                    )
                    for span in spans
                },
                key=lambda m: (m.timestamp, m.chunk_id, m.start),
            )
            found.append(
                Entity(
                    id=entity_id(self.scope, kind, entry.name),
                    name=entry.name,
                    type=kind,
                    description=entry.description,
                    aliases=tuple(
                        s for s in entry.surfaces if s.casefold() != entry.name.casefold()
                    ),
                    confidence=_first_confidence(kind, speaker),
                    first_seen=min(moments, default=None),
                    last_seen=max(moments, default=None),
                    temporal=_top(temporal, MAX_TEMPORAL),
                    domains=_top(domains, MAX_DOMAINS),
                    scope=self.scope,
                    layer=MemoryLayer.PROFILE if kind == "person" else MemoryLayer.SEMANTIC,
                    mentions=tuple(mentions),
                )
            )
        return found

    def relations(self, proposed: Sequence[_ProposedRelation]) -> list[Relation]:
        ids = {
            entry.id: entity_id(self.scope, self._kind(entry), entry.name)
            for entry in self.kept.values()
        }
        merged: dict[str, tuple[_ProposedRelation, str, str, set[tuple[int, int, int]]]] = {}
        for item in proposed:
            source = self.by_surface.get(normalise_name(item.source))
            target = self.by_surface.get(normalise_name(item.target))
            if source is None or target is None or source == target:
                continue
            evidence = self._evidence(item, source, target)
            if not evidence:
                continue
            key = relation_id(self.scope, ids[source], item.type, ids[target])
            if key in merged:
                merged[key][3].update(evidence)
            else:
                merged[key] = (item, ids[source], ids[target], set(evidence))
        relations: list[Relation] = []
        for key, (item, source_id, target_id, stated) in merged.items():
            mentions = sorted(
                {
                    Mention(self.chunks[c].id, start, end, self.chunks[c].timestamp)
                    for c, start, end in stated
                },
                key=lambda m: (m.timestamp, m.chunk_id, m.start),
            )
            first = min(stated, key=lambda e: (self.chunks[e[0]].timestamp, e))
            fact = item.fact or self.chunks[first[0]].text[first[1] : first[2]][:MAX_FACT_CHARS]
            relations.append(
                Relation(
                    id=key,
                    source_id=source_id,
                    target_id=target_id,
                    type=item.type,
                    fact=fact,
                    confidence=TYPED_RELATION_CONFIDENCE,
                    valid_from=mentions[0].timestamp,
                    mentions=tuple(mentions),
                )
            )
        return relations

    def _kind(self, entry: _Proposed) -> str:
        return (
            speaker_type(entry.name) if normalise_name(entry.name) in self.speakers else entry.type
        )

    def _evidence(
        self, item: _ProposedRelation, source: str, target: str
    ) -> list[tuple[int, int, int]]:
        """Spans stating the relation: the quoted evidence where found, else shared sentences."""
        if item.evidence:
            quote = re.compile(
                r"\s+".join(re.escape(word) for word in item.evidence.split()), re.IGNORECASE
            )
            quoted = [
                (index, *match.span())
                for index, chunk in enumerate(self.chunks)
                if (match := quote.search(chunk.text)) is not None
            ]
            if quoted:
                return quoted
        found: list[tuple[int, int, int]] = []
        for index, chunk in enumerate(self.chunks):
            spoken = normalise_name(chunk.speaker)
            ends = []
            for key in (source, target):
                here = [span for span in self.spans[key] if span.chunk == index]
                if here:
                    ends.append(here[0])
                elif normalise_name(self.kept[key].name) != spoken:
                    break
            else:
                if ends:
                    found.append((index, *self._sentence_cover(index, ends)))
        return found

    def _sentence_cover(self, index: int, spans: Sequence[_Span]) -> tuple[int, int]:
        sentences = self.sentences[index]
        start = min(span.start for span in spans)
        end = max(span.end for span in spans)
        first = next((s for s in sentences if s[0] <= start < s[1]), (start, end))
        last = next((s for s in sentences if s[0] < end <= s[1]), (start, end))
        return first[0], max(last[1], end)


def _whole_words(surface: str) -> re.Pattern[str]:
    """``surface`` as whole words, any case, any run of whitespace between its words."""
    body = r"\s+".join(re.escape(word) for word in surface.split())
    return re.compile(rf"(?<!\w){body}(?!\w)", re.IGNORECASE)


def _first_confidence(kind: str, speaker: bool) -> float:
    if speaker:
        return BASE_CONFIDENCE["speaker"]
    if kind == "topic":
        return BASE_CONFIDENCE["topic"]
    if kind == "date":
        return BASE_CONFIDENCE["day"]
    return BASE_CONFIDENCE["name"]
