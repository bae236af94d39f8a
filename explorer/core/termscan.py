"""The term-overlap scan: lexical search over one agent's concept records, no embeddings.

Scoring: the query is tokenized (lowercased, split on non-word characters, stopwords and
one-character terms dropped, repeats counted once). Each term that occurs as a case-insensitive
substring of a record's name adds 3, of its description 2, of its body 1 (a term can score in
all three). The sum is multiplied by the record's ``confidence`` (default 1) and a recency factor
``0.5 ** (age_days / 30)``, where the age is measured from the record's ``last_seen`` when it has
one (when it was last mentioned, which is what "recent" means to a reader) and otherwise from
``updated_at`` (when it was last written); with neither readable the factor is 1. Records
scoring 0 are left out entirely; ties keep the store's order; the best ``top_k`` are returned.

Read cache: parsing records dominates the scan's cost, so parsed records are kept per
``(agent, tenant, name)`` together with the ``updated_at`` stamp they were read under. Each scan
first asks the store for the stamps alone (``ConceptStore.updated_at``, no body, no parsing) and
re-reads only records whose stamp changed, so a write invalidates its entry by itself. Stamps
are read before bodies, so a write racing a read can only make an entry look stale, never make a
stale body look current. A store that also offers ``version(agent, tenant)`` (a stamp of all its
records, changed by any write) spares even the stamps: while the version stands, the records
listed under it are reused as they are. Cache updates happen between awaits on the event loop
thread, so concurrent tasks may at worst parse a record twice. Imports only the standard library
and core.

Record fields read (JSON object): ``name`` (required), ``description``, ``body``, ``type``,
``confidence``, ``salience``, ``updated_at``, ``last_seen``, ``id`` or ``entity_id``,
``aliases``, ``domains``, ``temporal``, ``scope``.
"""

from __future__ import annotations

import bisect
import heapq
import itertools
import json
import math
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime

from explorer.core.ports import ConceptStore

NAME_WEIGHT = 3
DESCRIPTION_WEIGHT = 2
BODY_WEIGHT = 1
RECENCY_HALF_LIFE_DAYS = 30.0
#: The most a single term can add (name + description + body).
TERM_WEIGHT = NAME_WEIGHT + DESCRIPTION_WEIGHT + BODY_WEIGHT

_STOPWORD_TEXT = """
    a an and are as at be been being but by can could did do does for from had has have he her
    hers him his how i if in into is it its me my no not of on or our ours she so than that the
    their theirs them then there these they this those to too us was we were what when where
    which who whom why will with would you your yours about after again all also am any because
    before between both during each few more most other over own same should some such through
    under until up very just only out off once here
"""
STOPWORDS = frozenset(_STOPWORD_TEXT.split())

_SPLIT = re.compile(r"\W+")


def tokenize(text: str) -> tuple[str, ...]:
    """Query terms: lowercase, split on non-word characters, no stopwords, no 1-char terms."""
    terms = (term for term in _SPLIT.split(text.lower()) if len(term) > 1)
    return tuple(dict.fromkeys(term for term in terms if term not in STOPWORDS))


def _parse_time(value: object) -> datetime | None:
    if not isinstance(value, str) or not value:
        return None
    try:
        moment = datetime.fromisoformat(value)
    except ValueError:
        return None
    return moment if moment.tzinfo is not None else moment.replace(tzinfo=UTC)


def _text(data: Mapping[str, object], key: str) -> str:
    value = data.get(key)
    return value if isinstance(value, str) else ""


def _strings(data: Mapping[str, object], key: str) -> tuple[str, ...]:
    value = data.get(key)
    if not isinstance(value, list):
        return ()
    return tuple(item for item in value if isinstance(item, str))


def _unit(data: Mapping[str, object], key: str, default: float | None) -> float | None:
    value = data.get(key)
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        return default
    return min(max(float(value), 0.0), 1.0)


@dataclass(frozen=True, slots=True)
class ConceptRecord:
    """One parsed concept record; lowercased fields are kept for the substring match."""

    name: str
    id: str
    type: str = "concept"
    description: str = ""
    body: str = ""
    confidence: float = 1.0
    salience: float | None = None
    updated_at: datetime | None = None
    first_seen: datetime | None = None
    last_seen: datetime | None = None
    aliases: tuple[str, ...] = ()
    domains: tuple[str, ...] = ()
    temporal: tuple[str, ...] = ()
    scope: str | None = None
    name_lower: str = ""
    description_lower: str = ""
    body_lower: str = ""

    @property
    def seen_at(self) -> datetime | None:
        """The moment recency is measured from: ``last_seen``, else ``updated_at``."""
        return self.last_seen or self.updated_at


def parse_record(raw: str, name: str) -> ConceptRecord | None:
    """The record in ``raw``, or ``None`` when it is not a JSON object with a name."""
    try:
        data = json.loads(raw)
    except (json.JSONDecodeError, TypeError):
        return None
    if not isinstance(data, dict):
        return None
    record_name = _text(data, "name") or name
    if not record_name:
        return None
    description, body = _text(data, "description"), _text(data, "body")
    confidence = _unit(data, "confidence", 1.0)
    return ConceptRecord(
        name=record_name,
        id=_text(data, "id") or _text(data, "entity_id") or f"concept:{record_name}",
        type=_text(data, "type") or "concept",
        description=description,
        body=body,
        confidence=1.0 if confidence is None else confidence,
        salience=_unit(data, "salience", None),
        updated_at=_parse_time(data.get("updated_at")),
        first_seen=_parse_time(data.get("first_seen")),
        last_seen=_parse_time(data.get("last_seen")),
        aliases=_strings(data, "aliases"),
        domains=_strings(data, "domains"),
        temporal=_strings(data, "temporal"),
        scope=_text(data, "scope") or None,
        name_lower=record_name.lower(),
        description_lower=description.lower(),
        body_lower=body.lower(),
    )


def overlap(record: ConceptRecord, terms: Sequence[str]) -> int:
    """The weighted term overlap of ``record`` with ``terms`` (before the multipliers)."""
    total = 0
    for term in terms:
        if term in record.name_lower:
            total += NAME_WEIGHT
        if term in record.description_lower:
            total += DESCRIPTION_WEIGHT
        if term in record.body_lower:
            total += BODY_WEIGHT
    return total


_SEPARATOR = "\x00"  # never inside a term, so no match can span two records


class _Haystack:
    """The records' lowercase names, descriptions and bodies, each field joined into one text.

    ``overlaps`` gives what ``overlap`` gives each record, for every record at once: a term is
    found with one scan of each joined text (in C) and every record it occurs in is visited
    once, so records sharing no term with the query cost nothing.
    """

    __slots__ = ("_fields",)

    def __init__(self, records: Sequence[ConceptRecord]) -> None:
        fields: list[tuple[int, str, list[int]]] = []
        for weight, texts in (
            (NAME_WEIGHT, [record.name_lower for record in records]),
            (DESCRIPTION_WEIGHT, [record.description_lower for record in records]),
            (BODY_WEIGHT, [record.body_lower for record in records]),
        ):
            starts = list(itertools.accumulate((len(text) + 1 for text in texts), initial=0))
            fields.append((weight, _SEPARATOR.join(texts), starts))
        self._fields = fields

    def overlaps(self, terms: Sequence[str]) -> dict[int, int]:
        """Record position → weighted term overlap, for the records with any overlap."""
        totals: dict[int, int] = {}
        for weight, text, starts in self._fields:
            for term in terms:
                at = text.find(term)
                while at != -1:
                    position = bisect.bisect_right(starts, at) - 1
                    totals[position] = totals.get(position, 0) + weight
                    at = text.find(term, starts[position + 1])
        return totals


def recency_factor(seen_at: datetime | None, now: datetime) -> float:
    if seen_at is None:
        return 1.0
    age_days = (now - seen_at).total_seconds() / 86_400.0
    return 1.0 if age_days <= 0 else math.pow(0.5, age_days / RECENCY_HALF_LIFE_DAYS)


@dataclass(frozen=True, slots=True)
class ConceptHit:
    """A record the scan matched, its score and the parts of it.

    ``lexical`` is the overlap as a share of the most the query's terms could score, in
    ``[0, 1]``; ``position`` is the record's place in store order.
    """

    record: ConceptRecord
    score: float
    overlap: int
    recency: float
    lexical: float
    position: int


@dataclass(frozen=True, slots=True)
class ScanResult:
    hits: tuple[ConceptHit, ...] = ()
    unreadable: tuple[str, ...] = ()
    terms: tuple[str, ...] = ()


_Entry = tuple[str, ConceptRecord | None]


class TermScan:
    """The scan with its read cache; one instance may live for the whole app.

    The store may be bound at construction or passed to each ``search`` (so the cache survives
    a reconnect that replaces the store object; the stamps still decide what is current).
    """

    def __init__(
        self, store: ConceptStore | None = None, *, clock: Callable[[], datetime] | None = None
    ) -> None:
        self._store = store
        self._clock = clock or (lambda: datetime.now(UTC))
        self._cache: dict[tuple[str, str | None], dict[str, _Entry]] = {}
        # Per (agent, tenant): the store's version and the records read under it, searchable.
        self._listed: dict[
            tuple[str, str | None], tuple[str, list[ConceptRecord], list[str], _Haystack]
        ] = {}
        self.parses = 0

    async def search(
        self,
        agent: str,
        query: str,
        *,
        tenant: str | None = None,
        top_k: int = 5,
        now: datetime | None = None,
        store: ConceptStore | None = None,
    ) -> ScanResult:
        """The best ``top_k`` records of ``agent`` for ``query``; see the module docstring."""
        source = store if store is not None else self._store
        if source is None:
            raise ValueError("TermScan.search needs a concept store (bound or passed)")
        terms = tokenize(query)
        if not terms or top_k <= 0:
            return ScanResult(terms=terms)
        records, unreadable, haystack = await self._records(source, agent, tenant)
        moment = now or self._clock()
        moment = moment if moment.tzinfo is not None else moment.replace(tzinfo=UTC)
        best = TERM_WEIGHT * len(terms)
        scored: list[tuple[float, int, float]] = []
        overlaps = haystack.overlaps(terms)
        for position, weight in overlaps.items():
            if weight <= 0:
                continue
            record = records[position]
            factor = recency_factor(record.seen_at, moment)
            score = weight * record.confidence * factor
            if score <= 0.0:
                continue
            scored.append((-score, position, factor))
        # Common terms match thousands of records; only the best top_k are ordered and kept.
        best_k = heapq.nsmallest(top_k, scored, key=lambda item: (item[0], item[1]))
        hits = tuple(
            ConceptHit(
                records[position],
                -negative,
                overlaps[position],
                factor,
                overlaps[position] / best,
                position,
            )
            for negative, position, factor in best_k
        )
        return ScanResult(
            hits=hits,
            unreadable=tuple(unreadable),
            terms=terms,
        )

    async def _records(
        self, store: ConceptStore, agent: str, tenant: str | None
    ) -> tuple[list[ConceptRecord], list[str], _Haystack]:
        # A store with a table-wide version lets an unchanged memory skip listing every stamp;
        # it is read first, so a write racing the listing can only cost an extra listing.
        versioned = getattr(store, "version", None)
        version = str(await versioned(agent, tenant)) if callable(versioned) else None
        key = (agent, tenant)
        listed = self._listed.get(key)
        if version is not None and listed is not None and listed[0] == version:
            return listed[1], listed[2], listed[3]
        records, unreadable = await self._stamped_records(store, agent, tenant)
        haystack = _Haystack(records)
        if version is not None:
            self._listed[key] = (version, records, unreadable, haystack)
        return records, unreadable, haystack

    async def _stamped_records(
        self, store: ConceptStore, agent: str, tenant: str | None
    ) -> tuple[list[ConceptRecord], list[str]]:
        names = await store.names(agent, tenant)
        if not names:
            self._cache.pop((agent, tenant), None)
            return [], []
        stamps = await store.updated_at(agent, names, tenant)
        bucket = self._cache.setdefault((agent, tenant), {})
        # This call's own view: entries are taken out of the shared cache before any await, so a
        # concurrent scan that rewrites an entry meanwhile cannot hide a record from this one.
        mine: dict[str, _Entry] = {}
        stale: list[str] = []
        for name in names:
            if name not in stamps:
                continue
            entry = bucket.get(name)
            if entry is not None and entry[0] == stamps[name]:
                mine[name] = entry
            else:
                stale.append(name)
        if stale:
            bodies = await store.read(agent, stale, tenant)
            bucket = self._cache.setdefault((agent, tenant), {})
            for name in stale:
                if name in bodies:
                    self.parses += 1
                    entry = (stamps[name], parse_record(bodies[name], name))
                    bucket[name] = entry
                    mine[name] = entry
        wanted = set(names)
        for name in [key for key in bucket if key not in wanted]:
            del bucket[name]
        records: list[ConceptRecord] = []
        unreadable: list[str] = []
        for name in names:
            found = mine.get(name)
            if found is None:
                continue
            if found[1] is None:
                unreadable.append(name)
            else:
                records.append(found[1])
        return records, unreadable
