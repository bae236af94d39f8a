"""What a memory holds at a glance: counts, time span, the scope tree, salient entities, examples.

``MemoryOverview`` is what the window shows before the first query (and after another memory is
opened): how many chunks, entities and relations there are, when the conversations happened,
which scopes hold what (``ScopeNode``, a tree with chunk and entity counts that include
everything below a node), the domains, the most salient entities with the relations among them
as a starting graph, and a few example queries made from those entities. ``scope_tree`` and
``example_queries`` are pure functions of store figures. Imports only the standard library and
core models.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime

from explorer.core.models import SCOPE_SEPARATOR, Entity, Relation, normalise_scope, scope_parts

#: How many example queries an overview offers.
EXAMPLES = 4
#: Entity types that make poor example questions (dates, numbers, the assistant itself).
UNASKED_TYPES = frozenset({"date", "time", "number", "agent"})


@dataclass(frozen=True)
class ScopeNode:
    """One level of the scope hierarchy; counts include every scope below it."""

    path: str
    chunks: int = 0
    entities: int = 0
    children: tuple[ScopeNode, ...] = ()

    @property
    def name(self) -> str:
        return scope_parts(self.path)[-1] if self.path else "(root)"

    def walk(self) -> Iterable[ScopeNode]:
        """This node and every node below it, parents before children."""
        yield self
        for child in self.children:
            yield from child.walk()

    def find(self, scope: str) -> ScopeNode | None:
        """The node at ``scope`` (any spelling of the same path), or ``None`` if none holds it."""
        wanted = normalise_scope(scope)
        return next((node for node in self.walk() if node.path == wanted), None)


def scope_tree(chunks: Mapping[str, int], entities: Mapping[str, int]) -> ScopeNode:
    """The tree of every scope that holds chunks or entities, under the root."""
    own: dict[str, list[int]] = {}
    for counts, column in ((chunks, 0), (entities, 1)):
        for scope, count in counts.items():
            path = normalise_scope(scope)
            own.setdefault(path, [0, 0])[column] += int(count)
    paths = set(own)
    for path in list(paths):
        parts = scope_parts(path)
        paths.update(SCOPE_SEPARATOR.join(parts[:depth]) for depth in range(len(parts)))
    paths.add("")

    def build(path: str) -> ScopeNode:
        depth = len(scope_parts(path))
        children = tuple(
            build(child)
            for child in sorted(paths)
            if child and len(scope_parts(child)) == depth + 1 and _is_below(child, path)
        )
        chunk_count, entity_count = own.get(path, [0, 0])
        return ScopeNode(
            path=path,
            chunks=chunk_count + sum(c.chunks for c in children),
            entities=entity_count + sum(c.entities for c in children),
            children=children,
        )

    return build("")


def _is_below(child: str, parent: str) -> bool:
    return not parent or child.startswith(parent + SCOPE_SEPARATOR)


def prefixed_counts(counts: Mapping[str, int], prefix: str) -> dict[str, int]:
    """The ``prefix<key>`` entries of a store's counts, by key (``scope:a/b`` → ``a/b``)."""
    return {key[len(prefix) :]: int(n) for key, n in counts.items() if key.startswith(prefix)}


def example_queries(entities: Sequence[Entity], limit: int = EXAMPLES) -> tuple[str, ...]:
    """Questions about the most salient entities, taking the types in turn (a person, a place,
    a thing, the next person…) so the examples show different corners of the memory."""
    by_type: dict[str, list[str]] = {}
    for entity in entities:
        name = " ".join(entity.name.split())
        if name and entity.type not in UNASKED_TYPES:
            by_type.setdefault(entity.type, []).append(name)
    asked: list[str] = []
    queues = list(by_type.items())
    while queues and len(asked) < limit:
        entity_type, names = queues.pop(0)
        asked.append(_question(entity_type, names.pop(0)))
        if names:
            queues.append((entity_type, names))
    return tuple(asked)


def _question(entity_type: str, name: str) -> str:
    if entity_type == "person":
        return f"What do we know about {name}?"
    if entity_type in ("place", "location"):
        return f"What happened in {name}?"
    return name


@dataclass(frozen=True)
class MemoryOverview:
    """See the module docstring. ``errors`` names a store that did not answer, by half."""

    chunks: int = 0
    entities: int = 0
    relations: int = 0
    first: datetime | None = None
    last: datetime | None = None
    scopes: ScopeNode = field(default_factory=lambda: ScopeNode(""))
    domains: Mapping[str, int] = field(default_factory=dict)
    salient: tuple[Entity, ...] = ()
    links: tuple[Relation, ...] = ()
    examples: tuple[str, ...] = ()
    errors: Mapping[str, str] = field(default_factory=dict)

    @property
    def empty(self) -> bool:
        return not self.chunks and not self.entities and not self.errors
