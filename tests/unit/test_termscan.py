"""The term-overlap scan: weights, multipliers, ties, exclusions and the read cache."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime, timedelta

import pytest
from hypothesis import given
from hypothesis import strategies as st

from explorer.core.termscan import (
    BODY_WEIGHT,
    DESCRIPTION_WEIGHT,
    NAME_WEIGHT,
    TermScan,
    tokenize,
)
from explorer.testing import FakeConceptStore

NOW = datetime(2024, 6, 1, tzinfo=UTC)
AGENT = "acme/bot"


def fresh(**fields: object) -> dict[str, object]:
    return {"updated_at": NOW.isoformat(), **fields}


def scan_of(store: FakeConceptStore) -> TermScan:
    return TermScan(store, clock=lambda: NOW)


def test_tokenizer_lowercases_splits_and_drops_stopwords_and_single_letters() -> None:
    assert tokenize("What is Ana's FAVOURITE tea-shop, a B&B?") == (
        "ana",
        "favourite",
        "tea",
        "shop",
    )
    assert tokenize("What is Ana's FAVOURITE tea-shop?") == ("ana", "favourite", "tea", "shop")
    assert tokenize("the and of a") == ()
    assert tokenize("tea tea TEA") == ("tea",)


async def test_name_description_and_body_weigh_three_two_one() -> None:
    store = FakeConceptStore()
    store.put(AGENT, fresh(name="x-body", body="lisbon"))
    store.put(AGENT, fresh(name="x-desc", description="lisbon"))
    store.put(AGENT, fresh(name="lisbon"))
    store.put(AGENT, fresh(name="lisbon all", description="lisbon", body="lisbon"))
    result = await scan_of(store).search(AGENT, "Lisbon", top_k=10)
    scores = {hit.record.name: hit.score for hit in result.hits}
    assert scores == {
        "lisbon all": NAME_WEIGHT + DESCRIPTION_WEIGHT + BODY_WEIGHT,
        "lisbon": NAME_WEIGHT,
        "x-desc": DESCRIPTION_WEIGHT,
        "x-body": BODY_WEIGHT,
    }
    assert [hit.record.name for hit in result.hits] == ["lisbon all", "lisbon", "x-desc", "x-body"]


async def test_substring_match_is_case_insensitive_and_terms_add_up() -> None:
    store = FakeConceptStore()
    store.put(AGENT, fresh(name="Gardening", description="TOMATOES in pots"))
    result = await scan_of(store).search(AGENT, "garden tomato")
    assert [hit.overlap for hit in result.hits] == [NAME_WEIGHT + DESCRIPTION_WEIGHT]
    assert result.hits[0].lexical == pytest.approx(5 / 12)


async def test_a_term_inside_several_words_of_a_field_counts_once() -> None:
    store = FakeConceptStore()
    store.put(AGENT, fresh(name="cook", body="cooking cookbook cooks"))
    store.put(AGENT, fresh(name="x-none", body="tea"))
    store.put(AGENT, fresh(name="x-one", body="precooked"))
    store.put(AGENT, fresh(name="x-two", body="cookies and a cooker"))
    result = await scan_of(store).search(AGENT, "cook", top_k=10)
    scores = {hit.record.name: hit.overlap for hit in result.hits}
    assert scores == {
        "cook": NAME_WEIGHT + BODY_WEIGHT,
        "x-one": BODY_WEIGHT,
        "x-two": BODY_WEIGHT,
    }


async def test_pieces_of_contractions_are_no_terms() -> None:
    store = FakeConceptStore()
    store.put(AGENT, fresh(name="hello all", body="we will tell"))
    store.put(AGENT, fresh(name="garden"))
    result = await scan_of(store).search(AGENT, "We'll see the garden, won't we? Don't they're")
    assert [hit.record.name for hit in result.hits] == ["garden"]
    assert "ll" not in result.terms and "don" not in result.terms


async def test_zero_overlap_and_zero_confidence_are_excluded() -> None:
    store = FakeConceptStore()
    store.put(AGENT, fresh(name="unrelated"))
    store.put(AGENT, fresh(name="tea", confidence=0))
    store.put(AGENT, fresh(name="tea house"))
    result = await scan_of(store).search(AGENT, "tea")
    assert [hit.record.name for hit in result.hits] == ["tea house"]
    assert await scan_of(store).search(AGENT, "the of") == await scan_of(store).search(AGENT, "and")


async def test_confidence_and_recency_multiply_with_a_30_day_half_life() -> None:
    store = FakeConceptStore()
    store.put(AGENT, fresh(name="tea a", confidence=0.5))
    store.put(AGENT, {"name": "tea b", "updated_at": (NOW - timedelta(days=30)).isoformat()})
    store.put(
        AGENT,
        {
            "name": "tea c",
            "updated_at": NOW.isoformat(),
            "last_seen": (NOW - timedelta(days=60)).isoformat(),
        },
    )
    hits = {h.record.name: h for h in (await scan_of(store).search(AGENT, "tea")).hits}
    assert hits["tea a"].score == pytest.approx(NAME_WEIGHT * 0.5)
    assert hits["tea b"].score == pytest.approx(NAME_WEIGHT * 0.5)
    assert hits["tea c"].score == pytest.approx(NAME_WEIGHT * 0.25)  # last_seen wins
    assert hits["tea c"].recency == pytest.approx(0.25)


async def test_ties_keep_store_order_and_top_k_cuts() -> None:
    store = FakeConceptStore()
    for name in ["tea 3", "tea 1", "tea 2", "coffee", "tea 0"]:
        store.put(AGENT, fresh(name=name))
    result = await scan_of(store).search(AGENT, "tea", top_k=3)
    assert [hit.record.name for hit in result.hits] == ["tea 3", "tea 1", "tea 2"]
    assert [hit.position for hit in result.hits] == [0, 1, 2]


@given(st.lists(st.sampled_from(["tea", "tea pot", "pot", "green tea pot", "none"]), max_size=12))
def test_results_are_sorted_by_score_then_store_order(names: list[str]) -> None:
    store = FakeConceptStore()
    for index, name in enumerate(names):
        store.put(AGENT, fresh(name=f"{name} #{index}"))
    result = asyncio.run(scan_of(store).search(AGENT, "tea pot", top_k=100))
    keys = [(-hit.score, hit.position) for hit in result.hits]
    assert keys == sorted(keys)
    assert all(hit.score > 0 for hit in result.hits)
    assert len(result.hits) == sum(1 for n in names if "tea" in n or "pot" in n)


async def test_cache_parses_once_and_a_write_invalidates_only_its_record() -> None:
    store = FakeConceptStore()
    store.put(AGENT, fresh(name="tea", description="green"))
    store.put(AGENT, fresh(name="pot"))
    scan = scan_of(store)
    await scan.search(AGENT, "tea")
    assert scan.parses == 2
    await scan.search(AGENT, "tea pot")
    assert scan.parses == 2  # nothing written: nothing re-read
    assert store.read_names == ["tea", "pot"]

    await store.upsert(AGENT, [fresh(name="tea", description="black")])
    result = await scan.search(AGENT, "black")
    assert scan.parses == 3
    assert store.read_names[-1:] == ["tea"]
    assert [hit.record.description for hit in result.hits] == ["black"]


async def test_cache_is_keyed_by_agent_and_tenant() -> None:
    store = FakeConceptStore()
    store.put(AGENT, fresh(name="tea one"), tenant="acme")
    store.put(AGENT, fresh(name="tea two"), tenant="other")
    scan = scan_of(store)
    first = await scan.search(AGENT, "tea", tenant="acme")
    second = await scan.search(AGENT, "tea", tenant="other")
    assert [h.record.name for h in first.hits] == ["tea one"]
    assert [h.record.name for h in second.hits] == ["tea two"]


async def test_unreadable_records_are_reported_not_fatal() -> None:
    store = FakeConceptStore()
    store.put_raw(AGENT, "broken", "{not json")
    store.put_raw(AGENT, "list", "[1, 2]")
    store.put(AGENT, fresh(name="tea"))
    result = await scan_of(store).search(AGENT, "tea")
    assert [h.record.name for h in result.hits] == ["tea"]
    assert result.unreadable == ("broken", "list")


async def test_concurrent_scans_with_writes_in_between_see_consistent_records() -> None:
    store = FakeConceptStore()
    store.delay = 0.001
    for index in range(20):
        store.put(AGENT, fresh(name=f"tea {index}"))
    scan = scan_of(store)

    async def writer() -> None:
        for round_ in range(5):
            await store.upsert(AGENT, [fresh(name=f"tea {round_}", description=f"v{round_}")])

    results = await asyncio.gather(
        *(scan.search(AGENT, "tea", top_k=100) for _ in range(10)), writer()
    )
    for result in results[:-1]:
        assert result is not None
        assert len(result.hits) == 20
    final = await scan.search(AGENT, "tea", top_k=100)
    descriptions = {h.record.name: h.record.description for h in final.hits}
    assert [descriptions[f"tea {i}"] for i in range(5)] == [f"v{i}" for i in range(5)]


async def test_an_unbound_scan_takes_its_store_per_search_and_keeps_its_cache() -> None:
    store = FakeConceptStore()
    store.put(AGENT, fresh(name="tea"))
    scan = TermScan(clock=lambda: NOW)
    with pytest.raises(ValueError, match="concept store"):
        await scan.search(AGENT, "tea")
    first = await scan.search(AGENT, "tea", store=store)
    second = await scan.search(AGENT, "tea", store=store)
    assert first == second and scan.parses == 1


def test_a_fields_remembered_term_records_are_the_scanned_ones_and_cannot_be_changed() -> None:
    from explorer.core.termscan import _FieldIndex

    field = _FieldIndex.of(["red fox", "a fox den", "redwood", "blue"])
    first = field.records_with("red")
    assert first.tolist() == [0, 2] and field.records_with("fox").tolist() == [0, 1]
    assert field.records_with("red") is first  # remembered, not scanned again
    with pytest.raises(ValueError):
        first[0] = 3  # a caller adding weights in place would corrupt the next query's scan
    assert field.records_with("den").tolist() == [1] and field.records_with("zzz").tolist() == []


def test_a_fields_remembered_records_stay_within_their_bound(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from explorer.core.termscan import _FieldIndex

    monkeypatch.setattr(_FieldIndex, "FOUND_CACHE", 5)
    field = _FieldIndex.of(["ant bee", "ant cat", "ant", "bee", "cat dog"])
    assert field.records_with("ant").tolist() == [0, 1, 2]
    assert field.records_with("bee").tolist() == [0, 3]
    assert field._held == 5
    assert field.records_with("cat").tolist() == [1, 4]  # the oldest ("ant") makes room
    assert set(field._found) == {"bee", "cat"} and field._held == 4
    assert field.records_with("ant").tolist() == [0, 1, 2]  # scanned again, same answer
