"""Frames and captions of the activation replay on a small hand-made log (no stores, no Qt)."""

from __future__ import annotations

from explorer.gui.activation_replay import ActivationReplay, Step


def _log() -> ActivationReplay:
    return ActivationReplay(
        [
            Step("maya", "Maya Okafor", 0.5, None, None, 0),
            Step("owen", "Owen Price", 0.25, None, None, 0),
            Step("berlin", "Berlin", 0.123, "owen", "r1", 1, "LIVES_IN"),
            Step("lena", "Lena", 0.004, "maya", "r2", 1, None),
            Step("berlin", "Berlin", 0.05, "lena", "r3", 2, "VISITED"),
        ]
    )


def test_frames_are_one_per_step_or_one_per_hop() -> None:
    replay = _log()
    assert replay.frame_ends(False) == [0, 1, 2, 3, 4, 5]
    assert replay.frame_ends(True) == [0, 2, 4, 5]
    assert replay.energies(4) == {"maya": 0.5, "owen": 0.25, "berlin": 0.123, "lena": 0.004}
    assert replay.flows(5, since=4) == {("lena", "berlin", "r3"): 0.05}


def test_captions_name_the_transfer_as_a_reader_follows_it() -> None:
    replay = _log()
    steps = replay.steps
    assert replay.caption([steps[2]]) == "hop 1: Owen Price → Berlin over LIVES_IN, +0.12"
    # A small energy keeps its digits; a relation without a type is named by its id.
    assert replay.caption([steps[3]]) == "hop 1: Maya Okafor → Lena over r2, +0.0040"
    assert replay.caption([steps[0]]) == "hop 0: Maya Okafor is a seed with 0.50"
    assert (
        replay.caption(steps[:2]) == "hop 0: 2 seeds; the strongest Maya Okafor is a seed with 0.50"
    )
    assert replay.caption(steps[2:4]) == (
        "hop 1: 2 transfers to 2 nodes; the strongest Owen Price → Berlin over LIVES_IN, +0.12"
    )
    assert replay.caption([]) == "before the spread: 2 seeds"
    assert ActivationReplay().caption([]) == ""
