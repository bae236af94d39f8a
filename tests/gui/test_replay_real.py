"""The activation replay over the real stores (embedded FalkorDB and PostgreSQL, demo memory).

Stepping, stepping back, "by hop" frames, the speed and the camera must agree with the activation
log the core recorded for the answer on screen: after N steps the graph shows exactly the first
N steps' nodes with their energies, a hop frame is exactly that hop's steps, and the speed sets
the interval it states.
"""

from __future__ import annotations

import time
from typing import Any

import pytest
from PySide6.QtGui import QColor

from explorer.core.scour import ScourResult
from explorer.gui import style
from explorer.gui.activation_overlay import BASE_INTERVAL_MS, SPEEDS, energy_colour
from explorer.gui.requests import QueryParams
from tests.gui.conftest import wait, wait_for_answer

QUERY = "Where does Maya live?"
STEPS_CHECKED = 60


@pytest.fixture
def replaying(qtbot: Any, window: Any, memory: Any) -> Any:
    """The window showing ``QUERY``'s answer with the overlay on, at the replay's start."""
    memory.policy = window.trace.policy_dock.policy
    token = window.run_query(QueryParams(query=QUERY, n_chunks=8, kg_top_k=8))
    wait_for_answer(qtbot, window, token, 120_000)
    assert isinstance(window.outcome.answer, ScourResult)
    overlay = window.trace.overlay
    overlay.toggle.setChecked(True)
    overlay.set_frame(0)
    return window


def _log(window: Any) -> Any:
    log = window.outcome.answer.retrieval.activation
    assert len(log.steps) > 10, "the demo query should spread activation over many steps"
    return log


def _brush_of(view: Any, node: str) -> str:
    return str(view.node_item(node).brush().color().name())


def _as_tuple(step: Any) -> tuple[Any, ...]:
    return (step.node, step.energy, step.source, step.relation, step.hop)


def _log_tuple(step: Any) -> tuple[Any, ...]:
    return (step.node, step.energy, step.source_node, step.relation_id, step.hop)


def test_stepping_shows_exactly_the_first_steps_of_the_log(replaying: Any) -> None:
    window, overlay, view = replaying, replaying.trace.overlay, replaying.graph_view
    log = _log(window)
    top = overlay.legend.top
    assert top == max(log.energy.values())
    drawn = set(view.node_ids)
    count = min(STEPS_CHECKED, len(log.steps))
    for n in range(1, count + 1):
        overlay.forward_button.click()
        assert overlay.step == n and overlay.frame == n
        expected = log.replay(n)
        assert overlay.energies() == expected
        step = log.steps[n - 1]
        assert overlay.lit() == [step.node]
        caption = overlay.caption_label.text()
        assert caption.startswith(f"hop {step.hop}: ")
        if step.source_node is None:
            assert f"{step.name} is a seed" in caption
        else:
            assert f"→ {step.name} over {step.relation_type}, +" in caption
        # The graph: nodes reached so far are coloured by their energy, the others by type.
        for node in drawn:
            if node in expected:
                assert _brush_of(view, node) == energy_colour(expected[node], top).name()
            else:
                colour = QColor(style.type_colour(view.node_item(node).data_.type)).name()
                assert _brush_of(view, node) == colour
        if step.node in drawn:
            assert view.node_item(step.node).label_shown(), "a node reached is labelled"
            assert step.node in view.highlighted_ids()
    for n in range(count - 1, max(count - 6, 0) - 1, -1):
        overlay.back_button.click()
        assert overlay.step == n
        assert overlay.energies() == log.replay(n)


def test_a_caption_names_source_target_relation_and_energy(replaying: Any) -> None:
    window, overlay = replaying, replaying.trace.overlay
    log = _log(window)
    names = {s.node: s.name for s in log.steps}
    transfer = next(i for i, s in enumerate(log.steps) if s.source_node is not None)
    overlay.set_step(transfer + 1)
    step = log.steps[transfer]
    energy = f"{step.energy:.2f}" if step.energy >= 0.01 else f"{step.energy:.4f}"
    assert overlay.caption_label.text() == (
        f"hop {step.hop}: {names[step.source_node]} → {step.name} over "
        f"{step.relation_type}, +{energy}"
    )


def test_by_hop_frames_are_the_log_grouped_by_hop(replaying: Any) -> None:
    window, overlay = replaying, replaying.trace.overlay
    log = _log(window)
    hops = sorted({s.hop for s in log.steps})
    groups = {hop: [_log_tuple(s) for s in log.steps if s.hop == hop] for hop in hops}
    assert len(hops) >= 2
    overlay.set_step(5)
    overlay.by_hop_box.setChecked(True)
    assert overlay.slider.maximum() == len(hops)
    # The frame shown is the hop the replay was in.
    assert overlay.frame_steps() and overlay.frame_steps()[-1].hop == log.steps[4].hop
    overlay.set_frame(0)
    assert overlay.energies() == {} and overlay.frame_steps() == []
    done = 0
    for frame, hop in enumerate(hops, start=1):
        overlay.forward_button.click()
        assert overlay.frame == frame
        assert [_as_tuple(s) for s in overlay.frame_steps()] == groups[hop]
        done += len(groups[hop])
        assert overlay.step == done
        assert overlay.energies() == log.replay(done)
        assert set(overlay.lit()) == {node for node, *_ in groups[hop]}
        assert overlay.caption_label.text().startswith(f"hop {hop}: ")
    assert overlay.energies() == dict(log.energy)
    overlay.forward_button.click()  # already at the end
    assert overlay.frame == len(hops)
    overlay.back_button.click()
    assert overlay.step == done - len(groups[hops[-1]])
    overlay.by_hop_box.setChecked(False)
    assert overlay.slider.maximum() == len(log.steps)
    assert overlay.step == done - len(groups[hops[-1]])


def test_speed_sets_the_interval_and_playing_follows_it(replaying: Any) -> None:
    overlay = replaying.trace.overlay
    for index, speed in enumerate(SPEEDS):
        overlay.speed_box.setCurrentIndex(index)
        assert overlay.speed == speed
        assert overlay.timer.interval() == round(BASE_INTERVAL_MS / speed)
    assert overlay.timer.interval() == 75 and SPEEDS[0] == 0.25 and SPEEDS[-1] == 8.0

    overlay.set_frame(0)
    overlay.speed_box.setCurrentIndex(SPEEDS.index(8.0))
    started = time.monotonic()
    overlay.play_button.setChecked(True)
    wait(1.0)
    overlay.play_button.setChecked(False)
    elapsed = time.monotonic() - started
    fast = overlay.frame
    assert 3 <= fast <= elapsed * 1000 / 75 + 1, (fast, elapsed)
    assert overlay.energies() == _log(replaying).replay(overlay.step)

    overlay.speed_box.setCurrentIndex(SPEEDS.index(0.25))
    overlay.play_button.setChecked(True)
    wait(1.0)
    overlay.play_button.setChecked(False)
    assert overlay.frame == fast, "at 0.25× a frame lasts 2.4 s"


def test_the_camera_follows_the_frontier(qtbot: Any, replaying: Any) -> None:
    window, overlay, view = replaying, replaying.trace.overlay, replaying.graph_view
    log = _log(window)
    drawn = [i for i, s in enumerate(log.steps) if view.node_item(s.node) is not None]
    assert len(drawn) >= 2
    view.zoom(6.0)
    first = view.node_item(log.steps[drawn[0]].node)

    def distance(index: int) -> float:
        return float((first.pos() - view.node_item(log.steps[index].node).pos()).manhattanLength())

    # Look far away from the node of the chosen step, so only following brings it on screen.
    target = max(drawn, key=distance)
    view.centerOn(first)
    node = view.node_item(log.steps[target].node)

    def on_screen() -> bool:
        return bool(view.mapToScene(view.viewport().rect()).boundingRect().contains(node.pos()))

    if on_screen():
        pytest.skip("every drawn node fits on screen at this zoom")
    overlay.follow_box.setChecked(False)
    overlay.set_step(target + 1)
    assert not on_screen(), "without follow the camera stays"
    overlay.set_step(target)
    overlay.follow_box.setChecked(True)
    overlay.set_step(target + 1)
    assert on_screen(), "following puts the node the step reached on screen"
