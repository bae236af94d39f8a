"""Incremental force-directed layout for the neighbourhood graph, as a pure function.

The graph view sends a ``LayoutRequest`` (node ids, edges, the positions that must stay where they
are, and which node each new one grew from) to a worker thread and gets back positions for the new
nodes. Existing nodes never move, so the picture does not jump when the graph grows; a new node
starts beside its parent, with its siblings fanned out away from the rest of the graph, and then
settles under Fruchterman–Reingold forces computed with numpy. The result depends only on the
request, never on hash seeds or timing. Imports numpy, networkx (for the graph's components) and
the standard library only (no Qt), so it can run in an executor and be tested without a display.
"""

from __future__ import annotations

import math
import zlib
from collections import defaultdict, deque
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import networkx as nx
import numpy as np

Point = tuple[float, float]

GOLDEN_ANGLE = math.pi * (3.0 - math.sqrt(5.0))
DEFAULT_RADIUS = 20.0
#: Space kept between two circles, so neither covers the other's edge ends or label.
NODE_GAP = 14.0
SEPARATION_ROUNDS = 20
#: The most a fresh layout is scaled up to clear its circles of each other.
MAX_SPREAD = 3.0
#: Space kept between a circle and a line it is not an end of, in layouts of up to
#: ``CLEAR_EDGES_UP_TO`` nodes (a larger one is a shape to read, not a set of lines).
EDGE_CLEARANCE = 6.0
CLEAR_EDGES_UP_TO = 300
EDGE_CLEARING_ROUNDS = 4


@dataclass(frozen=True)
class LayoutRequest:
    """What to lay out: every node id, the edges, and what is already placed.

    ``fixed`` positions are returned unchanged. ``parents`` says which node a new node was
    expanded from; new nodes without a placed parent are seeded beside any placed neighbour, or
    on a spiral around what is already placed.
    """

    nodes: Sequence[str]
    edges: Sequence[tuple[str, str]] = ()
    fixed: Mapping[str, Point] = field(default_factory=dict)
    parents: Mapping[str, str] = field(default_factory=dict)
    edge_length: float = 90.0
    iterations: int | None = None
    request_id: int = 0
    #: Each node's drawn radius; a node not listed has ``DEFAULT_RADIUS``.
    radii: Mapping[str, float] = field(default_factory=dict)


@dataclass(frozen=True)
class LayoutResult:
    """Positions for every node of the request (fixed ones included, unchanged)."""

    request_id: int
    positions: dict[str, Point]


def _unit_hash(text: str) -> float:
    """A stable number in [0, 1) per id; Python's ``hash`` is salted per process."""
    return (zlib.crc32(text.encode("utf-8")) & 0xFFFFFFFF) / 2**32


def _default_iterations(free: int, total: int) -> int:
    # The work is free × total per step; fewer steps when that grows keeps a 1,000-node layout
    # inside its time budget, and seeding beside parents means few steps are needed anyway.
    pairs = free * total
    if pairs <= 40_000:
        return 120
    if pairs <= 250_000:
        return 70
    return 40


def _seed_positions(
    index: dict[str, int],
    adjacency: list[list[int]],
    pos: np.ndarray,
    placed: np.ndarray,
    parents: Mapping[str, str],
    ids: Sequence[str],
    edge_length: float,
) -> None:
    """Give every unplaced node a starting point next to its parent or a placed neighbour."""
    n = len(ids)
    centre = pos[placed].mean(axis=0) if placed.any() else np.zeros(2)

    parent_of: dict[int, int] = {}
    kids_of: dict[int, list[int]] = defaultdict(list)
    for child_id, parent_id in parents.items():
        ci, pi = index.get(child_id), index.get(parent_id)
        if ci is not None and pi is not None and ci != pi and not placed[ci]:
            parent_of[ci] = pi
            kids_of[pi].append(ci)

    children: dict[int, list[int]] = defaultdict(list)
    queue: deque[int] = deque()
    seen = placed.copy()

    def claim(child: int, parent: int) -> None:
        seen[child] = True
        children[parent].append(child)
        queue.append(child)

    def place_children(parent: int) -> None:
        kids = children.pop(parent, [])
        if not kids:
            return
        kids.sort(key=lambda i: ids[i])
        outward = pos[parent] - centre
        norm = float(np.hypot(*outward))
        base = (
            math.atan2(outward[1], outward[0])
            if norm > 1e-9
            else 2 * math.pi * _unit_hash(ids[parent])
        )
        # Fan the siblings over a half circle pointing away from the graph when the parent has a
        # placed side, over the full circle otherwise.
        spread = math.pi if norm > 1e-9 else 2 * math.pi
        count = len(kids)
        ring = edge_length * (0.8 + 0.15 * math.sqrt(count))
        for order, kid in enumerate(kids):
            offset = (order + 0.5) / count - 0.5 if spread < 2 * math.pi else order / count
            angle = base + spread * offset
            jitter = 0.85 + 0.3 * _unit_hash(ids[kid])
            pos[kid] = pos[parent] + ring * jitter * np.array([math.cos(angle), math.sin(angle)])
            placed[kid] = True

    # Explicit parents first, then anything reachable from a placed node, breadth first.
    for child in sorted(parent_of, key=lambda i: ids[i]):
        if placed[parent_of[child]]:
            claim(child, parent_of[child])
    for start in [i for i in range(n) if placed[i]]:
        for neighbour in adjacency[start]:
            if not seen[neighbour]:
                claim(neighbour, start)
    for parent in sorted(children, key=lambda i: ids[i]):
        place_children(parent)

    spiral = 0
    while True:
        while queue:
            node = queue.popleft()
            for neighbour in adjacency[node]:
                if not seen[neighbour]:
                    claim(neighbour, node)
            for child in kids_of.get(node, ()):
                if not seen[child]:
                    claim(child, node)
            place_children(node)
        remaining = [i for i in range(n) if not placed[i]]
        if not remaining:
            return
        # A component with nothing placed: start it at its best-connected node, on a spiral
        # outside everything placed so far.
        root = max(remaining, key=lambda i: (len(adjacency[i]), ids[i]))
        angle = spiral * GOLDEN_ANGLE
        if placed.any():
            centre = pos[placed].mean(axis=0)
            radius = float(np.max(np.linalg.norm(pos[placed] - centre, axis=1)))
            distance = radius + edge_length * 1.5
        else:
            distance = 0.0
        pos[root] = centre + distance * np.array([math.cos(angle), math.sin(angle)])
        placed[root] = True
        seen[root] = True
        queue.append(root)
        spiral += 1


def compute_layout(request: LayoutRequest) -> LayoutResult:
    """Positions for every node: fixed ones unchanged, new ones seeded and relaxed."""
    ids: list[str] = list(dict.fromkeys(request.nodes))
    index = {node: i for i, node in enumerate(ids)}
    n = len(ids)
    if n == 0:
        return LayoutResult(request.request_id, {})
    k = float(request.edge_length)

    edge_pairs = sorted(
        {
            (min(index[a], index[b]), max(index[a], index[b]))
            for a, b in request.edges
            if a in index and b in index and a != b
        }
    )
    adjacency: list[list[int]] = [[] for _ in range(n)]
    for a, b in edge_pairs:
        adjacency[a].append(b)
        adjacency[b].append(a)
    for neighbours in adjacency:
        neighbours.sort(key=lambda i: ids[i])

    pos = np.zeros((n, 2), dtype=np.float64)
    fixed = np.zeros(n, dtype=bool)
    for node, (x, y) in request.fixed.items():
        i = index.get(node)
        if i is not None:
            pos[i] = (x, y)
            fixed[i] = True
    placed = fixed.copy()
    _seed_positions(index, adjacency, pos, placed, request.parents, ids, k)

    free = np.flatnonzero(~fixed)
    if free.size:
        iterations = request.iterations or _default_iterations(int(free.size), n)
        _relax(
            pos,
            free,
            np.asarray(edge_pairs, dtype=np.int64).reshape(-1, 2),
            k,
            iterations,
            gravity=not fixed.any(),
        )
        radii = np.asarray(
            [request.radii.get(node, DEFAULT_RADIUS) for node in ids], dtype=np.float64
        )
        if not fixed.any():
            _spread_out(pos, radii)
            _pack_components(pos, adjacency, k)
        edges = np.asarray(edge_pairs, dtype=np.int64).reshape(-1, 2)
        # A neighbourhood read line by line: off the lines, then apart, twice (the circles'
        # clearance has the last word). A larger graph is a shape to read: apart once.
        clearing = edges.size > 0 and n <= CLEAR_EDGES_UP_TO
        for _ in range(2 if clearing else 1):
            if clearing:
                _clear_edges(pos, free, edges, radii)
            _separate(pos, free, radii)
    positions = {node: (float(pos[i, 0]), float(pos[i, 1])) for node, i in index.items()}
    for node, point in request.fixed.items():
        if node in positions:
            positions[node] = (float(point[0]), float(point[1]))
    return LayoutResult(request.request_id, positions)


def _relax(
    pos: np.ndarray,
    free: np.ndarray,
    edges: np.ndarray,
    k: float,
    iterations: int,
    *,
    gravity: bool,
) -> None:
    """Fruchterman–Reingold steps that move only the ``free`` rows of ``pos``."""
    n = pos.shape[0]
    is_free = np.zeros(n, dtype=bool)
    is_free[free] = True
    # Only edges touching a free node exert a force worth computing.
    if edges.size:
        edges = edges[is_free[edges[:, 0]] | is_free[edges[:, 1]]]
    xs = np.ascontiguousarray(pos[:, 0], dtype=np.float32)
    ys = np.ascontiguousarray(pos[:, 1], dtype=np.float32)
    mover = free.astype(np.int64)
    k2 = np.float32(k * k)
    inv_k = np.float32(1.0 / k)
    # Repulsion is cut off beyond a few edge lengths so that far-away clusters do not push a
    # local expansion around.
    cutoff2 = np.float32((4.0 * k) ** 2)
    floor = np.float32(1e-2)
    temperature = k * 0.8
    cooling = temperature / max(iterations, 1)
    block = max(1, min(mover.size, 2_000_000 // max(n, 1)))
    dist2 = np.empty((block, n), dtype=np.float32)
    weight = np.empty((block, n), dtype=np.float32)
    near = np.empty((block, n), dtype=bool)
    fx = np.zeros(n, dtype=np.float32)
    fy = np.zeros(n, dtype=np.float32)
    for _ in range(iterations):
        fx.fill(0.0)
        fy.fill(0.0)
        for start in range(0, mover.size, block):
            rows = mover[start : start + block]
            size = rows.size
            d2, w, close = dist2[:size], weight[:size], near[:size]
            # With w_ij = k² / d_ij² the push on i is Σ_j w_ij (p_i − p_j) = p_i Σ_j w_ij − W p:
            # two matrix-vector products instead of two more passes over the n×m block. einsum,
            # not ``@``: BLAS threads fight over a busy machine's cores and run 5× slower.
            np.subtract(xs[rows, None], xs, out=d2)
            np.multiply(d2, d2, out=d2)
            np.subtract(ys[rows, None], ys, out=w)
            np.multiply(w, w, out=w)
            np.add(d2, w, out=d2)
            np.maximum(d2, floor, out=d2)
            np.divide(k2, d2, out=w)
            np.less_equal(d2, cutoff2, out=close)
            np.multiply(w, close, out=w)
            w[np.arange(size), rows] = 0.0
            total = w.sum(axis=1)
            fx[rows] = xs[rows] * total - np.einsum("ij,j->i", w, xs)
            fy[rows] = ys[rows] * total - np.einsum("ij,j->i", w, ys)
        if edges.size:
            ex = xs[edges[:, 1]] - xs[edges[:, 0]]
            ey = ys[edges[:, 1]] - ys[edges[:, 0]]
            stretch = np.sqrt(ex * ex + ey * ey) * inv_k
            ex *= stretch
            ey *= stretch
            fx += np.bincount(edges[:, 0], weights=ex, minlength=n).astype(np.float32)
            fx -= np.bincount(edges[:, 1], weights=ex, minlength=n).astype(np.float32)
            fy += np.bincount(edges[:, 0], weights=ey, minlength=n).astype(np.float32)
            fy -= np.bincount(edges[:, 1], weights=ey, minlength=n).astype(np.float32)
        if gravity:
            fx -= (xs - xs.mean()) * np.float32(0.02)
            fy -= (ys - ys.mean()) * np.float32(0.02)
        sx, sy = fx[mover], fy[mover]
        length = np.sqrt(sx * sx + sy * sy)
        scale = np.minimum(length, np.float32(temperature)) / np.maximum(length, np.float32(1e-6))
        xs[mover] += sx * scale
        ys[mover] += sy * scale
        temperature = max(temperature - cooling, k * 0.02)
    pos[free, 0] = xs[free]
    pos[free, 1] = ys[free]


def _spread_out(pos: np.ndarray, radii: np.ndarray) -> None:
    """Scale a fresh layout about its centre so that nearly every node's nearest neighbour is
    clear of it: the shape stays, the circles stop piling up, and ``_separate`` has little
    left to do."""
    n = pos.shape[0]
    if n < 2:
        return
    xs, ys = pos[:, 0].astype(np.float32), pos[:, 1].astype(np.float32)
    r = radii.astype(np.float32)
    # Per node: how many times closer than allowed its nearest neighbour is.
    wanted = np.empty(n, dtype=np.float32)
    block = max(1, min(n, 2_000_000 // n))
    for start in range(0, n, block):
        rows = np.arange(start, min(n, start + block))
        dx = xs[rows, None] - xs[None, :]
        dy = ys[rows, None] - ys[None, :]
        ratio = (r[rows, None] + r[None, :] + np.float32(NODE_GAP)) / np.maximum(
            np.sqrt(dx * dx + dy * dy), np.float32(1e-3)
        )
        ratio[np.arange(rows.size), rows] = 0.0
        wanted[rows] = ratio.max(axis=1)
    factor = min(float(np.quantile(wanted, 0.9)), MAX_SPREAD)
    if factor > 1.0:
        centre = pos.mean(axis=0)
        pos[:] = centre + (pos - centre) * factor


def _separate(pos: np.ndarray, free: np.ndarray, radii: np.ndarray) -> None:
    """Push the ``free`` nodes apart so that circles keep ``NODE_GAP`` between them, as far as a
    few rounds go (a growth crowded between fixed nodes may keep a few pairs closer).

    Forces alone leave a dense cluster's big circles piled on each other (a few dozen
    well-connected entities pull together). A free node overlapping a fixed one moves the
    whole way, two free ones half each; a few rounds settle what one push unsettles. Only
    pairs already near each other are looked at, found once per pass over all of them.
    """
    n = pos.shape[0]
    share = np.ones(n)
    share[free] = 0.5  # the mover's part of an overlap with another free node
    reach = NODE_GAP + 2.0 * float(radii.max())  # how far a push may carry a near pair apart
    for _ in range(2):  # the second pass finds pairs the first one's pushes brought close
        near, other = _near_pairs(pos, free, radii, reach)
        if near.size == 0:
            return
        need = radii[near] + radii[other] + NODE_GAP
        # Two nodes on the same spot part along a direction of their own.
        spread = near * GOLDEN_ANGLE
        for _ in range(SEPARATION_ROUNDS):
            dx = pos[near, 0] - pos[other, 0]
            dy = pos[near, 1] - pos[other, 1]
            distance = np.hypot(dx, dy)
            overlap = np.maximum(need - distance, 0.0)
            if not overlap.any():
                break
            same = distance < 1e-6
            dx = np.where(same, np.cos(spread), dx)
            dy = np.where(same, np.sin(spread), dy)
            push = overlap * share[other] / np.maximum(np.hypot(dx, dy), 1e-6)
            pos[:, 0] += np.bincount(near, weights=dx * push, minlength=n)
            pos[:, 1] += np.bincount(near, weights=dy * push, minlength=n)


def _clear_edges(pos: np.ndarray, free: np.ndarray, edges: np.ndarray, radii: np.ndarray) -> None:
    """Move each ``free`` node whose circle lies across an edge it is not an end of off that
    edge, square to it: drawn over a line, a node looks like one of its ends ("Jaja R" on the
    line from Enzo to Sinulog reads as Jaja's plan). A few rounds, as one push may land on
    another line."""
    if edges.size == 0 or free.size == 0:
        return
    ends_a, ends_b = edges[:, 0], edges[:, 1]
    own = (ends_a[None, :] == free[:, None]) | (ends_b[None, :] == free[:, None])
    need = radii[free][:, None] + EDGE_CLEARANCE
    for _ in range(EDGE_CLEARING_ROUNDS):
        start, span = pos[ends_a], pos[ends_b] - pos[ends_a]
        length2 = np.maximum((span * span).sum(axis=1), 1e-9)
        offset = pos[free][:, None, :] - start[None, :, :]
        along = (offset * span[None, :, :]).sum(axis=2) / length2[None, :]
        away = offset - along[:, :, None] * span[None, :, :]
        distance = np.hypot(away[:, :, 0], away[:, :, 1])
        # Across the line between its ends only: near an end, ``_separate`` keeps circles apart.
        across = (distance < need) & ~own & (along > 0.0) & (along < 1.0)
        if not across.any():
            return
        normal = np.stack([-span[:, 1], span[:, 0]], axis=1) / np.sqrt(length2)[:, None]
        side = np.where(
            (distance > 1e-6)[:, :, None],
            away / np.maximum(distance, 1e-6)[:, :, None],
            normal[None, :, :],
        )
        push = np.where(across, need - distance, 0.0)
        pos[free] += (side * push[:, :, None]).sum(axis=1)


def _near_pairs(
    pos: np.ndarray, free: np.ndarray, radii: np.ndarray, reach: float
) -> tuple[np.ndarray, np.ndarray]:
    """(free node, other node) index pairs whose circles are within ``reach`` of touching."""
    xs, ys = pos[:, 0].astype(np.float32), pos[:, 1].astype(np.float32)
    r = radii.astype(np.float32)
    block = max(1, min(free.size, 2_000_000 // max(pos.shape[0], 1)))
    found_near: list[np.ndarray] = []
    found_other: list[np.ndarray] = []
    for start in range(0, free.size, block):
        rows = free[start : start + block]
        dx = xs[rows, None] - xs[None, :]
        dy = ys[rows, None] - ys[None, :]
        limit = r[rows, None] + r[None, :] + np.float32(reach)
        close = dx * dx + dy * dy < limit * limit
        close[np.arange(rows.size), rows] = False
        row, column = np.nonzero(close)
        found_near.append(rows[row])
        found_other.append(column)
    return np.concatenate(found_near), np.concatenate(found_other)


def _components(adjacency: list[list[int]]) -> list[list[int]]:
    """The connected components, largest first (ties by their first node)."""
    graph = nx.Graph()
    graph.add_nodes_from(range(len(adjacency)))
    graph.add_edges_from((a, b) for a, near in enumerate(adjacency) for b in near)
    found = [sorted(members) for members in nx.connected_components(graph)]
    return sorted(found, key=lambda members: (-len(members), members[0]))


def _pack_components(pos: np.ndarray, adjacency: list[list[int]], k: float) -> None:
    """Set the smaller components in rows under the largest, an edge length apart.

    Repulsion pushes a component with nothing holding it far out, and a view fitted to
    everything then shows the main cluster tiny; packed, the picture is as large as it can be.
    """
    parts = _components(adjacency)
    if len(parts) < 2:
        return
    main = pos[parts[0]]
    left, right = float(main[:, 0].min()), float(main[:, 0].max())
    # Rows as wide as the largest group, or wider when the rest would stack into a column.
    sizes = [np.ptp(pos[members], axis=0) + k for members in parts[1:]]
    area = sum(float(size[0] * size[1]) for size in sizes)
    width = max(right - left, 4.0 * k, math.sqrt(area) * 1.5)
    x, y, row_height = left, float(main[:, 1].max()) + k, 0.0
    for members in parts[1:]:
        block = pos[members]
        low = block.min(axis=0)
        size = block.max(axis=0) - low
        if x > left and x + size[0] > left + width:
            x, y, row_height = left, y + row_height + k, 0.0
        pos[members] = block - low + (x, y)
        x += float(size[0]) + k
        row_height = max(row_height, float(size[1]))


def pack_bounds(positions: Mapping[str, Point]) -> tuple[float, float, float, float]:
    """The bounding box ``(left, top, right, bottom)`` of some positions; zeros when empty."""
    if not positions:
        return (0.0, 0.0, 0.0, 0.0)
    xs = [p[0] for p in positions.values()]
    ys = [p[1] for p in positions.values()]
    return (min(xs), min(ys), max(xs), max(ys))
