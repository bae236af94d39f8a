"""Chunk credit: the share of spreading activation a kept chunk takes, and where it comes from.

Activation spreads over entities; a chunk is no node of that graph, so it is credited with the
energy of what it is tied to, relative to the strongest seed. Three ties count, as a weighted
mean (``ActivationParams``):

- **who said it** (weight ``1 - topic_weight - contiguity``): the speaker's energy in full (the
  person entity of that name, or failing one of that alias, with the most energy), or
  ``mention_weight`` of the strongest entity the chunk mentions if that is more; in a conversation
  the other side names the person they answer, so naming someone says less about a turn than saying
  it does; a turn that names one end of a fact of a kind the question asks for (``asked``: "where
  does Tama work?" asks for ``WORKS_AT``) is tied to the other end in full, as if that one said it:
  "you work at Xero" is Tama's answer whoever typed it; and a turn answering a kept turn (the chunk
  just before it in the same conversation, said by another person within ``REPLY_GAP``) is tied to
  that turn's speaker by ``reply_weight`` of their energy: in a chat the answer to what someone
  asked or said is the other side's next message, often hours later ("is that near you?" / "same
  floor!! you can stay with us"), but not the first turn of a session weeks on;
- **what it is about** (``topic_weight``): the energy of the strongest entity the chunk mentions
  that is no person. Every turn of a person the query names takes that person's full energy,
  so without this the graph could not tell their turns apart;
- **what came just before or after it** (``contiguity``): how well the chunk's neighbour in the
  same conversation (position one before or after, within one session, as the lexical route
  draws sessions) matched the query, relative to the best-matching chunk. Episodic recall is
  contiguous: recalling one turn brings back the turns around it, where an answer often sits
  ("which ward did they put you on?" / "cardiology, H4").

A neighbour's match is its own score, credited with the entities it names and is about but not
with its speaker's energy: in a chat between two people every other turn is the named person's,
so passing that on lifted the turns next to any of theirs, nearly every turn, and drowned out
the one next to the turn that matched (the README gives the measurements). Activation only ever
lifts a chunk: counting the signal adds its weight to the chunk's weighted mean, so a chunk
whose credit is below its own score keeps the score it passed the gates with. Deterministic and
independent of input order. Imports only the standard library and core.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from datetime import datetime, timedelta
from typing import NamedTuple

from explorer.core.activation import ActivationLog
from explorer.core.candidates import Associations, Candidate, CandidateKind
from explorer.core.gates import Scored
from explorer.core.lexical import LexicalParams
from explorer.core.models import Chunk, Entity
from explorer.core.policy import ActivationParams
from explorer.core.scoring import Scorer

#: Entity types whose members are linked to the chunks they said (a chunk's speaker).
SPEAKER_TYPES = frozenset({"person", "agent"})

#: Neighbouring chunks further apart than this belong to different sessions (the lexical
#: route's definition, so both speak of the same runs of turns).
SESSION_GAP = LexicalParams().session_gap

#: The longest a chat's answer may come after the turn it answers: a day, not a session's hour
#: (people answer a message hours later; a conversation picked up weeks on answers nothing).
REPLY_GAP = timedelta(days=1)

_Place = tuple[str, str, int]  # scope, conversation id, position
_Fact = tuple[str, str]  # the kind of an asked-for fact, the end a chunk names


class ChunkCredit(NamedTuple):
    """Where a kept chunk's activation credit came from (energies relative to the top seed).

    ``said_by`` is the entity behind the first tie: the speaker, or the mentioned entity when
    ``mention_weight`` of its energy was more (``by_speaker`` tells which), or the one end of an
    asked-for fact whose other end, ``fact_end``, the chunk names (``fact_type`` its kind,
    ``None`` for the other three), or the speaker of the kept turn ``reply_to`` it answers;
    ``topic_of`` the
    non-person entity of the second; ``next_to`` the neighbouring chunk of the third, with its
    match relative to the best-matching chunk. ``credit`` is the weighted mean, the
    activation signal the chunk was scored with when it lifted the chunk.
    """

    said: float
    said_by: str | None
    by_speaker: bool
    topic: float
    topic_of: str | None
    contiguity: float
    next_to: str | None
    credit: float
    fact_type: str | None = None
    fact_end: str | None = None
    reply_to: str | None = None


def speaker_key(name: str) -> str:
    """A speaker's name as compared with entity names: case folded, spaces collapsed."""
    return " ".join(name.casefold().split())


def _active(log: ActivationLog, associations: Associations) -> list[Entity]:
    """The subgraph's entities activation reached (only those can earn or give credit)."""
    entities = associations.subgraph.entities
    return [entities[node] for node in log.energy if node in entities]


def _speakers(
    log: ActivationLog, associations: Associations, candidates: Sequence[Candidate]
) -> dict[str, str]:
    """For each speaker name, the active person entity of that name with the most energy, or
    failing one, of that alias (one person writing under two names is one speaker)."""
    energy = log.energy
    entities = [c.record for c in candidates if isinstance(c.record, Entity)]
    people = [
        entity
        for entity in [*entities, *_active(log, associations)]
        if entity.type in SPEAKER_TYPES and entity.id in energy
    ]

    def strongest(names: Callable[[Entity], Iterable[str]]) -> dict[str, str]:
        found: dict[str, str] = {}
        for entity in people:
            for key in map(speaker_key, names(entity)):
                held = found.get(key)
                if held is None or (energy[entity.id], held) > (energy[held], entity.id):
                    found[key] = entity.id
        return found

    return {**strongest(lambda e: e.aliases), **strongest(lambda e: (e.name,))}


def _persons(
    log: ActivationLog, associations: Associations, candidates: Sequence[Candidate]
) -> set[str]:
    """The persons among the candidates and the active entities (what a topic is not)."""
    persons = {
        c.id for c in candidates if isinstance(c.record, Entity) and c.record.type in SPEAKER_TYPES
    }
    persons.update(e.id for e in _active(log, associations) if e.type in SPEAKER_TYPES)
    return persons


def _lifts(item: Scored, amount: float) -> bool:
    """Whether counting ``amount`` as the activation signal would raise ``item``'s score.

    A weighted mean rises when a signal above it is added, so compare with the score before
    the scope factor; this spares building a score that would be thrown away.
    """
    return item.factor > 0.0 and amount > item.score / item.factor


def _lift(item: Scored, amount: float, scorer: Scorer) -> Scored:
    if not _lifts(item, amount):
        return item
    signals = item.signals._replace(activation=amount)
    lifted = Scored.of(item.candidate, item.distance, item.factor, signals, scorer)
    return lifted if lifted.score > item.score else item


def _asked_facts(
    associations: Associations, relative: Mapping[str, float], asked: frozenset[str]
) -> dict[str, tuple[float, str, str]]:
    """For each far end of a fact of an asked kind from an active node: that node's energy, the
    node and the kind, from the strongest such fact (ties: the smaller relation id, so input
    order never counts). Only active nodes give energy, so only their relations are read."""
    best: dict[str, tuple[float, str, str, str]] = {}
    adjacency = associations.index.adjacency
    for near, energy in relative.items():
        if not energy > 0.0:
            continue
        for far, relation_id, kind, _ in adjacency.get(near, ()):
            if kind not in asked:
                continue
            held = best.get(far)
            if held is None or energy > held[0] or (energy == held[0] and relation_id < held[3]):
                best[far] = (energy, near, kind, relation_id)
    return {node: (energy, near, kind) for node, (energy, near, kind, _) in best.items()}


def _place(chunk: Chunk) -> _Place:
    return (chunk.scope, chunk.conversation_id, chunk.position)


def credit_chunks(
    kept: Sequence[Scored],
    scorer: Scorer,
    log: ActivationLog,
    strongest: float,
    associations: Associations,
    candidates: Sequence[Candidate],
    params: ActivationParams,
    asked: frozenset[str] = frozenset(),
) -> tuple[list[Scored], dict[str, ChunkCredit]]:
    """``kept`` with every chunk re-scored with its credit (see the module docstring), and
    where each chunk's credit came from; ``asked`` are the kinds of fact the query asks for."""
    if not strongest > 0.0:
        return list(kept), {}
    speakers = _speakers(log, associations, candidates)
    persons = _persons(log, associations, candidates) if params.topic_weight > 0.0 else set[str]()
    mentions = associations.chunk_entities
    relative = {node: min(1.0, amount / strongest) for node, amount in log.energy.items()}
    facts = _asked_facts(associations, relative, asked) if asked else {}
    topic_weight, contiguity, mention_weight = (
        params.topic_weight,
        params.contiguity,
        params.mention_weight,
    )
    said_weight = 1.0 - topic_weight - contiguity
    # A neighbour's strength is scored in the proportions the final credit uses, without
    # contiguity: its share is spread over the other two.
    first_scale = 1.0 / (1.0 - contiguity) if contiguity < 1.0 else 0.0
    answered = _answered(kept, speakers, relative) if params.reply_weight > 0.0 else {}
    owns: dict[int, ChunkCredit] = {}
    strength: dict[_Place, float] = {}
    places: dict[int, _Place] = {}
    for index, item in enumerate(kept):
        candidate = item.candidate
        if candidate.kind is not CandidateKind.CHUNK:
            continue
        mentioned, mentioned_node = 0.0, None
        topic, topic_node = 0.0, None
        for node in mentions.get(candidate.id, ()):
            amount = relative.get(node, 0.0)
            if amount > mentioned:
                mentioned, mentioned_node = amount, node
            if amount > topic and node not in persons:
                topic, topic_node = amount, node
        said, said_by, by_speaker = mention_weight * mentioned, mentioned_node, False
        fact: _Fact | None = None
        for node in sorted(mentions.get(candidate.id, ())) if facts else ():
            found = facts.get(node)
            if found is not None and found[0] > said:
                said, said_by, fact = found[0], found[1], (found[2], node)
        record = candidate.record
        reply_to: str | None = None
        if isinstance(record, Chunk) and record.speaker:
            key = speaker_key(record.speaker)
            speaker = speakers.get(key)
            turn = answered.get(_place(record))
            if (
                turn is not None
                and turn.person != speaker  # no one answers themselves
                and timedelta(0) <= record.timestamp - turn.moment <= REPLY_GAP
            ):
                amount = params.reply_weight * turn.energy
                if amount > said:
                    said, said_by, fact, reply_to = amount, turn.person, None, turn.chunk_id
            if speaker is not None and relative.get(speaker, 0.0) >= said:
                said, said_by, by_speaker, fact = relative.get(speaker, 0.0), speaker, True, None
                reply_to = None
        own = said_weight * said + topic_weight * topic
        fact_type, fact_end = fact or (None, None)
        owns[index] = ChunkCredit(
            said,
            said_by,
            by_speaker,
            topic,
            topic_node,
            0.0,
            None,
            own,
            fact_type,
            fact_end,
            reply_to,
        )
        if contiguity > 0.0 and isinstance(record, Chunk):
            # What the turn matched and what it is about, not who said it (module docstring).
            about = (said_weight * mention_weight * mentioned + topic_weight * topic) * first_scale
            first = item.score
            if _lifts(item, about):
                signals = item.signals._replace(activation=about)
                first = max(first, scorer.relevance(signals, item.factor))
            place = places[index] = _place(record)
            strength[place] = max(strength.get(place, 0.0), first)

    neighbours = _contiguous(kept, places, strength) if strength else {}
    credited: list[Scored] = []
    credits: dict[str, ChunkCredit] = {}
    for index, item in enumerate(kept):
        own_credit = owns.get(index)
        if own_credit is None:
            credited.append(item)
            continue
        near, next_to = neighbours.get(index, (0.0, None))
        credit = own_credit._replace(
            contiguity=near, next_to=next_to, credit=own_credit.credit + contiguity * near
        )
        credits[item.candidate.id] = credit
        credited.append(_lift(item, credit.credit, scorer))
    return credited, credits


class _Turn(NamedTuple):
    """A kept turn whose speaker has energy, as the turn after it sees it."""

    person: str
    energy: float
    moment: datetime
    chunk_id: str


def _answered(
    kept: Sequence[Scored], speakers: Mapping[str, str], relative: Mapping[str, float]
) -> dict[_Place, _Turn]:
    """For each place just after a kept turn whose speaker has energy: that turn (of several
    chunks at one place, the one with the smallest id, so input order never counts)."""
    turns: dict[_Place, _Turn] = {}
    for item in kept:
        record = item.candidate.record
        if not isinstance(record, Chunk) or not record.speaker:
            continue
        key = speaker_key(record.speaker)
        person = speakers.get(key)
        energy = relative.get(person, 0.0) if person is not None else 0.0
        if person is None or not energy > 0.0:
            continue
        scope, conversation, position = _place(record)
        after = (scope, conversation, position + 1)
        held = turns.get(after)
        if held is None or record.id < held.chunk_id:
            turns[after] = _Turn(person, energy, record.timestamp, record.id)
    return turns


def _contiguous(
    kept: Sequence[Scored], places: Mapping[int, _Place], strength: Mapping[_Place, float]
) -> dict[int, tuple[float, str]]:
    """Per chunk (by index in ``kept``): its strongest neighbour's strength relative to the top,
    and that neighbour's id.

    A neighbour is the chunk one position before or after in the same scope and conversation,
    at most ``SESSION_GAP`` away in time; a chunk without one gets nothing.
    """
    top = max(strength.values())
    if not top > 0.0:
        return {}
    moments: dict[_Place, tuple[datetime, str]] = {}
    for index, place in places.items():
        record = kept[index].candidate.record
        if isinstance(record, Chunk):
            moments.setdefault(place, (record.timestamp, record.id))
    found: dict[int, tuple[float, str]] = {}
    for index, (scope, conversation, position) in places.items():
        moment = moments[(scope, conversation, position)][0]
        best, best_id = 0.0, ""
        for step in (-1, 1):
            place = (scope, conversation, position + step)
            other = moments.get(place)
            if other is None or abs(other[0] - moment) > SESSION_GAP:
                continue
            if strength[place] > best:
                best, best_id = strength[place], other[1]
        if best > 0.0:
            found[index] = (best / top, best_id)
    return found
