"""Contextual BM25 over one scope's chunks: the lexical route's ranker, cached per scope.

Full-text rank functions of a database (``ts_rank_cd``) reward term density but know nothing of
how rare a word is across the scope, which is what BM25's inverse document frequency adds. A
``LexicalIndex`` holds one scope's chunks tokenised (lower case, stop words out, a light suffix
stemmer so "painting", "painted" and "paints" meet) with the speaker's name as part of the text.
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
library and core models.
"""

from __future__ import annotations

import asyncio
import heapq
import math
import re
from collections import Counter, defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import timedelta
from typing import Protocol, runtime_checkable

from explorer.core.models import Chunk

_WORD = re.compile(r"[^\W_]+", re.UNICODE)

_STOP_TEXT = """
a about above after again against all am an and any are as at be because been before being
below between both but by can could d did do does doing don down during each few for from
further had has have having he her here hers herself him himself his how i if in into is
it its itself just ll m me might more most must my myself no nor not now o of off on once
only or other our ours ourselves out over own re s same shall she should so some such t
than that the their theirs them themselves then there these they this those through to too
under until up ve very was we were what when where which while who whom why will with
would y you your yours yourself yourselves
"""
STOP_WORDS = frozenset(_STOP_TEXT.split())
_SUFFIXES = ("ing", "ed", "es", "s")
_MIN_STEM = 3


def stem(word: str) -> str:
    """A light suffix stripper: one of -ing, -ed, -es, -s off when at least 3 letters remain."""
    for suffix in _SUFFIXES:
        if word.endswith(suffix) and len(word) - len(suffix) >= _MIN_STEM:
            return word[: -len(suffix)]
    return word


def tokens(text: str) -> list[str]:
    """Searchable terms of ``text``: lower-cased words without stop words, stemmed."""
    return [stem(word) for word in _WORD.findall(text.casefold()) if word not in STOP_WORDS]


@dataclass(frozen=True, slots=True)
class LexicalParams:
    """BM25's ``k1`` and ``b``, and how much a chunk's neighbours and session add to it."""

    k1: float = 0.9
    b: float = 0.4
    neighbour_weight: float = 0.3
    session_weight: float = 0.3
    session_gap: timedelta = timedelta(hours=1)


class _Bm25:
    """Okapi BM25 over tokenised documents (inverse document frequency ``log(1 + ...)``)."""

    __slots__ = ("_avg", "_b", "_idf", "_k1", "_lengths", "_postings")

    def __init__(self, documents: Sequence[Sequence[str]], k1: float, b: float) -> None:
        self._k1, self._b = k1, b
        self._lengths = [len(document) for document in documents]
        self._avg = (sum(self._lengths) / len(documents)) if documents else 0.0
        self._postings: dict[str, list[tuple[int, int]]] = defaultdict(list)
        for index, document in enumerate(documents):
            for term, count in Counter(document).items():
                self._postings[term].append((index, count))
        total = len(documents)
        self._idf = {
            term: math.log(1.0 + (total - len(posting) + 0.5) / (len(posting) + 0.5))
            for term, posting in self._postings.items()
        }

    def scores(self, query: Sequence[str]) -> dict[int, float]:
        found: dict[int, float] = defaultdict(float)
        average = self._avg or 1.0
        for term in dict.fromkeys(query):
            idf = self._idf.get(term)
            if idf is None:
                continue
            for index, count in self._postings[term]:
                norm = self._k1 * (1.0 - self._b + self._b * self._lengths[index] / average)
                found[index] += idf * count * (self._k1 + 1.0) / (count + norm)
        return found


def _scaled(scores: dict[int, float]) -> dict[int, float]:
    best = max(scores.values(), default=0.0)
    return {key: value / best for key, value in scores.items()} if best > 0.0 else {}


class LexicalIndex:
    """BM25 with neighbour and session context over a fixed set of chunks."""

    def __init__(self, chunks: Sequence[Chunk], params: LexicalParams | None = None) -> None:
        self.params = params or LexicalParams()
        self.chunks: tuple[Chunk, ...] = tuple(
            sorted(chunks, key=lambda c: (c.conversation_id, c.position, c.id))
        )
        documents = [tokens(f"{chunk.speaker} {chunk.text}") for chunk in self.chunks]
        self._sessions = self._session_of(self.chunks, self.params.session_gap)
        members: dict[int, list[int]] = defaultdict(list)
        for index, session in enumerate(self._sessions):
            members[session].append(index)
        self._session_count = len(members)
        self._members = members
        session_documents = [
            [term for index in members[session] for term in documents[index]]
            for session in range(self._session_count)
        ]
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

    def scores(self, query: str) -> dict[int, float]:
        """Context score per chunk position in ``self.chunks`` (best 1); absent means 0."""
        terms = tokens(query)
        if not terms or not self.chunks:
            return {}
        own = _scaled(self._chunk_index.scores(terms))
        if not own:
            return {}
        params = self.params
        sessions = self._sessions
        combined: dict[int, float] = dict(own)
        if params.neighbour_weight > 0.0:
            for index, value in own.items():
                for other in (index - 1, index + 1):
                    if 0 <= other < len(sessions) and sessions[other] == sessions[index]:
                        lift = params.neighbour_weight * value
                        # Only the best neighbour counts: the max over both sides.
                        seen = combined.get(other, 0.0) - own.get(other, 0.0)
                        if lift > seen:
                            combined[other] = own.get(other, 0.0) + lift
        if params.session_weight > 0.0:
            by_session = _scaled(self._session_index.scores(terms))
            # Only the sessions the query reached, not every chunk of the scope.
            for session in sorted(by_session):
                share = by_session[session]
                if share > 0.0:
                    for index in self._members[session]:
                        combined[index] = combined.get(index, 0.0) + params.session_weight * share
        return _scaled(combined)

    def search(self, query: str, k: int) -> list[tuple[Chunk, float]]:
        """The ``k`` best chunks with their context scores, best first (ties in chunk order)."""
        if k <= 0:
            return []
        scored = self.scores(query)
        # The k best without sorting every chunk that matched a term.
        ranked = heapq.nsmallest(k, scored.items(), key=lambda item: (-item[1], item[0]))
        return [(self.chunks[index], score) for index, score in ranked if score > 0.0]


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
            if scope not in self._entries and len(self._entries) >= self._max_scopes:
                self._entries.pop(next(iter(self._entries)))
            self._entries[scope] = (stamp, built)
            return built
