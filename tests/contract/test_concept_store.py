"""The ``ConceptStore`` contract, for the fake and for PostgreSQL."""

from __future__ import annotations

import json

from explorer.core.ports import ConceptStore


async def test_records_round_trip_as_json_and_names_are_stable(concepts: ConceptStore) -> None:
    records = [{"name": "Lisbon", "sources": ["trip"]}, {"name": "Karim", "sources": ["chat"]}]
    assert await concepts.upsert("home/noor", records) == 2
    names = await concepts.names("home/noor")
    assert sorted(names) == ["Karim", "Lisbon"]
    assert await concepts.names("home/noor") == names
    read = await concepts.read("home/noor", ["Lisbon", "missing"])
    assert set(read) == {"Lisbon"}
    assert json.loads(read["Lisbon"])["sources"] == ["trip"]
    assert await concepts.names("home/karim") == []


async def test_a_write_changes_the_stamp_and_only_the_written_records(
    concepts: ConceptStore,
) -> None:
    await concepts.upsert("home", [{"name": "Lisbon"}, {"name": "Porto"}])
    before = await concepts.updated_at("home", ["Lisbon", "Porto"])
    assert set(before) == {"Lisbon", "Porto"}
    await concepts.upsert("home", [{"name": "Lisbon", "sources": ["again"]}])
    after = await concepts.updated_at("home", ["Lisbon", "Porto"])
    assert after["Lisbon"] != before["Lisbon"] and after["Porto"] == before["Porto"]
    assert json.loads((await concepts.read("home", ["Lisbon"]))["Lisbon"])["sources"] == ["again"]


async def test_agents_lists_scopes_at_or_below(concepts: ConceptStore) -> None:
    for agent in ("home", "home/noor", "homework", "work"):
        await concepts.upsert(agent, [{"name": "x"}])
    assert await concepts.agents() == ["home", "home/noor", "homework", "work"]
    assert await concepts.agents("home") == ["home", "home/noor"]


async def test_tenants_keep_their_records_apart(concepts: ConceptStore) -> None:
    await concepts.upsert("home", [{"name": "Lisbon", "who": "a"}], tenant="a")
    await concepts.upsert("home", [{"name": "Lisbon", "who": "b"}], tenant="b")
    assert json.loads((await concepts.read("home", ["Lisbon"], tenant="a"))["Lisbon"])["who"] == "a"
    assert json.loads((await concepts.read("home", ["Lisbon"], tenant="b"))["Lisbon"])["who"] == "b"


async def test_forgetting_a_scope_deletes_its_agents_records_and_below(
    concepts: ConceptStore,
) -> None:
    for agent in ("home", "home/noor", "homework", "work"):
        await concepts.upsert(agent, [{"name": "x"}, {"name": "y"}])
    assert await concepts.forget_scope("home") == 4
    assert await concepts.agents() == ["homework", "work"]
    assert await concepts.names("homework") == ["x", "y"]
    assert await concepts.forget_scope("home") == 0
