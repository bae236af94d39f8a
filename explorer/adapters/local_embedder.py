"""Offline text embeddings: ``LocalEmbedder`` implements ``core.ports.Embedder`` with WordLlama.

The 256-dimension ``l2_supercat`` weights and tokenizer ship inside the ``wordllama`` wheel, so
the model is loaded from the installed package with downloads disabled: nothing is fetched at run
time. The model loads once, lazily and under a lock, in a worker thread; texts are embedded in
batches, each batch in the executor so the event loop (and the GUI on it) never stalls (a single
short query, once the model is loaded, is embedded in place: it costs less than the handoff), and
vectors are normalised to unit length here because the library's own normalisation divides by
zero on an empty text. Imports the core, ``adapters.sanitize``, ``numpy`` and ``wordllama``.
"""

from __future__ import annotations

import asyncio
import logging
import threading
from collections.abc import Sequence
from concurrent.futures import Executor
from importlib.resources import files
from pathlib import Path
from typing import Any

import numpy as np

from explorer.adapters import sanitize
from explorer.core.errors import InvalidArgument
from explorer.core.models import EmbeddingSpec

MODEL_NAME = "wordllama-l2-supercat-256"
DIMENSION = 256
BATCH_SIZE = 256
MAX_TEXTS = 1_000_000
MAX_TEXT_CHARS = 200_000
#: A single text up to this long is embedded on the caller's loop once the model is loaded.
INLINE_CHARS = 2_000


class LocalEmbedder:
    """Unit-length WordLlama vectors of ``spec`` (``wordllama-l2-supercat-256``, 256)."""

    def __init__(self, *, batch_size: int = BATCH_SIZE, executor: Executor | None = None) -> None:
        self._batch_size = sanitize.plain_int(batch_size, "batch_size", low=1, high=10_000)
        self._executor = executor
        self._model: Any = None

    @property
    def spec(self) -> EmbeddingSpec:
        return EmbeddingSpec(MODEL_NAME, DIMENSION)

    async def embed(self, texts: Sequence[str]) -> list[list[float]]:
        """One unit vector per text, in order; an empty text is an ``InvalidArgument``."""
        plain = sanitize.plain_strings(
            texts, "texts", max_items=MAX_TEXTS, max_chars=MAX_TEXT_CHARS
        )
        for index, text in enumerate(plain):
            if not text:
                raise InvalidArgument(f"texts[{index}] is empty; an empty text has no meaning")
        if self._model is not None and len(plain) == 1 and len(plain[0]) <= INLINE_CHARS:
            # A query takes a fraction of a millisecond once the model is loaded; handing it to
            # a worker thread and back costs more than that, on every query.
            return self._embed_batch(plain)
        loop = asyncio.get_running_loop()
        vectors: list[list[float]] = []
        for start in range(0, len(plain), self._batch_size):
            batch = plain[start : start + self._batch_size]
            vectors.extend(await loop.run_in_executor(self._executor, self._embed_batch, batch))
        return vectors

    def warm_up(self) -> None:
        """Load the model now (blocking); call it from a worker thread."""
        self._load()

    def _embed_batch(self, texts: list[str]) -> list[list[float]]:
        model = self._load()
        raw = np.asarray(model.embed(texts, norm=False, batch_size=len(texts)), dtype=np.float64)
        norms = np.linalg.norm(raw, axis=1, keepdims=True)
        if not np.all(norms > 0):
            raise InvalidArgument("a text has no embedding (it holds no known token)")
        unit: list[list[float]] = (raw / norms).tolist()
        return unit

    def _load(self) -> Any:
        if self._model is None:
            self._model = _shared_model()
        return self._model


_MODEL_LOCK = threading.Lock()
_model: Any = None


def _shared_model() -> Any:
    """The one loaded model of the process, loaded by the first embedder that needs it.

    One lock for every embedder: two threads importing the package at once (the window's
    warm-up beside a first-run import's own embedder) could each see the other's half-made
    modules ("cannot import name ... from partially initialized module"), and the model is
    the same for all of them.
    """
    global _model
    with _MODEL_LOCK:
        if _model is None:
            WordLlama = _import_quietly()
            # The weights ship inside the wheel (and the bundle); find them as its resources.
            package_dir = Path(str(files("wordllama")))
            _model = WordLlama.load(
                config="l2_supercat",
                dim=DIMENSION,
                cache_dir=package_dir,
                disable_download=True,
            )
        return _model


def _import_quietly() -> Any:
    """``wordllama.WordLlama``, without what importing it does to the caller's logging.

    The package calls ``logging.basicConfig(level=INFO)`` at import, which would give any
    program using this library a stderr handler printing every info line (audit lines with
    query text among them); the root logger is put back as it was.
    """
    root = logging.getLogger()
    handlers, level = list(root.handlers), root.level
    try:
        from wordllama import WordLlama
    finally:
        for handler in root.handlers[:]:
            if handler not in handlers:
                root.removeHandler(handler)
        root.setLevel(level)
    return WordLlama
