"""Honest answers and no tracebacks from the real CLI: every half down, a closed pipe, bad
input, a read-only or full data directory, a DSN with an impossible port."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.reliability.conftest import run_cli, servers_under, tmpfs, write_settings

NOWHERE = "unix:///nonexistent/falkordb.sock"
NO_PG = "postgresql://scour@/scour?host=/nonexistent"


def _one_clean_line(stderr: str) -> str:
    assert "Traceback" not in stderr, stderr
    lines = [line for line in stderr.splitlines() if line.startswith("scour-explorer:")]
    assert len(lines) == 1, stderr
    return lines[0]


def test_every_half_down_is_a_failure_with_a_non_zero_exit(tmp_path: Path) -> None:
    data = tmp_path / "data"
    write_settings(data, connect_timeout=2.0)
    args = ["--data-dir", str(data), "--falkordb-url", NOWHERE, "--postgres-dsn", NO_PG]
    done = run_cli([*args, "query", "Lisbon"], tmp_path)
    assert done.returncode == 1
    answer = json.loads(done.stdout)
    assert answer["success"] is False and answer["kg_error"] and answer["chunks_error"]
    assert "every half asked failed" in _one_clean_line(done.stderr)
    # A skipped half and a failed one is no answer either.
    skipped = run_cli([*args, "query", "Lisbon", "--kg-top-k", "0"], tmp_path)
    assert skipped.returncode == 1 and json.loads(skipped.stdout)["success"] is False
    stats = run_cli([*args, "stats"], tmp_path)
    assert stats.returncode == 1 and "neither store answered" in stats.stderr
    assert "chunks: unknown (its store did not answer)" in stats.stdout
    assert "embedder: {" in stats.stdout  # what the process knows itself is still said


def test_a_closed_pipe_ends_quietly(tmp_path: Path) -> None:
    data = tmp_path / "data"
    write_settings(data)
    args = ["--data-dir", str(data), "--falkordb-url", NOWHERE, "--postgres-dsn", NO_PG]
    done = run_cli([*args, "query", "Lisbon", "--explain"], tmp_path, close_stdout=True)
    assert done.returncode == 141
    assert done.stderr.count("Traceback") == 0 and "BrokenPipe" not in done.stderr


def test_a_lone_surrogate_on_the_command_line_is_refused_clearly(tmp_path: Path) -> None:
    data = tmp_path / "data"
    write_settings(data)
    args = ["--data-dir", str(data), "--falkordb-url", NOWHERE, "--postgres-dsn", NO_PG]
    # Undecodable bytes in argv reach Python as lone surrogates.
    done = run_cli([*args, "query", "Lisb\udcffon"], tmp_path)
    assert done.returncode == 1
    assert "lone surrogate" in _one_clean_line(done.stderr)
    answer = json.loads(done.stdout)
    assert answer["success"] is False and answer["query"] == "Lisb\\udcffon"


def test_a_dsn_port_out_of_range_is_one_line(tmp_path: Path) -> None:
    data = tmp_path / "data"
    write_settings(data)
    dsn = "postgresql://scour@localhost:99999/scour"
    done = run_cli(["--data-dir", str(data), "--falkordb-url", NOWHERE, "--postgres-dsn", dsn,
                    "query", "Lisbon"], tmp_path)  # fmt: skip
    assert done.returncode == 2
    assert "port '99999'" in _one_clean_line(done.stderr)


def test_a_read_only_data_dir_is_a_clear_message(tmp_path: Path) -> None:
    with tmpfs(tmp_path / "ro", size="1m", read_only=True) as mount:
        data = mount / "data"
        done = run_cli(["--data-dir", str(data), "query", "Lisbon"], tmp_path)
        assert done.returncode == 1
        assert "Read-only file system" in _one_clean_line(done.stderr)
        assert servers_under(mount) == []


@pytest.mark.timeout(180)
def test_a_full_disk_names_the_cause_and_the_other_half_still_answers(tmp_path: Path) -> None:
    with tmpfs(tmp_path / "full", size="3m") as mount:
        data = mount / "data"
        write_settings(data)
        done = run_cli(["--data-dir", str(data), "query", "Lisbon"], tmp_path)
        assert "Traceback" not in done.stderr
        answer = json.loads(done.stdout)
        # FalkorDB fits in 3 MB and answers; PostgreSQL's initdb does not.
        assert "No space left on device" in answer["chunks_error"]
        assert answer["success"] is True and "kg_error" not in answer
        assert done.returncode == 0
        assert servers_under(mount) == []


def _jsonl(tmp_path: Path, bad: str) -> Path:
    good = {"conversation_id": "c", "speaker": "Maya", "timestamp": "2026-05-01T10:00:00"}
    lines = [
        json.dumps({**good, "text": "Maya flew to Lisbon with Jonah."}),
        bad,
        json.dumps({**good, "text": "Jonah booked the hotel in Porto.", "turn_id": "t2"}),
    ]
    path = tmp_path / "talk.jsonl"
    path.write_text("\n".join(lines) + "\n")
    return path


@pytest.mark.parametrize(
    "bad",
    [
        '{"conversation_id": 1%s, "speaker": "Maya", "text": "x", "timestamp": "2026-05-01"}'
        % ("0" * 5000),
        '{"conversation_id": "c", "speaker": "Maya", "text": "x", "turn_id": "t1",'
        ' "timestamp": "0001-01-01T00:00:00+05:00"}',
    ],
    ids=["huge-int", "before-year-1"],
)
def test_ingest_names_the_bad_record_and_skip_bad_skips_only_it(tmp_path: Path, bad: str) -> None:
    data = tmp_path / "data"
    write_settings(data)
    path = _jsonl(tmp_path, bad)
    strict = run_cli(["--data-dir", str(data), "ingest", str(path), "--format", "jsonl"], tmp_path)
    assert strict.returncode == 2
    assert f"{path}: line 2:" in _one_clean_line(strict.stderr)
    skipping = run_cli(
        ["--data-dir", str(data), "ingest", str(path), "--format", "jsonl", "--skip-bad"], tmp_path
    )
    assert "Traceback" not in skipping.stderr
    assert "2 turns" in skipping.stdout and "line 2" in skipping.stdout
    # Without --scope the file's name is the scope, as the window's import suggests.
    stats = run_cli(["--data-dir", str(data), "stats", "--json"], tmp_path)
    assert set(json.loads(stats.stdout)["chunks_by_scope"]) == {"talk"}
    assert servers_under(data) == []
