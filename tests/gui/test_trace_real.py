"""The retrieval-trace docks over the real stores (embedded FalkorDB and PostgreSQL, demo memory).

A floor moved in the GUI must give exactly what the core gives for that policy, a what-if must
ask no store, every replay step must match the activation log, "why not X?" must agree with the
ledger, and a recall case must survive save → open → save byte for byte.
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from explorer.core.explain import DROPPED, NOT_A_CANDIDATE, OUTRANKED, RECALLED
from explorer.core.gates import NUMERIC_GATES, near_misses
from explorer.core.policy import DEFAULT_POLICY
from explorer.core.recall_case import diff_results, load_case
from explorer.core.scour import ScourResult
from explorer.gui.requests import QueryParams
from tests.gui.conftest import wait, wait_for_answer

QUERY = "Where does Maya live?"
WHAT_IF_BUDGET_MS = 50.0


class Counting:
    """A store stand-in that records every method called on the store it wraps."""

    def __init__(self, inner: Any, name: str, calls: list[str]) -> None:
        self._inner, self._name, self._calls = inner, name, calls

    def __getattr__(self, attribute: str) -> Any:
        value = getattr(self._inner, attribute)
        if not callable(value):
            return value
        calls, label = self._calls, f"{self._name}.{attribute}"

        def counted(*args: Any, **kwargs: Any) -> Any:
            # The bridge's health poll (``counts``) runs on its own timer while a half reports
            # an error; it is not a query, so it is not counted.
            if attribute != "counts":
                calls.append(label)
            return value(*args, **kwargs)

        return counted


@pytest.fixture
def counted_stores(memory: Any) -> Iterator[list[str]]:
    calls: list[str] = []
    saved = {name: getattr(memory, name) for name in ("graph", "chunks", "concepts", "embedder")}
    for name, store in saved.items():
        setattr(memory, name, Counting(store, name, calls))
    try:
        yield calls
    finally:
        for name, store in saved.items():
            setattr(memory, name, store)


@pytest.fixture
def answered(qtbot: Any, window: Any, memory: Any, tmp_path: Path) -> Any:
    """The window showing the answer to ``QUERY`` under the memory's default policy."""
    # The memory is shared by the package and keeps the policy its last query ran under (a
    # test's refetch with more hops, say); every test starts again from the default.
    window.trace.policy_dock.set_policy(DEFAULT_POLICY)
    memory.policy = window.trace.policy_dock.policy
    window.trace.policy_dock.preset_path = tmp_path / "presets.json"
    token = window.run_query(QueryParams(query=QUERY, n_chunks=8, kg_top_k=8))
    wait_for_answer(qtbot, window, token, 120_000)
    assert isinstance(window.outcome.answer, ScourResult)
    assert window.outcome.answer.to_json_dict()["dropped"], "the demo query should drop something"
    return window


def _kept(result: dict[str, Any]) -> list[tuple[str, str, float]]:
    return [("entity", e["id"], e["score"]) for e in result["kg_entities"]] + [
        ("chunk", c["id"], c["score"]) for c in result["chunks"]
    ]


def test_a_floor_moved_in_the_gui_gives_the_core_answer(qtbot: Any, answered: Any) -> None:
    window, trace = answered, answered.trace
    fetched: ScourResult = window.outcome.answer
    scores = sorted(score for _, _, score in _kept(window.outcome.answer.to_json_dict()))
    floor = round(scores[len(scores) // 2], 3)
    trace.policy_dock.min_relevance.slider.setValue(round(floor * 1000))

    assert trace.policy_dock.last_kind == "what-if"
    policy = trace.policy_dock.policy
    assert policy.min_relevance == floor
    expected = fetched.decide(policy)
    shown = window.outcome.answer.to_json_dict()
    assert _kept(shown) == _kept(expected.to_json_dict())
    assert shown["dropped"] == expected.to_json_dict()["dropped"]
    assert trace.ledger_dock.model.entries() == list(expected.retrieval.result.dropped)
    assert any(d.gate == "relevance" for d in trace.ledger_dock.model.entries())
    assert window.chunk_list.chunk_ids() == [c["id"] for c in shown["chunks"]]
    qtbot.waitUntil(lambda: not window.graph_view.is_layout_pending(), timeout=10_000)
    assert {e["id"] for e in shown["kg_entities"]} <= set(window.graph_view.node_ids)

    trace.ledger_dock.near_box.setChecked(True)
    rows = trace.ledger_dock.model.entries()
    close = near_misses(list(expected.retrieval.result.dropped))
    assert rows[: len(close)] == close
    assert sorted(rows, key=repr) == sorted(expected.retrieval.result.dropped, key=repr)


def test_a_what_if_asks_no_store_and_stays_within_budget(
    qtbot: Any, answered: Any, counted_stores: list[str]
) -> None:
    window, trace = answered, answered.trace
    dock = trace.policy_dock
    timings: list[float] = []
    settle: list[float] = []
    edits: list[Callable[[], object]] = [
        lambda: dock.min_relevance.slider.setValue(150),
        lambda: dock.min_relevance.slider.setValue(300),
        lambda: dock.min_salience.slider.setValue(200),
        lambda: dock.weight_boxes["lexical"].setValue(0.6),
        lambda: dock.layer_boxes["concept"].setChecked(False),
        lambda: dock.activation_threshold.setValue(0.05),
        lambda: dock.credit_contiguity.setValue(0.0),
        lambda: dock.credit_topic.setValue(0.3),
        lambda: dock.min_relevance.slider.setValue(0),
    ]
    for edit in edits:
        started = time.perf_counter()
        edit()
        assert dock.last_kind == "what-if", dock.last_reasons
        timings.append(trace.last_what_if_ms)
        assert not window.graph_view.is_layout_pending()
        settle.append((time.perf_counter() - started) * 1000.0)
    assert trace.what_if_count == len(edits)
    assert counted_stores == [], f"a what-if asked the stores: {counted_stores}"
    assert "re-ranked from the candidates in hand" in dock.change_label.text()
    print(f"what-if ms: decide+show {timings}, until the graph settled {settle}")
    assert statistics.median(settle) <= WHAT_IF_BUDGET_MS

    # A change that needs new candidates does ask, so the proxies above can see calls.
    dock.activation_hops.setValue(dock.policy.activation.hops + 1)
    assert dock.last_kind == "refetch" and dock.last_reasons
    assert "asks the stores again" in dock.change_label.text()
    qtbot.waitUntil(lambda: trace.refetch_count == 1 and bool(counted_stores), timeout=30_000)


def test_chunk_credit_shares_that_add_up_to_more_than_all_are_refused(answered: Any) -> None:
    dock = answered.trace.policy_dock
    before = dock.policy
    dock.credit_topic.setValue(0.9)
    dock.credit_contiguity.setValue(0.5)
    assert "must not exceed 1" in dock.change_label.text()
    assert dock.policy.activation.topic_weight + dock.policy.activation.contiguity <= 1.0
    dock.credit_contiguity.setValue(0.1)  # valid again: 0.9 + 0.1
    assert dock.policy.activation.topic_weight == 0.9
    assert dock.policy.activation.contiguity == 0.1
    dock.apply_policy(before)


def test_every_replay_step_matches_the_activation_log(qtbot: Any, answered: Any) -> None:
    trace = answered.trace
    log = answered.outcome.answer.retrieval.activation
    assert log.steps, "the demo query should spread activation"
    overlay = trace.overlay
    assert len(overlay.replay) == len(log.steps)
    for step in range(len(log.steps) + 1):
        overlay.slider.setValue(step)
        assert overlay.step == step
        assert overlay.energies() == log.replay(step)
    assert overlay.energies() == dict(log.energy)
    assert answered.outcome.answer.to_json_dict()["activation"] == log.to_json_list()

    overlay.toggle.setChecked(True)
    qtbot.waitUntil(lambda: not answered.graph_view.is_layout_pending(), timeout=10_000)
    view = answered.graph_view
    arrows = [item.data(0) for item in overlay.items if isinstance(item.data(0), tuple)]
    expected = {
        key: amount
        for key, amount in overlay.replay.flows(len(log.steps)).items()
        if view.node_item(key[0]) is not None and view.node_item(key[1]) is not None
    }
    assert {(s, t, r): a for s, t, r, a in arrows} == expected
    for step in log.steps:
        if step.source_node is not None and view.node_item(step.node) is not None:
            tip = overlay.tooltip_for(step.node)
            assert f"hop {step.hop}" in tip and "from" in tip
            # The relation is named by its type, as the reader knows it, not by its id.
            assert f"over {step.relation_type}" in tip and str(step.relation_id) not in tip
            break
    overlay.set_step(0)
    assert overlay.energies() == {}
    overlay.toggle.setChecked(False)
    assert overlay.items == []


def test_why_not_answers_match_the_ledger(answered: Any) -> None:
    trace = answered.trace
    retrieval = answered.outcome.answer.retrieval
    dropped = [d for d in retrieval.result.dropped if d.kind != "none"]
    checked = 0
    for entry in dropped[:12]:
        answers = trace.ledger_dock.ask(entry.label)
        mine = [a for a in answers if a.id == entry.id and a.dropped is not None]
        assert mine, f"no answer about {entry.label!r}"
        verdict = OUTRANKED if entry.gate in ("rank", "budget") else DROPPED
        assert any(a.dropped == entry and a.verdict == verdict for a in mine)
        if entry.gate in NUMERIC_GATES and entry.value is not None:
            assert any(f"{entry.value:.3f}" in a.message for a in mine)
        checked += 1
    assert checked
    kept = retrieval.result.memories[0]
    assert any(
        a.verdict == RECALLED and a.id == kept.id
        for a in trace.ledger_dock.ask(kept.candidate.label)
    )
    nothing = trace.ledger_dock.ask("zzqx no such memory")
    assert [a.verdict for a in nothing] == [NOT_A_CANDIDATE]
    assert "routes asked" in nothing[0].message
    assert "not a candidate" in trace.ledger_dock.answer.toPlainText()


def test_selecting_a_dropped_row_shows_it_ghosted(answered: Any) -> None:
    trace = answered.trace
    model = trace.ledger_dock.model
    kinds = {model.entry(row).kind: row for row in range(model.rowCount())}
    assert "chunk" in kinds or "entity" in kinds
    if "chunk" in kinds:
        trace.ledger_dock.select_row(kinds["chunk"])
        assert trace.ghosts.ghost_kind == "chunk" and trace.ghosts.card is not None
        assert trace.ghosts.ghost_id == model.entry(kinds["chunk"]).id
    if "entity" in kinds:
        trace.ledger_dock.select_row(kinds["entity"])
        assert trace.ghosts.ghost_kind == "entity"
        assert trace.ghosts.card is None and trace.ghosts.graph_items
        assert trace.ghosts.graph_items[0].scene() is answered.graph_view.scene()


def test_hits_are_badged_and_charted(answered: Any) -> None:
    trace, result = answered.trace, answered.outcome.answer.to_json_dict()
    badges = trace.hits.badges()
    assert badges == [
        ("entity", e["id"], e["layer"], e["source"]) for e in result["kg_entities"]
    ] + [("chunk", c["id"], c["layer"], c["source"]) for c in result["chunks"]]
    for name, count in result["sources"].items():
        assert f"{name}</span> {count}" in trace.hits.tally.text()
    chunk = result["chunks"][0]
    answered.chunk_list.chunk_selected.emit(chunk["id"])
    assert trace.chart.bars()[:6] == [
        (k, float(chunk["score_breakdown"][k]))
        for k in ("similarity", "lexical", "recency", "salience", "confidence", "activation")
    ]
    assert trace.chart.score == chunk["score"]


def test_a_recall_case_survives_save_and_open_byte_for_byte(
    qtbot: Any, answered: Any, tmp_path: Path, counted_stores: list[str]
) -> None:
    trace = answered.trace
    original = answered.outcome.answer.to_json_dict()
    first, second = tmp_path / "case.json", tmp_path / "again.json"
    trace.save_case(first)
    trace.open_case(first)
    shown, saved = answered.outcome.answer.to_json_dict(), load_case(first).result
    # The case is decided again from its candidates, and keeps the full records read for the
    # answer (candidates found by activation or answered from the graph's shape carry lean
    # ones), so every entity shows as it did, provenance and all.
    assert shown == saved
    assert any(entity["provenance"] for entity in shown["kg_entities"])
    assert _kept(answered.outcome.answer.to_json_dict()) == _kept(original)
    assert answered.outcome.answer.to_json_dict()["dropped"] == original["dropped"]
    trace.save_case(second)
    assert first.read_bytes() == second.read_bytes()
    assert counted_stores == []

    # Re-run against the (unchanged) current memory: nothing entered, left or moved.
    trace.rerun_case()
    qtbot.waitUntil(lambda: trace.last_diff is not None, timeout=60_000)
    assert trace.last_diff.same, trace.last_diff
    assert counted_stores, "a re-run must ask the stores"


def test_compare_two_policies_side_by_side(qtbot: Any, answered: Any) -> None:
    trace = answered.trace
    fetched: ScourResult = answered.outcome.answer
    trace.pin_baseline()
    trace.policy_dock.min_relevance.slider.setValue(400)
    diff = trace.compare_with_baseline(show=False)
    assert diff is not None and diff.left
    assert diff == diff_results(fetched.to_json_dict(), answered.outcome.answer.to_json_dict())
    dropped_now = {d["id"] for d in answered.outcome.answer.to_json_dict()["dropped"]}
    assert {h.id for h in diff.left} <= dropped_now

    # Back to the policy the answer was fetched under: the same diff, reversed.
    trace.last_diff = None
    original = fetched.retrieval.policy
    assert original is not None
    trace.compare_policy(original, "as fetched", show=False)
    qtbot.waitUntil(lambda: trace.last_diff is not None, timeout=30_000)
    back = trace.last_diff
    assert {h.id for h in back.entered} == {h.id for h in diff.left}
    assert {h.id for h in back.left} == {h.id for h in diff.entered}


def test_presets_save_load_and_reset(answered: Any) -> None:
    dock = answered.trace.policy_dock
    dock.min_relevance.slider.setValue(250)
    dock.save_preset("mine")
    assert "mine" in [dock.preset_box.itemText(i) for i in range(dock.preset_box.count())]
    dock.reset()
    assert dock.policy.min_relevance == 0.0
    dock.load_preset("mine")
    assert dock.policy.min_relevance == 0.25
    assert dock.user_presets()["mine"] == dock.policy
    wait(0.05)


def test_a_chunk_hit_shows_where_its_activation_credit_came_from(answered: Any) -> None:
    chunks = answered.outcome.answer.to_json_dict()["chunks"]
    credited = [c for c in chunks if c["activation_credit"] and c["activation_credit"]["said"]]
    assert credited, "the demo query names Maya, so her turns carry her energy"
    hit = credited[0]
    hits = answered.trace.hits
    assert hits.show_hit("chunk", hit["id"])
    notes = hits.chart.notes
    assert notes[0].startswith("activation credit")
    assert any(hit["activation_credit"]["said"]["name"] in line for line in notes[1:])
    plain = next((c for c in chunks if c["activation_credit"] is None), None)
    if plain is not None:
        hits.show_hit("chunk", plain["id"])
        assert hits.chart.notes == []
