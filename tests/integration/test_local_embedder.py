"""LocalEmbedder with the WordLlama weights bundled in the installed wheel (no network)."""

from __future__ import annotations

import asyncio
import math
import subprocess
import sys
import threading

import pytest

from explorer.adapters.local_embedder import LocalEmbedder
from explorer.core.errors import InvalidArgument
from explorer.core.models import EmbeddingSpec


def cosine(a: list[float], b: list[float]) -> float:
    return sum(x * y for x, y in zip(a, b, strict=True))


async def test_vectors_are_unit_length_of_the_declared_spec(embedder: LocalEmbedder) -> None:
    assert embedder.spec == EmbeddingSpec("wordllama-l2-supercat-256", 256)
    vectors = await embedder.embed(["The cat sat on the mat.", "   ", "!!!", "猫"])
    assert len(vectors) == 4
    for vector in vectors:
        assert len(vector) == 256
        assert math.sqrt(sum(v * v for v in vector)) == pytest.approx(1.0, abs=1e-6)


async def test_similar_texts_are_closer_and_batches_keep_order() -> None:
    embedder = LocalEmbedder(batch_size=2)
    texts = [
        "my cat loves sleeping on the sofa",
        "the kitten naps on the couch",
        "quarterly revenue grew in the finance report",
        "profits rose in the annual earnings statement",
        "the kitten naps on the couch",
    ]
    vectors = await embedder.embed(texts)
    assert cosine(vectors[0], vectors[1]) > cosine(vectors[0], vectors[2])
    assert cosine(vectors[2], vectors[3]) > cosine(vectors[1], vectors[3])
    assert vectors[4] == pytest.approx(vectors[1])
    (alone,) = await embedder.embed([texts[2]])
    assert alone == pytest.approx(vectors[2], abs=1e-6)


async def test_embedding_runs_off_the_event_loop() -> None:
    embedder = LocalEmbedder(batch_size=64)
    ticks = 0

    async def ticker() -> None:
        nonlocal ticks
        while True:
            ticks += 1
            await asyncio.sleep(0.001)

    running = asyncio.create_task(ticker())
    try:
        await embedder.embed(["a long enough sentence to take a moment " * 20] * 3000)
    finally:
        running.cancel()
    assert ticks > 5


async def test_a_short_query_is_embedded_in_place_once_the_model_is_loaded() -> None:
    embedder = LocalEmbedder()
    threads: list[int] = []
    embed_batch = embedder._embed_batch

    def recorded(texts: list[str]) -> list[list[float]]:
        threads.append(threading.get_ident())
        return embed_batch(texts)

    embedder._embed_batch = recorded  # type: ignore[method-assign]
    first = await embedder.embed(["where does Maya live"])  # loads the model: a worker thread
    again = await embedder.embed(["where does Maya live"])
    await embedder.embed(["where does Maya live", "and Tomas"])  # a batch: a worker thread
    here = threading.get_ident()
    assert threads[0] != here and threads[1] == here and threads[2] != here
    assert first == again


async def test_bad_input_is_refused(embedder: LocalEmbedder) -> None:
    assert await embedder.embed([]) == []
    with pytest.raises(InvalidArgument):
        await embedder.embed("a bare string")
    with pytest.raises(InvalidArgument):
        await embedder.embed([""])
    with pytest.raises(InvalidArgument):
        await embedder.embed(["nul \x00 inside"])
    with pytest.raises(InvalidArgument):
        await embedder.embed(["ok", 3])  # type: ignore[list-item]


def test_embedders_load_one_model_even_when_they_start_at_once() -> None:
    # A fresh interpreter, so the package is imported here for the first time: embedders
    # warming up in several threads at once (the window's beside a first run's import) must
    # neither fail on each other's half-imported modules nor load the model twice.
    script = (
        "import threading\n"
        "from explorer.adapters.local_embedder import LocalEmbedder\n"
        "embedders = [LocalEmbedder() for _ in range(4)]\n"
        "errors = []\n"
        "def warm(e):\n"
        "    try:\n"
        "        e.warm_up()\n"
        "    except Exception as error:\n"
        "        errors.append(error)\n"
        "threads = [threading.Thread(target=warm, args=(e,)) for e in embedders]\n"
        "for t in threads: t.start()\n"
        "for t in threads: t.join()\n"
        "assert not errors, errors\n"
        "assert len({id(e._load()) for e in embedders}) == 1\n"
        "print('ok')\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=120, check=False
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "ok"
