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


class _Hostile:
    """A key or value whose text conversion raises, as a hostile caller's object might."""

    def __str__(self) -> str:
        raise RuntimeError("hostile __str__")

    __repr__ = __str__

    def __hash__(self) -> int:
        return 1


@pytest.mark.parametrize(
    ("name", "args"),
    [
        ("scour", {}),
        ("scour", {_Hostile(): 1}),
        ("scour", {"query": _Hostile()}),
        ("scour", ["query"]),
        (_Hostile(), {}),
        ("nope", {}),
    ],
)
async def test_execute_tool_always_answers_with_an_error_object(name: object, args: object) -> None:
    ctx = ToolContext(user_id="t", privileges=CORE_MEMORY, memory=None)
    answer = json.loads(await execute_tool(name, args, ctx))  # type: ignore[arg-type]
    assert answer["success"] is False and answer["error"]


@pytest.mark.parametrize("field", ["user_id", "scope"])
async def test_a_context_of_the_wrong_types_is_an_error_object(field: str) -> None:
    fields: dict[str, object] = {"user_id": "t", "privileges": CORE_MEMORY, "memory": None}
    fields[field] = 42
    ctx = ToolContext(**fields)  # type: ignore[arg-type]
    answer = json.loads(await execute_tool("scour", {"query": "Lisbon"}, ctx))
    assert answer["success"] is False and "tool context" in answer["error"]


async def test_the_audit_line_escapes_the_caller_and_the_query(
    caplog: pytest.LogCaptureFixture,
) -> None:
    class _Stub:
        journal = None

        async def scour(self, request: object, policy: object = None) -> object:
            raise InvalidArgument("stop here")

    ctx = ToolContext(user_id="eve\nscour user=admin", privileges=CORE_MEMORY, memory=_Stub())
    with caplog.at_level("INFO", logger="explorer.audit"):
        await execute_tool("scour", {"query": "a\nb"}, ctx)
    lines = [r.getMessage() for r in caplog.records if r.name == "explorer.audit"]
    assert lines == ["scour user='eve\\nscour user=admin' query='a\\nb'"]
