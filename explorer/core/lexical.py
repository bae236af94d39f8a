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
scores 1.

``LexicalIndexCache`` keeps one index per scope and rebuilds it only when the store's stamp for
that scope (a cheap summary of the scope's chunk ids) changes, so a write invalidates itself;
concurrent queries for one scope share a single build. The store side is the ``ScopeChunks``
protocol, which chunk stores may implement alongside ``ChunkStore``. Imports only the standard
library, numpy, core models and core text.
"""

from __future__ import annotations

import asyncio
import math
from collections import Counter, defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import timedelta
from typing import Protocol, runtime_checkable

import numpy as np
import numpy.typing as npt

from explorer.core.models import Chunk
from explorer.core.text import STOP_WORDS, stem, words

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int32]


def tokens(text: str) -> list[str]:
    """Searchable terms of ``text``: its words without stop words, stemmed (repeats kept)."""
    return [stem(word) for word in words(text) if word not in STOP_WORDS]


@dataclass(frozen=True, slots=True)
class LexicalParams:
    """BM25's ``k1`` and ``b``, and how much a chunk's neighbours and session add to it."""

    k1: float = 0.9
    b: float = 0.4
    neighbour_weight: float = 0.3
    session_weight: float = 0.3
    session_gap: timedelta = timedelta(hours=1)


class _Bm25:
    """Okapi BM25 over tokenised documents (inverse document frequency ``log(1 + ...)``).

    Each term's posting keeps its documents and the whole BM25 contribution there (idf and the
    length-normalised term frequency folded in at build time), so a query only adds arrays.
    """

    __slots__ = ("_postings", "_size")

    def __init__(self, documents: Sequence[Sequence[str]], k1: float, b: float) -> None:
        self._size = len(documents)
        lengths = np.fromiter((len(document) for document in documents), float, self._size)
        average = float(lengths.mean()) if self._size and lengths.any() else 1.0
        norms = k1 * (1.0 - b + b * lengths / average)
        listed: dict[str, tuple[list[int], list[int]]] = defaultdict(lambda: ([], []))
        for index, document in enumerate(documents):
            for term, count in Counter(document).items():
                where, counts = listed[term]
                where.append(index)
                counts.append(count)
        self._postings: dict[str, tuple[IntArray, FloatArray]] = {}
        for term, (where, counts) in listed.items():
            at = np.array(where, dtype=np.int32)
            tf = np.array(counts, dtype=float)
            idf = math.log(1.0 + (self._size - len(where) + 0.5) / (len(where) + 0.5))
            self._postings[term] = (at, idf * tf * (k1 + 1.0) / (tf + norms[at]))

    def scores(self, query: Sequence[str]) -> FloatArray:
        """Each document's score (0 where no query term occurs)."""
        found = np.zeros(self._size)
        for term in dict.fromkeys(query):
            posting = self._postings.get(term)
            if posting is not None:
                # A document appears once per posting, so fancy-index addition is exact.
                found[posting[0]] += posting[1]
        return found


def _scaled(scores: FloatArray) -> FloatArray | None:
    best = float(scores.max()) if scores.size else 0.0
    return scores / best if best > 0.0 else None


class LexicalIndex:
    """BM25 with neighbour and session context over a fixed set of chunks."""

    def __init__(self, chunks: Sequence[Chunk], params: LexicalParams | None = None) -> None:
        self.params = params or LexicalParams()
        self.chunks: tuple[Chunk, ...] = tuple(
            sorted(chunks, key=lambda c: (c.conversation_id, c.position, c.id))
        )
        documents = [tokens(f"{chunk.speaker} {chunk.text}") for chunk in self.chunks]
        sessions = self._session_of(self.chunks, self.params.session_gap)
        members: dict[int, list[int]] = defaultdict(list)
        for index, session in enumerate(sessions):
            members[session].append(index)
        session_documents = [
            [term for index in members[session] for term in documents[index]]
            for session in range(len(members))
        ]
        self._session_array = np.array(sessions, dtype=np.int32)
        self._same_as_previous = self._session_array[1:] == self._session_array[:-1]
        self._chunk_index = _Bm25(documents, self.params.k1, self.params.b)
        self._session_index = _Bm25(session_documents, self.params.k1, self.params.b)

    def __len__(self) -> int:
        return len(self.chunks)

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

    def scores(self, query: str) -> FloatArray | None:
        """Context score per chunk position in ``self.chunks`` (best 1); ``None``: no match."""
        terms = tokens(query)
        if not terms or not self.chunks:
            return None
        own = _scaled(self._chunk_index.scores(terms))
        if own is None:
            return None
        params = self.params
        combined = own.copy()
        if params.neighbour_weight > 0.0:
            # Only the best neighbour within the same session counts: the max over both sides.
            before = np.zeros_like(own)
            after = np.zeros_like(own)
            before[1:] = np.where(self._same_as_previous, own[:-1], 0.0)
            after[:-1] = np.where(self._same_as_previous, own[1:], 0.0)
            combined += params.neighbour_weight * np.maximum(before, after)
        if params.session_weight > 0.0:
            by_session = _scaled(self._session_index.scores(terms))
            if by_session is not None:
                combined += params.session_weight * by_session[self._session_array]
        return _scaled(combined)

    def search(self, query: str, k: int) -> list[tuple[Chunk, float]]:
        """The ``k`` best chunks with their context scores, best first (ties in chunk order)."""
        if k <= 0:
            return []
        scored = self.scores(query)
        if scored is None:
            return []
        found = np.flatnonzero(scored > 0.0)
        values = scored[found]
        if len(found) > k:
            # Everything at least as good as the k-th best, then a full order of those only.
            kth = np.partition(values, len(values) - k)[len(values) - k]
            keep = values >= kth
            found, values = found[keep], values[keep]
        order = np.lexsort((found, -values))[:k]
        return [(self.chunks[int(found[i])], float(values[i])) for i in order]


@runtime_checkable
class ScopeChunks(Protocol):
    """A chunk store that can list a scope's chunks and stamp their current state."""

    async def scope_stamp(self, scope: str | None) -> str:
        """A value that changes whenever a chunk is added to or removed from the scope."""
        ...

    async def scope_chunks(self, scope: str | None) -> list[Chunk]:
        """Every chunk in the scope (and below it); ``None`` means the whole store."""
        ...


class LexicalIndexCache:
    """One ``LexicalIndex`` per scope, rebuilt when the store's stamp for the scope changes."""

    def __init__(self, params: LexicalParams | None = None, max_scopes: int = 64) -> None:
        self._params = params or LexicalParams()
        self._max_scopes = max_scopes
        self._entries: dict[str | None, tuple[str, LexicalIndex]] = {}
        self._locks: dict[str | None, asyncio.Lock] = {}
        #: Indexes built so far (a changed scope rebuilds its index).
        self.builds = 0

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
            chunks = await store.scope_chunks(scope)
            built = await asyncio.to_thread(LexicalIndex, chunks, self._params)
            self.builds += 1
            if scope not in self._entries and len(self._entries) >= self._max_scopes:
                self._entries.pop(next(iter(self._entries)))
            self._entries[scope] = (stamp, built)
            return built
