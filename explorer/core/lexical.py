"""Contextual BM25 over one scope's chunks: the lexical route's ranker, cached per scope.

Full-text rank functions of a database (``ts_rank_cd``) reward term density but know nothing of
how rare a word is across the scope, which is what BM25's inverse document frequency adds. A
``LexicalIndex`` holds one scope's chunks tokenised by ``core.text`` (case-folded words, stop
words out, stemmed so "painting", "painted" and "paints" meet) with the speaker's name as part of
the text.

A chunk's score adds two kinds of context to its own BM25 score, because in a conversation the
answer often sits beside the words that match: its best neighbour's score within the same
session (``neighbour_weight``; a session is a run of chunks of one conversation with no gap
longer than ``session_gap``) and its session's score as one document (``session_weight``). Each
part is divided by its best value for the query, and the sum by its best, so the top chunk
scores 1. A question that asks for a kind ("What martial arts ...") also scores the instances
of it (``core.asked``: "taekwondo", "kickboxing"), and one that names a group of people
("children") the words its members are called by ("son", "daughter"), at ``instance_weight`` of
a query word: one pool, a chunk counting its best.

``LexicalIndexCache`` keeps one index per scope and rebuilds it only when the store's stamp for
that scope (a cheap summary of the scope's chunk ids) changes, so a write invalidates itself;
concurrent queries for one scope share a single build. With ``IndexSnapshots`` a built index is
saved as flat arrays and a later run under the same stamp loads it instead of tokenising every
chunk; the index then knows chunk ids, not chunks, and the route reads the few it ranks. The
store side is the ``ScopeChunks`` protocol, which chunk stores may implement alongside
``ChunkStore``. Imports only the standard
library, numpy, core models, ports, snapshot helpers, core text and core asked.
"""

from __future__ import annotations

import asyncio
import math
from collections import Counter, defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import timedelta
from typing import Any, Protocol, runtime_checkable

import numpy as np
import numpy.typing as npt

from explorer.core import snapshot
from explorer.core.asked import instance_terms
from explorer.core.models import Chunk
from explorer.core.ports import IndexSnapshots
from explorer.core.snapshot import pack_texts, unpack_texts
from explorer.core.text import STOP_WORDS, stem, words

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int32]
IntArray64 = npt.NDArray[np.int64]

_NO_POSITIONS: IntArray = np.zeros(0, dtype=np.int32)


def tokens(text: str) -> list[str]:
    """Searchable terms of ``text``: its words without stop words, stemmed (repeats kept)."""
    return [stem(word) for word in words(text) if word not in STOP_WORDS]


@dataclass(frozen=True, slots=True)
class LexicalParams:
    """BM25's ``k1`` and ``b``, how much a chunk's neighbours and session add to it, and how
    much an instance of a kind the query asks for (or a member of a group it names) weighs
    against a query word (chosen by cross-validation over the LoCoMo development conversations:
    every fold chose 1.0)."""

    k1: float = 0.9
    b: float = 0.4
    neighbour_weight: float = 0.3
    session_weight: float = 0.3
    session_gap: timedelta = timedelta(hours=1)
    instance_weight: float = 1.0


class _Bm25:
    """Okapi BM25 over tokenised documents (inverse document frequency ``log(1 + ...)``).

    Each term's posting keeps its documents and the whole BM25 contribution there (idf and the
    length-normalised term frequency folded in at build time), so a query only adds arrays. The
    postings sit end to end in two flat arrays (``starts`` marks each term's slice), which is
    what lets a snapshot of the index load without building an object per term.
    """

    __slots__ = ("_terms", "docs", "size", "starts", "terms", "weights")

    def __init__(
        self, terms: list[str], starts: IntArray64, docs: IntArray, weights: FloatArray, size: int
    ) -> None:
        self.terms, self.starts, self.docs, self.weights, self.size = (
            terms,
            starts,
            docs,
            weights,
            size,
        )
        self._terms = {term: index for index, term in enumerate(terms)}

    @classmethod
    def build(cls, documents: Sequence[Sequence[str]], k1: float, b: float) -> _Bm25:
        size = len(documents)
        lengths = np.fromiter((len(document) for document in documents), float, size)
        average = float(lengths.mean()) if size and lengths.any() else 1.0
        norms = k1 * (1.0 - b + b * lengths / average)
        listed: dict[str, tuple[list[int], list[int]]] = defaultdict(lambda: ([], []))
        for index, document in enumerate(documents):
            for term, count in Counter(document).items():
                where, counts = listed[term]
                where.append(index)
                counts.append(count)
        lengths_of = np.fromiter((len(where) for where, _ in listed.values()), np.int64)
        starts = np.zeros(len(listed) + 1, dtype=np.int64)
        np.cumsum(lengths_of, out=starts[1:])
        docs = np.fromiter(
            (i for where, _ in listed.values() for i in where), np.int32, int(starts[-1])
        )
        tf = np.fromiter((c for _, counts in listed.values() for c in counts), float, len(docs))
        # math.log per term, as the formula reads, repeated over the term's documents.
        idf = np.repeat(
            [math.log(1.0 + (size - n + 0.5) / (n + 0.5)) for n in lengths_of.tolist()],
            lengths_of,
        )
        weights = idf * tf * (k1 + 1.0) / (tf + norms[docs])
        return cls(list(listed), starts, docs, weights, size)

    def scores(
        self,
        query: Sequence[str],
        instances: Sequence[str] = (),
        weight: float = 0.0,
        names: Sequence[Sequence[str]] = (),
    ) -> FloatArray:
        """Each document's score for the query's terms (0 where none occurs), plus ``weight``
        times its best score among the ``instances`` of a kind the query asks for or the members
        of a group it names (``core.asked``) and the ``names`` (each scored as the sum of its
        terms: "Halvorsen Logistics" is more than any turn saying "logistics")."""
        found = np.zeros(self.size)
        self._add(found, query)
        if weight > 0.0 and (instances or names):
            # The best instance only: a turn listing five countries is no likelier an answer.
            best = np.zeros(self.size)
            for term in instances:
                index = self._terms.get(term)
                if index is not None:
                    begin, end = self.starts[index], self.starts[index + 1]
                    where = self.docs[begin:end]
                    best[where] = np.maximum(best[where], self.weights[begin:end])
            for name in names:
                np.maximum(best, self._add(np.zeros(self.size), name), out=best)
            found += weight * best
        return found

    def _add(self, found: FloatArray, terms: Sequence[str]) -> FloatArray:
        """``found`` plus each document's score for ``terms`` (each term once)."""
        for term in dict.fromkeys(terms):
            index = self._terms.get(term)
            if index is not None:
                begin, end = self.starts[index], self.starts[index + 1]
                # A document appears once per posting, so fancy-index addition is exact.
                found[self.docs[begin:end]] += self.weights[begin:end]
        return found


def _same_as_previous(sessions: IntArray) -> FloatArray:
    """1 where a position is in the same session as the one before it, else 0 (one shorter)."""
    same: FloatArray = (sessions[1:] == sessions[:-1]).astype(np.float64)
    return same


def _scaled(scores: FloatArray, *, in_place: bool = False) -> FloatArray | None:
    """``scores`` divided by their best (``None`` when none is above 0), in place if asked."""
    best = float(scores.max()) if scores.size else 0.0
    if not best > 0.0:
        return None
    return np.divide(scores, best, out=scores if in_place else None)


class LexicalIndex:
    """BM25 with neighbour and session context over a fixed set of chunks.

    Built from chunks it keeps them (``chunks``); ``from_arrays`` gives the same index from its
    ``arrays()`` without them (``chunks`` is empty), knowing each position's chunk id (``ids``)
    and domains only, so a caller fetches the few chunks it ranks. Both rank identically.
    """

    def __init__(self, chunks: Sequence[Chunk], params: LexicalParams | None = None) -> None:
        self.params = params or LexicalParams()
        ordered = tuple(sorted(chunks, key=lambda c: (c.conversation_id, c.position, c.id)))
        self.chunks: tuple[Chunk, ...] = ordered
        self.ids: tuple[str, ...] = tuple(chunk.id for chunk in ordered)
        documents = [tokens(f"{chunk.speaker} {chunk.text}") for chunk in ordered]
        sessions = self._session_of(ordered, self.params.session_gap)
        members: dict[int, list[int]] = defaultdict(list)
        for index, session in enumerate(sessions):
            members[session].append(index)
        session_documents = [
            [term for index in members[session] for term in documents[index]]
            for session in range(len(members))
        ]
        in_domain: dict[str, list[int]] = defaultdict(list)
        for index, chunk in enumerate(ordered):
            for domain in dict.fromkeys(chunk.domains):
                in_domain[domain].append(index)
        self._domains = {d: np.array(at, dtype=np.int32) for d, at in in_domain.items()}
        self._session_array = np.array(sessions, dtype=np.int32)
        self._same_as_previous = _same_as_previous(self._session_array)
        self._chunk_index = _Bm25.build(documents, self.params.k1, self.params.b)
        self._session_index = _Bm25.build(session_documents, self.params.k1, self.params.b)

    def arrays(self) -> dict[str, npt.NDArray[Any]]:
        """Everything the index ranks with, as flat arrays (``from_arrays`` reads them back)."""
        found: dict[str, npt.NDArray[Any]] = {
            "ids": pack_texts(self.ids),
            "sessions": self._session_array,
            "domain_names": pack_texts(list(self._domains)),
            "domain_starts": np.cumsum(
                [0, *(len(at) for at in self._domains.values())], dtype=np.int64
            ),
            "domain_positions": np.concatenate(
                [np.zeros(0, dtype=np.int32), *self._domains.values()]
            ),
        }
        for prefix, bm25 in (("chunk", self._chunk_index), ("session", self._session_index)):
            found[f"{prefix}_terms"] = pack_texts(bm25.terms)
            found[f"{prefix}_starts"] = bm25.starts
            found[f"{prefix}_docs"] = bm25.docs
            found[f"{prefix}_weights"] = bm25.weights
            found[f"{prefix}_size"] = np.array([bm25.size], dtype=np.int64)
        return found

    @classmethod
    def from_arrays(
        cls, arrays: Mapping[str, npt.NDArray[Any]], params: LexicalParams | None = None
    ) -> LexicalIndex:
        """The index whose ``arrays()`` these are (built with the same ``params``), no chunks."""
        index = cls.__new__(cls)
        index.params = params or LexicalParams()
        index.chunks = ()
        index.ids = tuple(unpack_texts(arrays["ids"]))
        index._session_array = np.asarray(arrays["sessions"], dtype=np.int32)
        index._same_as_previous = _same_as_previous(index._session_array)
        starts = arrays["domain_starts"]
        positions = np.asarray(arrays["domain_positions"], dtype=np.int32)
        index._domains = {
            name: positions[starts[i] : starts[i + 1]]
            for i, name in enumerate(unpack_texts(arrays["domain_names"]))
        }
        bm25s = [
            _Bm25(
                unpack_texts(arrays[f"{prefix}_terms"]),
                np.asarray(arrays[f"{prefix}_starts"], dtype=np.int64),
                np.asarray(arrays[f"{prefix}_docs"], dtype=np.int32),
                np.asarray(arrays[f"{prefix}_weights"], dtype=np.float64),
                int(arrays[f"{prefix}_size"][0]),
            )
            for prefix in ("chunk", "session")
        ]
        index._chunk_index, index._session_index = bm25s
        if len(index.ids) != len(index._session_array) or bm25s[0].size != len(index.ids):
            raise ValueError("lexical index arrays do not describe one index")
        return index

    def __len__(self) -> int:
        return len(self.ids)

    @staticmethod
    def _session_of(chunks: Sequence[Chunk], gap: timedelta) -> list[int]:
        sessions: list[int] = []
        current = -1
        for index, chunk in enumerate(chunks):
            previous = chunks[index - 1] if index else None
            if (
                previous is None
                or previous.conversation_id != chunk.conversation_id
                or abs(chunk.timestamp - previous.timestamp) > gap
            ):
                current += 1
            sessions.append(current)
        return sessions

    def scores(self, query: str, answers: Sequence[str] = ()) -> FloatArray | None:
        """Context score per chunk position in ``ids`` (best 1); ``None``: no match.
        ``answers`` are names for the instances' pool: what the graph holds in answer to the
        query (``core.asked.graph_answers``), each scored as all its words."""
        terms = tokens(query)
        if not terms or not self.ids:
            return None
        params = self.params
        weight = params.instance_weight
        instances = instance_terms(query, terms) if weight > 0.0 else []
        names: list[tuple[str, ...]] = []
        if weight > 0.0:
            asked = set(terms)
            for answer in dict.fromkeys(answers):
                name = tuple(term for term in tokens(answer) if term not in asked)
                if name and name not in names:
                    names.append(name)
        own = _scaled(self._chunk_index.scores(terms, instances, weight, names))
        if own is None:
            return None
        # In place on as few arrays as can be: over a large scope, walking the arrays through
        # memory costs more than the arithmetic on them.
        combined = own.copy()
        if params.neighbour_weight > 0.0:
            # Only the best neighbour within the same session counts: the max over both sides.
            same = self._same_as_previous
            neighbour = np.zeros_like(own)
            np.multiply(own[:-1], same, out=neighbour[1:])  # the one before
            after = own[1:] * same
            np.maximum(neighbour[:-1], after, out=neighbour[:-1])
            neighbour *= params.neighbour_weight
            combined += neighbour
        if params.session_weight > 0.0:
            by_session = _scaled(self._session_index.scores(terms, instances, weight, names))
            if by_session is not None:
                by_session *= params.session_weight
                combined += by_session[self._session_array]
        return _scaled(combined, in_place=True)

    def ranked(
        self, query: str, k: int, *, domain: str | None = None, answers: Sequence[str] = ()
    ) -> list[tuple[int, float]]:
        """Positions of the ``k`` best chunks (of ``domain`` when given) with their context
        scores, best first (ties in chunk order); ``answers`` as ``scores`` takes them."""
        if k <= 0:
            return []
        scored = self.scores(query, answers)
        if scored is None:
            return []
        if domain is not None:
            # Scores stay scaled over the whole scope; the domain only chooses among them.
            kept = np.zeros_like(scored)
            at = self._domains.get(domain, _NO_POSITIONS)
            kept[at] = scored[at]
            scored = kept
        found = np.flatnonzero(scored > 0.0)
        values = scored[found]
        if len(found) > k:
            # Everything at least as good as the k-th best, then a full order of those only.
            kth = np.partition(values, len(values) - k)[len(values) - k]
            keep = values >= kth
            found, values = found[keep], values[keep]
        order = np.lexsort((found, -values))[:k]
        return [(int(found[i]), float(values[i])) for i in order]

    def search(self, query: str, k: int) -> list[tuple[Chunk, float]]:
        """The ``k`` best chunks with their context scores, best first (ties in chunk order);
        for an index built from chunks."""
        if len(self.chunks) != len(self.ids):
            raise ValueError("this index was loaded without its chunks: use ranked()")
        chunks = self.chunks
        return [(chunks[position], score) for position, score in self.ranked(query, k)]


@runtime_checkable
class ScopeChunks(Protocol):
    """A chunk store that can list a scope's chunks, stamp their current state and read chunks
    by id."""

    async def scope_stamp(self, scope: str | None) -> str:
        """A value that changes whenever a chunk is added to or removed from the scope; a
        persistent store's stamp also names the store, so another store's never equals it."""
        ...

    async def scope_chunks(self, scope: str | None) -> list[Chunk]:
        """Every chunk in the scope (and below it); ``None`` means the whole store."""
        ...

    async def get(self, ids: Sequence[str]) -> list[Chunk]:
        """The chunks with these ids that exist."""
        ...


def _built_with(params: LexicalParams) -> str:
    """What a saved index depends on: the weights a query applies (the neighbour's, the
    session's and the instances') may change without a rebuild."""
    return f"k1={float(params.k1)} b={float(params.b)} gap={params.session_gap.total_seconds()}"


class LexicalIndexCache:
    """One ``LexicalIndex`` per scope, rebuilt when the store's stamp for the scope changes.

    With ``snapshots`` an index is saved once built and loaded instead of built when a later
    run finds the same stamp (a start on an unchanged memory reads arrays, it tokenises
    nothing). A built index is kept in the loaded form too, so both rank from the same arrays.
    """

    KIND = "lexical"
    #: Raised whenever what the saved arrays mean changes (see ``core.snapshot``).
    FORMAT = 1

    def __init__(
        self,
        params: LexicalParams | None = None,
        max_scopes: int = 64,
        snapshots: IndexSnapshots | None = None,
    ) -> None:
        self._params = params or LexicalParams()
        self._max_scopes = max_scopes
        self._snapshots = snapshots
        self._entries: dict[str | None, tuple[str, LexicalIndex]] = {}
        self._locks: dict[str | None, asyncio.Lock] = {}
        #: Indexes built so far (a changed scope rebuilds its index), and loaded from snapshots.
        self.builds = 0
        self.loads = 0

    @property
    def params(self) -> LexicalParams:
        return self._params

    async def index(self, store: ScopeChunks, scope: str | None) -> LexicalIndex:
        """The scope's index, fresh as of the stamp read now."""
        stamp = await store.scope_stamp(scope)
        entry = self._entries.get(scope)
        if entry is not None and entry[0] == stamp:
            return entry[1]
        lock = self._locks.setdefault(scope, asyncio.Lock())
        async with lock:
            entry = self._entries.get(scope)
            if entry is not None and entry[0] == stamp:
                return entry[1]
            slot = f"{scope!r} {_built_with(self._params)}"
            key = f"format {self.FORMAT} {stamp}"
            index = await asyncio.to_thread(self._load, slot, key)
            if index is None:
                chunks = await store.scope_chunks(scope)
                index = await asyncio.to_thread(self._build, slot, key, chunks)
                self.builds += 1
            else:
                self.loads += 1
            if scope not in self._entries and len(self._entries) >= self._max_scopes:
                self._entries.pop(next(iter(self._entries)))
            self._entries[scope] = (stamp, index)
            return index

    def _load(self, slot: str, key: str) -> LexicalIndex | None:
        return snapshot.load(
            self._snapshots,
            self.KIND,
            slot,
            key,
            lambda arrays: LexicalIndex.from_arrays(arrays, self._params),
        )

    def _build(self, slot: str, key: str, chunks: Sequence[Chunk]) -> LexicalIndex:
        arrays = LexicalIndex(chunks, self._params).arrays()
        if self._snapshots is not None:
            self._snapshots.save(self.KIND, slot, key, arrays)
        return LexicalIndex.from_arrays(arrays, self._params)
