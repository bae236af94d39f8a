"""Small conversations for tests that need a memory with something in it."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime, timedelta

from explorer.ingest.importers.base import Turn


def daily_turns(scope: str, speaker: str, text: str, days: int, start: datetime) -> list[Turn]:
    """One turn a day for ``days`` days from ``start``, each its own conversation; ``text``
    may name the ``{day}``, so no two turns are the same chunk."""
    return [
        Turn(
            scope=scope,
            conversation_id=f"c{day}",
            turn_id=f"t{day}",
            speaker=speaker,
            text=text.format(day=day),
            timestamp=start + timedelta(days=day),
        )
        for day in range(days)
    ]


def chat_turns(
    scope: str, conversation_id: str, lines: Sequence[tuple[str, str]], start: datetime
) -> list[Turn]:
    """One conversation of ``(speaker, text)`` lines, a minute apart from ``start``."""
    return [
        Turn(
            scope=scope,
            conversation_id=conversation_id,
            turn_id=str(index),
            speaker=speaker,
            text=text,
            timestamp=start + timedelta(minutes=index),
        )
        for index, (speaker, text) in enumerate(lines)
    ]
