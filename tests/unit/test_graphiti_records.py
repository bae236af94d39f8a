"""How graphiti's stored values become the explorer's models (no store involved)."""

from __future__ import annotations

from datetime import UTC, datetime

from explorer.adapters.graphiti import records as rec
from explorer.adapters.graphiti.store import group_of


def test_name_spans_are_whole_words_in_any_case_and_names_are_not_patterns() -> None:
    text = "Maya met maya's friend Mayan; C++ and c++ differ from C."
    assert [text[s:e] for s, e in rec.name_spans("Maya", text)] == ["Maya", "maya"]
    assert [text[s:e] for s, e in rec.name_spans("C++", text)] == ["C++", "c++"]
    assert rec.name_spans("  ", text) == []


def test_an_episode_that_never_spells_the_name_is_one_whole_mention() -> None:
    episodes = [
        ["e2", "Later: Maya and MAYA again.", "2026-02-01T10:00:00+00:00", None],
        ["e1", "She moved.", None, "2026-01-01T09:00:00+00:00"],
    ]
    mentions = rec.entity_mentions("Maya", episodes)
    assert [(m.chunk_id, m.start, m.end) for m in mentions] == [
        ("e1", 0, 10),  # no valid_at: the episode's created_at dates it
        ("e2", 7, 11),
        ("e2", 16, 20),
    ]
    assert mentions[0].timestamp == datetime(2026, 1, 1, 9, tzinfo=UTC)


def test_entity_type_skips_entity_and_the_group_label() -> None:
    assert rec.entity_type(["Entity", "Entity_acme01", "Person"], "acme-01") == "Person"
    assert rec.entity_type(["Entity"], "acme") == rec.PLAIN_TYPE
    assert rec.entity_type([], "acme") == rec.PLAIN_TYPE


def test_times_are_read_as_utc_and_bad_ones_as_unknown() -> None:
    assert rec.when("2026-03-01T10:00:00") == datetime(2026, 3, 1, 10, tzinfo=UTC)
    assert rec.when("2026-03-01T12:00:00+02:00") == datetime(2026, 3, 1, 10, tzinfo=UTC)
    assert rec.when("yesterday") is None and rec.when(None) is None and rec.when(5) is None
    naive = datetime(2026, 3, 1, 10)
    assert rec.iso_bound(naive) == "2026-03-01T10:00:00+00:00"


def test_the_speaker_is_the_actor_of_a_one_line_message() -> None:
    assert rec.speaker("message", "Maya: I moved.") == "Maya"
    assert rec.speaker("text", "Maya: I moved.") == ""
    assert rec.speaker("message", "user: hi\nassistant: hello") == ""
    assert rec.speaker("message", "no actor here") == ""
    assert rec.speaker("message", "x" * 80 + ": too long for a name") == ""


def test_episodes_are_numbered_in_time_order_per_conversation() -> None:
    rows = [
        ["b", "second", "chat", "message", "2026-01-02T00:00:00+00:00", None, "acme"],
        ["a", "first", "chat", "message", "2026-01-01T00:00:00.5+00:00", None, "acme"],
        ["c", "other", "notes", "text", "2026-01-01T00:00:00+00:00", None, "acme"],
        ["d", "elsewhere", "chat", "message", "2026-01-03T00:00:00+00:00", None, "zeta"],
    ]
    chunks = {c.id: c for c in rec.positioned(rows)}
    assert {k: (c.conversation_id, c.position) for k, c in chunks.items()} == {
        "a": ("chat", 0),
        "b": ("chat", 1),
        "c": ("notes", 0),
        "d": ("chat", 0),
    }
    assert chunks["d"].scope == "zeta" and chunks["a"].text == "first"


def test_a_scope_sees_the_group_at_its_top_level() -> None:
    assert group_of(None) is None and group_of("") is None
    assert group_of("acme") == "acme" and group_of("acme/assistant/maya") == "acme"


def test_salience_grows_with_mentions_and_stays_below_one() -> None:
    values = [rec.salience(m) for m in (0, 1, 2, 10, 1000)]
    assert values[0] == 0.0 and values == sorted(values) and values[-1] < 1.0
