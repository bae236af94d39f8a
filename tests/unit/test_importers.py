"""The three importers on small fixtures written for the project, and on broken input."""

from __future__ import annotations

import json
import tracemalloc
from datetime import UTC, datetime
from pathlib import Path

import pytest

from explorer.core.errors import ImportFormatError, InvalidArgument
from explorer.ingest.chunking import chunk_turns
from explorer.ingest.importers import ImportLimits, read_turns
from explorer.ingest.importers.locomo import parse_session_time

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "ingest"


# -- locomo ------------------------------------------------------------------------------------


def test_locomo_reads_every_session_in_order_with_its_time() -> None:
    result = read_turns(FIXTURES / "benchmark_small.json", "locomo")
    first = [turn for turn in result.turns if turn.conversation_id == "trail-1"]
    assert [turn.turn_id for turn in first] == [
        "D1:1",
        "D1:2",
        "D1:3",
        "D1:4",
        "D2:1",
        "D2:2",
        "D2:3",
    ]
    # A date key without its session (session_3 here) adds nothing.
    assert first[0].timestamp == datetime(2024, 3, 3, 9, 5, tzinfo=UTC)
    assert first[3].timestamp == datetime(2024, 3, 3, 9, 5, 3, tzinfo=UTC)
    assert first[4].timestamp == datetime(2024, 3, 17, 18, 40, tzinfo=UTC)
    assert {turn.scope for turn in first} == {"locomo/trail-1"}
    assert result.bad == []


def test_locomo_keeps_image_captions_in_the_text() -> None:
    result = read_turns(FIXTURES / "benchmark_small.json", "locomo")
    by_id = {(turn.conversation_id, turn.turn_id): turn for turn in result.turns}
    shared = by_id[("trail-1", "D1:3")].text
    assert shared.startswith("Yes, the one by Harbour Park.")
    assert shared.endswith("[image: a photo of a blue clay bowl on a wooden table]")
    assert by_id[("trail-2", "D1:2")].text == "[image: a photo of a printed concert programme]"


def test_locomo_scope_goes_under_the_given_prefix() -> None:
    result = read_turns(FIXTURES / "benchmark_small.json", "locomo", scope="/lab/eval/")
    assert {turn.scope for turn in result.turns} == {
        "lab/eval/locomo/trail-1",
        "lab/eval/locomo/trail-2",
    }


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("1:56 pm on 8 May, 2023", datetime(2023, 5, 8, 13, 56, tzinfo=UTC)),
        ("12:05 am on 1 January, 2024", datetime(2024, 1, 1, 0, 5, tzinfo=UTC)),
        ("12:30 pm on 29 Feb, 2024", datetime(2024, 2, 29, 12, 30, tzinfo=UTC)),
    ],
)
def test_session_times_parse(text: str, expected: datetime) -> None:
    assert parse_session_time(text) == expected


def test_locomo_strict_names_the_first_bad_record_and_imports_nothing() -> None:
    with pytest.raises(ImportFormatError) as raised:
        read_turns(FIXTURES / "benchmark_bad.json", "locomo")
    message = str(raised.value)
    assert "benchmark_bad.json" in message
    assert "sample 0 (broken-1), session_1" in message
    assert "4 more bad records" in message


def test_locomo_skip_bad_keeps_the_good_turns_and_lists_the_bad() -> None:
    result = read_turns(FIXTURES / "benchmark_bad.json", "locomo", skip_bad=True)
    assert [turn.turn_id for turn in result.turns] == ["D2:1", "D2:4"]
    locations = [record.location for record in result.bad]
    assert locations == [
        "sample 0 (broken-1), session_1",
        "sample 0 (broken-1), session_2, turn 1",
        "sample 0 (broken-1), session_2, turn 2",
        "sample 1",
        "sample 2",
    ]
    assert "speaker must be a string" in result.bad[2].reason


# -- jsonl -------------------------------------------------------------------------------------


def test_jsonl_reads_messages_with_scopes_domains_and_positions() -> None:
    result = read_turns(FIXTURES / "messages.jsonl", "jsonl", scope="tenant")
    assert result.skipped_empty == 1
    garden = [turn for turn in result.turns if turn.conversation_id == "garden-1"]
    work = [turn for turn in result.turns if turn.conversation_id == "work-7"]
    assert [turn.turn_id for turn in garden] == ["0", "1", "2"]
    assert [turn.turn_id for turn in work] == ["0", "w7-2"]
    assert garden[0].domains == ("hobbies", "home")
    assert garden[0].scope == "tenant/acme/helper/rosa"
    # Offsets are converted to UTC; a time without a zone is read as UTC.
    assert work[0].timestamp == datetime(2024, 4, 8, 16, 2, tzinfo=UTC)
    assert work[1].timestamp == datetime(2024, 4, 8, 18, 3, tzinfo=UTC)


def test_jsonl_strict_error_names_file_and_line() -> None:
    with pytest.raises(ImportFormatError) as raised:
        read_turns(FIXTURES / "messages_bad.jsonl", "jsonl")
    message = str(raised.value)
    assert "messages_bad.jsonl: line 2: not valid JSON" in message
    assert "6 more bad records" in message
    assert "nothing was imported" in message


def test_jsonl_skip_bad_reports_each_bad_line() -> None:
    result = read_turns(FIXTURES / "messages_bad.jsonl", "jsonl", skip_bad=True)
    assert [turn.text for turn in result.turns] == ["First good line.", "Second good line."]
    reasons = {record.location: record.reason for record in result.bad}
    assert set(reasons) == {f"line {n}" for n in range(2, 9)}
    assert "missing field(s): speaker" in reasons["line 3"]
    assert "speaker must be a string" in reasons["line 4"]
    assert "ISO 8601" in reasons["line 5"]
    assert "NUL" in reasons["line 6"]
    assert "expected a JSON object" in reasons["line 7"]
    assert "domains" in reasons["line 8"]


def _write_lines(path: Path, lines: list[bytes]) -> Path:
    path.write_bytes(b"\n".join(lines) + b"\n")
    return path


GOOD = (
    b'{"conversation_id": "c", "speaker": "S", "text": "fine", "timestamp": "2024-01-01T00:00:00Z"}'
)


def test_jsonl_invalid_utf8_is_a_bad_line(tmp_path: Path) -> None:
    broken = GOOD.replace(b'"fine"', b'"caf\xe9"')
    path = _write_lines(tmp_path / "latin1.jsonl", [GOOD, broken])
    with pytest.raises(ImportFormatError, match=r"line 2: not valid UTF-8"):
        read_turns(path, "jsonl")
    assert len(read_turns(path, "jsonl", skip_bad=True).turns) == 1


def test_jsonl_unpaired_surrogate_is_a_bad_line(tmp_path: Path) -> None:
    broken = GOOD.replace(b'"fine"', b'"\\ud800"')
    path = _write_lines(tmp_path / "surrogate.jsonl", [GOOD, broken])
    with pytest.raises(ImportFormatError, match=r"line 2: text contains an unpaired surrogate"):
        read_turns(path, "jsonl")


def test_a_speaker_no_one_can_see_is_a_bad_line(tmp_path: Path) -> None:
    invisible = GOOD.replace(b'"S"', b'"\\u200b\\u200d"')
    path = _write_lines(tmp_path / "invisible.jsonl", [GOOD, invisible])
    with pytest.raises(ImportFormatError, match=r"line 2: speaker has no visible characters"):
        read_turns(path, "jsonl")
    named = GOOD.replace(b'"S"', b'"Ana\\u200d"')  # a joiner inside a real name is kept
    assert len(read_turns(_write_lines(tmp_path / "ok.jsonl", [named]), "jsonl").turns) == 1


def test_jsonl_utf16_file_is_refused_by_name(tmp_path: Path) -> None:
    path = tmp_path / "utf16.jsonl"
    path.write_text(GOOD.decode() + "\n", encoding="utf-16")
    with pytest.raises(ImportFormatError, match="UTF-16"):
        read_turns(path, "jsonl")


def test_jsonl_utf8_bom_is_accepted(tmp_path: Path) -> None:
    path = tmp_path / "bom.jsonl"
    path.write_bytes(b"\xef\xbb\xbf" + GOOD + b"\n")
    assert len(read_turns(path, "jsonl").turns) == 1


def test_an_over_long_line_is_skipped_without_being_held_in_memory(tmp_path: Path) -> None:
    path = tmp_path / "huge.jsonl"
    with path.open("wb") as handle:
        handle.write(GOOD + b"\n")
        handle.write(b'{"text": "')
        block = b"x" * (1 << 20)
        for _ in range(48):  # a 48 MiB line
            handle.write(block)
        handle.write(b'"}\n')
        handle.write(GOOD.replace(b"00Z", b"09Z") + b"\n")
    limits = ImportLimits(max_line_bytes=64 * 1024)
    with pytest.raises(ImportFormatError, match=r"line 2: the line is longer than 65536 bytes"):
        read_turns(path, "jsonl", limits=limits)
    tracemalloc.start()
    try:
        result = read_turns(path, "jsonl", skip_bad=True, limits=limits)
        _current, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert len(result.turns) == 2
    assert peak < 8 * 1024 * 1024


def test_text_over_the_cap_is_a_bad_record(tmp_path: Path) -> None:
    line = json.dumps(
        {"conversation_id": "c", "speaker": "S", "text": "y" * 500, "timestamp": "2024-01-01"}
    ).encode()
    path = _write_lines(tmp_path / "long.jsonl", [line])
    with pytest.raises(ImportFormatError, match="longer than 100 characters"):
        read_turns(path, "jsonl", limits=ImportLimits(max_text_chars=100))


def test_a_repeated_turn_id_is_a_bad_record(tmp_path: Path) -> None:
    lines = [
        json.dumps(
            {
                "conversation_id": "c",
                "speaker": "S",
                "text": t,
                "timestamp": "2024-01-01",
                "turn_id": "x",
            }
        ).encode()
        for t in ("one", "two")
    ]
    path = _write_lines(tmp_path / "dupe.jsonl", lines)
    with pytest.raises(ImportFormatError, match="turn id 'x' repeats"):
        read_turns(path, "jsonl")


def test_an_empty_file_is_an_error(tmp_path: Path) -> None:
    path = tmp_path / "empty.jsonl"
    path.write_bytes(b"\n\n")
    with pytest.raises(ImportFormatError, match="no messages"):
        read_turns(path, "jsonl")


# -- chatgpt -----------------------------------------------------------------------------------


def test_chatgpt_follows_the_current_branch_and_keeps_user_and_assistant_text() -> None:
    result = read_turns(FIXTURES / "chatgpt_export.json", "chatgpt", scope="me")
    porto = [turn for turn in result.turns if turn.conversation_id == "conv-porto"]
    assert [turn.turn_id for turn in porto] == ["n2", "n3", "n5", "n6"]
    assert [turn.speaker for turn in porto] == ["user", "assistant", "user", "assistant"]
    assert "Lisbon" not in " ".join(turn.text for turn in porto)  # the abandoned branch
    assert porto[2].text == "Here is the hotel Jonas picked."  # the image part is left out
    # A message without a time takes the previous node's (the tool call's) time.
    assert porto[2].timestamp == datetime.fromtimestamp(1714557690.0, UTC)
    hidden = [turn for turn in result.turns if turn.conversation_id == "conv-hidden"]
    assert [turn.text for turn in hidden] == ["Book the 9 am train please."]
    assert {turn.scope for turn in result.turns} == {"me"}
    assert {turn.title for turn in porto} == {"Planning a trip to Porto"}
    assert {chunk.title for chunk in chunk_turns(porto)} == {"Planning a trip to Porto"}


def test_chatgpt_tool_calls_and_code_are_no_turns(tmp_path: Path) -> None:
    export = json.loads((FIXTURES / "chatgpt_export.json").read_text("utf-8"))
    nodes = export[0]["mapping"]
    # The assistant's reply n3 becomes a call to the browser, n6 a piece of code it ran.
    nodes["n3"]["message"]["recipient"] = "browser"
    nodes["n6"]["message"]["content"] = {"content_type": "code", "text": "search('hotels')"}
    path = tmp_path / "conversations.json"
    path.write_text(json.dumps(export), "utf-8")
    porto = [t for t in read_turns(path, "chatgpt").turns if t.conversation_id == "conv-porto"]
    assert [turn.turn_id for turn in porto] == ["n2", "n5"]


def test_a_chatgpt_title_unfit_to_show_is_dropped_and_the_conversation_kept(
    tmp_path: Path,
) -> None:
    export = json.loads((FIXTURES / "chatgpt_export.json").read_text("utf-8"))
    export[0]["title"] = "bad\x00title"
    export[1]["title"] = {"not": "text"}
    path = tmp_path / "conversations.json"
    path.write_text(json.dumps(export), "utf-8")
    result = read_turns(path, "chatgpt")
    assert not result.bad and {turn.title for turn in result.turns} == {""}
    assert {turn.conversation_id for turn in result.turns} == {"conv-porto", "conv-hidden"}


def test_chatgpt_bad_trees_are_named_and_skippable() -> None:
    with pytest.raises(ImportFormatError, match=r"conversation 0 \(loop\): the parent chain loops"):
        read_turns(FIXTURES / "chatgpt_bad.json", "chatgpt")
    result = read_turns(FIXTURES / "chatgpt_bad.json", "chatgpt", skip_bad=True)
    assert [record.location for record in result.bad] == [
        "conversation 0 (loop)",
        "conversation 1 (dangling)",
        "conversation 2 (bad-content), node p2",
    ]
    assert [turn.text for turn in result.turns] == ["Fine message.", "Book the 9 am train please."]


# -- whole files -------------------------------------------------------------------------------


def test_bad_json_document_names_line_and_column(tmp_path: Path) -> None:
    path = tmp_path / "broken.json"
    path.write_text('[\n  {"sample_id": "a",\n   "conversation": }\n]\n')
    with pytest.raises(ImportFormatError, match=r"broken.json: not valid JSON at line 3 column"):
        read_turns(path, "locomo")


def test_a_document_of_the_wrong_shape_is_an_error(tmp_path: Path) -> None:
    path = tmp_path / "shape.json"
    path.write_text('"just a string"')
    with pytest.raises(ImportFormatError, match="expected a list of conversations"):
        read_turns(path, "chatgpt")


def test_deeply_nested_json_is_an_error_not_a_crash(tmp_path: Path) -> None:
    path = tmp_path / "deep.json"
    path.write_text("[" * 200_000 + "]" * 200_000)
    with pytest.raises(ImportFormatError, match="nested too deeply"):
        read_turns(path, "locomo")


def test_a_document_over_the_size_cap_is_refused_unread(tmp_path: Path) -> None:
    path = tmp_path / "big.json"
    path.write_text("[" + " " * 5000 + "]")
    with pytest.raises(ImportFormatError, match="over the 1000-byte limit"):
        read_turns(path, "chatgpt", limits=ImportLimits(max_document_bytes=1000))


def test_missing_path_directory_and_unknown_format_are_argument_errors(tmp_path: Path) -> None:
    with pytest.raises(InvalidArgument, match="no such file"):
        read_turns(tmp_path / "absent.jsonl", "jsonl")
    with pytest.raises(InvalidArgument, match="not a regular file"):
        read_turns(tmp_path, "jsonl")
    with pytest.raises(InvalidArgument, match="unknown format"):
        read_turns(FIXTURES / "messages.jsonl", "csv")
    with pytest.raises(InvalidArgument, match="scope"):
        read_turns(FIXTURES / "messages.jsonl", "jsonl", scope="a/\x07/b")


BIG = "9" * 5000
GOOD_RECORD = {"conversation_id": "c", "speaker": "a", "text": "fine", "timestamp": "2024-01-01"}


def _line(**changes: object) -> str:
    return json.dumps({**GOOD_RECORD, **changes})


@pytest.mark.parametrize(
    ("bad", "reason"),
    [
        (_line(conversation_id=0).replace(": 0,", f": {BIG},"), "number too large"),
        (_line(timestamp="0001-01-01T00:00:00+05:00"), "out of range"),
        (_line(timestamp="9999-12-31T23:59:59-05:00"), "out of range"),
        (_line(domains=0).replace(": 0}", f": {BIG}}}"), "number too large"),
    ],
)
def test_jsonl_bad_values_are_one_bad_line_each(tmp_path: Path, bad: str, reason: str) -> None:
    path = tmp_path / "talk.jsonl"
    path.write_text(f"{_line()}\n{bad}\n{_line(text='also fine')}\n")
    with pytest.raises(ImportFormatError, match=rf"talk.jsonl: line 2: .*{reason}"):
        read_turns(path, "jsonl")
    result = read_turns(path, "jsonl", skip_bad=True)
    assert [t.text for t in result.turns] == ["fine", "also fine"]
    assert [b.location for b in result.bad] == ["line 2"] and reason in result.bad[0].reason


def test_a_locomo_session_at_the_end_of_time_is_skipped_alone(tmp_path: Path) -> None:
    turns = [{"speaker": "A", "text": f"t{i}", "dia_id": f"D1:{i}"} for i in range(1, 100)]
    sample = {
        "sample_id": "s",
        "conversation": {
            "speaker_a": "A",
            "speaker_b": "B",
            "session_1_date_time": "11:59 pm on 31 December, 9999",
            "session_1": turns,
            "session_2_date_time": "1:56 pm on 8 May, 2023",
            "session_2": [{"speaker": "A", "text": "kept", "dia_id": "D2:1"}],
        },
    }
    path = tmp_path / "far.json"
    path.write_text(json.dumps([sample]))
    result = read_turns(path, "locomo", skip_bad=True)
    assert [t.text for t in result.turns] == ["kept"]
    assert [b.location for b in result.bad] == ["sample 0 (s), session_1"]


def test_a_chatgpt_create_time_of_400_digits_is_one_bad_conversation(tmp_path: Path) -> None:
    def conversation(cid: str, when: int) -> dict[str, object]:
        message = {"author": {"role": "user"}, "create_time": when, "content": {"parts": ["hi"]}}
        return {"id": cid, "create_time": when, "current_node": "n",
                "mapping": {"n": {"message": message}}}  # fmt: skip

    text = json.dumps([conversation("a", 7), conversation("b", 1_700_000_000)])
    path = tmp_path / "conversations.json"
    path.write_text(text.replace(": 7", ": 1" + "0" * 400))
    result = read_turns(path, "chatgpt", skip_bad=True)
    assert [t.conversation_id for t in result.turns] == ["b"]
    assert result.bad[0].location == "conversation 0 (a)"
    assert "number too large" in result.bad[0].reason


def test_an_import_scope_of_dot_levels_is_refused() -> None:
    from explorer.ingest.importers.base import BadValue, check_scope

    assert check_scope(" friends / chat ") == "friends/chat"
    with pytest.raises(BadValue, match=r"'\.' or '\.\.' level"):
        check_scope("../../etc")


def test_a_suggested_scope_fits_a_scope_level() -> None:
    from explorer.core.validate import MAX_SCOPE_PART_CHARS
    from explorer.ingest.importers import suggest_scope

    assert suggest_scope("Friends chat.jsonl") == "friends-chat"
    assert len(suggest_scope("x" * 300 + ".jsonl")) == MAX_SCOPE_PART_CHARS
