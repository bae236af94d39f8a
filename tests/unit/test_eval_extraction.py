"""Extraction scoring against a gold file: hand-made gold and extraction, figures worked by hand."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from explorer import assets
from explorer.cli import main
from explorer.core.errors import InvalidArgument
from explorer.core.models import Chunk, Entity, Mention, Relation
from explorer.eval.extraction import extract_as_imported, prf, read_gold, score_extraction
from explorer.ingest.chunking import chunk_turns
from explorer.ingest.extractor import Extraction
from explorer.ingest.ids import entity_id
from explorer.ingest.pipeline import ingest_file
from explorer.testing import FakeEmbedder
from tests.unit.ingest_fakes import make_stores

WHEN = "2026-03-01T10:00:00+00:00"


def _line(conversation: str, speaker: str, text: str, **extra: Any) -> dict[str, Any]:
    return {
        "conversation_id": conversation,
        "speaker": speaker,
        "text": text,
        "timestamp": WHEN,
        **extra,
    }


GOLD = [
    _line(
        "c1",
        "Maya Okafor",
        "I met Tomás and Dr. Lee in Lisbon.",
        entities=[
            {"name": "Maya Okafor", "type": "person", "aliases": []},
            {"name": "Tomás Ruiz", "type": "person", "aliases": ["Tomás"]},
            {"name": "Hannah Lee", "type": "person", "aliases": ["Dr. Lee"]},
            {"name": "Lisbon", "type": "place", "aliases": []},
        ],
        relations=[
            {"source": "Maya Okafor", "type": "KNOWS", "target": "Tomás Ruiz"},
            {"source": "Maya Okafor", "type": "VISITED", "target": "Lisbon"},
        ],
    ),
    _line(
        "c1",
        "Tomás Ruiz",
        "Tom works at Loomwork.",
        entities=[
            {"name": "Tomás Ruiz", "type": "person", "aliases": ["Tom"]},
            {"name": "Loomwork", "type": "organisation", "aliases": []},
        ],
        relations=[{"source": "tomas ruiz", "type": "WORKS_AT", "target": "Loomwork"}],
    ),
    _line("c2", "Assistant", "Noted.", entities=[], relations=[]),
]


def _write(path: Path, records: list[Any]) -> Path:
    path.write_text(
        "".join(
            (item if isinstance(item, str) else json.dumps(item, ensure_ascii=False)) + "\n"
            for item in records
        ),
        encoding="utf-8",
    )
    return path


def _entity(
    key: str, name: str, kind: str, chunk: Chunk | None = None, aliases: tuple[str, ...] = ()
) -> Entity:
    mentions = () if chunk is None else (Mention(chunk.id, 0, 3, chunk.timestamp),)
    return Entity(id=key, name=name, type=kind, aliases=aliases, mentions=mentions)


def _relation(source: Entity, kind: str, target: Entity, chunk: Chunk) -> Relation:
    mention = Mention(chunk.id, 0, 3, chunk.timestamp)
    key = f"{source.id}-{kind}-{target.id}"
    return Relation(key, source.id, target.id, kind, mentions=(mention,))


def _extraction(chunks: list[Chunk]) -> Extraction:
    first, second, third = chunks
    scope = first.scope
    maya = _entity(entity_id(scope, "person", "Maya Okafor"), "Maya Okafor", "person")
    # The speaker, holding the accent-less spelling of the name as an alias.
    tomas = _entity(
        entity_id(scope, "person", "Tomás Ruiz"), "Tomás Ruiz", "person", aliases=("TOMAS",)
    )
    # The same person split off: matches the gold too, but one gold entity is found once.
    split = _entity("e-tomas", "TOMAS", "person", first, aliases=("Tom",))
    lee = _entity("e-lee", "Lee", "person", first)  # not the gold alias "Dr. Lee"
    lisbon = _entity("e-lisbon", "Lisbon", "organisation", first)  # right name, wrong type
    loomwork = _entity("e-loom", "Loomwork", "organization", second)  # the other spelling
    topic = _entity("e-topic", "lisbon trip", "topic", first)  # topics are not scored
    assistant = _entity(entity_id(scope, "agent", "Assistant"), "Assistant", "agent")
    relations = (
        _relation(split, "KNOWS", maya, first),  # symmetric: gold has it the other way round
        _relation(tomas, "WORKS_AT", loomwork, second),
        _relation(maya, "LIKES", lee, first),  # Lee maps to no gold entity
        _relation(maya, "MENTIONS", lisbon, first),  # a weak signal, not a fact
        _relation(maya, "CO_OCCURS", topic, third),
    )
    entities = (maya, tomas, split, lee, lisbon, loomwork, topic, assistant)
    return Extraction(entities, relations)


def test_precision_recall_and_f1_by_hand() -> None:
    assert prf(3, 6, 5) == {"precision": 0.5, "recall": 0.6, "f1": pytest.approx(0.545455)}
    assert prf(0, 0, 0) == {"precision": 1.0, "recall": 1.0, "f1": 1.0}
    assert prf(0, 0, 4) == {"precision": 0.0, "recall": 0.0, "f1": 0.0}
    assert prf(0, 2, 0) == {"precision": 0.0, "recall": 0.0, "f1": 0.0}


def test_scores_of_a_hand_made_extraction(tmp_path: Path) -> None:
    gold = read_gold(_write(tmp_path / "gold.jsonl", GOLD))
    chunks = chunk_turns(gold.turns)
    assert len(chunks) == 3
    result = score_extraction(gold, chunks, _extraction(chunks))
    # Entities of c1: extracted Maya, Tomás Ruiz, TOMAS, Lee, Lisbon (org), Loomwork = 6;
    # gold Maya, Tomás Ruiz, Hannah Lee, Lisbon, Loomwork = 5; matched Maya, Tomás, Loomwork.
    c1 = result["per_conversation"]["c1"]
    assert c1["counts"]["entities"] == {"matched": 3, "extracted": 6, "gold": 5}
    assert c1["entities"] == {"precision": 0.5, "recall": 0.6, "f1": pytest.approx(0.545455)}
    # Relations: KNOWS (either way round) and WORKS_AT match, LIKES Lee does not, VISITED is
    # missed: 2 of 3 each way.
    assert c1["counts"]["relations"] == {"matched": 2, "extracted": 3, "gold": 3}
    assert c1["relations"] == pytest.approx({"precision": 2 / 3, "recall": 2 / 3, "f1": 2 / 3})
    # Alias pairs: Tomás Ruiz–Tomás (held by the speaker, accents folded), Tomás Ruiz–Tom (no
    # entity holds both), Hannah Lee–Dr. Lee (no): one of three.
    assert c1["counts"]["alias_pairs"] == {"linked": 1, "gold": 3}
    assert c1["alias_recall"] == pytest.approx(1 / 3)
    assert c1["messages"] == 2
    # c2 holds only the assistant (not scored) and states nothing: nothing missed, nothing wrong.
    c2 = result["per_conversation"]["c2"]
    assert c2["entities"] == c2["relations"] == {"precision": 1.0, "recall": 1.0, "f1": 1.0}
    assert c2["alias_recall"] == 1.0
    assert result["entities"] == c1["entities"]
    assert result["relations"] == c1["relations"]
    assert result["alias_recall"] == pytest.approx(1 / 3)


def test_a_perfect_extraction_scores_one(tmp_path: Path) -> None:
    gold = read_gold(_write(tmp_path / "gold.jsonl", GOLD[:2]))
    chunks = chunk_turns(gold.turns)
    scope = chunks[0].scope
    maya = _entity(entity_id(scope, "person", "Maya Okafor"), "Maya Okafor", "person")
    tomas = _entity(
        entity_id(scope, "person", "Tomás Ruiz"), "Tomas Ruiz", "person", aliases=("tomás", "Tom")
    )
    lee = _entity("e-lee", "Hannah Lee", "person", chunks[0], aliases=("DR. LEE",))
    lisbon = _entity("e-lisbon", "lisbon", "place", chunks[0])
    loomwork = _entity("e-loom", "Loomwork", "organisation", chunks[1])
    relations = (
        _relation(maya, "KNOWS", tomas, chunks[0]),
        _relation(maya, "VISITED", lisbon, chunks[0]),
        _relation(tomas, "WORKS_AT", loomwork, chunks[1]),
    )
    extraction = Extraction((maya, tomas, lee, lisbon, loomwork), relations)
    result = score_extraction(gold, chunks, extraction)
    assert result["entities"] == result["relations"] == {"precision": 1.0, "recall": 1.0, "f1": 1.0}
    assert result["alias_recall"] == 1.0
    # The direction of a directed relation matters.
    flipped = (*relations[:2], _relation(loomwork, "WORKS_AT", tomas, chunks[1]))
    worse = score_extraction(gold, chunks, Extraction(extraction.entities, flipped))
    assert worse["relations"]["precision"] == pytest.approx(2 / 3)


BAD = [
    ('{"conversation_id": "c", "speaker": "A", "text": "hi"}', "line 2: missing field"),
    ("not json", "line 2: not valid JSON"),
    (_line("c", "A", "hi", entities=[{"name": "A", "type": "human"}]), "line 2: entity 'A'"),
    (_line("c", "A", "hi", entities={"name": "A"}), "line 2: entities must be a list"),
    (_line("c", "A", "hi", entities=[{"type": "person"}]), "line 2: an entity's name"),
    (
        _line("c", "A", "hi", entities=[{"name": "A", "type": "person", "aliases": "B"}]),
        "line 2: the aliases of 'A'",
    ),
    (
        _line("c", "A", "hi", relations=[{"source": "A", "type": "ADORES", "target": "B"}]),
        "line 2: relation 'A' → 'B' has type 'ADORES'",
    ),
    (
        _line(
            "c", "A", "hi", relations=[{"source": "Maya Okafor", "type": "KNOWS", "target": "X"}]
        ),
        "line 2: relation end 'X'",
    ),
    (
        _line("c", "A", "hi", entities=[{"name": "lisbon", "type": "person"}]),
        "line 2: 'lisbon' is typed person here but place on line 1",
    ),
]


@pytest.mark.parametrize(("line", "message"), BAD)
def test_bad_gold_lines_are_named(tmp_path: Path, line: Any, message: str) -> None:
    path = _write(tmp_path / "gold.jsonl", [GOLD[0], line])
    with pytest.raises(InvalidArgument, match=message):
        read_gold(path)


def test_the_command_reports_a_bad_gold_file_in_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = _write(tmp_path / "gold.jsonl", [GOLD[0], BAD[2][0]])
    status = main(["--data-dir", str(tmp_path / "data"), "eval", "extraction", str(path)])
    err = capsys.readouterr().err
    assert status == 2
    assert err.count("\n") == 1 and "Traceback" not in err
    assert f"{path}: line 2: entity 'A' has type 'human'" in err


async def test_the_gold_is_extracted_as_an_import_into_an_empty_memory_would_be() -> None:
    path = assets.demo_dir() / "gold" / "extraction-gold.jsonl"
    embedder = FakeEmbedder(dimension=4096)
    stores = make_stores(embedder=embedder)
    await ingest_file(stores, path, "jsonl", scope=None)
    _chunks, extraction = await extract_as_imported(read_gold(path).turns, embedder)

    def entities(records: Any) -> set[tuple[str, str, str, frozenset[str]]]:
        return {(e.id, e.name, e.type, frozenset(e.aliases)) for e in records}

    assert entities(extraction.entities) == entities(stores.graph.entities.values())
    assert {r.id for r in extraction.relations} == set(stores.graph.relations)
