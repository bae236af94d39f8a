"""A chat's people recalled by the names the other person uses, on the real embedded stores.

A messaging chat's speakers are handles ("emi_k") that the other person calls by a name
("Kate"); the import links the name to the handle, and a question asked by that name then
seeds spreading activation from the speaker, as a question naming a speaker outright does.
"""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

from explorer.compose import open_memory
from explorer.core.scour import ScourRequest
from explorer.ingest.pipeline import ingest_turns
from explorer.settings import Settings
from tests.turns import chat_turns

SCOPE = "chats"
LINES = [
    ("emi_k", "omg finally moved into the new flat"),
    ("tobes", "congrats kate!! where is it?"),
    ("emi_k", "Headingley, five minutes from the park"),
    ("tobes", "nice. still doing nights at the hospital?"),
    ("emi_k", "yep, and the rota is brutal this month"),
    ("tobes", "thanks for the flat pics Kate x"),
]


async def test_a_question_by_the_name_a_speaker_is_called_seeds_from_that_speaker(
    tmp_path: Path,
) -> None:
    settings = Settings(data_dir=tmp_path / "data", load_demo=False)
    request = ScourRequest(query="Where does Kate live now?", scope=SCOPE)
    async with open_memory(settings) as memory:
        assert (
            await ingest_turns(
                memory, chat_turns(SCOPE, "flat", LINES, datetime(2026, 3, 1, 10, tzinfo=UTC))
            )
        ).ok
        first = await memory.scour(request)  # read through the store: full records
        await memory.settle()
        result = await memory.scour(request)  # the graph's shape in hand: lean records
    assert first.to_json_dict()["kg_entities"] == result.to_json_dict()["kg_entities"]
    (emi,) = [m.candidate for m in result.entities if m.candidate.label == "emi_k"]
    assert "Kate" in emi.alias_text  # the name tobes calls emi_k by
    seeds = {step.node: step.energy for step in result.retrieval.activation.steps if step.hop == 0}
    assert seeds.get(emi.id) == 1.0  # named by the alias: a seed at full energy
    assert any(
        getattr(m.candidate.record, "speaker", "") == "emi_k"
        and "Headingley" in getattr(m.candidate.record, "text", "")
        for m in result.chunks
    )


WORK_LINES = [
    ("ravi.k", "ugh"),
    ("jools", "what now"),
    ("ravi.k", "started the new job at the brewery today, packing line all morning"),
    ("jools", "how is it"),
    ("ravi.k", "lol"),
    ("jools", "that good huh"),
    ("ravi.k", "meh"),
    ("jools", "😂"),
    ("ravi.k", "👍"),
]


async def test_a_speakers_one_word_turns_do_not_outrank_what_they_said(tmp_path: Path) -> None:
    # A turn is embedded with its speaker's name, so "ravi.k: lol" is mostly "ravi": without
    # ``sources.substance`` a question naming Ravi put his "ugh", "lol" and "meh" first.
    settings = Settings(data_dir=tmp_path / "data", load_demo=False)
    request = ScourRequest(query="where does ravi work", scope=SCOPE, n_chunks=3)
    async with open_memory(settings) as memory:
        assert (
            await ingest_turns(
                memory, chat_turns(SCOPE, "work", WORK_LINES, datetime(2026, 3, 1, 10, tzinfo=UTC))
            )
        ).ok
        result = await memory.scour(request)
    texts = [getattr(m.candidate.record, "text", "") for m in result.chunks]
    assert texts and texts[0].startswith("started the new job"), texts


JOB_LINES = [
    ("ravi.k", "signed the contract today, I start at Drygate on monday"),
    ("jools", "nice one"),
    ("ravi.k", "my flat is freezing"),
    ("jools", "get a heater lol"),
    ("ravi.k", "the bus was late again"),
    ("jools", "classic"),
    ("ravi.k", "the Drygate crew took me to the pub after the induction"),
]


async def test_the_turns_naming_what_the_graph_holds_in_answer_are_recalled(
    tmp_path: Path,
) -> None:
    # Neither Drygate turn says "work": the graph's WORKS_AT fact of Ravi is what ties them to
    # the question, and the lexical route looks for its far end by name.
    settings = Settings(data_dir=tmp_path / "data", load_demo=False)
    request = ScourRequest(query="Where does Ravi work?", scope=SCOPE, n_chunks=2)
    async with open_memory(settings) as memory:
        lines = chat_turns(SCOPE, "job", JOB_LINES, datetime(2026, 3, 1, 10, tzinfo=UTC))
        assert (await ingest_turns(memory, lines)).ok
        result = await memory.scour(request)
    assert [(a.named, a.kind, a.answer) for a in result.answers] == [
        ("ravi.k", "WORKS_AT", "Drygate")
    ]
    assert result.to_json_dict()["answers"] == [
        {"of": "ravi.k", "kind": "WORKS_AT", "answer": "Drygate"}
    ]
    texts = [getattr(m.candidate.record, "text", "") for m in result.chunks]
    assert len(texts) == 2 and all("Drygate" in text for text in texts), texts
