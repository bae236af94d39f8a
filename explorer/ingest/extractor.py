"""Entity and relation extraction: the ``Extractor`` port and the default offline extractor.

An extractor reads the chunks of one conversation (its context) and returns an ``Extraction``:
entities and relations with provenance (``Mention`` spans into the chunks), stable ids from
``ids`` and a first confidence; the pipeline merges them with what the graph already holds and
computes the final confidence and salience (``evidence``). The offline extractor needs no network
and no model: speakers become people; capitalised names (seen mid-sentence, or recurring and never
written in lower case) become named entities typed by cues and suffixes; recurring noun phrases
become topics; date phrases become temporal entities resolved against the turn's time; relations
come from simple verb patterns ("X works at Y", "my sister Y"), from co-occurrence within a turn
and from a speaker to what they talk about. Every mention's span covers text equal (ignoring case)
to the entity's name or one of its aliases. The word-level reading (tokens, name runs, type votes,
topic words) is ``name_reading``; the word lists are ``lexicon``. Imports the standard library,
core models and text, and ingest helpers.
"""

from __future__ import annotations

import asyncio
import re
from collections import Counter, defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Protocol

from explorer.core.models import Chunk, Entity, MemoryLayer, Mention, Relation
from explorer.core.text import singular
from explorer.ingest.chunking import sentence_spans
from explorer.ingest.ids import entity_id, entity_kind, normalise_name, relation_id
from explorer.ingest.lexicon import (
    COMMON_MODIFIERS,
    COMMON_VERBS,
    KIN_WORDS,
    NAME_STOPWORDS,
    RELATION_PATTERNS,
    TOPIC_STOPWORDS,
    keyword_domains,
)
from explorer.ingest.name_reading import (
    Candidate,
    Occurrence,
    Token,
    continues_name,
    is_acronym,
    is_name_token,
    is_topic_token,
    name_type,
    sentence_of,
    strip_possessive,
    tokenise,
    vote,
)
from explorer.ingest.temporal import find_times


@dataclass(frozen=True, slots=True)
class Extraction:
    """Entities and relations found in one context, each with its mentions."""

    entities: tuple[Entity, ...] = ()
    relations: tuple[Relation, ...] = ()


class Extractor(Protocol):
    """Finds entities and relations in the chunks of one conversation."""

    async def extract(self, turns: Sequence[Chunk]) -> Extraction:
        """Deterministic for the same chunks; CPU-heavy work runs off the event loop."""
        ...


# First confidences, before evidence is counted (see ``evidence`` for the final formula).
BASE_CONFIDENCE = {
    "speaker": 1.0,
    "name": 0.7,  # capitalised in mid-sentence, or an acronym
    "recurring_name": 0.5,  # only ever capitalised at a sentence start, but recurring
    "topic": 0.4,
    "day": 0.8,
    "week": 0.7,
    "month": 0.7,
    "year": 0.7,
}
RELATION_CONFIDENCE = {"MENTIONS": 0.6, "CO_OCCURS": 0.3}
TYPED_RELATION_CONFIDENCE = 0.7

MIN_TOPIC_COUNT = 3
MIN_KEYWORD_TOPIC_COUNT = 2
MIN_PHRASE_COUNT = 2
MAX_TOPIC_WORDS = 3
MAX_CO_OCCURRING = 6  # entities per chunk paired for co-occurrence, in order of appearance
MAX_RELATION_GAP = 80  # characters between a subject and an object for a verb pattern
MAX_FACT_CHARS = 600
AGENT_SPEAKERS = frozenset({"assistant", "ai", "bot", "chatgpt", "gpt", "system", "model"})

_FIRST_PERSON = frozenset({"i", "i'm", "i’m", "i've", "i’ve", "i'd", "i’d", "i'll", "i’ll"})


@dataclass(slots=True)
class _Builder:
    """An accepted entity while its mentions and context are gathered."""

    id: str
    key: str
    name: str
    type: str
    scope: str
    confidence: float
    surfaces: set[str]
    occurrences: list[Occurrence]
    seen: list[datetime] = field(default_factory=list)
    temporal: Counter[str] = field(default_factory=Counter)
    domains: Counter[str] = field(default_factory=Counter)


@dataclass(slots=True)
class _RelationBuilder:
    source: str
    target: str
    type: str
    confidence: float
    evidence: list[tuple[datetime, int, int, int, str]] = field(default_factory=list)


def speaker_type(speaker: str) -> str:
    """ "agent" for an assistant-like speaker name, else "person"."""
    return "agent" if speaker.casefold() in AGENT_SPEAKERS else "person"


def _unique_aliases(name: str, surfaces: set[str]) -> tuple[str, ...]:
    seen = {name.casefold()}
    aliases: list[str] = []
    for surface in sorted(surfaces):
        if surface.casefold() not in seen:
            seen.add(surface.casefold())
            aliases.append(surface)
    return tuple(aliases)


def _top(counter: Counter[str], limit: int) -> tuple[str, ...]:
    ranked = sorted(counter.items(), key=lambda item: (-item[1], item[0]))
    return tuple(key for key, _count in ranked[:limit])


class OfflineExtractor:
    """The default extractor: rules and word lists, no network, deterministic and fast."""

    name = "offline"

    async def extract(self, turns: Sequence[Chunk]) -> Extraction:
        chunks = list(turns)
        return await asyncio.to_thread(extract_offline, chunks)


def extract_offline(chunks: Sequence[Chunk]) -> Extraction:
    """The offline extraction of one context, synchronously (see the module docstring).

    Chunks of several scopes are read as one context per scope: nothing links across scopes.
    """
    by_scope: dict[str, list[Chunk]] = defaultdict(list)
    for chunk in chunks:
        by_scope[chunk.scope].append(chunk)
    entities: list[Entity] = []
    relations: list[Relation] = []
    for scope in sorted(by_scope):
        extraction = _Context(scope, by_scope[scope]).run()
        entities.extend(extraction.entities)
        relations.extend(extraction.relations)
    return Extraction(tuple(entities), tuple(relations))


class _Context:
    """One scope's chunks of one conversation, read together so recurrence can be counted."""

    def __init__(self, scope: str, chunks: Sequence[Chunk]) -> None:
        self.scope = scope
        self.chunks = list(chunks)
        self.sentences: list[list[tuple[int, int]]] = []
        self.tokens: list[list[Token]] = []
        self.names: dict[str, Candidate] = {}
        self.topics: dict[str, Candidate] = {}
        self.times: dict[str, Candidate] = {}
        self.lower_seen: Counter[str] = Counter()
        self.speakers: dict[str, str] = {}  # normalised → as written

    def run(self) -> Extraction:
        for index, chunk in enumerate(self.chunks):
            self.speakers.setdefault(normalise_name(chunk.speaker), chunk.speaker)
            self._read_chunk(index, chunk)
        builders = self._builders()
        entities = {builder.id: self._entity(builder) for builder in builders}
        relations = self._relations(builders)
        return Extraction(tuple(entities.values()), tuple(relations))

    # -- reading ---------------------------------------------------------------------------

    def _read_chunk(self, index: int, chunk: Chunk) -> None:
        text = chunk.text
        sentences = sentence_spans(text)
        self.sentences.append(sentences)
        times = find_times(text, chunk.timestamp)
        for time in times:
            candidate = self.times.setdefault(time.value, Candidate(grain=time.grain))
            candidate.surfaces[text[time.start : time.end]] += 1
            candidate.occurrences.append(
                Occurrence(index, time.start, time.end, sentence_of(sentences, time.start))
            )
        tokens = tokenise(text, sentences, [(time.start, time.end) for time in times])
        self.tokens.append(tokens)
        for token in tokens:
            if not token.clause_start and token.word[0].islower():
                self.lower_seen[strip_possessive(token.folded)] += 1
        self._read_names(index, text, tokens)
        self._read_topics(index, text, tokens)

    def _read_names(self, index: int, text: str, tokens: list[Token]) -> None:
        run: list[Token] = []
        for token in tokens:
            if run and continues_name(run[-1], token, text):
                run.append(token)
                continue
            if run:
                self._add_name_run(index, text, tokens, run)
            run = [token] if is_name_token(token) else []
        if run:
            self._add_name_run(index, text, tokens, run)

    def _add_name_run(self, index: int, text: str, tokens: list[Token], run: list[Token]) -> None:
        # Split at stopwords ("Hey", "I'm", month names) and trim lower-case connectors.
        pieces: list[list[Token]] = [[]]
        for token in run:
            if token.folded in NAME_STOPWORDS or strip_possessive(token.folded) in NAME_STOPWORDS:
                pieces.append([])
            else:
                pieces[-1].append(token)
        for piece in pieces:
            while piece and piece[-1].word[0].islower():
                piece.pop()
            while piece and piece[0].word[0].islower():
                piece.pop(0)
            if piece:
                self._add_name(index, text, tokens, piece)

    def _add_name(self, index: int, text: str, tokens: list[Token], piece: list[Token]) -> None:
        start = piece[0].start
        surface = strip_possessive(text[start : piece[-1].end])
        key = normalise_name(surface)
        if len(key) < 2 or not any(char.isalpha() for char in key):
            return
        candidate = self.names.setdefault(key, Candidate())
        candidate.surfaces[surface] += 1
        first = piece[0]
        candidate.occurrences.append(Occurrence(index, start, start + len(surface), first.sentence))
        if len(piece) == 1 and is_acronym(first.word):
            candidate.acronym = True
        if not first.clause_start:
            candidate.mid_sentence += 1
        previous = tokens[first.index - 1] if first.index > 0 else None
        before = tokens[first.index - 2] if first.index > 1 else None
        after_index = piece[-1].index + 1
        following = tokens[after_index] if after_index < len(tokens) else None
        vote(candidate, key, previous, before, following)

    def _read_topics(self, index: int, text: str, tokens: list[Token]) -> None:
        run: list[Token] = []
        for token in tokens:
            if not is_topic_token(token):
                if run:
                    self._add_topic(index, text, run)
                run = []
                continue
            if run and (
                token.sentence != run[-1].sentence or text[run[-1].end : token.start] != " "
            ):
                self._add_topic(index, text, run)
                run = []
            run.append(token)
        if run:
            self._add_topic(index, text, run)

    def _add_topic(self, index: int, text: str, run: list[Token]) -> None:
        # Noun phrases end in their head noun, so the last few words of a run are kept.
        phrase = run[-MAX_TOPIC_WORDS:]
        start, end = phrase[0].start, phrase[-1].end
        key = singular(" ".join(token.folded for token in phrase))
        candidate = self.topics.setdefault(key, Candidate())
        candidate.surfaces[text[start:end]] += 1
        candidate.occurrences.append(Occurrence(index, start, end, phrase[0].sentence))

    # -- deciding --------------------------------------------------------------------------

    def _name_label(self, key: str, candidate: Candidate) -> str | None:
        """The base-confidence label if ``key`` is a name, else ``None``."""
        if key in self.speakers:
            return "speaker"
        single = " " not in key
        if single and (key in COMMON_VERBS or key in COMMON_MODIFIERS or key.isdigit()):
            return None
        if candidate.acronym:
            return "name"
        lower = self.lower_seen[key] if single else 0
        if candidate.mid_sentence and candidate.mid_sentence >= lower:
            return "name"
        # Only ever seen opening a sentence: a name only if it recurs and does not look like an
        # ordinary word (adverb, participle, contraction) that a sentence happens to start with.
        recurring = len(candidate.occurrences) >= 2
        ordinary = key.endswith(("ly", "ing", "ed")) or "'" in key or "’" in key
        if recurring and lower == 0 and not ordinary and key not in TOPIC_STOPWORDS:
            return "recurring_name"
        return None

    def _topic_accepted(self, key: str, candidate: Candidate) -> bool:
        if key in self.names or key in self.speakers:
            return False
        count = len(candidate.occurrences)
        if " " in key:
            return count >= MIN_PHRASE_COUNT
        if keyword_domains(key):
            return count >= MIN_KEYWORD_TOPIC_COUNT
        # A lone participle is more often a verb ("standing", "booked") than an activity
        # ("camping"); the activities worth keeping are in the domain lexicon.
        return count >= MIN_TOPIC_COUNT and not key.endswith(("ing", "ed"))

    def _first_names(self) -> None:
        """Fold a speaker's first name, used alone, into the speaker ("Maya" → "Maya Okafor")."""
        firsts: dict[str, list[str]] = defaultdict(list)
        for key in self.speakers:
            if " " in key:
                firsts[key.split()[0]].append(key)
        for first, keys in firsts.items():
            if len(keys) != 1 or first in self.speakers or first not in self.names:
                continue
            alone = self.names.pop(first)
            full = self.names.setdefault(keys[0], Candidate())
            full.surfaces.update(alone.surfaces)
            full.occurrences.extend(alone.occurrences)

    def _builders(self) -> list[_Builder]:
        self._first_names()
        builders: list[_Builder] = []
        for key, candidate in self.names.items():
            label = self._name_label(key, candidate)
            if label == "speaker":
                speaker = self.speakers[key]
                kind = speaker_type(speaker)
                builders.append(self._builder(key, candidate, kind, 1.0, name=speaker))
            elif label is not None:
                kind = name_type(candidate)
                builders.append(self._builder(key, candidate, kind, BASE_CONFIDENCE[label]))
        for key, speaker in self.speakers.items():
            if key not in self.names:
                kind = speaker_type(speaker)
                builders.append(self._builder(key, Candidate(), kind, 1.0, name=speaker))
        for key, candidate in self.topics.items():
            if self._topic_accepted(key, candidate):
                builders.append(self._builder(key, candidate, "topic", BASE_CONFIDENCE["topic"]))
        for key, candidate in self.times.items():
            confidence = BASE_CONFIDENCE[candidate.grain]
            builders.append(self._builder(key, candidate, "date", confidence, name=key))
        self._attach_context(builders)
        return builders

    def _builder(
        self,
        key: str,
        candidate: Candidate,
        entity_type: str,
        confidence: float,
        name: str | None = None,
    ) -> _Builder:
        if name is None:
            ranked = sorted(candidate.surfaces.items(), key=lambda item: (-item[1], item[0]))
            name = ranked[0][0]
        return _Builder(
            id=entity_id(self.scope, entity_type, key),
            key=key,
            name=name,
            type=entity_type,
            scope=self.scope,
            confidence=confidence,
            surfaces=set(candidate.surfaces),
            occurrences=list(candidate.occurrences),
        )

    def _attach_context(self, builders: list[_Builder]) -> None:
        """Dates and domains an entity shares chunks with; speakers' own turns count as seen."""
        times_in_chunk: dict[int, set[str]] = defaultdict(set)
        for key, candidate in self.times.items():
            for occurrence in candidate.occurrences:
                times_in_chunk[occurrence.chunk].add(key)
        spoken: dict[str, list[int]] = defaultdict(list)
        for index, chunk in enumerate(self.chunks):
            spoken[normalise_name(chunk.speaker)].append(index)
        for builder in builders:
            indexes = [occurrence.chunk for occurrence in builder.occurrences]
            if builder.type in ("person", "agent"):
                indexes += spoken.get(builder.key, [])
            for index in indexes:
                chunk = self.chunks[index]
                builder.seen.append(chunk.timestamp)
                builder.domains.update(chunk.domains)
                if builder.type != "date":
                    builder.temporal.update(times_in_chunk.get(index, ()))

    def _entity(self, builder: _Builder) -> Entity:
        mentions = tuple(
            sorted(
                {
                    Mention(
                        self.chunks[occurrence.chunk].id,
                        occurrence.start,
                        occurrence.end,
                        self.chunks[occurrence.chunk].timestamp,
                    )
                    for occurrence in builder.occurrences
                },
                key=lambda mention: (mention.timestamp, mention.chunk_id, mention.start),
            )
        )
        return Entity(
            id=builder.id,
            name=builder.name,
            type=builder.type,
            aliases=_unique_aliases(builder.name, builder.surfaces),
            confidence=builder.confidence,
            first_seen=min(builder.seen, default=None),
            last_seen=max(builder.seen, default=None),
            temporal=_top(builder.temporal, MAX_TEMPORAL),
            domains=_top(builder.domains, MAX_DOMAINS),
            scope=builder.scope,
            layer=MemoryLayer.PROFILE if builder.type == "person" else MemoryLayer.SEMANTIC,
            mentions=mentions,
        )

    # -- relations -------------------------------------------------------------------------

    def _relations(self, builders: list[_Builder]) -> list[Relation]:
        in_chunk: dict[int, list[tuple[Occurrence, _Builder]]] = defaultdict(list)
        for builder in builders:
            for occurrence in builder.occurrences:
                in_chunk[occurrence.chunk].append((occurrence, builder))
        by_key = {(entity_kind(builder.type), builder.key): builder for builder in builders}
        relations: dict[str, _RelationBuilder] = {}
        for index, chunk in enumerate(self.chunks):
            speaker = by_key.get(("named", normalise_name(chunk.speaker)))
            mentions = sorted(in_chunk.get(index, []), key=lambda item: item[0].start)
            self._chunk_relations(index, chunk, speaker, mentions, relations)
        return [self._relation(builder) for builder in relations.values()]

    def _chunk_relations(
        self,
        index: int,
        chunk: Chunk,
        speaker: _Builder | None,
        mentions: list[tuple[Occurrence, _Builder]],
        relations: dict[str, _RelationBuilder],
    ) -> None:
        sentences = self.sentences[index]
        linked: set[frozenset[str]] = set()

        def add(source: _Builder, target: _Builder, kind: str, start: int, end: int) -> None:
            if source.id == target.id:
                return
            if kind == "CO_OCCURS" and target.id < source.id:
                source, target = target, source
            key = relation_id(self.scope, source.id, kind, target.id)
            confidence = RELATION_CONFIDENCE.get(kind, TYPED_RELATION_CONFIDENCE)
            builder = relations.setdefault(
                key, _RelationBuilder(source.id, target.id, kind, confidence)
            )
            fact = chunk.text[start:end][:MAX_FACT_CHARS]
            builder.evidence.append((chunk.timestamp, index, start, end, fact))
            linked.add(frozenset((source.id, target.id)))

        subjects = list(mentions)
        if speaker is not None:
            for token in self.tokens[index]:
                if token.folded in _FIRST_PERSON:
                    subjects.append(
                        (Occurrence(index, token.start, token.end, token.sentence), speaker)
                    )
            subjects.sort(key=lambda item: item[0].start)
        for position, (subject, source) in enumerate(subjects):
            for target_occurrence, target in subjects[position + 1 :]:
                if target_occurrence.start - subject.end > MAX_RELATION_GAP:
                    break
                if target_occurrence.sentence != subject.sentence:
                    continue
                if source.type not in _SUBJECT_TYPES or target.type == "date":
                    continue
                between = chunk.text[subject.end : target_occurrence.start].casefold()
                for pattern, kind in RELATION_PATTERNS:
                    if pattern.fullmatch(between):
                        named = kind not in _NAMED_OBJECT or entity_kind(target.type) == "named"
                        person = kind not in _PERSON_SUBJECT or source.type in ("person", "agent")
                        if named and person:
                            add(source, target, kind, *sentences[subject.sentence])
                        break
        if speaker is not None:
            for occurrence, target in mentions:
                if target.type in ("person", "other") and target.id != speaker.id:
                    kin = _KIN_BEFORE.search(
                        chunk.text, max(0, occurrence.start - 40), occurrence.start
                    )
                    if kin is not None and kin.group("kin").casefold() in KIN_WORDS:
                        relation = KIN_WORDS[kin.group("kin").casefold()]
                        add(speaker, target, relation, *sentences[occurrence.sentence])
            for occurrence, target in _first_each(mentions):
                if target.type != "date":
                    add(speaker, target, "MENTIONS", *sentences[occurrence.sentence])
        others = [
            item for item in _first_each(mentions) if speaker is None or item[1].id != speaker.id
        ][:MAX_CO_OCCURRING]
        for position, (first, left) in enumerate(others):
            for second, right in others[position + 1 :]:
                if frozenset((left.id, right.id)) in linked:
                    continue
                start = sentences[min(first.sentence, second.sentence)][0]
                end = sentences[max(first.sentence, second.sentence)][1]
                add(left, right, "CO_OCCURS", start, end)

    def _relation(self, builder: _RelationBuilder) -> Relation:
        evidence = sorted(set(builder.evidence))
        first = evidence[0]
        mentions = tuple(
            sorted(
                {
                    Mention(self.chunks[index].id, start, end, when)
                    for when, index, start, end, _ in evidence
                },
                key=lambda mention: (mention.timestamp, mention.chunk_id, mention.start),
            )
        )
        return Relation(
            id=relation_id(self.scope, builder.source, builder.type, builder.target),
            source_id=builder.source,
            target_id=builder.target,
            type=builder.type,
            fact=first[4],
            confidence=builder.confidence,
            valid_from=first[0],
            mentions=mentions,
        )


# Verb patterns need a subject that can act, and some need a named object ("met Anna", not
# "met back up").
_SUBJECT_TYPES = frozenset({"person", "agent", "other"})
_NAMED_OBJECT = frozenset({"MARRIED_TO", "MET", "WORKS_AT", "STUDIES_AT", "FROM", "LIVES_IN"})
_PERSON_SUBJECT = frozenset(
    {"MARRIED_TO", "WORKS_AT", "STUDIES_AT", "FROM", "LIVES_IN", "MOVED_TO"}
)
_KIN_BEFORE = re.compile(r"\bmy\s+(?:[a-z]+\s+)?(?P<kin>[a-z]+)\s*,?\s*$", re.IGNORECASE)
MAX_TEMPORAL = 10
MAX_DOMAINS = 5


def _first_each(
    mentions: list[tuple[Occurrence, _Builder]],
) -> list[tuple[Occurrence, _Builder]]:
    """Each entity's first mention in a chunk, in order of appearance."""
    seen: set[str] = set()
    firsts: list[tuple[Occurrence, _Builder]] = []
    for occurrence, builder in mentions:
        if builder.id not in seen:
            seen.add(builder.id)
            firsts.append((occurrence, builder))
    return firsts
