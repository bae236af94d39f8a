"""Label placement: whatever the crowding, placed labels never overlap each other, an obstacle
or the bounds, and what must be labelled is labelled when there is room beside it."""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from explorer.gui.label_placement import LINE_GAP, LabelCandidate, Placer, intersects

BOUNDS = (0.0, 0.0, 800.0, 600.0)

candidates = st.lists(
    st.builds(
        LabelCandidate,
        key=st.uuids().map(str),
        x=st.floats(0, 800),
        y=st.floats(0, 600),
        radius=st.floats(1, 20),
        width=st.floats(10, 160),
        height=st.floats(8, 18),
        priority=st.integers(0, 3),
        must=st.booleans(),
    ),
    max_size=120,
)
boxes = st.lists(
    st.tuples(st.floats(0, 700), st.floats(0, 500), st.floats(1, 120), st.floats(1, 120)),
    max_size=4,
)


@settings(max_examples=150, deadline=None)
@given(candidates, boxes)
def test_placed_labels_never_overlap_and_stay_inside(labels: list[Any], blocked: list[Any]) -> None:
    placer = Placer(
        [(c.x - c.radius, c.y - c.radius, 2 * c.radius, 2 * c.radius) for c in labels], BOUNDS
    )
    placer.block(blocked)
    placed = placer.place(labels)
    rects = list(placed.values())
    for i, a in enumerate(rects):
        assert BOUNDS[0] <= a[0] and a[0] + a[2] <= BOUNDS[2] + 1e-9
        assert BOUNDS[1] <= a[1] and a[1] + a[3] <= BOUNDS[3] + 1e-9
        assert not any(intersects(a, box) for box in blocked)
        assert not any(intersects(a, b) for b in rects[i + 1 :])
        # Nor does one sit flush above or below another: stacked, two labels read as one.
        clear = (a[0], a[1] - LINE_GAP, a[2], a[3] + 2 * LINE_GAP)
        assert not any(intersects(clear, b) for b in rects[i + 1 :])
    assert set(placed) <= {c.key for c in labels}


def test_priority_wins_the_spot_and_a_must_moves_out() -> None:
    first = LabelCandidate("a", 100, 100, 5, 60, 12, priority=0, must=True)
    second = LabelCandidate("b", 100, 100, 5, 60, 12, priority=1, must=True)
    optional = LabelCandidate("c", 100, 100, 5, 60, 12, priority=3, must=False)
    placed = Placer([], BOUNDS).place([optional, second, first])
    # "a" takes the spot below the node; "b" finds one of the other spots around it.
    assert placed["a"] == (70, 107, 60, 12)
    assert "b" in placed and not intersects(placed["a"], placed["b"])


def test_an_optional_label_stays_beside_its_node_or_is_dropped() -> None:
    # Every spot beside the node is blocked: a must goes further out, an optional one is dropped.
    node = (100.0, 100.0)
    ring = (node[0] - 40, node[1] - 18, 80, 36)  # the first ring of spots, not the next
    must = LabelCandidate("m", *node, 5, 30, 10, priority=1, must=True)
    optional = LabelCandidate("o", *node, 5, 30, 10, priority=3, must=False)
    for candidate, expected in ((must, True), (optional, False)):
        placer = Placer([], BOUNDS)
        placer.block([ring])
        assert (candidate.key in placer.place([candidate])) is expected
