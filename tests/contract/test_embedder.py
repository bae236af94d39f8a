"""The ``Embedder`` contract, for the fake and for the bundled WordLlama model."""

from __future__ import annotations

import math

from explorer.core.ports import Embedder


async def test_one_unit_vector_per_text_of_the_declared_dimension(embedder_impl: Embedder) -> None:
    texts = ["We booked the ferry to Lisbon.", "Tomato seedlings need light.", "Lisbon ferry"]
    vectors = await embedder_impl.embed(texts)
    assert len(vectors) == len(texts)
    for vector in vectors:
        assert len(vector) == embedder_impl.spec.dimension
        assert math.isclose(math.sqrt(sum(v * v for v in vector)), 1.0, rel_tol=1e-3)
    assert await embedder_impl.embed([]) == []


async def test_the_same_text_gives_the_same_vector_and_related_texts_are_closer(
    embedder_impl: Embedder,
) -> None:
    ferry, seedlings, again = await embedder_impl.embed(
        ["We booked the ferry to Lisbon.", "Tomato seedlings need light.", "Lisbon ferry booked"]
    )
    (same,) = await embedder_impl.embed(["We booked the ferry to Lisbon."])
    assert all(math.isclose(a, b, abs_tol=1e-5) for a, b in zip(ferry, same, strict=True))

    def cosine(a: list[float], b: list[float]) -> float:
        return sum(x * y for x, y in zip(a, b, strict=True))

    assert cosine(ferry, again) > cosine(ferry, seedlings)
