"""The ``chatgpt`` format: ``conversations.json`` from a ChatGPT data export.

Each conversation is a tree of message nodes (``mapping``: node id → ``{message, parent,
children}``); the branch the user last saw is the chain of parents from ``current_node`` up to the
root, reversed. The conversation's title goes with each turn, for the chunk cards. User and
assistant messages with text are kept; system and tool messages, calls addressed to a tool, code
and other non-text content, hidden nodes and non-text parts (images, files) are left out. A message
without its own time takes the previous one's, or the conversation's. Imports only the standard
library and the importer base.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from datetime import datetime
from pathlib import Path

from explorer.ingest.importers.base import (
    BadValue,
    ImportLimits,
    ImportResult,
    Turn,
    check_name,
    check_text,
    epoch_timestamp,
    join_scope,
)
from explorer.ingest.importers.reading import read_document

KEPT_ROLES = frozenset({"user", "assistant"})
#: Content that is words said in the conversation (older exports name no type: text).
SAID_CONTENT = frozenset({"text", "multimodal_text"})


def read_chatgpt(path: Path, scope: str | None, limits: ImportLimits) -> ImportResult:
    document = read_document(path, limits)
    if isinstance(document, Mapping) and isinstance(document.get("conversations"), list):
        document = document["conversations"]
    if not isinstance(document, list):
        raise BadValue(f"expected a list of conversations, found {type(document).__name__}")
    result = ImportResult()
    record_scope = join_scope(scope, None)
    for index, conversation in enumerate(document):
        _read_conversation(index, conversation, record_scope, limits, result)
    return result


def _branch(mapping: Mapping[str, object], current: str) -> list[tuple[str, Mapping[str, object]]]:
    """The nodes from the root down to ``current``; a cycle or a dangling parent is an error."""
    chain: list[tuple[str, Mapping[str, object]]] = []
    seen: set[str] = set()
    node_id: object = current
    while node_id is not None:
        if not isinstance(node_id, str):
            raise BadValue(f"a parent id is {type(node_id).__name__}, not a string")
        if node_id in seen:
            raise BadValue(f"the parent chain loops at node {node_id[:40]!r}")
        seen.add(node_id)
        node = mapping.get(node_id)
        if not isinstance(node, Mapping):
            raise BadValue(f"node {node_id[:40]!r} is missing from the mapping or malformed")
        chain.append((node_id, node))
        node_id = node.get("parent")
    chain.reverse()
    return chain


def _latest_leaf(mapping: Mapping[str, object]) -> str | None:
    """The most recent childless node, for exports that lack ``current_node``."""
    best: tuple[float, str] | None = None
    for node_id, node in mapping.items():
        if not isinstance(node, Mapping) or node.get("children"):
            continue
        message = node.get("message")
        stamp = message.get("create_time") if isinstance(message, Mapping) else None
        number = stamp if isinstance(stamp, int | float) and abs(stamp) < 1e12 else 0.0
        key = (float(number), str(node_id))
        if best is None or key > best:
            best = key
    return None if best is None else best[1]


def _read_conversation(
    index: int, raw: object, scope: str, limits: ImportLimits, result: ImportResult
) -> None:
    where = f"conversation {index}"
    try:
        if not isinstance(raw, Mapping):
            raise BadValue(f"expected an object, found {type(raw).__name__}")
        conversation_id = check_name(
            raw.get("conversation_id") or raw.get("id") or f"conversation-{index}",
            "conversation id",
        )
        where = f"conversation {index} ({conversation_id})"
        title = _title(raw)
        mapping = raw.get("mapping")
        if not isinstance(mapping, Mapping):
            raise BadValue("missing or malformed field: mapping")
        current = raw.get("current_node") or _latest_leaf(mapping)
        if not isinstance(current, str):
            raise BadValue("no current_node and no leaf node to start from")
        branch = _branch(mapping, current)
        fallback = raw.get("create_time")
        last_time = epoch_timestamp(fallback, "create_time") if fallback is not None else None
    except (ValueError, OverflowError) as error:  # BadValue, or arithmetic on a bad value
        result.add_bad(where, str(error))
        return
    for node_id, node in branch:
        node_where = f"{where}, node {node_id[:40]}"
        try:
            turn, last_time = _turn(node_id, node, conversation_id, scope, last_time, limits)
            turn = turn if turn is None else replace(turn, title=title)
        except (ValueError, OverflowError) as error:  # BadValue, or arithmetic on a bad value
            result.add_bad(node_where, str(error))
            continue
        if turn is not None:
            result.add_turn(turn, node_where)


def _title(raw: Mapping[str, object]) -> str:
    """The conversation's title; "" when it has none fit to show (no title is worth losing the
    conversation over)."""
    try:
        return check_name(raw.get("title"), "title", numbers=False)
    except BadValue:
        return ""


def _text(content: Mapping[str, object], limits: ImportLimits) -> str:
    parts = content.get("parts")
    if parts is not None:
        if not isinstance(parts, list):
            raise BadValue("content.parts must be a list")
        texts = [
            check_text(part, "a content part", limits) for part in parts if isinstance(part, str)
        ]
        text = "\n".join(part for part in texts if part.strip())
    else:
        text = check_text(content.get("text", ""), "content.text", limits)
    if len(text) > limits.max_text_chars:
        raise BadValue(f"the message is longer than {limits.max_text_chars} characters")
    return text


def _turn(
    node_id: str,
    node: Mapping[str, object],
    conversation_id: str,
    scope: str,
    last_time: datetime | None,
    limits: ImportLimits,
) -> tuple[Turn | None, datetime | None]:
    message = node.get("message")
    if message is None:
        return None, last_time
    if not isinstance(message, Mapping):
        raise BadValue("message must be an object")
    author = message.get("author")
    role = author.get("role") if isinstance(author, Mapping) else None
    if not isinstance(role, str):
        raise BadValue("message.author.role is missing")
    stamp = message.get("create_time")
    if stamp is not None:
        last_time = epoch_timestamp(stamp, "message.create_time")
    metadata = message.get("metadata")
    hidden = isinstance(metadata, Mapping) and metadata.get("is_visually_hidden_from_conversation")
    if role not in KEPT_ROLES or hidden or message.get("recipient") not in (None, "all"):
        return None, last_time  # a tool's call or answer ("recipient": "browser") is no turn
    content = message.get("content")
    if not isinstance(content, Mapping):
        raise BadValue("message.content must be an object")
    if content.get("content_type", "text") not in SAID_CONTENT:
        return None, last_time  # code run, a search shown, the user's custom instructions
    text = _text(content, limits)
    if not text.strip():
        return None, last_time
    if last_time is None:
        raise BadValue("the message has no create_time and nothing before it has one")
    turn = Turn(
        scope=scope,
        conversation_id=conversation_id,
        turn_id=check_name(node_id, "node id"),
        speaker=role,
        text=text,
        timestamp=last_time,
    )
    return turn, last_time
