"""The incremental layout: existing nodes stay put, new ones start near their parent, and the same
request always gives the same answer. Pure numpy, no Qt."""

from __future__ import annotations

import math
import random

from hypothesis import given, settings
from hypothesis import strategies as st

from explorer.gui.layout import LayoutRequest, compute_layout


def _random_graph(n: int, m: int, seed: int = 1) -> tuple[list[str], list[tuple[str, str]]]:
    rnd = random.Random(seed)
    nodes = [f"n{i}" for i in range(n)]
    edges: set[tuple[str, str]] = set()
    for i in range(1, n):
        edges.add((nodes[i], nodes[rnd.randrange(0, i)]))
    while len(edges) < m:
        a, b = rnd.sample(range(n), 2)
        edges.add((nodes[a], nodes[b]))
    return nodes, sorted(edges)


def test_every_node_gets_a_finite_position() -> None:
    nodes, edges = _random_graph(60, 120)
    positions = compute_layout(LayoutRequest(nodes, edges)).positions
    assert set(positions) == set(nodes)
    assert all(math.isfinite(x) and math.isfinite(y) for x, y in positions.values())


def test_nodes_do_not_collapse_onto_each_other() -> None:
    nodes, edges = _random_graph(40, 60)
    positions = compute_layout(LayoutRequest(nodes, edges, edge_length=90.0)).positions
    closest = min(
        math.dist(positions[a], positions[b]) for i, a in enumerate(nodes) for b in nodes[i + 1 :]
    )
    assert closest > 5.0


def test_growth_keeps_existing_positions_exactly() -> None:
    nodes, edges = _random_graph(80, 160)
    first = compute_layout(LayoutRequest(nodes, edges)).positions
    new = [f"x{i}" for i in range(12)]
    parents = {node: nodes[i * 5] for i, node in enumerate(new)}
    grown = compute_layout(
        LayoutRequest(
            nodes + new,
            edges + [(child, parent) for child, parent in parents.items()],
            fixed=first,
            parents=parents,
        )
    ).positions
    for node in nodes:
        assert grown[node] == first[node]
    assert set(grown) == set(nodes) | set(new)


def test_new_nodes_start_near_their_parent() -> None:
    # A ring of fixed nodes with five new children on one of them: each child ends up much
    # nearer its parent than the ring's far side.
    ring = [f"r{i}" for i in range(16)]
    fixed = {
        node: (400 * math.cos(2 * math.pi * i / 16), 400 * math.sin(2 * math.pi * i / 16))
        for i, node in enumerate(ring)
    }
    edges = [(ring[i], ring[(i + 1) % 16]) for i in range(16)]
    children = [f"c{i}" for i in range(5)]
    parents = dict.fromkeys(children, "r0")
    result = compute_layout(
        LayoutRequest(
            ring + children,
            edges + [(c, "r0") for c in children],
            fixed=fixed,
            parents=parents,
            edge_length=90.0,
        )
    ).positions
    for child in children:
        to_parent = math.dist(result[child], fixed["r0"])
        assert to_parent < 3 * 90.0
        nearest_other = min(math.dist(result[child], fixed[r]) for r in ring[2:-1])
        assert to_parent < nearest_other


def test_children_without_edges_still_start_by_their_parent() -> None:
    fixed = {"hub": (1000.0, -500.0), "far": (-1000.0, 500.0)}
    result = compute_layout(
        LayoutRequest(["hub", "far", "a", "b"], [], fixed=fixed, parents={"a": "hub", "b": "hub"})
    ).positions
    for child in ("a", "b"):
        assert math.dist(result[child], fixed["hub"]) < math.dist(result[child], fixed["far"])


def test_same_request_same_answer() -> None:
    nodes, edges = _random_graph(50, 90, seed=7)
    request = LayoutRequest(nodes, edges, request_id=3)
    first = compute_layout(request)
    second = compute_layout(LayoutRequest(list(nodes), list(edges), request_id=3))
    assert first.positions == second.positions
    assert first.request_id == 3


def test_answer_does_not_depend_on_the_hash_seed() -> None:
    import subprocess
    import sys

    script = (
        "from explorer.gui.layout import LayoutRequest, compute_layout;"
        "r = compute_layout(LayoutRequest(['a','b','c','d'], [('a','b'),('b','c'),('c','d')]));"
        "print(sorted((k, round(x, 6), round(y, 6)) for k, (x, y) in r.positions.items()))"
    )
    outputs = {
        subprocess.run(
            [sys.executable, "-c", script],
            capture_output=True,
            text=True,
            env={"PYTHONHASHSEED": seed, "PATH": ""},
            check=True,
            cwd=str(__import__("pathlib").Path(__file__).resolve().parents[2]),
        ).stdout
        for seed in ("1", "2")
    }
    assert len(outputs) == 1


def test_empty_request() -> None:
    assert compute_layout(LayoutRequest([])).positions == {}


def test_fixed_nodes_unknown_to_the_request_are_ignored() -> None:
    result = compute_layout(LayoutRequest(["a"], fixed={"ghost": (1.0, 2.0)})).positions
    assert set(result) == {"a"}


@settings(max_examples=25, deadline=None)
@given(
    st.integers(min_value=1, max_value=25),
    st.integers(min_value=0, max_value=40),
    st.integers(min_value=0, max_value=8),
    st.integers(min_value=0, max_value=1000),
)
def test_property_growth_never_moves_what_is_placed(n: int, m: int, extra: int, seed: int) -> None:
    rnd = random.Random(seed)
    nodes = [f"n{i}" for i in range(n)]
    edges = [(rnd.choice(nodes), rnd.choice(nodes)) for _ in range(m)]
    first = compute_layout(LayoutRequest(nodes, edges)).positions
    new = [f"x{i}" for i in range(extra)]
    parents = {node: rnd.choice(nodes) for node in new}
    grown = compute_layout(
        LayoutRequest(nodes + new, edges + list(parents.items()), fixed=first, parents=parents)
    ).positions
    assert all(grown[node] == first[node] for node in nodes)
    assert all(math.isfinite(v) for point in grown.values() for v in point)


def test_a_fresh_layout_sets_the_smaller_components_close_under_the_largest() -> None:
    # A dense cluster of 12 beside two nodes with no relation: unpacked, repulsion sends the
    # two far out and a view fitted to everything shows the cluster tiny.
    cluster = [f"c{i}" for i in range(12)]
    edges = [(a, b) for i, a in enumerate(cluster) for b in cluster[i + 1 :]]
    result = compute_layout(LayoutRequest(nodes=[*cluster, "alone", "other"], edges=edges))
    points = result.positions
    xs = [points[node][0] for node in cluster]
    ys = [points[node][1] for node in cluster]
    width, height = max(xs) - min(xs), max(ys) - min(ys)
    for node in ("alone", "other"):
        x, y = points[node]
        assert min(xs) - 1 <= x <= min(xs) + max(width, 4 * 90.0) + 1
        assert max(ys) < y <= max(ys) + 2 * 90.0 + 1  # just under the cluster
    assert abs(points["alone"][0] - points["other"][0]) >= 90.0 - 1e-6  # not on top of each other
    assert width > 0 and height > 0


def test_many_nodes_without_relations_are_set_in_rows_not_one_column() -> None:
    cluster = [f"c{i}" for i in range(6)]
    edges = [(a, b) for i, a in enumerate(cluster) for b in cluster[i + 1 :]]
    alone = [f"a{i}" for i in range(60)]
    points = compute_layout(LayoutRequest(nodes=[*cluster, *alone], edges=edges)).positions
    xs = [points[node][0] for node in alone]
    ys = [points[node][1] for node in alone]
    assert max(xs) - min(xs) >= max(ys) - min(ys)  # wider than tall, like a pane
    spots = {(round(points[n][0]), round(points[n][1])) for n in alone}
    assert len(spots) == len(alone)  # none on top of another


def _clearance(positions: dict[str, tuple[float, float]], radii: dict[str, float]) -> float:
    """The least gap between two circles (negative when two overlap)."""
    nodes = list(positions)
    return min(
        math.dist(positions[a], positions[b]) - radii[a] - radii[b]
        for i, a in enumerate(nodes)
        for b in nodes[i + 1 :]
    )


def test_the_circles_of_a_dense_cluster_do_not_overlap() -> None:
    from explorer.gui.layout import NODE_GAP

    # Twenty well-connected entities, drawn large: forces alone pile them on each other.
    nodes = [f"n{i}" for i in range(20)]
    edges = [(a, b) for i, a in enumerate(nodes) for b in nodes[i + 1 :] if (i * 7 + len(b)) % 3]
    radii = {node: 12.0 + (i % 9) for i, node in enumerate(nodes)}
    fresh = compute_layout(LayoutRequest(nodes=nodes, edges=edges, radii=radii)).positions
    assert _clearance(fresh, radii) >= NODE_GAP - 0.5
    # Grown around fixed nodes: the new ones keep clear of the old and of each other.
    more = [f"m{i}" for i in range(15)]
    grown = compute_layout(
        LayoutRequest(
            nodes=nodes + more,
            edges=edges + [(nodes[0], m) for m in more],
            fixed=fresh,
            parents=dict.fromkeys(more, nodes[0]),
            radii={**radii, **dict.fromkeys(more, 7.0)},
        )
    ).positions
    assert all(grown[node] == fresh[node] for node in nodes)
    assert _clearance(grown, {**radii, **dict.fromkeys(more, 7.0)}) >= NODE_GAP - 0.5


def _across_lines(positions: dict[str, tuple[float, float]], edges: list[tuple[str, str]]) -> int:
    """How many times a circle of the default radius lies across a line it is not an end of."""
    from explorer.gui.layout import DEFAULT_RADIUS

    found = 0
    for a, b in edges:
        (ax, ay), (bx, by) = positions[a], positions[b]
        dx, dy = bx - ax, by - ay
        length2 = dx * dx + dy * dy
        for node, (px, py) in positions.items():
            along = ((px - ax) * dx + (py - ay) * dy) / length2 if length2 else -1.0
            if node in (a, b) or not 0.0 < along < 1.0:
                continue
            if math.hypot(px - ax - along * dx, py - ay - along * dy) < DEFAULT_RADIUS - 2.0:
                found += 1
    return found


def test_a_small_neighbourhood_draws_no_circle_across_a_line_it_is_not_on() -> None:
    # A node drawn over a line reads as one of its ends (a third person on the line from
    # someone to their plan): forty small fresh layouts keep their circles off lines.
    across = 0
    for seed in range(40):
        n = 6 + seed % 25
        nodes, edges = _random_graph(n, n + seed % 15, seed)
        fresh = compute_layout(LayoutRequest(nodes, edges)).positions
        across += _across_lines(fresh, edges)
    assert across <= 8
