"""The window on the user's own memory, over real embedded stores: no demo, nothing typed but files.

A module-wide data directory starts empty (servers started here, so the window only attaches).
The window opens on the root scope, imports a JSONL file from File → Import into a scope of its
own and answers a query about it without any scope typed; the scope picker lists what the stores
hold and flags a scope that holds nothing; a bad file imports nothing in strict mode; a cancelled
import leaves nothing pending; Settings round-trips through ``settings.toml`` with the Gemini key
in a (test) keyring only; Open memory reaches the same servers through their unix-socket URLs.
"""

from __future__ import annotations

import asyncio
import json
import signal
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import keyring
import pytest
from keyring.backend import KeyringBackend
from PySide6.QtCore import Qt

from explorer.adapters.embedded import EmbeddedServers
from explorer.compose import SERVICES
from explorer.gui.bridge import ServiceBridge
from explorer.settings import Settings, load_settings
from tests.gui.conftest import close_window, make_window, run

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "ingest"


class MemoryKeyring(KeyringBackend):
    """A keyring that keeps passwords in a dict, for tests."""

    priority = 1

    def __init__(self) -> None:
        super().__init__()  # type: ignore[no-untyped-call]  # keyring's base is untyped
        self.passwords: dict[tuple[str, str], str] = {}

    def get_password(self, service: str, username: str) -> str | None:
        return self.passwords.get((service, username))

    def set_password(self, service: str, username: str, password: str) -> None:
        self.passwords[(service, username)] = password

    def delete_password(self, service: str, username: str) -> None:
        self.passwords.pop((service, username), None)


@pytest.fixture(scope="module")
def own_dir(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    data_dir = tmp_path_factory.mktemp("own-memory")
    servers = EmbeddedServers(data_dir)
    servers.start()
    try:
        yield data_dir
    finally:
        servers.stop()


@pytest.fixture
def own_window(
    qloop: asyncio.AbstractEventLoop, qtbot: Any, own_dir: Path, settings_store: Any
) -> Iterator[Any]:
    settings = Settings(data_dir=own_dir, load_demo=False, file=own_dir / "settings.toml")
    bridge = ServiceBridge(settings, services=SERVICES, poll_interval=0.3)
    window = make_window(bridge, settings_store)
    bridge.open()
    qtbot.waitUntil(lambda: window.memory_actions.overview is not None, timeout=60_000)
    yield window
    close_window(qloop, window)


def _import(qtbot: Any, window: Any, path: Path, scope: str, *, skip_bad: bool = False) -> Any:
    dialog = window.memory_actions.open_import(path)
    assert dialog.format.currentData() == "jsonl"  # detected from the file
    dialog.scope.setText(scope)
    (dialog.skip_bad if skip_bad else dialog.strict).setChecked(True)
    qtbot.mouseClick(dialog.import_button, qtbot_button())
    qtbot.waitUntil(lambda: dialog.outcome is not None, timeout=120_000)
    return dialog


def qtbot_button() -> Any:
    from PySide6.QtCore import Qt

    return Qt.MouseButton.LeftButton


def _messages(tmp: Path, count: int, conversation: str = "garden") -> Path:
    path = tmp / f"{conversation}.jsonl"
    lines = [
        {
            "conversation_id": f"{conversation}-{i // 40}",
            "speaker": "Rosa" if i % 2 else "Helper",
            "text": f"Rosa planted tomato row {i} at the Elm Road allotment with Marek Nowak.",
            "timestamp": f"2024-04-{1 + i % 28:02d}T09:{i % 60:02d}:00Z",
        }
        for i in range(count)
    ]
    path.write_text("\n".join(json.dumps(line) for line in lines) + "\n", "utf-8")
    return path


def test_import_then_query_without_a_scope(qtbot: Any, own_window: Any) -> None:
    window = own_window
    assert window.bridge.settings.default_scope == ""  # the root
    assert window.memory_actions.overview_shown()
    dialog = _import(qtbot, window, FIXTURES / "messages.jsonl", "mine/notes")
    outcome = dialog.outcome
    assert not outcome.error and outcome.report.chunks_new > 0, outcome
    assert "added:" in dialog.summary.toPlainText()
    # The overview is refreshed: the picker now lists the new scope with its counts.
    qtbot.waitUntil(lambda: "mine/notes" in window.query_bar.scope_picker.paths(), timeout=30_000)
    node = window.memory_actions.overview.scopes.find("mine/notes")
    assert node is not None and node.chunks == outcome.report.chunks_new and node.entities > 0
    assert window.query_bar.scope_picker.text() == ""
    # The status line still says where the import went once the overview is redrawn.
    qtbot.waitUntil(lambda: "chunks and" in window.status_message.text(), timeout=30_000)
    assert window.status_message.text().startswith("Imported into “mine/notes”")
    token = window.run_query("Who planted tomatoes at the allotment?")
    qtbot.waitUntil(
        lambda: window.outcome is not None and window.outcome.token == token, timeout=60_000
    )
    result = window.outcome.answer.to_json_dict()
    assert result["chunks"] and all(c["scope"].startswith("mine/notes") for c in result["chunks"])
    assert any("tomato" in c["text"] for c in result["chunks"])
    assert result["kg_entities"]
    assert not window.memory_actions.overview_shown()


def test_scope_picker_lists_the_tree_and_flags_an_unknown_scope(
    qtbot: Any, own_window: Any
) -> None:
    picker = own_window.query_bar.scope_picker
    _import(qtbot, own_window, FIXTURES / "messages.jsonl", "mine/notes")
    qtbot.waitUntil(lambda: "mine/notes" in picker.paths(), timeout=30_000)
    assert "mine" in picker.paths()
    top = picker.tree.topLevelItem(0)
    assert top.text(0) == "(root)" and int(top.text(1).replace(",", "")) > 0
    picker.set_text("nobody/here")
    assert "no memory is stored under scope" in picker.error
    assert not own_window.query_bar.run_button.isEnabled()
    picker.set_text("mine/notes/")  # another spelling of a stored scope
    assert picker.error == "" and own_window.query_bar.run_button.isEnabled()


def test_strict_import_of_a_bad_file_imports_nothing(qtbot: Any, own_window: Any) -> None:
    before = own_window.memory_actions.overview.chunks
    dialog = _import(qtbot, own_window, FIXTURES / "messages_bad.jsonl", "bad/strict")
    assert dialog.outcome.error and "nothing was imported" in dialog.outcome.error
    assert "Nothing was imported" in dialog.summary.toPlainText()
    stale = own_window.memory_actions.overview
    own_window.bridge.request_overview()  # a fresh read of the stores, not the one in hand
    qtbot.waitUntil(lambda: own_window.memory_actions.overview is not stale, timeout=30_000)
    assert own_window.memory_actions.overview.chunks == before
    assert own_window.memory_actions.overview.scopes.find("bad/strict") is None
    skipped = _import(qtbot, own_window, FIXTURES / "messages_bad.jsonl", "bad/skip", skip_bad=True)
    report = skipped.outcome.report
    assert report.bad_count > 0 and report.chunks_new > 0
    assert "skipped bad records" in skipped.summary.toPlainText()


def test_cancelled_import_leaves_nothing_half_imported(
    qtbot: Any, own_window: Any, tmp_path: Path
) -> None:
    path = _messages(tmp_path, 4000)
    dialog = own_window.memory_actions.open_import(path)
    dialog.scope.setText("big/cancelled")
    seen: list[Any] = []
    own_window.bridge.import_progress.connect(seen.append)
    dialog.start()
    qtbot.waitUntil(lambda: any(p.phase == "chunks" and p.done > 0 for p in seen), timeout=60_000)
    assert dialog.progress.maximum() > 0 and "chunks:" in dialog.status.text()
    qtbot.mouseClick(dialog.cancel_button, qtbot_button())
    qtbot.waitUntil(lambda: dialog.outcome is not None, timeout=120_000)
    outcome = dialog.outcome
    assert outcome.cancelled and not outcome.error
    assert "cancelled" in dialog.summary.toPlainText()
    memory = own_window.bridge.memory
    counts = run(asyncio.get_event_loop(), memory.chunks.counts())
    assert counts["pending"] == 0
    written = counts.get("scope:big/cancelled", 0)
    assert written == outcome.completed  # what was written was completed, nothing more
    assert written < 4000


def test_settings_round_trip_and_key_in_keyring(qtbot: Any, own_window: Any) -> None:
    from explorer.gui.settings_dialogs import SettingsDialog

    backend = MemoryKeyring()
    previous = keyring.get_keyring()
    keyring.set_keyring(backend)
    try:
        settings = own_window.bridge.settings
        dialog = SettingsDialog(settings)
        dialog.query_timeout.setValue(17.5)
        dialog.default_scope.setText("mine/notes")
        dialog.load_demo.setChecked(False)
        dialog.gemini_key.setText("test-key-123")
        dialog.save()
        assert dialog.result() == dialog.DialogCode.Accepted, dialog.error.text()
        file = settings.file
        text = file.read_text("utf-8")
        assert "test-key-123" not in text
        assert backend.passwords[("scour-explorer", "gemini")] == "test-key-123"
        loaded = load_settings(file=file, overrides={"data_dir": settings.data_dir})
        assert loaded.query_timeout == 17.5 and loaded.default_scope == "mine/notes"
        assert loaded.load_demo is False and loaded == dialog.saved
        again = SettingsDialog(loaded)
        assert again.query_timeout.value() == 17.5
        assert "stored" in again.gemini_key.placeholderText()
        again.default_scope.setText("")
        again.forget_key.setChecked(True)
        again.save()
        assert ("scour-explorer", "gemini") not in backend.passwords
        assert load_settings(file=file).default_scope == ""
    finally:
        keyring.set_keyring(previous)


def test_open_memory_through_unix_socket_urls(qtbot: Any, own_window: Any, own_dir: Path) -> None:
    from explorer.gui.settings_dialogs import ConnectDialog

    falkordb, postgres = EmbeddedServers(own_dir).status()
    assert falkordb.address.startswith("unix://")
    dialog = own_window.memory_actions.open_connect()
    assert isinstance(dialog, ConnectDialog)
    dialog.external.setChecked(True)
    dialog.falkordb_url.setText(falkordb.address)
    dialog.postgres_dsn.setText(postgres.address)
    dialog.test()
    qtbot.waitUntil(lambda: bool(dialog.tested), timeout=30_000)
    assert dialog.tested["graph"][0] and "FalkorDB 4." in dialog.tested["graph"][1]
    assert dialog.tested["chunks"][0] and "PostgreSQL 18" in dialog.tested["chunks"][1]
    dialog.postgres_dsn.setText("postgresql://nobody@/nothing?host=/nonexistent-dir")
    dialog.tested = {}
    dialog.test()
    qtbot.waitUntil(lambda: bool(dialog.tested), timeout=30_000)
    assert dialog.tested["graph"][0] and not dialog.tested["chunks"][0]  # each store on its own
    dialog.postgres_dsn.setText(postgres.address)
    before = own_window.memory_actions.overview.chunks
    dialog._on_open()
    qtbot.waitUntil(
        lambda: own_window.bridge.opened and own_window.memory_actions.overview is not None,
        timeout=60_000,
    )
    settings = own_window.bridge.settings
    assert settings.falkordb_url == falkordb.address and not settings.embedded
    assert own_window.memory_actions.overview.chunks == before
    assert falkordb.address in own_window.windowTitle()
    recent = own_window.memory_actions.recent_menu.actions()
    assert recent and recent[0].text() == falkordb.address


@pytest.fixture(scope="module")
def generated_dir(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    import subprocess
    import sys

    data_dir = tmp_path_factory.mktemp("generated")
    servers = EmbeddedServers(data_dir)
    servers.start()
    try:
        # A command of its own: this package's loop is marked running, so no asyncio.run here.
        args = ["--data-dir", str(data_dir), "generate"]
        sizes = ["--entities", "400", "--edges", "1200", "--chunks", "400"]
        done = subprocess.run(
            [sys.executable, "-m", "explorer.cli", *args, *sizes],
            capture_output=True,
            text=True,
            timeout=300,
            check=False,
        )
        assert done.returncode == 0, done.stderr
        yield data_dir
    finally:
        servers.stop()


def test_window_and_query_agree_on_a_generated_memory(
    qloop: asyncio.AbstractEventLoop, qtbot: Any, generated_dir: Path, settings_store: Any
) -> None:
    from explorer.tools import CORE_MEMORY, ToolContext
    from explorer.tools.scour import run as scour_tool

    settings = Settings(data_dir=generated_dir, load_demo=False)
    bridge = ServiceBridge(settings, services=SERVICES, poll_interval=0.3)
    window = make_window(bridge, settings_store)
    try:
        bridge.open()
        qtbot.waitUntil(lambda: window.memory_actions.overview is not None, timeout=60_000)
        overview = window.memory_actions.overview
        assert overview.chunks == 400 and overview.entities == 400
        query = overview.salient[0].name
        token = window.run_query(query)
        qtbot.waitUntil(
            lambda: window.outcome is not None and window.outcome.token == token, timeout=60_000
        )
        shown = window.outcome.answer.to_json_dict()
        bar = window.query_bar
        ctx = ToolContext("tester", CORE_MEMORY, bridge.memory, scope=settings.default_scope)
        answer = json.loads(
            run(
                qloop,
                scour_tool(
                    query, n_chunks=bar.n_chunks.value(), kg_top_k=bar.kg_top_k.value(), ctx=ctx
                ),
            )
        )
        assert answer["success"] and shown["kg_entities"] and shown["chunks"]
        assert [e["name"] for e in answer["kg_entities"]] == [
            e["name"] for e in shown["kg_entities"]
        ]
        assert [c["text"] for c in answer["chunks"]] == [c["text"] for c in shown["chunks"]]
    finally:
        close_window(qloop, window)


#: Seconds a screenshot run may take (about 3 s here), well inside the test's 300 s.
SCREENSHOT_SECONDS = 120


def _screenshot_run(args: list[str], home: Path) -> subprocess.CompletedProcess[str]:
    """The CLI's screenshot run; one that hangs fails the test with every thread's stack (the
    child dumps them on SIGABRT), well inside the test's own timeout, which would lose them."""
    env = {
        "QT_QPA_PLATFORM": "offscreen",
        "PATH": "/usr/bin:/bin",
        "HOME": str(home),
        "PYTHONFAULTHANDLER": "1",
    }
    command = [sys.executable, "-m", "explorer.cli", *args]
    with subprocess.Popen(
        command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env
    ) as child:
        try:
            out, err = child.communicate(timeout=SCREENSHOT_SECONDS)
        except subprocess.TimeoutExpired:
            child.send_signal(signal.SIGABRT)
            out, err = child.communicate(timeout=30)
            pytest.fail(f"the screenshot run hung past {SCREENSHOT_SECONDS} s:\n{out}\n{err}")
    return subprocess.CompletedProcess(command, child.returncode, out, err)


def test_screenshot_says_what_it_shows(generated_dir: Path, tmp_path: Path) -> None:
    out = tmp_path / "shot.png"
    args = ["--data-dir", str(generated_dir), "--screenshot", str(out), "--size", "1280x800"]
    first = _screenshot_run(args, tmp_path)
    assert first.returncode == 0, first.stderr
    assert "shown: 20 entities, 0 chunks, scope (root)" in first.stdout  # the overview
    answer = _screenshot_run([*args, "--query", "Project"], tmp_path)
    assert answer.returncode == 0, answer.stderr
    line = next(x for x in answer.stdout.splitlines() if x.startswith("shown: "))
    entities, chunks = (int(part.split()[0]) for part in line[7:].split(", ")[:2])
    assert entities > 0 and chunks > 0 and line.endswith("scope (root)")


def test_dropping_a_file_on_the_window_opens_the_import(qtbot: Any, own_window: Any) -> None:
    from PySide6.QtCore import QMimeData, QPointF, QUrl
    from PySide6.QtGui import QDragEnterEvent, QDropEvent
    from PySide6.QtWidgets import QApplication

    path = FIXTURES / "messages.jsonl"
    mime = QMimeData()
    mime.setUrls([QUrl.fromLocalFile(str(path))])
    point = QPointF(200, 200)
    buttons, keys = Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier
    enter = QDragEnterEvent(point.toPoint(), Qt.DropAction.CopyAction, mime, buttons, keys)
    QApplication.sendEvent(own_window, enter)
    assert enter.isAccepted()
    drop = QDropEvent(point, Qt.DropAction.CopyAction, mime, buttons, keys)
    QApplication.sendEvent(own_window, drop)
    dialog = own_window.memory_actions.import_dialog
    assert dialog is not None and dialog.isVisible()
    assert dialog.path.text() == str(path) and dialog.format.currentData() == "jsonl"
    assert dialog.scope.text() == "messages" and dialog.import_button.isEnabled()
    dialog.reject()


def test_forget_a_scope_from_the_file_menu(qtbot: Any, own_window: Any, tmp_path: Path) -> None:
    window = own_window
    dialog = _import(qtbot, window, _messages(tmp_path, 12, "shed"), "to-forget/shed")
    assert not dialog.outcome.error
    qtbot.waitUntil(lambda: window.memory_actions.overview.scopes.find("to-forget"), timeout=30_000)
    window.query_bar.scope_picker.set_text("to-forget/shed")
    token = window.run_query("Who planted tomatoes at the allotment?")
    qtbot.waitUntil(
        lambda: window.outcome is not None and window.outcome.token == token, timeout=60_000
    )
    window.query_bar.scope_picker.set_text("no/such/scope")
    unsure = window.memory_actions.open_forget()
    assert unsure.chosen() is None and not unsure.forget_button.isEnabled()
    unsure.reject()
    window.query_bar.scope_picker.set_text("to-forget/")
    forget = window.memory_actions.open_forget()
    node = forget.chosen()
    seen = window.memory_actions.overview  # said on failure: which overview the dialog was given
    shown = [(n.path, n.chunks) for n in seen.scopes.walk()], seen.errors
    assert node is not None and node.path == "to-forget" and node.chunks == 12, shown
    said = forget.warning.text()
    assert "“to-forget” and the 1 scope below it" in said and "12 chunks" in said
    assert "cannot be undone" in said
    qtbot.mouseClick(forget.forget_button, qtbot_button())
    assert window.status_message.text() == "Forgetting “to-forget”…"
    qtbot.waitUntil(
        lambda: window.memory_actions.overview.scopes.find("to-forget") is None, timeout=60_000
    )
    qtbot.waitUntil(lambda: window.memory_actions.overview_shown(), timeout=30_000)
    assert window.status_message.text().startswith("Forgot 'to-forget': 12 chunks")
    assert window.query_bar.scope_picker.text() == ""
    assert "to-forget/shed" not in window.query_bar.scope_picker.paths()


def test_a_file_imported_twice_under_two_scopes_is_called_a_second_copy(
    qtbot: Any, own_window: Any, tmp_path: Path
) -> None:
    # Words of their own: the module's other imports share the text of ``_messages``.
    path = tmp_path / "twice.jsonl"
    lines = [
        {"conversation_id": "t", "speaker": "Ines", "text": f"Fed the twice cat {i} times",
         "timestamp": f"2023-02-0{1 + i}T08:00:00Z"}
        for i in range(6)
    ]  # fmt: skip
    path.write_text("\n".join(json.dumps(line) for line in lines) + "\n", "utf-8")
    first = _import(qtbot, own_window, path, "copies/first")
    assert "second copy" not in first.summary.toPlainText()
    first.close()
    second = _import(qtbot, own_window, path, "copies/second")
    said = second.summary.toPlainText()
    assert "6 of 6 messages looked at were already stored under 'copies/first'" in said
    assert "this is a second copy" in said
    assert "File → Forget a scope…" in said
