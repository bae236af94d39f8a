"""Collision-free label placement for the graph view, from screen geometry alone.

Every label that should be shown comes as a ``LabelCandidate`` (the node's centre and radius on
screen, the label's size, a priority and whether it must be shown); a ``Placer`` takes the node
circles and the bounds of the view, obstacles (the legend) are blocked, and batches (badges,
then names, then relation types) are placed one after another. Candidates are placed in priority
order, each at the first of a ring of positions around its node (below, above, right, left, then
the diagonals, then the same further out for a must) whose rectangle meets no label placed
before it and no obstacle; beside the node, a spot that covers no other node is preferred. A
candidate that finds no free spot is left unlabelled, so no two drawn labels ever overlap. A grid
of buckets keeps the overlap tests near constant time for a thousand labels. Imports only the
standard library (no Qt).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

Rect = tuple[float, float, float, float]  # x, y, width, height (screen pixels)

#: Bucket size of the overlap grid, about one label tall.
CELL = 24.0
GAP = 2.0
#: The space kept free above and below a placed label.
LINE_GAP = 4.0
#: How many rings of positions are tried, each one label height further out.
RINGS = 4
SPOTS_PER_RING = 8


@dataclass(frozen=True, slots=True)
class LabelCandidate:
    key: str
    x: float  # the node's centre on screen
    y: float
    radius: float
    width: float
    height: float
    priority: int  # lower goes first
    must: bool = False
    start: int = 0  # which of the eight spots of a ring is tried first (6: above right)


def intersects(a: Rect, b: Rect) -> bool:
    return a[0] < b[0] + b[2] and b[0] < a[0] + a[2] and a[1] < b[1] + b[3] and b[1] < a[1] + a[3]


class _Grid:
    def __init__(self) -> None:
        self.cells: dict[tuple[int, int], list[Rect]] = {}

    @staticmethod
    def _keys(rect: Rect) -> list[tuple[int, int]]:
        x0, y0 = int(rect[0] // CELL), int(rect[1] // CELL)
        x1, y1 = int((rect[0] + rect[2]) // CELL), int((rect[1] + rect[3]) // CELL)
        return [(gx, gy) for gx in range(x0, x1 + 1) for gy in range(y0, y1 + 1)]

    def add(self, rect: Rect) -> None:
        cells = self.cells
        x0, y0 = int(rect[0] // CELL), int(rect[1] // CELL)
        if x0 == int((rect[0] + rect[2]) // CELL) and y0 == int((rect[1] + rect[3]) // CELL):
            cells.setdefault((x0, y0), []).append(rect)  # most rects lie in one cell
            return
        for key in self._keys(rect):
            bucket = cells.get(key)
            if bucket is None:
                cells[key] = [rect]
            else:
                bucket.append(rect)

    def hits(self, rect: Rect, ignore: Rect | None = None) -> bool:
        cells = self.cells
        for key in self._keys(rect):
            for other in cells.get(key, ()):
                if other is not ignore and other != ignore and intersects(rect, other):
                    return True
        return False


def _spots(c: LabelCandidate) -> Iterable[Rect]:
    w, h, r = c.width, c.height, c.radius
    # An optional label stays next to its node; one that must be shown may move further out.
    for ring in range(RINGS if c.must else 1):
        d = ring * (h + GAP)
        ring_spots = [
            (c.x - w / 2, c.y + r + GAP + d, w, h),  # below
            (c.x - w / 2, c.y - r - GAP - h - d, w, h),  # above
            (c.x + r + GAP + d, c.y - h / 2, w, h),  # right
            (c.x - r - GAP - w - d, c.y - h / 2, w, h),  # left
            (c.x + r * 0.7 + d, c.y + r * 0.7 + d, w, h),  # below right
            (c.x - r * 0.7 - w - d, c.y + r * 0.7 + d, w, h),  # below left
            (c.x + r * 0.7 + d, c.y - r * 0.7 - h - d, w, h),  # above right
            (c.x - r * 0.7 - w - d, c.y - r * 0.7 - h - d, w, h),  # above left
        ]
        yield from ring_spots[c.start :] + ring_spots[: c.start]


def _inside(rect: Rect, bounds: Rect | None) -> bool:
    if bounds is None:
        return True
    return (
        rect[0] >= bounds[0]
        and rect[1] >= bounds[1]
        and rect[0] + rect[2] <= bounds[0] + bounds[2]
        and rect[1] + rect[3] <= bounds[1] + bounds[3]
    )


class Placer:
    """Places labels one batch after another (badges, then names) on one screen: what a batch
    placed is an obstacle to the next. Node circles outside ``bounds`` are left out."""

    def __init__(self, nodes: Sequence[Rect] = (), bounds: Rect | None = None) -> None:
        self.bounds = bounds
        self.taken = _Grid()
        self.circles = _Grid()
        for rect in nodes:
            if bounds is None or intersects(rect, bounds):
                self.circles.add(rect)

    def block(self, rects: Iterable[Rect]) -> None:
        for rect in rects:
            self.taken.add(rect)

    def place(self, candidates: Sequence[LabelCandidate]) -> dict[str, Rect]:
        """Where each placed label goes, by key; candidates left out are not drawn."""
        placed: dict[str, Rect] = {}
        for candidate in sorted(candidates, key=lambda c: (c.priority, c.key)):
            if candidate.key in placed:
                continue
            own = (
                candidate.x - candidate.radius,
                candidate.y - candidate.radius,
                2 * candidate.radius,
                2 * candidate.radius,
            )
            fallback: Rect | None = None
            chosen: Rect | None = None
            for index, spot in enumerate(_spots(candidate)):
                if fallback is not None and index >= SPOTS_PER_RING:
                    break  # a free spot beside the node beats a node-free one further out
                if not _inside(spot, self.bounds) or self.taken.hits(spot):
                    continue
                if index >= SPOTS_PER_RING or not self.circles.hits(spot, ignore=own):
                    chosen = spot
                    break
                if fallback is None:
                    fallback = spot
            chosen = chosen or fallback
            if chosen is not None:
                placed[candidate.key] = chosen
                x, y, w, h = chosen
                # Kept clear above and below: two labels stacked flush read as one name.
                self.taken.add((x, y - LINE_GAP, w, h + 2 * LINE_GAP))
        return placed
