"""The contextual BM25 index against a plain, term-by-term reading of its documented formula."""

from __future__ import annotations

import math
from collections import Counter
from datetime import UTC, datetime, timedelta

from hypothesis import given, settings
from hypothesis import strategies as st

from explorer.core.lexical import LexicalIndex, LexicalParams, tokens
from explorer.core.models import Chunk

WORDS = ("pepper", "puppy", "walks", "sailing", "boat", "painting", "paints", "the", "agility")
START = datetime(2024, 1, 1, tzinfo=UTC)


def _bm25(documents: list[list[str]], query: list[str], k1: float, b: float) -> list[float]:
    total = len(documents)
    average = (sum(len(d) for d in documents) / total) or 1.0
    frequency = Counter(term for document in documents for term in set(document))
    scores = [0.0] * total
    for term in dict.fromkeys(query):
        if term not in frequency:
            continue
        idf = math.log(1.0 + (total - frequency[term] + 0.5) / (frequency[term] + 0.5))
        for index, document in enumerate(documents):
            count = document.count(term)
            if count:
                norm = k1 * (1.0 - b + b * len(document) / average)
                scores[index] += idf * count * (k1 + 1.0) / (count + norm)
    return scores


def _scaled(values: list[float]) -> list[float]:
    best = max(values, default=0.0)
    return [value / best for value in values] if best > 0 else [0.0] * len(values)


def _reference(index: LexicalIndex, query: str) -> list[float]:
    """Own score, plus the best same-session neighbour's, plus the session's, each scaled."""
    params = index.params
    chunks = index.chunks
    documents = [tokens(f"{chunk.speaker} {chunk.text}") for chunk in chunks]
    sessions: list[int] = []
    for position, chunk in enumerate(chunks):
        previous = chunks[position - 1] if position else None
        fresh = (
            previous is None
            or previous.conversation_id != chunk.conversation_id
            or abs(chunk.timestamp - previous.timestamp) > params.session_gap
        )
        sessions.append((sessions[-1] + 1 if sessions else 0) if fresh else sessions[-1])
    terms = tokens(query)
    own = _scaled(_bm25(documents, terms, params.k1, params.b))
    session_documents = [
        [t for position, d in enumerate(documents) if sessions[position] == s for t in d]
        for s in range(max(sessions) + 1)
    ]
    by_session = _scaled(_bm25(session_documents, terms, params.k1, params.b))
    combined = []
    for position, value in enumerate(own):
        neighbours = [
            own[other]
            for other in (position - 1, position + 1)
            if 0 <= other < len(own) and sessions[other] == sessions[position]
        ]
        lift = params.neighbour_weight * max(neighbours, default=0.0)
        combined.append(value + lift + params.session_weight * by_session[sessions[position]])
    return _scaled(combined)


def _chunk(position: int, text: str, minutes: int, conversation: str) -> Chunk:
    return Chunk(
        id=f"{conversation}-{position}",
        text=text,
        conversation_id=conversation,
        position=position,
        speaker="Ana" if position % 2 else "Ben",
        timestamp=START + timedelta(minutes=minutes),
        scope="s",
    )


turns = st.lists(
    st.tuples(
        st.lists(st.sampled_from(WORDS), min_size=1, max_size=6).map(" ".join),
        st.integers(min_value=0, max_value=200),
        st.sampled_from(("c1", "c2")),
    ),
    min_size=1,
    max_size=25,
)


@settings(max_examples=150, deadline=None)
@given(turns, st.lists(st.sampled_from(WORDS), min_size=1, max_size=4).map(" ".join))
def test_scores_match_the_formula(rows: list[tuple[str, int, str]], query: str) -> None:
    index = LexicalIndex(
        [_chunk(i, text, minutes, conv) for i, (text, minutes, conv) in enumerate(rows)],
        LexicalParams(session_gap=timedelta(minutes=30)),
    )
    expected = _reference(index, query)
    found = index.scores(query)
    if found is None:
        assert max(expected, default=0.0) == 0.0
        return
    assert len(found) == len(expected)
    assert all(math.isclose(a, b, abs_tol=1e-9) for a, b in zip(found, expected, strict=True))
    ranked = index.search(query, 5)
    order = sorted(
        (position for position, value in enumerate(expected) if value > 0),
        key=lambda position: (-expected[position], position),
    )[:5]
    assert [chunk.id for chunk, _ in ranked] == [index.chunks[p].id for p in order]


def test_no_term_in_common_finds_nothing() -> None:
    index = LexicalIndex([_chunk(0, "pepper walks", 0, "c1")])
    assert index.search("sailing", 3) == []
    assert index.search("the", 3) == []
