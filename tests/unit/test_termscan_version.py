"""The term scan's fast paths: a versioned store is not listed again while unchanged, and the
word-index search gives each record exactly what the documented rule gives it."""

from __future__ import annotations

from datetime import UTC, datetime

from hypothesis import given
from hypothesis import strategies as st

from explorer.core.termscan import (
    BODY_WEIGHT,
    DESCRIPTION_WEIGHT,
    NAME_WEIGHT,
    ConceptRecord,
    TermScan,
    _Haystack,
    tokenize,
)
from explorer.testing import FakeConceptStore


def overlap(record: ConceptRecord, terms: list[str] | tuple[str, ...]) -> int:
    """The documented rule, record by record: 3 per term in the name, 2 in the description,
    1 in the body (substrings, case-insensitive)."""
    total = 0
    for term in terms:
        total += NAME_WEIGHT * (term in record.name_lower)
        total += DESCRIPTION_WEIGHT * (term in record.description_lower)
        total += BODY_WEIGHT * (term in record.body_lower)
    return total


NOW = datetime(2024, 6, 1, tzinfo=UTC)
AGENT = "acme/bot"


class VersionedStore(FakeConceptStore):
    """A fake whose version changes with every write, counting how often names are listed."""

    def __init__(self) -> None:
        super().__init__()
        self.listings = 0

    async def version(self, agent: str, tenant: str | None = None) -> str:
        return f"v{self._tick}"

    async def names(self, agent: str, tenant: str | None = None) -> list[str]:
        self.listings += 1
        return await super().names(agent, tenant)


async def test_unchanged_version_skips_listing_and_a_write_is_seen() -> None:
    store = VersionedStore()
    store.put(AGENT, {"name": "Kestrel", "description": "a falcon", "updated_at": NOW.isoformat()})
    scan = TermScan(store, clock=lambda: NOW)

    first = await scan.search(AGENT, "kestrel")
    again = await scan.search(AGENT, "kestrel")

    assert [hit.record.name for hit in first.hits] == ["Kestrel"]
    assert [hit.record.name for hit in again.hits] == ["Kestrel"]
    assert store.listings == 1

    store.put(AGENT, {"name": "Kestrel Lake", "updated_at": NOW.isoformat()})
    after = await scan.search(AGENT, "kestrel")

    assert store.listings == 2
    assert sorted(hit.record.name for hit in after.hits) == ["Kestrel", "Kestrel Lake"]


async def test_versions_are_kept_per_agent() -> None:
    store = VersionedStore()
    store.put(AGENT, {"name": "Kestrel", "updated_at": NOW.isoformat()})
    store.put("acme/other", {"name": "Kestrel Bay", "updated_at": NOW.isoformat()})
    scan = TermScan(store, clock=lambda: NOW)

    mine = await scan.search(AGENT, "kestrel")
    theirs = await scan.search("acme/other", "kestrel")

    assert [hit.record.name for hit in mine.hits] == ["Kestrel"]
    assert [hit.record.name for hit in theirs.hits] == ["Kestrel Bay"]


WORDS = st.sampled_from(["kes", "kestrel", "lake", "falcon", "a", "bay", "rel", "\x00", "Ö"])
# Word salad makes overlaps likely; free text covers any character a record may hold.
TEXTS = st.one_of(st.lists(WORDS, max_size=6).map(" ".join), st.text(max_size=30))


@given(
    fields=st.lists(st.tuples(TEXTS, TEXTS, TEXTS), max_size=8),
    query=st.one_of(st.lists(WORDS, min_size=1, max_size=4).map(" ".join), st.text(max_size=12)),
)
def test_the_joined_search_gives_every_record_its_own_overlap(
    fields: list[tuple[str, str, str]], query: str
) -> None:
    records = [
        ConceptRecord(
            name=name or "x",
            id=f"concept:{name}",
            description=description,
            body=body,
            # Folded as the term scan folds a stored record (``termscan`` uses casefold).
            name_lower=(name or "x").casefold(),
            description_lower=description.casefold(),
            body_lower=body.casefold(),
        )
        for name, description, body in fields
    ]
    terms = tokenize(query)
    totals = _Haystack(records).totals(terms)
    found = {
        position: int(totals[position]) for position in range(len(records)) if totals[position]
    }
    expected = {i: overlap(r, terms) for i, r in enumerate(records) if overlap(r, terms) > 0}
    assert found == expected
