"""scour's compact answer: what a model needs from a recall, without the trace.

``compact_answer`` turns a result in scour's full JSON shape (``ScourResult.to_json_dict``) into
the default answer of the tool: the seed's fields (``success``, ``query``, ``kg_entities`` /
``kg_count``, ``chunks`` / ``chunk_count``, ``kg_error`` / ``chunks_error``, ``domain_filter`` /
``temporal_filter``) with, per entity, its name, type, description, a few typed facts (never a
weak signal) as short lines with dates (``"A RELATION B (since): fact"``) and its provenance as
chunk ids with character spans (``"CHUNK_ID[start:end]"``, a slice of that chunk's text), and
per chunk its verbatim text, speaker, time and score. The ledger, the activation log, score
breakdowns and timings stay in the full shape (``explain``). Working from the full shape keeps
one source of truth for what a hit is. Imports the standard library and core models.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from explorer.core.asked import asked_kinds
from explorer.core.models import WEAK_RELATIONS

#: Relations shown per entity; the strongest first, one per distinct fact.
COMPACT_FACTS = 3
#: Provenance spans shown per entity (``provenance_count`` gives the full number).
COMPACT_PROVENANCE = 3
#: A fact text longer than this is cut at a word boundary and marked with "…".
FACT_CHARS = 120
SCORE_DIGITS = 3

SEED_FIELDS = ("kg_error", "chunks_error", "domain_filter", "temporal_filter")


def _day(value: Any) -> str | None:
    """An ISO time as its date: the day is what a model reasons with."""
    return value[:10] if isinstance(value, str) else None


def _short(text: str, limit: int = FACT_CHARS) -> str:
    if len(text) <= limit:
        return text
    cut = text[: limit - 1]
    space = cut.rfind(" ")
    return (cut[:space] if space > limit // 2 else cut).rstrip(" ,;:") + "…"


def _score(value: Any) -> float:
    return round(float(value or 0.0), SCORE_DIGITS)


def _fact(name: str, item: Mapping[str, Any]) -> str:
    """One relation as a line: ``A RELATION B (since[..until]): fact``."""
    other = str((item.get("neighbour") or {}).get("name") or "?")
    subject, target = (name, other) if item.get("direction") != "in" else (other, name)
    since, until = _day(item.get("valid_from")), _day(item.get("valid_to"))
    dates = f"{since or '?'}..{until}" if until else since
    line = f"{subject} {item.get('type')} {target}"
    if dates:
        line += f" ({dates})"
    fact = str(item.get("fact") or "")
    return f"{line}: {_short(fact)}" if fact else line


def _facts(
    name: str, relationships: Sequence[Mapping[str, Any]], asked: frozenset[str] = frozenset()
) -> list[str]:
    """The strongest typed facts, those of a kind the question asks for first, each fact text
    once; weak signals (a mention, two names in one turn) are not facts and are left to the
    full shape."""
    typed = [r for r in relationships if r.get("type") not in WEAK_RELATIONS]
    ranked = sorted(
        typed, key=lambda r: (r.get("type") not in asked, -float(r.get("confidence") or 0.0))
    )
    facts: list[str] = []
    seen: set[str] = set()
    for item in ranked:
        key = str(item.get("fact") or item.get("id"))
        if key in seen:
            continue
        seen.add(key)
        facts.append(_fact(name, item))
        if len(facts) == COMPACT_FACTS:
            break
    return facts


def compact_entity(
    entity: Mapping[str, Any], asked: frozenset[str] = frozenset()
) -> dict[str, Any]:
    provenance = entity.get("provenance") or []
    return {
        "id": entity["id"],
        "name": entity.get("name"),
        "type": entity.get("type"),
        "description": entity.get("description"),
        "scope": entity.get("scope"),
        "first_seen": _day(entity.get("first_seen")),
        "last_seen": _day(entity.get("last_seen")),
        "source": entity.get("source"),
        "score": _score(entity.get("score")),
        "facts": _facts(str(entity.get("name")), entity.get("relationships") or [], asked),
        "provenance": [
            f"{m['chunk_id']}[{m['start']}:{m['end']}]" for m in provenance[:COMPACT_PROVENANCE]
        ],
        "provenance_count": entity.get("provenance_count", len(provenance)),
    }


def compact_chunk(chunk: Mapping[str, Any]) -> dict[str, Any]:
    return {
        "id": chunk["id"],
        "text": chunk.get("text"),
        "speaker": chunk.get("speaker"),
        "timestamp": chunk.get("timestamp"),
        "conversation_id": chunk.get("conversation_id"),
        "domains": list(chunk.get("domains") or []),
        "source": chunk.get("source"),
        "score": _score(chunk.get("score")),
    }


def compact_answer(full: Mapping[str, Any]) -> dict[str, Any]:
    """The compact answer of a full scour result; a failure object is returned as it is."""
    if "kg_entities" not in full:
        return dict(full)
    asked = asked_kinds(str(full.get("query") or ""))
    entities = [compact_entity(e, asked) for e in full.get("kg_entities") or []]
    chunks = [compact_chunk(c) for c in full.get("chunks") or []]
    body: dict[str, Any] = {
        "success": full.get("success") is True,
        "query": full.get("query"),
        "kg_entities": entities,
        "kg_count": len(entities),
        "chunks": chunks,
        "chunk_count": len(chunks),
    }
    for key in ("error", *SEED_FIELDS):
        if full.get(key) is not None:
            body[key] = full[key]
    if full.get("unavailable"):
        body["unavailable"] = list(full["unavailable"])
    return body
