"""Stable identifiers and content hashes for everything ingest writes.

Ids are hashes of what identifies a record, never counters or random values, so importing the same
data again (or replaying an import after a crash) lands on the same rows and nodes and adds
nothing. Imports only the standard library.
"""

from __future__ import annotations

import hashlib
import unicodedata
from datetime import datetime

_SEPARATOR = "\x1f"  # the ASCII unit separator never occurs in the fields hashed


def _digest(*fields: str) -> str:
    return hashlib.sha256(_SEPARATOR.join(fields).encode("utf-8")).hexdigest()


def chunk_id(scope: str, conversation_id: str, turn_id: str, turn_offset: int) -> str:
    """The id of the chunk starting ``turn_offset`` characters into a turn."""
    return "c" + _digest("chunk", scope, conversation_id, turn_id, str(turn_offset))[:31]


def content_hash(
    scope: str,
    conversation_id: str,
    speaker: str,
    timestamp: datetime,
    text: str,
    offset: int = 0,
) -> str:
    """What makes two chunks the same words: the same speaker saying them in the same place, then.

    The timestamp is part of it, so the same sentence said on two days is two chunks, while a
    re-import of the same message is recognised as a duplicate. ``offset`` is where the chunk
    starts in its message, given only for a piece equal to an earlier piece of the same message:
    both are kept (verbatim), and every other piece hashes as it always has.
    """
    where = () if offset == 0 else (str(offset),)
    return _digest("content", scope, conversation_id, speaker, timestamp.isoformat(), text, *where)


def normalise_name(name: str) -> str:
    """The key names are merged on: case-folded, NFKC, single spaces, no possessive ending."""
    folded = " ".join(unicodedata.normalize("NFKC", name).casefold().split())
    for ending in ("'s", "’s", "'", "’"):
        if folded.endswith(ending) and len(folded) > len(ending):
            folded = folded[: -len(ending)]
            break
    return folded


# Entity types grouped into the kinds ids are made from. Fine types of named things (person,
# place, organisation) are guesses that can differ between conversations; hashing the coarse kind
# keeps "Paris" one node whichever guess a conversation made.
_TOPIC_TYPES = frozenset({"topic", "concept", "activity", "object"})
_TEMPORAL_TYPES = frozenset({"date", "time", "period", "event_time"})


def entity_kind(entity_type: str) -> str:
    """``temporal``, ``topic`` or ``named``: the part of an entity's type its id depends on."""
    folded = entity_type.casefold()
    if folded in _TEMPORAL_TYPES:
        return "temporal"
    if folded in _TOPIC_TYPES:
        return "topic"
    return "named"


def entity_id(scope: str, entity_type: str, name: str) -> str:
    """The id of the entity of this type's kind with this (normalised) name in this scope."""
    return "e" + _digest("entity", scope, entity_kind(entity_type), normalise_name(name))[:31]


def relation_id(scope: str, source_id: str, relation_type: str, target_id: str) -> str:
    """The id of one typed edge; the same fact stated again merges into it."""
    return "r" + _digest("relation", scope, source_id, relation_type, target_id)[:31]


def fold_letters(text: str) -> str:
    """Lower-case letters only, accents removed: how handles and names are compared."""
    decomposed = unicodedata.normalize("NFKD", text.casefold())
    return "".join(char for char in decomposed if char.isalpha() and char.isascii())
