"""Ingest into the real embedded stores: idempotence, crash-and-resume, provenance, bad input."""

from __future__ import annotations

import asyncio
import json
import os
import random
import signal
import subprocess
import sys
import time
from collections.abc import AsyncIterator, Callable
from dataclasses import asdict
from datetime import datetime
from pathlib import Path

import pytest

from explorer.adapters.embedded import EmbeddedServers
from explorer.adapters.falkor import FalkorGraphStore
from explorer.adapters.local_embedder import LocalEmbedder
from explorer.adapters.postgres.chunks import PgChunkStore
from explorer.adapters.postgres.concepts import PgConceptStore
from explorer.core.errors import ImportFormatError
from explorer.core.models import Entity
from explorer.ingest.chunking import chunk_turns
from explorer.ingest.importers import read_turns
from explorer.ingest.pipeline import Stores, ingest_file, memory_stats
from tests.stores import drop_schema, unique_name

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = ROOT / "tests" / "fixtures" / "ingest"
WORKER = Path(__file__).with_name("ingest_worker.py")
SOURCES = [(FIXTURES / "benchmark_small.json", "locomo"), (FIXTURES / "messages.jsonl", "jsonl")]


@pytest.fixture
def stores(
    graph_store: FalkorGraphStore,
    chunk_store: PgChunkStore,
    concept_store: PgConceptStore,
    embedder: LocalEmbedder,
) -> Stores:
    return Stores(chunk_store, graph_store, concept_store, embedder)


async def everything(stores: Stores, scopes: list[str]) -> dict[str, object]:
    assert stores.chunks is not None and stores.graph is not None
    assert stores.concepts is not None
    chunks = await stores.chunks.counts()
    graph = await stores.graph.counts()
    concepts = {scope: sorted(await stores.concepts.names(scope)) for scope in scopes}
    return {
        "chunks": chunks["chunks"],
        "pending": chunks["pending"],
        "scopes": {k: v for k, v in chunks.items() if k.startswith("scope:")},
        "entities": graph["entities"],
        "relations": graph["relations"],
        "mentions": graph["mentions"],
        "sources": graph["sources"],
        "concepts": concepts,
    }


# When the memory learnt a record, not what it knows: all a resumed import may differ in.
WRITE_TIMES = ("created_at", "updated_at")


def _plain(value: object) -> object:
    if isinstance(value, datetime):
        return value.isoformat()
    if isinstance(value, dict):
        return {key: _plain(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [_plain(item) for item in value]
    return value


async def content(stores: Stores, scopes: list[str]) -> dict[str, object]:
    """Everything the stores hold for these scopes, field by field, write times left out."""
    assert stores.chunks is not None and stores.graph is not None
    assert stores.concepts is not None
    listed = await stores.graph.most_salient(10_000)
    ids = sorted(entity.id for entity in listed)
    entities = {}
    for entity in await stores.graph.get_entities(ids):
        fields = asdict(entity)
        for key in WRITE_TIMES:
            fields.pop(key)
        fields["mentions"] = sorted(map(str, fields["mentions"]))
        entities[entity.id] = _plain(fields)
    subgraph = await stores.graph.neighbourhood(ids, limit_per_node=0)
    relations = {relation.id: _plain(asdict(relation)) for relation in subgraph.relations}
    concepts: dict[str, object] = {}
    for scope in scopes:
        names = sorted(await stores.concepts.names(scope))
        for name, body in (await stores.concepts.read(scope, names)).items():
            record = json.loads(body)
            for key in WRITE_TIMES:
                record.pop(key, None)
            concepts[f"{scope}/{name}"] = record
    return {"entities": entities, "relations": relations, "concepts": concepts}


def all_scopes() -> list[str]:
    scopes: set[str] = set()
    for path, fmt in SOURCES:
        scopes.update(turn.scope for turn in read_turns(path, fmt).turns)
    return sorted(scopes)


async def test_importing_twice_adds_nothing(stores: Stores) -> None:
    for path, fmt in SOURCES:
        await ingest_file(stores, path, fmt)
    first = await everything(stores, all_scopes())
    assert first["chunks"] == 14 and first["pending"] == 0
    assert first["entities"] > 10 and first["relations"] > 10  # type: ignore[operator]
    for path, fmt in SOURCES:
        report = await ingest_file(stores, path, fmt)
        assert report.chunks_new == 0
    assert await everything(stores, all_scopes()) == first
    for path, fmt in SOURCES:
        await ingest_file(stores, path, fmt, reextract=True)
    assert await everything(stores, all_scopes()) == first


async def test_every_entity_span_points_at_its_name_or_an_alias(stores: Stores) -> None:
    for path, fmt in SOURCES:
        await ingest_file(stores, path, fmt)
    assert stores.chunks is not None and stores.graph is not None
    chunk_ids = [
        chunk.id for path, fmt in SOURCES for chunk in chunk_turns(read_turns(path, fmt).turns)
    ]
    stored = {chunk.id: chunk for chunk in await stores.chunks.get(chunk_ids)}
    assert len(stored) == len(chunk_ids)
    mentioned = await stores.graph.entities_in_chunks(chunk_ids)
    entity_ids = sorted({entity for ids in mentioned.values() for entity in ids})
    entities = await stores.graph.get_entities(entity_ids)
    assert len(entities) == len(entity_ids) > 10
    checked = 0
    for entity in entities:
        names = {entity.name.casefold(), *(alias.casefold() for alias in entity.aliases)}
        assert entity.mentions, entity.name
        for mention in entity.mentions:
            text = stored[mention.chunk_id].text[mention.start : mention.end]
            assert text.casefold() in names, (entity.name, text)
            assert mention.timestamp == stored[mention.chunk_id].timestamp
            checked += 1
    assert checked > 20


def write_messages(path: Path, conversation: str, day: int, lines: list[tuple[str, str]]) -> Path:
    records = [
        {
            "conversation_id": conversation,
            "speaker": speaker,
            "text": text,
            "timestamp": f"2026-03-{day:02d}T10:{minute:02d}:00Z",
            "scope": "demo/helper/maya",
        }
        for minute, (speaker, text) in enumerate(lines)
    ]
    path.write_text("".join(json.dumps(record) + "\n" for record in records))
    return path


async def people_named(stores: Stores, paths: list[Path]) -> dict[str, object]:
    """Every entity the files' chunks mention, by name, after checking each span reads as the
    entity's name or an alias."""
    assert stores.chunks is not None and stores.graph is not None
    chunk_ids = [
        chunk.id for path in paths for chunk in chunk_turns(read_turns(path, "jsonl").turns)
    ]
    texts = {chunk.id: chunk.text for chunk in await stores.chunks.get(chunk_ids)}
    mentioned = await stores.graph.entities_in_chunks(chunk_ids)
    ids = sorted({entity for found in mentioned.values() for entity in found})
    entities = await stores.graph.get_entities(ids)
    for entity in entities:
        names = {entity.name.casefold(), *(alias.casefold() for alias in entity.aliases)}
        for mention in entity.mentions:
            if mention.chunk_id in texts:
                span = texts[mention.chunk_id][mention.start : mention.end]
                assert span.casefold() in names, (entity.name, span)
    return {entity.name: entity for entity in entities}


async def test_given_names_merge_into_the_person_across_conversations_and_imports(
    stores: Stores, tmp_path: Path
) -> None:
    first = write_messages(
        tmp_path / "march.jsonl",
        "physio",
        2,
        [
            ("Maya Okafor", "Hannah Lee checked Biscuit's paw at the vets this morning."),
            ("Assistant", "Good. Shall I note the recheck Hannah Lee asked for?"),
        ],
    )
    second = write_messages(
        tmp_path / "march-later.jsonl",
        "run",
        9,
        [
            ("Assistant", "How was the long run, Maya? Did Dr. Lee call about Biscuit?"),
            ("Assistant", "Remember, Maya, the recheck is on Friday."),
        ],
    )
    await ingest_file(stores, first, "jsonl")
    await ingest_file(stores, second, "jsonl")  # the full names are only in the graph now
    entities = await people_named(stores, [first, second])
    assert "Maya" not in entities and "Lee" not in entities
    maya, hannah = entities["Maya Okafor"], entities["Hannah Lee"]
    assert isinstance(maya, Entity) and isinstance(hannah, Entity)
    assert "Maya" in maya.aliases and "Lee" in hannah.aliases
    assert len(maya.mentions) == 2 and len(hannah.mentions) == 3
    assert maya.confidence == 1.0  # still the speaker
    before = await everything(stores, ["demo/helper/maya"])
    for path in (first, second):
        await ingest_file(stores, path, "jsonl", reextract=True)
    assert await everything(stores, ["demo/helper/maya"]) == before


async def test_a_word_said_once_with_nothing_said_of_it_is_left_out_unless_stored(
    stores: Stores, tmp_path: Path
) -> None:
    first = write_messages(
        tmp_path / "quotes.jsonl",
        "reno",
        3,
        [
            ("Maya Okafor", "Qanvast sent the quote. she asked if Hobart has a Spotlight"),
            ("Assistant", "Shall I compare the Qanvast quote with the last one?"),
        ],
    )
    second = write_messages(
        tmp_path / "later.jsonl", "reno-later", 5, [("Maya Okafor", "ok Qanvast wins")]
    )
    await ingest_file(stores, first, "jsonl")
    await ingest_file(stores, second, "jsonl")
    entities = await people_named(stores, [first, second])
    assert "Spotlight" not in entities  # one guess, said once: not a node
    qanvast = entities["Qanvast"]  # said twice in the first file, so stored ...
    assert isinstance(qanvast, Entity)
    assert len(qanvast.mentions) == 3  # ... and the second file's one mention still lands
    assert stores.chunks is not None
    hits = await stores.chunks.lexical_search("Spotlight", 5, scope="demo/helper/maya")
    assert hits  # the turn itself is kept and found by its words


async def test_a_bad_file_writes_nothing_unless_bad_records_are_skipped(stores: Stores) -> None:
    bad = FIXTURES / "messages_bad.jsonl"
    with pytest.raises(ImportFormatError, match=r"line 2: not valid JSON"):
        await ingest_file(stores, bad, "jsonl")
    assert stores.chunks is not None and stores.graph is not None
    assert (await stores.chunks.counts())["chunks"] == 0
    assert (await stores.graph.counts())["entities"] == 0
    report = await ingest_file(stores, bad, "jsonl", skip_bad=True)
    assert report.chunks == 2 and report.bad_count == 7
    assert (await stores.chunks.counts())["chunks"] == 2


async def test_stats_report_counts_and_the_embedding_model(stores: Stores) -> None:
    await ingest_file(stores, *SOURCES[1])
    figures = await memory_stats(stores)
    assert figures["chunks"] == 5
    assert figures["embedding"] == {"model": "wordllama-l2-supercat-256", "dimension": 256}
    assert figures["concepts"] == figures["concepts_by_scope"]["acme/helper/rosa"] > 0  # type: ignore[index]
    assert figures["entities"] == sum(figures["entities_by_type"].values())  # type: ignore[attr-defined]


# -- crash and resume -------------------------------------------------------------------------


def write_corpus(path: Path, conversations: int = 14, turns: int = 40) -> Path:
    """A few hundred turns written for this test: recurring people, places and plans."""
    rng = random.Random(7)
    people = ["Amara", "Bruno", "Chiara", "Dmitri", "Esme", "Farid", "Greta", "Hugo"]
    places = ["Lisbon", "Tallinn", "Harbour Park", "Kiln Street Studio", "Lantern Books"]
    topics = ["pottery class", "marathon training", "tax return", "choir concert", "garden plot"]
    lines = []
    for number in range(conversations):
        for turn in range(turns):
            who, other = rng.sample(people, 2)
            sentence = rng.choice(
                [
                    f"I met {other} at {rng.choice(places)} yesterday for {rng.choice(topics)}.",
                    f"My sister {other} works at {rng.choice(places)} now.",
                    f"Did {other} finish the {rng.choice(topics)} last Saturday?",
                    f"We could visit {rng.choice(places)} in May with {other}.",
                    f"The {rng.choice(topics)} with {other} went well, thanks.",
                ]
            )
            record = {
                "conversation_id": f"talk-{number:02d}",
                "speaker": who,
                "text": f"{sentence} Turn {turn}.",
                "timestamp": f"2024-{1 + number % 12:02d}-{1 + turn % 27:02d}T10:{turn:02d}:00Z",
                "scope": f"crash/{number % 3}",
            }
            lines.append(json.dumps(record))
    path.write_text("\n".join(lines) + "\n")
    return path


def worker(
    servers: EmbeddedServers, corpus: Path, graph: str, schema: str
) -> subprocess.Popen[str]:
    command = [
        sys.executable,
        str(WORKER),
        str(corpus),
        "jsonl",
        "--socket",
        str(servers.falkordb_socket),
        "--graph",
        graph,
        "--dsn",
        servers.postgres_dsn,
        "--schema",
        schema,
        "--batch",
        "40",
    ]
    return subprocess.Popen(
        command, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )


def finish(process: subprocess.Popen[str]) -> dict[str, object]:
    out, err = process.communicate(timeout=120)
    assert process.returncode == 0, err[-2000:]
    result: dict[str, object] = json.loads(out.strip().splitlines()[-1])["report"]
    return result


# Where to kill: the first progress step of a phase at or past ``done``, then a random delay.
KILL_POINTS = (("chunks", 80), ("graph", 1), ("concepts", 1), ("done", 1), ("chunks", 200))


def kill_at(process: subprocess.Popen[str], phase: str, done: int, delay: float) -> bool:
    """SIGKILL the worker once it reports reaching ``done`` in ``phase``; False if it finished."""
    assert process.stdout is not None
    for line in process.stdout:
        step = json.loads(line)
        if step.get("phase") == phase and step.get("done", 0) >= done:
            time.sleep(delay)
            os.kill(process.pid, signal.SIGKILL)
            process.communicate(timeout=60)
            return process.returncode == -signal.SIGKILL
    process.communicate(timeout=60)
    return False


def crash_then_resume(
    servers: EmbeddedServers,
    corpus: Path,
    clean: tuple[str, str],
    target: tuple[str, str],
) -> tuple[dict[str, object], list[bool]]:
    """A clean import into ``clean``; into ``target`` imports killed at random moments inside
    each phase, then one that runs to the end. Returns the clean report and, per kill point,
    whether the import was killed there (it may finish first)."""
    clean_report = finish(worker(servers, corpus, *clean))
    rng = random.Random(2024)
    kills = []
    for phase, done in KILL_POINTS:
        process = worker(servers, corpus, *target)
        kills.append(kill_at(process, phase, done, rng.uniform(0.0, 0.08)))
    finish(worker(servers, corpus, *target))
    return clean_report, kills


@pytest.fixture
async def named_stores(
    servers: EmbeddedServers, embedder: LocalEmbedder
) -> AsyncIterator[Callable[[str, str], object]]:
    opened: list[tuple[FalkorGraphStore, PgChunkStore, PgConceptStore, str]] = []

    async def open_named(graph: str, schema: str) -> Stores:
        graph_store = await FalkorGraphStore.connect(
            socket_path=servers.falkordb_socket, graph=graph
        )
        chunk_store = await PgChunkStore.connect(servers.postgres_dsn, schema=schema)
        concept_store = await PgConceptStore.connect(servers.postgres_dsn, schema=schema)
        opened.append((graph_store, chunk_store, concept_store, schema))
        return Stores(chunk_store, graph_store, concept_store, embedder)

    yield open_named
    for graph_store, chunk_store, concept_store, schema in opened:
        await graph_store.delete_graph(recreate_schema=False)
        for store in (graph_store, chunk_store, concept_store):
            await store.aclose()
        await drop_schema(servers.postgres_dsn, schema)


@pytest.mark.slow
async def test_sigkill_at_random_points_then_resume_equals_a_clean_import(
    servers: EmbeddedServers, named_stores: Callable[[str, str], object], tmp_path: Path
) -> None:
    corpus = write_corpus(tmp_path / "corpus.jsonl")
    scopes = ["crash/0", "crash/1", "crash/2"]
    clean_graph, clean_schema = unique_name("clean"), unique_name("clean")
    graph, schema = unique_name("crash"), unique_name("crash")
    clean_report, kills = await asyncio.to_thread(
        crash_then_resume, servers, corpus, (clean_graph, clean_schema), (graph, schema)
    )
    assert clean_report["chunks_new"] == 14 * 40
    # The kills in the middle of writing chunks and the graph must land; the later points race
    # with an import that, resuming, has little left to do, so only most of them need to.
    assert kills[0] and kills[1], f"imports finished before they could be killed: {kills}"
    assert sum(kills) >= 3, f"too few imports were killed to test resuming: {kills}"

    clean = await named_stores(clean_graph, clean_schema)  # type: ignore[misc]
    resumed = await named_stores(graph, schema)  # type: ignore[misc]
    expected = await everything(clean, scopes)
    assert expected["pending"] == 0 and expected["chunks"] == 14 * 40
    assert await everything(resumed, scopes) == expected
    clean_content, resumed_content = await content(clean, scopes), await content(resumed, scopes)
    assert clean_content["relations"] and clean_content["concepts"]
    for part in ("entities", "relations", "concepts"):
        differ = sorted(
            key
            for key in clean_content[part].keys() | resumed_content[part].keys()  # type: ignore[attr-defined]
            if clean_content[part].get(key) != resumed_content[part].get(key)  # type: ignore[attr-defined]
        )
        assert not differ, f"{len(differ)} {part} differ after resuming, e.g. {differ[:3]}"
