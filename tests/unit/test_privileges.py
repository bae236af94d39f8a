"""Privilege names from settings, and the registry's refusal of calls it cannot make."""

from __future__ import annotations

import json

import pytest

from explorer.core.errors import InvalidArgument
from explorer.tools import CORE_MEMORY, ToolContext, execute_tool, privilege_bits


@pytest.mark.parametrize(
    ("names", "bits"),
    [("CORE_MEMORY", CORE_MEMORY), (" core_memory , ", CORE_MEMORY), ("none", 0), ("", 0)],
)
def test_privilege_names(names: str, bits: int) -> None:
    assert privilege_bits(names) == bits


def test_an_unknown_privilege_is_refused_by_name() -> None:
    with pytest.raises(InvalidArgument, match="unknown privilege 'ROOT'"):
        privilege_bits("CORE_MEMORY,ROOT")


async def test_missing_and_unexpected_arguments_are_error_objects() -> None:
    ctx = ToolContext(user_id="t", privileges=CORE_MEMORY, memory=None)
    missing = json.loads(await execute_tool("scour", {"n_chunks": 2}, ctx))
    assert missing == {"success": False, "error": "'scour' needs the arguments: query"}
    extra = json.loads(await execute_tool("memory_stats", {"scope": "x"}, ctx))
    assert extra["success"] is False and "scope" in extra["error"]
