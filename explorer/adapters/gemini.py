"""Gemini through ``google-genai``: an embedder, a pool of same-model embedders, JSON generation.

``GeminiEmbedder`` implements the ``Embedder`` port; ``EmbedderPool`` spreads any embedders of one
model and dimension over several endpoints or keys; ``GeminiJsonModel`` asks a Gemini model for a
JSON answer constrained by a schema (the ingest extractor builds on it). Every call is retried with
exponential backoff and jitter on rate limits, server errors and transport failures, for a bounded
number of attempts, honouring the service's Retry-After; a refused key fails at once. The API key
is held privately and never logged nor put in a message. Imports ``google.genai``, the standard
library, the project's core, and lazily ``keyring`` and the HTTP libraries genai may use (only to
recognise their transport errors).
"""

from __future__ import annotations

import asyncio
import email.utils
import importlib
import json
import logging
import math
import random
import re
import time
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

from google import genai
from google.genai import errors as genai_errors
from google.genai import types as genai_types

from explorer.core.errors import (
    CredentialsRejected,
    EmbeddingMismatch,
    InvalidArgument,
    ModelServiceError,
    ModelServiceUnavailable,
    StoreUnavailable,
)
from explorer.core.models import EmbeddingSpec
from explorer.core.ports import Embedder
from explorer.settings import KEYRING_SERVICE, KEYRING_USER, stored_gemini_key

log = logging.getLogger(__name__)

DEFAULT_EMBEDDING_MODEL = "gemini-embedding-001"
DEFAULT_EMBEDDING_DIMENSION = 768
DEFAULT_GENERATION_MODEL = "gemini-2.5-flash"
DEFAULT_API_VERSION = "v1beta"
# The service refuses a batchEmbedContents call with more requests than this.
MAX_BATCH = 100
KEY_ENV_VARS = ("GEMINI_API_KEY", "GOOGLE_API_KEY")

_RETRYABLE_STATUS = frozenset({408, 429, 500, 502, 503, 504})
_CREDENTIAL_STATUS = frozenset({401, 403})
# A bad key comes back as 400 INVALID_ARGUMENT; only this structured reason tells it apart.
_BAD_KEY_REASONS = frozenset({"API_KEY_INVALID", "API_KEY_SERVICE_BLOCKED"})
_REDACTED = "<redacted>"

T = TypeVar("T")


def load_gemini_key(
    env: Mapping[str, str],
    keyring_lookup: Callable[[], str | None] | None = None,
) -> str | None:
    """The Gemini API key from the environment, else from the OS keyring, else ``None``.

    ``env`` is the environment as read once by the caller's settings. The keyring entry is service
    ``scour-explorer``, user ``gemini``; a machine without a usable keyring counts as no key.
    """
    for name in KEY_ENV_VARS:
        value = env.get(name, "").strip()
        if value:
            return value
    lookup = keyring_lookup if keyring_lookup is not None else stored_gemini_key
    stored = (lookup() or "").strip()
    return stored or None


@dataclass(frozen=True, slots=True)
class RetryPolicy:
    """How often and how patiently a failed call is tried again.

    ``attempts`` counts the first call. The wait before retry ``n`` (from 0) is
    ``min(max_delay, base_delay * 2**n)`` shortened by up to ``jitter`` of itself at random, and
    never shorter than the service's Retry-After (itself capped at ``max_delay``).
    """

    attempts: int = 5
    base_delay: float = 0.5
    max_delay: float = 30.0
    jitter: float = 0.5

    def __post_init__(self) -> None:
        if self.attempts < 1:
            raise InvalidArgument("a retry policy needs at least one attempt")
        if self.base_delay < 0 or self.max_delay < 0 or not 0 <= self.jitter <= 1:
            raise InvalidArgument("retry delays must be non-negative and jitter within [0, 1]")

    def delay(self, retry: int, retry_after: float | None, rng: random.Random) -> float:
        """Seconds to wait before retry number ``retry`` (0 for the first retry)."""
        backoff = min(self.max_delay, self.base_delay * 2.0**retry)
        wait = backoff * (1.0 - self.jitter * rng.random())
        if retry_after is not None:
            wait = max(wait, min(retry_after, self.max_delay))
        return wait


def _transport_errors() -> tuple[type[BaseException], ...]:
    # google-genai moved from httpx to its fork httpx2; accept whichever is installed.
    found: list[type[BaseException]] = [OSError, asyncio.TimeoutError]
    for module_name in ("httpx2", "httpx", "aiohttp"):
        try:
            module = importlib.import_module(module_name)
        except ImportError:
            continue
        for class_name in ("TransportError", "ClientError"):
            cls = getattr(module, class_name, None)
            if isinstance(cls, type) and issubclass(cls, BaseException):
                found.append(cls)
    return tuple(found)


_TRANSPORT_ERRORS = _transport_errors()


def _redact(text: str, secret: str) -> str:
    return text.replace(secret, _REDACTED) if secret else text


def _error_body(exc: genai_errors.APIError) -> dict[str, Any]:
    details: Any = exc.details
    if isinstance(details, list) and details:
        details = details[0]
    if isinstance(details, dict):
        inner = details.get("error")
        return inner if isinstance(inner, dict) else details
    return {}


def _detail_items(exc: genai_errors.APIError) -> list[dict[str, Any]]:
    items = _error_body(exc).get("details")
    return [item for item in items if isinstance(item, dict)] if isinstance(items, list) else []


def _is_bad_key(exc: genai_errors.APIError) -> bool:
    if exc.code in _CREDENTIAL_STATUS:
        return True
    return exc.code == 400 and any(
        item.get("reason") in _BAD_KEY_REASONS for item in _detail_items(exc)
    )


_DURATION = re.compile(r"^\s*(\d+(?:\.\d+)?)s\s*$")


def _retry_after(exc: genai_errors.APIError) -> float | None:
    """The wait the service asked for: the Retry-After header, else a RetryInfo detail."""
    headers = getattr(getattr(exc, "response", None), "headers", None)
    header = headers.get("retry-after") if headers is not None else None
    if isinstance(header, str) and header.strip():
        seconds = _parse_retry_after(header.strip())
        if seconds is not None:
            return seconds
    for item in _detail_items(exc):
        delay = item.get("retryDelay")
        if isinstance(delay, str) and (match := _DURATION.match(delay)):
            return float(match.group(1))
    return None


def _parse_retry_after(value: str) -> float | None:
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        moment = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return max(0.0, moment.timestamp() - time.time())


class _GeminiConnection:
    """One ``genai.Client`` with its key, retry policy and error translation."""

    def __init__(
        self,
        api_key: str,
        *,
        base_url: str | None,
        api_version: str,
        timeout_s: float,
        retry: RetryPolicy,
        rng: random.Random | None,
    ) -> None:
        if not api_key or not api_key.strip():
            raise InvalidArgument(
                "no Gemini API key: set GEMINI_API_KEY or store one in the OS keyring "
                f"(service {KEYRING_SERVICE!r}, user {KEYRING_USER!r})"
            )
        if timeout_s <= 0:
            raise InvalidArgument("the Gemini request timeout must be positive")
        self._key = api_key.strip()
        self.endpoint = base_url or "https://generativelanguage.googleapis.com"
        self._retry = retry
        self._rng = rng if rng is not None else random.Random()
        self._client = genai.Client(
            api_key=self._key,
            vertexai=False,
            http_options=genai_types.HttpOptions(
                base_url=base_url,
                api_version=api_version,
                timeout=max(1, round(timeout_s * 1000)),
            ),
        )
        self.closed = False

    @property
    def aio_models(self) -> Any:
        return self._client.aio.models

    async def call(self, what: str, operation: Callable[[], Awaitable[T]]) -> T:
        """Run ``operation``, retrying transient failures; raise the project's errors."""
        if self.closed:
            raise ModelServiceError(f"{what}: the Gemini client is closed")
        attempts = self._retry.attempts
        for attempt in range(attempts):
            retry_after: float | None = None
            try:
                return await operation()
            except genai_errors.APIError as exc:
                reason = self._describe(exc)
                if _is_bad_key(exc):
                    raise CredentialsRejected(
                        f"{what}: Gemini refused the API key ({reason}); check the key in "
                        "GEMINI_API_KEY or the OS keyring"
                    ) from None
                if exc.code not in _RETRYABLE_STATUS:
                    raise ModelServiceError(
                        f"{what}: Gemini rejected the request ({reason})"
                    ) from None
                if attempt + 1 == attempts:
                    raise ModelServiceUnavailable(
                        f"{what}: Gemini still failing after {attempts} attempts ({reason})"
                    ) from None
                retry_after = _retry_after(exc)
            except _TRANSPORT_ERRORS as exc:
                reason = _redact(f"{type(exc).__name__}: {exc}", self._key)
                if attempt + 1 == attempts:
                    raise ModelServiceUnavailable(
                        f"{what}: Gemini at {self.endpoint} unreachable after {attempts} "
                        f"attempts ({reason})"
                    ) from None
            delay = self._retry.delay(attempt, retry_after, self._rng)
            log.warning(
                "%s: Gemini call failed (%s); retry %d of %d in %.2f s",
                what,
                reason,
                attempt + 1,
                attempts - 1,
                delay,
            )
            await asyncio.sleep(delay)
        raise AssertionError("unreachable: the loop returns or raises")  # pragma: no cover

    def _describe(self, exc: genai_errors.APIError) -> str:
        body = _error_body(exc)
        message = body.get("message") if isinstance(body.get("message"), str) else exc.message
        parts = [str(exc.code), str(exc.status or ""), str(message or "")]
        return _redact(" ".join(part for part in parts if part), self._key)

    async def aclose(self) -> None:
        if self.closed:
            return
        self.closed = True
        await self._client.aio.aclose()
        self._client.close()


async def _gather_or_cancel(coroutines: Sequence[Awaitable[T]]) -> list[T]:
    """Like ``asyncio.gather``, but a failure cancels and awaits the siblings still running."""
    tasks = [asyncio.ensure_future(coroutine) for coroutine in coroutines]
    try:
        return list(await asyncio.gather(*tasks))
    except BaseException:
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        raise


def _normalised(values: Sequence[float]) -> list[float]:
    norm = math.sqrt(math.fsum(value * value for value in values))
    if norm == 0.0:
        return [0.0] * len(values)
    return [value / norm for value in values]


def _batches(texts: Sequence[str], size: int) -> list[Sequence[str]]:
    return [texts[start : start + size] for start in range(0, len(texts), size)]


class GeminiEmbedder:
    """The ``Embedder`` port over Gemini's batch embedding endpoint; vectors are unit length."""

    def __init__(
        self,
        api_key: str,
        *,
        model: str = DEFAULT_EMBEDDING_MODEL,
        dimension: int = DEFAULT_EMBEDDING_DIMENSION,
        base_url: str | None = None,
        api_version: str = DEFAULT_API_VERSION,
        timeout_s: float = 30.0,
        batch_size: int = MAX_BATCH,
        max_concurrency: int = 4,
        task_type: str | None = None,
        retry: RetryPolicy | None = None,
        rng: random.Random | None = None,
    ) -> None:
        if not 1 <= batch_size <= MAX_BATCH:
            raise InvalidArgument(f"Gemini embeds 1 to {MAX_BATCH} texts per request")
        if dimension < 1:
            raise InvalidArgument("an embedding dimension must be positive")
        if max_concurrency < 1:
            raise InvalidArgument("max_concurrency must be at least 1")
        self._connection = _GeminiConnection(
            api_key,
            base_url=base_url,
            api_version=api_version,
            timeout_s=timeout_s,
            retry=retry if retry is not None else RetryPolicy(),
            rng=rng,
        )
        self._spec = EmbeddingSpec(model=model, dimension=dimension)
        self._batch_size = batch_size
        self._task_type = task_type
        self._slots = asyncio.Semaphore(max_concurrency)

    def __repr__(self) -> str:
        return (
            f"GeminiEmbedder(model={self._spec.model!r}, dimension={self._spec.dimension}, "
            f"endpoint={self._connection.endpoint!r})"
        )

    @property
    def spec(self) -> EmbeddingSpec:
        return self._spec

    @property
    def endpoint(self) -> str:
        return self._connection.endpoint

    async def embed(self, texts: Sequence[str]) -> list[list[float]]:
        if not texts:
            return []
        batches = _batches(texts, self._batch_size)
        results = await _gather_or_cancel([self._embed_batch(batch) for batch in batches])
        return [vector for batch in results for vector in batch]

    async def _embed_batch(self, texts: Sequence[str]) -> list[list[float]]:
        config = genai_types.EmbedContentConfig(
            output_dimensionality=self._spec.dimension, task_type=self._task_type
        )

        async def request() -> genai_types.EmbedContentResponse:
            response: genai_types.EmbedContentResponse = (
                await self._connection.aio_models.embed_content(
                    model=self._spec.model, contents=list(texts), config=config
                )
            )
            return response

        async with self._slots:
            response = await self._connection.call(f"embed {len(texts)} texts", request)
        embeddings = response.embeddings or []
        if len(embeddings) != len(texts):
            raise ModelServiceError(
                f"Gemini returned {len(embeddings)} embeddings for {len(texts)} texts"
            )
        vectors: list[list[float]] = []
        for embedding in embeddings:
            values = embedding.values or []
            if len(values) != self._spec.dimension:
                raise EmbeddingMismatch(
                    f"Gemini model {self._spec.model!r} returned {len(values)}-dimensional "
                    f"vectors, expected {self._spec.dimension}"
                )
            vectors.append(_normalised(values))
        return vectors

    async def aclose(self) -> None:
        """Close the HTTP connections; later calls raise ``ModelServiceError``."""
        await self._connection.aclose()


class EmbedderPool:
    """Several embedders of one model and dimension used as one, spreading batches over them.

    Each batch goes to the member with the fewest texts in flight, ties broken round-robin, so idle
    members take turns. A member that fails with a transport error (``StoreUnavailable``) hands its
    batch to the next member; a contract error (a refused key, a bad request) propagates. Members
    of different models or dimensions are refused at construction: stored and query vectors must
    come from one model.
    """

    def __init__(self, members: Sequence[Embedder], *, batch_size: int = MAX_BATCH) -> None:
        if not members:
            raise InvalidArgument("an embedder pool needs at least one member")
        if batch_size < 1:
            raise InvalidArgument("the pool's batch size must be positive")
        specs = {member.spec for member in members}
        if len(specs) > 1:
            listed = ", ".join(
                sorted(f"{spec.model} ({spec.dimension} dimensions)" for spec in specs)
            )
            raise EmbeddingMismatch(
                f"an embedder pool cannot mix models or dimensions: {listed}; stored and query "
                "vectors must come from one model"
            )
        self._members = list(members)
        self._spec = self._members[0].spec
        self._batch_size = batch_size
        self._in_flight = [0] * len(self._members)
        self._next = 0

    @property
    def spec(self) -> EmbeddingSpec:
        return self._spec

    @property
    def members(self) -> tuple[Embedder, ...]:
        return tuple(self._members)

    def in_flight(self) -> tuple[int, ...]:
        """Texts each member is embedding right now, in member order."""
        return tuple(self._in_flight)

    async def embed(self, texts: Sequence[str]) -> list[list[float]]:
        if not texts:
            return []
        batches = _batches(texts, self._batch_size)
        results = await _gather_or_cancel([self._embed_batch(batch) for batch in batches])
        return [vector for batch in results for vector in batch]

    def _pick(self, exclude: set[int]) -> int:
        count = len(self._members)
        rotation = [(self._next + step) % count for step in range(count)]
        candidates = [index for index in rotation if index not in exclude]
        chosen = min(candidates, key=self._in_flight.__getitem__)
        self._next = (chosen + 1) % count
        return chosen

    async def _embed_batch(self, texts: Sequence[str]) -> list[list[float]]:
        tried: set[int] = set()
        while True:
            index = self._pick(tried)
            tried.add(index)
            self._in_flight[index] += len(texts)
            try:
                return await self._members[index].embed(texts)
            except StoreUnavailable as exc:
                if len(tried) == len(self._members):
                    raise
                log.warning("embedder %d of the pool failed (%s); trying another", index, exc)
            finally:
                self._in_flight[index] -= len(texts)

    async def aclose(self) -> None:
        """Close every member that can be closed."""
        for member in self._members:
            closer = getattr(member, "aclose", None)
            if closer is not None:
                await closer()


class GeminiJsonModel:
    """Asks a Gemini model for JSON that follows a given JSON schema (structured output)."""

    def __init__(
        self,
        api_key: str,
        *,
        model: str = DEFAULT_GENERATION_MODEL,
        base_url: str | None = None,
        api_version: str = DEFAULT_API_VERSION,
        timeout_s: float = 120.0,
        temperature: float = 0.0,
        retry: RetryPolicy | None = None,
        rng: random.Random | None = None,
    ) -> None:
        self._connection = _GeminiConnection(
            api_key,
            base_url=base_url,
            api_version=api_version,
            timeout_s=timeout_s,
            retry=retry if retry is not None else RetryPolicy(),
            rng=rng,
        )
        self._model = model
        self._temperature = temperature

    def __repr__(self) -> str:
        return f"GeminiJsonModel(model={self._model!r}, endpoint={self._connection.endpoint!r})"

    @property
    def model(self) -> str:
        return self._model

    async def generate_json(
        self,
        prompt: str,
        schema: Mapping[str, object],
        *,
        instructions: str | None = None,
    ) -> object:
        """The model's answer to ``prompt``, parsed from JSON that follows ``schema``.

        Raises ``ModelServiceError`` when the answer is missing (blocked) or is not JSON.
        """
        config = genai_types.GenerateContentConfig(
            system_instruction=instructions,
            temperature=self._temperature,
            response_mime_type="application/json",
            response_json_schema=dict(schema),
        )

        async def request() -> genai_types.GenerateContentResponse:
            response: genai_types.GenerateContentResponse = (
                await self._connection.aio_models.generate_content(
                    model=self._model, contents=prompt, config=config
                )
            )
            return response

        response = await self._connection.call("generate JSON", request)
        text = response.text
        if not text:
            raise ModelServiceError(f"Gemini gave no answer ({_why_empty(response)})")
        try:
            parsed: object = json.loads(text)
        except json.JSONDecodeError as exc:
            raise ModelServiceError(
                f"Gemini answered with text that is not JSON (at character {exc.pos})"
            ) from None
        return parsed

    async def aclose(self) -> None:
        await self._connection.aclose()


def _why_empty(response: genai_types.GenerateContentResponse) -> str:
    feedback = response.prompt_feedback
    if feedback is not None and feedback.block_reason is not None:
        return f"prompt blocked: {feedback.block_reason}"
    if response.candidates:
        reason = response.candidates[0].finish_reason
        if reason is not None:
            return f"finish reason {reason}"
    return "empty response"
