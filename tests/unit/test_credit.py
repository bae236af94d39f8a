"""Chunk credit: the speaker, topic and contiguity shares of a chunk's activation."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from datetime import UTC, datetime, timedelta

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from explorer.core.activation import ActivationLog
from explorer.core.candidates import Associations, Candidate, MemoryQuery
from explorer.core.coordinator import decide
from explorer.core.credit import REPLY_GAP, SESSION_GAP, ChunkCredit, credit_chunks
from explorer.core.gates import Scored
from explorer.core.models import Chunk, Entity, MemoryLayer, Relation, Subgraph
from explorer.core.policy import ActivationParams, RelevanceWeights, RetrievalPolicy
from explorer.core.scoring import Scorer, signals_of
from explorer.testing import make_candidate

SCOPE = "acme/ana"
START = datetime(2024, 5, 1, 12, 0, tzinfo=UTC)
# Activation carries most of the weight, as in the preset that leans on it.
WEIGHTS = RelevanceWeights(
    similarity=0.1, lexical=0.2, recency=0.0, salience=0.0, confidence=0.0, activation=0.8
)
SCORER = Scorer(WEIGHTS)
PEOPLE = {
    "ana": Entity("ana", "Ana", "person", scope=SCOPE),
    "bo": Entity("bo", "Bo", "person", scope=SCOPE),
}
TOPICS = {
    "lisbon": Entity("lisbon", "Lisbon", "place", scope=SCOPE),
    "fado": Entity("fado", "Fado", "topic", scope=SCOPE),
}
SUBGRAPH = Subgraph(entities={**PEOPLE, **TOPICS})


def chunk(
    id_: str,
    speaker: str,
    position: int,
    *,
    conversation: str = "talk",
    similarity: float = 0.3,
    lexical: float = 0.3,
    at: datetime | None = None,
) -> Candidate:
    record = Chunk(
        id=id_,
        text=f"{speaker} says {id_}",
        conversation_id=conversation,
        position=position,
        speaker=speaker,
        timestamp=at or START + timedelta(seconds=position),
        scope=SCOPE,
    )
    base = make_candidate(id_, similarity=similarity, lexical=lexical, timestamp=record.timestamp)
    return replace(base, record=record)


def scored(candidate: Candidate) -> Scored:
    signals = signals_of(candidate, anchor=START, half_life_days=30)
    return Scored.of(candidate, 0, 1.0, signals, SCORER)


def credits_of(
    chunks: list[Candidate],
    mentions: Mapping[str, tuple[str, ...]],
    params: ActivationParams,
    *,
    energy: dict[str, float] | None = None,
    subgraph: Subgraph = SUBGRAPH,
    asked: frozenset[str] = frozenset(),
) -> dict[str, ChunkCredit]:
    """Where each chunk's credit came from, the top seed at energy 1."""
    _, found = credit_chunks(
        [scored(c) for c in chunks],
        SCORER,
        ActivationLog(energy=ENERGY if energy is None else energy),
        1.0,
        Associations(subgraph=subgraph, chunk_entities=mentions),
        chunks,
        params,
        asked,
    )
    return found


def credit(
    chunks: list[Candidate],
    mentions: Mapping[str, tuple[str, ...]],
    energy: dict[str, float],
    *,
    topic_weight: float = 0.0,
    contiguity: float = 0.0,
    reply_weight: float = 0.0,
) -> dict[str, float]:
    params = ActivationParams(
        topic_weight=topic_weight, contiguity=contiguity, reply_weight=reply_weight
    )
    log = ActivationLog(energy=energy)
    associations = Associations(subgraph=SUBGRAPH, chunk_entities=mentions)
    items = [scored(c) for c in chunks]
    out, _ = credit_chunks(items, SCORER, log, max(energy.values()), associations, chunks, params)
    return {item.candidate.id: item.score for item in out}


ENERGY = {"ana": 1.0, "bo": 0.4, "lisbon": 0.8, "fado": 0.2}


def test_every_turn_of_the_named_speaker_ties_until_topic_tells_them_apart() -> None:
    turns = [chunk("about-lisbon", "Ana", 1), chunk("small-talk", "Ana", 7)]
    mentions = {"about-lisbon": ("lisbon",)}
    flat = credit(turns, mentions, ENERGY)
    assert flat["about-lisbon"] == pytest.approx(flat["small-talk"])
    topical = credit(turns, mentions, ENERGY, topic_weight=0.1)
    assert topical["about-lisbon"] > topical["small-talk"]
    credits = credits_of(turns, mentions, ActivationParams(topic_weight=0.1, contiguity=0.0))
    told = credits["about-lisbon"]
    assert (told.said_by, told.by_speaker, told.said) == ("ana", True, 1.0)
    assert (told.topic_of, told.topic) == ("lisbon", 0.8)
    assert told.credit == pytest.approx(0.9 * 1.0 + 0.1 * 0.8)
    assert credits["small-talk"].topic_of is None


def test_a_person_mentioned_is_no_topic() -> None:
    turns = [chunk("names-bo", "Ana", 1), chunk("plain", "Ana", 7)]
    scores = credit(turns, {"names-bo": ("bo",)}, ENERGY, topic_weight=0.2)
    assert scores["names-bo"] == pytest.approx(scores["plain"])


def test_the_turn_next_to_a_strongly_recalled_turn_takes_contiguity() -> None:
    turns = [
        chunk("strong", "Ana", 4, similarity=0.9, lexical=0.9),
        chunk("reply", "Bo", 5),
        chunk("far", "Bo", 9),
        chunk("next-session", "Bo", 3, at=START + timedelta(seconds=4) - 2 * SESSION_GAP),
        chunk("other-talk", "Bo", 5, conversation="elsewhere"),
    ]
    without = credit(turns, {}, ENERGY)
    assert without["reply"] == pytest.approx(without["far"])
    scores = credit(turns, {}, ENERGY, contiguity=0.2)
    assert scores["reply"] > scores["far"]
    credits = credits_of(turns, {}, ActivationParams(contiguity=0.2))
    assert credits["reply"].next_to == "strong" and credits["far"].next_to is None
    # Adjacent by position but a session apart, or in another conversation: no contiguity.
    assert scores["next-session"] == pytest.approx(scores["far"])
    assert scores["other-talk"] == pytest.approx(scores["far"])


def test_contiguity_passes_on_a_neighbours_match_not_its_speakers_energy() -> None:
    # A chat between Ana (named by the query, energy 1) and Bo: Bo's question matched the query,
    # Ana answered it without its words. Ana's other turns sit beside Bo's unmatched turns; the
    # answer sits beside the match, so it is the turn of Ana's that contiguity lifts.
    turns = [
        chunk("bo-asks", "Bo", 1, similarity=0.9, lexical=0.9),
        chunk("ana-answers", "Ana", 2, similarity=0.0, lexical=0.0),
        chunk("bo-chats", "Bo", 3, similarity=0.0, lexical=0.0),
        chunk("ana-chats", "Ana", 4, similarity=0.0, lexical=0.0),
        chunk("bo-again", "Bo", 5, similarity=0.0, lexical=0.0),
    ]
    credits = credits_of(turns, {}, ActivationParams(contiguity=0.2))
    answer, aside = credits["ana-answers"], credits["ana-chats"]
    assert (answer.next_to, answer.contiguity) == ("bo-asks", 1.0)
    assert aside.contiguity == 0.0  # its neighbours matched nothing, whoever said them
    scores = credit(turns, {}, ENERGY, contiguity=0.2)
    assert scores["ana-answers"] > scores["ana-chats"]


def test_the_answer_to_a_named_persons_turn_is_tied_to_them_by_the_reply_share() -> None:
    # Ana is named (energy 1), Bo is not (0.4). Bo's turn right after a kept turn of Ana's
    # answers her, however late; his turns after nothing kept, after his own turn, or after
    # Ana's in another conversation keep his own energy; Ana's turn after Bo's keeps hers.
    turns = [
        chunk("ana-asks", "Ana", 4),
        chunk("bo-answers", "Bo", 5, at=START + 3 * SESSION_GAP),
        chunk("bo-adds", "Bo", 6, at=START + 3 * SESSION_GAP),
        chunk("ana-replies", "Ana", 7, at=START + 3 * SESSION_GAP),
        chunk("bo-aside", "Bo", 9),
        chunk("bo-elsewhere", "Bo", 5, conversation="elsewhere"),
        chunk("ana-signs-off", "Ana", 20),
        chunk("bo-weeks-on", "Bo", 21, at=START + 3 * REPLY_GAP),
    ]
    credits = credits_of(turns, {}, ActivationParams(contiguity=0.0, reply_weight=0.7))
    answer = credits["bo-answers"]
    assert (answer.said_by, answer.by_speaker, answer.reply_to) == ("ana", False, "ana-asks")
    assert answer.said == pytest.approx(0.7)
    for own in ("bo-adds", "bo-aside", "bo-elsewhere", "bo-weeks-on"):
        assert (credits[own].said_by, credits[own].said, credits[own].reply_to) == ("bo", 0.4, None)
    assert (credits["ana-replies"].said_by, credits["ana-replies"].reply_to) == ("ana", None)
    scores = credit(turns, {}, ENERGY, reply_weight=0.7)
    assert scores["bo-answers"] > scores["bo-aside"]
    # Below the answerer's own energy the reply share gives nothing, and 0 turns it off.
    weak = credits_of(turns, {}, ActivationParams(contiguity=0.0, reply_weight=0.3))
    assert (weak["bo-answers"].said_by, weak["bo-answers"].reply_to) == ("bo", None)
    off = credit(turns, {}, ENERGY)
    assert off["bo-answers"] == pytest.approx(off["bo-aside"])


def test_one_person_under_two_speaker_names_answers_no_one() -> None:
    # "Ana" and her handle "ana_k" are one person entity: her second message is hers (her
    # energy in full), no answer to herself.
    ana = replace(PEOPLE["ana"], aliases=("ana_k",))
    subgraph = Subgraph(entities={**PEOPLE, "ana": ana, **TOPICS})
    turns = [chunk("ana-says", "Ana", 1), chunk("ana-again", "ana_k", 2)]
    found = credits_of(
        turns, {}, ActivationParams(contiguity=0.0, reply_weight=0.7), subgraph=subgraph
    )
    again = found["ana-again"]
    assert (again.reply_to, again.said_by, again.by_speaker, again.said) == (None, "ana", True, 1.0)


def test_shares_are_validated_when_the_policy_is_built() -> None:
    from explorer.core.errors import InvalidArgument

    with pytest.raises(InvalidArgument, match="topic_weight"):
        ActivationParams(topic_weight=1.5)
    with pytest.raises(InvalidArgument, match="contiguity"):
        ActivationParams(contiguity=-0.1)
    with pytest.raises(InvalidArgument, match="must not exceed 1"):
        ActivationParams(topic_weight=0.6, contiguity=0.5)
    with pytest.raises(InvalidArgument, match="reply_weight"):
        ActivationParams(reply_weight=1.5)


# ---- properties ------------------------------------------------------------------------------

unit = st.floats(min_value=0.0, max_value=1.0)
SPEAKERS = ["Ana", "Bo", "Cy"]
MENTIONABLE = ["ana", "bo", "lisbon", "fado"]


@st.composite
def conversations(draw: st.DrawFn) -> tuple[list[Candidate], dict[str, tuple[str, ...]]]:
    count = draw(st.integers(1, 12))
    chunks: list[Candidate] = []
    mentions: dict[str, tuple[str, ...]] = {}
    for index in range(count):
        id_ = f"c{index}"
        chunks.append(
            chunk(
                id_,
                draw(st.sampled_from(SPEAKERS)),
                draw(st.integers(0, 8)),
                conversation=draw(st.sampled_from(["talk", "other"])),
                similarity=draw(unit),
                lexical=draw(unit),
            )
        )
        mentions[id_] = tuple(draw(st.lists(st.sampled_from(MENTIONABLE), max_size=3)))
    return chunks, mentions


@st.composite
def shares(draw: st.DrawFn) -> tuple[float, float]:
    topic = draw(unit)
    return topic, draw(st.floats(min_value=0.0, max_value=1.0 - topic))


energies = st.fixed_dictionaries({name: unit for name in MENTIONABLE}).filter(
    lambda energy: max(energy.values()) > 0.0
)


@settings(max_examples=120)
@given(conversations(), energies, shares(), unit, st.randoms(use_true_random=False))
def test_credit_only_lifts_stays_in_range_and_ignores_input_order(
    world: tuple[list[Candidate], dict[str, tuple[str, ...]]],
    energy: dict[str, float],
    weights: tuple[float, float],
    reply_weight: float,
    random: object,
) -> None:
    chunks, mentions = world
    topic_weight, contiguity = weights
    params = ActivationParams(
        topic_weight=topic_weight, contiguity=contiguity, reply_weight=reply_weight
    )
    associations = Associations(subgraph=SUBGRAPH, chunk_entities=mentions)
    log = ActivationLog(energy=energy)
    items = [scored(c) for c in chunks]
    strongest = max(energy.values())
    out, credits = credit_chunks(items, SCORER, log, strongest, associations, chunks, params)
    assert set(credits) == {item.candidate.id for item in items}
    for after in out:
        # A lifted chunk was scored with exactly the credit it reports.
        if after.signals.activation is not None:
            assert after.signals.activation == credits[after.candidate.id].credit
    assert [item.candidate.id for item in out] == [item.candidate.id for item in items]
    for before, after in zip(items, out, strict=True):
        assert after.score >= before.score - 1e-12
        assert 0.0 <= after.score <= 1.0 + 1e-12
        activation = after.signals.activation
        assert activation is None or 0.0 <= activation <= 1.0 + 1e-12
    shuffled = list(items)
    random.shuffle(shuffled)  # type: ignore[attr-defined]
    again, _ = credit_chunks(shuffled, SCORER, log, strongest, associations, chunks, params)
    assert {i.candidate.id: i.score for i in again} == {i.candidate.id: i.score for i in out}


@given(unit, unit)
def test_shares_build_exactly_when_they_leave_the_speaker_a_share(
    topic_weight: float, contiguity: float
) -> None:
    from explorer.core.errors import InvalidArgument

    if topic_weight + contiguity <= 1.0:
        params = ActivationParams(topic_weight=topic_weight, contiguity=contiguity)
        assert (params.topic_weight, params.contiguity) == (topic_weight, contiguity)
    else:
        with pytest.raises(InvalidArgument, match="must not exceed 1"):
            ActivationParams(topic_weight=topic_weight, contiguity=contiguity)


# ---- through decide --------------------------------------------------------------------------


def test_decide_ranks_the_named_speakers_topical_turn_first_and_brings_its_reply_along() -> None:
    ana = replace(
        make_candidate("ana", kind="entity", similarity=0.2, scope=SCOPE),
        label="Ana",
        record=PEOPLE["ana"],
    )
    turns = [
        chunk("ana-lisbon", "Ana", 10, similarity=0.4, lexical=0.4),
        chunk("ana-weather", "Ana", 20, similarity=0.4, lexical=0.4),
        chunk("bo-reply", "Bo", 11, similarity=0.2, lexical=0.2),
        chunk("bo-aside", "Bo", 30, similarity=0.2, lexical=0.2),
    ]
    subgraph = Subgraph(
        entities={**PEOPLE, **TOPICS},
        relations=(
            Relation("r1", "ana", "lisbon", "MENTIONS"),
            Relation("r2", "ana", "bo", "TALKS_WITH"),
        ),
    )
    associations = Associations(subgraph=subgraph, chunk_entities={"ana-lisbon": ("lisbon",)})
    query = MemoryQuery(
        "where did ana go",
        scope=SCOPE,
        k={MemoryLayer.EPISODIC: 4, MemoryLayer.SEMANTIC: 2},
        max_entities=2,
    )

    def ranking(topic_weight: float, contiguity: float) -> list[str]:
        params = ActivationParams(hops=1, topic_weight=topic_weight, contiguity=contiguity)
        policy = RetrievalPolicy(weights=WEIGHTS, activation=params)
        retrieval = decide([ana, *turns], query, policy, associations)
        memories = retrieval.result.memories
        return [m.id for m in memories if m.id != "ana" and m.candidate.kind.value == "chunk"]

    plain = ranking(0.0, 0.0)
    assert set(plain[:2]) == {"ana-lisbon", "ana-weather"}
    assert ranking(0.05, 0.0)[0] == "ana-lisbon"
    with_contiguity = ranking(0.05, 0.2)
    assert with_contiguity.index("bo-reply") < with_contiguity.index("bo-aside")


def test_a_turn_naming_the_far_end_of_an_asked_fact_is_credited_as_the_near_ends() -> None:
    """ "Where does Ana work?": Bo's "you work at Lisbon Labs" names the place of Ana's
    WORKS_AT, so it is tied to Ana in full, as her own turns are; a fact of a kind not asked
    for, or no question at all, leaves it to what it names."""
    labs = Entity("labs", "Lisbon Labs", "organisation", scope=SCOPE)
    works = Relation("r-works", "ana", "labs", "WORKS_AT")
    likes = Relation("r-likes", "ana", "fado", "LIKES")
    graph = Subgraph(entities={**SUBGRAPH.entities, "labs": labs}, relations=(works, likes))
    turns = [chunk("you-work-there", "Bo", 1), chunk("you-like-it", "Bo", 5)]
    mentions = {"you-work-there": ("labs",), "you-like-it": ("fado",)}
    energy = {"ana": 1.0, "bo": 0.2, "labs": 0.1, "fado": 0.1}

    def credits(asked: frozenset[str]) -> dict[str, ChunkCredit]:
        params = ActivationParams(topic_weight=0.0, contiguity=0.0)
        return credits_of(turns, mentions, params, energy=energy, subgraph=graph, asked=asked)

    told = credits(frozenset({"WORKS_AT"}))
    assert (told["you-work-there"].said_by, told["you-work-there"].said) == ("ana", 1.0)
    assert (told["you-work-there"].fact_type, told["you-work-there"].fact_end) == (
        "WORKS_AT",
        "labs",
    )
    assert told["you-like-it"].said_by == "bo" and told["you-like-it"].fact_type is None
    plain = credits(frozenset())
    assert plain["you-work-there"].said == pytest.approx(0.2)
    assert plain["you-work-there"].fact_type is None


def test_the_window_and_the_json_name_the_asked_fact_behind_a_credit() -> None:
    from explorer.core.scour import _credit_json
    from explorer.gui.score_chart import credit_notes

    told = ChunkCredit(1.0, "ana", False, 0.0, None, 0.0, None, 1.0, "WORKS_AT", "labs")
    names = {"ana": "Ana", "labs": "Lisbon Labs"}
    assert (
        credit_notes(told, names)[1]
        == "  the WORKS_AT asked of Ana, as it names Lisbon Labs (1.00)"
    )
    said = (_credit_json(told, names) or {})["said"]
    assert said["by"] == "fact" and said["name"] == "Ana"
    assert said["fact"] == {"type": "WORKS_AT", "named": {"id": "labs", "name": "Lisbon Labs"}}
    plain = told._replace(fact_type=None, fact_end=None, by_speaker=True)
    assert credit_notes(plain, names)[1] == "  who said it: Ana (1.00)"
    assert (_credit_json(plain, names) or {})["said"]["by"] == "speaker"
    answer = told._replace(fact_type=None, fact_end=None, said=0.7, reply_to="ana-asks")
    assert credit_notes(answer, names)[1] == "  whose turn it answers: Ana (0.70)"
    said = (_credit_json(answer, names) or {})["said"]
    assert (said["by"], said["reply_to"], said["name"]) == ("reply", "ana-asks", "Ana")
