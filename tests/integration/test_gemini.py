"""The Gemini adapters against a local stub of the Gemini REST API (no internet needed).

The stub is a stdlib HTTP server in a thread that answers the paths ``google-genai`` calls
(``/v1beta/models/{model}:batchEmbedContents`` and ``:generateContent``), records every request,
and can be scripted to fail the next calls with a given status.
"""

from __future__ import annotations

import hashlib
import json
import logging
import random
import re
import socket
import threading
import time
from collections import deque
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest

from explorer.adapters.gemini import (
    EmbedderPool,
    GeminiEmbedder,
    GeminiJsonModel,
    RetryPolicy,
    load_gemini_key,
)
from explorer.core.errors import (
    CredentialsRejected,
    EmbeddingMismatch,
    InvalidArgument,
    ModelServiceError,
    ModelServiceUnavailable,
    StoreUnavailable,
)
from explorer.core.models import Chunk, EmbeddingSpec, MemoryLayer
from explorer.ingest import ids
from explorer.ingest.gemini_extractor import EXTRACTION_SCHEMA, GeminiExtractor

KEY = "AIzaStubSecretKey-0123456789abcdef"
FAST = RetryPolicy(attempts=4, base_delay=0.001, max_delay=0.01)
PATH = re.compile(r"^/v1beta/models/(?P<model>[^:/]+):(?P<method>[A-Za-z]+)$")


def stub_vector(text: str, dimension: int) -> list[float]:
    """Deterministic, deliberately not unit-length, different for every text."""
    digest = hashlib.sha256(text.encode()).digest()
    return [float(digest[i % len(digest)]) - 127.5 for i in range(dimension)]


def unit(values: list[float]) -> list[float]:
    norm = sum(v * v for v in values) ** 0.5
    return [v / norm for v in values]


@dataclass
class Reply:
    status: int
    body: dict[str, Any]
    headers: dict[str, str] = field(default_factory=dict)


@dataclass
class Recorded:
    model: str
    method: str
    headers: dict[str, str]
    body: dict[str, Any]


def error_body(code: int, status: str, message: str, details: list[Any] | None = None) -> Reply:
    error: dict[str, Any] = {"code": code, "message": message, "status": status}
    if details is not None:
        error["details"] = details
    return Reply(code, {"error": error})


class GeminiStub:
    """A scripted fake of the Gemini API's REST surface."""

    def __init__(self) -> None:
        self.requests: list[Recorded] = []
        self.script: deque[Reply] = deque()
        self.always: Reply | None = None
        self.generated_text = "{}"
        self.dimension_override: int | None = None
        self._lock = threading.Lock()
        stub = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length", "0"))
                body = json.loads(self.rfile.read(length) or b"{}")
                reply = stub.handle(self.path, dict(self.headers), body)
                payload = json.dumps(reply.body).encode()
                self.send_response(reply.status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(payload)))
                for name, value in reply.headers.items():
                    self.send_header(name, value)
                self.end_headers()
                self.wfile.write(payload)

            def log_message(self, format: str, *args: Any) -> None:
                return

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.thread = threading.Thread(
            target=self.server.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True
        )

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server.server_port}"

    def handle(self, path: str, headers: dict[str, str], body: dict[str, Any]) -> Reply:
        match = PATH.match(path)
        if match is None:
            return error_body(404, "NOT_FOUND", f"no such path {path}")
        with self._lock:
            self.requests.append(Recorded(match["model"], match["method"], headers, body))
            scripted = self.script.popleft() if self.script else self.always
        if scripted is not None:
            return scripted
        if headers.get("x-goog-api-key") != KEY:
            return error_body(
                400,
                "INVALID_ARGUMENT",
                "API key not valid. Please pass a valid API key.",
                [
                    {
                        "@type": "type.googleapis.com/google.rpc.ErrorInfo",
                        "reason": "API_KEY_INVALID",
                    }
                ],
            )
        if match["method"] == "batchEmbedContents":
            embeddings = []
            for request in body["requests"]:
                dimension = self.dimension_override or request.get("outputDimensionality", 8)
                text = "".join(part["text"] for part in request["content"]["parts"])
                embeddings.append({"values": stub_vector(text, dimension)})
            return Reply(200, {"embeddings": embeddings})
        if match["method"] == "generateContent":
            content = {"role": "model", "parts": [{"text": self.generated_text}]}
            return Reply(200, {"candidates": [{"content": content, "finishReason": "STOP"}]})
        return error_body(404, "NOT_FOUND", f"unknown method {match['method']}")

    def embed_batch_sizes(self) -> list[int]:
        return [len(r.body["requests"]) for r in self.requests if r.method == "batchEmbedContents"]


@pytest.fixture
def stub() -> Iterator[GeminiStub]:
    server = GeminiStub()
    server.thread.start()
    yield server
    server.server.shutdown()
    server.server.server_close()
    server.thread.join(timeout=5)


@pytest.fixture
def second_stub() -> Iterator[GeminiStub]:
    server = GeminiStub()
    server.thread.start()
    yield server
    server.server.shutdown()
    server.server.server_close()
    server.thread.join(timeout=5)


def embedder(stub: GeminiStub, **options: Any) -> GeminiEmbedder:
    settings: dict[str, Any] = {"dimension": 8, "retry": FAST, "rng": random.Random(1)}
    settings.update(options)
    return GeminiEmbedder(KEY, base_url=stub.url, **settings)


async def test_embeddings_are_batched_ordered_and_unit_length(stub: GeminiStub) -> None:
    gemini = embedder(stub, batch_size=100)
    texts = [f"memory number {i}" for i in range(250)]
    try:
        vectors = await gemini.embed(texts)
    finally:
        await gemini.aclose()
    assert sorted(stub.embed_batch_sizes()) == [50, 100, 100]
    assert len(vectors) == 250
    for text, vector in zip(texts, vectors, strict=True):
        assert vector == pytest.approx(unit(stub_vector(text, 8)))
        assert sum(v * v for v in vector) == pytest.approx(1.0)
    first = stub.requests[0]
    assert first.model == "gemini-embedding-001"
    assert first.body["requests"][0]["outputDimensionality"] == 8
    assert gemini.spec == EmbeddingSpec("gemini-embedding-001", 8)


async def test_no_texts_means_no_request(stub: GeminiStub) -> None:
    gemini = embedder(stub)
    assert await gemini.embed([]) == []
    await gemini.aclose()
    assert stub.requests == []


async def test_a_429_is_retried_then_succeeds(stub: GeminiStub) -> None:
    stub.script.append(error_body(429, "RESOURCE_EXHAUSTED", "quota"))
    gemini = embedder(stub)
    vectors = await gemini.embed(["alpha"])
    await gemini.aclose()
    assert len(stub.requests) == 2
    assert vectors[0] == pytest.approx(unit(stub_vector("alpha", 8)))


async def test_server_errors_are_retried_then_succeed(stub: GeminiStub) -> None:
    stub.script.extend(
        [error_body(500, "INTERNAL", "boom"), error_body(503, "UNAVAILABLE", "overloaded")]
    )
    gemini = embedder(stub)
    vectors = await gemini.embed(["alpha", "beta"])
    await gemini.aclose()
    assert len(stub.requests) == 3
    assert len(vectors) == 2


async def test_persistent_429_gives_a_clear_error_after_the_attempts(
    stub: GeminiStub, caplog: pytest.LogCaptureFixture
) -> None:
    stub.always = error_body(429, "RESOURCE_EXHAUSTED", "quota exceeded")
    gemini = embedder(stub, retry=RetryPolicy(attempts=3, base_delay=0.001, max_delay=0.01))
    with caplog.at_level(logging.WARNING), pytest.raises(ModelServiceUnavailable) as raised:
        await gemini.embed(["alpha"])
    await gemini.aclose()
    assert len(stub.requests) == 3
    assert "after 3 attempts" in str(raised.value)
    assert "429" in str(raised.value)
    assert isinstance(raised.value, StoreUnavailable)
    assert len([r for r in caplog.records if "retry" in r.getMessage()]) == 2


async def test_retry_after_is_honoured(stub: GeminiStub) -> None:
    throttled = error_body(429, "RESOURCE_EXHAUSTED", "slow down")
    throttled.headers["Retry-After"] = "1"
    stub.script.append(throttled)
    gemini = embedder(stub)
    started = time.monotonic()
    await gemini.embed(["alpha"])
    elapsed = time.monotonic() - started
    await gemini.aclose()
    assert len(stub.requests) == 2
    # FAST caps waits at 10 ms, and the Retry-After cap is the policy's max_delay...
    assert elapsed < 1.0
    patient = embedder(stub, retry=RetryPolicy(attempts=2, base_delay=0.001, max_delay=5.0))
    stub.script.append(throttled)
    started = time.monotonic()
    await patient.embed(["beta"])
    elapsed = time.monotonic() - started
    await patient.aclose()
    # ...so with room for it, the one-second Retry-After is waited out in full.
    assert elapsed >= 0.95


@pytest.mark.parametrize(
    "reply",
    [
        error_body(
            400,
            "INVALID_ARGUMENT",
            "API key not valid. Please pass a valid API key.",
            [{"@type": "type.googleapis.com/google.rpc.ErrorInfo", "reason": "API_KEY_INVALID"}],
        ),
        error_body(403, "PERMISSION_DENIED", "Method doesn't allow unregistered callers."),
        error_body(401, "UNAUTHENTICATED", f"bad credentials {KEY}"),
    ],
    ids=["400-api-key-invalid", "403", "401-echoing-the-key"],
)
async def test_a_refused_key_fails_at_once_and_the_key_never_shows(
    stub: GeminiStub, caplog: pytest.LogCaptureFixture, reply: Reply
) -> None:
    stub.always = reply
    gemini = embedder(stub)
    with caplog.at_level(logging.DEBUG), pytest.raises(CredentialsRejected) as raised:
        await gemini.embed(["alpha"])
    await gemini.aclose()
    assert len(stub.requests) == 1
    assert stub.requests[0].headers["x-goog-api-key"] == KEY  # the stub did see it
    error = raised.value
    assert "refused the API key" in str(error)
    assert KEY not in str(error)
    assert KEY not in repr(error)
    assert error.__cause__ is None and error.__suppress_context__
    assert KEY not in caplog.text
    assert KEY not in repr(gemini)


async def test_a_wrong_key_against_the_stub_is_rejected(stub: GeminiStub) -> None:
    gemini = GeminiEmbedder("not-the-key", base_url=stub.url, dimension=8, retry=FAST)
    with pytest.raises(CredentialsRejected):
        await gemini.embed(["alpha"])
    await gemini.aclose()
    assert len(stub.requests) == 1


async def test_other_client_errors_are_not_retried(stub: GeminiStub) -> None:
    stub.always = error_body(404, "NOT_FOUND", "models/nope is not found")
    gemini = embedder(stub, model="nope")
    with pytest.raises(ModelServiceError) as raised:
        await gemini.embed(["alpha"])
    await gemini.aclose()
    assert not isinstance(raised.value, (ModelServiceUnavailable, CredentialsRejected))
    assert "not found" in str(raised.value)
    assert len(stub.requests) == 1


async def test_an_unreachable_endpoint_is_unavailable_after_retries() -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    gemini = GeminiEmbedder(
        KEY,
        base_url=f"http://127.0.0.1:{port}",
        dimension=8,
        retry=RetryPolicy(attempts=2, base_delay=0.001, max_delay=0.01),
    )
    with pytest.raises(ModelServiceUnavailable) as raised:
        await gemini.embed(["alpha"])
    await gemini.aclose()
    assert "unreachable after 2 attempts" in str(raised.value)
    assert KEY not in str(raised.value)


async def test_vectors_of_the_wrong_dimension_are_refused(stub: GeminiStub) -> None:
    stub.dimension_override = 16
    gemini = embedder(stub)
    with pytest.raises(EmbeddingMismatch):
        await gemini.embed(["alpha"])
    await gemini.aclose()


def test_batch_size_above_the_service_limit_is_refused(stub: GeminiStub) -> None:
    with pytest.raises(InvalidArgument):
        GeminiEmbedder(KEY, base_url=stub.url, batch_size=101)
    with pytest.raises(InvalidArgument):
        GeminiEmbedder("  ", base_url=stub.url)


async def test_pool_spreads_batches_round_robin_over_two_endpoints(
    stub: GeminiStub, second_stub: GeminiStub
) -> None:
    pool = EmbedderPool([embedder(stub), embedder(second_stub)], batch_size=100)
    texts = [f"text {i}" for i in range(400)]
    vectors = await pool.embed(texts)
    await pool.aclose()
    assert stub.embed_batch_sizes() == [100, 100]
    assert second_stub.embed_batch_sizes() == [100, 100]
    assert vectors[399] == pytest.approx(unit(stub_vector("text 399", 8)))
    assert pool.in_flight() == (0, 0)


async def test_pool_hands_a_batch_to_another_member_when_one_is_down(
    stub: GeminiStub, second_stub: GeminiStub
) -> None:
    stub.always = error_body(503, "UNAVAILABLE", "down")
    broken = embedder(stub, retry=RetryPolicy(attempts=1))
    pool = EmbedderPool([broken, embedder(second_stub)], batch_size=10)
    vectors = await pool.embed([f"t{i}" for i in range(40)])
    await pool.aclose()
    assert len(vectors) == 40
    assert sum(second_stub.embed_batch_sizes()) == 40


async def test_pool_propagates_a_refused_key(stub: GeminiStub, second_stub: GeminiStub) -> None:
    stub.always = error_body(403, "PERMISSION_DENIED", "no")
    pool = EmbedderPool([embedder(stub), embedder(second_stub)], batch_size=10)
    with pytest.raises(CredentialsRejected):
        await pool.embed(["a"])
    await pool.aclose()
    assert second_stub.requests == []


async def test_pool_refuses_to_mix_models_or_dimensions(stub: GeminiStub) -> None:
    base = embedder(stub)
    other_model = embedder(stub, model="text-embedding-005")
    other_dimension = embedder(stub, dimension=16)
    with pytest.raises(EmbeddingMismatch, match="cannot mix models"):
        EmbedderPool([base, other_model])
    with pytest.raises(EmbeddingMismatch, match="16 dimensions"):
        EmbedderPool([base, other_dimension])
    with pytest.raises(InvalidArgument):
        EmbedderPool([])
    for member in (base, other_model, other_dimension):
        await member.aclose()


async def test_json_model_sends_the_schema_and_parses_the_answer(stub: GeminiStub) -> None:
    stub.generated_text = json.dumps({"entities": [{"name": "Ana"}], "relations": []})
    model = GeminiJsonModel(KEY, base_url=stub.url, retry=FAST)
    schema = {"type": "object", "properties": {"entities": {"type": "array"}}}
    answer = await model.generate_json("Who is mentioned?", schema, instructions="Be terse.")
    stub.generated_text = "this is not json"
    with pytest.raises(ModelServiceError, match="not JSON"):
        await model.generate_json("again", schema)
    await model.aclose()
    assert answer == {"entities": [{"name": "Ana"}], "relations": []}
    sent = stub.requests[0]
    assert sent.method == "generateContent"
    assert sent.model == "gemini-2.5-flash"
    assert sent.body["generationConfig"]["responseMimeType"] == "application/json"
    assert sent.body["generationConfig"]["responseJsonSchema"] == schema
    assert sent.body["systemInstruction"]["parts"][0]["text"] == "Be terse."


def test_retry_delays_grow_are_jittered_capped_and_respect_retry_after() -> None:
    policy = RetryPolicy(attempts=6, base_delay=1.0, max_delay=8.0, jitter=0.5)
    rng = random.Random(7)
    for retry, ceiling in [(0, 1.0), (1, 2.0), (2, 4.0), (3, 8.0), (4, 8.0)]:
        delays = [policy.delay(retry, None, rng) for _ in range(200)]
        assert all(ceiling / 2 <= d <= ceiling for d in delays)
        assert max(delays) - min(delays) > ceiling / 10  # jitter really varies
    assert policy.delay(0, 5.0, rng) >= 5.0
    assert policy.delay(0, 100.0, rng) == 8.0
    with pytest.raises(InvalidArgument):
        RetryPolicy(attempts=0)


def test_the_key_comes_from_the_environment_then_the_keyring() -> None:
    assert load_gemini_key({"GEMINI_API_KEY": " k1 "}, lambda: "k2") == "k1"
    assert load_gemini_key({"GOOGLE_API_KEY": "k3"}, lambda: "k2") == "k3"
    assert load_gemini_key({"GEMINI_API_KEY": "  "}, lambda: "k2") == "k2"
    assert load_gemini_key({}, lambda: None) is None
    assert load_gemini_key({}, lambda: "   ") is None


# -- the extractor, end to end through the stub ---------------------------------------------------

SCOPE = "acme/assistant/ana"


def conversation() -> list[Chunk]:
    texts = [
        ("Ana", "I started working at Acme Labs in Lisbon last week. Bruno Costa joined too."),
        ("assistant", "Congrats! How is ACME treating you? Say hi to Bruno."),
        ("Ana", "My brother Bruno Costa moved to Porto."),
    ]
    start = datetime(2024, 5, 3, 9, 0, tzinfo=UTC)
    return [
        Chunk(
            id=f"chunk-{index}",
            text=text,
            conversation_id="conv-1",
            position=index,
            speaker=speaker,
            timestamp=start + timedelta(hours=index),
            domains=("work",) if index < 2 else ("family",),
            scope=SCOPE,
        )
        for index, (speaker, text) in enumerate(texts)
    ]


MODEL_ANSWER = {
    "entities": [
        {"name": "Ana", "type": "person", "description": "The user."},
        {"name": "Acme Labs", "type": "organisation", "aliases": ["Acme"], "description": "Lab."},
        {"name": "Lisbon", "type": "place"},
        {"name": "Bruno Costa", "type": "person", "aliases": ["Bruno"]},
        {"name": "Porto", "type": "place"},
        {"name": "Atlantis", "type": "place", "description": "Not in the text."},
        {"name": "Costa", "type": "person"},
        {"name": 42, "type": "person"},
        "not an object",
    ],
    "relations": [
        {
            "source": "Ana",
            "target": "Acme Labs",
            "type": "WORKS_AT",
            "fact": "Ana works at Acme Labs.",
            "evidence": "I started working at Acme Labs",
        },
        {"source": "Bruno Costa", "target": "Porto", "type": "lives in"},
        {
            "source": "ana",
            "target": "Bruno",
            "type": "SIBLING_OF",
            "evidence": "My brother Bruno Costa",
        },
        {"source": "Acme Labs", "target": "Lisbon", "type": "BASED_IN", "evidence": "no such text"},
        {"source": "Atlantis", "target": "Porto", "type": "NEAR"},
        {"source": "Porto", "target": "Porto", "type": "SAME"},
    ],
}


async def test_extractor_grounds_the_model_answer_in_exact_spans(stub: GeminiStub) -> None:
    stub.generated_text = json.dumps(MODEL_ANSWER)
    model = GeminiJsonModel(KEY, base_url=stub.url, retry=FAST)
    extractor = GeminiExtractor(model)
    chunks = conversation()
    extraction = await extractor.extract(chunks)
    await model.aclose()

    sent = stub.requests[0].body
    assert sent["generationConfig"]["responseJsonSchema"] == EXTRACTION_SCHEMA
    prompt = sent["contents"][0]["parts"][0]["text"]
    assert all(chunk.text in prompt for chunk in chunks)

    entities = {entity.name: entity for entity in extraction.entities}
    assert set(entities) == {"Ana", "Acme Labs", "Lisbon", "Bruno Costa", "Porto"}
    texts = {chunk.id: chunk.text for chunk in chunks}
    for entity in extraction.entities:
        assert entity.id == ids.entity_id(SCOPE, entity.type, entity.name)
        assert entity.scope == SCOPE
        surfaces = {entity.name.casefold(), *(alias.casefold() for alias in entity.aliases)}
        for mention in entity.mentions:
            assert texts[mention.chunk_id][mention.start : mention.end].casefold() in surfaces

    acme = entities["Acme Labs"]
    assert [(m.chunk_id, texts[m.chunk_id][m.start : m.end]) for m in acme.mentions] == [
        ("chunk-0", "Acme Labs"),
        ("chunk-1", "ACME"),
    ]
    assert acme.type == "organisation" and acme.aliases == ("Acme",)
    bruno = entities["Bruno Costa"]
    assert [texts[m.chunk_id][m.start : m.end] for m in bruno.mentions] == [
        "Bruno Costa",
        "Bruno",
        "Bruno Costa",
    ]
    assert bruno.layer == MemoryLayer.PROFILE and acme.layer == MemoryLayer.SEMANTIC
    ana = entities["Ana"]
    assert ana.mentions == () and ana.confidence == 1.0
    assert ana.first_seen == chunks[0].timestamp and ana.last_seen == chunks[2].timestamp
    assert bruno.domains == ("family", "work") or set(bruno.domains) == {"family", "work"}

    relations = {
        (relation.source_id, relation.type, relation.target_id): relation
        for relation in extraction.relations
    }
    ana_id, acme_id = entities["Ana"].id, acme.id
    bruno_id, porto_id = bruno.id, entities["Porto"].id
    lisbon_id = entities["Lisbon"].id
    assert set(relations) == {
        (ana_id, "WORKS_AT", acme_id),
        (bruno_id, "LIVES_IN", porto_id),
        (ana_id, "SIBLING_OF", bruno_id),
        (acme_id, "BASED_IN", lisbon_id),
    }

    def stated(key: tuple[str, str, str]) -> list[str]:
        return [texts[m.chunk_id][m.start : m.end] for m in relations[key].mentions]

    assert stated((ana_id, "WORKS_AT", acme_id)) == ["I started working at Acme Labs"]
    assert stated((ana_id, "SIBLING_OF", bruno_id)) == ["My brother Bruno Costa"]
    assert stated((bruno_id, "LIVES_IN", porto_id)) == ["My brother Bruno Costa moved to Porto."]
    assert stated((acme_id, "BASED_IN", lisbon_id)) == [
        "I started working at Acme Labs in Lisbon last week."
    ]
    works = relations[(ana_id, "WORKS_AT", acme_id)]
    assert works.fact == "Ana works at Acme Labs."
    assert works.id == ids.relation_id(SCOPE, ana_id, "WORKS_AT", acme_id)
    assert works.valid_from == chunks[0].timestamp


async def test_extractor_reads_long_conversations_in_windows(stub: GeminiStub) -> None:
    stub.generated_text = json.dumps(MODEL_ANSWER)
    model = GeminiJsonModel(KEY, base_url=stub.url, retry=FAST)
    extraction = await GeminiExtractor(model, window_chars=100).extract(conversation())
    await model.aclose()
    assert len(stub.requests) == 3
    names = sorted(entity.name for entity in extraction.entities)
    assert names == ["Acme Labs", "Ana", "Bruno Costa", "Lisbon", "Porto"]
    assert len(extraction.relations) == 4


async def test_extractor_refuses_an_answer_of_the_wrong_shape(stub: GeminiStub) -> None:
    stub.generated_text = json.dumps(["entities"])
    model = GeminiJsonModel(KEY, base_url=stub.url, retry=FAST)
    with pytest.raises(ModelServiceError, match="not a JSON object"):
        await GeminiExtractor(model).extract(conversation())
    await model.aclose()


async def test_extractor_passes_on_a_refused_key(stub: GeminiStub) -> None:
    stub.always = error_body(403, "PERMISSION_DENIED", "no")
    model = GeminiJsonModel(KEY, base_url=stub.url, retry=FAST)
    with pytest.raises(CredentialsRejected):
        await GeminiExtractor(model).extract(conversation())
    await model.aclose()
    assert len(stub.requests) == 1
