"""The term-overlap scan: lexical search over one agent's concept records, no embeddings.

Scoring: the query is tokenized by ``core.text`` (case-folded words, the scan's stop words and
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
listed under it are reused as they are. With ``IndexSnapshots`` the searchable listing of a
version is saved, and a later run under the same version loads it instead of reading and parsing
every record; it then reads only the records it returns (one written since is read as it is now,
one removed is left out). Cache updates happen between awaits on the event loop thread, so
concurrent tasks may at worst parse a record twice. Imports only the standard library, numpy
and core.

Record fields read (JSON object): ``name`` (required), ``description``, ``body``, ``type``,
``confidence``, ``salience``, ``updated_at``, ``last_seen``, ``id`` or ``entity_id``,
``aliases``, ``domains``, ``temporal``, ``scope``.
"""

from __future__ import annotations

import asyncio
import bisect
import itertools
import json
import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

import numpy as np
import numpy.typing as npt

from explorer.core import snapshot
from explorer.core.ports import ConceptStore, IndexSnapshots
from explorer.core.snapshot import pack_texts, unpack_texts
from explorer.core.text import SCAN_STOP_WORDS, key_words, words

IntArray = npt.NDArray[np.int32]

NAME_WEIGHT = 3
DESCRIPTION_WEIGHT = 2
BODY_WEIGHT = 1
RECENCY_HALF_LIFE_DAYS = 30.0
#: The most a single term can add (name + description + body).
TERM_WEIGHT = NAME_WEIGHT + DESCRIPTION_WEIGHT + BODY_WEIGHT


def tokenize(text: str) -> tuple[str, ...]:
    """Query terms: the words of ``text`` without the scan's stop words or 1-letter words, once."""
    return tuple(key_words(text, SCAN_STOP_WORDS))


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
    """One parsed concept record; case-folded fields are kept for the substring match."""

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
        name_lower=record_name.casefold(),
        description_lower=description.casefold(),
        body_lower=body.casefold(),
    )


_SEPARATOR = "\x00"  # never inside a term, so no match can span two words
_FIELD_NAMES = ("name", "description", "body")
_FIELD_WEIGHTS = (NAME_WEIGHT, DESCRIPTION_WEIGHT, BODY_WEIGHT)
_NO_RECORDS: IntArray = np.zeros(0, dtype=np.int32)


def _listed(texts: Sequence[str]) -> dict[str, list[int]]:
    """Each distinct word of ``texts`` and the positions of the texts it occurs in."""
    listed: dict[str, list[int]] = {}
    for position, text in enumerate(texts):
        for word in set(words(text)):
            listed.setdefault(word, []).append(position)
    return listed


class _Vocabulary:
    """The distinct words of every field, joined, so one scan per term finds those holding it.

    A query term is made of letters and digits only (``core.text.words``), so it is a substring
    of a text exactly when it is a substring of one of the text's words; the fields share one
    vocabulary, so a term costs one pass over it, not one per field.
    """

    __slots__ = ("_found", "_starts", "_words")

    #: Terms whose words are remembered, at most: queries share their words.
    FOUND_CACHE = 1 << 12

    def __init__(self, vocabulary: Sequence[str]) -> None:
        self._words = _SEPARATOR.join(vocabulary)
        self._starts = list(itertools.accumulate((len(word) + 1 for word in vocabulary), initial=0))
        self._found: dict[str, list[int]] = {}

    def __len__(self) -> int:
        return len(self._starts) - 1

    def arrays(self) -> dict[str, npt.NDArray[Any]]:
        return {
            "words": np.frombuffer(self._words.encode("utf-8"), dtype=np.uint8),
            "starts": np.array(self._starts, dtype=np.int64),
        }

    @classmethod
    def from_arrays(cls, arrays: Mapping[str, npt.NDArray[Any]]) -> _Vocabulary:
        vocabulary = cls.__new__(cls)
        vocabulary._words = arrays["words"].tobytes().decode("utf-8")
        vocabulary._starts = arrays["starts"].tolist()
        vocabulary._found = {}
        return vocabulary

    def containing(self, term: str) -> list[int]:
        """The places of the words that contain ``term``, in vocabulary order (read-only)."""
        found = self._found.get(term)
        if found is None:
            found = []
            text, starts = self._words, self._starts
            at = text.find(term)
            while at != -1:
                word = bisect.bisect_right(starts, at) - 1
                found.append(word)
                at = text.find(term, starts[word + 1])
            if len(self._found) >= self.FOUND_CACHE:
                self._found.pop(next(iter(self._found)))
            self._found[term] = found
        return found


class _FieldIndex:
    """Which records each word of the shared vocabulary occurs in, for one field."""

    __slots__ = ("_ends", "_found", "_held", "_records", "_size", "_vocabulary")

    #: Record positions remembered per field, at most (4 bytes each): queries share their words.
    FOUND_CACHE = 1 << 18

    def __init__(
        self,
        vocabulary: _Vocabulary,
        order: Sequence[str],
        listed: Mapping[str, list[int]],
        size: int,
    ) -> None:
        """The field of ``size`` records whose words ``listed`` gives, over ``vocabulary`` (its
        words in ``order``)."""
        empty: list[int] = []
        counts = [len(listed.get(word, empty)) for word in order]
        self._vocabulary = vocabulary
        self._size = size
        self._ends = list(itertools.accumulate(counts, initial=0))
        self._records = np.fromiter(
            itertools.chain.from_iterable(listed.get(word, empty) for word in order),
            np.int32,
            self._ends[-1],
        )
        self._found: dict[str, IntArray] = {}
        self._held = 0

    @classmethod
    def of(cls, texts: Sequence[str]) -> _FieldIndex:
        """One field's index over a vocabulary of its own (the haystack shares one)."""
        listed = _listed(texts)
        order = list(listed)
        return cls(_Vocabulary(order), order, listed, len(texts))

    def arrays(self, prefix: str) -> dict[str, npt.NDArray[Any]]:
        return {
            f"{prefix}_ends": np.array(self._ends, dtype=np.int64),
            f"{prefix}_records": self._records,
        }

    @classmethod
    def from_arrays(
        cls, arrays: Mapping[str, npt.NDArray[Any]], prefix: str, vocabulary: _Vocabulary, size: int
    ) -> _FieldIndex:
        index = cls.__new__(cls)
        index._vocabulary = vocabulary
        index._size = size
        index._ends = arrays[f"{prefix}_ends"].tolist()
        index._records = np.asarray(arrays[f"{prefix}_records"], dtype=np.int32)
        if len(index._ends) != len(vocabulary) + 1:
            raise ValueError("concept scan arrays do not describe one vocabulary")
        index._found = {}
        index._held = 0
        return index

    def records_with(self, term: str) -> IntArray:
        """Positions of the records whose field contains ``term``, each once (read-only)."""
        found = self._found.get(term)
        if found is None:
            found = self._scan(term)
            found.flags.writeable = False
            while self._found and self._held + found.size > self.FOUND_CACHE:
                self._held -= self._found.pop(next(iter(self._found))).size
            if found.size <= self.FOUND_CACHE:
                self._found[term] = found
                self._held += found.size
        return found

    def _scan(self, term: str) -> IntArray:
        ends, records = self._ends, self._records
        parts = [
            records[ends[word] : ends[word + 1]]
            for word in self._vocabulary.containing(term)
            if ends[word + 1] > ends[word]
        ]
        if not parts:
            return _NO_RECORDS
        if len(parts) == 1:
            return parts[0]
        # A mask over the records de-duplicates in one pass; sorting the union cost more.
        mask = np.zeros(self._size, dtype=bool)
        for part in parts:
            mask[part] = True
        return np.flatnonzero(mask).astype(np.int32)


class _Haystack:
    """The records' case-folded names, descriptions and bodies, indexed by word for the scan.

    ``totals`` gives each record's weighted term overlap, for every record at once; records
    sharing no term with the query cost nothing. Each record's confidence and the moment its
    recency is measured from are kept as arrays, so scoring the matches is a few array steps.
    """

    __slots__ = ("_fields", "_vocabulary", "confidence", "seen", "size")

    def __init__(self, records: Sequence[ConceptRecord]) -> None:
        self.size = len(records)
        listed = [
            _listed([record.name_lower for record in records]),
            _listed([record.description_lower for record in records]),
            _listed([record.body_lower for record in records]),
        ]
        order = list(dict.fromkeys(itertools.chain.from_iterable(listed)))
        self._vocabulary = _Vocabulary(order)
        self._fields = [
            (weight, _FieldIndex(self._vocabulary, order, field, self.size))
            for weight, field in zip(_FIELD_WEIGHTS, listed, strict=True)
        ]
        self.confidence = np.fromiter((r.confidence for r in records), float, self.size)
        self.seen = np.fromiter(
            (r.seen_at.timestamp() if r.seen_at else math.nan for r in records), float, self.size
        )

    def arrays(self) -> dict[str, npt.NDArray[Any]]:
        found = {"confidence": self.confidence, "seen": self.seen}
        found.update(self._vocabulary.arrays())
        for (_, field), prefix in zip(self._fields, _FIELD_NAMES, strict=True):
            found.update(field.arrays(prefix))
        return found

    @classmethod
    def from_arrays(cls, arrays: Mapping[str, npt.NDArray[Any]]) -> _Haystack:
        haystack = cls.__new__(cls)
        haystack.confidence = np.asarray(arrays["confidence"], dtype=np.float64)
        haystack.seen = np.asarray(arrays["seen"], dtype=np.float64)
        haystack.size = len(haystack.confidence)
        haystack._vocabulary = _Vocabulary.from_arrays(arrays)
        haystack._fields = [
            (weight, _FieldIndex.from_arrays(arrays, prefix, haystack._vocabulary, haystack.size))
            for weight, prefix in zip(_FIELD_WEIGHTS, _FIELD_NAMES, strict=True)
        ]
        return haystack

    def totals(self, terms: Sequence[str]) -> IntArray:
        """Each record's weighted term overlap (0 for most)."""
        totals = np.zeros(self.size, dtype=np.int32)
        for weight, field in self._fields:
            for term in terms:
                totals[field.records_with(term)] += weight
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


@dataclass(frozen=True, slots=True)
class _Listing:
    """One agent's searchable records: their store names in scan order, the haystack, and the
    parsed records when in hand (a listing loaded from a snapshot reads its hits by name)."""

    names: list[str]
    unreadable: list[str]
    haystack: _Haystack
    records: list[ConceptRecord] | None = None

    def arrays(self) -> dict[str, npt.NDArray[Any]]:
        return {
            "names": pack_texts(self.names),
            "unreadable": pack_texts(self.unreadable),
            **self.haystack.arrays(),
        }

    @classmethod
    def from_arrays(cls, arrays: Mapping[str, npt.NDArray[Any]]) -> _Listing:
        names, unreadable = unpack_texts(arrays["names"]), unpack_texts(arrays["unreadable"])
        listing = cls(names, unreadable, _Haystack.from_arrays(arrays))
        if len(listing.names) != listing.haystack.size:
            raise ValueError("concept scan arrays do not describe one listing")
        return listing


class TermScan:
    """The scan with its read cache; one instance may live for the whole app.

    The store may be bound at construction or passed to each ``search`` (so the cache survives
    a reconnect that replaces the store object; the stamps still decide what is current). With
    ``snapshots``, a listing built under a store version is saved and a later run under the
    same version loads it instead of reading and parsing every record; such a listing keeps no
    parsed records and reads the few it returns by name.
    """

    KIND = "concepts"
    #: Raised whenever what the saved arrays mean changes (see ``core.snapshot``).
    FORMAT = 2

    def __init__(
        self,
        store: ConceptStore | None = None,
        *,
        clock: Callable[[], datetime] | None = None,
        snapshots: IndexSnapshots | None = None,
    ) -> None:
        self._store = store
        self._clock = clock or (lambda: datetime.now(UTC))
        self._snapshots = snapshots
        self._cache: dict[tuple[str, str | None], dict[str, _Entry]] = {}
        # Per (agent, tenant): the store's version and the listing read under it.
        self._listed: dict[tuple[str, str | None], tuple[str, _Listing]] = {}
        self._locks: dict[tuple[str, str | None], asyncio.Lock] = {}
        self.parses = 0
        #: Searchable record sets built so far (a changed memory rebuilds its agent's set), and
        #: loaded from snapshots.
        self.builds = 0
        self.loads = 0

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
        listing = await self._listing(source, agent, tenant)
        haystack = listing.haystack
        moment = now or self._clock()
        moment = moment if moment.tzinfo is not None else moment.replace(tzinfo=UTC)
        best = TERM_WEIGHT * len(terms)
        totals = haystack.totals(terms)
        matched = np.flatnonzero(totals)
        age_days = (moment.timestamp() - haystack.seen[matched]) / 86_400.0
        # No readable moment, or one in the future, means no decay (factor 1).
        factors = np.where(
            np.isnan(age_days) | (age_days <= 0.0),
            1.0,
            np.power(0.5, np.fmax(age_days, 0.0) / RECENCY_HALF_LIFE_DAYS),
        )
        scores = totals[matched] * haystack.confidence[matched] * factors
        keep = scores > 0.0
        matched, scores = matched[keep], scores[keep]
        # Common terms match thousands of records; only the best top_k are ordered and kept.
        if len(matched) > top_k:
            kth = np.partition(scores, len(scores) - top_k)[len(scores) - top_k]
            near = scores >= kth
            matched, scores = matched[near], scores[near]
        order = np.lexsort((matched, -scores))[:top_k]
        positions = [int(matched[index]) for index in order]
        hits = []
        for position, record in zip(
            positions,
            await self._hit_records(listing, positions, source, agent, tenant),
            strict=True,
        ):
            if record is None:
                continue  # removed or rewritten unreadable since the listing was made
            weight = int(totals[position])
            factor = recency_factor(record.seen_at, moment)
            hits.append(
                ConceptHit(
                    record,
                    weight * record.confidence * factor,
                    weight,
                    factor,
                    weight / best,
                    position,
                )
            )
        return ScanResult(
            hits=tuple(hits),
            unreadable=tuple(listing.unreadable),
            terms=terms,
        )

    async def _hit_records(
        self,
        listing: _Listing,
        positions: Sequence[int],
        store: ConceptStore,
        agent: str,
        tenant: str | None,
    ) -> list[ConceptRecord | None]:
        if listing.records is not None:
            return [listing.records[position] for position in positions]
        names = [listing.names[position] for position in positions]
        bodies = await store.read(agent, names, tenant) if names else {}
        self.parses += len(bodies)
        return [parse_record(bodies[name], name) if name in bodies else None for name in names]

    async def _listing(self, store: ConceptStore, agent: str, tenant: str | None) -> _Listing:
        # A store with a table-wide version lets an unchanged memory skip listing every stamp;
        # it is read first, so a write racing the listing can only cost an extra listing.
        versioned = getattr(store, "version", None)
        version = str(await versioned(agent, tenant)) if callable(versioned) else None
        if version is None:
            return await self._read_listing(store, agent, tenant, None)
        key = (agent, tenant)
        listed = self._listed.get(key)
        if listed is not None and listed[0] == version:
            return listed[1]
        # Queries arriving while one builds (the window's warm-up and a first query) share it.
        async with self._locks.setdefault(key, asyncio.Lock()):
            listed = self._listed.get(key)
            if listed is not None and listed[0] == version:
                return listed[1]
            slot, saved = f"{agent!r} {tenant!r}", f"format {self.FORMAT} {version}"
            listing = await asyncio.to_thread(self._load, slot, saved)
            if listing is not None:
                self.loads += 1
            else:
                listing = await self._read_listing(store, agent, tenant, slot, saved)
            # Kept without its records, as a later start loads it: one way to read the hits.
            kept = _Listing(listing.names, listing.unreadable, listing.haystack)
            self._listed[key] = (version, kept if self._snapshots is not None else listing)
            if self._snapshots is not None:
                # Nor are the parsed records cached (70 MB of the app's peak at 45,000
                # records): after a write the listing reads every record again, once.
                self._cache.pop(key, None)
            return listing

    async def _read_listing(
        self,
        store: ConceptStore,
        agent: str,
        tenant: str | None,
        slot: str | None,
        key: str | None = None,
    ) -> _Listing:
        """Read and index every record (saved as ``slot``'s snapshot under ``key`` if given)."""
        records, names, unreadable = await self._stamped_records(store, agent, tenant)
        # Indexing tens of thousands of records takes a while; other queries keep the loop.
        haystack = await asyncio.to_thread(_Haystack, records)
        listing = _Listing(names, unreadable, haystack, records)
        self.builds += 1
        if slot is not None and key is not None and self._snapshots is not None:
            arrays = listing.arrays()
            await asyncio.to_thread(self._snapshots.save, self.KIND, slot, key, arrays)
        return listing

    def _load(self, slot: str, key: str) -> _Listing | None:
        return snapshot.load(self._snapshots, self.KIND, slot, key, _Listing.from_arrays)

    async def _stamped_records(
        self, store: ConceptStore, agent: str, tenant: str | None
    ) -> tuple[list[ConceptRecord], list[str], list[str]]:
        """The readable records in store order, their store names, and the unreadable names."""
        names = await store.names(agent, tenant)
        if not names:
            self._cache.pop((agent, tenant), None)
            return [], [], []
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
        record_names: list[str] = []
        unreadable: list[str] = []
        for name in names:
            found = mine.get(name)
            if found is None:
                continue
            if found[1] is None:
                unreadable.append(name)
            else:
                records.append(found[1])
                record_names.append(name)
        return records, record_names, unreadable
