"""The MCP tools' input schemas come from the tool signatures, without the server's ``ctx``."""

from __future__ import annotations

import pytest

from explorer.core.errors import InvalidArgument
from explorer.mcp_server import input_schema
from explorer.tools import discover_tools


def test_scour_schema_follows_its_signature() -> None:
    schema = input_schema("scour", discover_tools()["scour"])
    assert schema["required"] == ["query"]
    assert schema["additionalProperties"] is False
    assert schema["properties"] == {
        "query": {"type": "string"},
        "n_chunks": {"type": "integer", "default": 3},
        "kg_top_k": {"type": "integer", "default": 5},
        "domain": {"type": ["string", "null"], "default": None},
        "temporal": {"type": ["string", "null"], "default": None},
        "explain": {"type": "boolean", "default": False},
    }


def test_memory_stats_takes_nothing_from_the_client() -> None:
    schema = input_schema("memory_stats", discover_tools()["memory_stats"])
    assert schema["properties"] == {} and schema["required"] == []


async def _odd(names: list[str], ctx: object = None) -> str:
    return ""


def test_a_parameter_without_a_json_type_is_refused_by_name() -> None:
    with pytest.raises(InvalidArgument, match=r"odd\.names: no JSON Schema type"):
        input_schema("odd", _odd)
