"""Writing the same evidence again (a resumed import) leaves an entity's record as it was."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime, timedelta

from explorer.core.models import Entity, MemoryLayer, Mention
from explorer.ingest.evidence import merge_entity, merge_stored, score

MONDAY = datetime(2025, 3, 3, 9, tzinfo=UTC)


def _person() -> Entity:
    return Entity(
        id="p1",
        name="Noor",
        type="person",
        scope="s",
        layer=MemoryLayer.PROFILE,  # as the extractor files people
        confidence=0.0,
        temporal=("march", "weekend", "evening"),
        domains=("travel", "family", "work"),
        mentions=tuple(Mention(f"c{n}", 0, 4, MONDAY + timedelta(days=n)) for n in range(4)),
    )


def test_a_record_merged_with_itself_keeps_its_rankings() -> None:
    noor = _person()
    again = merge_stored(noor, noor)
    assert again.temporal == noor.temporal and again.domains == noor.domains
    # The plain merge weighs the second record twice, so a tie re-sorts the list by name:
    # written twice, a record would change, which is what merge_stored is for.
    assert merge_entity(noor, noor).domains != noor.domains


def test_this_writes_ranking_leads_and_stored_values_follow() -> None:
    stored = replace(_person(), domains=("health", "travel"))
    merged = merge_stored(stored, _person())
    assert merged.domains == ("travel", "family", "work", "health")


def test_scoring_a_write_again_over_its_own_result_changes_nothing() -> None:
    (first,), _ = score([_person()], [], spoken={}, stored={}, now=MONDAY)
    (second,), _ = score([_person()], [], spoken={}, stored={first.id: first}, now=MONDAY)
    assert second == first
