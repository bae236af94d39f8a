"""The window's side of forgetting, over the in-memory fake: what the status line says and
whether the answer on screen gives way, when the memory refuses or a store fails part-way.
The whole round trip over the real embedded stores is in ``test_own_memory.py``."""

from __future__ import annotations

import asyncio
from typing import Any

from explorer.core.errors import WriteFailed
from explorer.testing import FakeMemory
from tests.gui.conftest import close_window, wait_for_answer
from tests.gui.test_aliases import _window


def _answered(qtbot: Any, window: Any) -> None:
    token = window.run_query("Lisbon")
    wait_for_answer(qtbot, window, token)
    assert not window.memory_actions.overview_shown()


def test_a_refused_forget_says_why_and_leaves_the_answer(
    qloop: asyncio.AbstractEventLoop, qtbot: Any, settings_store: Any
) -> None:
    memory = FakeMemory(read_only=True)
    window = _window(qtbot, memory, settings_store)
    try:
        _answered(qtbot, window)
        window.bridge.forget_scope("acme/ana")
        qtbot.waitUntil(lambda: "Forget “acme/ana”" in window.status_message.text(), timeout=5_000)
        assert "read-only" in window.status_message.text()
        qtbot.wait(300)  # the overview that follows is not shown over the answer
        assert not window.memory_actions.overview_shown()
        assert memory.chunks.chunks  # nothing went
    finally:
        close_window(qloop, window)


def test_a_forget_cut_short_says_so_and_shows_the_overview(
    qloop: asyncio.AbstractEventLoop, qtbot: Any, settings_store: Any
) -> None:
    memory = FakeMemory()
    window = _window(qtbot, memory, settings_store)
    try:
        _answered(qtbot, window)
        memory.chunks.fail = WriteFailed("forgetting 'acme/ana' did not finish (disk full)")
        window.bridge.forget_scope("acme/ana")
        qtbot.waitUntil(lambda: window.memory_actions.overview_shown(), timeout=5_000)
        assert window.status_message.text().startswith("Forget “acme/ana”: forgetting")
        assert "did not finish" in window.status_message.text()
    finally:
        memory.chunks.fail = None
        close_window(qloop, window)
