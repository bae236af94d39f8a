"""No module binds a top-level name twice (a second regex of the same name silently replaces the
first for every function above it, and ruff does not flag a re-bound constant), and none keeps a
top-level name that nothing names again (a rule written and never wired in)."""

from __future__ import annotations

import ast
import re
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


def unused_names(source: str, named: Counter[str]) -> list[str]:
    """Top-level names a module binds that are named nowhere else: ``named`` counts every
    identifier of every module and test, this module included. A logger kept for later aside."""
    tree = ast.parse(source)
    bound = {
        target.id
        for node in tree.body
        for target in (node.targets if isinstance(node, ast.Assign) else [])
        if isinstance(target, ast.Name) and not target.id.startswith("__")
    }
    return sorted(name for name in bound - {"_log"} if named[name] < 2)


def identifiers(*texts: str) -> Counter[str]:
    return Counter(word for text in texts for word in IDENTIFIER.findall(text))


IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def test_unused_names_are_found() -> None:
    module = "A = 1\nB = A\n"
    assert unused_names(module, identifiers(module)) == ["B"]
    assert unused_names(module, identifiers(module, "from m import B")) == []


def test_no_module_keeps_a_top_level_name_nothing_uses() -> None:
    sources = {path: path.read_text(encoding="utf-8") for path in sorted(PACKAGE.rglob("*.py"))}
    tests = [p.read_text(encoding="utf-8") for p in Path(__file__).parent.parent.rglob("*.py")]
    named = identifiers(*sources.values(), *tests)
    found = {
        str(path.relative_to(PACKAGE)): names
        for path, source in sources.items()
        if (names := unused_names(source, named))
    }
    assert found == {}
