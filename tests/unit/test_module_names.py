"""No module binds a top-level name twice: a second regex of the same name silently replaces the
first for every function above it (ruff does not flag a re-bound constant)."""

from __future__ import annotations

import ast
from collections import Counter
from pathlib import Path

import explorer

PACKAGE = Path(explorer.__file__).parent


def rebound_names(source: str) -> list[str]:
    """Top-level names a module assigns more than once (plain and annotated assignments)."""
    bound: Counter[str] = Counter()
    for node in ast.parse(source).body:
        targets = node.targets if isinstance(node, ast.Assign) else []
        if isinstance(node, ast.AnnAssign) and node.value is not None:
            targets = [node.target]
        for target in targets:
            if isinstance(target, ast.Name):
                bound[target.id] += 1
    return sorted(name for name, count in bound.items() if count > 1)


def test_rebound_names_are_found() -> None:
    assert rebound_names("A = 1\nB = 2\nA = 3\n") == ["A"]
    assert rebound_names("A = 1\nif A:\n    A = 2\n") == []


def test_no_module_binds_a_top_level_name_twice() -> None:
    found = {
        str(path.relative_to(PACKAGE)): names
        for path in sorted(PACKAGE.rglob("*.py"))
        if (names := rebound_names(path.read_text(encoding="utf-8")))
    }
    assert found == {}
