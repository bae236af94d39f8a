"""Turns into chunks: the verbatim text, split at sentence boundaries only when a turn is long.

A chunk's text is always an exact slice of its turn's text and ``turn_offset`` says where the slice
starts, so a span inside a chunk maps back to the turn character for character. Positions count
chunks in conversation order. Ids and content hashes come from ``ids``; a turn without domain tags
gets the ones its words suggest (``lexicon.infer_domains``). Imports only the standard library,
core models and ingest helpers.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Iterator

from explorer.core.models import Chunk
from explorer.ingest.ids import chunk_id, content_hash
from explorer.ingest.importers import Turn
from explorer.ingest.lexicon import ABBREVIATIONS, infer_domains

MAX_CHUNK_CHARS = 1000

# A sentence ends at . ! ? or … (possibly repeated, possibly followed by closing quotes or
# brackets) before whitespace, or at a line break.
_BOUNDARY = re.compile(r"[.!?…]+[\"'”’)\]]*(?=\s)|\n")
_LAST_WORD = re.compile(r"(\w+)\.?$")


def sentence_spans(text: str) -> list[tuple[int, int]]:
    """``(start, end)`` of each sentence, whitespace trimmed; covers every non-blank character."""
    spans: list[tuple[int, int]] = []
    start = 0
    for match in _BOUNDARY.finditer(text):
        end = match.end()
        if match.group() != "\n" and _is_abbreviation(text, match.start(), match.group()):
            continue
        _add_trimmed(text, start, end, spans)
        start = end
    _add_trimmed(text, start, len(text), spans)
    return spans


def _is_abbreviation(text: str, dot: int, punctuation: str) -> bool:
    if punctuation != ".":
        return False
    word = _LAST_WORD.search(text, max(0, dot - 12), dot)
    return word is not None and word.group(1).casefold() in ABBREVIATIONS


def _add_trimmed(text: str, start: int, end: int, spans: list[tuple[int, int]]) -> None:
    while start < end and text[start].isspace():
        start += 1
    while end > start and text[end - 1].isspace():
        end -= 1
    if start < end:
        spans.append((start, end))


def split_text(text: str, max_chars: int = MAX_CHUNK_CHARS) -> list[tuple[int, int]]:
    """Spans of ``text`` no longer than ``max_chars``, cut between sentences where possible.

    A text that fits is one span covering all of it, whitespace included (the verbatim turn).
    """
    if len(text) <= max_chars:
        return [(0, len(text))]
    pieces: list[tuple[int, int]] = []
    current: tuple[int, int] | None = None
    for start, end in _bounded(sentence_spans(text), text, max_chars):
        if current is not None and end - current[0] <= max_chars:
            current = (current[0], end)
            continue
        if current is not None:
            pieces.append(current)
        current = (start, end)
    if current is not None:
        pieces.append(current)
    return pieces


def _bounded(
    spans: Iterable[tuple[int, int]], text: str, max_chars: int
) -> Iterator[tuple[int, int]]:
    """Sentences longer than the limit cut at the last space before it (or hard, if none)."""
    for start, end in spans:
        while end - start > max_chars:
            cut = text.rfind(" ", start + max_chars // 2, start + max_chars)
            cut = cut if cut > start else start + max_chars
            yield start, cut
            start = cut
            while start < end and text[start].isspace():
                start += 1
        if start < end:
            yield start, end


def chunk_turns(turns: Iterable[Turn], max_chars: int = MAX_CHUNK_CHARS) -> list[Chunk]:
    """Chunks of every turn, in order, positions counted per (scope, conversation)."""
    positions: Counter[tuple[str, str]] = Counter()
    chunks: list[Chunk] = []
    for turn in turns:
        domains = turn.domains or infer_domains(turn.text)
        key = (turn.scope, turn.conversation_id)
        said: set[str] = set()  # the pieces of this turn so far
        for start, end in split_text(turn.text, max_chars):
            text = turn.text[start:end]
            # A piece equal to an earlier one of its message hashes with its offset, so both are
            # kept; every other piece hashes as earlier versions stored it.
            offset = start if text in said else 0
            said.add(text)
            chunks.append(
                Chunk(
                    id=chunk_id(turn.scope, turn.conversation_id, turn.turn_id, start),
                    text=text,
                    conversation_id=turn.conversation_id,
                    position=positions[key],
                    speaker=turn.speaker,
                    timestamp=turn.timestamp,
                    domains=domains,
                    scope=turn.scope,
                    content_hash=content_hash(
                        turn.scope, turn.conversation_id, turn.speaker, turn.timestamp, text, offset
                    ),
                    turn_id=turn.turn_id,
                    turn_offset=start,
                    title=turn.title,
                )
            )
            positions[key] += 1
    return chunks
