"""The overview's pure parts: the scope tree with counts that include everything below a node,
and example questions taken in turn from the types of the most salient entities."""

from __future__ import annotations

from explorer.core.models import Entity
from explorer.core.overview import example_queries, prefixed_counts, scope_tree


def test_scope_tree_sums_below_each_node_and_finds_any_spelling() -> None:
    chunks = {"acme/ana": 3, "acme/bo/c1": 2, "me": 5, "": 1}
    entities = {"acme/ana": 4, "acme": 1}
    root = scope_tree(chunks, entities)
    assert (root.path, root.chunks, root.entities) == ("", 11, 5)
    acme = root.find("acme")
    assert acme is not None and (acme.chunks, acme.entities) == (5, 5)
    assert [child.path for child in acme.children] == ["acme/ana", "acme/bo"]
    bo = root.find("/acme//bo/")
    assert bo is not None and bo.chunks == 2 and bo.entities == 0
    assert root.find("acme/nobody") is None
    assert [node.path for node in root.walk()] == [
        "",
        "acme",
        "acme/ana",
        "acme/bo",
        "acme/bo/c1",
        "me",
    ]


def test_examples_take_the_types_in_turn_and_skip_poor_ones() -> None:
    people = [Entity(f"p{i}", name, "person") for i, name in enumerate(["Ana", "Bo", "Cy"])]
    others = [
        Entity("d", "2026-06", "date"),
        Entity("a", "Assistant", "agent"),
        Entity("l", "Lisbon", "place"),
        Entity("t", "Tern", "other"),
    ]
    asked = example_queries([*people, *others], limit=4)
    assert asked == (
        "What do we know about Ana?",
        "What happened in Lisbon?",
        "Tern",
        "What do we know about Bo?",
    )
    assert example_queries([others[0], others[1]]) == ()


def test_prefixed_counts() -> None:
    counts = {"chunks": 9, "scope:a/b": 2, "scope:": 1, "domain:x": 3}
    assert prefixed_counts(counts, "scope:") == {"a/b": 2, "": 1}
